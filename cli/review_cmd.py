"""``palace review RECORD``: a whole game judged move by move (palace_solver/review/)."""
from __future__ import annotations

import json
import os

import click

from palace_solver.cli.common import batch_options, fail
from palace_solver.jobs.batch import BatchError
from palace_solver.review.judge import Budget
from palace_solver.review.plot import PlotError, write_plot
from palace_solver.review.run import (
    ReviewError,
    format_report,
    format_summary,
    load_records,
    review,
    summary,
)


@click.command("review")
@click.argument("record", type=click.Path(exists=True))
@click.option("--seat", "seats", multiple=True, metavar="NAME",
              help="Review this seat only (repeatable; default: every seat whose cards the "
                   "record knows).")
@click.option("--hindsight", is_flag=True,
              help="Also judge each decision with every hand known (double-dummy-like; "
                   "exact once the draw pile is empty). Needs a record that knows every "
                   "seat's cards.")
@click.option("--nodes", type=click.IntRange(min=1), default=None,
              help="Node budget of each decision's search (default: "
                   f"{Budget.draw_nodes:,} while the draw pile holds cards, "
                   f"{Budget.end_nodes:,} once it is empty; the same review on any machine).")
@click.option("--time", "time_budget", type=click.FloatRange(min=0.01), default=None,
              help="Seconds per decision at most (then the review depends on the machine).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the searches (each decision derives its own).")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE.svg|png",
              help="Draw each seat's loss probability over the game, the marks and where "
                   "the draw pile ran out (PNG needs the 'plot' extra: matplotlib).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the review as JSON (docs/review.md).")
@click.option("--moves/--no-moves", default=True, show_default=True,
              help="List every decision after the seats' table.")
@batch_options("the review", "one decision's judgement")
@click.option("--progress/--no-progress", default=None,
              help="Progress on standard error (default: when it is a terminal).")
def review_cmd(record, seats, hindsight, nodes, time_budget, seed, plot_file, as_json, moves,
               jobs, ray_address, output, progress):
    """Judge every decision of a game record (docs/record.md) from what the mover knew:
    each legal move's loss probability, the move played against the best, the loss it
    added, and a mark at 0.05 (inaccuracy), 0.10 (mistake) or 0.20 (blunder) unless the
    two moves' 95% intervals overlap (a tie). Per seat: an accuracy from 0 to 100, the
    marks, the mean added loss and the three worst decisions.

    RECORD is a record file (text or JSON form) or a directory of them (then a summary
    per seat name follows the games). A bad record is refused with one line naming its
    line and event (exit status 2).

    \b
    Examples:
      palace review game.txt
      palace review game.txt --seat bob --plot game.svg
      palace review games/ --jobs 2 --output review.jsonl --json
      palace review game.txt --hindsight --nodes 400000
    """
    if jobs < 1:
        fail("--jobs must be at least 1")
    try:
        records = load_records(record)
    except ReviewError as e:
        fail(str(e))
    budget = Budget(nodes=nodes, time=time_budget)
    try:
        reports = review(records, seats=list(seats), budget=budget, seed=seed,
                         hindsight=hindsight, jobs=jobs, ray=ray_address, output=output,
                         progress="auto" if progress is None else progress)
    except (ReviewError, BatchError) as e:
        fail(str(e))
    except MemoryError as e:
        fail(f"out of memory: {e} (try --time or a smaller --nodes)")
    many = len(reports) > 1 or os.path.isdir(record)
    if plot_file:
        if many:
            fail("--plot draws one game: give one record")
        try:
            write_plot(reports[0], plot_file)
        except PlotError as e:
            fail(str(e))
        except OSError as e:
            fail(f"cannot write {plot_file}: {e.strerror or e}")
    if as_json:
        out = reports[0] if not many else {"games": reports, "summary": summary(reports)}
        click.echo(json.dumps(out))
        return
    for i, rep in enumerate(reports):
        if i:
            click.echo("")
        click.echo(format_report(rep, moves=moves and not many))
    if many:
        click.echo("\nover the games:")
        click.echo(format_summary(summary(reports)))


COMMANDS = [review_cmd]

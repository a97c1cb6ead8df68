"""``palace match A B``: a strength test between two agents (palace_solver/jobs/match.py)."""
from __future__ import annotations

import json
import os

import click

from palace_solver.agents.registry import AGENTS, AgentError
from palace_solver.cli.common import batch_options, fail, rules_from_options, rules_options
from palace_solver.jobs.batch import BatchError
from palace_solver.game.record import write_record
from palace_solver.jobs.match import CAP, KINDS, format_summary, run_match
from palace_solver.review.writers import record_from_match_game


@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--players", "-n", type=int, default=2, show_default=True,
              help="Players at the table: A in one seat, B in every other.")
@click.option("--kind", type=click.Choice(KINDS), default="full", show_default=True,
              help="full: from the first play after the deal; late: from a greedy game's "
                   "first decision with an empty draw pile and at most --late-cards cards "
                   "in play.")
@click.option("--starts", type=int, default=100, show_default=True,
              help="Starts, each played in every seating (players games per start).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the starts, the chance events and the agents.")
@click.option("--late-cards", type=int, default=None,
              help="late starts: at most this many cards in play (default 6 per player).")
@click.option("--cap", type=int, default=CAP, show_default=True,
              help="Decisions from the start after which a game is a draw.")
@rules_options
@batch_options("the result", "one game")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR",
              help="Write every game's record (docs/record.md, the full deal) to DIR, "
                   "KIND-START-SEAT.txt, for palace review.")
@click.option("--progress/--no-progress", default=None,
              help="Progress on standard error (default: when it is a terminal).")
def match(a, b, players, kind, starts, seed, late_cards, cap, rules_name, variants, jobs,
          ray_address, output, as_json, progress, record_dir):
    """Play agent A against agent B and report A's score.

    Each start is played in every seating with the same chance events (common random
    numbers). A's score is 1 minus its mean loss share (a draw is half a loss in two
    players), with a 95% interval paired over the starts, the p-value against an equal
    agent, A's wins, draws and losses, and each side's decisions per second.

    Agents may carry options, NAME:key=value:...: engine:nodes=100000, os_ismcts:sims=100.

    \b
    Examples:
      palace match engine greedy --starts 200 --jobs 2
      palace match engine greedy --players 3 --starts 300 --output m.jsonl
      palace match engine det --kind late --seed 1 --json
    """
    rules = rules_from_options(rules_name, variants, players)
    if starts < 1:
        fail("--starts must be at least 1")
    if jobs < 1:
        fail("--jobs must be at least 1")
    if cap < 1:
        fail("--cap must be at least 1")
    if late_cards is not None and late_cards < 1:
        fail("--late-cards must be at least 1")
    on_game = None
    if record_dir is not None:
        try:
            os.makedirs(record_dir, exist_ok=True)
        except OSError as e:
            fail(f"cannot make {record_dir}: {e.strerror or e}")

        def on_game(task, result):
            path = os.path.join(record_dir, f"{task['kind']}-{task['start']:04d}-"
                                            f"{task['seat']}.txt")
            try:
                write_record(path, record_from_match_game(task, result))
            except OSError as e:
                fail(f"cannot write {path}: {e.strerror or e}")
    try:
        res = run_match(a, b, players=players, kind=kind, starts=starts, seed=seed,
                        rules=rules, late_cards=late_cards, cap=cap, jobs=jobs,
                        ray=ray_address, output=output,
                        progress="auto" if progress is None else progress, on_game=on_game)
    except (AgentError, BatchError, ValueError) as e:
        fail(str(e))
    click.echo(json.dumps(res) if as_json else format_summary(res))


match.__doc__ += "\n\b\nAgents:\n" + "\n".join(f"  {n}: {AGENTS[n][1]}" for n in AGENTS)

COMMANDS = [match]

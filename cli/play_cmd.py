"""``palace play``: bots play full games (one game with its log, or a series with a tally)."""
from __future__ import annotations

import os

import click
from palace_solver.cli.common import batch_options, rules_from_options, rules_options
from palace_solver.cli.common import fail as _fail

from palace_solver.agents.play import DEFAULT_TURN_CAP, play_game, seats_for
from palace_solver.jobs.batch import BatchError
from palace_solver.game.record import write_record
from palace_solver.jobs.series import game_seed, play_series
from palace_solver.review.writers import record_from_game
from palace_solver.sample.policies import BOTS


@click.command()
@click.option("--players", "-n", type=int, default=2, show_default=True,
              help="Number of players (2 to 6; more with two decks).")
@click.option("--bots", "-b", default="greedy", show_default=True,
              help=f"Comma-separated bot names, one per seat or one for all, cycled over "
                   f"the seats. Known: {', '.join(BOTS)}.")
@rules_options
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the game (or of the series); the same seed replays the same games.")
@click.option("--games", "-g", type=int, default=1, show_default=True,
              help="Number of games; more than 1 plays a series with seats rotated and "
                   "prints a tally per bot.")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: the full game record (one game) or the tally (series).")
@click.option("--turn-cap", type=int, default=DEFAULT_TURN_CAP, show_default=True,
              help="Decisions allowed before a game is called a draw.")
@click.option("--repetitions", type=int, default=2, show_default=True,
              help="Occurrences of one play-phase position that make a draw (2: first repeat).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr (default: on for more than 20 games).")
@batch_options("the tally", "the games of one task, see --per-task")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR",
              help="Write each game's record (docs/record.md, the full deal) to DIR, one "
                   "file a game: game-SEED.txt, or game-NNNNNN.txt in a series "
                   "(for palace review).")
@click.option("--per-task", type=int, default=None,
              help="Games per batch task (default: games/100, between 1 and 50). Does not "
                   "change the tally, only how often progress is saved.")
def play(players, bots, rules_name, variants, seed, games, as_json, turn_cap, repetitions,
         progress, jobs, ray_address, output, record_dir, per_task):
    """Let bots play full games of Palace.

    One game prints every event (deal, layouts, moves, draws, flips, burns, pickups,
    players going out) and ends with the loser. A series (--games N) prints, per bot, the
    games played, losses, loss rate and draws; a draw is a repeated position or the turn cap.

    A series runs through the batch layer: in local processes (--jobs) or on a Ray cluster
    (--ray), the same tally for the same seed whatever the workers. With --output, each
    finished task is saved at once, and the same command resumes a killed series.

    \b
    Examples:
      palace play --players 3 --bots greedy,random,lowest --seed 7
      palace play -n 4 --bots random --variant seven_low --variant invisible_8
      palace play --bots greedy,lowest --games 1000 --json
      palace play -n 6 --variant jokers --bots greedy --seed 3 --json
      palace play --games 100000 --jobs 2 --output series.jsonl
      palace play --games 1000000 --ray auto --output series.jsonl
    """
    rules = rules_from_options(rules_name, variants, players)
    bot_names = [b.strip().lower() for b in bots.split(",") if b.strip()]
    if not bot_names:
        _fail("--bots needs at least one bot name")
    for b in bot_names:
        if b not in BOTS:
            _fail(f"unknown bot {b!r} (known: {', '.join(BOTS)})")
    if len(bot_names) > players:
        _fail(f"{len(bot_names)} bots for {players} players")
    if games < 1:
        _fail("--games must be at least 1")
    if turn_cap < 1:
        _fail("--turn-cap must be at least 1")
    if repetitions < 2:
        _fail("--repetitions must be at least 2")

    if jobs < 1:
        _fail("--jobs must be at least 1")
    if per_task is not None and per_task < 1:
        _fail("--per-task must be at least 1")
    if games == 1 and output is not None:
        _fail("--output is for a series (--games 2 or more)")

    if record_dir is not None:
        try:
            os.makedirs(record_dir, exist_ok=True)
        except OSError as e:
            _fail(f"cannot make {record_dir}: {e.strerror or e}")
    if games == 1:
        seats = seats_for(bot_names, players, 0)
        rec = play_game(rules, players, seats, seed=seed, turn_cap=turn_cap,
                        repetitions=repetitions)
        if record_dir is not None:
            _write(record_dir, f"game-{seed}.txt", rec)
        click.echo(rec.to_json(indent=2) if as_json else rec.text())
        return

    show = progress if progress is not None else games > 20
    try:
        res = play_series(rules, players, bot_names, games, seed=seed, turn_cap=turn_cap,
                          repetitions=repetitions, progress=show, jobs=jobs, ray=ray_address,
                          output=output, per_task=per_task)
    except BatchError as e:
        _fail(str(e))
    if record_dir is not None:
        # The games are replayed from their seeds (the same games: chance and the bots
        # follow the seed alone), so the series itself stays as fast without records.
        for g in range(games):
            rec = play_game(rules, players, seats_for(bot_names, players, g),
                            seed=game_seed(seed, g), turn_cap=turn_cap,
                            repetitions=repetitions)
            _write(record_dir, f"game-{g:06d}.txt", rec)
    click.echo(res.to_json(indent=2) if as_json else res.text())


def _write(directory: str, name: str, game) -> None:
    path = os.path.join(directory, name)
    try:
        write_record(path, record_from_game(game))
    except OSError as e:
        _fail(f"cannot write {path}: {e.strerror or e}")


COMMANDS = [play]

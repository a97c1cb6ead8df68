"""``palace swap-table``: loss rate by class of face-up layout, per player count."""
from __future__ import annotations

import json

import click
from palace_solver.cli.common import (
    batch_options,
    fail,
    rules_from_options,
    rules_options,
)

from palace_solver.game.rules import RulesError
from palace_solver.jobs.batch import BatchError
from palace_solver.jobs.swap_table import LAYOUT_MODES, swap_table
from palace_solver.sample.policies import BOTS


def _player_counts(spec: str) -> list[int]:
    """'2-4' -> [2, 3, 4]; '2,5' -> [2, 5]; '3' -> [3]."""
    out: list[int] = []
    try:
        for part in spec.replace(" ", "").split(","):
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out += range(a, b + 1)
            elif part:
                out.append(int(part))
    except ValueError:
        fail(f"--players {spec!r}: expected counts such as '2-4' or '2,3,5'")
    if not out:
        fail(f"--players {spec!r}: no player count")
    return sorted(set(out))


@click.command("swap-table")
@click.option("--players", "-n", "players_spec", default="2-4", show_default=True,
              help="Player counts: a range '2-5', a list '2,4' or one count.")
@click.option("--games", "-g", type=int, default=2000, show_default=True,
              help="Games per player count (every player of a game is one observation).")
@rules_options
@click.option("--bot", default="greedy", show_default=True,
              help=f"Policy of every seat. Known: {', '.join(BOTS)}.")
@click.option("--layout", type=click.Choice(LAYOUT_MODES), default="bot", show_default=True,
              help="bot: every player lays out as the bot does; random: uniformly at random "
                   "among its layouts (fills the classes the bot never chooses).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the table; every game's seed derives from it, its player count "
                   "and its number, so the same seed gives the same table.")
@batch_options("the table", "100 games")
@click.option("--min-layouts", type=int, default=20, show_default=True,
              help="Leave out of the printed table the classes seen fewer times (their "
                   "intervals are too wide to rank); --json keeps every class.")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: rules, bot, sample sizes, class legend and every row.")
@click.option("--progress/--no-progress", default=None,
              help="Progress on standard error (default: when it is a terminal).")
def swap_table_cmd(players_spec, games, rules_name, variants, bot, layout, seed, jobs,
                   ray_address, output, min_layouts, as_json, progress):
    """Estimate the loss probability for each class of face-up layout and each player
    count, from games played by the engine's bots.

    A layout's class is its cards' classes, best first: R reset (2), B burn (10), T
    transparent, V low-maker (variants), H high (J Q K A), M middle (7 8 9), L low
    (3 4 5 6); under variants the classes follow the rules (an ace that burns is B).
    Each row gives the layouts seen (player-games), their share, losses, the loss rate
    and its 95% Wilson interval; the header states the rules, the bot and the sample.

    \b
    Examples:
      palace swap-table --games 2000
      palace swap-table -n 2-5 --games 100000 --jobs 2 --output table.jsonl
      palace swap-table -n 3 --variant seven_low --layout random --json
      palace swap-table -n 2-6 --games 1000000 --ray auto --output table.jsonl
    """
    counts = _player_counts(players_spec)
    rules = rules_from_options(rules_name, variants, counts[0])
    for n in counts:
        try:
            rules.check_players(n)
        except RulesError as e:
            fail(str(e))
    if games < 1:
        fail("--games must be at least 1")
    if jobs < 1:
        fail("--jobs must be at least 1")
    if bot.strip().lower() not in BOTS:
        fail(f"unknown bot {bot!r} (known: {', '.join(BOTS)})")
    try:
        table = swap_table(rules, counts, games, seed=seed, bot=bot, layout=layout, jobs=jobs,
                           ray=ray_address, output=output,
                           progress="auto" if progress is None else progress)
    except BatchError as e:
        fail(str(e))
    click.echo(json.dumps(table.to_json(), indent=2) if as_json
               else table.text(min_layouts=min_layouts))


COMMANDS = [swap_table_cmd]

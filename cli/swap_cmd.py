"""``palace swap CARDS``: rank the ways to lay out one's face-up cards at the swap phase."""
from __future__ import annotations

import json

import click
from palace_solver.cli.common import batch_options, duration, rules_from_options, rules_options
from palace_solver.cli.common import fail as _fail

from palace_solver.game.cards import CardError, names, parse_rank
from palace_solver.agents.registry import AgentError, parse_agent
from palace_solver.jobs.swap import estimate_seconds, rank_layouts
from palace_solver.sample.policies import BOTS


def _cards(text: str) -> list[int]:
    try:
        return [parse_rank(w) for w in text.replace(",", " ").split()]
    except CardError as e:
        _fail(str(e))


@click.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--players", "-n", type=int, default=2, show_default=True,
              help="Number of players (2 to 6; more with two decks).")
@rules_options
@click.option("--seat", type=int, default=0, show_default=True,
              help="Your seat in dealing order (0 lays out first).")
@click.option("--others", "-o", "others", multiple=True,
              help="Known face-up cards of another player, e.g. 'K A 2' (repeatable, one "
                   "per other player in seat order after you; fewer than 3 cards: the rest "
                   "is unknown).")
@click.option("--games", "-g", type=int, default=200, show_default=True,
              help="Games played per layout (the same deals for every layout).")
@click.option("--bot", default="greedy", show_default=True,
              help=f"Policy of the other players in those games. Known: {', '.join(BOTS)}.")
@click.option("--agent", default="engine", show_default=True,
              help="Agent playing your seat (palace match's names, e.g. engine, "
                   "engine:determinizations=16), or 'none' for --bot everywhere (greedy "
                   "playouts: a hundred times faster).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the random completions of the deal; same seed, same ranking.")
@batch_options("the ranking", "50 games of one layout")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: every layout with its loss probability, interval and games.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Show a progress bar on standard error.")
def swap(cards, players, rules_name, variants, seat, others, games, bot, agent, seed, jobs,
         ray_address, output, as_json, progress):
    """Rank the layouts of your face-up cards at the swap phase.

    CARDS are your hand and face-up cards together (6, or 8 with four_cards; the hand of 6
    under choose_face_up). Each distinct choice of face-up cards is played in --games games
    from random completions of the deal, your seat played by --agent (the engine's search by
    default) and the others by --bot, and ranked by your estimated loss probability with a
    95% interval. --agent none plays --bot everywhere (greedy playouts, far faster).

    \b
    Examples:
      palace swap 3 7 9 K A 10
      palace swap 3 7 9 K A 10 --agent none --games 2000
      palace swap 3 7 9 K A 10 -n 3 --others "2 A Q" --games 500 --json
      palace swap 3 7 9 K A 10 --games 20000 --ray auto --output swap.jsonl
    """
    rules = rules_from_options(rules_name, variants, players)
    mine = _cards(" ".join(cards))
    others_up = [_cards(o) for o in others]
    if games < 2:
        _fail("--games must be at least 2")
    if jobs < 1:
        _fail("--jobs must be at least 1")
    if bot.strip().lower() not in BOTS:
        _fail(f"unknown bot {bot!r} (known: {', '.join(BOTS)})")
    agent = None if agent.strip().lower() in ("none", "") else agent.strip()
    if agent is not None:
        try:
            parse_agent(agent)
        except AgentError as e:
            _fail(str(e))
    if progress and ray_address is None:
        try:
            _say_estimate(rules, players, mine, others_up, seat, games, seed,
                          bot.strip().lower(), agent, jobs)
        except ValueError as e:
            _fail(str(e))
    try:  # ValueError: impossible cards, or a BatchError (another run's --output, no Ray)
        res = rank_layouts(rules, players, mine, others_up, seat=seat, games=games, seed=seed,
                           jobs=jobs, bot=bot.strip().lower(), progress=progress,
                           ray=ray_address, output=output, agent=agent)
    except ValueError as e:
        _fail(str(e))
    if as_json:
        click.echo(json.dumps({
            "players": players, "rules": rules.to_json(), "cards": names(mine),
            "seat": seat, "games": games, "seed": seed, "bot": bot, "agent": agent,
            "layouts": [{"face_up": names(v.move.layout),
                         "hand": names(_rest(mine, v.move.layout)),
                         "loss_probability": v.loss, "ci95": list(v.ci95), "games": v.games}
                        for v in res]}, indent=2))
        return
    who = f"you: {agent}, others: {bot}" if agent else f"{bot} play"
    click.echo(f"{len(res)} layouts, {games} games each ({who}), seed {seed}")
    click.echo(f"{'face up':<14} {'hand':<14} {'loss':>6}  95% interval")
    for v in res:
        click.echo(f"{' '.join(names(v.move.layout)):<14} "
                   f"{' '.join(names(_rest(mine, v.move.layout))):<14} {v.loss:>6.3f}  "
                   f"[{v.ci95[0]:.3f}, {v.ci95[1]:.3f}]")


def _say_estimate(rules, players, mine, others_up, seat, games, seed, bot, agent, jobs):
    """Before the run: how long it will take (a probe game, about a second)."""
    est = estimate_seconds(rules, players, mine, others_up, seat, games, seed, bot, agent,
                           jobs)
    who = agent or bot
    line = (f"palace swap: {est['layouts']} layouts x {games} games = {est['games']:,} games, "
            f"about {est['per_game']:.2g} s a game with {who}: roughly "
            f"{duration(est['seconds'])} on {jobs} job{'s' if jobs != 1 else ''}")
    if agent is not None and est["seconds"] > 120:
        line += " (--agent none plays greedy playouts, about a hundred times faster)"
    click.echo(line, err=True)


def _rest(cards, layout) -> list[int]:
    rest = sorted(cards)
    for r in layout:
        rest.remove(r)
    return rest


COMMANDS = [swap]

"""``palace live``: follow a real game from your seat, one event a line, with suggestions.

The click command only: options, then :mod:`palace_solver.live` (start, repl) does the rest.
"""
from __future__ import annotations

import os
import sys

import click

from palace_solver.game.rules import VARIANTS
from palace_solver.live.events import LiveError
from palace_solver.live.repl import MAX_SECONDS, Driver, ask_at_prompt, run_repl, run_script
from palace_solver.live.start import open_session


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


@click.command("live")
@click.option("--players", "-n", type=int, default=None,
              help="Number of players (with --names, a check).")
@click.option("--names", default=None,
              help="Player names in turn order from the dealer's left, comma or space "
                   "separated, e.g. 'me,bob,carol'.")
@click.option("--me", default=None, help="Which name is you (default: 'me', else the first).")
@click.option("--rules", "rules_name", default=None,
              help="'standard' or variants such as 'seven_low,invisible_8'.")
@click.option("--variant", "-v", "variants", multiple=True,
              help=f"Switch a variant on (repeatable). Known: {', '.join(VARIANTS)}.")
@click.option("--hand", default=None, help="Your hand after the swap, e.g. '3 7 K'.")
@click.option("--deal", default=None,
              help="Your cards as dealt, hand and face-up together (6, or the rules' count), "
                   "e.g. '3 7 A 10 2 K', to start at the swap: 'hint' ranks your face-up "
                   "choices, then 'me up 10 A K', 'bob up 5 9 J'. 'HAND / UP' ('3 7 A / 10 2 "
                   "K') also says which were dealt face up, in order (rule 3).")
@click.option("--up", "ups", multiple=True,
              help="Face-up cards: 'bob: 2 J Q; carol: 4 4 9' (repeatable; yours too).")
@click.option("--dealer", default=None,
              help="The dealer (default: the last name, so the first name is left of "
                   "the dealer).")
@click.option("--first", default=None, help="Who plays first (default: the rule decides).")
@click.option("--position", "position_arg", default=None,
              help="Start mid-game from a position (file, JSON or text form) as you see it; "
                   "you are its perspective (else --me, else the player to move).")
@click.option("--time", "time_budget", type=float, default=None,
              help="Seconds for each suggestion (default 2, or the session's 'set time').")
@click.option("--hints/--no-hints", default=True, show_default=True,
              help="Suggest moves automatically on your turn.")
@click.option("--file", "path", default=None,
              help="Session file, saved after every event (default: a new "
                   "palace-live-DATE.json here; none in --script mode).")
@click.option("--resume", default=None, type=click.Path(dir_okay=False),
              help="Resume a saved session file (and keep saving to it).")
@click.option("--script", default=None,
              help="Read events and commands from FILE ('-': standard input), no prompt.")
@click.option("--json", "as_json", is_flag=True,
              help="With --script: one JSON answer per line.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sampled analysis.")
@click.option("--color/--no-color", default=None, help="Color the cards in 'show'.")
@click.option("--export", "export", nargs=2, type=click.Path(dir_okay=False), default=None,
              metavar="SESSION FILE",
              help="Write the game of a session file as a game record (docs/record.md; "
                   "FILE.json for the JSON form) with only what your seat saw, for "
                   "'palace review', and exit.")
def live(players, names, me, rules_name, variants, hand, deal, ups, dealer, first,
         position_arg, time_budget, hints, path, resume, script, as_json, seed, color,
         export):
    """Follow a real game from your seat and get suggestions on your turn.

    Give the table as you see it after the deal (names in turn order, your hand, every
    face-up card), then type each event as it happens: 'bob 7x2', 'bob pickup',
    'bob pickup 7' (face-up stage), 'bob flip 9', 'draw 7 K' (your draws), 'me 10'.
    Burns, refills of the others and players going out are derived. Impossible events
    are refused and change nothing. Type 'help' at the prompt for everything.

    \b
    Examples:
      palace live --names me,bob --hand '3 7 K' --up 'me: 2 J Q; bob: 4 4 9'
      palace live --names me,bob,ann --deal '3 7 A 10 2 K'
      palace live --resume palace-live-20240101-120000.json
      palace live --names me,bob --hand '3 7 K' --up 'me: 2 J Q; bob: 4 4 9' \\
          --script events.txt --json --time 0.5
    """
    if export is not None:
        _export(*export)
        return
    interactive = script is None and sys.stdin.isatty()
    if as_json and script is None:
        _fail("--json needs --script: the JSON answers are for a program feeding lines "
              "('--script -' reads them from standard input)")
    if time_budget is not None and not 0 < time_budget <= MAX_SECONDS:
        _fail(f"--time {time_budget:g}: seconds, more than 0 and at most {MAX_SECONDS:g}")
    if deal is not None and (resume or position_arg is not None):
        _fail("--deal starts a new game: not with --resume or --position")
    try:
        session = open_session(resume=resume, position=position_arg, players=players,
                               names=names, me=me, rules_name=rules_name, variants=variants,
                               hand=hand, ups=ups, dealer=dealer, first=first, path=path,
                               deal=deal,
                               scripted=script is not None,
                               ask=ask_at_prompt if interactive else None)
    except LiveError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write the session file: {e}")
    use_color = color if color is not None else (interactive and "NO_COLOR" not in os.environ)
    if time_budget is not None:
        try:
            session.set("time", time_budget)
        except OSError as e:
            _fail(f"cannot write the session file: {e}")
    driver = Driver(session, 2.0, hints, seed, color=use_color)
    if script is not None:
        try:
            f = sys.stdin if script == "-" else open(script, encoding="utf-8")
        except OSError as e:
            _fail(f"cannot read {script!r}: {e.strerror or e}")
        with f:
            refused = run_script(driver, f, as_json)
        if refused and not as_json:
            # (with --json each answer's "ok" says it, and standard output stays JSON lines)
            click.echo(f"palace live: {refused} event{'s' if refused > 1 else ''} of the "
                       f"script refused (each answer above says why; the session holds the "
                       f"others)", err=True)
        return
    run_repl(driver, interactive)


def _export(session_file: str, out: str) -> None:
    from palace_solver.game.record import write_record
    from palace_solver.live.export import session_record
    from palace_solver.live.session import Session
    try:
        rec = session_record(Session.load(session_file))
        write_record(out, rec)
    except LiveError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write {out}: {e.strerror or e}")
    click.echo(f"record of {session_file} written to {out} ({len(rec.events)} events)")


COMMANDS = [live]

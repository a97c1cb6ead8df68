"""``palace live``: follow a real game from your seat, one event a line, with suggestions."""
from __future__ import annotations

import json
import os
import sys
import time

import click

from palace_solver.game.cards import RANKS, rank_name
from palace_solver.game.position import InvalidPositionError, load_position
from palace_solver.game.rules import VARIANTS, Rules, RulesError
from palace_solver.live.session import LiveError, Session, Setup, parse_cards

HELP = """\
Events (names are case-insensitive; 'me' is you):
  bob 7x2          bob plays two 7s (also 'bob 7 7'); '7x2' alone: the player to move
  me 10            you play a 10
  bob pickup       bob takes the pile;  'bob pickup 7': face-up stage, lays the 7 first
  bob flip 9       bob turns a face-down card over: a 9 (a failed flip takes the pile)
  draw 7 K         the cards you drew (others' draws are counted for you)
  start 5          the start card (start_card variant)
  first bob        who plays first, when the rule cannot tell from what you see
  burn / out bob   checks: the last event burned the pile / bob is out (both derived)
Commands:
  hint             suggested moves with loss probabilities (automatic on your turn)
  show             the table          log     the events so far
  undo [N]         take back the last event (or N)
  save [FILE]      save now (the session is saved after every event anyway)
  help             this text          quit    leave (resume with --resume FILE)"""

COMMAND_WORDS = ("help", "show", "hint", "undo", "save", "quit", "exit", "log", "status")


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


# -- setup ------------------------------------------------------------------------------------

def _parse_up(specs, names) -> dict[int, list[int]]:
    """``--up 'bob: 2 J Q; carol: 4 4 9'`` (or ``bob=2,J,Q``) to seat -> ranks."""
    out: dict[int, list[int]] = {}
    for spec in specs:
        for part in spec.split(";"):
            if not part.strip():
                continue
            sep = ":" if ":" in part else "="
            if sep not in part:
                raise LiveError(f"--up {part.strip()!r}: expected NAME: CARDS")
            who, cards = part.split(sep, 1)
            low = [nm.lower() for nm in names]
            if who.strip().lower() not in low:
                raise LiveError(f"--up: no player named {who.strip()!r} "
                                f"(players: {', '.join(names)})")
            out[low.index(who.strip().lower())] = parse_cards(cards)
    return out


def _seat(word: str | None, names, what: str) -> int | None:
    if word is None or not word.strip():
        return None
    low = [nm.lower() for nm in names]
    w = word.strip().lower()
    if w in low:
        return low.index(w)
    if w.isdigit() and int(w) < len(names):
        return int(w)
    raise LiveError(f"{what}: no player named {word!r} (players: {', '.join(names)})")


def _rules(rules_name: str, variants) -> Rules:
    try:
        base = Rules.from_json(rules_name.strip() or "standard")
        return Rules.with_variants(list(base.variants()) + list(variants))
    except RulesError as e:
        raise LiveError(str(e)) from None


def _build_setup(players, names, me, rules, hand, ups, dealer, first, interactive) -> Setup:
    ask = interactive
    # Optional questions only when the table is being asked for from the start.
    ask_more = interactive and not names

    def prompt(text, default=None):
        return click.prompt(text, default=default, show_default=default is not None)

    if names:
        name_list = [x for x in names.replace(",", " ").split() if x]
    elif ask:
        name_list = prompt("Players in turn order, from the dealer's left (e.g. 'me bob carol')"
                           ).replace(",", " ").split()
    else:
        n = players or 2
        name_list = ["me"] + [f"p{i}" for i in range(1, n)]
    if players and players != len(name_list):
        raise LiveError(f"--players {players} but {len(name_list)} names")
    if me is None and ask_more and "me" not in [x.lower() for x in name_list]:
        me = prompt("Which one are you", default=name_list[0])
    seat = _seat(me, name_list, "--me")
    if seat is None:
        low = [x.lower() for x in name_list]
        seat = low.index("me") if "me" in low else 0
    if ask_more and rules is None:
        rules = prompt("Rules: standard, or variants separated by '+'", default="standard")
    rule_set = rules if isinstance(rules, Rules) else _rules(rules or "standard", ())
    z = rule_set.zone_size
    if hand is None and ask:
        hand = prompt(f"Your hand ({z} cards, after any swap)")
    if hand is None:
        raise LiveError("--hand is needed: your hand after the swap")
    up = _parse_up(ups, name_list)
    for i, nm in enumerate(name_list):
        if i not in up:
            if not ask:
                raise LiveError(f"--up is needed for {nm}: the face-up cards of every player")
            who = "Your" if i == seat else f"{nm}'s"
            up[i] = parse_cards(prompt(f"{who} face-up cards"))
    if ask_more and first is None and dealer is None:
        first = prompt("Who plays first (Enter: by the rule)", default="") or None
    setup = Setup(names=name_list, me=seat, rules=rule_set, hand=parse_cards(hand),
                  face_up=[up[i] for i in range(len(name_list))],
                  dealer=_seat(dealer, name_list, "--dealer"),
                  first=_seat(first, name_list, "--first"))
    return setup.validate()


# -- one line ---------------------------------------------------------------------------------

class Driver:
    """Reads lines (events and commands) and answers them, for the prompt and scripts."""

    def __init__(self, session: Session, time_budget: float, hints: bool, seed: int,
                 color: bool = False):
        self.session = session
        self.time_budget = time_budget
        self.hints = hints
        self.seed = seed
        self.color = color
        self.done = False

    def handle(self, line: str) -> dict:
        """The answer to one line: ``ok``, ``message``, ``kind``, and for events the
        canonical ``event``; ``suggestions`` when it is then the user's turn."""
        s = self.session
        words = line.strip().split()
        ans = {"input": line.strip(), "kind": "command", "ok": True, "message": "",
               "event": None, "suggestions": None}
        if not words:
            ans["message"] = ""
            return ans
        head = words[0].lower()
        try:
            if head in ("help", "?", "h"):
                ans["message"] = HELP
            elif head == "show":
                ans["message"] = s.picture(color=self.color)
            elif head == "log":
                ans["message"] = "\n".join(f"{i + 1:>4}. {e}" for i, e in
                                           enumerate(s.events)) or "no events yet"
            elif head == "status":
                ans["message"] = s.picture().splitlines()[-1]
            elif head == "undo":
                k = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
                if len(words) > 1 and not words[1].isdigit():
                    raise LiveError("undo N: N is a number of events")
                ans["message"] = s.undo(k).message
                self._maybe_hint(ans)
            elif head == "hint":
                ans["suggestions"] = self.hint()
                ans["ok"] = ans["suggestions"]["ok"]
                ans["message"] = format_hint(ans["suggestions"])
            elif head == "save":
                path = s.save(words[1] if len(words) > 1 else None)
                if len(words) > 1:
                    s.path = path
                ans["message"] = f"saved to {path}"
            elif head in ("quit", "exit", "q"):
                self.done = True
                ans["message"] = (f"session saved in {s.path}; resume with "
                                  f"'palace live --resume {s.path}'" if s.path else "bye")
            else:
                ans["kind"] = "event"
                r = s.apply(line)
                ans["message"], ans["event"] = r.message, r.event
                if r.event is not None:
                    self._maybe_hint(ans)
        except LiveError as e:
            ans["ok"], ans["message"] = False, str(e)
        except OSError as e:
            ans["ok"], ans["message"] = False, f"cannot save: {e}"
        ans["state"] = s.summary()
        return ans

    def _maybe_hint(self, ans: dict) -> None:
        s = self.session
        if self.hints and s.at_decision() and s.state.to_move == s.me:
            ans["suggestions"] = self.hint()

    def hint(self) -> dict:
        try:
            return self.session.hint(self.time_budget, seed=self.seed)
        except LiveError as e:
            return {"ok": False, "message": f"no hint: {e}"}


def format_hint(h: dict | None) -> str:
    if not h:
        return ""
    if not h.get("ok"):
        return h.get("message", "no hint")
    you = h["mover"]
    lines = [f"suggestions for {you} ({h['method']}, {h.get('seconds', 0):.2f} s), "
             f"loss probability of {you}:"]
    for i, m in enumerate(h["moves"][:8]):
        ci = m.get("ci95")
        pm = f"  ({100 * ci[0]:.1f} to {100 * ci[1]:.1f}%)" if ci else ""
        lines.append(f"  {i + 1}. {m['move']:<10} {100 * m['mover_loss']:5.1f}%{pm}")
    if len(h["moves"]) > 8:
        lines.append(f"  ... {len(h['moves']) - 8} more")
    return "\n".join(lines)


# -- the command ------------------------------------------------------------------------------

def _default_path() -> str:
    return os.path.abspath(time.strftime("palace-live-%Y%m%d-%H%M%S.json"))


def _completer(session: Session):
    words = sorted(set(COMMAND_WORDS) | {"pickup", "flip", "draw", "start", "first", "burn",
                                         "out", "me"} | {n for n in session.names}
                   | {rank_name(r) for r in RANKS[:-1]})

    def complete(text, state):
        hits = [w for w in words if w.lower().startswith(text.lower())]
        return hits[state] + " " if state < len(hits) else None
    return complete


def _prompt(session: Session) -> str:
    if session.at_decision():
        p = session.state.to_move
        return "your turn> " if p == session.me else f"{session.names[p]}> "
    if session.state.is_terminal():
        return "over> "
    return "live> "


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
@click.option("--up", "ups", multiple=True,
              help="Face-up cards: 'bob: 2 J Q; carol: 4 4 9' (repeatable; yours too).")
@click.option("--dealer", default=None,
              help="The dealer (default: the last name, so the first name is left of "
                   "the dealer).")
@click.option("--first", default=None, help="Who plays first (default: the rule decides).")
@click.option("--position", "position_arg", default=None,
              help="Start mid-game from a position (file, JSON or text form) as you see it; "
                   "you are its perspective (else --me, else the player to move).")
@click.option("--time", "time_budget", type=float, default=2.0, show_default=True,
              help="Seconds for each suggestion.")
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
def live(players, names, me, rules_name, variants, hand, ups, dealer, first, position_arg,
         time_budget, hints, path, resume, script, as_json, seed, color):
    """Follow a real game from your seat and get suggestions on your turn.

    Give the table as you see it after the deal (names in turn order, your hand, every
    face-up card), then type each event as it happens: 'bob 7x2', 'bob pickup',
    'bob pickup 7' (face-up stage), 'bob flip 9', 'draw 7 K' (your draws), 'me 10'.
    Burns, refills of the others and players going out are derived. Impossible events
    are refused and change nothing. Type 'help' at the prompt for everything.

    \b
    Examples:
      palace live --names me,bob --hand '3 7 K' --up 'me: 2 J Q; bob: 4 4 9'
      palace live --resume palace-live-20240101-120000.json
      palace live --names me,bob --hand '3 7 K' --up 'me: 2 J Q; bob: 4 4 9' \\
          --script events.txt --json --time 0.5
    """
    interactive = script is None and sys.stdin.isatty()
    try:
        if resume:
            session = Session.load(resume)
            path = resume
        elif position_arg is not None:
            try:
                pos = load_position(position_arg)
            except InvalidPositionError as e:
                raise LiveError(str(e)) from None
            seat = None
            if me is not None:
                seat = _seat(me, [p.name or f"p{i}" for i, p in enumerate(pos.players)],
                             "--me")
            session = Session(Setup.from_position(pos, seat))
            if path is None and script is None:
                path = _default_path()
        else:
            rules = None
            if rules_name is not None or variants:
                rules = _rules(rules_name or "standard", variants)
            setup = _build_setup(players, names, me, rules, hand, ups, dealer, first,
                                 interactive)
            session = Session(setup)
            if path is None and script is None:
                path = _default_path()
        session.path = path
        if path:
            session.save()
    except LiveError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write the session file: {e}")
    use_color = color if color is not None else (interactive and "NO_COLOR" not in os.environ)
    driver = Driver(session, time_budget, hints, seed, color=use_color)
    if script is not None:
        _run_script(driver, script, as_json)
        return
    _repl(driver, interactive)


def _run_script(driver: Driver, script: str, as_json: bool) -> None:
    try:
        f = sys.stdin if script == "-" else open(script, encoding="utf-8")
    except OSError as e:
        _fail(f"cannot read {script!r}: {e.strerror or e}")
    refused = 0
    with f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            ans = driver.handle(line)
            refused += not ans["ok"] and ans["kind"] == "event"
            if as_json:
                click.echo(json.dumps(ans, ensure_ascii=False))
            else:
                mark = "" if ans["ok"] else "refused: "
                click.echo(f"> {line}\n{mark}{ans['message']}")
                if ans.get("suggestions") and ans["kind"] == "event":
                    click.echo(format_hint(ans["suggestions"]))
            if driver.done:
                break


def _repl(driver: Driver, interactive: bool) -> None:
    s = driver.session
    if interactive:
        try:
            import readline
            readline.set_completer(_completer(s))
            readline.set_completer_delims(" ")
            readline.parse_and_bind("tab: complete")
        except ImportError:  # pragma: no cover - platforms without readline
            pass
    click.echo(s.picture(color=driver.color))
    if s.path:
        click.echo(f"(session file: {s.path}; 'help' for the commands)")
    else:
        click.echo("('help' for the commands)")
    if driver.hints and s.at_decision() and s.state.to_move == s.me:
        click.echo(format_hint(driver.hint()))
    while not driver.done:
        try:
            line = input(_prompt(s))
        except EOFError:
            click.echo()
            break
        except KeyboardInterrupt:
            click.echo()
            break
        ans = driver.handle(line)
        if ans["message"]:
            click.echo(ans["message"] if ans["ok"] else f"refused: {ans['message']}")
        if ans.get("suggestions") and ans["kind"] == "event" or (
                ans.get("suggestions") and ans["input"].startswith("undo")):
            click.echo(format_hint(ans["suggestions"]))
    if s.path and not driver.done:
        click.echo(f"session saved in {s.path}; resume with 'palace live --resume {s.path}'")


COMMANDS = [live]

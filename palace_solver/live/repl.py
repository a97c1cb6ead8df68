"""The terminal side of ``palace live``: the interactive loop (prompt, history, completion)
and the scripted driver (``--script``, one answer per line, ``--json`` for programs).

:class:`Driver` answers one line, an event or a command (``hint``, ``show``, ``undo``,
``save``, ...), as a JSON-able dict; the loop and the script runner print its answers.

Imports the model (:mod:`palace_solver.game`), click (for output and prompts) and every
module of :mod:`palace_solver.live` below it: events, hints, session, picture, start.
"""
from __future__ import annotations

import json

import click

from ..game.cards import RANKS, rank_name
from .events import LiveError
from .hints import format_hint
from .picture import picture, status_line
from .session import Session

__all__ = ["HELP", "Driver", "ask_at_prompt", "run_repl", "run_script"]

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


def ask_at_prompt(text: str, default: str | None = None) -> str:
    """A setup question at the terminal (:data:`palace_solver.live.start.Ask`)."""
    return click.prompt(text, default=default, show_default=default is not None)


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
                ans["message"] = picture(s, color=self.color)
            elif head == "log":
                ans["message"] = "\n".join(f"{i + 1:>4}. {e}" for i, e in
                                           enumerate(s.events)) or "no events yet"
            elif head == "status":
                ans["message"] = status_line(s)
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


def run_script(driver: Driver, f, as_json: bool) -> None:
    """Answer each line of the open file ``f`` (``#`` starts a comment): one JSON answer
    a line, or the line and its answer as text."""
    refused = 0
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


def run_repl(driver: Driver, interactive: bool) -> None:
    """The prompt: read a line, answer it, until ``quit``, end of input or Ctrl-C."""
    s = driver.session
    if interactive:
        try:
            import readline
            readline.set_completer(_completer(s))
            readline.set_completer_delims(" ")
            readline.parse_and_bind("tab: complete")
        except ImportError:  # pragma: no cover - platforms without readline
            pass
    click.echo(picture(s, color=driver.color))
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

"""The terminal side of ``palace live``: the interactive loop (prompt, history, completion)
and the scripted driver (``--script``, one answer per line, ``--json`` for programs).

:class:`Driver` answers one line, an event or a command (``hint``, ``show``, ``undo``,
``save``, ...), as a JSON-able dict; the loop and the script runner print its answers.

Imports the model (:mod:`palace_solver.game`), click (for output and prompts) and every
module of :mod:`palace_solver.live` below it: events, hints, session, picture, start.
"""
from __future__ import annotations

import json
import signal
import threading
from contextlib import contextmanager

import click

from ..game.cards import RANKS, rank_name
from ..game.record import write_record
from .events import LiveError, is_card
from .export import session_record
from .hints import format_hint
from .picture import picture, status_line
from .session import Session

__all__ = ["COMMAND_WORDS", "HELP", "Driver", "ask_at_prompt", "parse_command",
           "run_repl", "run_script"]

HELP = """\
At the deal (when you gave your cards as dealt, --deal):
  hint             your possible face-up cards ranked (games played out, as 'palace swap')
  up 10 A K        you lay 10 A K face up (also 'me up 10 A K')
  bob up 5 9 J     bob lays 5 9 J face up; play starts once everyone has
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
  hint [SECONDS]   suggested moves with loss probabilities (automatic on your turn);
                   Ctrl-C stops a hint and keeps the game
  set time SECONDS the thinking time of every hint from now on
  show             the table          log     the events so far
  undo [N]         take back the last event (or N)
  save [FILE]      save now (the session is saved after every event anyway)
  export FILE      the game as a record for 'palace review' (FILE.json: the JSON form)
  help (or ?)      this text          quit    leave (also 'exit'; resume with --resume FILE)
A card is always a card: 'Q' alone plays a queen. Every event is saved as soon as it is
accepted; Ctrl-D or Ctrl-C at the prompt saves and quits."""

#: The command words, each a whole word that is no card (a card word typed at the prompt is
#: always a play: ``Q`` plays a queen); ``?`` is help. Anything else is an event.
COMMAND_WORDS = ("help", "show", "hint", "undo", "save", "quit", "exit", "log", "status",
                 "set", "export")
#: Other spellings of a command.
ALIASES = {"?": "help"}


def parse_command(line: str) -> tuple[str, list[str]] | None:
    """``(command, arguments)`` when ``line`` starts with a command word (any case), else
    None: the line is an event. A card word is never a command.

    >>> parse_command("hint 5"), parse_command("Q"), parse_command("quit")
    (('hint', ['5']), None, ('quit', []))
    """
    words = line.strip().split()
    if not words:
        return None
    head = ALIASES.get(words[0].lower(), words[0].lower())
    if head not in COMMAND_WORDS or is_card(words[0]):
        return None
    return head, words[1:]


#: Longest thinking time a hint may be given (seconds).
MAX_SECONDS = 3600.0


def _seconds(word: str, what: str) -> float:
    try:
        x = float(word)
    except ValueError:
        x = -1.0
    if not 0 < x <= MAX_SECONDS:
        raise LiveError(f"{what}: {word!r} is not a number of seconds (more than 0, at most "
                        f"{MAX_SECONDS:g}), e.g. '{what} 5'")
    return x


@contextmanager
def shielded():
    """Ctrl-C waits until the block is over (an event applied and saved whole), then
    counts as pressed; outside the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got = []
    old = signal.signal(signal.SIGINT, lambda *_: got.append(1))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if got:
        raise KeyboardInterrupt


def ask_at_prompt(text: str, default: str | None = None, help: str | None = None,
                  check=None):
    """A setup question at the terminal (:data:`palace_solver.live.start.Ask`): ``help``
    (or ``?``) shows what is wanted, an answer ``check`` refuses is asked again at once."""
    while True:
        answer = click.prompt(text, default=default, show_default=bool(default))
        if answer.strip().lower() in ("help", "?", "h"):
            click.echo(help or "(no help here)")
            continue
        if check is None:
            return answer
        try:
            return check(answer)
        except LiveError as e:
            click.echo(f"error: {e}; try again ('help' says what is wanted)")


class Driver:
    """Reads lines (events and commands) and answers them, for the prompt and scripts."""

    def __init__(self, session: Session, time_budget: float, hints: bool, seed: int,
                 color: bool = False, on_start=None):
        self.session = session
        self.default_time = time_budget
        self.hints = hints
        self.seed = seed
        self.color = color
        self.done = False
        #: ``on_start(seconds)``: called when a hint starts thinking (not for forced moves)
        self.on_start = on_start
        self._auto = True
        self._commands = {"help": self._help, "show": self._show, "log": self._log,
                          "status": self._status, "undo": self._undo, "hint": self._hint,
                          "set": self._set, "save": self._save, "quit": self._quit,
                          "exit": self._quit, "export": self._export}
        assert set(self._commands) == set(COMMAND_WORDS)

    @property
    def time_budget(self) -> float:
        """Seconds for each hint: ``set time`` of the session, else ``--time``."""
        return float(self.session.settings.get("time", self.default_time))

    def add_command(self, word: str, run) -> None:
        """A command ``word`` (a whole word that is no card and no command yet): ``run(args,
        ans)`` fills the answer dict of :meth:`handle` (``message``, ``ok``, ...) and may
        raise :class:`LiveError` to refuse.

        :raises ValueError: for a word that reads as a card or is taken.
        """
        w = word.lower()
        if is_card(w) or len(w) < 2 or w in self._commands or not w.isalpha():
            raise ValueError(f"{word!r} cannot be a command word (a card, taken, or not a "
                             f"word)")
        self._commands[w] = run

    def command_words(self) -> list[str]:
        """Every command word this driver answers."""
        return sorted(self._commands)

    def handle(self, line: str, auto_hint: bool = True) -> dict:
        """The answer to one line: ``ok``, ``message``, ``kind``, and for events the
        canonical ``event``; ``suggestions`` when it is then the user's turn (unless
        ``auto_hint`` is False: then :meth:`auto_hint` gives them).

        A line is a command when its first word is a command word (:func:`parse_command`,
        or one added with :meth:`add_command`), else an event: a card word is always an
        event."""
        s = self.session
        ans = {"input": line.strip(), "kind": "command", "ok": True, "message": "",
               "event": None, "suggestions": None}
        if not line.strip():
            return ans
        self._auto = auto_hint
        words = line.strip().split()
        head = ALIASES.get(words[0].lower(), words[0].lower())
        run = None if is_card(words[0]) else self._commands.get(head)
        try:
            if run is not None:
                run(words[1:], ans)
            else:
                ans["kind"] = "event"
                with shielded():
                    r = s.apply(line)
                ans["message"], ans["event"] = r.message, r.event
                if r.event is not None and auto_hint:
                    ans["suggestions"] = self.auto_hint()
        except LiveError as e:
            ans["ok"], ans["message"] = False, str(e)
        except OSError as e:
            ans["ok"], ans["message"] = False, f"cannot save: {e}"
        ans["state"] = s.summary()
        return ans

    # -- the commands ----------------------------------------------------------------------
    def _help(self, args, ans):
        ans["message"] = HELP

    def _show(self, args, ans):
        ans["message"] = picture(self.session, color=self.color)

    def _log(self, args, ans):
        ans["message"] = "\n".join(f"{i + 1:>4}. {e}" for i, e in
                                   enumerate(self.session.events)) or "no events yet"

    def _status(self, args, ans):
        ans["message"] = status_line(self.session)

    def _undo(self, args, ans):
        if len(args) > 1 or (args and not args[0].isdigit()):
            raise LiveError("undo N: N is a number of events")
        with shielded():
            ans["message"] = self.session.undo(int(args[0]) if args else 1).message
        if self._auto:
            ans["suggestions"] = self.auto_hint()

    def _hint(self, args, ans):
        if len(args) > 1:
            raise LiveError("hint [SECONDS]: e.g. 'hint' or 'hint 5'")
        secs = _seconds(args[0], "hint") if args else None
        ans["suggestions"] = self.hint(secs)
        ans["ok"] = ans["suggestions"]["ok"]
        ans["message"] = format_hint(ans["suggestions"])

    def _set(self, args, ans):
        if len(args) != 2 or args[0].lower() not in ("time", "hints"):
            raise LiveError("set time SECONDS (the thinking time of each hint), or "
                            "set hints on|off")
        if args[0].lower() == "time":
            secs = _seconds(args[1], "set time")
            with shielded():
                self.session.set("time", secs)
            ans["message"] = f"hints think for {secs:g} s from now on"
        else:
            if args[1].lower() not in ("on", "off"):
                raise LiveError("set hints on|off")
            self.hints = args[1].lower() == "on"
            ans["message"] = ("hints on your turn" if self.hints else
                              "no automatic hints ('hint' still answers)")

    def _save(self, args, ans):
        s = self.session
        with shielded():
            path = s.save(args[0] if args else None)
        if args:
            s.path = path
        ans["message"] = f"saved to {path}"

    def _export(self, args, ans):
        if len(args) != 1:
            raise LiveError("export FILE: the game as a record (docs/record.md), FILE.json "
                            "for the JSON form")
        try:
            path = write_record(args[0], session_record(self.session))
        except OSError as e:
            raise LiveError(f"cannot write {args[0]}: {e.strerror or e}") from None
        ans["message"] = (f"the game's record, as your seat saw it, is in {path}; "
                          f"'palace review {path}' judges your decisions")

    def _quit(self, args, ans):
        s = self.session
        self.done = True
        ans["message"] = (f"session saved in {s.path}; resume with "
                          f"'palace live --resume {s.path}'" if s.path else "bye")

    def auto_hint(self) -> dict | None:
        """Suggestions when hints are on and it is the user's turn; else None."""
        s = self.session
        if self.hints and s.at_decision() and s.state.to_move == s.me:
            return self.hint()
        return None

    def hint(self, seconds: float | None = None) -> dict:
        """A hint now (``seconds``: this once, else :attr:`time_budget`); a refusal or a
        cancelled hint is a dict with ``ok`` False."""
        try:
            return self.session.hint(self.time_budget if seconds is None else seconds,
                                     seed=self.seed, on_start=self.on_start)
        except LiveError as e:
            return {"ok": False, "message": f"no hint: {e}"}
        except KeyboardInterrupt:   # before or after the analysis itself (which stops it)
            return {"ok": False, "cancelled": True, "message": "hint cancelled (Ctrl-C)"}


def run_script(driver: Driver, f, as_json: bool) -> int:
    """Answer each line of the open file ``f`` (``#`` starts a comment): one JSON answer
    a line, or the line and its answer as text. Returns how many events were refused (a
    refusal is an answer, not a failure: the session keeps every other event)."""
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
    return refused


def _completer(session: Session):
    words = sorted(set(COMMAND_WORDS) | {"pickup", "flip", "draw", "start", "first", "burn",
                                         "out", "me"} | {n for n in session.names}
                   | {rank_name(r) for r in RANKS[:-1]})

    def complete(text, state):
        hits = [w for w in words if w.lower().startswith(text.lower())]
        return hits[state] + " " if state < len(hits) else None
    return complete


def _prompt(session: Session) -> str:
    if session.in_layout():
        return "deal> "
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
    if driver.on_start is None:
        driver.on_start = lambda secs: click.echo(
            f"thinking for up to {secs:g} s (Ctrl-C stops the hint)...")
    try:
        if driver.hints and ((s.at_decision() and s.state.to_move == s.me)
                             or (s.in_layout() and not s.laid_out(s.me))):
            click.echo(format_hint(driver.hint()))
    except KeyboardInterrupt:
        click.echo("\nhint cancelled")
    while not driver.done:
        try:
            line = input(_prompt(s))
        except EOFError:
            click.echo()
            break
        except KeyboardInterrupt:
            click.echo()
            break
        try:
            ans = driver.handle(line, auto_hint=False)
            if ans["message"]:
                plain = ans["ok"] or (ans["suggestions"] or {}).get("cancelled")
                click.echo(ans["message"] if plain else f"refused: {ans['message']}")
            if ans["ok"] and (ans["kind"] == "event" or ans["input"].startswith("undo")):
                h = driver.auto_hint()
                if h:
                    click.echo(format_hint(h))
        except KeyboardInterrupt:
            # Between the steps of a line (an event is applied and saved whole): the game
            # is as the file says; back to the prompt.
            click.echo("\ninterrupted; the game is as saved")
    if s.path and not driver.done:
        click.echo(f"session saved in {s.path}; resume with 'palace live --resume {s.path}'")

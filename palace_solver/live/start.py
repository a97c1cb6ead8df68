"""Starting a ``palace live`` session: a :class:`~palace_solver.live.session.Setup` from the
words a user types (names, rules, hand, face-up cards, dealer, first player), asking for
what is missing through an ``ask`` function when there is one (the terminal prompt of
:mod:`palace_solver.live.repl`, or None for programs: then a missing piece is an error).

Imports the model (:mod:`palace_solver.game`), :mod:`palace_solver.live.events` and
:mod:`palace_solver.live.session`.
"""
from __future__ import annotations

import os
import time
from typing import Callable

from ..game.position import InvalidPositionError, load_position
from ..game.rules import Rules, RulesError
from .events import LiveError, parse_cards
from .session import Session, Setup

__all__ = ["Ask", "build_setup", "default_path", "open_session", "parse_up", "rules_from",
           "seat_of"]

#: ``ask(question, default)`` -> the answer typed (``default`` None: no default).
Ask = Callable[..., str]


def parse_up(specs, names) -> dict[int, list[int]]:
    """``'bob: 2 J Q; carol: 4 4 9'`` (or ``bob=2,J,Q``), one or more, to seat -> ranks."""
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


def seat_of(word: str | None, names, what: str) -> int | None:
    """The seat a name (or a seat number) stands for; None for nothing.

    :raises LiveError: naming ``what`` was asked for.
    """
    if word is None or not word.strip():
        return None
    low = [nm.lower() for nm in names]
    w = word.strip().lower()
    if w in low:
        return low.index(w)
    if w.isdigit() and int(w) < len(names):
        return int(w)
    raise LiveError(f"{what}: no player named {word!r} (players: {', '.join(names)})")


def rules_from(rules_name: str, variants) -> Rules:
    """``'standard'`` or ``'seven_low+invisible_8'``, plus more variant names."""
    try:
        base = Rules.from_json(rules_name.strip() or "standard")
        return Rules.with_variants(list(base.variants()) + list(variants))
    except RulesError as e:
        raise LiveError(str(e)) from None


def build_setup(players, names, me, rules, hand, ups, dealer, first,
                ask: Ask | None = None) -> Setup:
    """The setup from the given pieces (strings as typed; ``rules`` a name or
    :class:`Rules`), asking for the missing ones with ``ask`` when given.

    :raises LiveError: for a missing or impossible piece.
    """
    # Optional questions only when the table is being asked for from the start.
    ask_more = ask is not None and not names

    if names:
        name_list = [x for x in names.replace(",", " ").split() if x]
    elif ask is not None:
        name_list = ask("Players in turn order, from the dealer's left (e.g. 'me bob carol')"
                        ).replace(",", " ").split()
    else:
        n = players or 2
        name_list = ["me"] + [f"p{i}" for i in range(1, n)]
    if players and players != len(name_list):
        raise LiveError(f"--players {players} but {len(name_list)} names")
    if me is None and ask_more and "me" not in [x.lower() for x in name_list]:
        me = ask("Which one are you", default=name_list[0])
    seat = seat_of(me, name_list, "--me")
    if seat is None:
        low = [x.lower() for x in name_list]
        seat = low.index("me") if "me" in low else 0
    if ask_more and rules is None:
        rules = ask("Rules: standard, or variants separated by '+'", default="standard")
    rule_set = rules if isinstance(rules, Rules) else rules_from(rules or "standard", ())
    z = rule_set.zone_size
    if hand is None and ask is not None:
        hand = ask(f"Your hand ({z} cards, after any swap)")
    if hand is None:
        raise LiveError("--hand is needed: your hand after the swap")
    up = parse_up(ups, name_list)
    for i, nm in enumerate(name_list):
        if i not in up:
            if ask is None:
                raise LiveError(f"--up is needed for {nm}: the face-up cards of every player")
            who = "Your" if i == seat else f"{nm}'s"
            up[i] = parse_cards(ask(f"{who} face-up cards"))
    if ask_more and first is None and dealer is None:
        first = ask("Who plays first (Enter: by the rule)", default="") or None
    setup = Setup(names=name_list, me=seat, rules=rule_set, hand=parse_cards(hand),
                  face_up=[up[i] for i in range(len(name_list))],
                  dealer=seat_of(dealer, name_list, "--dealer"),
                  first=seat_of(first, name_list, "--first"))
    return setup.validate()


def default_path() -> str:
    """A new session file here, named by the time: ``palace-live-DATE-TIME.json``."""
    return os.path.abspath(time.strftime("palace-live-%Y%m%d-%H%M%S.json"))


def open_session(*, resume=None, position=None, players=None, names=None, me=None,
                 rules_name=None, variants=(), hand=None, ups=(), dealer=None, first=None,
                 path=None, scripted=False, ask: Ask | None = None) -> Session:
    """The session to follow: resumed from a file, started from a position (file, JSON or
    text form), or from a new table (:func:`build_setup`). Its file is ``path``, the resumed
    file, or a new one here (none when ``scripted`` and no ``path``); it is saved at once.

    :raises LiveError: for impossible input; OSError when the file cannot be written.
    """
    if resume:
        session = Session.load(resume)
        path = resume
    elif position is not None:
        try:
            pos = load_position(position)
        except InvalidPositionError as e:
            raise LiveError(str(e)) from None
        seat = None
        if me is not None:
            seat = seat_of(me, [p.name or f"p{i}" for i, p in enumerate(pos.players)], "--me")
        session = Session(Setup.from_position(pos, seat))
    else:
        rules = None
        if rules_name is not None or variants:
            rules = rules_from(rules_name or "standard", variants)
        session = Session(build_setup(players, names, me, rules, hand, ups, dealer, first,
                                      ask))
    if path is None and not scripted and not resume:
        path = default_path()
    session.path = path
    if path:
        session.save()
    return session

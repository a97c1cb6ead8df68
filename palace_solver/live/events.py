"""The event language of ``palace live``: one line in, one :class:`Event` out.

A line names what happened at the table, as the user at one seat sees it (names are
case-insensitive, ``me`` is the user)::

    bob 7x2        a play (also "bob 7 7"); "7x2" alone is a play of the player to move
    bob pickup     take the pile;  "bob pickup 7" at the face-up stage lays the 7 first
    bob flip 9     a face-down card turned over (a 9); if it cannot be played the player
                   takes the pile (derived)
    draw 7 K       the cards the user drew (others' draws are counted automatically)
    start 5        the start card (start_card variant)
    first bob      who plays first, when the rule cannot tell from what the user sees
    burn           a check: the last event burned the pile (burns themselves are derived)
    out bob        a check: bob is out (going out is derived)

Parsing knows only the words: whether the event can happen is the session's business
(:mod:`palace_solver.live.session`). :class:`LiveError` is the one error of the live
package: a line that is not an event, or an event that cannot happen.

Imports only the model (:mod:`palace_solver.game`).
"""
from __future__ import annotations

from typing import NamedTuple

from ..game.cards import CardError, parse_rank
from ..game.moves import PICKUP, PLAY, InvalidMoveError, Move

__all__ = ["LiveError", "Event", "RESERVED", "is_card", "parse_cards", "parse_event",
           "player_seat"]

#: Words that cannot be player names (they start commands or events).
RESERVED = {"me", "draw", "draws", "start", "first", "burn", "out", "undo", "hint", "show",
            "help", "save", "quit", "exit", "q", "log", "status", "pickup", "flip", "?"}


class LiveError(ValueError):
    """An event that cannot happen or a line that is not an event; the message says why.
    The session is unchanged."""


class Event(NamedTuple):
    """One parsed line. ``kind`` is ``move`` (``payload`` a :class:`Move`, or
    ``("flip", rank)``), ``draw`` (ranks), ``start`` (a rank), ``first``, ``burn`` or
    ``out``; ``player`` is a seat, or None for the player to move / no player."""

    kind: str
    player: int | None
    payload: object


def is_card(word: str) -> bool:
    try:
        parse_rank(word)
    except CardError:
        return False
    return True


def parse_cards(text: str) -> list[int]:
    """``'7 K 10s'`` or ``'7,K,T'`` as ranks; ``-`` or nothing is no card.

    :raises LiveError: quoting an unknown card.
    """
    out = []
    for w in text.replace(",", " ").split():
        if w == "-":
            continue
        try:
            out.append(parse_rank(w))
        except CardError:
            raise LiveError(f"unknown card {w!r}") from None
    return out


def player_seat(word: str, names: list[str], me: int) -> int | None:
    """The seat named ``word`` (``me`` is the user), or None."""
    w = word.lower()
    if w in ("me", "i"):
        return me
    for i, nm in enumerate(names):
        if nm.lower() == w:
            return i
    return None


def parse_event(line: str, names: list[str], me: int) -> Event:
    """The event a line names, for a table of ``names`` where the user sits at ``me``.

    :raises LiveError: for a line that is not an event.
    """
    words = line.replace(",", " ").split()
    if not words:
        raise LiveError("empty event")
    head = words[0].lower()
    rest = words[1:]
    if head in ("draw", "draws", "drew"):
        cards = parse_cards(" ".join(rest))
        if not cards:
            raise LiveError("draw what? say the cards you drew, e.g. 'draw 7 K'")
        return Event("draw", me, cards)
    if head == "start":
        cards = parse_cards(" ".join(rest))
        if len(cards) != 1:
            raise LiveError("say the one start card, e.g. 'start 5'")
        return Event("start", None, cards[0])
    if head in ("first", "out"):
        if len(rest) != 1 or player_seat(rest[0], names, me) is None:
            raise LiveError(f"{head} who? e.g. '{head} {names[0]}' "
                            f"(players: {', '.join(names)})")
        return Event(head, player_seat(rest[0], names, me), None)
    if head in ("burn", "burns", "burned"):
        if rest:
            raise LiveError("'burn' takes nothing after it")
        return Event("burn", None, None)
    p = player_seat(words[0], names, me)
    if p is not None:
        words = rest
        if not words:
            raise LiveError(f"{words and words[0] or line.strip()!r}: what did they do? "
                            f"e.g. '{line.strip()} 7', '{line.strip()} pickup'")
        if words[0].lower() in ("draw", "draws", "drew"):
            if p != me:
                raise LiveError(f"{names[p]}'s draws are counted automatically: "
                                f"nothing to enter")
            return parse_event(" ".join(words), names, me)
    if words[0].lower() in ("flip", "flips"):
        if len(words) != 2:
            raise LiveError("say which card the flip turned up, e.g. 'flip 9'")
        cards = parse_cards(words[1])
        return Event("move", p, ("flip", cards[0]))
    try:
        move = Move.parse(" ".join(words))
    except InvalidMoveError as e:
        if p is None and len(words) >= 1 and not is_card(words[0]) \
                and words[0].lower() not in ("pickup",):
            raise LiveError(f"unknown player or command {words[0]!r} (players: "
                            f"{', '.join(names)}, or 'me'; 'help' lists "
                            f"the commands)") from None
        raise LiveError(str(e)) from None
    if move.kind not in (PLAY, PICKUP):
        raise LiveError(f"{line.strip()!r} is not an event")
    return Event("move", p, move)

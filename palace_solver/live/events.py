"""The event language of ``palace live``: one line in, one :class:`Event` out.

A line names what happened at the table, as the user at one seat sees it (names are
case-insensitive, ``me`` is the user)::

    bob 7x2        a play (also "bob 7 7"); "7x2" alone is a play of the player to move
    bob pickup     take the pile;  "bob pickup 7" at the face-up stage lays the 7 first
    bob flip 9     a face-down card turned over (a 9); if it cannot be played the player
                   takes the pile (derived)
    draw 7 K       the cards the user drew (others' draws are counted automatically)
    bob up 5 9 J   at the deal: the face-up cards bob lays out ("up 10 A K": yours)
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

from ..game.cards import JOKER, CardError, parse_rank
from ..game.moves import LAYOUT, PICKUP, PLAY, InvalidMoveError, Move
from ..game.rules import Rules

__all__ = ["LiveError", "Event", "RESERVED", "is_card", "parse_card", "parse_cards",
           "parse_event", "player_seat"]

#: Words that cannot be player names (they start commands or events).
RESERVED = {"me", "draw", "draws", "start", "first", "burn", "out", "undo", "hint", "show",
            "help", "save", "quit", "exit", "q", "log", "status", "pickup", "flip", "?",
            "up", "set", "i", "export"}

#: How cards are written, for messages about a word that is not one.
CARD_NAMES = "2 3 4 5 6 7 8 9 10 J Q K A (T for 10, any case; a suit letter is ignored)"


class LiveError(ValueError):
    """An event that cannot happen or a line that is not an event; the message says why.
    The session is unchanged."""


class Event(NamedTuple):
    """One parsed line. ``kind`` is ``move`` (``payload`` a :class:`Move`, or
    ``("flip", rank)``), ``draw`` (ranks), ``start`` (a rank), ``first``, ``burn`` or
    ``out``, or ``layout`` (the face-up ranks laid out at the deal); ``player`` is a seat,
    or None for the player to move / no player."""

    kind: str
    player: int | None
    payload: object


def is_card(word: str) -> bool:
    try:
        parse_rank(word)
    except CardError:
        return False
    return True


def unknown_card(word: str, rules: Rules | None = None) -> LiveError:
    """The refusal of a word that is not a card under ``rules``, listing the names."""
    jokers = rules is not None and rules.jokers
    return LiveError(f"unknown card {word!r}: the cards are {CARD_NAMES}"
                     + ("; JK (or X) is a joker" if jokers else
                        "; no jokers under these rules"))


def parse_card(word: str, rules: Rules | None = None) -> int:
    """One card, by the rules in force: a joker (``JK``, ``X``) only under ``jokers``.

    :raises LiveError: quoting the word and listing the card names.
    """
    try:
        r = parse_rank(word)
    except CardError:
        raise unknown_card(word, rules) from None
    if r == JOKER and not (rules is not None and rules.jokers):
        raise unknown_card(word, rules)
    return r


def parse_cards(text: str, rules: Rules | None = None) -> list[int]:
    """``'7 K 10s'`` or ``'7,K,T'`` as ranks; ``-`` or nothing is no card. Jokers only
    under rules with jokers (``rules`` None: the standard rules).

    :raises LiveError: quoting an unknown card.
    """
    return [parse_card(w, rules) for w in text.replace(",", " ").split() if w != "-"]


def player_seat(word: str, names: list[str], me: int) -> int | None:
    """The seat named ``word`` (``me`` is the user), or None."""
    w = word.lower()
    if w in ("me", "i"):
        return me
    for i, nm in enumerate(names):
        if nm.lower() == w:
            return i
    return None


def parse_event(line: str, names: list[str], me: int, rules: Rules | None = None) -> Event:
    """The event a line names, for a table of ``names`` where the user sits at ``me``,
    cards read by ``rules`` (jokers only under ``jokers``; None: the standard rules).

    :raises LiveError: for a line that is not an event.
    """
    words = line.replace(",", " ").split()
    if not words:
        raise LiveError("empty event")
    head = words[0].lower()
    rest = words[1:]
    if head in ("draw", "draws", "drew"):
        cards = parse_cards(" ".join(rest), rules)
        if not cards:
            raise LiveError("draw what? say the cards you drew, e.g. 'draw 7 K'")
        return Event("draw", me, cards)
    if head == "start":
        cards = parse_cards(" ".join(rest), rules)
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
            return parse_event(" ".join(words), names, me, rules)
    if words[0].lower() in ("flip", "flips"):
        if len(words) != 2:
            raise LiveError("say which card the flip turned up, e.g. 'flip 9'")
        return Event("move", p, ("flip", parse_card(words[1], rules)))
    if words[0].lower() == "up":
        cards = parse_cards(" ".join(words[1:]), rules)
        if not cards:
            raise LiveError("up which cards? e.g. 'up 10 A K' (yours) or "
                            f"'{names[(me + 1) % len(names)]} up 5 9 J'")
        return Event("layout", me if p is None else p, cards)
    for w in words:   # every card word by the rules in force (jokers), before the move
        if w.lower() != "pickup":
            try:
                r = parse_rank(w.lower().rpartition("x")[0] if "x" in w.lower()[1:] else w)
            except CardError:
                continue
            if r == JOKER and not (rules is not None and rules.jokers):
                raise unknown_card(w, rules)
    try:
        move = Move.parse(" ".join(words))
    except InvalidMoveError as e:
        if p is None and len(words) >= 1 and not is_card(words[0]) \
                and words[0].lower() not in ("pickup",):
            raise LiveError(f"unknown player or command {words[0]!r} (players: "
                            f"{', '.join(names)}, or 'me'; 'help' lists "
                            f"the commands)") from None
        raise LiveError(str(e)) from None
    if move.kind == LAYOUT:  # pragma: no cover - "up" is read above
        return Event("layout", me if p is None else p, list(move.layout))
    if move.kind not in (PLAY, PICKUP):
        raise LiveError(f"{line.strip()!r} is not an event")
    return Event("move", p, move)

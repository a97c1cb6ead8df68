"""Positions: the JSON of POSITION.md, a one-line text form, and the bridge to :class:`State`.

A :class:`Position` is what a user or a program hands the analyzer: the table as one player
sees it. Hidden cards (face-down cards, the draw pile, and any hand cards not known) are only
counted; :meth:`Position.validate` checks that the counts add up against the deck.

Text form
=========

One line, easy to type at a shell. Sections are separated by ``|``; players inside the
players section by ``;``; a player's three zones by ``/``. Whitespace (and commas) between
tokens is free, keywords, cards and variant names are read in any case::

    standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 | burned 10 4 4 4 4 | draw 27 | to_move 0

Grammar (``{x}`` repeats, ``[x]`` is optional; sections other than the players may come in
any order, each at most once)::

    position  := section { "|" section }
    section   := rules | players | "pile" cards | "burned" cards ["rest"] | "draw" INT
               | "unseen" cards
               | "to_move" who | "perspective" (who | "none")
               | "direction" ("1" | "-1") | "last_player" (who | "none")
    rules     := ["rules"] NAME { ("+" | "," | " ") NAME }
                                      standard, a variant, or standard+variant+...
                                      (without "rules", the first section, or one that
                                      holds nothing but rule names)
    players   := player { ";" player }   a section holding "/" is a players section;
                                      several players sections are read in order
    player    := [name ":"] hand "/" cards "/" INT       hand / face-up / face-down count
    hand      := { CARD | "?" | "?" INT }   "?N" is N hand cards that are not known
    cards     := { CARD } | "-"             "-" (or nothing) is an empty list
                                      "rest": every card of the deck not listed
                                      anywhere else (hands, face-up, pile, burned,
                                      unseen) is burned; "unseen" names the cards that
                                      are hidden (face-down, "?" hand cards, draw pile)
                                      and, without "rest", checks them
    name      := WORD | JSON-STRING         names holding space, | ; / : , " or an
                                            unprintable character are written quoted
    who       := INT | name                 a player index, or a player's name
                                            (exact, else case-insensitive; must be unique)
    CARD      := 2..10 J Q K A JK, also T, lower case, a suit letter (7h, Ts)

Aliases read on input: ``draw_pile`` for ``draw``; ``turn`` and ``move`` for ``to_move``;
``pov`` for ``perspective``; ``dir`` for ``direction``; ``last`` for ``last_player``;
``burnt`` for ``burned``. The rules section defaults to ``standard``, ``pile`` and
``burned`` to empty and ``draw`` to 0; ``to_move`` and at least two players are required.
:func:`to_text` writes the canonical form: rules first (``str(Rules)``), then players, ``pile``
(``-`` when empty), ``burned`` (only when not empty), ``draw``, ``to_move``, then
``perspective``, ``direction`` and ``last_player`` only when not at their defaults. Known hand
cards are written in the order given, followed by ``?N``.

Two optional keys extend POSITION.md in both forms: ``direction`` (1 or -1, the direction of
play, default 1) and ``last_player`` (who put the last played card on the pile, default none;
it only matters under ``back_to_last_player``).

>>> p = from_text("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6"
...               " | burned 10 4 4 4 4 | draw 27 | to_move 0")
>>> p.players[1].hand_count, p.players[1].hand_known
(5, [13, 13])
>>> to_text(p)
'standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 | burned 10 4 4 4 4 | draw 27 | to_move 0'
>>> from_text("t t / 3 / 3 ; k / 4 / 3 | TO_MOVE 0 | draw 0")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
palace_solver.game.position.InvalidPositionError: invalid position: 47 unseen cards but 6 face-down + 0 unknown hand + 0 draw pile: 41 cards of the deck are nowhere: ...

Late in a game, ``burned rest`` burns every card not listed; the hidden cards (face-down,
unknown hand, draw pile) are then named with ``unseen``:

>>> p = from_text("me: 4 9 / - / 1 ; bob: 6 / - / 1 | unseen 3 K | burned rest | to_move 0")
>>> len(p.burned), sorted(rank_name(r) for r in p.unseen_ranks())
(47, ['3', 'K'])
"""
from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field

from .cards import JOKER, NRANK, RANKS, CardError, parse_rank, rank_name, ranks_of
from .rules import VARIANTS, Rules, RulesError
from .state import PLAY_PHASE, State
from .text import format_text, state_text

__all__ = ["InvalidPositionError", "PlayerPosition", "Position", "from_text", "load_position",
           "parse_position", "to_text"]


class InvalidPositionError(ValueError):
    """A position that cannot be read or cannot happen. The message starts with
    ``invalid position:`` and names the problem; :attr:`problem` is the rest."""

    def __init__(self, problem: str):
        super().__init__(f"invalid position: {problem}")
        self.problem = problem


def _err(problem: str) -> InvalidPositionError:
    return InvalidPositionError(problem)


def _count_advice(unseen: int, hidden: int) -> str:
    """What to change when the deck's unseen cards and the hidden places differ."""
    if unseen > hidden:
        k = unseen - hidden
        return (f"{_plural(k, 'card')} of the deck {'is' if k == 1 else 'are'} nowhere: list "
                f"{'it' if k == 1 else 'them'} as burned (or write 'burned rest' to burn "
                f"every card not listed, naming the hidden ones with 'unseen'), or put "
                f"{'it' if k == 1 else 'them'} in the draw pile ('draw N' adds N) or "
                f"in a hand as unknown cards ('?N'), or in a hand, the face-up cards or the "
                f"pile")
    k = hidden - unseen
    return (f"{_plural(k, 'hidden card')} too many: the deck has no card left for "
            f"{'it' if k == 1 else 'them'} (take {k} from the burned cards, the pile or the "
            f"known cards, or count fewer face-down, unknown hand or draw pile cards)")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@dataclass
class PlayerPosition:
    """One seat: the hand (``hand_count`` cards of which ``hand_known`` are known, in the
    order given), the face-up cards, and how many face-down cards."""

    name: str | None = None
    hand_known: list[int] = field(default_factory=list)
    hand_count: int = 0
    face_up: list[int] = field(default_factory=list)
    face_down: int = 0

    @property
    def hand_unknown(self) -> int:
        """Hand cards whose rank is not known."""
        return self.hand_count - len(self.hand_known)

    @property
    def hand_fully_known(self) -> bool:
        return self.hand_count == len(self.hand_known)

    def cards_left(self) -> int:
        return self.hand_count + len(self.face_up) + self.face_down


@dataclass
class Position:
    """A position of POSITION.md. Build one with :meth:`from_json`, :func:`from_text`,
    :func:`parse_position`, :func:`load_position` or :meth:`from_state`; all of them
    validate. Constructing it directly does not: call :meth:`validate`."""

    rules: Rules
    players: list[PlayerPosition]
    pile: list[int] = field(default_factory=list)      # bottom first
    burned: list[int] = field(default_factory=list)
    draw_pile: int = 0
    to_move: int = 0
    perspective: int | None = None                      # None: the player to move
    direction: int = 1                                  # extension: 1 or -1
    last_player: int | None = None                      # extension: back_to_last_player

    # -- derived facts --------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.players)

    def label(self, i: int) -> str:
        """``player 1 (bob)``, or ``player 1`` for a player without a name."""
        name = self.players[i].name
        return f"player {i}" if name is None else f"player {i} ({name})"

    def viewer(self) -> int:
        """The player the analysis is for: ``perspective``, else ``to_move``."""
        return self.to_move if self.perspective is None else self.perspective

    def known_counts(self) -> list[int]:
        """Counts per rank of every known card: hands' known cards, face-up, pile, burned."""
        c = [0] * NRANK
        for p in self.players:
            for r in p.hand_known:
                c[r] += 1
            for r in p.face_up:
                c[r] += 1
        for r in self.pile:
            c[r] += 1
        for r in self.burned:
            c[r] += 1
        return c

    def unseen_counts(self) -> list[int]:
        """Counts per rank of the unseen cards: the deck minus every known card."""
        deck = self.rules.deck_counts(self.n)
        known = self.known_counts()
        return [deck[r] - known[r] for r in range(NRANK)]

    def unseen_ranks(self) -> list[int]:
        """The unseen cards as ranks, lowest first."""
        return ranks_of(self.unseen_counts())

    def effective_top(self) -> int | None:
        """The rank the next play must answer (transparent cards skipped), or None."""
        for r in reversed(self.pile):
            if not self.rules.transparent(r):
                return r
        return None

    # -- validation -----------------------------------------------------------------------
    def validate(self) -> "Position":
        """Check that the position can happen; return it.

        :raises InvalidPositionError: naming the first problem found.
        """
        n = self.n
        if n < 2:
            raise _err(f"{_plural(n, 'player')}: Palace needs at least 2")
        try:
            self.rules.check_players(n)
        except RulesError as e:
            raise _err(str(e)) from None
        for i, p in enumerate(self.players):
            who = self.label(i)
            if p.hand_count < 0:
                raise _err(f"{who} has a negative hand count ({p.hand_count})")
            if p.face_down < 0:
                raise _err(f"{who} has a negative face-down count ({p.face_down})")
            if p.hand_count < len(p.hand_known):
                raise _err(f"{who} has a hand count of {p.hand_count} "
                           f"but {len(p.hand_known)} known hand cards")
            if p.cards_left() == 0:
                raise _err(f"{who} has no cards at all (a player out of the game "
                           f"has no place in a position)")
            z = self.rules.zone_size
            rules = "these rules" if self.rules.variants() else "the standard rules"
            for zone, k in (("face-up", len(p.face_up)), ("face-down", p.face_down)):
                # Face-up and face-down cards are dealt zone_size each and only ever leave.
                if k > z:
                    raise _err(f"{who} has {k} {zone} cards (at most {z} under {rules}: "
                               f"{z} are dealt and none are ever added)")
        seen: dict[str, int] = {}
        for i, p in enumerate(self.players):
            if p.name is None:
                continue
            key = p.name.casefold()
            if key in seen:
                raise _err(f"players {seen[key]} and {i} are both named {p.name!r} "
                           f"(each name must be different)")
            seen[key] = i
        if self.draw_pile < 0:
            raise _err(f"negative draw pile ({self.draw_pile})")
        if self.draw_pile > 0:
            for i, p in enumerate(self.players):
                if p.hand_count == 0:
                    # Rule 7 refills every hand after a play while the draw pile lasts, so a
                    # hand is empty (rule 4) only once the draw pile is gone.
                    raise _err(f"{self.label(i)} has an empty hand while the draw pile "
                               f"holds {_plural(self.draw_pile, 'card')}")
        for key in ("to_move", "perspective", "last_player"):
            v = getattr(self, key)
            if v is not None and not 0 <= v < n:
                raise _err(f"{key} {v} is out of range (players are 0 to {n - 1})")
        if self.direction not in (1, -1):
            raise _err(f"direction {self.direction} is not 1 or -1")
        deck = self.rules.deck_counts(n)
        known = self.known_counts()
        for r in RANKS:
            if known[r] > deck[r]:
                cards = _plural(known[r], "card")
                if r == JOKER and not deck[r]:
                    raise _err(f"{cards} of rank JK (jokers need the jokers variant)")
                d = self.rules.decks(n)
                has = f"a deck has {deck[r]}" if d == 1 else f"{d} decks have {deck[r]}"
                raise _err(f"{cards} of rank {rank_name(r)} ({has})")
        for r in RANKS:
            if r in self.pile and self.rules.burns(r):
                why = {10: "a 10 burns the pile", 14: "aces burn under aces_burn",
                       13: "kings burn under kings_burn"}.get(r, "it burns")
                article = "an" if r in (8, 14) else "a"
                raise _err(f"the pile holds {article} {rank_name(r)} ({why})")
        pile = self.pile
        if (not self.rules.no_four_burn and len(pile) >= 4
                and pile[-1] == pile[-2] == pile[-3] == pile[-4]):
            raise _err(f"the pile has four {rank_name(pile[-1])}s on top "
                       f"(four of a kind burns)")
        unseen = sum(deck) - sum(known)
        fd = sum(p.face_down for p in self.players)
        uh = sum(p.hand_unknown for p in self.players)
        if unseen != fd + uh + self.draw_pile:
            raise _err(f"{_plural(unseen, 'unseen card')} but {fd} face-down + "
                       f"{uh} unknown hand + {self.draw_pile} draw pile: "
                       + _count_advice(unseen, fd + uh + self.draw_pile))
        return self

    # -- JSON -----------------------------------------------------------------------------
    @classmethod
    def from_json(cls, obj) -> "Position":
        """Read and validate the JSON object (a dict) of POSITION.md.

        >>> p = Position.from_json({"rules": "standard", "players": [
        ...     {"hand": ["3", "7h", "T"], "face_up": ["A"], "face_down": 3},
        ...     {"hand": {"known": ["k"], "count": 3}, "face_up": ["2"], "face_down": 3}],
        ...     "pile": [], "draw_pile": 38, "to_move": 0})
        >>> p.players[0].hand_known, p.to_json()["players"][0]["hand"]
        ([3, 7, 10], ['3', '7', '10'])

        :raises InvalidPositionError: for wrong keys or types, unknown ranks or variants,
            and anything :meth:`validate` rejects.
        """
        if not isinstance(obj, dict):
            raise _err(f"expected a JSON object, got {_jtype(obj)}")
        for k in obj:
            if k not in _KEYS:
                raise _err(f"unknown key {k!r}")
        for k in ("players", "pile", "draw_pile", "to_move"):
            if k not in obj:
                raise _err(f"missing key {k!r}")
        try:
            rules = Rules.from_json(obj.get("rules", "standard"))
        except RulesError as e:
            raise _err(str(e)) from None
        players_obj = obj["players"]
        if not isinstance(players_obj, list):
            raise _err(f"players must be a list, got {_jtype(players_obj)}")
        players = [_player_from_json(i, p) for i, p in enumerate(players_obj)]
        burned = obj.get("burned", [])
        if isinstance(burned, str) and burned.lower() == REST:
            burned = [REST]
        rest = isinstance(burned, list) and any(_is_rest(c) for c in burned)
        if rest:
            burned = [c for c in burned if not _is_rest(c)]
        unseen = obj.get("unseen")
        pos = cls(
            rules=rules,
            players=players,
            pile=_cards(obj["pile"], "the pile"),
            burned=_cards(burned, "burned"),
            draw_pile=_int(obj["draw_pile"], "draw_pile"),
            to_move=_int(obj["to_move"], "to_move"),
            perspective=_opt_int(obj.get("perspective"), "perspective"),
            direction=_int(obj.get("direction", 1), "direction"),
            last_player=_opt_int(obj.get("last_player"), "last_player"),
        )
        return pos._fill(rest, None if unseen is None else _cards(unseen, "unseen")).validate()

    def _fill(self, rest: bool, unseen: list[int] | None) -> "Position":
        """``burned rest``: every card of the deck that is neither known (hands, face-up,
        pile, the burned cards listed) nor among ``unseen`` goes to the burned cards.
        ``unseen`` without ``rest`` is a check: the unseen cards must be exactly these.

        :raises InvalidPositionError: when ``unseen`` names cards the deck has not got left,
            or (without ``rest``) differs from the unseen cards.
        """
        if not rest and unseen is None:
            return self
        n = len(self.players)
        try:
            self.rules.check_players(max(n, 2))
        except RulesError as e:
            raise _err(str(e)) from None
        left = self.unseen_counts()
        want = [0] * NRANK
        for r in unseen or []:
            want[r] += 1
        for r in RANKS:
            if want[r] > max(0, left[r]):
                raise _err(f"unseen lists {_plural(want[r], 'card')} of rank {rank_name(r)} "
                           f"but only {max(0, left[r])} of the deck {'is' if left[r] == 1 else 'are'} "
                           f"not placed elsewhere")
        if not rest:
            if want != [max(0, c) for c in left]:
                extra = [rank_name(r) for r in RANKS for _ in range(max(0, left[r] - want[r]))]
                raise _err(f"unseen lists {_plural(sum(want), 'card')} but "
                           f"{_plural(sum(max(0, c) for c in left), 'card')} of the deck are "
                           f"not placed: {' '.join(extra)} also "
                           f"(burn them, or write 'burned rest')")
            return self
        fd = sum(p.face_down for p in self.players)
        uh = sum(p.hand_unknown for p in self.players)
        hidden = fd + uh + self.draw_pile
        if unseen is not None and len(unseen) != hidden:
            raise _err(f"unseen lists {_plural(len(unseen), 'card')} but {fd} face-down + "
                       f"{uh} unknown hand + {self.draw_pile} draw pile hide {hidden}: "
                       f"name exactly the cards those may be")
        if unseen is None:
            if hidden:
                raise _err(f"'burned rest' burns every card not listed, but "
                           f"{_plural(hidden, 'hidden card')} (face-down, unknown hand, draw "
                           f"pile) must come from somewhere: name the cards they may be "
                           f"with 'unseen' ({hidden} of them)")
        self.burned = self.burned + [r for r in RANKS
                                     for _ in range(max(0, left[r]) - want[r])]
        return self

    def to_json(self) -> dict:
        """The canonical JSON object: canonical card names, ``"standard"`` or
        ``{"base", "variants"}`` rules, optional keys only when not at their default."""
        players = []
        for p in self.players:
            d: dict = {} if p.name is None else {"name": p.name}
            known = [rank_name(r) for r in p.hand_known]
            d["hand"] = known if p.hand_fully_known else {"known": known, "count": p.hand_count}
            d["face_up"] = [rank_name(r) for r in p.face_up]
            d["face_down"] = p.face_down
            players.append(d)
        out: dict = {"rules": self.rules.to_json(), "players": players,
                     "pile": [rank_name(r) for r in self.pile]}
        if self.burned:
            out["burned"] = [rank_name(r) for r in self.burned]
        out["draw_pile"] = self.draw_pile
        out["to_move"] = self.to_move
        if self.perspective is not None:
            out["perspective"] = self.perspective
        if self.direction != 1:
            out["direction"] = self.direction
        if self.last_player is not None:
            out["last_player"] = self.last_player
        return out

    def dumps(self, indent: int | None = None) -> str:
        """:meth:`to_json` as a string."""
        return json.dumps(self.to_json(), indent=indent, ensure_ascii=False)

    # -- State ----------------------------------------------------------------------------
    def to_state(self):
        """The :class:`~palace_solver.game.state.State` of this position, in the play phase with
        the player to move at a decision. Every hand must be fully known (determinize a
        position with hidden hand cards first); face-down cards and the draw pile become
        the unseen pool.

        :raises InvalidPositionError: when a hand is not fully known.
        """

        for i, p in enumerate(self.players):
            if not p.hand_fully_known:
                raise _err(f"{self.label(i)}'s hand is not fully known "
                           f"({len(p.hand_known)} of {p.hand_count} cards known)")
        s = State(self.rules, self.n)
        for i, p in enumerate(self.players):
            for r in p.hand_known:
                s.hands[i][r] += 1
            for r in p.face_up:
                s.face_up[i][r] += 1
            s.face_down[i] = p.face_down
        s.pile = list(self.pile)
        for r in self.burned:
            s.burned[r] += 1
        s.pool = self.unseen_counts()
        s.draw_pile = self.draw_pile
        s.to_move = self.to_move
        s.direction = self.direction
        s.last_player = self.last_player
        s.phase = PLAY_PHASE
        return s

    @classmethod
    def from_state(cls, state, perspective: int | None = None) -> "Position":
        """The position of a play-phase decision node, with every hand known (hands are
        listed lowest rank first). ``last_player`` is kept only under
        ``back_to_last_player``, the one rule it matters to.

        :raises InvalidPositionError: at a chance node, outside the play phase, when a
            player is out, or when the state is not a valid position.
        """

        if state.phase != PLAY_PHASE or state.to_move < 0:
            raise _err(f"state is not a play-phase decision "
                       f"(phase {state.phase}, to_move {state.to_move})")
        for i in range(state.n):
            if state.out[i]:
                raise _err(f"player {i} is out (a position has no players out)")
        return _raw_from_state(state, perspective).validate()


_KEYS = ("rules", "players", "pile", "burned", "unseen", "draw_pile", "to_move",
         "perspective", "direction", "last_player")
_PLAYER_KEYS = ("name", "hand", "face_up", "face_down")


def _raw_from_state(state, perspective=None) -> Position:
    """A position from any state, without checks (:meth:`Position.from_state` checks it)."""
    players = []
    for i in range(state.n):
        hand = ranks_of(state.hands[i])
        players.append(PlayerPosition(None, hand, len(hand), ranks_of(state.face_up[i]),
                                      state.face_down[i]))
    return Position(
        rules=state.rules, players=players, pile=list(state.pile),
        burned=ranks_of(state.burned), draw_pile=state.draw_pile, to_move=state.to_move,
        perspective=perspective, direction=state.direction,
        last_player=state.last_player if state.rules.back_to_last_player else None)


def _jtype(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the string {v!r}"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _int(v, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _err(f"{where} must be an integer, got {_jtype(v)}")
    return v


def _opt_int(v, where: str):
    return None if v is None else _int(v, where)


def _is_rest(c) -> bool:
    return isinstance(c, str) and c.lower() == REST


def _cards(v, where: str) -> list[int]:
    if not isinstance(v, list):
        raise _err(f"{where} must be a list of cards, got {_jtype(v)}")
    out = []
    for c in v:
        if isinstance(c, bool) or not isinstance(c, (str, int)):
            raise _err(f"a card must be a string, got {_jtype(c)} in {where}")
        try:
            out.append(parse_rank(str(c)))
        except CardError:
            raise _err(f"unknown rank {str(c)!r} in {where}") from None
    return out


def _player_from_json(i: int, obj) -> PlayerPosition:
    who = f"player {i}"
    if not isinstance(obj, dict):
        raise _err(f"{who} must be an object, got {_jtype(obj)}")
    for k in obj:
        if k not in _PLAYER_KEYS:
            raise _err(f"unknown key {k!r} in {who}")
    for k in ("hand", "face_up", "face_down"):
        if k not in obj:
            raise _err(f"missing key {k!r} in {who}")
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        raise _err(f"{who}'s name must be a string, got {_jtype(name)}")
    hand = obj["hand"]
    if isinstance(hand, dict):
        for k in hand:
            if k not in ("known", "count"):
                raise _err(f"unknown key {k!r} in {who}'s hand")
        if "count" not in hand:
            raise _err(f"missing key 'count' in {who}'s hand")
        known = _cards(hand.get("known", []), f"{who}'s hand")
        count = _int(hand["count"], f"{who}'s hand count")
    elif isinstance(hand, list):
        known = _cards(hand, f"{who}'s hand")
        count = len(known)
    else:
        raise _err(f"{who}'s hand must be a list of cards or {{\"known\", \"count\"}}, "
                   f"got {_jtype(hand)}")
    return PlayerPosition(name, known, count, _cards(obj["face_up"], f"{who}'s face_up"),
                          _int(obj["face_down"], f"{who}'s face_down"))


# -- text form ----------------------------------------------------------------------------

_TOKEN = re.compile(r'(?P<space>[\s,]+)|(?P<punct>[|;/:])|(?P<str>"(?:[^"\\]|\\.)*")'
                    r'|(?P<word>[^\s,|;/:"]+)|(?P<bad>.)', re.S)
_INT = re.compile(r"[+-]?[0-9]{1,18}")
_ALIASES = {
    "rules": "rules", "pile": "pile", "burned": "burned", "burnt": "burned",
    "draw": "draw", "draw_pile": "draw", "to_move": "to_move", "turn": "to_move",
    "move": "to_move", "perspective": "perspective", "pov": "perspective",
    "direction": "direction", "dir": "direction", "last_player": "last_player",
    "last": "last_player", "unseen": "unseen",
}
#: The word of the burned cards that stands for every card not listed (``burned rest``).
REST = "rest"


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "space":
            continue
        if kind == "bad":
            raise _err(f"unterminated quoted name at {text[m.start():m.start() + 20]!r}")
        if kind == "str":
            try:
                out.append(("str", json.loads(m.group())))
            except ValueError:
                raise _err(f"bad quoted name {m.group()!r}") from None
        elif kind == "punct":
            out.append((m.group(), m.group()))
        else:
            out.append(("word", m.group()))
    return out


def _split(tokens, sep: str) -> list[list]:
    parts: list[list] = [[]]
    for t in tokens:
        if t[0] == sep:
            parts.append([])
        else:
            parts[-1].append(t)
    return parts


def _untok(tokens) -> str:
    return " ".join(json.dumps(v, ensure_ascii=False) if k == "str" else v for k, v in tokens)


def _text_cards(tokens, where: str) -> list[int]:
    out = []
    for kind, v in tokens:
        if kind != "word":
            raise _err(f"unexpected {_untok([(kind, v)])!r} in {where}")
        if v == "-":
            continue
        try:
            out.append(parse_rank(v))
        except CardError:
            raise _err(f"unknown rank {v!r} in {where}") from None
    return out


def _text_int(tokens, where: str) -> int:
    if len(tokens) != 1 or tokens[0][0] != "word" or not _INT.fullmatch(tokens[0][1]):
        raise _err(f"{where} needs one integer, got {_untok(tokens)!r}")
    return int(tokens[0][1])


def _text_player(i: int, tokens) -> PlayerPosition:
    who = f"player {i}"
    name = None
    if len(tokens) >= 2 and tokens[1][0] == ":" and tokens[0][0] in ("word", "str"):
        name, tokens = tokens[0][1], tokens[2:]
    parts = _split(tokens, "/")
    if len(parts) != 3:
        raise _err(f"{who}: expected HAND / FACE_UP / FACE_DOWN, got {_untok(tokens)!r}")
    hand_toks = []
    unknown = 0
    for kind, v in parts[0]:
        if kind == "word" and v.startswith("?"):
            rest = v[1:]
            if rest and not re.fullmatch(r"[0-9]{1,18}", rest):
                raise _err(f"bad unknown-card count {v!r} in {who}'s hand")
            unknown += int(rest) if rest else 1
        else:
            hand_toks.append((kind, v))
    known = _text_cards(hand_toks, f"{who}'s hand")
    return PlayerPosition(name, known, len(known) + unknown,
                          _text_cards(parts[1], f"{who}'s face_up"),
                          _text_int(parts[2], f"{who}'s face_down"))


def _text_rules(tokens) -> Rules:
    names = []
    for kind, v in tokens:
        if kind != "word":
            raise _err(f"unexpected {_untok([(kind, v)])!r} in the rules")
        names.extend(x.lower() for x in v.split("+") if x)
    if names and names[0] == "standard":
        names = names[1:]
    try:
        return Rules.with_variants(names)
    except RulesError as e:
        raise _err(str(e)) from None


def _looks_like_rules(tokens) -> bool:
    words = [x.lower() for k, v in tokens if k == "word" for x in v.split("+") if x]
    return (bool(words) and all(k == "word" for k, _ in tokens)
            and all(w == "standard" or w in VARIANTS for w in words))


def from_text(text: str) -> Position:
    """Read and validate the one-line text form (grammar in the module docstring).

    >>> p = from_text("seven_low+jack_reverses | a: 3 ?2 / 4 4 / 3 ; b: ? / q / 3 ; "
    ...               "c: ?3 / 9 / 1 | pile 8 | draw 33 | to_move b | direction -1")
    >>> p.rules.variants(), p.to_move, p.players[2].hand_count
    (('seven_low', 'jack_reverses'), 1, 3)

    :raises InvalidPositionError: for text outside the grammar, unknown ranks or variants,
        and anything :meth:`Position.validate` rejects.
    """
    sections = [s for s in _split(_tokens(str(text)), "|") if s]
    if not sections:
        raise _err("empty input")
    rules = None
    players: list[PlayerPosition] = []
    seen: dict[str, list] = {}
    for idx, sec in enumerate(sections):
        if any(k == "/" for k, _ in sec):
            for chunk in _split(sec, ";"):
                if chunk:
                    players.append(_text_player(len(players), chunk))
            continue
        if any(k == ";" for k, _ in sec):
            raise _err(f"';' outside the players section in {_untok(sec)!r}")
        head = sec[0][1].lower() if sec[0][0] == "word" else None
        key = _ALIASES.get(head) if head is not None else None
        if key is None and (idx == 0 or _looks_like_rules(sec)):
            key, body = "rules", sec
        elif key is None:
            raise _err(f"unknown section {_untok(sec)!r}")
        else:
            body = sec[1:]
        if key in seen or (key == "rules" and rules is not None):
            raise _err(f"{key} given twice")
        if key == "rules":
            rules = _text_rules(body)
        seen[key] = body
    if not players:
        raise _err("no players (a players section looks like 'HAND / FACE_UP / N ; ...')")
    if "to_move" not in seen:
        raise _err("missing to_move")
    names = [p.name for p in players]

    def who(key):
        if key not in seen:
            return None
        body = seen[key]
        if (key != "to_move" and len(body) == 1 and body[0][0] == "word"
                and body[0][1].lower() == "none"):
            return None
        if len(body) == 1 and body[0][0] in ("word", "str") and not (
                body[0][0] == "word" and _INT.fullmatch(body[0][1])):
            v = body[0][1]
            hits = [i for i, nm in enumerate(names) if nm == v]
            if not hits:
                hits = [i for i, nm in enumerate(names) if nm and nm.lower() == v.lower()]
            if len(hits) == 1:
                return hits[0]
            raise _err(f"{key}: no single player named {v!r}")
        return _text_int(body, key)

    burned = seen.get("burned", [])
    rest = any(k == "word" and v.lower() == REST for k, v in burned)
    burned = [t for t in burned if not (t[0] == "word" and t[1].lower() == REST)]
    pos = Position(
        rules=rules or Rules(),
        players=players,
        pile=_text_cards(seen.get("pile", []), "the pile"),
        burned=_text_cards(burned, "burned"),
        draw_pile=_text_int(seen["draw"], "draw") if "draw" in seen else 0,
        to_move=who("to_move"),
        perspective=who("perspective"),
        direction=_text_int(seen["direction"], "direction") if "direction" in seen else 1,
        last_player=who("last_player"),
    )
    unseen = _text_cards(seen["unseen"], "unseen") if "unseen" in seen else None
    return pos._fill(rest, unseen).validate()


def _text_of(pos: Position) -> str:
    return format_text(pos.rules, [(p.name, p.hand_known, p.hand_unknown, p.face_up, p.face_down)
                                   for p in pos.players],
                       pos.pile, pos.burned, pos.draw_pile, pos.to_move, pos.perspective,
                       pos.direction, pos.last_player)


def to_text(position) -> str:
    """The canonical one-line text form of a :class:`Position` or a
    :class:`~palace_solver.game.state.State`.

    A state that is not a play-phase decision node (a chance node, the deal, a player
    out) is described as well as the text form allows, with a trailing note that
    :func:`from_text` does not read; that is for error messages only.
    """
    if isinstance(position, Position):
        return _text_of(position)
    return state_text(position)


def parse_position(text: str) -> Position:
    """Read a position given as JSON (starting with ``{``) or in the text form.

    :raises InvalidPositionError: for bad JSON or any problem with the position.
    """
    t = str(text).strip().lstrip("\ufeff").strip()
    if not t:
        raise _err("empty input")
    if t[0] in "{[":
        try:
            obj = json.loads(t)
        except RecursionError:
            raise _err("bad JSON: nested too deeply") from None
        except ValueError as e:
            raise _err(f"bad JSON: {e}") from None
        return Position.from_json(obj)
    if not any(c in t for c in "|:/"):
        # neither JSON nor the text form (whose sections are split by |): say that, not
        # what the first word would have been as the rules section
        raise _err(f"not a position: {t[:40]!r}{'...' if len(t) > 40 else ''} is neither "
                   f"JSON nor the text form ('standard | me: 7 7 / A / 1 ; bob: ... | pile "
                   f"... | to_move 0': docs/positions.md)")
    return from_text(t)


def load_position(arg: str) -> Position:
    """A position from a command-line argument: ``-`` reads standard input, an existing
    file is read, anything else is JSON or the text form.

    :raises InvalidPositionError: for an unreadable file, or as :func:`parse_position`.
    """
    if arg == "-":
        return parse_position(sys.stdin.read())
    if os.path.exists(arg):
        try:
            with open(arg, encoding="utf-8") as f:
                data = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise _err(f"cannot read {arg!r}: {getattr(e, 'strerror', None) or e}") from None
        return parse_position(data)
    s = arg.strip()
    if s and not s.startswith(("{", "[")) and "|" not in s and not any(c.isspace() for c in s):
        raise _err(f"no such file {arg!r}")
    return parse_position(arg)

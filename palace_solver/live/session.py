"""The live session model: following a real game from one seat, the public record and what
the user knows.

Why a knowledge state. At a real table the user sees their own hand, every face-up card, the
pile, the burns and every card a player picks up; the others' hands are only partly known and
the draw pile and face-down cards not at all. The session keeps that record in a reference
:class:`~palace_solver.game.state.State` whose rank counts use index ``UNKNOWN`` (0, unused by the
ranks) for the hand cards the user has not seen, and whose unseen pool holds every card the
user has not seen (draw pile + face-down cards + the others' unknown hand cards). The rules
engine then does everything the rules say (legality, burns, refills, players going out,
reversals, the variants) and the session only fills in what the user cannot see:

- a card an opponent plays from an unknown hand card becomes known just before the play
  (one unknown hand card turns into that rank, taken from the unseen pool);
- an opponent's refill turns draw-pile cards into unknown hand cards (counted only);
- the user's own refills wait for the user to say what they drew (``draw 7 K``).

A player who plays a rank they are known to hold plays the known copies first: the cards the
session marks as known are then exactly those the user can be sure of.

The events are lines of the event language (:mod:`palace_solver.live.events`).
An impossible event raises :class:`LiveError` with the reason and changes nothing.
Sessions are JSON (the setup and the accepted events, replayed on load); :meth:`Session.save`
writes a temporary file and renames it over the old one.

The API, for the terminal (:mod:`palace_solver.live.repl`) and for programs alike:
``Session(setup, path)``; :meth:`Session.apply` (an event line -> :class:`Reply`, or
:class:`LiveError` and nothing changed), :meth:`Session.undo`, :meth:`Session.save` /
:meth:`Session.load` (one file per game, saved after every change when ``path`` is set),
:meth:`Session.hint` (data), :meth:`Session.summary` (data; the text picture is
:mod:`palace_solver.live.picture`).

Imports the model (:mod:`palace_solver.game`), :mod:`palace_solver.live.events` and
:mod:`palace_solver.live.hints`.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field, replace

from ..game.cards import (
    JOKER,
    NRANK,
    ORDERED_RANKS,
    RANKS,
    counts_of,
    parse_rank,
    rank_name,
    ranks_of,
)
from ..game.moves import FLIP, PICKUP, PLAY, IllegalMoveError, Move
from ..game.position import PlayerPosition, Position
from ..game.rules import Rules, RulesError
from ..game.state import FACE_DOWN, FACE_UP, HAND, LAYOUT_PHASE, PLAY_PHASE, State
from . import hints
from .events import RESERVED, Event, LiveError, is_card, parse_cards, parse_event, player_seat

__all__ = ["LiveError", "Reply", "Session", "Setup", "UNKNOWN", "SESSION_FORMAT", "parse_cards"]

#: Index of the rank counts that holds the hand cards the user has not seen.
UNKNOWN = 0
#: ``format`` key of a saved session.
SESSION_FORMAT = "palace-live-1"

# -- setup -------------------------------------------------------------------------------------

@dataclass
class Setup:
    """What the user sees once the cards are dealt and the face-up cards laid (after any
    swap): seats in turn order, starting left of the dealer unless ``dealer`` says otherwise.

    Or, with ``deal``, what the user sees before the swap: their own cards as dealt (hand
    and face-up together, ``2 * zone_size`` of them; ``hand`` and ``face_up`` empty); the
    session then starts at the layout phase, where each player's face-up cards are entered
    as they are laid (``me up 10 A K``, ``bob up 5 9 J``). ``deal_up`` optionally says
    which of the user's cards were dealt face up, in the order dealt (rule 3 counts the
    face-up cards as dealt).

    ``first`` is the seat that plays first, or None to let rule 3 decide from what the user
    sees (the first face-up 3 in dealing order, else the first 3 in hand, else 4, ...); when
    the unseen hands may decide it, the first play tells.
    """

    names: list[str]
    me: int
    rules: Rules
    hand: list[int]
    face_up: list[list[int]]
    dealer: int | None = None
    first: int | None = None
    position: Position | None = None     # start mid-game from this position instead
    deal: list[int] | None = None        # the user's cards as dealt: start at the layout
    deal_up: list[int] | None = None     # which of them were dealt face up, in order

    @classmethod
    def from_position(cls, pos: Position, me: int | None = None) -> "Setup":
        """Start following a game mid-way: ``pos`` as the user sees it (the user's hand
        fully known; ``me`` defaults to the perspective, else the player to move)."""
        me = me if me is not None else pos.viewer()
        names = [p.name or ("me" if i == me else f"p{i}") for i, p in enumerate(pos.players)]
        return cls(names=names, me=me, rules=pos.rules, hand=list(pos.players[me].hand_known),
                   face_up=[list(p.face_up) for p in pos.players], position=pos).validate()

    @property
    def n(self) -> int:
        return len(self.names)

    def validate(self) -> "Setup":
        """:raises LiveError: naming the problem."""
        n = self.n
        try:
            self.rules.check_players(n)
        except RulesError as e:
            raise LiveError(str(e)) from None
        check_names(self.names, self.me)
        for key, v in (("me", self.me), ("dealer", self.dealer), ("first", self.first)):
            if v is not None and not 0 <= v < n:
                raise LiveError(f"{key} {v} is out of range (seats 0 to {n - 1})")
        if self.position is not None:
            if self.position.n != n:
                raise LiveError("the names do not match the position's players")
            if not self.position.players[self.me].hand_fully_known:
                raise LiveError("your own hand must be fully known in the position")
            return self
        z = self.rules.zone_size
        for r in (self.hand + [r for up in self.face_up for r in up] + list(self.deal or [])
                  + list(self.deal_up or [])):
            if r == JOKER and not self.rules.jokers:
                raise LiveError("a joker (JK) is not a card under these rules "
                                "(the jokers variant has them)")
        if self.deal is not None:
            return self._validate_deal()
        if len(self.hand) != z:
            raise LiveError(f"your hand has {len(self.hand)} cards; it should have {z}")
        if len(self.face_up) != n:
            raise LiveError(f"face-up cards for {len(self.face_up)} players, not {n}")
        for i, up in enumerate(self.face_up):
            if len(up) != z:
                raise LiveError(f"{self.names[i]} has {len(up)} face-up cards; "
                                f"each player has {z}")
        deck = self.rules.deck_counts(n)
        seen_c = [0] * NRANK
        for r in self.hand + [r for up in self.face_up for r in up]:
            seen_c[r] += 1
        _check_deck(seen_c, deck)
        return self

    def _validate_deal(self) -> "Setup":
        z, n = self.rules.zone_size, self.n
        if self.hand or any(self.face_up):
            raise LiveError("with your cards as dealt, the face-up cards are entered as "
                            "they are laid: 'me up 10 A K', 'bob up 5 9 J'")
        if len(self.deal) != 2 * z:
            raise LiveError(f"you were dealt {2 * z} cards ({z} in hand and {z} face up), "
                            f"not {len(self.deal)}")
        if self.deal_up is not None:
            if len(self.deal_up) != z:
                raise LiveError(f"{len(self.deal_up)} cards dealt face up; there are {z}")
            left = counts_of(self.deal)
            for r in self.deal_up:
                if not left[r]:
                    raise LiveError(f"the face-up {rank_name(r)} is not among your cards")
                left[r] -= 1
        self.face_up = [[] for _ in range(n)]
        _check_deck(counts_of(self.deal), self.rules.deck_counts(n))
        return self

    def to_json(self) -> dict:
        return {"names": list(self.names), "me": self.me, "rules": self.rules.to_json(),
                "hand": [rank_name(r) for r in self.hand],
                "face_up": [[rank_name(r) for r in up] for up in self.face_up],
                "dealer": self.dealer, "first": self.first,
                **({"position": self.position.to_json()} if self.position is not None else {}),
                **({"deal": [rank_name(r) for r in self.deal]} if self.deal is not None
                   else {}),
                **({"deal_up": [rank_name(r) for r in self.deal_up]}
                   if self.deal_up is not None else {})}

    @classmethod
    def from_json(cls, obj: dict) -> "Setup":
        """:raises LiveError: for a malformed setup."""
        try:
            return cls(names=[str(x) for x in obj["names"]], me=int(obj["me"]),
                       rules=Rules.from_json(obj.get("rules", "standard")),
                       hand=[parse_rank(c) for c in obj["hand"]],
                       face_up=[[parse_rank(c) for c in up] for up in obj["face_up"]],
                       dealer=obj.get("dealer"), first=obj.get("first"),
                       position=Position.from_json(obj["position"]) if obj.get("position")
                       else None,
                       deal=[parse_rank(c) for c in obj["deal"]] if "deal" in obj else None,
                       deal_up=[parse_rank(c) for c in obj["deal_up"]] if "deal_up" in obj
                       else None).validate()
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, LiveError):
                raise
            raise LiveError(f"bad session setup: {e}") from None


def check_names(names: list[str], me: int | None = None) -> None:
    """Player names: one word each, no two alike (any case), none a command word or a card.

    :raises LiveError: naming the first problem.
    """
    seen = set()
    for i, nm in enumerate(names):
        key = nm.lower()
        if not nm or any(c.isspace() for c in nm):
            raise LiveError(f"bad player name {nm!r}: one word, please")
        if key in RESERVED and not (key == "me" and (me is None or i == me)):
            raise LiveError(f"{nm!r} cannot be a player name (it is a command word)")
        if key in seen:
            raise LiveError(f"two players named {nm!r}: each name must be different")
        if is_card(nm):
            raise LiveError(f"{nm!r} cannot be a player name (it reads as a card)")
        seen.add(key)


def _check_deck(seen: list[int], deck: list[int]) -> None:
    for r in RANKS:
        if seen[r] > deck[r]:
            raise LiveError(f"{_plural(seen[r], 'card')} of rank {rank_name(r)} seen, but "
                            f"the deck has only {deck[r]}")


# -- replies -----------------------------------------------------------------------------------

@dataclass
class Reply:
    """The answer to one line: ``ok`` (accepted / done) or refused, a human message, and
    for accepted events the canonical event text."""

    ok: bool
    message: str
    event: str | None = None
    data: dict = field(default_factory=dict)


# -- the session -------------------------------------------------------------------------------

def _cards(ranks) -> str:
    return " ".join(rank_name(r) for r in ranks) or "-"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class Session:
    """The public record of a game from the user's seat. See the module docstring."""

    def __init__(self, setup: Setup, path: str | None = None):
        self.setup = setup.validate()
        self.path = path
        self.names = list(setup.names)
        self.me = setup.me
        self.rules = setup.rules
        self.n = setup.n
        self.dealer = setup.dealer if setup.dealer is not None else self.n - 1
        self.events: list[str] = []
        #: choices kept with the game (``time``: seconds for each hint), saved in its file
        self.settings: dict = {}
        self._undo: list[tuple[State, bool, int]] = []
        self.state, self.first_open = self._initial()
        self.burns = 0   # burns so far (for the ``burn`` check)
        self._last_burn_at = -1

    # -- construction ---------------------------------------------------------------------
    def _initial(self) -> tuple[State, bool]:
        st = self.setup
        rules, n, z = self.rules, self.n, self.rules.zone_size
        if st.position is not None:
            return self._from_position(st.position), False
        if st.deal is not None:
            return self._dealt(), False
        s = State(rules, n)
        for r in st.hand:
            s.hands[self.me][r] += 1
        for p in range(n):
            if p != self.me:
                s.hands[p][UNKNOWN] = z
            for r in st.face_up[p]:
                s.face_up[p][r] += 1
                s.pool[r] -= 1
            s.face_down[p] = z
        for r in st.hand:
            s.pool[r] -= 1
        s.pool[UNKNOWN] = 0
        s.draw_pile = rules.deck_size(n) - 3 * z * n
        s.phase = PLAY_PHASE
        first_open = False
        if rules.start_card and s.draw_pile:
            s.pending = ("start", 0, 1)
            s.to_move = -1
            return s, False
        if st.first is not None:
            s.to_move = st.first
        elif rules.start_card:
            s.to_move = self._left_of_dealer()
        else:
            f = self._rule_first(s)
            if f is None:
                first_open = True
                s.to_move = self._left_of_dealer()
            else:
                s.to_move = f
        return s, first_open

    def _dealt(self) -> State:
        """The layout phase: the user's cards as dealt in hand, everyone else's unseen."""
        rules, n, z = self.rules, self.n, self.rules.zone_size
        s = State(rules, n)
        for r in self.setup.deal:
            s.hands[self.me][r] += 1
            s.pool[r] -= 1
        s.pool[UNKNOWN] = 0
        s.face_down = [z] * n
        s.draw_pile = rules.deck_size(n) - 3 * z * n
        s.phase = LAYOUT_PHASE
        s.to_move = self.me
        return s

    def in_layout(self) -> bool:
        """Whether the face-up cards are still being laid out (a session from a deal)."""
        return self.state.phase == LAYOUT_PHASE

    def laid_out(self, p: int) -> bool:
        """Whether ``p``'s face-up cards are known (always, once play has started)."""
        return not self.in_layout() or sum(self.state.face_up[p]) > 0

    def waiting_layouts(self) -> list[int]:
        """The seats whose face-up cards are still to be entered, in seat order."""
        return self.waiting_layouts_of(self.state)

    def _start_play(self, s: State) -> tuple[bool, str]:
        """Every layout entered: play starts. Returns ``first_open`` and a note saying who
        starts (or what is awaited)."""
        s.phase = PLAY_PHASE
        if self.rules.start_card and s.draw_pile:
            s.pending = ("start", 0, 1)
            s.to_move = -1
            return False, "every face-up card is down: enter the start card ('start 5')"
        if self.setup.first is not None:
            s.to_move = self.setup.first
        elif self.rules.start_card:
            s.to_move = self._left_of_dealer()
        else:
            f = self._rule_first(s)
            if f is None:
                s.to_move = self._left_of_dealer()
                return True, ("every face-up card is down; who plays first depends on cards "
                              "you have not seen: the first play tells (or say 'first NAME')")
            s.to_move = f
        return False, (f"every face-up card is down; {self.name(s.to_move)} "
                       f"play{'' if s.to_move == self.me else 's'} first")

    def _from_position(self, pos: Position) -> State:
        s = State(self.rules, self.n)
        for i, p in enumerate(pos.players):
            for r in p.hand_known:
                s.hands[i][r] += 1
            s.hands[i][UNKNOWN] = p.hand_unknown
            for r in p.face_up:
                s.face_up[i][r] += 1
            s.face_down[i] = p.face_down
        s.pile = list(pos.pile)
        for r in pos.burned:
            s.burned[r] += 1
        s.pool = pos.unseen_counts()
        s.pool[UNKNOWN] = 0
        s.draw_pile = pos.draw_pile
        s.to_move, s.direction, s.last_player = pos.to_move, pos.direction, pos.last_player
        s.phase = PLAY_PHASE
        return s

    def _left_of_dealer(self) -> int:
        return (self.dealer + 1) % self.n

    def _dealing_order(self) -> list[int]:
        return [(self._left_of_dealer() + i) % self.n for i in range(self.n)]

    def _rule_first(self, s: State) -> int | None:
        """Rule 3 from what the user knows, or None when cards the user has not seen could
        decide it (then the first play tells, or ``first NAME``).

        The rule: the player *dealt* the first face-up card of the lowest rank (3, then 4,
        ...) in dealing order from the dealer's left, else the first player holding that
        rank in hand after the swap. Under ``choose_face_up`` nobody is dealt face-up cards
        and those laid, in seat order, stand for them: the user sees them all. Otherwise
        the face-up cards on the table are those after the swap and say nothing of what
        was dealt; the user knows their own deal (``--deal``; with ``deal_up`` which cards
        were dealt face up, in order). So a rank decides when no one else can hold it
        (every copy is the user's), or when the user was dealt it face up as the very first
        card of the deal.
        """
        order = self._dealing_order()
        me = self.me
        if self.rules.choose_face_up:
            for r in ORDERED_RANKS:
                for p in order:
                    if s.face_up[p][r]:
                        return p
                for p in order:
                    if p == me and s.hands[p][r]:
                        return p
                    if p != me and s.pool[r]:
                        return None
            return None
        st = self.setup
        mine = counts_of(st.deal) if st.deal is not None else \
            [a + b for a, b in zip(s.hands[me], s.face_up[me])]
        up = st.deal_up if st.deal is not None else None
        deck = self.rules.deck_counts(self.n)
        for r in ORDERED_RANKS:
            if up and up[0] == r and order[0] == me:
                return me               # the first card dealt: nobody was dealt one before
            if deck[r] > mine[r]:
                return None             # someone else may have been dealt one face up
            if not mine[r]:
                continue                # nobody has one
            if up is not None and r in up:
                return me               # dealt face up to the user: the only copies
            if s.hands[me][r]:
                return me               # dealt face up or not, the user has one in hand
            if up is None:
                return None             # laid face up: dealt so, or swapped? unknown
        return None

    # -- names and parsing ----------------------------------------------------------------
    def name(self, p: int) -> str:
        return "you" if p == self.me else self.names[p]

    def player(self, word: str) -> int | None:
        """The seat named ``word`` (``me`` is the user), or None."""
        return player_seat(word, self.names, self.me)

    def parse_event(self, line: str) -> Event:
        """The event a line names (:func:`palace_solver.live.events.parse_event`), cards
        read by the session's rules.

        :raises LiveError: for a line that is not an event.
        """
        return parse_event(line, self.names, self.me, self.rules)

    # -- events ---------------------------------------------------------------------------
    def apply(self, line: str) -> Reply:
        """Apply one event line; the state changes only when it is accepted.

        :raises LiveError: for a line that is not an event or an event that cannot happen.
        """
        kind, p, payload = self.parse_event(line)
        if kind == "burn":
            if self._last_burn_at == len(self.events) and self.events:
                return Reply(True, "yes: the pile burned")
            raise LiveError("no burn: the last event did not burn the pile"
                            if self.events else "no burn: nothing has been played yet")
        if kind == "out":
            if self.state.out[p]:
                return Reply(True, f"yes: {self.name(p)} {'are' if p == self.me else 'is'} out")
            raise LiveError(f"{self.name(p)} still {'have' if p == self.me else 'has'} "
                            f"{_plural(self.state.cards_left(p), 'card')}")
        s = self.state.clone()
        first_open = self.first_open
        if kind == "layout":
            text, msg = self._layout(s, p, payload)
            if not self.waiting_layouts_of(s):
                first_open, note = self._start_play(s)
                msg += "; " + note
        elif self.in_layout():
            raise LiveError(f"the face-up cards come first: {self.waiting_for()}")
        elif kind == "first":
            if not first_open:
                raise LiveError(f"the first player is already known: "
                                f"{self.name(self.state.to_move)}" if not self.events else
                                "the game has started")
            s.to_move = p
            first_open = False
            text, msg = f"first {self.names[p]}", f"{self.name(p)} play{'' if p == self.me else 's'} first"
        elif kind == "start":
            if not (s.is_chance() and s.pending[0] == "start"):
                raise LiveError("no start card is expected now")
            if not s.pool[payload]:
                raise LiveError(f"the start card cannot be {_a(payload)}: "
                                f"every {rank_name(payload)} is seen")
            s.apply(payload)
            if s.is_chance():
                msg = f"the start card {rank_name(payload)} burns: enter the next one"
            else:
                s.to_move = self.setup.first if self.setup.first is not None \
                    else self._left_of_dealer()
                msg = (f"start card {rank_name(payload)}; {self.name(s.to_move)} "
                       f"play{'' if s.to_move == self.me else 's'} first")
            text = f"start {rank_name(payload)}"
        elif kind == "draw":
            text, msg = self._draw(s, payload)
        else:
            if first_open:
                if p is None:
                    raise LiveError("who plays first is not known yet: name the player "
                                    "(e.g. 'bob 3') or say 'first NAME'")
                s.to_move = p
                first_open = False
            text, msg = self._move(s, p, payload)
        self._undo.append((self.state, self.first_open, self._last_burn_at))
        self.state, self.first_open = s, first_open
        self.events.append(text)
        if sum(s.burned) > sum(self._undo[-1][0].burned):
            self._last_burn_at = len(self.events)
        try:
            self.autosave()
        except OSError as e:
            # Not on disk, so not accepted: the session stays as the file says.
            self.state, self.first_open, self._last_burn_at = self._undo.pop()
            self.events.pop()
            raise LiveError(f"cannot save the session ({e.strerror or e}): "
                            f"{text!r} is not recorded") from None
        return Reply(True, msg, event=text)

    def waiting_layouts_of(self, s: State) -> list[int]:
        return [p for p in range(self.n) if sum(s.face_up[p]) == 0] \
            if s.phase == LAYOUT_PHASE else []

    def _layout(self, s: State, p: int, cards: list[int]) -> tuple[str, str]:
        """``p`` lays ``cards`` face up at the deal."""
        z = self.rules.zone_size
        if s.phase != LAYOUT_PHASE:
            raise LiveError("the face-up cards are laid out at the deal; play has started"
                            if self.setup.deal is not None else
                            "the face-up cards were given at the start (--up)")
        who = self.name(p)
        if sum(s.face_up[p]) > 0:
            raise LiveError(f"{self.name(p)}{' have' if p == self.me else ' has'} laid out "
                            f"{_cards(ranks_of(s.face_up[p]))} already ('undo' to change)")
        if len(cards) != z:
            raise LiveError(f"{who} lay{'' if p == self.me else 's'} {z} cards face up, "
                            f"not {len(cards)}")
        want = counts_of(cards)
        if p == self.me:
            for r in RANKS:
                if want[r] > s.hands[p][r]:
                    raise LiveError(f"you were dealt {_plural(s.hands[p][r], rank_name(r))}, "
                                    f"not {want[r]} (your cards: "
                                    f"{_cards(ranks_of(s.hands[p]))})")
                s.hands[p][r] -= want[r]
                s.face_up[p][r] += want[r]
            return (f"{self.names[p]} up {_cards(sorted(cards))}",
                    f"you lay {_cards(sorted(cards))} face up; your hand: "
                    f"{_cards(ranks_of(s.hands[p]))}")
        for r in RANKS:
            if want[r] > s.pool[r]:
                raise LiveError(f"{self.names[p]} cannot lay {_count_of(want[r], r)} face up: "
                                f"only {s.pool[r]} of the {self.rules.deck_counts(self.n)[r]} "
                                f"{rank_name(r)}s are unseen")
        for r in RANKS:
            s.pool[r] -= want[r]
            s.face_up[p][r] += want[r]
        s.hands[p][UNKNOWN] = z
        return (f"{self.names[p]} up {_cards(sorted(cards))}",
                f"{self.names[p]} lays {_cards(sorted(cards))} face up")

    def try_apply(self, line: str) -> Reply:
        """:meth:`apply`, with a refusal as a reply (``ok`` False, the one-line reason)
        instead of an exception; nothing changes then."""
        try:
            return self.apply(line)
        except LiveError as e:
            return Reply(False, str(e))

    def _check_turn(self, s: State, p: int | None) -> int:
        if s.is_terminal():
            raise LiveError("the game is over")
        if s.is_chance():
            kind, q, k = s.pending
            if kind == "start":
                raise LiveError("first enter the start card, e.g. 'start 5'")
            if kind == "draw" and q == self.me:
                raise LiveError(f"first enter the {_plural(k, 'card')} you drew, "
                                f"e.g. 'draw {' '.join(['7'] * k)}'")
            raise LiveError(f"waiting for a {kind}")  # pragma: no cover - never pending
        if p is None:
            return s.to_move
        if s.out[p]:
            raise LiveError(f"{self.name(p)} {'are' if p == self.me else 'is'} out")
        if p != s.to_move:
            raise LiveError(f"it is {self.name(s.to_move)}'s turn, not "
                            f"{'yours' if p == self.me else self.names[p] + chr(39) + 's'}"
                            if s.to_move != self.me else
                            f"it is your turn, not {self.names[p]}'s")
        return p

    def _move(self, s: State, p: int | None, move) -> tuple[str, str]:
        p = self._check_turn(s, p)
        who = self.name(p)
        src = s.source(p)
        before = s.clone()
        if isinstance(move, tuple):  # ("flip", rank)
            r = move[1]
            if src != FACE_DOWN:
                raise LiveError(f"{who} cannot flip: {who} still "
                                f"{'have' if p == self.me else 'has'} "
                                f"{'hand' if src == HAND else 'face-up'} cards")
            if not s.pool[r]:
                raise LiveError(f"the flip cannot be {_a(r)}: all "
                                f"{s.rules.deck_counts(s.n)[r]} are seen")
            legal = s.playable(r)
            s.apply(Move.flip())
            s.apply(r)
            text = f"{self.names[p]} flip {rank_name(r)}"
            msg = f"{who} flip{'' if p == self.me else 's'} {rank_name(r)}" + (
                "" if legal else " and cannot play it")
            return text, self._after(s, before, p, msg, Move.flip())
        if src == FACE_DOWN:
            raise LiveError(f"{who} {'play' if p == self.me else 'plays'} from the face-down "
                            f"cards: enter the card turned up, e.g. "
                            f"'{self.names[p]} flip 9'")
        counts = s.hands[p] if src == HAND else s.face_up[p]
        if move.kind == PLAY:
            r, k = move.rank, move.count
            if not s.playable(r):
                raise LiveError(f"{rank_name(r)} cannot be played on the pile "
                                f"({self.pile_note(s)})")
            if src == FACE_UP:
                if counts[r] < k:
                    raise LiveError(f"{who} {'have' if p == self.me else 'has'} "
                                    f"{_plural(counts[r], 'face-up ' + rank_name(r))}, "
                                    f"not {k}")
            elif p == self.me:
                if counts[r] < k:
                    raise LiveError(f"you hold {_plural(counts[r], rank_name(r))}, not {k} "
                                    f"(your hand: {_cards(ranks_of(counts))})")
            else:
                self._reveal(s, p, r, k)
        else:  # pickup
            if not s.pile:
                raise LiveError("the pile is empty: there is nothing to pick up")
            if move.rank and src == HAND:
                raise LiveError(f"{who} {'play' if p == self.me else 'plays'} from the hand: "
                                f"a pickup is just 'pickup'")
            if src == FACE_UP and not move.rank and not s.rules.easy_table_pickup:
                raise LiveError(f"from the face-up stage, name the face-up card laid first, "
                                f"e.g. '{self.names[p]} pickup "
                                f"{rank_name(ranks_of(counts)[0])}'")
            if src == FACE_UP and move.rank and s.rules.easy_table_pickup:
                move = Move.pickup()
            if move.rank and not counts[move.rank]:
                raise LiveError(f"{who} {'have' if p == self.me else 'has'} no face-up "
                                f"{rank_name(move.rank)}")
        try:
            s.apply(move)
        except IllegalMoveError:
            raise LiveError(self._why_illegal(before, p, move)) from None
        verb = {PLAY: "play", PICKUP: "pick"}[move.kind]
        if move.kind == PLAY:
            msg = f"{who} {verb}{'' if p == self.me else 's'} {move}"
            if src == FACE_UP:
                msg += " from the face-up cards"
        else:
            msg = f"{who} {verb}{'' if p == self.me else 's'} up the pile"
        return f"{self.names[p]} {move}", self._after(s, before, p, msg, move)

    def _reveal(self, s: State, p: int, r: int, k: int) -> None:
        """An opponent plays ``k`` cards of rank ``r`` from the hand: unknown hand cards
        become the copies not known to be there."""
        hand = s.hands[p]
        need = k - hand[r]
        if need <= 0:
            return
        nm, what = self.names[p], _count_of(k, r)
        if need > hand[UNKNOWN]:
            known = ranks_of([0] + hand[1:])
            if not hand[UNKNOWN]:
                raise LiveError(f"{nm} cannot play {what}: every card in {nm}'s hand is known "
                                f"({_cards(known)}) and "
                                + (f"only {_number(hand[r])} is a {rank_name(r)}" if hand[r]
                                   else f"none is {_a(r)}"))
            raise LiveError(f"{nm} cannot play {what}: {nm}'s hand has "
                            f"{_plural(sum(hand), 'card')} ("
                            + (f"{_count_of(hand[r], r)} known" if hand[r] else
                               f"no known {rank_name(r)}")
                            + f", {hand[UNKNOWN]} unknown)")
        if not s.pool[r] and not hand[r]:
            raise LiveError(f"{nm} cannot hold {_a(r)}: every {rank_name(r)} "
                            f"is seen elsewhere")
        if need > s.pool[r]:
            deck = s.rules.deck_counts(s.n)[r]
            raise LiveError(f"{nm} cannot have {what}: only {s.pool[r] + hand[r]} of the "
                            f"{deck} {rank_name(r)}s can be in that hand "
                            f"({s.pool[r]} unseen" + (f", {hand[r]} known there)" if hand[r]
                                                      else ")"))
        hand[UNKNOWN] -= need
        hand[r] += need
        s.pool[r] -= need

    def _why_illegal(self, s: State, p: int, move: Move) -> str:
        if move.kind == PICKUP and s.rules.must_play:
            return (f"{self.name(p)} must play (must_play): a legal card is known to be "
                    f"in that hand")
        return f"{move} is not a legal move for {self.name(p)} now"

    def _draw(self, s: State, cards: list[int]) -> tuple[str, str]:
        if not (s.is_chance() and s.pending[0] == "draw" and s.pending[1] == self.me):
            raise LiveError("you have nothing to draw now")
        k = s.pending[2]
        if len(cards) > k:
            raise LiveError(f"you draw {_plural(k, 'card')}, not {len(cards)}")
        left = s.pool[:]
        for r in cards:
            if not left[r]:
                raise LiveError(f"you cannot draw {_a(r)}: every "
                                f"{rank_name(r)} is seen")
            left[r] -= 1
        for r in cards:
            s.apply(r)
        msg = f"you draw {_cards(cards)}"
        if s.is_chance() and s.pending[0] == "draw":
            msg += f"; {_plural(s.pending[2], 'more card')} to enter"
        return "draw " + _cards(cards), msg + self._turn_note(s)

    def _after(self, s: State, before: State, p: int, msg: str, move: Move) -> str:
        """Settle the others' refills; describe burns, pickups, players out, the next turn."""
        notes = []
        if sum(s.burned) > sum(before.burned) and not (move.kind == PICKUP):
            notes.append("the pile burns")
            if s.to_move == p and not s.out[p] and not s.is_chance():
                notes.append(f"{self.name(p)} play{'' if p == self.me else 's'} again")
        if move.kind == PICKUP or (move.kind == FLIP and not before.playable(
                _flipped(before, s))):
            got = [r for r in RANKS for _ in range(max(0, s.hands[p][r] - before.hands[p][r]))]
            notes.append(f"{self.name(p)} take{'' if p == self.me else 's'} "
                         f"{_plural(len(got), 'card')}: {_cards(got)}")
        while s.is_chance() and s.pending[0] == "draw" and s.pending[1] != self.me:
            _, q, k = s.pending
            s.draw_pile -= k
            s.hands[q][UNKNOWN] += k
            s.pending = None
            s.to_move = s.next_after
            notes.append(f"{self.names[q]} draws {k} (draw pile {s.draw_pile})")
        for q in s.out_order[len(before.out_order):]:
            notes.append(f"{self.name(q)} {'are' if q == self.me else 'is'} out "
                         f"({ordinal(s.out_order.index(q) + 1)})")
        if s.is_chance() and s.pending[0] == "draw":
            k = s.pending[2]
            notes.append(f"you draw {k}: enter {'it' if k == 1 else 'them'}, "
                         f"e.g. 'draw {' '.join(['7'] * k)}'")
        return "; ".join([msg] + notes) + self._turn_note(s)

    def _turn_note(self, s: State, first_open: bool = False) -> str:
        if first_open:
            return ". Who plays first is not known yet: the first play tells (or 'first NAME')"
        if s.phase == LAYOUT_PHASE:
            return ""
        if s.is_terminal():
            losers = [q for q in range(s.n) if s.loss[q] == 1]
            if losers:
                return f". Game over: {self.name(losers[0])} lose" + (
                    "" if losers[0] == self.me else "s")
            return ". Game over"
        if s.is_chance():
            return ""
        return f". {'Your' if s.to_move == self.me else self.names[s.to_move] + chr(39) + 's'} turn"

    def pile_note(self, s: State) -> str:
        """What the pile asks for: ``top 7; a 7 or higher, a 2 or a 10 is needed``."""
        eff = s.effective_top()
        if eff is None:
            return "the pile is empty"
        low = " or lower" if s.rules.low_rank(eff) else " or higher"
        return f"top {rank_name(s.pile[-1])}; a {rank_name(eff)}{low}, a 2 or a 10 is needed"

    # -- undo -----------------------------------------------------------------------------
    def undo(self, k: int = 1) -> Reply:
        """Take back the last ``k`` events.

        :raises LiveError: when there are fewer.
        """
        if k < 1:
            raise LiveError("undo how many? at least 1")
        if k > len(self._undo):
            raise LiveError(f"nothing to undo" if not self._undo else
                            f"only {_plural(len(self._undo), 'event')} to undo")
        gone = []
        for _ in range(k):
            self.state, self.first_open, self._last_burn_at = self._undo.pop()
            gone.append(self.events.pop())
        self.autosave()
        return Reply(True, "undone: " + ", ".join(gone)
                     + self._turn_note(self.state, self.first_open))

    # -- save / resume --------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"format": SESSION_FORMAT, "setup": self.setup.to_json(),
                **({"settings": dict(self.settings)} if self.settings else {}),
                "events": list(self.events)}

    def save(self, path: str | None = None) -> str:
        """Write the session to ``path`` (default: the session's file) atomically: a
        temporary file in the same directory, flushed and renamed over the old one."""
        path = path or self.path
        if path is None:
            raise LiveError("no session file: say 'save FILE'")
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".palace-live-", suffix=".tmp", dir=d)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.to_json(), f, indent=1)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return path

    def set(self, key: str, value) -> None:
        """Keep a setting with the game (saved at once when the session has a file)."""
        old = self.settings.get(key)
        self.settings[key] = value
        try:
            self.autosave()
        except OSError:
            if old is None:
                del self.settings[key]
            else:
                self.settings[key] = old
            raise

    def autosave(self) -> None:
        if self.path is not None:
            self.save()

    @classmethod
    def from_json(cls, obj: dict, path: str | None = None) -> "Session":
        """Replay a saved session.

        :raises LiveError: for a file that is not a session or an event that no longer
            applies.
        """
        if not isinstance(obj, dict) or obj.get("format") != SESSION_FORMAT:
            raise LiveError("not a palace live session file")
        s = cls(Setup.from_json(obj["setup"]))
        settings = obj.get("settings") or {}
        if not isinstance(settings, dict):
            raise LiveError("bad session settings")
        s.settings.update(settings)
        for i, ev in enumerate(obj.get("events", [])):
            try:
                s.apply(ev)
            except LiveError as e:
                raise LiveError(f"event {i + 1} {ev!r} of the session: {e}") from None
        s.path = path
        return s

    @classmethod
    def load(cls, path: str) -> "Session":
        """:raises LiveError: for an unreadable or malformed file."""
        try:
            with open(path, encoding="utf-8") as f:
                obj = json.load(f)
        except (OSError, ValueError) as e:
            raise LiveError(f"cannot read session {path!r}: {e}") from None
        return cls.from_json(obj, path)

    # -- what the user knows --------------------------------------------------------------
    def known_hand(self, p: int) -> list[int]:
        """The cards of ``p``'s hand that the user knows (all of the user's own)."""
        return ranks_of(self.state.hands[p])

    def hand_count(self, p: int) -> int:
        return sum(self.state.hands[p])

    def unseen(self) -> list[int]:
        """Counts per rank of the cards the user has not seen (draw pile, face-down cards,
        the others' unknown hand cards)."""
        c = self.state.pool[:]
        c[UNKNOWN] = 0
        return c

    def at_decision(self) -> bool:
        s = self.state
        return s.phase == PLAY_PHASE and not s.is_chance() and not s.is_terminal() \
            and not self.first_open

    def position(self) -> Position:
        """The position seen from the user's seat (players out left out, perspective the
        user). Only at a decision node.

        :raises LiveError: when the game waits for a draw or a start card, is over, or the
            first player is not known.
        """
        if not self.at_decision():
            raise LiveError(self.waiting_for())
        return self._position_of(self.state)

    def history(self) -> list[Position]:
        """The decision positions the game has been through and can still come back to
        (the current one included), each as the user saw it then, oldest first: the hint's
        search scores reaching one again as a draw (a repeated position ends the game:
        RULES.md); :meth:`State.stretch` says which can come back."""
        now = self.state
        tag = now.stretch()
        out = []
        for s, first_open in [(u[0], u[1]) for u in self._undo] + [(now, self.first_open)]:
            if s.phase == PLAY_PHASE and not s.is_chance() and not s.is_terminal() \
                    and not first_open and s.stretch() == tag:
                out.append(self._position_of(s))
        return out

    def _position_of(self, s: State) -> Position:
        seats = [p for p in range(s.n) if not s.out[p]]
        idx = {p: i for i, p in enumerate(seats)}
        rules = s.rules
        if len(seats) < s.n:
            # A position has no seats for players out, and the deck follows the seat count.
            if rules.jokers:
                raise LiveError("a jokers game with a player out cannot be written as a "
                                "position (the jokers variant needs exactly 6 players)")
            if rules.decks(s.n) == 2 and rules.decks(len(seats)) == 1:
                rules = replace(rules, two_decks=True)
        players = [PlayerPosition(self.names[p], ranks_of(s.hands[p]), sum(s.hands[p]),
                                  ranks_of(s.face_up[p]), s.face_down[p]) for p in seats]
        last = s.last_player if s.rules.back_to_last_player else None
        pos = Position(rules=rules, players=players, pile=list(s.pile),
                       burned=ranks_of(s.burned), draw_pile=s.draw_pile,
                       to_move=idx[s.to_move],
                       perspective=idx.get(self.me),
                       direction=s.direction if s.n > 2 else 1,
                       last_player=idx.get(last) if last is not None else None)
        return pos.validate()

    def seats_in_position(self) -> list[int]:
        return [p for p in range(self.n) if not self.state.out[p]]

    def waiting_for(self) -> str:
        """Why the session is not at a decision (what it waits for)."""
        s = self.state
        if s.is_terminal():
            return "the game is over"
        if s.phase == LAYOUT_PHASE:
            wait = self.waiting_layouts()
            others = [self.names[p] for p in wait if p != self.me]
            who = (["you"] if self.me in wait else []) + others
            eg = ([f"'up {' '.join(['10', 'A', 'K', 'Q'][:self.rules.zone_size])}' for yours"]
                  if self.me in wait else []) + ([f"'{others[0]} up 5 9 J'"] if others else [])
            return ("waiting for the face-up cards of "
                    + (" and ".join(who) if len(who) < 3 else
                       ", ".join(who[:-1]) + " and " + who[-1]) + f" ({', '.join(eg)})")
        if self.first_open:
            return "who plays first is not known yet: the first play tells (or 'first NAME')"
        if s.is_chance():
            kind, q, k = s.pending
            if kind == "start":
                return "waiting for the start card ('start 5')"
            return f"waiting for the {_plural(k, 'card')} you drew ('draw ...')"
        return "not at a decision"

    def summary(self) -> dict:
        """The record as JSON-able data: ``phase`` (``layout``, ``play``, ``over``),
        ``to_move`` (a name, or None when the session waits: ``waiting`` says for what),
        ``players`` (name, you, laid_out, hand_count, hand_known, face_up, face_down, out),
        ``pile``, ``burned`` (a count), ``draw_pile``, ``unseen`` (rank: count),
        ``direction``, ``events`` (a count), ``over`` and, once over, ``loss``; at the
        layout phase ``dealt``, the user's cards as dealt."""
        s = self.state
        players = []
        for p in range(s.n):
            players.append({"name": self.names[p], "you": p == self.me,
                            "laid_out": self.laid_out(p),
                            "hand_count": sum(s.hands[p]),
                            "hand_known": [rank_name(r) for r in ranks_of(s.hands[p])],
                            "face_up": [rank_name(r) for r in ranks_of(s.face_up[p])],
                            "face_down": s.face_down[p], "out": s.out[p]})
        unseen = self.unseen()
        out = {"phase": "over" if s.is_terminal() else s.phase,
               "to_move": self.names[s.to_move] if self.at_decision() else None,
               "players": players, "pile": [rank_name(r) for r in s.pile],
               "burned": sum(s.burned), "draw_pile": s.draw_pile,
               "unseen": {rank_name(r): unseen[r] for r in RANKS if unseen[r]},
               "direction": s.direction, "events": len(self.events),
               "waiting": None if self.at_decision() else self.waiting_for(),
               "over": s.is_terminal()}
        if s.is_terminal():
            out["loss"] = [float(x) for x in s.loss]
        if self.setup.deal is not None:
            out["dealt"] = [rank_name(r) for r in self.setup.deal]
        return out

    # -- suggestions ----------------------------------------------------------------------
    def hint(self, time_budget: float = 2.0, seed: int = 0, hard_limit: float | None = None,
             engine: str | None = None, cancel=None, on_start=None) -> dict:
        """Suggestions as data: for the player to move (:func:`palace_solver.live.hints.hint`
        of :meth:`position`), or at the layout phase for the user's face-up cards
        (:func:`palace_solver.live.hints.layout_hint`). A dict with ``ok``, ``message`` and,
        when ok, ``moves`` best first (see those functions); ``cancel`` (a
        :class:`threading.Event`) stops the analysis early, as Ctrl-C does;
        ``on_start(seconds)`` is called when an analysis starts (a forced move needs none).

        :raises LiveError: when the game is not at a decision or a layout.
        """
        if self.in_layout():
            s = self.state
            if not s.hands[self.me] or sum(s.face_up[self.me]):
                raise LiveError(f"your face-up cards are laid; {self.waiting_for()}")
            others = [ranks_of(s.face_up[p]) for p in range(self.n) if p != self.me]
            return hints.layout_hint(self.rules, self.n, self.me, list(self.setup.deal),
                                     others, time_budget, seed=seed, hard_limit=hard_limit,
                                     name=self.names[self.me], cancel=cancel,
                                     on_start=on_start)
        return hints.hint(self.position(), time_budget, seed=seed, hard_limit=hard_limit,
                          engine=engine, cancel=cancel, on_start=on_start,
                          history=self.history())


def _flipped(before: State, after: State) -> int:
    """The rank a flip turned up: the one that left the unseen pool."""
    for r in RANKS:
        if after.pool[r] < before.pool[r]:
            return r
    return 0  # pragma: no cover


def _a(r: int) -> str:
    """``a 7``, ``an 8``, ``an A``."""
    return ("an " if r in (8, 14) else "a ") + rank_name(r)


_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
            8: "eight", 9: "nine", 10: "ten"}


def _number(k: int) -> str:
    return _NUMBERS.get(k, str(k))


def _count_of(k: int, r: int) -> str:
    """``a 3``, ``an 8``, ``two 3s``: the card and the count."""
    return _a(r) if k == 1 else f"{_number(k)} {rank_name(r)}s"


def ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")

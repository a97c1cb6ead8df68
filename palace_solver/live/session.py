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

from ..game.cards import NRANK, ORDERED_RANKS, RANKS, parse_rank, rank_name, ranks_of
from ..game.moves import FLIP, PICKUP, PLAY, IllegalMoveError, Move
from ..game.position import PlayerPosition, Position
from ..game.rules import Rules, RulesError
from ..game.state import FACE_DOWN, FACE_UP, HAND, PLAY_PHASE, State
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
        seen = set()
        for i, nm in enumerate(self.names):
            key = nm.lower()
            if not nm or any(c.isspace() for c in nm):
                raise LiveError(f"bad player name {nm!r}: one word, please")
            if key in RESERVED and not (key == "me" and i == self.me):
                raise LiveError(f"{nm!r} cannot be a player name (it is a command word)")
            if key in seen:
                raise LiveError(f"two players named {nm!r}")
            if is_card(nm):
                raise LiveError(f"{nm!r} cannot be a player name (it reads as a card)")
            seen.add(key)
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
        for r in RANKS:
            if seen_c[r] > deck[r]:
                raise LiveError(f"{seen_c[r]} cards of rank {rank_name(r)} seen "
                                f"(the deck has {deck[r]})")
        return self

    def to_json(self) -> dict:
        return {"names": list(self.names), "me": self.me, "rules": self.rules.to_json(),
                "hand": [rank_name(r) for r in self.hand],
                "face_up": [[rank_name(r) for r in up] for up in self.face_up],
                "dealer": self.dealer, "first": self.first,
                **({"position": self.position.to_json()} if self.position is not None else {})}

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
                       else None).validate()
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, LiveError):
                raise
            raise LiveError(f"bad session setup: {e}") from None


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
        """Rule 3 from what the user sees, or None when unseen hands could decide it."""
        order = self._dealing_order()
        for r in ORDERED_RANKS:
            for p in order:
                if s.face_up[p][r]:
                    return p
            for p in order:
                if p == self.me and s.hands[p][r]:
                    return p
                if p != self.me and s.pool[r]:
                    return None
        return None

    # -- names and parsing ----------------------------------------------------------------
    def name(self, p: int) -> str:
        return "you" if p == self.me else self.names[p]

    def player(self, word: str) -> int | None:
        """The seat named ``word`` (``me`` is the user), or None."""
        return player_seat(word, self.names, self.me)

    def parse_event(self, line: str) -> Event:
        """The event a line names (:func:`palace_solver.live.events.parse_event`).

        :raises LiveError: for a line that is not an event.
        """
        return parse_event(line, self.names, self.me)

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
        if kind == "first":
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
        self.autosave()
        return Reply(True, msg, event=text)

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
        if need > hand[UNKNOWN]:
            known = f"{_plural(hand[r], rank_name(r))} known" if hand[r] else "no known " \
                + rank_name(r)
            raise LiveError(f"{self.names[p]} cannot play {k}: {known} and "
                            f"{_plural(hand[UNKNOWN], 'unknown card')} in hand")
        if not s.pool[r] and not hand[r]:
            raise LiveError(f"{self.names[p]} cannot hold {_a(r)}: every {rank_name(r)} "
                            f"is seen elsewhere")
        if need > s.pool[r]:
            deck = s.rules.deck_counts(s.n)[r]
            raise LiveError(f"{self.names[p]} cannot have {_plural(k, rank_name(r))}: "
                            f"only {s.pool[r] + hand[r]} of the {deck} can be in that hand "
                            f"({s.pool[r]} unseen)")
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

    def _turn_note(self, s: State) -> str:
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
        return Reply(True, "undone: " + ", ".join(gone) + self._turn_note(self.state))

    # -- save / resume --------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"format": SESSION_FORMAT, "setup": self.setup.to_json(),
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
        s = self.state
        if not self.at_decision():
            raise LiveError(self.waiting_for())
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
        if self.first_open:
            return "who plays first is not known yet"
        if s.is_chance():
            kind, q, k = s.pending
            if kind == "start":
                return "waiting for the start card ('start 5')"
            return f"waiting for the {_plural(k, 'card')} you drew ('draw ...')"
        return "not at a decision"

    def summary(self) -> dict:
        """A JSON-able summary of the record."""
        s = self.state
        players = []
        for p in range(s.n):
            players.append({"name": self.names[p], "you": p == self.me,
                            "hand_count": sum(s.hands[p]),
                            "hand_known": [rank_name(r) for r in ranks_of(s.hands[p])],
                            "face_up": [rank_name(r) for r in ranks_of(s.face_up[p])],
                            "face_down": s.face_down[p], "out": s.out[p]})
        unseen = self.unseen()
        out = {"to_move": None if (s.is_chance() or s.is_terminal() or self.first_open)
               else self.names[s.to_move],
               "players": players, "pile": [rank_name(r) for r in s.pile],
               "burned": sum(s.burned), "draw_pile": s.draw_pile,
               "unseen": {rank_name(r): unseen[r] for r in RANKS if unseen[r]},
               "direction": s.direction, "events": len(self.events),
               "waiting": None if self.at_decision() else self.waiting_for(),
               "over": s.is_terminal()}
        if s.is_terminal():
            out["loss"] = [float(x) for x in s.loss]
        return out

    # -- suggestions ----------------------------------------------------------------------
    def hint(self, time_budget: float = 2.0, seed: int = 0, hard_limit: float | None = None,
             engine: str | None = None) -> dict:
        """Suggestions for the player to move (:func:`palace_solver.live.hints.hint` of
        :meth:`position`): a dict with ``ok``, ``message`` and, when ok, ``moves``.

        :raises LiveError: when the game is not at a decision.
        """
        return hints.hint(self.position(), time_budget, seed=seed, hard_limit=hard_limit,
                          engine=engine)


def _flipped(before: State, after: State) -> int:
    """The rank a flip turned up: the one that left the unseen pool."""
    for r in RANKS:
        if after.pool[r] < before.pool[r]:
            return r
    return 0  # pragma: no cover


def _a(r: int) -> str:
    """``a 7``, ``an 8``, ``an A``."""
    return ("an " if r in (8, 14) else "a ") + rank_name(r)


def ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")

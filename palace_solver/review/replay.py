"""Replaying a game record: whether it can happen, and the game as each seat knew it.

Why two kinds of view. A record says what the record's writer knew: a program's record
every card, a ``palace live`` export one seat's. The *record's view* (every seat whose
cards the record holds, :attr:`Replay.visible`) checks the record: a card played that
cannot be there, an illegal move, a draw that does not match the draw pile, a wrong count
are refused as :class:`~palace_solver.game.record.RecordError` naming the line. A *seat's
view* is what that seat knew at each moment: its own cards, the table, the face-up cards as
dealt (public: they are dealt face up, so the cards swapped into a hand are known), every
card that was played or picked up, and nothing of the others' refills or the face-down
cards. A review judges a decision from the mover's view only, never with hindsight.

All views are :class:`~palace_solver.game.state.State` objects seen from a seat
(:mod:`palace_solver.game.view`: unknown hand cards at ``UNKNOWN``, the unseen pool), so the
rules engine plays every rule; the replay only fills in what a view cannot see. Events are
read with the words of ``palace live`` (:func:`palace_solver.live.events.parse_event`),
plus ``NAME draw CARDS`` for the refills of a seat the record knows.

Imports the model, :mod:`palace_solver.live.events` and :mod:`palace_solver.live.setup`
(names).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..game.cards import ORDERED_RANKS, RANKS, counts_of, rank_name, ranks_of
from ..game.moves import FLIP, PICKUP, PLAY, Move
from ..game.position import InvalidPositionError, Position
from ..game.record import Record, RecordError
from ..game.state import FACE_DOWN, HAND, PLAY_PHASE, State
from ..game.view import (
    UNKNOWN,
    NoPositionError,
    is_decision,
    reveal,
    seat_position,
    seat_state,
    settle_refills,
    stretch,
)
from ..live.events import LiveError, parse_cards, parse_event
from ..live.setup import check_names

__all__ = ["Decision", "Replay", "replay"]

_DRAW_WORDS = ("draw", "draws", "drew")


@dataclass
class Decision:
    """One decision of the game: ``ply`` (1-based, every seat's decisions counted),
    ``player`` (seat), ``move`` as played, ``legal`` the legal moves, ``line`` / ``event``
    where the record says it, ``draw_pile`` before the move; ``views[seat]`` the position
    as that seat saw it then (for the seats the record knows), ``truth`` the position with
    every hand the record knows (all of them in a full record)."""

    ply: int
    player: int
    move: Move
    legal: list
    line: int
    event: str
    draw_pile: int
    views: dict = field(default_factory=dict)
    truth: Position | None = None
    #: per seat: the positions it had seen before this one (this one included) that this
    #: one can come back to, oldest first: the ``history`` of its analysis
    histories: dict = field(default_factory=dict)
    truth_history: list = field(default_factory=list)

    @property
    def forced(self) -> bool:
        return len(self.legal) <= 1


@dataclass
class Replay:
    """A record replayed: its decisions, the seats it knows (``visible``), the game's end
    (``loss`` when over, else None) and the first ply played with an empty draw pile."""

    record: Record
    decisions: list[Decision]
    visible: list[int]
    over: bool
    loss: list | None
    draw_empty_ply: int | None
    final: State | None            # None: the record stops before play begins

    @property
    def names(self) -> list[str]:
        return list(self.record.seats)


class _Refused(Exception):
    """A refusal inside the replay, turned into a RecordError with the line."""


class _Header(_Refused):
    """A refusal of a header line (``key``)."""

    def __init__(self, key: str, msg: str):
        super().__init__(msg)
        self.key = key


def _err(msg: str) -> _Refused:
    return _Refused(msg)


# -- the start ------------------------------------------------------------------------------

def _visible(rec: Record) -> list[int]:
    if rec.start == "position":
        return [i for i, p in enumerate(rec.position.players) if p.hand_fully_known]
    out = []
    for i, d in enumerate(rec.deal):
        zones = [d.together] if d.together is not None else [d.hand, d.face_up]
        if all(c is not None for z in zones for c in z):
            out.append(i)
    return out


def _dealing_order(rec: Record) -> list[int]:
    n = rec.n
    dealer = rec.dealer if rec.dealer is not None else n - 1
    return [(dealer + 1 + i) % n for i in range(n)]


def _first_by_rule(rec: Record, hands, ups) -> int | None:
    """Rule 3 from what the record knows: ``ups[p]`` the face-up cards as dealt in order
    (None: unknown; under ``choose_face_up`` the cards laid), ``hands[p]`` the hand counts
    after the swap (None: unknown). None when an unknown card could decide."""
    order = _dealing_order(rec)
    z = rec.rules.zone_size
    for r in ORDERED_RANKS:
        if rec.rules.choose_face_up:
            for p in order:
                if ups[p] is None:
                    return None
                if r in ups[p]:
                    return p
        else:
            for k in range(z):
                for p in order:
                    if ups[p] is None:
                        return None
                    if k < len(ups[p]) and ups[p][k] == r:
                        return p
        for p in order:
            if hands[p] is None:
                return None
            if hands[p][r]:
                return p
    return None


class _Game:
    """The replay's state: the record's view and the seats' views, moved event by event."""

    def __init__(self, rec: Record):
        self.rec = rec
        self.rules = rec.rules
        self.n = rec.n
        self.names = list(rec.seats)
        self.visible = _visible(rec)
        self.me = rec.viewer if rec.viewer is not None else -1
        if rec.draw_pile is not None and any(c is not None for c in rec.draw_pile) \
                and len(self.visible) < self.n:
            raise _Header("draw pile", "a draw pile in order needs every seat's cards")
        z = self.rules.zone_size
        self.z = z
        # The record's knowledge of the cards not yet seen by anyone.
        self.stock = list(rec.draw_pile) if rec.draw_pile is not None else None
        self.downs = [list(d.face_down) for d in rec.deal] if rec.deal else \
            [[None] * p.face_down for p in rec.position.players]
        self.layout = rec.start == "deal"
        self.laid: dict[int, list[int]] = {}
        self.first = rec.first
        self.first_open = False
        self.states: dict = {}       # view -> State; view "R" is the record's, else a seat
        self.seen_pos: dict = {}     # view -> the decision positions seen so far
        self.pending_draw = None     # (seat, cards left) the record must name
        self.ply = 0
        self.decisions: list[Decision] = []
        self.draw_empty_ply = None
        self.moved = False
        if rec.start == "position":
            self._start_position()
        elif rec.start == "play":
            self._start_play({i: (d.hand, d.face_up, []) for i, d in enumerate(rec.deal)})

    # -- views -------------------------------------------------------------------------------
    def views(self):
        return ["R"] + self.visible

    def sees(self, view, q: int) -> bool:
        """Whether ``view`` sees seat ``q``'s private cards (hand as dealt, refills)."""
        return q in self.visible if view == "R" else view == q

    def _start_position(self):
        pos = self.rec.position
        base = seat_state(pos)
        for v in self.views():
            self.states[v] = base.clone()
            self.seen_pos[v] = []
        self.first = pos.to_move

    def _start_play(self, cards: dict):
        """Play starts: ``cards[p] = (hand, face_up, public)``: the hand as the record knows
        it (None for an unknown card), the face-up cards, and the hand cards every seat
        knows (swapped in from the face-up cards dealt, which everyone saw)."""
        rules, n, z = self.rules, self.n, self.z
        deck = rules.deck_counts(n)
        stock_size = rules.deck_size(n) - 3 * z * n
        for v in self.views():
            s = State(rules, n)
            s.phase = PLAY_PHASE
            pool = deck[:]
            for p in range(n):
                hand, up, public = cards[p]
                for r in up:
                    s.face_up[p][r] += 1
                    pool[r] -= 1
                known = [c for c in hand if c is not None] if v == "R" or v == p else public
                for r in known:
                    s.hands[p][r] += 1
                    pool[r] -= 1
                s.hands[p][UNKNOWN] = len(hand) - len(known)
                s.face_down[p] = z
            pool[UNKNOWN] = 0
            s.pool = pool
            s.draw_pile = stock_size
            self.states[v] = s
            self.seen_pos[v] = []
        R = self.states["R"]
        reserved = self._reserved()
        for r in RANKS:
            if R.pool[r] < reserved[r]:
                raise _err(f"{deck[r] - R.pool[r] + reserved[r]} cards of rank "
                           f"{rank_name(r)} in the record, the deck has {deck[r]}")
        # who plays first
        if rules.start_card and stock_size:
            for s in self.states.values():
                s.pending, s.to_move = ("start", 0, 1), -1
            return
        self._set_first()

    def _set_first(self):
        rules, n = self.rules, self.n
        R = self.states["R"]
        first = self.first
        if not rules.start_card:
            hands = [R.hands[p][:] if not R.hands[p][UNKNOWN] else None for p in range(n)]
            if rules.choose_face_up:
                ups = [ranks_of(R.face_up[p]) for p in range(n)]
            elif self.rec.start == "deal":
                ups = [self._dealt_up(p) for p in range(n)]
            else:
                ups = [None] * n
            by_rule = _first_by_rule(self.rec, hands, ups)
            if first is not None and by_rule is not None and by_rule != first:
                raise _Header("first", f"first: {self.names[first]}, but rule 3 says "
                                       f"{self.names[by_rule]} plays first")
            if first is None:
                first = by_rule
        elif first is None:
            first = _dealing_order(self.rec)[0]
        if first is None:
            self.first_open = True
            first = _dealing_order(self.rec)[0]
        for s in self.states.values():
            s.to_move = first

    def _dealt_up(self, p: int):
        d = self.rec.deal[p]
        if d.together is not None or self.rules.choose_face_up:
            return None if d.together is not None else []
        return None if any(c is None for c in d.face_up) else list(d.face_up)

    # -- the record's knowledge of unseen cards ----------------------------------------------
    def _reserved(self) -> list[int]:
        """Cards the record places in the draw pile or a face-down pile, not yet seen."""
        known = [c for d in self.downs for c in d if c is not None]
        known += [c for c in self.stock or () if c is not None]
        return counts_of(known)

    def _free(self, r: int) -> int:
        """Copies of ``r`` the record has not placed anywhere: what an unknown card can be."""
        return self.states["R"].pool[r] - self._reserved()[r]

    def _take_stock(self, r: int | None) -> int:
        """The next draw-pile card: ``r`` as the record says (None: the draw pile's)."""
        top = self.stock.pop(0) if self.stock else None
        if top is not None:
            if r is not None and r != top:
                raise _err(f"the draw pile's next card is {rank_name(top)}, not {rank_name(r)}")
            return top
        if r is None:
            raise _err("the card drawn is not known")
        if self._free(r) <= 0:
            raise _err(f"no {rank_name(r)} can be in the draw pile: every one is placed")
        return r

    # -- events --------------------------------------------------------------------------------
    def event(self, line: str) -> None:
        words = line.replace(",", " ").split()
        low = [w.lower() for w in words]
        if len(low) >= 2 and low[1] in _DRAW_WORDS:
            q = self._seat_word(words[0])
            return self._draw(q, parse_cards(" ".join(words[2:]), self.rules))
        if low and low[0] in _DRAW_WORDS:
            if self.me < 0:
                raise _err("whose draw? say 'NAME draw CARDS' (this record has no viewer)")
            return self._draw(self.me, parse_cards(" ".join(words[1:]), self.rules))
        ev = parse_event(line, self.names, self.me, self.rules)
        if ev.player == -1:
            raise _err("'me' is the record's viewer, and this record has none")
        kind = ev.kind
        if kind == "layout":
            return self._layout(ev.player, ev.payload)
        if self.layout:
            self._finish_layout()
        if kind == "burn":
            return self._check_burn()
        if kind == "out":
            R = self.states["R"]
            if not R.out[ev.player]:
                raise _err(f"{self.names[ev.player]} is not out")
            return None
        self._auto(start=kind != "start")
        if kind == "first":
            if self.moved or not self.first_open:
                raise _err("who plays first is already known")
            for s in self.states.values():
                s.to_move = ev.player
            self.first_open = False
            return None
        if kind == "start":
            return self._start_card(ev.payload)
        return self._move(ev.player, ev.payload, line)

    def _seat_word(self, w: str) -> int:
        lw = w.lower()
        if lw in ("me", "i") and self.me >= 0:
            return self.me
        for i, nm in enumerate(self.names):
            if nm.lower() == lw:
                return i
        raise _err(f"unknown seat {w!r} (seats: {', '.join(self.names)})")

    def _layout(self, p: int, cards: list[int]):
        if not self.layout:
            raise _err("the face-up cards are laid at the deal; play has started"
                       if self.rec.start == "deal" else
                       "this record starts after the deal: no face-up cards to lay")
        if p in self.laid:
            raise _err(f"{self.names[p]} has laid out already")
        if len(cards) != self.z:
            raise _err(f"{self.names[p]} lays {self.z} cards face up, not {len(cards)}")
        d = self.rec.deal[p]
        mine = d.together if d.together is not None else d.hand + d.face_up
        if all(c is not None for c in mine):
            have = counts_of(mine)
            for r in RANKS:
                if counts_of(cards)[r] > have[r]:
                    raise _err(f"{self.names[p]} was dealt "
                               f"{have[r] or 'no'} {rank_name(r)}"
                               f"{'s' if have[r] != 1 else ''}: cannot lay "
                               f"{counts_of(cards)[r]} face up")
        self.laid[p] = list(cards)
        if len(self.laid) == self.n:
            self._finish_layout()

    def _finish_layout(self):
        if not self.layout:
            return
        cards = {}
        for p in range(self.n):
            d = self.rec.deal[p]
            if p not in self.laid:
                if self.rules.choose_face_up or d.together is not None \
                        or any(c is None for c in d.face_up):
                    raise _err(f"the face-up cards come first: '{self.names[p]} up ...'")
                self.laid[p] = list(d.face_up)    # kept as dealt: no swap
            up = self.laid[p]
            both = list(d.together) if d.together is not None else list(d.hand) + list(d.face_up)
            dealt_up = self._dealt_up(p)
            public = [] if dealt_up is None else ranks_of(
                [max(0, a - b) for a, b in zip(counts_of(dealt_up), counts_of(up))])
            if all(c is not None for c in both):
                left = counts_of(both)
                for r in up:
                    left[r] -= 1
                hand = ranks_of(left)
            else:
                # unknown cards: the record knows only what everyone knows
                hand = public + [None] * (len(both) - self.z - len(public))
            cards[p] = (hand, up, public)
        self.layout = False
        self._start_play(cards)

    def _check_burn(self):
        if not self._last_burned:
            raise _err("no burn: the last event did not burn the pile")

    _last_burned = False

    def _auto(self, start: bool = True):
        """Before any event but a draw: what the draw pile's known order settles (a start
        card, a refill), and then nothing the record must name may be pending."""
        R = self.states["R"]
        if start and R.is_chance() and R.pending[0] == "start" and self.stock and \
                self.stock[0] is not None:
            self._start_card(None)
        if self.pending_draw is None:
            return
        q, k = self.pending_draw
        if self.stock is not None and len(self.stock) >= k \
                and all(c is not None for c in self.stock[:k]):
            self._draw(q, [None] * k)
            return
        raise _err(f"{self.names[q]} draws {k} card{'s' if k > 1 else ''} first: say which "
                   f"('{self.names[q]} draw ...')")

    def _draw(self, q: int, cards: list):
        R = self.states["R"]
        if self.layout:
            raise _err("no draws at the deal")
        if not (self.pending_draw and self.pending_draw[0] == q):
            if self.pending_draw:
                raise _err(f"{self.names[self.pending_draw[0]]} draws now, not "
                           f"{self.names[q]}")
            raise _err(f"{self.names[q]} has nothing to draw now"
                       if q in self.visible else
                       f"{self.names[q]}'s cards are not in this record: their draws are "
                       f"not written")
        k = self.pending_draw[1]
        if not cards or len(cards) > k:
            raise _err(f"{self.names[q]} draws {k} card{'s' if k > 1 else ''}, not "
                       f"{len(cards)}")
        got = [self._take_stock(c) for c in cards]
        for r in got:
            for v, s in self.states.items():
                if self.sees(v, q):
                    s.apply(r)
        left = k - len(got)
        self.pending_draw = (q, left) if left else None
        return None

    def _start_card(self, r: int | None):
        R = self.states["R"]
        if not (R.is_chance() and R.pending[0] == "start"):
            raise _err("no start card is expected now")
        r = self._take_stock(r)
        if not R.pool[r]:
            raise _err(f"the start card cannot be a {rank_name(r)}: every one is seen")
        for s in self.states.values():
            s.apply(r)
        if not R.is_chance():
            self._set_first() if self.first is not None else None
            first = self.first if self.first is not None else _dealing_order(self.rec)[0]
            for s in self.states.values():
                s.to_move = first
        return None

    def _after_move(self):
        """A refill pending after a move: the views that do not see the seat take it as
        unknown cards at once; the others wait for the cards (the record's draw line, or
        its draw pile)."""
        for v, s in self.states.items():
            if s.is_chance() and s.pending[0] == "draw":
                q = s.pending[1]
                if self.sees(v, q):
                    if v == "R":
                        self.pending_draw = (q, s.pending[2])
                else:
                    settle_refills(s, -1)

    def _capture(self, p: int, move: Move, line: str, lineno: int, legal):
        """A decision: every view's position, and the histories."""
        R = self.states["R"]
        self.ply += 1
        if R.draw_pile == 0 and self.draw_empty_ply is None:
            self.draw_empty_ply = self.ply
        d = Decision(self.ply, p, move, legal, lineno, line, R.draw_pile)
        for v, s in self.states.items():
            try:
                pos = seat_position(s, self.names, p if v == "R" else v)
            except NoPositionError:
                pos = None        # a jokers game with a player out: no position says it
            past = self.seen_pos[v]
            hist = []
            if pos is not None:
                # view.repeatable, with each position's stretch computed once
                tag = stretch(pos)
                past.append((tag, pos))
                hist = [h for t, h in past if t == tag]
            if v == "R":
                d.truth, d.truth_history = pos, hist
            else:
                d.views[v], d.histories[v] = pos, hist
        self.decisions.append(d)

    def _move(self, p: int | None, payload, line: str):
        R = self.states["R"]
        if R.is_terminal():
            raise _err("the game is over")
        if R.is_chance():
            if R.pending[0] == "start":
                raise _err("first the start card ('start 5')")
            raise _err("waiting for a draw")  # pragma: no cover - settled above
        if self.first_open and not self.moved:
            if p is None:
                raise _err("who plays first is not known: name the player ('bob 3') or say "
                           "'first: NAME' in the header")
            for s in self.states.values():
                s.to_move = p
            self.first_open = False
        q = R.to_move if p is None else p
        if R.out[q]:
            raise _err(f"{self.names[q]} is out")
        if q != R.to_move:
            raise _err(f"it is {self.names[R.to_move]}'s turn, not {self.names[q]}'s")
        src = R.source(q)
        if isinstance(payload, tuple):
            r = payload[1]
            if src != FACE_DOWN:
                raise _err(f"{self.names[q]} cannot flip: {self.names[q]} still has "
                           f"{'hand' if src == HAND else 'face-up'} cards")
            move = Move.flip()
        else:
            move = payload
            if src == FACE_DOWN:
                raise _err(f"{self.names[q]} plays from the face-down cards: "
                           f"'{self.names[q]} flip CARD'")
        legal_view = self.states[q] if q in self.visible else R
        legal = legal_view.legal_moves()
        self._capture(q, move, line, self._lineno, legal)
        self._reveal_all(q, move)
        if move not in R.legal_moves():
            raise _err(self._why_illegal(R, q, move))
        self.moved = True
        burned_before = sum(R.burned)
        if move.kind == FLIP:
            self._flip(q, payload[1])
        else:
            for s in self.states.values():
                s.apply(move)
        self._last_burned = sum(R.burned) > burned_before and move.kind != PICKUP
        self._after_move()

    def _reveal_all(self, q: int, move: Move):
        """``q`` plays cards from unknown hand cards: each view that did not know them
        learns them (for the record's view, they must be free to be there)."""
        if move.kind != PLAY:
            return
        R = self.states["R"]
        if R.source(q) != HAND:
            return
        r, k = move.rank, move.count
        need = k - R.hands[q][r]
        if need > 0:
            hand = R.hands[q]
            if need > hand[UNKNOWN]:
                raise _err(f"{self.names[q]} cannot play {k} {rank_name(r)}"
                           f"{'s' if k > 1 else ''}: {self.names[q]}'s hand holds "
                           + (f"only {hand[r]}" if hand[r] else "none")
                           + (f" (and {hand[UNKNOWN]} unknown cards)" if hand[UNKNOWN] else ""))
            if need > self._free(r):
                raise _err(f"{self.names[q]} cannot have {k} {rank_name(r)}"
                           f"{'s' if k > 1 else ''}: the other copies are seen or placed")
        for s in self.states.values():
            if s.hands[q][r] < k:
                try:
                    reveal(s, q, r, k)
                except ValueError as e:
                    raise _err(str(e)) from None

    def _flip(self, q: int, r: int):
        R = self.states["R"]
        downs = self.downs[q]
        if r in downs:
            downs.remove(r)
        elif None in downs:
            if self._free(r) <= 0:
                raise _err(f"the flip cannot be a {rank_name(r)}: every one is seen or placed")
            downs.remove(None)
        else:
            raise _err(f"{self.names[q]}'s face-down cards are "
                       f"{' '.join(rank_name(c) for c in downs)}: none is a {rank_name(r)}")
        if not R.pool[r]:  # pragma: no cover - the checks above
            raise _err(f"the flip cannot be a {rank_name(r)}")
        for s in self.states.values():
            s.apply(Move.flip())
            s.apply(r)

    def _why_illegal(self, s: State, q: int, move: Move) -> str:
        legal = s.legal_moves()
        if move.kind == PLAY and not s.playable(move.rank):
            top = s.effective_top()
            return (f"{move} cannot be played on the pile (top {rank_name(top)})"
                    if top else f"{move} is not a legal move")
        if move.kind == PLAY:
            return (f"{self.names[q]} has not {move.count} {rank_name(move.rank)}"
                    f"{'s' if move.count > 1 else ''} to play")
        if move.kind == PICKUP and not s.pile:
            return "the pile is empty: nothing to pick up"
        if move.kind == PICKUP and s.rules.must_play:
            return f"{self.names[q]} must play (must_play): a legal card is in that hand"
        return (f"{move} is not a legal move for {self.names[q]} (legal: "
                f"{', '.join(str(m) for m in legal) or 'none'})")


def replay(rec: Record) -> Replay:
    """Replay ``rec`` (module doc).

    :raises RecordError: naming the line and the event of the first thing that cannot
        happen (or the header line at fault).
    """
    try:
        check_names(rec.seats, rec.viewer)
    except LiveError as e:
        ln = rec.header_lines.get("seats")
        raise RecordError(str(e), ln[0] if ln else None, ln[1] if ln else None) from None
    i = -1
    try:
        g = _Game(rec)
        for i, raw in enumerate(rec.events):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            g._lineno = rec.line_of(i)
            try:
                g.event(line)
            except (LiveError, ValueError, InvalidPositionError, NoPositionError) as e:
                if isinstance(e, RecordError):
                    raise
                raise _Refused(str(e).splitlines()[0]) from None
        g._lineno = rec.line_of(len(rec.events))
        if g.layout and g.laid:
            g._finish_layout()
        elif g.layout:
            try:                # no event yet: play starts only if nobody must lay out
                g._finish_layout()
            except _Refused:
                pass
        if g.pending_draw is not None and g.stock is not None:
            try:
                g._auto()
            except _Refused:
                pass
        _check_result(g)
    except _Header as e:
        ln = rec.header_lines.get(e.key) or rec.header_lines.get("seats")
        raise RecordError(str(e), ln[0] if ln else None, ln[1] if ln else None) from None
    except _Refused as e:
        if i < 0 or i >= len(rec.events):
            ln = rec.header_lines.get("result")
            raise RecordError(str(e), ln[0] if ln else None, ln[1] if ln else None) from None
        raise RecordError(str(e), rec.line_of(i), rec.events[i].strip()) from None
    R = g.states.get("R")
    if R is None:                  # the record stops at the deal: no decision yet
        return Replay(rec, [], list(g.visible), False, None, None, None)
    over = R.is_terminal()
    return Replay(rec, g.decisions, list(g.visible), over,
                  [float(x) for x in R.result()] if over else None, g.draw_empty_ply, R)


def _check_result(g: _Game) -> None:
    res = g.rec.result
    if res is None:
        return
    R = g.states.get("R")
    words = res.lower().split()
    if R is None:
        if len(words) >= 2 and words[1] in ("loses", "lost", "wins", "won"):
            raise _Header("result", f"result: {res}, but the game has not started")
        return
    if not words:
        return
    if len(words) >= 2 and words[1] in ("loses", "lost", "wins", "won"):
        who = g._seat_word(words[0])
        if not R.is_terminal():
            raise _err(f"result: {res}, but the game is not over")
        loss = R.result()
        lost = loss[who] == 1
        if words[1] in ("loses", "lost") and not lost:
            raise _err(f"result: {res}, but {g.names[who]} did not lose")
        if words[1] in ("wins", "won") and loss[who] != 0:
            raise _err(f"result: {res}, but {g.names[who]} did not win")
    elif words[0] in ("draw", "unfinished"):
        if R.is_terminal():
            raise _err(f"result: {res}, but the game is over")

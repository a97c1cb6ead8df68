"""The reference rules engine: readable, complete, and the source of truth for every rule.

The state follows OpenSpiel's shape: :meth:`State.current_player` (``CHANCE`` for deals,
draws and flips), :meth:`State.legal_moves`, :meth:`State.apply`,
:meth:`State.chance_outcomes`, :meth:`State.is_terminal`, :meth:`State.result`.

Hidden cards are never stored one by one. Every card nobody has seen (the draw pile and all
face-down cards) sits in one *unseen pool* of counts per rank, and a card is drawn from that
pool only when it is revealed: by a deal, a refill or a flip. Since a shuffled deck is
exchangeable, revealing cards this way has exactly the distribution of a real shuffle, and
the exact solver can use the same chance events as the game.
"""
from __future__ import annotations

from fractions import Fraction

from .cards import ACE, JACK, KING, NRANK, ORDERED_RANKS, QUEEN, RANKS, TEN, TWO
from .moves import FLIP, PICKUP, IllegalMoveError, Move
from .rules import Rules
from .text import state_text

CHANCE = -1
TERMINAL = -4

DEAL, LAYOUT_PHASE, PLAY_PHASE, OVER = "deal", "layout", "play", "over"
HAND, FACE_UP, FACE_DOWN = "hand", "face_up", "face_down"

_HIGH = (JACK, QUEEN, KING, ACE)


class State:
    """A game in progress. Mutable; :meth:`clone` before exploring."""

    __slots__ = ("rules", "n", "hands", "face_up", "face_down", "pile", "burned", "pool",
                 "draw_pile", "to_move", "direction", "out", "out_order", "phase",
                 "pending", "next_after", "last_player", "deal_queue", "dealt_up", "loss")

    def __init__(self, rules: Rules, n: int):
        rules.check_players(n)
        self.rules = rules
        self.n = n
        self.hands = [[0] * NRANK for _ in range(n)]
        self.face_up = [[0] * NRANK for _ in range(n)]
        self.face_down = [0] * n
        self.pile: list[int] = []
        self.burned = [0] * NRANK
        self.pool = rules.deck_counts(n)
        self.draw_pile = 0
        self.to_move = 0
        self.direction = 1
        self.out = [False] * n
        self.out_order: list[int] = []
        self.phase = PLAY_PHASE
        self.pending = None        # (kind, player, count) of the chance event to come
        self.next_after = 0        # who moves once the pending draws are done
        self.last_player = None    # who put the last played card on the pile
        self.deal_queue: list[tuple[int, str]] = []
        # The face-up cards as dealt, (player, rank) in dealing order, for rule 3; None for a
        # state that was not dealt (see first_player).
        self.dealt_up: list[tuple[int, int]] | None = None
        self.loss = None           # loss share of each player once the game is over

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def new_game(cls, rules: Rules, n: int) -> "State":
        """A game before the deal: the first events are chance deals, card by card."""
        s = cls(rules, n)
        z = rules.zone_size
        s.phase = DEAL
        if rules.choose_face_up:
            s.deal_queue = [(p, HAND) for _ in range(2 * z) for p in range(n)]
        else:
            s.deal_queue = ([(p, FACE_UP) for _ in range(z) for p in range(n)]
                            + [(p, HAND) for _ in range(z) for p in range(n)])
        s.dealt_up = []
        s.face_down = [z] * n
        s.draw_pile = sum(s.pool) - z * n - len(s.deal_queue)
        s.to_move = CHANCE
        s.pending = ("deal", 0, len(s.deal_queue))
        return s

    def clone(self) -> "State":
        s = State.__new__(State)
        s.rules, s.n = self.rules, self.n
        s.hands = [h[:] for h in self.hands]
        s.face_up = [f[:] for f in self.face_up]
        s.face_down = self.face_down[:]
        s.pile = self.pile[:]
        s.burned = self.burned[:]
        s.pool = self.pool[:]
        s.draw_pile = self.draw_pile
        s.to_move, s.direction = self.to_move, self.direction
        s.out, s.out_order = self.out[:], self.out_order[:]
        s.phase, s.pending, s.next_after = self.phase, self.pending, self.next_after
        s.last_player = self.last_player
        s.deal_queue = self.deal_queue[:]
        s.dealt_up = None if self.dealt_up is None else self.dealt_up[:]
        s.loss = None if self.loss is None else self.loss[:]
        return s

    # -- OpenSpiel-shaped API -------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        return self.to_move

    def stretch(self) -> tuple:
        """What this position shares with every earlier one it can repeat: the draw pile,
        the burned cards, the face-down and face-up counts and the players out only change
        one way, so a position with other values cannot come back."""
        return (self.draw_pile, tuple(self.burned), tuple(self.face_down),
                tuple(sum(f) for f in self.face_up), tuple(self.out))

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_chance(self) -> bool:
        return self.phase != OVER and self.to_move == CHANCE

    def result(self) -> list[Fraction]:
        """Each player's loss (1 for the loser, 0 for the others; shared under
        ``first_out_wins``). Only for terminal states."""
        if self.loss is None:
            raise ValueError("result() of a game that is not over")
        return self.loss[:]

    def returns(self) -> list[float]:
        """OpenSpiel's view: 1 - loss share."""
        return [1.0 - float(x) for x in self.result()]

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """The ranks the next unseen card may be, with their probabilities."""
        if not self.is_chance():
            return []
        total = sum(self.pool)
        return [(r, Fraction(self.pool[r], total)) for r in RANKS if self.pool[r]]

    def legal_moves(self) -> list[Move]:
        """The moves of the player to move, plays first (by rank, then count)."""
        if self.phase == PLAY_PHASE and self.to_move >= 0:
            return self._play_moves(self.to_move)
        if self.phase == LAYOUT_PHASE:
            return self._layout_moves(self.to_move)
        return []

    def apply(self, move) -> None:
        """Apply a :class:`Move` of the player to move, or a rank at a chance node.

        :raises IllegalMoveError: quoting the move and the position.
        """
        if self.is_chance():
            if not isinstance(move, int) or not (0 <= move < NRANK) or not self.pool[move]:
                raise IllegalMoveError(f"illegal chance outcome {move!r} in {self.describe()}")
            self._apply_chance(move)
            return
        if isinstance(move, str):
            move = Move.parse(move)
        if not isinstance(move, Move) or move not in self.legal_moves():
            raise IllegalMoveError(f"illegal move {str(move)!r} in {self.describe()}")
        if self.phase == LAYOUT_PHASE:
            self._apply_layout(self.to_move, move)
        else:
            self._apply_play(self.to_move, move)

    # -- pile facts -----------------------------------------------------------------------
    def effective_top(self):
        """The rank the next play must answer: the top card that is not transparent."""
        tr = self.rules.transparent
        for r in reversed(self.pile):
            if not tr(r):
                return r
        return None

    def top_run(self) -> int:
        """How many cards of the top rank lie together on top of the pile."""
        if not self.pile:
            return 0
        top, k = self.pile[-1], 0
        for r in reversed(self.pile):
            if r != top:
                break
            k += 1
        return k

    def playable(self, rank: int) -> bool:
        """Whether one card of ``rank`` is legal on the pile (rule 9 and the variants)."""
        rules = self.rules
        if rank == TWO or rules.transparent(rank):
            return True
        eff = self.effective_top()
        if eff is None:
            return True
        if rank == TEN:
            return not (rules.restricted_tens and eff in _HIGH)
        if eff == TWO:
            return True
        if rules.low_rank(eff):
            return rank <= eff
        return rank >= eff

    def source(self, p: int):
        """Where player ``p`` plays from (rule 4), or None when they hold nothing."""
        if any(self.hands[p]):
            return HAND
        if any(self.face_up[p]):
            return FACE_UP
        if self.face_down[p]:
            return FACE_DOWN
        return None

    def cards_left(self, p: int) -> int:
        return sum(self.hands[p]) + sum(self.face_up[p]) + self.face_down[p]

    def active(self) -> list[int]:
        return [p for p in range(self.n) if not self.out[p]]

    # -- play -----------------------------------------------------------------------------
    def _play_moves(self, p: int) -> list[Move]:
        src = self.source(p)
        if src == FACE_DOWN:
            return [Move.flip()]
        counts = self.hands[p] if src == HAND else self.face_up[p]
        moves = [Move.play(r, k) for r in RANKS if counts[r] and self.playable(r)
                 for k in range(1, counts[r] + 1)]
        if self.pile and not (self.rules.must_play and moves):
            if src == HAND or self.rules.easy_table_pickup:
                moves.append(Move.pickup())
            else:
                moves.extend(Move.pickup(r) for r in RANKS if counts[r])
        return moves

    def _apply_play(self, p: int, move: Move) -> None:
        if move.kind == FLIP:
            self.pending = ("flip", p, 1)
            self.to_move = CHANCE
            return
        src = self.source(p)
        counts = self.hands[p] if src == HAND else self.face_up[p]
        if move.kind == PICKUP:
            if move.rank:
                counts[move.rank] -= 1
                self.pile.append(move.rank)
            self._take_pile(p)
            return
        counts[move.rank] -= move.count
        self._put_on_pile(p, move.rank, move.count)

    def _put_on_pile(self, p: int, rank: int, count: int) -> None:
        """A legal play of ``count`` cards of ``rank``, with all its effects."""
        rules = self.rules
        self.pile.extend([rank] * count)
        self.last_player = p
        burn = rules.burns(rank) or (not rules.no_four_burn and self._four_on_top())
        if burn:
            for r in self.pile:
                self.burned[r] += 1
            self.pile.clear()
            self.last_player = None
        need = rules.zone_size - sum(self.hands[p])
        draws = min(need, self.draw_pile) if need > 0 else 0
        out = draws == 0 and self.cards_left(p) == 0
        if out:
            self._go_out(p)
            if self.phase == OVER:
                return
        if burn:
            # Rule 12: a burn on the last card hands the empty pile to the next player.
            nxt = self._next_active(p, 1) if out else p
        else:
            # A reversing or skipping card has its effect even as the player's last card.
            if rules.reverses(rank):
                self.direction = -self.direction
            nxt = self._next_active(p, 1 + (count if rules.skips(rank) else 0))
        if draws:
            self.pending = ("draw", p, draws)
            self.next_after = nxt
            self.to_move = CHANCE
        else:
            self.to_move = nxt

    def _four_on_top(self) -> bool:
        pile = self.pile
        return len(pile) >= 4 and pile[-1] == pile[-2] == pile[-3] == pile[-4]

    def _take_pile(self, p: int) -> None:
        hand = self.hands[p]
        for r in self.pile:
            hand[r] += 1
        self.pile.clear()
        last, self.last_player = self.last_player, None
        if self.rules.back_to_last_player and last is not None and not self.out[last]:
            self.to_move = last
        else:
            self.to_move = self._next_active(p, 1)

    def _flip(self, p: int, rank: int) -> None:
        self.face_down[p] -= 1
        if self.playable(rank):
            self._put_on_pile(p, rank, 1)
            return
        self.pile.append(rank)
        if self.rules.lenient_blind:
            # Only the failed card and the two below it are taken; the rest stays in play.
            taken, self.pile = self.pile[-3:], self.pile[:-3]
            for r in taken:
                self.hands[p][r] += 1
            self.to_move = self._next_active(p, 1)
        else:
            self._take_pile(p)

    def _next_active(self, p: int, steps: int) -> int:
        q = p
        for _ in range(steps):
            q = (q + self.direction) % self.n
            while self.out[q]:
                q = (q + self.direction) % self.n
        return q

    def _go_out(self, p: int) -> None:
        self.out[p] = True
        self.out_order.append(p)
        left = self.active()
        if self.rules.first_out_wins:
            share = Fraction(1, self.n - 1)
            self._finish([Fraction(0) if q == p else share for q in range(self.n)])
        elif len(left) == 1:
            self._finish([Fraction(int(q == left[0])) for q in range(self.n)])

    def _finish(self, loss) -> None:
        self.loss = loss
        self.phase = OVER
        self.to_move = TERMINAL
        self.pending = None

    # -- chance ---------------------------------------------------------------------------
    def _apply_chance(self, rank: int) -> None:
        kind, p, k = self.pending
        self.pool[rank] -= 1
        if kind == "deal":
            who, zone = self.deal_queue.pop(0)
            (self.hands if zone == HAND else self.face_up)[who][rank] += 1
            if zone == FACE_UP:
                self.dealt_up.append((who, rank))
            if self.deal_queue:
                self.pending = ("deal", 0, len(self.deal_queue))
            else:
                self.pending = None
                self.phase = LAYOUT_PHASE
                self.to_move = 0
        elif kind == "draw":
            self.draw_pile -= 1
            self.hands[p][rank] += 1
            if k > 1:
                self.pending = ("draw", p, k - 1)
            else:
                self.pending = None
                self.to_move = self.next_after
        elif kind == "flip":
            self.pending = None
            self._flip(p, rank)
        elif kind == "start":
            self.draw_pile -= 1
            self.pending = None
            if self.rules.burns(rank):
                # A burning start card goes straight out; the next card starts the pile.
                self.burned[rank] += 1
                if self.draw_pile:
                    self.pending = ("start", 0, 1)
                    return
            else:
                self.pile.append(rank)
            self.to_move = 0

    # -- deal phase -----------------------------------------------------------------------
    def _layout_moves(self, p: int) -> list[Move]:
        """Every distinct choice of face-up cards among hand + face-up (swap or choose)."""
        pool = [self.hands[p][r] + self.face_up[p][r] for r in range(NRANK)]
        z = self.rules.zone_size
        out: list[Move] = []

        def rec(i: int, chosen: list[int]) -> None:
            if len(chosen) == z:
                out.append(Move.up(chosen))
                return
            if i == len(RANKS):
                return
            r = RANKS[i]
            for k in range(min(pool[r], z - len(chosen)), -1, -1):
                rec(i + 1, chosen + [r] * k)

        rec(0, [])
        return sorted(out)

    def _apply_layout(self, p: int, move: Move) -> None:
        if self.dealt_up is None:
            # A layout built without a deal (swap.py): the face-up cards it starts with count
            # as dealt, in seat order. The first layout move comes before any swap.
            self.dealt_up = [(q, r) for q in range(self.n) for r in RANKS
                             for _ in range(self.face_up[q][r])]
        both = [self.hands[p][r] + self.face_up[p][r] for r in range(NRANK)]
        up = [0] * NRANK
        for r in move.layout:
            up[r] += 1
        self.face_up[p] = up
        self.hands[p] = [both[r] - up[r] for r in range(NRANK)]
        if p + 1 < self.n:
            self.to_move = p + 1
            return
        self.phase = PLAY_PHASE
        if self.rules.choose_face_up:
            # Nobody is dealt face-up cards: the ones laid out, in seat order, take their place.
            self.dealt_up = [(q, r) for q in range(self.n) for r in RANKS
                             for _ in range(self.face_up[q][r])]
        if self.rules.start_card and self.draw_pile:
            self.pending = ("start", 0, 1)
            self.to_move = CHANCE
        elif self.rules.start_card:
            self.to_move = 0
        else:
            self.to_move = self.first_player()

    def first_player(self) -> int:
        """Rule 3: the player who was *dealt* the first face-up 3 in dealing order (the deal
        counts, not the layout after the swap), else the first player (from seat 0, the
        dealer's left) holding a 3 in hand now, after the swap; else the same with 4, 5, ...

        The dealt face-up cards are :attr:`dealt_up`, recorded card by card by the deal.
        Under ``choose_face_up`` nobody is dealt face-up cards; the cards laid face up, in
        seat order, stand for them. A state that was not dealt (built by hand) uses its
        current face-up cards in seat order.
        """
        shown = self.dealt_up
        if shown is None:
            shown = [(q, r) for q in range(self.n) for r in RANKS
                     for _ in range(self.face_up[q][r])]
        for r in ORDERED_RANKS:
            for p, rank in shown:
                if rank == r:
                    return p
            for p in range(self.n):
                if self.hands[p][r]:
                    return p
        return 0

    # -- keys and display -----------------------------------------------------------------
    def pile_key(self) -> tuple:
        """What of the pile matters for play: multiset, top rank, top run, rank to beat.
        Under ``lenient_blind`` the order matters too (a failed flip takes the top two)."""
        if self.rules.lenient_blind:
            return tuple(self.pile)
        c = [0] * NRANK
        for r in self.pile:
            c[r] += 1
        top = self.pile[-1] if self.pile else 0
        return (tuple(c), top, min(self.top_run(), 3), self.effective_top() or 0)

    def key(self) -> tuple:
        """A hashable key equal for positions that play the same from here on."""
        return (tuple(tuple(h) for h in self.hands), tuple(tuple(f) for f in self.face_up),
                tuple(self.face_down), self.pile_key(), tuple(self.pool), self.draw_pile,
                self.to_move, self.direction if self.n > 2 else 1, tuple(self.out),
                self.last_player if self.rules.back_to_last_player else None,
                self.phase, self.pending,
                self.next_after if self.pending and self.pending[0] == "draw" else None,
                tuple(self.dealt_up) if self.phase in (DEAL, LAYOUT_PHASE)
                and self.dealt_up is not None else None)

    def check_cards(self) -> None:
        """Every card accounted for: zones + pile + burned + unseen pool = the deck.

        :raises AssertionError: naming the rank that does not add up.
        """
        deck = self.rules.deck_counts(self.n)
        pile = [0] * NRANK
        for r in self.pile:
            pile[r] += 1
        for r in range(NRANK):
            total = (sum(h[r] for h in self.hands) + sum(f[r] for f in self.face_up)
                     + pile[r] + self.burned[r] + self.pool[r])
            assert total == deck[r], f"rank {r}: {total} cards, deck has {deck[r]}"
            assert min(self.pool[r], pile[r], self.burned[r]) >= 0
        hidden = self.draw_pile + sum(self.face_down)
        if self.phase != DEAL:
            assert sum(self.pool) == hidden, f"pool {sum(self.pool)} != hidden {hidden}"

    def describe(self) -> str:
        """A one-line description used in error messages (the text form of the position)."""
        try:
            return state_text(self)
        except Exception:  # noqa: BLE001 - a description must never raise
            return f"<state phase={self.phase} to_move={self.to_move}>"

"""Bots driven by the analysis methods, for tournaments (benchmarks/tournament.py).

A method bot sees only what its seat sees at the table (see :class:`HandTracker`): its own
hand, every face-up card, the pile, the burned cards, the public counts, and the hand cards
of the others that are publicly known (taken from the pile, or swapped in from the face-up
cards at the deal) until they are played.

``det`` (:class:`DetBot`): determinization over the compiled engine. Each decision deals
the unknown hand cards of the others ``samples`` times (uniformly from the cards the seat
has not seen, as :mod:`palace_solver.sample.sampler` does), values every legal move in each deal
with the compiled iterative-deepening search (``DeepSearch``: alpha-beta, Star pruning
at the face-down flips and draws, the fitted horizon evaluation at the cut-off) within
``deal_nodes`` nodes, and plays the move with the lowest mean loss. When no hand card is
hidden and the draw pile is empty the position is in exact mode (only face-down cards are
unknown, to everybody): one deal, ``exact_mode_nodes`` nodes. A search whose last
iteration needed no horizon evaluation has exact values. Identical deals are solved once
per decision. Budgets are node counts, not seconds, so a game is reproducible on any
machine.

Ties between moves (within ``TIE``) go to the ``greedy`` bot's choice, so where the search
sees no difference the bot keeps its specials as ``greedy`` does. Forced moves are played
without search, face-up layouts are ``greedy``'s, and while the draw pile holds more than
``draw_limit`` cards the bot plays ``greedy`` (None: search always). The horizon evaluation
is ``eval_mode`` (default ``"learned"``: the network of ``ext/evaluate.pxi``, switched on
around the bot's searches; None keeps the module's mode). Measured against ``greedy`` on
the same 200 full-deal starts, seats swapped, 4 deals of 3,000 nodes
(benchmarks/eval_match.py; benchmarks/RESULTS-eval.md): greedy in the draw phase, 0.542
with the card count and 0.610 with the learned evaluation; searching from the first play,
0.466 and 0.539. Searching in the draw phase still costs, hence ``draw_limit=0``. (These
measurements predate a fix: the depth-limited search mishandled a refill of two or more
cards, see ``sample/drawsearch.py``; the engine's own agent is :class:`SearchBot`.)

``ismcts`` (:class:`IsmctsBot`): SO-ISMCTS (:mod:`palace_solver.sample.ismcts`, greedy playouts)
on the same view, ``iterations`` per decision, with the same ``draw_limit`` rule (with the
draw pile in play it lost to ``greedy`` too: 0.30 over 10 full deals at 50 iterations).

Every bot has ``name``, ``choose(state, rng)`` and a ``stats`` dict (decisions searched,
determinizations or iterations, seconds) for the determinizations/s report.
"""
from __future__ import annotations

import random
import time

from ..game.cards import NRANK, RANKS
from ..game.position import Position
from ..game.state import PLAY_PHASE, State
from ..sample.drawsearch import ENGINE, SearchConfig, decide, move_means, state_view
from ..sample.ismcts import analyze_ismcts
from ..sample.policies import GreedyBot
from ..solve.engine import compiled

__all__ = ["DetBot", "HandTracker", "IsmctsBot", "METHOD_BOTS", "SearchBot", "determinize",
           "view_position"]

#: Loss differences below this count as ties (broken by the greedy bot's choice).
TIE = 1e-9


class HandTracker:
    """Publicly known hand cards of each player, counts per rank (a lower bound of the hand).

    Feed it every event of a game: :meth:`before` just before applying an event,
    :meth:`after` just after. Cards that enter a hand by a deal or a refill draw are seen
    by their owner only; every other card that enters a hand (a pickup of the pile, a
    failed flip, a face-up card swapped in at the layout) is public. Playing ``k`` cards of
    rank ``r`` from the hand lowers the known count of ``r`` by ``k``, never below zero
    (the played cards may have been unknown ones; suits do not matter).

    ``history`` keeps every decision position of the play phase met after an event, with
    the known counts at that moment, ``(state, known)``: a game ends in a draw at its first
    repeated position, and a searching seat needs to know which positions were played
    (:meth:`SearchBot.history_views` turns them into that seat's views).
    """

    def __init__(self, n: int):
        self.known = [[0] * NRANK for _ in range(n)]
        self.history: list = []
        self._hands = None
        self._private = False

    def before(self, state: State) -> None:
        self._hands = [h[:] for h in state.hands]
        self._private = state.is_chance() and state.pending is not None \
            and state.pending[0] in ("deal", "draw")

    def after(self, state: State) -> None:
        # (a deal to the face-up cards leaves the hands alone, so "deal" can count as private)
        for old, new, kn in zip(self._hands, state.hands, self.known):
            for r in RANKS:
                d = new[r] - old[r]
                if d > 0 and not self._private:
                    kn[r] += d
                elif d < 0 and kn[r]:
                    kn[r] = max(0, kn[r] + d)
        self._hands = None
        if state.phase == PLAY_PHASE and not state.is_chance() and not state.is_terminal():
            self.history.append((state.clone(), [k[:] for k in self.known]))

    def apply(self, state: State, event) -> None:
        """``state.apply(event)`` with the bookkeeping around it."""
        self.before(state)
        state.apply(event)
        self.after(state)

    def clone(self) -> "HandTracker":
        t = HandTracker(len(self.known))
        t.known = [k[:] for k in self.known]
        t.history = self.history[:]
        return t


def view_position(state: State, me: int, tracker: HandTracker | None) -> Position:
    """The position as seat ``me`` sees it (other hands: the publicly known cards only)."""
    return _known_view(state, me, None if tracker is None else tracker.known)


def _known_view(state: State, me: int, known) -> Position:
    pos = Position.from_state(state, perspective=me)
    for q, p in enumerate(pos.players):
        if q != me:
            p.hand_known = [] if known is None else \
                [r for r in RANKS for _ in range(known[q][r])]
    return pos


def history_positions(state: State, me: int, tracker: HandTracker | None) -> list[Position]:
    """The game's earlier positions (the tracker's history) that ``state`` can still come
    back to, each as seat ``me`` saw it then: what a ``palace live`` hint is given."""
    if tracker is None:
        return []
    tag = state.stretch()
    return [_known_view(past, me, known) for past, known in tracker.history
            if past.stretch() == tag]


def determinize(state: State, me: int, known, rng: random.Random) -> State:
    """A copy of ``state`` where every other seat's unknown hand cards are redealt from the
    cards ``me`` has not seen (the pool of face-down and draw-pile cards plus those hand
    cards), uniformly; the rest goes back to the pool. ``known[q]``: counts known of q's
    hand (None: nothing known)."""
    s = state.clone()
    unseen = s.pool[:]
    slots = []
    for q in range(s.n):
        if q == me:
            continue
        kn = known[q] if known is not None else [0] * NRANK
        hand = s.hands[q]
        k = 0
        for r in RANKS:
            u = hand[r] - kn[r]
            unseen[r] += u
            k += u
            hand[r] = kn[r]
        slots.append((q, k))
    cards = [r for r in RANKS for _ in range(unseen[r])]
    rng.shuffle(cards)
    i = 0
    for q, k in slots:
        for r in cards[i:i + k]:
            s.hands[q][r] += 1
            unseen[r] -= 1
        i += k
    s.pool = unseen
    return s


def _hidden_hand_cards(state: State, me: int, known) -> int:
    return sum(sum(state.hands[q]) - (sum(known[q]) if known is not None else 0)
               for q in range(state.n) if q != me)


def _greedy_pick(state: State, moves_vals, mover: int, rng):
    """The best move; ties within TIE go to greedy's choice, else legal order."""
    best = min(v[mover] for _, v in moves_vals)
    tied = [m for m, v in moves_vals if v[mover] <= best + TIE]
    if len(tied) == 1:
        return tied[0]
    g = GreedyBot().choose(state, rng)
    return g if g in tied else tied[0]


class _Base:
    name = "method"

    def __init__(self, seed: int = 0, draw_limit: int | None = 0):
        self.seed = seed
        self.draw_limit = draw_limit
        self.tracker: HandTracker | None = None
        self.stats = {"decisions": 0, "searched": 0, "samples": 0, "seconds": 0.0}

    def _trivial(self, state: State, rng):
        """The move when no search is needed: forced, a layout, or the draw pile still
        above ``draw_limit`` (greedy's choice); else None."""
        moves = state.legal_moves()
        self.stats["decisions"] += 1
        if len(moves) == 1:
            return moves[0]
        if state.phase != PLAY_PHASE or (self.draw_limit is not None
                                         and state.draw_pile > self.draw_limit):
            return GreedyBot().choose(state, rng)
        return None


class DetBot(_Base):
    """Determinization over the compiled deepening search (module doc)."""

    name = "det"

    def __init__(self, seed: int = 0, samples: int = 8, deal_nodes: int = 10_000,
                 exact_mode_nodes: int = 30_000, draw_nodes: int = 2000,
                 draw_limit: int | None = 0, hash_mb: float = 2.0,
                 safety_seconds: float = 1.0, eval_mode: str | None = "learned"):
        super().__init__(seed, draw_limit)
        self.eval_mode = eval_mode
        self.samples, self.deal_nodes, self.draw_nodes = samples, deal_nodes, draw_nodes
        self.exact_mode_nodes = exact_mode_nodes
        self.hash_mb, self.safety_seconds = hash_mb, safety_seconds
        self.stats.update(solves=0, nodes=0, safety_stops=0)
        self._eng = compiled()

    def _solve(self, det: State, budget: int):
        """[(move, loss vector)] of one deal in legal-move order, and whether exact.

        Deepens 1, 2, ... plies while the next iteration is predicted to fit in ``budget``
        nodes (node counts, not time, so a game is the same on any machine); stops early
        when an iteration needed no horizon evaluation (its values are exact). The
        prediction can miss: after cheap iterations along a forced line the tree may
        suddenly branch (one such iteration ran for minutes). ``safety_seconds`` bounds
        the whole search; an iteration cut by it is dropped (the previous one answers)
        and counted in ``stats["safety_stops"]``, the only place where time, and so the
        machine, can change a game."""
        search = self._eng.DeepSearch(self._eng.CState.from_state(det), self.hash_mb)
        deadline = time.perf_counter() + self.safety_seconds
        last, prev, exact = None, 0, False
        for d in range(1, 200):
            before = search.nodes
            left = deadline - time.perf_counter()
            res = search.iterate(d, max(left, 1e-6)) if last is not None else \
                search.iterate(d, 0.0)
            if res is None:
                self.stats["safety_stops"] += 1
                break
            exact, last = res
            used = search.nodes - before
            if exact:
                break
            # the next iteration costs about this one times the last growth (at least 2)
            growth = max(2.0, used / prev) if prev else 4.0
            if search.nodes + used * growth > budget:
                break
            prev = used
        self.stats["nodes"] += search.nodes
        return last, exact

    def choose(self, state: State, rng: random.Random):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        me = state.to_move
        known = self.tracker.known if self.tracker is not None else None
        drng = random.Random(f"det-{self.seed}-{self.stats['decisions']}")
        hidden = _hidden_hand_cards(state, me, known)
        if hidden == 0:
            k, budget = 1, (self.exact_mode_nodes if state.draw_pile == 0 else self.draw_nodes)
        else:
            k, budget = self.samples, (self.deal_nodes if state.draw_pile == 0
                                       else self.draw_nodes)
        sums: dict = {}
        order: list = []
        solved: dict = {}
        old_mode = self._eng.set_eval_mode(self.eval_mode) if self.eval_mode else None
        try:
            dets = []
            for _ in range(k):
                det = determinize(state, me, known, drng)
                key = det.key()
                if key not in solved:
                    solved[key] = self._solve(det, budget)[0]
                dets.append(key)
        finally:
            if old_mode is not None:
                self._eng.set_eval_mode(old_mode)
        for key in dets:
            vals = solved[key]
            for mv, v in vals:
                if mv not in sums:
                    sums[mv] = [0.0] * state.n
                    order.append(mv)
                acc = sums[mv]
                for i in range(state.n):
                    acc[i] += v[i]
        self.stats["searched"] += 1
        self.stats["samples"] += k
        self.stats["solves"] += len(solved)
        self.stats["seconds"] += time.perf_counter() - t0
        return _greedy_pick(state, [(mv, sums[mv]) for mv in order], me, rng)


class IsmctsBot(_Base):
    """SO-ISMCTS on the seat's view, ``iterations`` per decision."""

    name = "ismcts"

    def __init__(self, seed: int = 0, iterations: int = 200, draw_limit: int | None = 0):
        super().__init__(seed, draw_limit)
        self.iterations = iterations

    def choose(self, state: State, rng: random.Random):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        pos = view_position(state, state.to_move, self.tracker).validate()
        a = analyze_ismcts(pos, iterations=self.iterations,
                           seed=self.seed * 1_000_003 + self.stats["decisions"])
        self.stats["searched"] += 1
        self.stats["samples"] += a.samples
        self.stats["seconds"] += time.perf_counter() - t0
        return a.best_move


class SearchBot(_Base):
    """The compiled determinized search with the draw pile (:mod:`palace_solver.sample.
    drawsearch`) on the seat's view: each decision's deals seeded by the bot's seed and the
    decision's number, the move with the lowest mean loss (ties within ``TIE`` to greedy's
    choice). ``draw_limit``: play greedy while the draw pile holds more cards (None: search
    always; the ablation of the strength benchmark). ``endgame``: the configuration once the
    draw pile is empty (None: ``config``). ``use_history``: give the search the positions
    already played that can come back (:meth:`history_views`), from the tracker."""

    name = "engine"

    def __init__(self, seed: int = 0, config: SearchConfig = ENGINE,
                 draw_limit: int | None = None, seconds: float | None = None,
                 endgame: SearchConfig | None = None, use_history: bool = True):
        super().__init__(seed, draw_limit)
        self.config, self.seconds = config, seconds
        self.endgame, self.use_history = endgame, use_history
        self.stats.update(nodes=0, depth=0)
        self._views: dict = {}

    def history_views(self, state: State, me: int) -> list | None:
        """``(view, hidden)`` of the game's earlier positions (the tracker's history) that
        can still come back: those of the current stretch, with the same draw pile, burned
        cards, face-down and face-up counts and players out (each only changes one way)."""
        if self.tracker is None or not self.use_history:
            return None
        tag = state.stretch()
        out = []
        for past, known in self.tracker.history:
            if past.stretch() != tag:
                continue
            hit = self._views.get((id(past), me))
            if hit is None or hit[0] is not past:
                hit = self._views[(id(past), me)] = (past, *state_view(past, me, known))
            out.append(hit[1:])
        return out

    def choose(self, state: State, rng: random.Random):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        me = state.to_move
        known = self.tracker.known if self.tracker is not None else None
        view, hidden = state_view(state, me, known)
        cfg = self.endgame if self.endgame is not None and state.draw_pile == 0 \
            else self.config
        raw = decide(view, hidden, cfg,
                     (self.seed * 1_000_003 + self.stats["decisions"]), self.seconds,
                     history=self.history_views(state, me))
        vals = [(m, mean) for m, mean, _ in move_means(raw, state.n)]
        self.stats["searched"] += 1
        self.stats["samples"] += len(raw["deals"])
        self.stats["nodes"] += raw["nodes"] + raw["playout_steps"]
        self.stats["depth"] += max(raw["depth"])
        self.stats["seconds"] += time.perf_counter() - t0
        return _greedy_pick(state, vals, me, rng)


METHOD_BOTS = {"det": DetBot, "ismcts": IsmctsBot, "engine": SearchBot}

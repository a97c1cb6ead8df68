"""Bots driven by the analysis methods, the agents of ``palace match``
(:mod:`palace_solver.agents.registry`).

A method bot sees only what its seat sees at the table (see :class:`HandTracker`): its own
hand, every face-up card, the pile, the burned cards, the public counts, and the hand cards
of the others that are publicly known (taken from the pile, or swapped in from the face-up
cards at the deal) until they are played.

``det`` (:class:`DetBot`): determinization over the compiled deepening search, the compiled
``Decider`` of ``ext/decide.pxi`` (:func:`palace_solver.sample.drawsearch.decide`) with
every chance outcome kept and no playouts. Each decision deals the unknown hand cards of
the others ``samples`` times (uniformly from the cards the seat has not seen), values every
legal move in each deal by iterative deepening (alpha-beta, Star pruning at the face-down
flips and draws, the horizon evaluation at the cut-off) within an equal share of
``samples * deal_nodes`` nodes, and plays the move with the lowest mean loss. When no hand
card is hidden and the draw pile is empty the position is in exact mode (only face-down
cards are unknown, to everybody): one deal, ``exact_mode_nodes`` nodes. Identical deals are
searched once. Budgets are node counts, not seconds, so a game is reproducible on any
machine (``safety_seconds`` bounds a decision all the same).

Ties between moves (within ``TIE``) go to the ``greedy`` bot's choice, so where the search
sees no difference the bot keeps its specials as ``greedy`` does. Forced moves are played
without search, face-up layouts are ``greedy``'s, and while the draw pile holds more than
``draw_limit`` cards the bot plays ``greedy`` (None: search always). The horizon evaluation
is ``eval_mode`` (default ``"learned"``: the network of ``ext/evaluate.pxi``; None keeps the
module's mode).

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
from ..game.moves import PICKUP, Move, pickup_by_choice
from ..game.position import Position
from ..game.state import PLAY_PHASE, State
from ..sample.drawsearch import ENGINE, SearchConfig, decide, move_means, state_view
from ..sample.ismcts import analyze_ismcts
from ..sample.policies import GreedyBot
from ..solve.engine import compiled
from ..solve.results import probability

__all__ = ["DetBot", "HandTracker", "IsmctsBot", "METHOD_BOTS", "OBSERVED", "SearchBot",
           "observations", "progress_pick", "view_position"]

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
    (:meth:`SearchBot.history_views` turns them into that seat's views). ``moves[i]`` is
    the move made from ``history[i]`` (None until it is made) and ``drawn[i]`` the cards its
    mover drew right after it (the refill): what the inference of the others' hands reads
    (:func:`observations`).
    """

    def __init__(self, n: int):
        self.known = [[0] * NRANK for _ in range(n)]
        self.history: list = []
        self.moves: list = []
        self.drawn: list = []
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
            self.moves.append(None)
            self.drawn.append(0)

    def apply(self, state: State, event) -> None:
        """``state.apply(event)`` with the bookkeeping around it."""
        if self.history and self.moves[-1] is None and not state.is_chance() \
                and state.phase == PLAY_PHASE and isinstance(event, Move):
            self.moves[-1] = event
        elif self.history and state.is_chance() and state.pending is not None \
                and state.pending[0] == "draw" \
                and state.pending[1] == self.history[-1][0].to_move:
            self.drawn[-1] += 1
        self.before(state)
        state.apply(event)
        self.after(state)

    def clone(self) -> "HandTracker":
        t = HandTracker(len(self.known))
        t.known = [k[:] for k in self.known]
        t.history = self.history[:]
        t.moves = self.moves[:]
        t.drawn = self.drawn[:]
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


#: Each other player's most recent decisions read by the inference of their hands.
OBSERVED = 8


def observations(state: State, me: int, tracker: HandTracker | None, per_player: int = OBSERVED,
                 views: dict | None = None) -> list:
    """The others' recent decisions as seat ``me`` saw them, for the inference of their
    hands (``ext/decide.pxi``): for each other player still holding unknown cards, their
    last ``per_player`` decisions of the tracker's history, oldest first, each ``(view,
    hidden, player, move, up, drawn)``: ``me``'s compiled view before it and its hidden
    counts, the move, the unknown cards it played (by rank, 16 counts: a play from the
    hand beyond the copies known to be there) and the cards the player drew after it.
    ``views`` caches the compiled views by history entry."""
    if tracker is None or not tracker.history:
        return []
    known_now = tracker.known
    out = []
    for i in range(len(tracker.history) - 1, -1, -1):
        past, known = tracker.history[i]
        q, mv = past.to_move, tracker.moves[i]
        if q == me or mv is None or state.out[q]:
            continue
        if sum(state.hands[q]) - sum(min(k, h) for k, h in zip(known_now[q], state.hands[q])) == 0:
            continue
        if sum(1 for o in out if o[2] == q) >= per_player:
            continue
        hit = views.get((id(past), me)) if views is not None else None
        if hit is None or hit[0] is not past:
            hit = (past, *state_view(past, me, known))
            if views is not None:
                views[(id(past), me)] = hit
        up = [0] * 16
        if mv.kind == "play" and sum(past.hands[q]):
            up[mv.rank] = max(0, mv.count - known[q][mv.rank])
        out.append((hit[1], hit[2], q, mv, up, tracker.drawn[i]))
    out.reverse()
    return out


def progress_pick(moves_vals, mover: int, margin: float, below: float = 1.0):
    """The moves left once a pickup is no longer chosen over a play within ``margin`` of
    it: when the best move (lowest loss of ``mover``) is a pickup, its loss is at most
    ``below``, and some other move's loss is at most ``margin`` above it, only those other
    moves stay (the best of them is then played); else every move stays. Why: against sides
    that also pick up, a pickup chosen for a small edge of the learned values makes another
    long stretch of the game, and most of those end drawn (benchmarks/RESULTS-strength.md,
    Where the draws come from); ``below`` keeps the pickups of the positions the mover does
    not already lead, where against an equal side their edge is worth keeping (rows p2-)."""
    if margin <= 0 or not moves_vals:
        return moves_vals
    best_move, best = min(moves_vals, key=lambda mv: mv[1][mover])
    if best_move.kind != PICKUP or best[mover] > below:
        return moves_vals
    plays = [(m, v) for m, v in moves_vals
             if m.kind != PICKUP and v[mover] <= best[mover] + margin]
    return plays or moves_vals


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
        return trivial_move(state, rng, self.stats, self.draw_limit)


def seat_view(state: State, tracker: HandTracker | None):
    """The mover, the state as they see it and the counts of the cards hidden from them
    (:func:`~palace_solver.sample.drawsearch.state_view`, with what ``tracker`` has seen
    of the others' hands)."""
    me = state.to_move
    view, hidden = state_view(state, me, tracker.known if tracker is not None else None)
    return me, view, hidden


def trivial_move(state: State, rng, stats: dict, draw_limit: int | None = None):
    """The move when no search is needed: forced, a layout, or the draw pile still above
    ``draw_limit`` (greedy's choice); else None. Counts the decision in ``stats``."""
    moves = state.legal_moves()
    stats["decisions"] += 1
    if len(moves) == 1:
        return moves[0]
    if state.phase != PLAY_PHASE or (draw_limit is not None and state.draw_pile > draw_limit):
        return GreedyBot().choose(state, rng)
    return None


class DetBot(_Base):
    """Determinization over the compiled deepening search (module doc): the compiled
    :class:`Decider` (:func:`palace_solver.sample.drawsearch.decide`) with every chance
    outcome kept, ``samples`` deals sharing ``samples * deal_nodes`` nodes (one deal and
    ``exact_mode_nodes`` when nothing is hidden), at most ``safety_seconds`` a decision
    (then, and only then, the machine can change a game)."""

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
        self.stats.update(solves=0, nodes=0)

    def config(self, state: State, hidden: int) -> SearchConfig:
        """The search of one decision: its deals and their shared node budget."""
        if hidden == 0:
            k, per = 1, (self.exact_mode_nodes if state.draw_pile == 0 else self.draw_nodes)
        else:
            k, per = self.samples, (self.deal_nodes if state.draw_pile == 0
                                    else self.draw_nodes)
        return SearchConfig(determinizations=k, nodes=k * per, chance_width=0, rollouts=0,
                            max_depth=199, hash_mb=self.hash_mb,
                            eval=self.eval_mode or compiled().get_eval_mode())

    def choose(self, state: State, rng: random.Random):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        me, view, hidden = seat_view(state, self.tracker)
        cfg = self.config(state, sum(hidden))
        raw = decide(view, hidden, cfg, self.seed * 1_000_003 + self.stats["decisions"],
                     self.safety_seconds)
        vals = [(m, mean) for m, mean, _ in move_means(raw, state.n)]
        self.stats["searched"] += 1
        self.stats["samples"] += raw["values"].shape[0]
        self.stats["solves"] += raw["searched"]
        self.stats["nodes"] += raw["nodes"]
        self.stats["seconds"] += time.perf_counter() - t0
        return _greedy_pick(state, vals, me, rng)


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
    already played that can come back (:meth:`history_views`), from the tracker.
    ``pickup_margin``: a pickup gives way to a play whose loss is within this much of it
    (:func:`progress_pick`; 0: the best move, as ``engine1`` plays), where the pickup's loss
    is at most ``pickup_below`` (1: everywhere); from the game's ``late_from``-th decision
    on (both seats', forced ones too, counted by the tracker from the first play, the first
    one 0) the bound is ``late_below`` (None: ``pickup_below`` throughout). Why: a game
    that has run that long is one nobody is finishing, and against sides that keep picking
    up it ends at a match's cap as a draw however far the engine leads
    (benchmarks/RESULTS-strength.md, Late progress). ``nopick_below``: the bound while no
    other player has taken the pile by choice in this game (with a play in hand), before
    either of those (None: never). Why: the pickups the learned values rate a little higher
    were learned from games where every side picks up for an edge; against sides that only
    pick up when they must, giving them up gained where the bounds keep them
    (RESULTS-strength.md, Progress against sides that never pick up by choice).
    ``sees_hands``: the search is given the others' hands as they are (the face-down cards
    and the draw pile stay hidden), an agent no player can be: what knowing the hands is
    worth, the most any inference of them could win (RESULTS-strength.md, rows o1-)."""

    name = "engine"

    def __init__(self, seed: int = 0, config: SearchConfig = ENGINE,
                 draw_limit: int | None = None, seconds: float | None = None,
                 endgame: SearchConfig | None = None, use_history: bool = True,
                 pickup_margin: float = 0.0, pickup_below: float = 1.0,
                 late_from: int = 200, late_below: float | None = None,
                 nopick_below: float | None = None, sees_hands: bool = False):
        super().__init__(seed, draw_limit)
        if not 0.0 <= pickup_margin <= 0.25:
            raise ValueError(f"pickup_margin {pickup_margin} is outside [0, 0.25]")
        if not 0.0 <= pickup_below <= 1.0:
            raise ValueError(f"pickup_below {pickup_below} is outside [0, 1]")
        if late_below is not None and not 0.0 <= late_below <= 1.0:
            raise ValueError(f"late_below {late_below} is outside [0, 1]")
        if nopick_below is not None and not 0.0 <= nopick_below <= 1.0:
            raise ValueError(f"nopick_below {nopick_below} is outside [0, 1]")
        if late_from < 0:
            raise ValueError(f"late_from {late_from} is negative")
        self.config, self.seconds = config, seconds
        self.endgame, self.use_history = endgame, use_history
        self.pickup_margin, self.pickup_below = pickup_margin, pickup_below
        self.late_from, self.late_below = late_from, late_below
        self.nopick_below, self.sees_hands = nopick_below, sees_hands
        #: the tracker last scanned for pickups by choice, how far, and whether one was seen
        self._picks = (None, 0, False)
        self.stats.update(nodes=0, depth=0)
        self._views: dict = {}
        #: the mover's mean loss for the move of the last searched decision (else None)
        self.last_figure = None

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
                hit = self._views[(id(past), me)] = (
                    past, *state_view(past, me, past.hands if self.sees_hands else known))
            out.append(hit[1:])
        return out

    def others_picked(self, me: int) -> bool:
        """Whether a player other than ``me`` has taken the pile by choice in this game (the
        tracker's history: a pickup from a position with a legal play). Each decision is
        read once; a new tracker (a new game) starts again."""
        tr = self.tracker
        if tr is None:
            return False
        seen, at, picked = self._picks
        if seen is not tr or at > len(tr.moves):
            at, picked = 0, False
        while not picked and at < len(tr.moves) and tr.moves[at] is not None:
            past, mv = tr.history[at][0], tr.moves[at]
            picked = past.to_move != me and pickup_by_choice(mv, past.legal_moves())
            at += 1
        self._picks = (tr, at, picked)
        return picked

    def pickup_bound(self, me: int | None = None) -> float:
        """The pickup's loss up to which :func:`progress_pick` acts now for seat ``me``:
        ``nopick_below`` while no other player has taken the pile by choice
        (:meth:`others_picked`); else ``late_below`` once ``late_from`` decisions of the
        game have been played (the tracker's history holds them and the position to
        move); else ``pickup_below``."""
        if self.nopick_below is not None and me is not None and self.tracker is not None \
                and not self.others_picked(me):
            return self.nopick_below
        if self.late_below is not None and self.tracker is not None \
                and len(self.tracker.history) > self.late_from:
            return self.late_below
        return self.pickup_below

    def choose(self, state: State, rng: random.Random):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        if self.sees_hands:
            me = state.to_move
            view, hidden = state_view(state, me, state.hands)
        else:
            me, view, hidden = seat_view(state, self.tracker)
        cfg = self.endgame if self.endgame is not None and state.draw_pile == 0 \
            else self.config
        obs = observations(state, me, self.tracker, views=self._views) \
            if cfg.infer and self.use_history and not self.sees_hands else None
        raw = decide(view, hidden, cfg,
                     (self.seed * 1_000_003 + self.stats["decisions"]), self.seconds,
                     history=self.history_views(state, me), observations=obs)
        vals = [(m, mean) for m, mean, _ in move_means(raw, state.n)]
        self.stats["searched"] += 1
        self.stats["samples"] += raw["values"].shape[0]
        self.stats["nodes"] += raw["nodes"] + raw["playout_steps"]
        self.stats["depth"] += max(raw["depth"])
        self.stats["seconds"] += time.perf_counter() - t0
        move = _greedy_pick(state, progress_pick(vals, me, self.pickup_margin,
                                                    self.pickup_bound(me)), me, rng)
        # the record's figure (results.probability), not what the choice above compared
        self.last_figure = probability(dict(vals)[move][me])
        return move


METHOD_BOTS = {"det": DetBot, "ismcts": IsmctsBot, "engine": SearchBot}

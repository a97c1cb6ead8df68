"""Exact values of exact-mode positions: the readable reference solver.

Why layers. Voluntary pickups make the game graph cyclic, so plain depth-first
expectiminimax never ends and a table mixed with repetition checks gives path-dependent
values. But four quantities only ever move one way: the face-down cards (flips), the
face-up cards (they never come back: a pickup goes to the hand), the burned cards and the
players out. Their sum ``progress = face_down + face_up - burned - out`` drops on every move
that changes any of them and stays put on every other move. So positions with the same
progress form a *layer*; every cycle lies inside one layer; every chance event (a flip)
leaves its layer; and the layers can be solved one by one, from the lowest progress up,
with each layer's exits already known.

Inside a layer the game is deterministic with perfect information. With two players it is
a zero-sum reachability game whose endless plays score 1/2 (RULES.md), solved exactly by
two Dijkstra-like sweeps (see :func:`_solve_layer_2p`). With three or more players in the
layer, values come from a documented deterministic fixed point (see
:func:`_solve_layer_np`); once two players remain the game is in another layer, solved by
the two-player method, as RULES.md requires.

Values are exact :class:`fractions.Fraction` here; the compiled solver uses doubles and is
checked against this one.
"""
from __future__ import annotations

import heapq
import time
from fractions import Fraction

from ..game.moves import Move
from ..game.state import State
from .results import Analysis, MoveValue, check_exact, rank_moves

HALF = Fraction(1, 2)
#: Jacobi sweeps of a 3+ player layer before it is declared not converged (also the
#: compiled solver's MAX_SWEEPS).
MAX_SWEEPS = 1000


def progress(s: State) -> int:
    """Decreases on every irreversible event, constant otherwise (see the module doc)."""
    return (sum(s.face_down) + sum(sum(f) for f in s.face_up) - sum(s.burned)
            - sum(s.out))


def draw_value(s: State) -> list[Fraction]:
    """Endless play: the players still in share the loss equally."""
    act = s.active()
    share = Fraction(1, len(act))
    return [share if not s.out[p] else Fraction(0) for p in range(s.n)]


class ExactSolver:
    """Builds the whole graph reachable from a position and solves it layer by layer.

    ``edges[u]`` lists, per legal move of node ``u``, the outcomes ``(prob, target)`` where
    a target is a node id (int) or a terminal loss vector (tuple).

    ``history``: the game's earlier positions (the root among them or not). Reaching one
    again ends the game in a draw (RULES.md), so each is a terminal with the draw value
    where the graph meets it; without it the values are those of the position itself.
    """

    def __init__(self, root: State, history=None):
        check_exact(root)
        if root.is_chance() or root.is_terminal():
            raise ValueError("the exact solver starts at a decision node")
        self.root = root
        self.n = root.n
        self.ids: dict = {}
        self.states: list[State] = []
        self.moves: list[list[Move]] = []
        self.edges: list[list[list]] = []
        self.value: list = []
        self.history = {h.key() for h in history or ()}

    # -- graph ----------------------------------------------------------------------------
    def _node(self, s: State, todo: list) -> int:
        k = s.key()
        u = self.ids.get(k)
        if u is None:
            u = self.ids[k] = len(self.states)
            self.states.append(s)
            todo.append(u)
        return u

    def _target(self, s: State, todo: list):
        if s.is_terminal():
            return tuple(s.result())
        if self.history and s.key() in self.history:
            return tuple(draw_value(s))
        return self._node(s, todo)

    def build(self) -> None:
        todo: list[int] = []
        self._node(self.root.clone(), todo)
        while todo:
            u = todo.pop()
            s = self.states[u]
            ms = s.legal_moves()
            es = []
            for m in ms:
                c = s.clone()
                c.apply(m)
                if c.is_chance():
                    outs = []
                    for r, p in c.chance_outcomes():
                        d = c.clone()
                        d.apply(r)
                        outs.append((p, self._target(d, todo)))
                    es.append(outs)
                else:
                    es.append([(Fraction(1), self._target(c, todo))])
            while len(self.moves) <= u:
                self.moves.append([])
                self.edges.append([])
            self.moves[u], self.edges[u] = ms, es

    # -- values ---------------------------------------------------------------------------
    def _edge_value(self, edge) -> list:
        total = [Fraction(0)] * self.n
        for p, t in edge:
            v = t if isinstance(t, tuple) else self.value[t]
            for i in range(self.n):
                total[i] += p * v[i]
        return total

    def solve(self) -> list:
        t0 = time.perf_counter()
        self.build()
        self.value = [None] * len(self.states)
        layers: dict[tuple, list[int]] = {}
        for u, s in enumerate(self.states):
            # Same progress, different players out: no move links the two groups.
            layers.setdefault((progress(s), len(s.active()) == 2), []).append(u)
        self.fixed_point = {"layers": 0, "cycling": 0, "max_period": 0, "max_sweeps": 0}
        for lvl, two in sorted(layers):
            nodes = layers[lvl, two]
            if two:
                _solve_layer_2p(self, nodes)
            else:
                fp = _solve_layer_np(self, nodes)
                self.fixed_point["layers"] += 1
                self.fixed_point["cycling"] += fp["cycling"]
                self.fixed_point["max_period"] = max(self.fixed_point["max_period"],
                                                     fp["period"])
                self.fixed_point["max_sweeps"] = max(self.fixed_point["max_sweeps"],
                                                     fp["sweeps"])
        self.seconds = time.perf_counter() - t0
        self.layers = len(layers)
        return self.value[0]

    def analysis(self) -> Analysis:
        if not self.value:
            self.solve()
        mover = self.root.to_move
        mv = [MoveValue(m, self._edge_value(e)) for m, e in zip(self.moves[0], self.edges[0])]
        stats = {"nodes": len(self.states), "layers": self.layers,
                 "seconds": round(self.seconds, 6), "engine": "python"}
        if len(self.root.active()) > 2:
            stats["fixed_point"] = dict(self.fixed_point)
            stats["converged"] = self.fixed_point["cycling"] == 0
        return Analysis("exact", mover, self.value[0], rank_moves(mover, mv), stats)


def _split_options(solver: ExactSolver, u: int, inside: set):
    """A node's options: known values (exits, solved nodes) and unknown children."""
    known, unknown = [], []
    for e in solver.edges[u]:
        if len(e) == 1 and not isinstance(e[0][1], tuple) and e[0][1] in inside:
            unknown.append(e[0][1])
        else:
            known.append(solver._edge_value(e))
    return known, unknown


def _solve_layer_2p(solver: ExactSolver, nodes: list[int]) -> None:
    """Zero-sum reachability game with endless play worth 1/2.

    With players a < b the two still in, let v be a's loss; a minimises it, b maximises it.
    First sweep: values above 1/2, met from the highest down. A node of b takes the first
    value that reaches it (the best it can force); a node of a only once all its options
    are known and above 1/2 (then it takes their minimum). This is the attractor of b to
    the exits of value >= t for every threshold t at once, computed like Dijkstra's
    algorithm. Second sweep: the same for values below 1/2 with the roles swapped. A node
    reached by neither sweep can be held to 1/2 by both players (each stays out of the
    other's attractor), so endless play or exits worth 1/2 give it exactly 1/2.
    """
    inside = set(nodes)
    n = solver.n
    pair = {u: solver.states[u].active() for u in nodes}

    def vector(u, v):
        a, b = pair[u]
        out = [Fraction(0)] * n
        out[a], out[b] = v, 1 - v
        return out

    for sweep, sign in ((0, 1), (1, -1)):
        # score = sign * v; the sweep's first-resolver (b, then a) maximises it.
        half = sign * HALF
        heap: list = []
        remaining: dict[int, int] = {}
        worst: dict[int, Fraction] = {}
        blocked: set[int] = set()
        preds: dict[int, list[int]] = {}

        def resolves_first(u):
            return (solver.states[u].to_move == pair[u][0]) == (sweep == 1)

        for u in [u for u in nodes if u in inside]:
            known, unknown = _split_options(solver, u, inside)
            for c in unknown:
                preds.setdefault(c, []).append(u)
            scores = [sign * k[pair[u][0]] for k in known]
            if resolves_first(u):
                good = [s for s in scores if s > half]
                if good:
                    heapq.heappush(heap, (-max(good), u))
            else:
                if any(s <= half for s in scores):
                    blocked.add(u)
                    continue
                remaining[u] = len(unknown)
                worst[u] = min(scores) if scores else None
                if not unknown:
                    heapq.heappush(heap, (-worst[u], u))
        done: set[int] = set()
        while heap:
            negs, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            s = -negs
            solver.value[u] = vector(u, sign * s)
            for p in preds.get(u, ()):
                if p in done or p in blocked:
                    continue
                if resolves_first(p):
                    heapq.heappush(heap, (-s, p))
                else:
                    remaining[p] -= 1
                    w = worst[p]
                    worst[p] = s if w is None or s < w else w
                    if remaining[p] == 0:
                        heapq.heappush(heap, (-worst[p], p))
        inside -= done
    for u in inside:
        solver.value[u] = vector(u, HALF)


def _solve_layer_np(solver: ExactSolver, nodes: list[int], max_sweeps: int = MAX_SWEEPS) -> dict:
    """Three or more players in the layer: a deterministic fixed point.

    Start every node of the layer at the draw value (the players still in share the loss)
    and update all nodes at once from the previous sweep's values (Jacobi, so the result
    does not depend on the order nodes were met), each mover taking the option with its
    lowest own loss (ties: the first option in legal-move order), until nothing changes or
    ``max_sweeps`` sweeps have run. Within a layer every option is a copy of another node's
    value or of an exit, so the values stay exact fractions.

    Not every layer settles. The sweep maps a finite set to itself (every value is a copy of
    an exit or of a draw value), so a layer that does not settle cycles: movers keep
    answering each other's last choice. Brent's method finds the cycle (one saved copy of
    the values, compared exactly, at sweeps 1, 2, 4, 8, ...); the layer's values are then
    still those after ``max_sweeps`` sweeps (a known point of the cycle, reached without
    running the rest), but they are not a fixed point and the analysis says so
    (``stats["converged"]``). Returns ``{"sweeps", "cycling", "period"}`` (period 0: no
    cycle found within the sweeps).
    """
    inside = set(nodes)
    for u in nodes:
        solver.value[u] = draw_value(solver.states[u])
    opts = {}
    for u in nodes:
        row = []
        for e in solver.edges[u]:
            if len(e) == 1 and not isinstance(e[0][1], tuple) and e[0][1] in inside:
                row.append(e[0][1])
            else:
                row.append(tuple(solver._edge_value(e)))
        opts[u] = row
    saved = [list(solver.value[u]) for u in nodes]
    lam = power = 1
    extra = None
    sweeps = 0
    converged = False
    period = 0
    while sweeps < max_sweeps:
        new = {}
        for u in nodes:
            p = solver.states[u].to_move
            best = None
            for o in opts[u]:
                v = list(o) if isinstance(o, tuple) else solver.value[o]
                if best is None or v[p] < best[p]:
                    best = v
            new[u] = list(best)
        changed = any(new[u] != solver.value[u] for u in nodes)
        for u in nodes:
            solver.value[u] = new[u]
        sweeps += 1
        if not changed:
            converged = True
            break
        if extra is not None:
            extra -= 1
            if extra == 0:
                break
            continue
        cur = [solver.value[u] for u in nodes]
        if cur == saved:
            # the values after `sweeps` sweeps repeat those `lam` sweeps earlier
            period = lam
            extra = (max_sweeps - sweeps) % lam
            if extra == 0:
                break
            continue
        if lam == power:
            saved = [list(v) for v in cur]
            power *= 2
            lam = 0
        lam += 1
    return {"sweeps": sweeps, "cycling": int(not converged), "period": period}

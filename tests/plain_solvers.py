"""Plain, independent implementations of the values the solvers compute, for the tests.

Nothing here imports the solvers under test (``palace_solver.solve``, ``palace_solver._engine``):
moves, chance and results come from the reference rules engine (``palace_solver.game.state``),
and each value is computed the simplest way its definition allows. Slow on purpose; meant for
graphs of a few thousand positions and searches of a few tens of thousands of nodes.

- :class:`PlainGraph` enumerates every decision position reachable from a root (a node
  budget really bounds it: :class:`TooBig`) and values it by the definitions of RULES.md and
  docs/exact.md: positions split into groups that no cycle leaves (face-down, face-up, burned
  and out counts only move one way), solved from the end of the game backwards. Two players
  in a group: the zero-sum game whose endless plays score 1/2, by one reachability or safety
  fixed point per threshold value (no sweeps, no heaps). Three or more: value iteration from
  the draw value with exact fractions, every node updated from the previous iteration's
  values (Jacobi), the mover taking its lowest own loss, ties to the first legal move, until
  nothing changes; values that come back without settling raise :class:`Cycling`.
- :func:`plain_search` is depth-limited expectiminimax: every move, every outcome, no table,
  no pruning, a repetition of a position on the line scores as a draw, and at depth 0 the
  horizon evaluation :func:`horizon_eval` (a copy of ``ext/deepen.pxi``'s formula).
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

from palace_solver.game.state import State


class TooBig(Exception):
    """The enumeration or search went past its budget."""


class Cycling(Exception):
    """Value iteration of a group with three or more players came back to earlier values
    without settling: its answer would depend on where it stopped."""


def draw_value(s: State) -> tuple:
    """Endless play: the players still in share the loss."""
    k = sum(not o for o in s.out)
    return tuple(Fraction(0) if s.out[p] else Fraction(1, k) for p in range(s.n))


def one_way_counts(s: State) -> tuple:
    """Face-down, face-up, burned and out counts: each moves one way only, so a cycle keeps
    all four, and a move that changes any of them leaves the group for good."""
    return (sum(s.face_down), sum(map(sum, s.face_up)), sum(s.burned), sum(s.out))


def _potential(counts: tuple) -> int:
    fd, fu, burned, out = counts
    return fd + fu - burned - out      # strictly lower after any one-way change


class PlainGraph:
    """The whole graph below ``root`` with exact values (module doc).

    ``options[u]`` is a list, one per legal move, of ``(prob, target)`` outcomes, a target
    being a node id or a terminal loss tuple. ``value[u]`` is the node's loss vector.
    """

    def __init__(self, root: State, budget: int = 5000):
        assert not root.is_chance() and not root.is_terminal()
        self.n = root.n
        self.ids: dict = {}
        self.states: list[State] = []
        self.moves: list = []
        self.options: list = []
        self.budget = budget
        self._node(root.clone())
        u = 0
        while u < len(self.states):           # breadth-first; ids in discovery order
            s = self.states[u]
            ms = s.legal_moves()
            opts = []
            for m in ms:
                c = s.clone()
                c.apply(m)
                if c.is_chance():
                    outs = []
                    for r, p in c.chance_outcomes():
                        d = c.clone()
                        d.apply(r)
                        outs.append((p, self._target(d)))
                    opts.append(outs)
                else:
                    opts.append([(Fraction(1), self._target(c))])
            self.moves.append(ms)
            self.options.append(opts)
            u += 1
        self.value: list = [None] * len(self.states)
        self.sweeps = 0       # most value-iteration rounds that changed a value in a group

    def _node(self, s: State) -> int:
        k = s.key()
        u = self.ids.get(k)
        if u is None:
            if len(self.states) >= self.budget:
                raise TooBig(f"more than {self.budget} positions")
            u = self.ids[k] = len(self.states)
            self.states.append(s)
        return u

    def _target(self, s: State):
        return tuple(s.result()) if s.is_terminal() else self._node(s)

    def __len__(self) -> int:
        return len(self.states)

    # -- values -------------------------------------------------------------------------
    def option_value(self, outs) -> tuple:
        total = [Fraction(0)] * self.n
        for p, t in outs:
            v = t if isinstance(t, tuple) else self.value[t]
            assert v is not None, "an exit was not solved before its group"
            for i in range(self.n):
                total[i] += p * v[i]
        return tuple(total)

    def solve(self) -> "PlainGraph":
        groups: dict = {}
        for u, s in enumerate(self.states):
            # Who is out, too: two groups with the same counts but different players out
            # have no move between them, and a two-player group needs its two players.
            groups.setdefault((one_way_counts(s), tuple(s.out)), []).append(u)
        for counts, out in sorted(groups, key=lambda g: _potential(g[0])):
            nodes = groups[counts, out]
            inside = set(nodes)
            # Per node and move: ("in", node) for a move that stays in the group, else
            # ("exit", loss vector) with every outcome already solved.
            opts = {}
            for u in nodes:
                row = []
                for outs in self.options[u]:
                    t = outs[0][1]
                    if len(outs) == 1 and not isinstance(t, tuple) and t in inside:
                        row.append(("in", t))
                    else:
                        row.append(("exit", self.option_value(outs)))
                opts[u] = row
            active = self.n - counts[3]
            if active == 2:
                self._solve_two(nodes, opts)
            else:
                self._solve_many(nodes, opts)
        return self

    def _solve_many(self, nodes, opts) -> None:
        """Jacobi value iteration from the draw value, exact fractions."""
        val = {u: draw_value(self.states[u]) for u in nodes}
        seen = set()
        rounds = 0
        while True:
            new = {}
            for u in nodes:
                p = self.states[u].to_move
                best = None
                for kind, x in opts[u]:
                    v = val[x] if kind == "in" else x
                    if best is None or v[p] < best[p]:
                        best = v
                new[u] = best
            if new == val:
                break
            snap = tuple(new[u] for u in nodes)
            if snap in seen:
                raise Cycling(f"a group of {len(nodes)} positions cycles")
            seen.add(snap)
            val = new
            rounds += 1
            self.sweeps = max(self.sweeps, rounds)
        for u in nodes:
            self.value[u] = val[u]

    def _solve_two(self, nodes, opts) -> None:
        """Two players a < b: v = a's loss, a minimises, b maximises, endless play 1/2.

        a can hold v <= x, for x below 1/2, exactly when a can force the game out of the
        group through an exit worth at most x (a reachability fixed point); for x at least
        1/2, exactly when b cannot force it out through an exit worth more than x (the
        complement of b's reachability). The value is the least such x among the exit
        values and 1/2."""
        a, b = [p for p in range(self.n) if not self.states[nodes[0]].out[p]]
        exits = sorted({x[a] for u in nodes for kind, x in opts[u] if kind == "exit"}
                       | {Fraction(1, 2)})

        def force(player, good):
            """Nodes from which ``player`` can force leaving through an exit with
            ``good(value of a)``: least fixed point, plain iteration."""
            win: set = set()
            changed = True
            while changed:
                changed = False
                for u in nodes:
                    if u in win:
                        continue
                    ok = [(kind == "exit" and good(x[a])) or (kind == "in" and x in win)
                          for kind, x in opts[u]]
                    if any(ok) if self.states[u].to_move == player else all(ok):
                        win.add(u)
                        changed = True
            return win

        value: dict = {}
        for x in exits:
            if x < Fraction(1, 2):
                holds = force(a, lambda v, x=x: v <= x)
            else:
                holds = set(nodes) - force(b, lambda v, x=x: v > x)
            for u in holds:
                value.setdefault(u, x)
        for u in nodes:
            v = value[u]
            vec = [Fraction(0)] * self.n
            vec[a], vec[b] = v, 1 - v
            self.value[u] = tuple(vec)

    def components(self) -> dict:
        """Key -> id of its strongly connected component (positions that can reach each
        other; Tarjan's algorithm, iterative). Only moves without chance can stay in one."""
        succ = [[outs[0][1] for outs in opts
                 if len(outs) == 1 and not isinstance(outs[0][1], tuple)]
                for opts in self.options]
        index, low, comp, stack, on = {}, {}, {}, [], set()
        counter = 0
        for root in range(len(self.states)):
            if root in index:
                continue
            work = [(root, 0)]
            while work:
                u, i = work.pop()
                if i == 0:
                    index[u] = low[u] = counter
                    counter += 1
                    stack.append(u)
                    on.add(u)
                if i < len(succ[u]):
                    work.append((u, i + 1))
                    w = succ[u][i]
                    if w not in index:
                        work.append((w, 0))
                    elif w in on:
                        low[u] = min(low[u], index[w])
                    continue
                if low[u] == index[u]:
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp[w] = u
                        if w == u:
                            break
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[u])
        return {self.states[u].key(): c for u, c in comp.items()}

    def root_moves(self) -> dict:
        """Move text -> loss vector after that move, at the root."""
        return {str(m): self.option_value(outs)
                for m, outs in zip(self.moves[0], self.options[0])}


# -- depth-limited search --------------------------------------------------------------------

#: ext/deepen.pxi: EVAL_SCALE, EVAL_TEMPO (0: no tempo term), EVAL_BLIND.
EVAL_SCALE, EVAL_BLIND = 0.35, 1.5


def horizon_eval(s: State) -> list[float]:
    """The search's horizon estimate of each player's loss: a softmax of the cards each
    still holds (face-down cards weigh 1.5), players out at 0."""
    e = [0.0 if s.out[p] else
         math.exp(EVAL_SCALE * (sum(s.hands[p]) + sum(s.face_up[p]) + EVAL_BLIND * s.face_down[p]))
         for p in range(s.n)]
    z = sum(e)
    return [x / z for x in e]


class PlainSearch:
    """Expectiminimax to a fixed depth (module doc); ``calls`` counts decision nodes and a
    ``budget`` on them raises :class:`TooBig`.

    ``history``: keys of positions the game already went through. Reaching one is a draw,
    like reaching a position of the line; and with a history, a mover at the horizon with a
    move straight to a position of the history or of the line takes that draw when the
    estimate is worse for them (a game ends at its first repeated position).

    ``contempt``: the root's mover counts a repetition that much worse than a draw, each
    other player still in ``contempt / (players in - 1)`` better (DeepSearch.contempt).

    ``paranoid``: the root's mover minimises their own loss and every other mover maximises
    it (DeepSearch.paranoid); only the root mover's figure of a result is meaningful.

    ``greedy_seats``: seats that play the greedy bot's move (the Python bot) at each of
    their decisions below the root (DeepSearch.greedy_seats)."""

    def __init__(self, budget: int = 10 ** 6, history=(), contempt: float = 0.0,
                 paranoid: bool = False, greedy_seats=()):
        self.calls = 0
        self.evals = 0
        self.budget = budget
        self.history = frozenset(history)
        self.contempt = contempt
        self.paranoid = paranoid
        self.greedy_seats = frozenset(greedy_seats)
        self.me = None
        self.horizon: list = []       # (state, estimate) of a few horizon nodes, for checks

    def root(self, s: State, depth: int) -> dict:
        """Move text -> loss vector, each root move searched to ``depth`` plies in all."""
        self.me = s.to_move
        return {str(m): self._after(self._child(s, m), depth - 1, (s.key(),))
                for m in s.legal_moves()}

    def _draw(self, s: State) -> list[float]:
        v = [float(x) for x in draw_value(s)]
        live = [p for p in range(s.n) if not s.out[p]]
        if self.contempt and len(live) >= 2 and self.me in live:
            v = [x + self.contempt if p == self.me
                 else x - self.contempt / (len(live) - 1) if p in live else x
                 for p, x in enumerate(v)]
        return v

    def _moves(self, s: State) -> list:
        moves = s.legal_moves()
        if s.to_move in self.greedy_seats and len(moves) > 1:
            from palace_solver.sample.policies import GreedyBot
            return [GreedyBot().choose(s, random.Random(0))]
        return moves

    @staticmethod
    def _child(s: State, m) -> State:
        c = s.clone()
        c.apply(m)
        return c

    def _after(self, s: State, depth: int, path: tuple) -> list[float]:
        if s.is_terminal():
            return [float(x) for x in s.result()]
        if not s.is_chance():
            return self._decision(s, depth, path)
        outs = s.chance_outcomes()
        total = sum(s.pool)
        acc = [0.0] * s.n
        for r, _ in outs:
            d = s.clone()
            d.apply(r)
            v = ([float(x) for x in d.result()] if d.is_terminal()
                 else self._decision(d, depth, path))
            p = s.pool[r] / total
            acc = [a + p * x for a, x in zip(acc, v)]
        return acc

    def _decision(self, s: State, depth: int, path: tuple) -> list[float]:
        self.calls += 1
        if self.calls > self.budget:
            raise TooBig(f"more than {self.budget} nodes")
        k = s.key()
        if k in path or k in self.history:
            return self._draw(s)
        if depth <= 0:
            self.evals += 1
            v = horizon_eval(s)
            if len(self.horizon) < 50:
                self.horizon.append((s, v))
            if self.history and v[s.to_move] > self._draw(s)[s.to_move]:
                for m in self._moves(s):
                    c = self._child(s, m)
                    if not c.is_terminal() and not c.is_chance() and (
                            c.key() in path or c.key() in self.history):
                        return self._draw(s)
            return v
        mover = s.to_move
        best = None
        for m in self._moves(s):
            v = self._after(self._child(s, m), depth - 1, path + (k,))
            if best is None or (v[mover] < best[mover] if not self.paranoid else
                                v[self.me] < best[self.me] if mover == self.me else
                                v[self.me] > best[self.me]):
                best = v
        return best

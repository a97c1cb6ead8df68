"""The compiled analysis: the exact graph solver, with a depth-limited search as the fallback
when the graph is too large for the budget.

:func:`solve_compiled` first enumerates the whole graph (``ExactGraph``: exact values, the
method of :mod:`palace_solver.solve.exact`). When the graph outgrows ``max_nodes`` or half the
time budget, it answers with iterative deepening instead (:mod:`palace_solver.solve.deepening`):
values to the depth reached, with the horizon evaluation at the cut-off.
"""
from __future__ import annotations

import time

from ..game.state import State
from .deepening import search_deepening
from .engine import _module
from .results import Analysis, MoveValue, check_exact, rank_moves

DEFAULT_MAX_NODES = 25_000_000   # about 4.5 GB of graph (~180 bytes a position)
#: Deepening time when the graph outgrows the node budget and no time budget was given.
FALLBACK_SECONDS = 60.0


def solve_compiled(state: State, *, time_budget: float | None = None, depth: int | None = None,
                   hash_mb: int = 256, max_nodes: int = DEFAULT_MAX_NODES,
                   progress=None) -> Analysis:
    """Exact analysis with the compiled solver, or a depth-limited one past the budgets.

    ``depth`` forces the depth-limited search to that depth (no exact graph).
    """

    eng = _module()
    check_exact(state)
    t0 = time.perf_counter()
    root = eng.CState.from_state(state)
    if depth is None:
        g = eng.ExactGraph(root)
        budget = 0.0 if time_budget is None else time_budget / 2
        if g.build(max_nodes=max_nodes, seconds=budget, progress=progress):
            g.solve()
            mover = state.to_move
            moves = [MoveValue(m, v) for m, v in g.root_moves()]
            stats = g.stats()
            stats.update(seconds=round(time.perf_counter() - t0, 6), engine="cython",
                         depth="end")
            return Analysis("exact", mover, g.root_value(), rank_moves(mover, moves), stats,
                            graph=g)
        del g

    # Past the node budget with no time budget: deepen for a bounded time, not forever.
    left = (FALLBACK_SECONDS if time_budget is None
            else max(0.05, time_budget - (time.perf_counter() - t0)))
    if depth is not None:
        left = time_budget
    return search_deepening(state, time_budget=left, depth=depth, hash_mb=hash_mb,
                            progress=progress)

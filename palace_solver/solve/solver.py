"""The exact analysis of a decision node: the compiled solver when it is built, else the
readable reference of :mod:`palace_solver.solve.exact`.

This is the one place that chooses between the two, so that the reference solver imports
nothing of the compiled side and the compiled driver nothing of the reference.
"""
from __future__ import annotations

from ..game.state import State
from .compiled import solve_compiled
from .engine import cython_available
from .exact import ExactSolver
from .results import Analysis


def solve_exact(state: State, *, time_budget=None, depth=None, hash_mb: float | None = None,
                engine: str | None = None, threads: int | None = None,
                progress=None, history=None, horizon=None) -> Analysis:
    """Analysis of a decision node in exact mode.

    ``engine``: ``"python"`` (the reference solver), ``"cython"`` (the compiled solver), or
    None for the compiled one when it is built. ``threads``: threads of the compiled graph
    solver (default: every core). ``history``: the game's earlier positions (States):
    reaching one again is a draw. ``horizon``: the compiled fallback's value where its
    search stops (:func:`~palace_solver.solve.compiled.solve_compiled`).
    """
    if engine is None:
        engine = "cython" if cython_available() else "python"
    if engine == "python":
        return ExactSolver(state, history=history).analysis()
    return solve_compiled(state, time_budget=time_budget, depth=depth, hash_mb=hash_mb,
                          threads=threads, progress=progress, history=history,
                          horizon=horizon)

"""The compiled analysis: the exact graph solver, with a depth-limited search as the fallback
when the graph is too large for the budget.

:func:`solve_compiled` enumerates and solves the whole graph (``ExactGraph``: exact values,
the method of :mod:`palace_solver.solve.exact`) when it fits; otherwise it answers with
iterative deepening (:mod:`palace_solver.solve.deepening`): values to the depth reached,
with the horizon evaluation at the cut-off.

How a time budget is spent. The graph either fits the budget or every second spent on it
is lost, so the choice is made before and during the build:

1. :func:`predict_nodes` estimates the graph's size from the position (a fit of log size on
   card counts, ``benchmarks/budget_eval.py --fit``) in microseconds. It is rough (a factor
   3 either way on a third of the positions), so only when even a generous reading of it
   (the estimate over ``PREDICT_SPREAD``) exceeds what the budget can build and solve at
   the measured rate does the whole budget go to deepening at once.
2. Otherwise the build starts, capped at ``BUILD_SHARE`` of the budget (``FULL_SHARE``
   when the estimate fits easily), and gives up as soon as the positions already found but not yet
   expanded, plus the solve of those found, cannot be done in the time left (a lower bound
   on the remaining work). The deepening gets whatever is left.
3. The deepening's table is sized to the budget and reused across calls of one process
   (:func:`palace_solver.solve.deepening.new_search`).

The rates (nanoseconds a position, build and solve) start from measured defaults, follow
this process's own builds and solves (an average over the last ones) and are scaled by the
load average over the cores, so a busy machine is accounted for.

Memory: without a time budget the graph is built until it is complete or would use more
than ``MEMORY_SHARE`` of the memory available; then :class:`GraphTooLargeError` says how much
it would need. It never swaps.
"""
from __future__ import annotations

import math
import os
import time

from ..game.state import State
from .deepening import search_deepening
from .engine import _module
from .results import Analysis, MoveValue, check_exact, rank_moves

#: Node cap of the whole-graph solve when none is given: memory decides (MEMORY_SHARE).
DEFAULT_MAX_NODES = 2_000_000_000
#: Deepening time when the graph is too large and neither time nor depth was given, after
#: an explicit ``max_nodes`` cap.
FALLBACK_SECONDS = 60.0
#: Share of the available memory (MemAvailable) the graph may use.
MEMORY_SHARE = 0.7
#: Bytes a position while building, when no graph has been measured in this process yet
#: (keys, map, moves; two players, 3+3+3 cards: about 50).
BUILD_BYTES_DEFAULT = 56.0
#: Seconds of build and solve per position, one thread, before any solve was measured here.
BUILD_S_DEFAULT = 0.45e-6
SOLVE_S_DEFAULT = 0.30e-6
#: Speed-up of two threads and more over one (the expansion runs in parallel, the map and
#: the layers' sweeps do not).
THREAD_GAIN = {1: 1.0, 2: 1.5}
#: A graph predicted at more than PREDICT_SPREAD x the positions the budget allows is not
#: attempted; below 1 / FULL_SPREAD of them the build may take the whole budget.
PREDICT_SPREAD = 10.0
FULL_SPREAD = 3.0
#: Without a time budget, a graph predicted to need more than this many times the memory
#: that may be used is refused before any build; otherwise the build runs into the cap.
REFUSE_SPREAD = 50.0
#: Share of the budget the build may take when the estimate fits easily, and when it does
#: not: the rest is left to the deepening, should the build give up (a busy machine, an
#: estimate too low).
FULL_SHARE = 0.7
BUILD_SHARE = 0.4
#: Time kept back for the answer (root moves, the Analysis) when the graph is attempted.
RESERVE_S = 0.01

_rates = {"build": BUILD_S_DEFAULT, "solve": SOLVE_S_DEFAULT, "bytes": BUILD_BYTES_DEFAULT}


class GraphTooLargeError(MemoryError):
    """The whole graph does not fit in memory (the message says how much it would need)."""


def default_threads() -> int:
    """Every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def available_memory() -> int:
    """Bytes of memory available without swapping (MemAvailable), or 4 GiB if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


# Coefficients of log(positions) on the features of _features, fitted by least squares on
# 86 graphs of 1,000 to 32 M positions (random exact-mode positions of 2-4 players and the
# bench suite; benchmarks/budget_eval.py --fit). Leave-one-out: within a factor 3 on 2 of 3
# positions, rms error 1.2 in log; it overestimates the largest suite positions (3+3+2 and
# 3+3+3 cards each) by 10-40x. Hence the wide margins below: the estimate only rules out
# what is far beyond reach, the build itself decides the rest.
_FIT = (1.255, 0.733, 0.171, -0.183, -0.047, -1.937)


def _features(state: State) -> list[float]:
    """log of a count of card distributions, then cards in hands and pile, face-up cards,
    face-down cards, log(players)."""
    n = state.n
    alive = [sum(h[r] for h in state.hands) + sum(f[r] for f in state.face_up) + state.pool[r]
             for r in range(16)]
    for r in state.pile:
        alive[r] += 1
    lu = 0.0
    for c in alive:
        if c:
            lu += math.log(math.comb(c + n + 1, n + 1))   # hands, pile, burned
    for p in range(n):
        if state.out[p]:
            continue
        lu += math.log(state.face_down[p] + 1)
        for c in state.face_up[p]:
            lu += math.log(c + 1)
    free_cards = sum(sum(h) for h in state.hands) + len(state.pile)
    return [lu, free_cards, sum(sum(f) for f in state.face_up), sum(state.face_down),
            math.log(max(2, len(state.active())))]


def predict_nodes(state: State) -> float:
    """A rough estimate of the number of positions of the whole graph (see _FIT)."""
    x = _features(state)
    return math.exp(_FIT[0] + sum(c * v for c, v in zip(_FIT[1:], x)))


def usable_memory() -> int:
    """Bytes a whole-graph solve may use."""
    return int(available_memory() * MEMORY_SHARE)


def refused_outright(est: float, mem_cap: int | None = None) -> bool:
    """Whether a whole-graph solve without a time budget of a graph predicted to hold
    ``est`` positions is refused before it starts (it could not fit in ``mem_cap`` bytes,
    by default :func:`usable_memory`, even if the prediction were far too high)."""
    return est * _rates["bytes"] > REFUSE_SPREAD * (usable_memory() if mem_cap is None
                                                    else mem_cap)


def estimate_seconds(state: State, threads: int | None = None) -> tuple[float, float]:
    """``(positions, seconds)``: the predicted size of the whole graph and the time to
    build and solve it here, at the current load (as rough as :func:`predict_nodes`)."""
    threads = default_threads() if threads is None else max(1, int(threads))
    est = predict_nodes(state)
    return est, est * _rate(threads)


def load_factor() -> float:
    """How much slower than alone this process runs now: the 1-minute load average over
    the cores (at least 1). The CPU may be shared with other jobs."""
    try:
        return max(1.0, os.getloadavg()[0] / default_threads())
    except OSError:
        return 1.0


def _rate(threads: int) -> float:
    """Seconds of build and solve per position with this many threads, at the current
    load."""
    gain = THREAD_GAIN.get(threads, THREAD_GAIN[2])
    return (_rates["build"] + _rates["solve"]) / gain * load_factor()


def _learn(stats: dict, threads: int, complete: bool = True) -> None:
    """Follow the rates of this process's builds and solves (100,000 positions or more; a
    build given up counts its expanded positions), taken back to an unloaded machine."""
    gain = THREAD_GAIN.get(threads, THREAD_GAIN[2]) / load_factor()
    if complete:
        nodes = stats["nodes"]
        if nodes < 100_000:
            return
        for k, secs in (("build", stats["build_seconds"]), ("solve", stats["solve_seconds"])):
            _rates[k] = 0.7 * _rates[k] + 0.3 * secs * gain / nodes
        _rates["bytes"] = 0.7 * _rates["bytes"] + 0.3 * stats["build_bytes_per_position"]
    elif stats.get("expanded", 0) >= 20_000:
        _rates["build"] = (0.7 * _rates["build"]
                           + 0.3 * stats["build_seconds"] * gain / stats["expanded"])


def _gb(b: float) -> str:
    return f"{b / 2**30:.1f} GB"


def solve_compiled(state: State, *, time_budget: float | None = None, depth: int | None = None,
                   hash_mb: float | None = None, max_nodes: int | None = None,
                   threads: int | None = None, progress=None, history=None,
                   horizon: tuple[str, str] | None = None) -> Analysis:
    """Exact analysis with the compiled solver, or a depth-limited one past the budgets.

    ``depth`` forces the depth-limited search to that depth (no exact graph). ``threads``:
    threads of the graph solver (default: every core; the values do not depend on it).
    ``history``: the game's earlier positions (States, the root among them or not):
    reaching one again is a draw, as in the game (RULES.md); without it the values are
    those of the position itself. ``horizon``: the depth-limited search's value where it
    stops (default :data:`~palace_solver.solve.deepening.HORIZON`).

    :raises GraphTooLargeError: without a time budget, when the graph cannot fit in memory.
    """

    eng = _module()
    check_exact(state)
    t0 = time.perf_counter()
    threads = default_threads() if threads is None else max(1, int(threads))
    note = None
    if depth is None:
        est = predict_nodes(state)
        mem_cap = usable_memory()
        if time_budget is None:
            build_s, share = 0.0, None
            need = est * _rates["bytes"]
            if max_nodes is None and refused_outright(est, mem_cap):
                raise GraphTooLargeError(
                    f"the whole graph would need about {_gb(need)} (an estimated "
                    f"{est:,.0f} positions), {_gb(mem_cap)} may be used")
        else:
            left = time_budget - RESERVE_S
            fits = left / _rate(threads)
            if est > PREDICT_SPREAD * fits:
                build_s, note = None, f"graph skipped: about {est:,.0f} positions predicted"
            else:
                share = FULL_SHARE if est * FULL_SPREAD < fits else BUILD_SHARE
                build_s = max(0.001, left * share)
        if build_s is not None:
            cap = DEFAULT_MAX_NODES if max_nodes is None else max_nodes
            g = eng.ExactGraph(eng.CState.from_state(state), threads)
            if history:
                g.set_history([eng.CState.from_state(h) for h in history])
            ok = g.build(max_nodes=cap, seconds=build_s, progress=progress, max_bytes=mem_cap,
                         expected_nodes=int(min(est, 5e8) // 2),
                         solve_seconds_per_node=_rates["solve"] * load_factor()
                         / THREAD_GAIN.get(threads, THREAD_GAIN[2]))
            if ok:
                g.solve()
                mover = state.to_move
                moves = [MoveValue(m, v) for m, v in g.root_moves()]
                stats = g.stats()
                _learn(stats, threads)
                stats.update(seconds=round(time.perf_counter() - t0, 6), engine="cython",
                             depth="end", predicted_nodes=round(est))
                if state.n - sum(state.out) > 2:
                    fp = g.fixed_point()
                    stats["fixed_point"] = fp
                    stats["converged"] = fp["cycling"] == 0
                return Analysis("exact", mover, g.root_value(), rank_moves(mover, moves),
                                stats, graph=g)
            reason, built = g.stop_reason, g.stats()
            _learn(built, threads, complete=False)
            del g
            if reason == "memory" and time_budget is None:
                raise GraphTooLargeError(
                    f"the whole graph needs more than {_gb(built['build_peak_mb'] * 2**20)} "
                    f"({built['nodes']:,} positions found and still growing; about "
                    f"{_gb(max(est, built['nodes']) * _rates['bytes'])} estimated), "
                    f"{_gb(mem_cap)} may be used")
            note = f"graph stopped ({reason}) at {built['nodes']:,} positions"

    # Past the node budget with no time budget: deepen for a bounded time, not forever.
    if depth is not None:
        left = time_budget
    elif time_budget is None:
        left = FALLBACK_SECONDS
    else:
        left = max(0.01, time_budget - (time.perf_counter() - t0))
    a = search_deepening(state, time_budget=left, depth=depth, hash_mb=hash_mb,
                         progress=progress, history=history, horizon=horizon)
    if note:
        a.stats["graph"] = note
    a.stats["seconds"] = round(time.perf_counter() - t0, 6)
    return a

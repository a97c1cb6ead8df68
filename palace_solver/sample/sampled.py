"""Sampled analysis of positions with hidden hand cards or a draw pile (RULES.md: outside
the exact mode the analyzer samples the hidden cards and reports estimates with their
uncertainty).

Two methods, chosen by ``method``:

``"sampled"`` (determinization, also ``"determinization"``). Sample ``i`` deals the hidden
hand cards (:mod:`palace_solver.sample.sampler`, its own seed from ``(seed, i)``) and values every
legal move of the player to move in that deal:

- draw pile empty and at most ``exact_cards`` cards in play (hands, face-up, face-down):
  the exact solver (:func:`palace_solver.solve.solver.solve_exact`); face-down cards stay chance
  events, exactly as in exact mode;
- otherwise a depth-limited expectimax over the engine (:class:`palace_solver.sample.rollout.
  Expectimax`): ``depth`` decision plies (default 1: each move, then the horizon), chance
  nodes for draws and flips (all outcomes when few, else sparse sampling), and at the
  horizon the mean of short playouts by the ``greedy`` bot, capped at
  :data:`~palace_solver.sample.rollout.PLAYOUT_CAP` decisions (then scored as a draw).

A move's figure is the mean over samples of its per-sample loss vector. The position's
figure is the figure of the best move (lowest mean loss for the mover): the mover has to
choose one move without seeing the hidden cards, so the per-sample best (which would see
them: "strategy fusion") is not used.

``"ismcts"``: single-observer Information Set MCTS (:mod:`palace_solver.sample.ismcts`).

Intervals. For a figure estimated from n values x_1..x_n in [0, 1] (one per sample): the
mean plus or minus t_{0.975, n-1} * s / sqrt(n) (Student's t with the sample standard
deviation s), clamped to [0, 1]. When every value is equal (s = 0) the interval is the
"rule of three" band mean +- 3/n: if no sample out of n differs, the share of deals that
would differ is below 3/n at 95%, and each can move the mean by at most 1. One value gives
[0, 1]. The intervals are about the sampling error only: for the determinization method
they cover the expectation of the per-deal values (what infinitely many samples would give),
not the value of the imperfect-information game.

Reproducibility. Sample ``i`` uses generators derived from ``(seed, i)`` only, and results
are gathered in sample order, so the determinization analysis is the same for any ``jobs``
when it is stopped by ``samples`` (a ``time_budget`` stops it at a time-dependent count).
ISMCTS runs ``jobs`` independent trees (root parallelization), so its result depends on
``jobs`` as well as on ``seed``.

Progress: ``progress(done, total)`` is called after each sample (``total`` is None when only
a time budget bounds the run).
"""
from __future__ import annotations

import multiprocessing as mp
import random
import time

from ..game.position import Position
from ..solve.compiled import solve_compiled
from ..solve.engine import compiled as compiled_module
from ..solve.engine import cython_available, make_state
from ..solve.results import Analysis, MoveValue, rank_moves
from ..solve.solver import solve_exact
from .ismcts import analyze_ismcts
from .rollout import Expectimax
from .sampler import sample_rng, sample_state
from .stats import mean_ci

__all__ = ["METHODS", "analyze_sampled", "determinization_values"]

METHODS = ("sampled", "determinization", "ismcts")

#: Samples (determinization) and iterations (ISMCTS) when neither a count nor a time budget
#: is given.
DEFAULT_SAMPLES = 100
#: Upper bound on samples when only a time budget is given.
MAX_SAMPLES = 1_000_000

# -- determinization ----------------------------------------------------------------------

def _compiled_exact() -> bool:
    """Whether the compiled exact path (:mod:`palace_solver.solve.compiled`) is usable."""
    return cython_available() and hasattr(compiled_module(), "ExactGraph")


#: Determinizations without a draw pile and with at most this many cards in play are solved
#: exactly (compiled solver: milliseconds at 7 cards; reference solver: 0.1 s at 6).
EXACT_CARDS_COMPILED = 7
EXACT_CARDS_PYTHON = 6
#: Node cap of one compiled exact solve (past it the compiled search falls back to its
#: depth-limited search, or this module to :class:`Expectimax`).
EXACT_MAX_NODES = 100_000

_exact_cache: dict = {}


def _exact_values(state, compiled: bool, sample_time) -> dict | None:
    """Per-move exact values of a determinization (memoized per process: repeated deals of a
    late-game position are solved once), or None when the compiled path cannot answer."""
    key = (str(state.rules), compiled, state.key())
    hit = _exact_cache.get(key)
    if hit is not None:
        return hit
    if compiled:
        try:
            a = solve_compiled(state, time_budget=sample_time or 0.1, max_nodes=EXACT_MAX_NODES)
        except ImportError:
            return None
    else:
        a = solve_exact(state, engine="python")
    r = {"moves": [(m.move, [float(x) for x in m.loss]) for m in a.moves],
         "solver": "exact" if a.method == "exact" else "search",
         "nodes": int(a.stats.get("nodes", 0) or 0)}
    if a.method == "exact":
        if len(_exact_cache) >= 20000:
            _exact_cache.clear()
        _exact_cache[key] = r
    return r


def _cards_in_play(state) -> int:
    return (sum(sum(h) for h in state.hands) + sum(sum(f) for f in state.face_up)
            + sum(state.face_down))


def _search_state(state, engine):
    if engine != "python":
        try:
            return make_state(state, "cython")
        except Exception:  # noqa: BLE001 - extension missing or stale: the reference engine
            pass
    return state.clone()


def determinization_values(pos: Position, i: int, seed: int = 0, depth: int | None = None,
                           engine: str | None = None, exact_cards: int | None = None,
                           rollouts: int = 2, chance_width: int = 4, policy: str = "greedy",
                           sample_time: float | None = None) -> dict:
    """Values of every legal move in sample ``i``: ``{"moves": [(move, loss floats)], ...}``
    with the solver used (``"exact"`` or ``"search"``) and its node count."""
    rng = sample_rng(seed, i)
    state = sample_state(pos, rng)
    compiled = engine != "python" and _compiled_exact()
    if exact_cards is None:
        exact_cards = EXACT_CARDS_COMPILED if compiled else EXACT_CARDS_PYTHON
    if state.draw_pile == 0 and _cards_in_play(state) <= exact_cards:
        r = _exact_values(state, compiled, sample_time)
        if r is not None:
            return r
    srng = random.Random(f"palace-search-{seed}-{i}")
    ex = Expectimax(state.n, srng, depth=depth or 1, rollouts=rollouts,
                    chance_width=chance_width, policy=policy)
    mv = ex.move_values(_search_state(state, engine))
    return {"moves": mv, "solver": "search", "nodes": ex.nodes, "playouts": ex.playouts}


def _worker(args):
    pos, i, kw = args
    return i, determinization_values(pos, i, **kw)


def _run_samples(pos, count, time_budget, jobs, progress, kw):
    """Per-sample results in sample order, stopping at ``count`` or the time budget."""
    t0 = time.perf_counter()
    results = []
    total = None if count is None else count
    limit = MAX_SAMPLES if count is None else count

    def over():
        return time_budget is not None and time.perf_counter() - t0 >= time_budget and results

    if jobs <= 1:
        for i in range(limit):
            if over():
                break
            results.append(determinization_values(pos, i, **kw))
            if progress is not None:
                progress(len(results), total)
        return results
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    batch = 4 * jobs
    with ctx.Pool(jobs) as pool:
        i = 0
        while i < limit and not over():
            idx = range(i, min(limit, i + batch))
            for _, r in pool.imap(_worker, ((pos, j, kw) for j in idx)):
                results.append(r)
                if progress is not None:
                    progress(len(results), total)
            i = idx.stop
    return results


def _aggregate(pos: Position, method: str, per_sample: list[list[tuple]], stats: dict,
               samples: int) -> Analysis:
    """Mean loss vectors per move with intervals, best move first (module doc)."""
    n = pos.n
    order: list = []
    vals: dict = {}
    for sample in per_sample:
        for m, loss in sample:
            if m not in vals:
                vals[m] = []
                order.append(m)
            vals[m].append(loss)
    moves, cis = [], {}
    for m in order:
        vs = vals[m]
        est = [mean_ci([v[p] for v in vs]) for p in range(n)]
        moves.append(MoveValue(m, [e[0] for e in est]))
        cis[m] = [(e[1], e[2]) for e in est]
    mover = pos.to_move
    moves = rank_moves(mover, moves)
    partial = {str(m): len(vals[m]) for m in order if len(vals[m]) != samples}
    if partial:
        stats["move_samples"] = partial
    best = moves[0]
    return Analysis(method, mover, list(best.loss), moves, stats, ci95=cis[best.move],
                    samples=samples)


def analyze_sampled(pos: Position, *, method: str = "sampled", time_budget: float | None = None,
                    depth: int | None = None, samples: int | None = None, seed: int = 0,
                    jobs: int = 1, progress=None, engine: str | None = None,
                    **options) -> Analysis:
    """Estimated loss probabilities of ``pos`` and of each legal move, with 95% intervals.

    ``samples``: determinizations (``"sampled"``) or iterations (``"ismcts"``); default
    :data:`DEFAULT_SAMPLES` / :data:`~palace_solver.sample.ismcts.DEFAULT_ITERATIONS`, or as many as ``time_budget``
    (seconds) allows when only that is given. ``depth``: decision plies of the per-sample
    search (determinization) when the exact solver is out of reach. ``options``: for
    ``"sampled"``: ``exact_cards``, ``rollouts``, ``chance_width``, ``policy``; for
    ``"ismcts"``: ``c`` (exploration), ``policy``.

    Each move carries its ``ci95`` (one (lo, hi) per player, :attr:`MoveValue.ci95`, the
    ``ci95`` of each entry of ``moves`` in the JSON); ``stats["move_ci95"]`` holds the same
    intervals by move text. ``Analysis.ci95`` is the interval of the position's figure (the
    best move).

    :raises ValueError: for an unknown method or a bad count.
    """
    if method not in METHODS:
        raise ValueError(f"unknown analysis method {method!r} (known: exact, "
                         f"{', '.join(METHODS)})")
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    jobs = max(1, int(jobs or 1))
    if method == "ismcts":
        return _with_move_cis(analyze_ismcts(pos, iterations=samples, time_budget=time_budget,
                                             seed=seed, jobs=jobs, progress=progress,
                                             engine=engine, **options))
    if samples is None and time_budget is None:
        samples = DEFAULT_SAMPLES
    if pos.draw_pile == 0 and all(p.hand_fully_known for p in pos.players):
        return _exact_as_sampled(pos, engine, time_budget, progress)
    t0 = time.perf_counter()
    kw = dict(seed=seed, depth=depth, engine=engine, **options)
    results = _run_samples(pos, samples, time_budget, jobs, progress, kw)
    seconds = time.perf_counter() - t0
    k = len(results)
    stats = {"seconds": round(seconds, 6), "samples": k,
             "exact_samples": sum(r["solver"] == "exact" for r in results),
             "search_samples": sum(r["solver"] == "search" for r in results),
             "nodes": sum(r["nodes"] for r in results),
             "playouts": sum(r.get("playouts", 0) for r in results),
             "determinizations_per_second": round(k / seconds, 3) if seconds > 0 else None,
             "jobs": jobs, "seed": seed, "depth": depth or 1,
             "interval": "student-t on per-sample values; rule of three when all equal"}
    a = _aggregate(pos, "sampled", [r["moves"] for r in results], stats, k)
    a.stats["move_ci95"] = _move_cis(pos, [r["moves"] for r in results])
    return _with_move_cis(a)


def _with_move_cis(a: Analysis) -> Analysis:
    """Each move's interval from ``stats["move_ci95"]`` onto the move (POSITION.md: every
    entry of ``moves`` of a sampled answer carries its ``ci95``)."""
    cis = a.stats.get("move_ci95") or {}
    for m in a.moves:
        iv = cis.get(str(m.move))
        m.ci95 = None if iv is None else [(lo, hi) for lo, hi in iv]
    return a


def _exact_as_sampled(pos, engine, time_budget, progress) -> Analysis:
    """Nothing to sample (every hand known, no draw pile): one exact solve, zero-width
    intervals, ``samples`` 1."""
    t0 = time.perf_counter()
    r = determinization_values(pos, 0, engine=engine, exact_cards=10 ** 9,
                               sample_time=time_budget)
    if progress is not None:
        progress(1, 1)
    seconds = time.perf_counter() - t0
    stats = {"seconds": round(seconds, 6), "samples": 1, "exact_samples": 1,
             "search_samples": 0, "nodes": r["nodes"], "deterministic": True}
    a = _aggregate(pos, "sampled", [r["moves"]], stats, 1)
    a.ci95 = [(x, x) for x in a.loss]
    a.stats["move_ci95"] = {str(m.move): [[x, x] for x in m.loss] for m in a.moves}
    return _with_move_cis(a)


def _move_cis(pos: Position, per_sample) -> dict:
    vals: dict = {}
    for sample in per_sample:
        for m, loss in sample:
            vals.setdefault(str(m), []).append(loss)
    return {m: [list(mean_ci([v[p] for v in vs])[1:]) for p in range(pos.n)]
            for m, vs in vals.items()}

"""Iterative deepening for exact-mode positions too large to solve whole in the budget.

Depth 1, 2, ... until the time budget runs out, a requested depth is reached, or an
iteration needs no horizon evaluation (then the values are exact and the method says so).
The answer is the last completed iteration: per-move loss probabilities, the depth
reached, nodes, nodes/s and the table's hit rate. The search itself is compiled
(``ext/deepen.pxi``: alpha-beta with Ballard's Star1 and Star2 at chance nodes for two players, max-n beyond).

What is resolved. A root move whose search met no horizon (and did not come back to the
root) has an exact figure (``resolved`` True), even when the iteration as a whole is not
complete; the others carry the horizon evaluation's estimate (``resolved`` False), and every
reader of the result marks them so (the table, the live hint, the page). The moves stay in
the order of their figures, estimates included: putting a proven move first would recommend
a proven 50% over an estimated 0% that is right more often than not; what the reader is told
is which figures the order rests on. The one bound known for free: the mover's loss is at
most the best resolved move's (``stats["loss_at_most"]``).
"""
from __future__ import annotations

import time

from ..game.state import State
from .engine import _module, use_eval_weights
from .results import Analysis, MoveValue, rank_moves

MAX_DEPTH = 200

#: Table size without a time budget (``--depth`` or no limit), in MB.
DEFAULT_HASH_MB = 256
#: With a time budget, the table grows with it: about this many MB per second of search
#: (the search stores a few hundred thousand positions a second, 80 bytes each for two
#: players), between HASH_MIN_MB and DEFAULT_HASH_MB, rounded up to a power of two.
HASH_MB_PER_SECOND = 128
HASH_MIN_MB = 4

#: Tables kept for reuse, most recent last: (players, key words, MB) -> DeepSearch.
_TABLES: dict = {}
_KEEP_TABLES = 2
#: The most history positions the compiled search keeps (HISTMAX of ext/deepen.pxi): the
#: latest are given.
HISTORY_MAX = 1024

#: Star2 probing at chance nodes, before any outcome is searched in full: off (Star1 only),
#: the table's bounds on every outcome (the default: the fastest to a given depth on the
#: bench suite), or Ballard's probe, which also searches one move of every outcome.
STAR2_OFF, STAR2_TABLE, STAR2_SEARCH = 0, 1, 2

#: The value at the horizon of an unfinished search: (evaluation mode, network). A network
#: learned from outcomes of the engine's own games, not the card count: on the 152
#: decisions of 40 gen1-calib games where `palace analyze` fell back to this search, the
#: mover's figure scored a Brier skill of +0.23 against the outcome with generation 1's
#: network and -0.09 with the card count (worse than saying 1/2), a gain of +0.32 [+0.12,
#: +0.54] by bootstrap over games (benchmarks/fallback_horizon.py). Generation 4's since
#: the rule of docs/learning.md (the fallback's horizon with generation 4) took it, with
#: its own map band (FALLBACK_CALIBRATION). ("cardcount", "") is the card count, which the
#: solver bench keeps for comparison with its past rows.
HORIZON = ("learned", "gen4")


def table_mb(time_budget: float | None, hash_mb: float | None = None) -> float:
    """The table size of a search: ``hash_mb`` when given, else sized to the time budget
    (a 256 MB table takes 30-400 ms to allocate and clear, more than a 0.2 s search needs)."""
    if hash_mb is not None:
        return float(hash_mb)
    if time_budget is None:
        return float(DEFAULT_HASH_MB)
    mb = HASH_MIN_MB
    while mb < time_budget * HASH_MB_PER_SECOND and mb < DEFAULT_HASH_MB:
        mb *= 2
    return float(mb)


def new_search(root, mb: float):
    """A DeepSearch over ``root`` (a CState) with an emptied table of ``mb`` MB, reusing
    one of the process's last tables of that shape when there is one: a process running
    many analyses (sampled analysis, bots, batch jobs) pays the allocation once. The search
    behaves as a new one (same nodes, same values)."""
    eng = _module()
    key = (root.n, root.nwords(), mb)
    search = _TABLES.pop(key, None)
    if search is None:
        while len(_TABLES) >= _KEEP_TABLES:
            _TABLES.pop(next(iter(_TABLES)))
        search = eng.DeepSearch(root, mb)
    else:
        search.reroot(root)
    _TABLES[key] = search
    return search


def search_deepening(state: State, *, time_budget: float | None = None,
                     depth: int | None = None, hash_mb: float | None = None, progress=None,
                     star2: int = STAR2_TABLE, history=None,
                     horizon: tuple[str, str] | None = None) -> Analysis:
    """Best moves and loss probabilities to the depth the budget allows.

    With neither ``time_budget`` nor ``depth``, deepens until the values are exact.
    ``history``: the game's earlier positions (States); reaching one is a draw.
    ``hash_mb``: the table size (default: :func:`table_mb`). ``star2`` picks the
    chance-node probing (see the module docstring). ``horizon``: the value where the
    search stops (default :data:`HORIZON`); the compiled evaluation's mode comes back
    afterwards.
    """
    mode, weights = horizon or HORIZON
    if mode != "cardcount":
        use_eval_weights(weights)
    old = _module().set_eval_mode(mode)
    try:
        a = _deepen(state, time_budget, depth, hash_mb, progress, star2, history)
    finally:
        _module().set_eval_mode(old)
    a.stats["horizon"] = "the card count" if mode == "cardcount" else \
        f"the learned value (network {weights or 'default'})"
    return a


def _deepen(state, time_budget, depth, hash_mb, progress, star2, history) -> Analysis:
    eng = _module()
    t0 = time.perf_counter()
    search = new_search(eng.CState.from_state(state), table_mb(time_budget, hash_mb))
    search.star2 = star2
    search.use_table = search.history = search.pvs = search.killers = True
    search.plain = False
    if history:
        search.set_history([eng.CState.from_state(h) for h in history[-HISTORY_MAX:]])
    last, reached, complete, open_ = None, 0, False, None
    limit = depth if depth is not None else MAX_DEPTH
    d = 1
    while d <= limit:
        left = 0.0
        if time_budget is not None:
            left = time_budget - (time.perf_counter() - t0)
            if left <= 0:
                break
        res = search.iterate(d, left)
        if res is None:
            break
        complete, moves = res
        last, reached, open_ = moves, d, search.unresolved()
        if progress is not None:
            progress(d)
        if complete:
            break
        d += 1
    if last is None:
        # Not even depth 1 finished: the horizon evaluation of each move's result.
        complete, last = search.iterate(1, 0.0)
        reached, open_ = 1, search.unresolved()
    mover = state.to_move
    if complete or not open_:
        open_ = [None] * len(last)       # exact: the question does not arise
    ranked = rank_moves(mover, [MoveValue(m, v, resolved=None if o is None else not o)
                                for (m, v), o in zip(last, open_)])
    secs = time.perf_counter() - t0
    tt = search.table_stats()
    stats = {"nodes": search.nodes, "seconds": round(secs, 6),
             "nodes_per_second": round(search.nodes / secs) if secs > 0 else None,
             "depth": reached, "complete": complete, "horizon_evals": search.evals,
             "repetitions": search.reps, "star1_cutoffs": search.star_cuts,
             "star2_cutoffs": search.star2_cuts, "star2_probes": search.probes,
             "alpha_beta_cutoffs": search.ab_cuts,
             "tt_hit_rate": round(tt["hits"] / tt["probes"], 4) if tt["probes"] else 0.0,
             "tt_mb": round(tt["mb"], 1), "engine": "cython"}
    if not complete:
        proven = sorted((m for m in ranked if m.resolved), key=lambda m: m.loss[mover])
        stats["resolved_moves"] = len(proven)
        stats["unresolved_moves"] = len(ranked) - len(proven)
        if proven:
            stats["loss_at_most"] = float(proven[0].loss[mover])
    method = "exact" if complete else "depth_limited"
    return Analysis(method, mover, list(ranked[0].loss) if ranked else [], ranked, stats)

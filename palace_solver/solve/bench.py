"""The benchmark suite behind ``palace bench`` and ``benchmarks/exact_bench.py``.

For each two-player late-game position of the suite (growing sizes, up to 3 hand + 3
face-up + 3 face-down cards each): the time to the exact value with the whole-graph solver
(the compiled one with 1 and 2 threads and, side by side, without merged positions and the
Python reference solver: positions a second of build and solve, bytes a position),
the depth that iterative deepening reaches within each time budget, nodes, nodes/s, table
hit rate and memory; and, side by side in the same run, a plain expectiminimax (no table,
no pruning, same compiled move generator) against our depth-limited search at equal depth.
"""
from __future__ import annotations

import json
import resource
import time
from importlib import resources

from ..game.position import Position
from .deepening import STAR2_OFF, STAR2_TABLE, search_deepening
from .engine import _module
from .exact import ExactSolver


def load_suite(path: str | None = None) -> list[tuple[str, Position]]:
    """``[(name, Position)]`` from a JSON-lines file (default: the bundled suite)."""
    if path is None:
        text = resources.files("palace_solver").joinpath("data/bench_2p.jsonl").read_text()
    else:
        with open(path) as f:
            text = f.read()
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [(r.get("name", f"#{i}"), Position.from_json(r["position"]))
            for i, r in enumerate(rows)]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


#: The whole-graph solvers the bench can time: the compiled one, the compiled one without
#: merged positions, and the Python reference solver (solve/exact.py, exact fractions: the
#: "before" the compiled one is measured against).
SOLVERS = ("after", "flat", "before")
#: The Python reference solver keeps a State per position: it is given at most this many.
BEFORE_MAX_NODES = 300_000


class _OutOfBudget(Exception):
    pass


class _BudgetedSolver(ExactSolver):
    """The reference solver with a deadline and a cap on the positions of its graph."""

    def __init__(self, root, seconds: float, max_nodes: int):
        super().__init__(root)
        self.deadline = time.perf_counter() + seconds
        self.max_nodes = max_nodes
        self.build_seconds = 0.0

    def _node(self, s, todo):
        if len(self.states) >= self.max_nodes or time.perf_counter() > self.deadline:
            raise _OutOfBudget
        return super()._node(s, todo)

    def build(self) -> None:
        t0 = time.perf_counter()
        try:
            super().build()
        finally:
            self.build_seconds = time.perf_counter() - t0


def _reference_time(state, seconds: float, max_nodes: int) -> dict:
    """:func:`exact_time` of the Python reference solver (no memory figures: Python
    objects)."""
    t0, c0 = time.perf_counter(), time.process_time()
    ref = _BudgetedSolver(state, seconds, min(max_nodes, BEFORE_MAX_NODES))
    try:
        ref.solve()
        ok = True
    except _OutOfBudget:
        ok = False
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    nodes = len(ref.states)
    out = {"solver": "before", "threads": 1, "solved": ok, "seconds": round(secs, 4),
           "cpu_seconds": round(cpu, 4), "nodes": nodes,
           "nodes_per_second": round(nodes / secs) if secs else None,
           "build_seconds": round(ref.build_seconds, 4),
           "build_positions_per_second": round(nodes / ref.build_seconds)
           if ref.build_seconds else None,
           "memory_mb": None, "bytes_per_position": None, "build_bytes_per_position": None,
           "value": [float(x) for x in ref.value[0]] if ok else None}
    if ok:
        solve = secs - ref.build_seconds
        out["solve_seconds"] = round(solve, 4)
        out["solve_positions_per_second"] = round(nodes / solve) if solve > 0 else None
    return out


def exact_time(state, seconds: float, max_nodes: int = 60_000_000, threads: int = 1,
               solver: str = "after") -> dict:
    """Whole-graph solve within ``seconds``: time to the exact value, or how far it got.

    Positions a second of the build and of the solve, and the bytes a position: of the
    solved graph (``bytes_per_position``) and at the build's peak (keys and map included).
    ``solver="before"`` times the Python reference solver instead (at most
    :data:`BEFORE_MAX_NODES` positions), and ``solver="flat"`` the compiled one without
    merged positions (a node a position).
    """
    if solver == "before":
        return _reference_time(state, seconds, max_nodes)
    eng = _module()
    t0 = time.perf_counter()
    c0 = time.process_time()
    g = eng.ExactGraph(eng.CState.from_state(state), threads, True, solver == "after")
    ok = g.build(max_nodes=max_nodes, seconds=seconds)
    if ok:
        g.solve()
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    st = g.stats()
    nodes = st["nodes"]
    out = {"solver": solver, "threads": threads,
           "solved": bool(ok), "seconds": round(secs, 4), "cpu_seconds": round(cpu, 4),
           "nodes": nodes,
           "nodes_per_second": round(nodes / secs) if secs else None,
           "build_seconds": round(g.build_seconds, 4),
           "build_positions_per_second": round(nodes / g.build_seconds)
           if g.build_seconds else None,
           "memory_mb": st["memory_mb"],
           "bytes_per_position": round(st["memory_mb"] * 2**20 / max(nodes, 1), 1),
           "build_bytes_per_position": st["build_bytes_per_position"],
           "value": g.root_value() if ok else None}
    if ok:
        out["solve_seconds"] = round(g.solve_seconds, 4)
        out["solve_positions_per_second"] = (round(nodes / g.solve_seconds)
                                             if g.solve_seconds else None)
        out["graph_digest"] = g.graph_digest()
        if st.get("layers") and state.n - sum(state.out) > 2:
            out["fixed_point"] = g.fixed_point()
    del g
    return out


def compare_exact(state, seconds: float, threads=(1, 2), max_nodes: int = 60_000_000,
                  before: bool = True, flat: bool = True) -> dict:
    """The Python reference solver, the compiled one with each thread count and the compiled
    one without merged positions (the most threads), one after another on the same position
    (side by side in one run)."""
    rows = {}
    for t in threads:
        rows[f"after_{t}"] = exact_time(state, seconds, max_nodes, t, "after")
    if flat:
        t = max(threads)
        rows[f"flat_{t}"] = exact_time(state, seconds, max_nodes, t, "flat")
    if before:
        # Positions the compiled graphs met (a lower bound when one stopped early): past the
        # reference solver's cap it is not started.
        met = max(r["nodes"] for r in rows.values())
        if met > BEFORE_MAX_NODES:
            ref = {"solver": "before", "threads": 1, "solved": False,
                   "skipped": f"more than {BEFORE_MAX_NODES:,} positions", "nodes": met}
        else:
            ref = exact_time(state, seconds, max_nodes, 1, "before")
        rows = {"before": ref, **rows}
    digests = {r.get("graph_digest") for k, r in rows.items() if k.startswith("after")
               and r["solved"]}
    rows["same_graph_bytes"] = len(digests) <= 1
    return rows


def plain_vs_search(state, seconds: float = 2.0, hash_mb: int = 64) -> dict:
    """Deepest depth the plain expectiminimax finishes within ``seconds``; our search at the
    same depth, with Star2 (the default) and with Star1 only; the ratios of their times."""

    eng = _module()
    root = eng.CState.from_state(state)
    depth, plain_t, plain_nodes = 0, 0.0, 0
    while True:
        s = eng.DeepSearch(root, 1.0)
        s.plain = True
        t0 = time.perf_counter()
        res = s.iterate(depth + 1, seconds)
        t = time.perf_counter() - t0
        if res is None:
            break
        depth, plain_t, plain_nodes = depth + 1, t, s.nodes
        if res[0] or depth >= 60:
            break
    if depth == 0:
        return {"depth": 0}
    out = {"depth": depth, "plain_seconds": round(plain_t, 4), "plain_nodes": plain_nodes}
    for star2, tag in ((STAR2_TABLE, "search"), (STAR2_OFF, "star1")):
        s = eng.DeepSearch(root, float(hash_mb))
        s.star2 = star2
        t0 = time.perf_counter()
        for d in range(1, depth + 1):      # iterative deepening, as in real use
            s.iterate(d, 0.0)
        t = time.perf_counter() - t0
        out[f"{tag}_seconds"] = round(t, 4)
        out[f"{tag}_nodes"] = s.nodes
        out["ratio" if tag == "search" else "star1_ratio"] = (
            round(plain_t / t, 1) if t > 0 else None)
    return out


def bench_position(pos: Position, budgets=(1.0, 10.0), exact_budget: float = 60.0,
                   plain_seconds: float = 20.0, hash_mb: int = 256, threads=(1, 2),
                   before: bool = True, flat: bool = True) -> dict:
    state = pos.to_state()
    cmp = compare_exact(state, exact_budget, threads, before=before, flat=flat)
    best = max((k for k in cmp if k.startswith("after_")), key=lambda k: int(k[6:]))
    row = {"exact": cmp[best], "exact_compare": cmp, "deepening": {}}
    for b in budgets:
        # the card count, as every recorded row of this bench (results/bench.json)
        a = search_deepening(state, time_budget=b, hash_mb=hash_mb, horizon=("cardcount", ""))
        st = a.stats
        row["deepening"][str(b)] = {"depth": st["depth"], "exact": a.method == "exact",
                                    "nodes": st["nodes"],
                                    "nodes_per_second": st["nodes_per_second"],
                                    "tt_hit_rate": st["tt_hit_rate"],
                                    "best_move": str(a.best_move)}
    if plain_seconds > 0:
        row["plain"] = plain_vs_search(state, plain_seconds, min(hash_mb, 64))
        if row["exact"]["solved"]:
            row["plain"]["exact_vs_plain"] = round(
                row["plain"].get("plain_seconds", 0) / max(row["exact"]["seconds"], 1e-6), 1)
    row["rss_mb"] = round(_rss_mb(), 1)
    return row


def run_suite(suite, budgets=(1.0, 10.0), exact_budget=60.0, plain_seconds=20.0,
              hash_mb=256, progress=None, threads=(1, 2), before: bool = True,
              flat: bool = True) -> list[dict]:
    out = []
    for i, (name, pos) in enumerate(suite):
        row = {"name": name, **bench_position(pos, budgets, exact_budget, plain_seconds,
                                               hash_mb, threads, before, flat)}
        out.append(row)
        if progress:
            progress(i + 1, len(suite), row)
    return out


def summary(rows, limits=(10.0, 60.0)) -> dict:
    """Largest positions solved exactly within each limit (by graph size)."""
    res = {}
    for lim in limits:
        ok = [r for r in rows if r["exact"]["solved"] and r["exact"]["seconds"] <= lim]
        best = max(ok, key=lambda r: r["exact"]["nodes"], default=None)
        res[f"largest_exact_within_{lim:g}s"] = (
            None if best is None else {"name": best["name"], "nodes": best["exact"]["nodes"],
                                       "seconds": best["exact"]["seconds"]})
    # before / after: summed over the positions every compared solver finished
    cmp = [r["exact_compare"] for r in rows if "exact_compare" in r]
    keys = sorted({k for c in cmp for k in c if k != "same_graph_bytes"})
    both = [c for c in cmp if all(c.get(k, {}).get("solved") for k in keys)]
    if both:
        tot = {k: {"seconds": round(sum(c[k]["seconds"] for c in both), 3),
                   "cpu_seconds": round(sum(c[k]["cpu_seconds"] for c in both), 3),
                   "build_seconds": round(sum(c[k]["build_seconds"] for c in both), 3),
                   "solve_seconds": round(sum(c[k]["solve_seconds"] for c in both), 3),
                   "positions": sum(c[k]["nodes"] for c in both)} for k in keys}
        for k, t in tot.items():
            # Sums rounded to the millisecond: a suite of tiny positions can sum to 0.
            for name, sec in (("positions_per_second", "seconds"),
                              ("build_positions_per_second", "build_seconds"),
                              ("solve_positions_per_second", "solve_seconds")):
                t[name] = round(t["positions"] / t[sec]) if t[sec] else None
            for name in ("bytes_per_position", "build_bytes_per_position"):
                t[name] = None if any(c[k][name] is None for c in both) else round(
                    sum(c[k][name] * c[k]["nodes"] for c in both) / t["positions"], 1)
        res["compare"] = {"positions_solved_by_all": len(both), "totals": tot,
                          "same_graph_bytes": all(c["same_graph_bytes"] for c in cmp)}
        if "before" in tot:
            res["compare"]["speedup"] = {k: round(tot["before"]["seconds"] / t["seconds"], 2)
                                         for k, t in tot.items() if k != "before"}
            res["compare"]["cpu_speedup"] = {
                k: round(tot["before"]["cpu_seconds"] / t["cpu_seconds"], 2)
                for k, t in tot.items() if k != "before"}
        flat = next((k for k in tot if k.startswith("flat_")), None)
        threads = flat and flat.split("_")[1]
        if flat and f"after_{threads}" in tot:
            f, m = tot[flat], tot[f"after_{threads}"]
            # the same positions of the game: flat counts each, merged fewer nodes
            res["compare"]["merged"] = {
                "threads": int(threads), "positions": f["positions"],
                "merged_nodes": m["positions"],
                "node_ratio": round(f["positions"] / m["positions"], 3),
                "speedup": round(f["seconds"] / m["seconds"], 3) if m["seconds"] else None,
                "game_positions_per_second": round(f["positions"] / m["seconds"])
                if m["seconds"] else None}
    ratios = [r["plain"]["ratio"] for r in rows if r.get("plain", {}).get("ratio")]
    if ratios:
        res["plain_ratio_min"] = min(ratios)
        res["plain_ratio_median"] = sorted(ratios)[len(ratios) // 2]
    return res

#!/usr/bin/env python3
"""The plain-search ratio at fixed depths, without the rest of `palace bench`.

`palace bench` finds, per position, the deepest depth the plain expectiminimax finishes
within its budget by running every depth from 1 (an hour and more for the suite at 60 s).
This script takes the depths from a previous `palace bench --json` output (or one --depth
for every position) and times only that depth: the plain search once, our search by
iterative deepening to it as in real use (palace_solver/bench.py, plain_vs_search), in the
same process, one position after another.

    python benchmarks/plain_ratio.py --depths benchmarks/results-bench-2p.json [--extra 1]
    python benchmarks/plain_ratio.py --depth 16 --limit 4 --json
    python benchmarks/plain_ratio.py --depths benchmarks/results-bench-2p.json --budget 60

With --budget, the depth of each position is the one `palace bench --plain-seconds` would
pick, the deepest the plain search finishes within the budget, found by starting from the
given depth and stepping up (or down) instead of climbing from depth 1.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from palace_solver.solve.bench import load_suite  # noqa: E402
from palace_solver.solve.deepening import STAR2_TABLE  # noqa: E402
from palace_solver.solve.engine import _module  # noqa: E402


def time_plain(eng, root, depth: int, budget: float = 0.0) -> tuple[float, int] | None:
    """Seconds and nodes of the plain search to ``depth``; None when it needs more than
    ``budget`` seconds (0: no limit)."""
    s = eng.DeepSearch(root, 1.0)
    s.plain = True
    t0 = time.perf_counter()
    if s.iterate(depth, budget) is None:
        return None
    return time.perf_counter() - t0, s.nodes


def deepest_within(eng, root, start: int, budget: float):
    """(depth, seconds, nodes): the deepest depth the plain search finishes within budget,
    searching up or down from ``start``."""
    depth, res = start, time_plain(eng, root, start, budget)
    while res is None and depth > 1:
        depth -= 1
        res = time_plain(eng, root, depth, budget)
    if res is None:
        return None
    while True:
        nxt = time_plain(eng, root, depth + 1, budget)
        if nxt is None:
            return depth, res[0], res[1]
        depth, res = depth + 1, nxt


def time_search(eng, root, depth: int, hash_mb: float) -> tuple[float, int]:
    s = eng.DeepSearch(root, hash_mb)      # allocated (and its pages touched) before t0
    s.star2 = STAR2_TABLE
    t0 = time.perf_counter()
    for d in range(1, depth + 1):
        s.iterate(d, 0.0)
    return time.perf_counter() - t0, s.nodes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--depths", help="a `palace bench --json` output: its plain depths")
    src.add_argument("--depth", type=int, help="this depth for every position")
    ap.add_argument("--extra", type=int, default=0, help="add this many plies to each depth")
    ap.add_argument("--budget", type=float, default=0.0,
                    help="seconds: use the deepest depth plain finishes within this")
    ap.add_argument("--only", help="comma-separated position names")
    ap.add_argument("--limit", type=int, help="only the first N positions of the suite")
    ap.add_argument("--hash", type=float, default=64.0, help="table MB (bench: min(--hash, 64))")
    ap.add_argument("--repeat", type=int, default=3,
                    help="our search is timed this many times; the fastest counts")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    suite = load_suite()
    if args.limit:
        suite = suite[:args.limit]
    if args.only:
        names = set(args.only.split(","))
        suite = [(n, p) for n, p in suite if n in names]
    depths = {}
    if args.depths:
        rows = json.loads(Path(args.depths).read_text())["rows"]
        depths = {r["name"]: r["plain"]["depth"] for r in rows if r.get("plain", {}).get("depth")}
    eng = _module()
    out = []
    for name, pos in suite:
        depth = (args.depth if args.depth else depths.get(name))
        if not depth:
            continue
        depth += args.extra
        root = eng.CState.from_state(pos.to_state())
        if args.budget > 0:
            found = deepest_within(eng, root, depth, args.budget)
            if found is None:
                continue
            depth, plain_t, plain_n = found
        else:
            plain_t, plain_n = time_plain(eng, root, depth)
        ours = min(time_search(eng, root, depth, args.hash) for _ in range(args.repeat))
        row = {"name": name, "depth": depth, "plain_seconds": round(plain_t, 4),
               "plain_nodes": plain_n, "plain_nodes_per_second": round(plain_n / plain_t),
               "search_seconds": round(ours[0], 5), "search_nodes": ours[1],
               "search_nodes_per_second": round(ours[1] / ours[0]),
               "node_ratio": round(plain_n / ours[1], 1), "ratio": round(plain_t / ours[0], 1)}
        out.append(row)
        if not args.json:
            print(f"{name:14s} depth {depth:3d}  plain {plain_t:8.2f} s {plain_n:>11,} nodes "
                  f"({row['plain_nodes_per_second'] / 1e6:.1f} M/s)  ours {ours[0] * 1000:8.1f} ms "
                  f"{ours[1]:>9,} nodes ({row['search_nodes_per_second'] / 1e6:.1f} M/s)  "
                  f"ratio {row['ratio']:>10,.1f}x (nodes {row['node_ratio']:,.0f}x)", flush=True)
    ratios = sorted(r["ratio"] for r in out)
    summary = {"positions": len(out), "plain_budget_seconds": args.budget or None, "ratio_min": ratios[0] if ratios else None,
               "ratio_median": ratios[len(ratios) // 2] if ratios else None,
               "at_least_1000x": sum(r >= 1000 for r in ratios)}
    if args.json:
        print(json.dumps({"rows": out, "summary": summary}))
    else:
        print(f"min {summary['ratio_min']}x, median {summary['ratio_median']}x, "
              f"{summary['at_least_1000x']} of {len(out)} at 1,000x or more")
    return 0


if __name__ == "__main__":
    sys.exit(main())

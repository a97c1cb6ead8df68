#!/usr/bin/env python3
"""The compiled exact solver against the pure-Python retrograde solver, side by side.

The Python solver is the readable reference, palace_solver/solve/exact.py (the same method:
layers, the two-player sweeps, the Jacobi fixed point; exact fractions). The script draws
random exact-mode positions (two and three players, tests/exact_gen.py's generator), times
the Python solver on each (skipping those past ``--python-max`` seconds), and for every
position the Python solver needed ``--min`` seconds or more (2 by default) times the
compiled one on the same position (the whole analysis, ``solve_compiled``: graph, solve,
root moves; best of ``--repeat`` runs, with each thread count of ``--threads``). It checks
that both give the same values (to 1e-9) and reports the median, lowest and highest ratio.

    python benchmarks/python_ratio.py --positions 25 --seed 0 [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main(argv=None) -> int:
    from exact_gen import random_exact_state

    from palace_solver.game.rules import Rules
    from palace_solver.solve.compiled import solve_compiled
    from palace_solver.solve.exact import ExactSolver

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=25,
                    help="Positions the Python solver needs --min seconds or more for.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min", type=float, default=2.0, help="Python seconds to count a row.")
    ap.add_argument("--python-max", type=float, default=40.0,
                    help="Skip positions the Python solver would need longer for (their "
                         "graph is estimated first).")
    ap.add_argument("--threads", default="1,2", help="Thread counts of the compiled solver.")
    ap.add_argument("--repeat", type=int, default=3, help="Compiled runs per position (best).")
    ap.add_argument("--json", default=None, metavar="FILE")
    args = ap.parse_args(argv)
    threads = [int(x) for x in args.threads.split(",")]
    rng = random.Random(args.seed)
    rows = []
    load0 = os.getloadavg()
    tried = 0
    while len(rows) < args.positions:
        tried += 1
        n = rng.choice((2, 2, 3))
        kw = (dict(hand=(1, 3), face_up=(0, 2), face_down=(0, 2), pile=(0, 3)) if n == 2
              else dict(hand=(0, 2), face_up=(0, 1), face_down=(0, 1), pile=(0, 2)))
        s = random_exact_state(rng, n, Rules(), **kw)
        probe = solve_compiled(s, threads=1)
        # the Python solver manages about 1,000-3,000 positions a second
        if probe.stats["nodes"] < 2_000 or probe.stats["nodes"] > 1_000 * args.python_max:
            continue
        t0 = time.perf_counter()
        ref = ExactSolver(s).analysis()
        py = time.perf_counter() - t0
        if py < args.min:
            continue
        row = {"players": n, "nodes": probe.stats["nodes"], "python_seconds": round(py, 3)}
        for t in threads:
            best = None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                a = solve_compiled(s, threads=t)
                secs = time.perf_counter() - t0
                best = secs if best is None else min(best, secs)
            assert all(abs(float(x) - y) <= 1e-9 for x, y in zip(ref.loss, a.loss)), (ref.loss,
                                                                                     a.loss)
            row[f"compiled_seconds_{t}"] = round(best, 5)
            row[f"ratio_{t}"] = round(py / best, 1)
        rows.append(row)
        print(row, file=sys.stderr)
    out = {"seed": args.seed, "positions": len(rows), "drawn": tried, "min_python_seconds":
           args.min, "rows": rows,
           "load_average_before": [round(x, 2) for x in load0],
           "load_average_after": [round(x, 2) for x in os.getloadavg()]}
    for t in threads:
        r = [x[f"ratio_{t}"] for x in rows]
        out[f"threads_{t}"] = {"median_ratio": statistics.median(r), "min_ratio": min(r),
                               "max_ratio": max(r)}
    text = json.dumps(out, indent=1)
    if args.json:
        pathlib.Path(args.json).write_text(text + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

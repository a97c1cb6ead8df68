#!/usr/bin/env python3
"""Budgeted answers against exact values: how often ``palace analyze --time T`` picks the
exact best move, its regret and its value error, on exact-mode positions whose whole graphs
(0.3 M to 25 M positions) were solved exactly beforehand.

    python benchmarks/budget_eval.py --make 40            # positions + exact values (slow)
    python benchmarks/budget_eval.py                      # at 0.2 s and 1 s (results/)
    python benchmarks/budget_eval.py --budgets 0.2,1,5 --output other.json
    python benchmarks/budget_eval.py --fit sizes.jsonl    # refit solve/compiled.py's _FIT

``--make`` draws random exact-mode positions (two and three players, the generator of
palace_solver.game.generate), solves each whole graph and keeps those of 0.3 M to 25 M
positions where the choice matters (some move is worse than the best), with every move's
exact loss, in ``benchmarks/positions/budget_eval.jsonl`` (every graph built, kept or not, goes to
``benchmarks/positions/graph_sizes.jsonl`` for ``--fit``). A 0.05 s search first skips
positions where every move looks the same (about five in six of those drawn).

For each position and budget the analysis runs as ``palace analyze POS --time T`` does
(:func:`palace_solver.analysis.analyze`) and is scored against the exact values:

- *best*: the chosen move's exact loss equals the best move's (ties count as best);
- *regret*: the chosen move's exact loss minus the best move's, for the mover;
- *value error*: |the answer's loss for the mover - the exact loss|.

Timings depend on the machine's load (the CPU is shared): the report states the load
average before and after.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import random
import statistics
import sys
import time

import provenance

ROOT = pathlib.Path(__file__).resolve().parents[1]
POSITIONS = ROOT / "benchmarks" / "positions" / "budget_eval.jsonl"
SIZES = ROOT / "benchmarks" / "positions" / "graph_sizes.jsonl"


def _decides(moves, mover) -> bool:
    """Whether the choice matters: some move is worse than the best for the mover."""
    vals = [m[1][mover] for m in moves]
    return len(vals) > 1 and max(vals) - min(vals) > 1e-9


def make(count: int, seed: int, lo: int, hi: int, seconds: float, threads: int,
         out_path=None, sizes_path=None) -> None:
    from palace_solver import _engine as eng
    from palace_solver.game.generate import random_exact_state
    from palace_solver.game.position import Position
    from palace_solver.game.rules import Rules
    from palace_solver.solve.compiled import predict_nodes

    from palace_solver.solve.deepening import search_deepening

    rng = random.Random(seed)
    out_path = pathlib.Path(out_path or POSITIONS)
    kept = ([json.loads(x) for x in out_path.read_text().splitlines()] if out_path.exists()
            else [])
    t_end = time.time() + seconds
    with open(sizes_path or SIZES, "a") as sizes, open(out_path, "a") as out:
        while len(kept) < count and time.time() < t_end:
            n = rng.choice((2, 2, 2, 3))
            if n == 2:
                kw = dict(hand=(1, 4), face_up=(0, 3), face_down=(0, 2), pile=(0, 3))
            else:
                kw = dict(hand=(0, 3), face_up=(0, 2), face_down=(0, 2), pile=(0, 3))
            s = random_exact_state(rng, n, Rules(), **kw)
            if not lo / 10 <= predict_nodes(s) <= hi * 2:
                continue            # surely outside the range: not worth building
            quick = search_deepening(s, time_budget=0.05, hash_mb=16)
            if not _decides([(m.move, m.loss) for m in quick.moves], s.to_move):
                continue            # most likely every move is worth the same: no decision
            pos = Position.from_state(s).to_json()
            g = eng.ExactGraph(eng.CState.from_state(s), threads)
            t0 = time.perf_counter()
            ok = g.build(max_nodes=hi, seconds=120.0)
            st = g.stats()
            sizes.write(json.dumps({"position": pos, "nodes": st["nodes"], "complete": bool(ok)})
                        + "\n")
            sizes.flush()
            if not ok or st["nodes"] < lo:
                continue
            g.solve()
            if not _decides(g.root_moves(), s.to_move):
                continue
            moves = [{"move": str(m), "loss": v} for m, v in g.root_moves()]
            row = {"name": f"b{len(kept)}-{n}p", "position": pos, "nodes": st["nodes"],
                   "to_move": s.to_move, "loss": g.root_value(), "moves": moves,
                   "solve_seconds": round(time.perf_counter() - t0, 2)}
            out.write(json.dumps(row) + "\n")
            out.flush()
            kept.append(row)
            print(f"{row['name']}: {st['nodes']:,} positions, {row['solve_seconds']} s",
                  file=sys.stderr)


def fit(path: str) -> None:
    import numpy as np

    from palace_solver.game.position import Position
    from palace_solver.solve.compiled import _features

    rows = [json.loads(x) for x in open(path) if x.strip()]
    rows = [r for r in rows if r["complete"] and r["nodes"] >= 1000]
    X = np.array([[1.0] + _features(Position.from_json(r["position"]).to_state()) for r in rows])
    y = np.log([r["nodes"] for r in rows])
    c, *_ = np.linalg.lstsq(X, y, rcond=None)
    err = y - X @ c
    within3 = float(np.mean(np.abs(err) <= math.log(3)))
    print(json.dumps({"coefficients": [round(float(v), 3) for v in c], "positions": len(rows),
                      "rms_log_error": round(float(np.sqrt(np.mean(err ** 2))), 3),
                      "share_within_factor_3": round(within3, 3)}))


def evaluate(budgets, limit, threads, path=None) -> dict:
    from palace_solver.analysis import analyze
    from palace_solver.game.position import Position

    path = pathlib.Path(path or POSITIONS)
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()][:limit]
    load0 = os.getloadavg()
    out = {"positions": len(rows), "budgets": {}, "rows": []}
    per = {b: [] for b in budgets}
    for r in rows:
        pos = Position.from_json(r["position"])
        mover = r["to_move"]
        exact = {m["move"]: m["loss"][mover] for m in r["moves"]}
        best = min(exact.values())
        row = {"name": r["name"], "nodes": r["nodes"], "exact_loss": r["loss"][mover],
               "budgets": {}}
        for b in budgets:
            t0 = time.perf_counter()
            a = analyze(pos, time_budget=b, threads=threads)
            secs = time.perf_counter() - t0
            chosen = str(a.best_move)
            regret = exact[chosen] - best
            res = {"method": a.method, "depth": a.stats.get("depth"), "move": chosen,
                   "best": regret <= 1e-9, "regret": round(regret, 6),
                   "value_error": round(abs(float(a.loss[mover]) - r["loss"][mover]), 6),
                   "seconds": round(secs, 3)}
            row["budgets"][str(b)] = res
            per[b].append(res)
        out["rows"].append(row)
        print(r["name"], r["nodes"], {k: (v["method"][:5], v["depth"], v["best"],
                                          v["value_error"]) for k, v in row["budgets"].items()},
              file=sys.stderr)
    for b, res in per.items():
        out["budgets"][str(b)] = {
            "best_move_share": round(sum(x["best"] for x in res) / len(res), 3),
            "mean_regret": round(statistics.mean(x["regret"] for x in res), 4),
            "median_value_error": round(statistics.median(x["value_error"] for x in res), 4),
            "mean_value_error": round(statistics.mean(x["value_error"] for x in res), 4),
            "exact_answers": sum(x["method"] == "exact" for x in res),
            "median_depth": statistics.median(x["depth"] for x in res
                                              if isinstance(x["depth"], int)) if any(
                isinstance(x["depth"], int) for x in res) else None,
            "max_seconds": max(x["seconds"] for x in res)}
    out["load_average_before"] = [round(x, 2) for x in load0]
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    out["threads"] = threads
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--make", type=int, default=None, metavar="N",
                    help="Generate positions until N are kept (appends).")
    ap.add_argument("--seed", type=int, default=0, help="Seed of --make.")
    ap.add_argument("--make-seconds", type=float, default=1800.0,
                    help="Stop --make after this many seconds.")
    ap.add_argument("--positions", default=None, metavar="FILE",
                    help=f"Positions file (default {POSITIONS.relative_to(ROOT)}).")
    ap.add_argument("--fit", default=None, metavar="SIZES",
                    help="Fit the graph-size predictor on a sizes JSONL file.")
    ap.add_argument("--budgets", default="0.2,1", help="Comma-separated seconds.")
    ap.add_argument("--limit", type=int, default=None, help="Only the first N positions.")
    ap.add_argument("--threads", type=int, default=None,
                    help="Threads of the graph solver (default: every core).")
    ap.add_argument("--output", default="budget-eval.json", metavar="FILE",
                    help="Results file (a bare name goes to benchmarks/results/).")
    ap.add_argument("--no-save", action="store_true", help="print only")
    args = ap.parse_args(argv)
    if args.fit:
        fit(args.fit)
        return 0
    if args.make:
        make(args.make, args.seed, 300_000, 25_000_000, args.make_seconds, args.threads or 2,
             args.positions)
        return 0
    budgets = [float(x) for x in args.budgets.split(",") if x.strip()]
    rec = provenance.record()
    res = evaluate(budgets, args.limit, args.threads, args.positions)
    if not args.no_save:
        print(provenance.write(args.output, res, rec))
    print(json.dumps({"positions": res["positions"], "budgets": res["budgets"],
                      "load_average": [res["load_average_before"], res["load_average_after"]]},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

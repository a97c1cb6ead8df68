#!/usr/bin/env python3
"""How often the 3+ player fixed point of the exact solver does not converge.

With three or more players still in, a layer of the exact graph is solved by Jacobi sweeps
from the draw value (palace_solver/solve/exact.py, ``_solve_layer_np``). On some layers the
sweeps never settle: they cycle, and the values are those after 1,000 sweeps, not a fixed
point; the analysis then says ``"converged": false``. This script draws random exact-mode
positions of 3 and 4 players (palace_solver.game.generate: standard rules, or one or two
random variants with ``--variants``), solves each whole graph with the compiled solver
(up to ``--max-nodes`` positions; larger ones are skipped and counted) and counts the
positions and layers that cycle.

    python benchmarks/fixed_point_cycles.py --positions 1000 --seed 0 [--output FILE]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time

import provenance

from palace_solver import _engine as eng
from palace_solver.game.generate import random_exact_state, random_rules
from palace_solver.game.position import Position
from palace_solver.game.rules import Rules


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=1000, help="Positions to draw.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-nodes", type=int, default=300_000,
                    help="Skip positions whose graph is larger.")
    ap.add_argument("--variants", action="store_true",
                    help="Draw 0-2 random rule variants per position (default: standard).")
    ap.add_argument("--examples", default=None, metavar="FILE",
                    help="Write the cycling positions (JSON lines) here.")
    ap.add_argument("--output", default=None, metavar="FILE",
                    help="Also write the summary here, with its provenance (a bare name goes "
                         "to benchmarks/results/).")
    args = ap.parse_args(argv)
    rec = provenance.record()
    rng = random.Random(args.seed)
    t0 = time.time()
    counts = {3: [0, 0, 0, 0], 4: [0, 0, 0, 0]}   # solved, skipped, cycling positions, with 3+ layers
    layers = {3: [0, 0], 4: [0, 0]}               # 3+ player layers, cycling layers
    periods: dict = {}
    examples = []
    for _ in range(args.positions):
        n = rng.choice((3, 4))
        rules = random_rules(rng) if args.variants else Rules()
        kw = dict(hand=(0, 2), face_up=(0, 1), face_down=(0, 1), pile=(0, 2))
        s = random_exact_state(rng, n, rules, **kw)
        g = eng.ExactGraph(eng.CState.from_state(s))
        if not g.build(max_nodes=args.max_nodes):
            counts[n][1] += 1
            continue
        g.solve()
        fp = g.fixed_point()
        counts[n][0] += 1
        layers[n][0] += fp["layers"]
        layers[n][1] += fp["cycling"]
        if fp["layers"]:
            counts[n][3] += 1
        if fp["cycling"]:
            counts[n][2] += 1
            periods[fp["max_period"]] = periods.get(fp["max_period"], 0) + 1
            examples.append({"nodes": g.node_count(), "fixed_point": fp,
                             "position": Position.from_state(s).to_json()})
    out = {"seed": args.seed, "positions": args.positions, "max_nodes": args.max_nodes,
           "variants": args.variants, "seconds": round(time.time() - t0, 1)}
    for n in (3, 4):
        solved, skipped, cyc, with_np = counts[n]
        out[f"{n}p"] = {"solved": solved, "skipped_too_large": skipped,
                        "with_3plus_layers": with_np, "cycling": cyc,
                        "cycling_share": round(cyc / solved, 4) if solved else None,
                        "layers_3plus": layers[n][0], "layers_cycling": layers[n][1]}
    out["periods"] = {str(k): v for k, v in sorted(periods.items())}
    if args.examples:
        with open(args.examples, "w") as f:
            for e in sorted(examples, key=lambda e: e["nodes"]):
                f.write(json.dumps(e) + "\n")
    print(json.dumps(out, indent=1))
    if args.output:
        print(provenance.write(args.output, out, rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())

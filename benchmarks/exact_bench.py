#!/usr/bin/env python3
"""The exact-search benchmark (same as `palace bench`): for the bundled suite of two-player
late-game positions of growing size (up to 3 hand + 3 face-up + 3 face-down cards each),
time to the exact value, depth reached by iterative deepening in 1 s and 10 s, nodes,
nodes/s, table hit rate, memory, and the ratio against a plain expectiminimax (no table,
no pruning, same compiled move generator) at equal depth, all in one run.

    python benchmarks/exact_bench.py [--quick] [--json] [--limit N] [...palace bench options]
"""
import sys

from palace_solver.cli.bench_cmd import bench

if __name__ == "__main__":
    bench.main(args=sys.argv[1:], prog_name="exact_bench.py")

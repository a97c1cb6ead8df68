#!/usr/bin/env python3
"""The exact-search benchmark: ``palace bench`` run and its rows kept with their provenance.

For the bundled suite of two-player late-game positions of growing size (up to 3 hand + 3
face-up + 3 face-down cards each): time to the exact value (the compiled graph solver with
each thread count, without merged positions, and the Python reference solver), depth
reached by iterative deepening within each budget, nodes, nodes/s, table hit rate, memory,
and the ratio against a plain expectiminimax (no table, no pruning, same compiled move
generator) at equal depth, all in one run.

    python benchmarks/exact_bench.py [--output bench.json] [palace bench options ...]
    python benchmarks/exact_bench.py --plain-seconds 0 --budgets 1 --limit 9

Every option but ``--output`` / ``--no-save`` goes to ``palace bench`` (``palace bench
--help``); the rows (``palace bench --json``) go to ``benchmarks/results/bench.json`` (or
``--output``) with the provenance of the run, and its summary is printed.
"""
import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import provenance

PALACE = shutil.which("palace") or str(Path(sys.executable).with_name("palace"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--output", default="bench.json",
                    help="Results file (a bare name goes to benchmarks/results/).")
    ap.add_argument("--no-save", action="store_true", help="print only")
    args, bench_args = ap.parse_known_args(argv)
    if "--json" in bench_args:
        bench_args.remove("--json")
    rec = provenance.record()
    r = subprocess.run([PALACE, "bench", "--json", *bench_args], stdout=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        return r.returncode
    out = json.loads(r.stdout)
    print(json.dumps(out["summary"], indent=1))
    if not args.no_save:
        print(provenance.write(args.output, {"bench_options": bench_args, **out}, rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the exact solver's time goes: ``perf record`` of one suite position, grouped.

    python benchmarks/profile_exact.py [NAME ...]      # default: 2p-h2u2d1-1 2p-h2u2d2-0

Runs ``perf record -g`` (Linux perf; Debian package ``linux-perf``) on a one-thread compiled
solve of each suite position (palace_solver/data/bench_2p.jsonl), then sums the self time
of each function of the compiled core into the parts of the build and of the solve (the
table in benchmarks/PROFILE-exact.md). Shares, not seconds: they hold on a loaded machine.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

#: part -> substrings of the symbols it holds (the first part that matches wins)
PARTS = [
    ("build: expand (moves, apply, unpack)", ("_expand_task", "apply_move", "unpack_state",
                                              "gen_moves")),
    ("build: pack the key", ("pack_state",)),
    ("build: compact key (pext)", ("palace_compress", "palace_expand")),
    ("build: map lookups, edges", ("_merge_buf", "memcmp", "_prefetch", "_set_pair",
                                   "_reserve_edges", "memmove")),
    ("build: map growth (rehash)", ("_rehash",)),
    ("solve: sweeps", ("_sweep_task", "heap_pop", "heap_push")),
    ("solve: exits of a layer", ("_exits_range",)),
    ("solve: layers, order", ("_layer_2p", "_layer", "ExactGraph_9solve", "_sort", "qsort")),
    ("kernel: page faults, memory", ("[k]",)),
]

SOLVE = """
import sys
from palace_solver.solve.bench import load_suite
from palace_solver.solve.solver import solve_exact
solve_exact(dict(load_suite())[sys.argv[1]].to_state(), engine="cython", threads=1)
"""


def profile(name: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-F", "499", "-g", "-o", data, sys.executable,
                        "-c", SOLVE, name], check=True, capture_output=True)
        out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort",
                              "symbol", "--stdio", "-g", "none"], check=True,
                             capture_output=True, text=True).stdout
    shares = {p: 0.0 for p, _ in PARTS}
    shares["other"] = 0.0
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\[[.k]\])\s+(\S+)", line)
        if not m:
            continue
        pct, kind, sym = float(m.group(1)), m.group(2), m.group(3)
        key = "[k]" if kind == "[k]" else sym
        for part, subs in PARTS:
            if any(x in key for x in subs):
                shares[part] += pct
                break
        else:
            shares["other"] += pct
    return shares


def main(argv=None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or ["2p-h2u2d1-1", "2p-h2u2d2-0"]
    if shutil.which("perf") is None:
        print("perf is not installed (Debian: apt install linux-perf)", file=sys.stderr)
        return 1
    rows = {n: profile(n) for n in names}
    print("| part | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for part in [p for p, _ in PARTS] + ["other"]:
        print(f"| {part} | " + " | ".join(f"{rows[n][part]:.1f}%" for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

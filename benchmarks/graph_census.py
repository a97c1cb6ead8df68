#!/usr/bin/env python3
"""How large is a position's whole exact graph? Build it with no time limit, up to a memory
cap, and report what was found.

``palace analyze`` refuses a graph that cannot fit and says so in one line; ``palace bench``
stops every build at its time budget. Neither tells how far past the budget a graph goes.
This builds the graph of a bench-suite position (or a position file) until it is complete or
the next array would grow past ``--gib``, prints the positions found and expanded every
``--every`` seconds (stderr), and ends with one JSON object: complete or not, positions
found, expanded, the frontier (found but not expanded), seconds, the build's peak memory,
and, for a complete graph, the solve's seconds and the root's value.

    python benchmarks/graph_census.py 2p-h3u3d3-0 --gib 21
    python benchmarks/graph_census.py --position pos.json --gib 8 --flat

A graph that stops at the cap with a large frontier is at least ``found`` positions; at the
suite's build and solve rate (about 2.3 M positions a second on two cores) that bounds its
exact solve from below.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time


def main(argv=None) -> int:
    from palace_solver.game.position import load_position
    from palace_solver.solve.bench import load_suite
    from palace_solver.solve.engine import _module

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", nargs="?", help="A position of the bench suite (2p-h3u3d3-0, ...).")
    ap.add_argument("--position", metavar="FILE", help="A position file instead of a suite name.")
    ap.add_argument("--gib", type=float, default=8.0,
                    help="Memory cap of the build, GiB (default 8; the machine must have it).")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--flat", action="store_true", help="Do not merge positions.")
    ap.add_argument("--every", type=float, default=10.0, help="Seconds between progress lines.")
    args = ap.parse_args(argv)
    if args.position:
        pos, name = load_position(args.position), args.position
    else:
        suite = dict(load_suite())
        if args.name not in suite:
            ap.error(f"no suite position {args.name!r}; one of: {', '.join(suite)}")
        pos, name = suite[args.name], args.name
    eng = _module()
    g = eng.ExactGraph(eng.CState.from_state(pos.to_state()), args.threads, True,
                       not args.flat)
    t0 = time.perf_counter()
    last = [t0]

    def progress(found):
        now = time.perf_counter()
        if now - last[0] >= args.every:
            last[0] = now
            print(f"{now - t0:7.0f} s  {found / 1e6:9.1f} M positions found", file=sys.stderr,
                  flush=True)

    complete = g.build(2**62, 0.0, progress, int(args.gib * 2**30))
    build_s = time.perf_counter() - t0
    st = g.stats()
    out = {"position": name, "merged": not args.flat, "threads": args.threads,
           "cap_gib": args.gib, "complete": bool(complete),
           "stop_reason": g.stop_reason or None, "found": st["nodes"],
           "expanded": st["expanded"], "frontier": st["nodes"] - st["expanded"],
           "build_seconds": round(build_s, 1), "build_peak_mb": st["build_peak_mb"]}
    if complete:
        t1 = time.perf_counter()
        g.solve()
        out["solve_seconds"] = round(time.perf_counter() - t1, 1)
        out["value"] = [float(x) for x in g.root_value()]
    out["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

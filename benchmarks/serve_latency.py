"""What ``palace serve`` adds to an analysis: the time of one ``POST /api/analyze`` against
the analysis alone, and 20 analyses sent at once.

    python benchmarks/serve_latency.py            # 20 sequential, then 20 at once
    python benchmarks/serve_latency.py --n 50

The server is started on a free port of 127.0.0.1 (``palace serve --port 0``) and stopped
at the end. Rows: the median and the 90th percentile of the wall time of a request; the
analysis's own ``stats.seconds`` (the same figure ``palace analyze --json`` reports); the
difference is the server's part (the child process forked from the forkserver, the pipes,
HTTP). Then 20 requests at once from 20 threads (the server runs ``--parallel`` of them at
a time, the cores by default): the wall time of the whole batch and whether every answer
equals the first. Every answer is also compared with the analysis run in this process
(timings left out): a difference would be a bug, not noise. The load average is printed:
the machine may be shared.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from webutil import Server, strip_timing

from palace_solver.analysis import analyze
from palace_solver.game.position import load_position

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "endgame.json"
SAMPLED = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
           "| burned 10 4 4 4 4 | draw 27 | to_move 0")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="requests in each row")
    args = ap.parse_args()
    rows = [("exact (examples/endgame.json)", {"position": EXAMPLE.read_text()}),
            ("sampled, 8 samples", {"position": SAMPLED, "samples": 8, "seed": 1})]
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as d:
        server = Server(d)
        try:
            for label, body in rows:
                pos = load_position(body["position"])
                want = strip_timing(analyze(pos, samples=body.get("samples"),
                                            seed=body.get("seed", 0)).to_json())
                walls, own = [], []
                for _ in range(args.n):
                    t0 = time.perf_counter()
                    status, got = server.request("/api/analyze", body)
                    walls.append(time.perf_counter() - t0)
                    assert status == 200 and strip_timing(got) == want, got
                    own.append(got["stats"]["seconds"])
                walls.sort()
                p90 = walls[int(0.9 * (len(walls) - 1))]
                print(f"{label}: request median {1000 * statistics.median(walls):.0f} ms, "
                      f"p90 {1000 * p90:.0f} ms; analysis alone median "
                      f"{1000 * statistics.median(own):.1f} ms")
                t0 = time.perf_counter()
                with ThreadPoolExecutor(args.n) as ex:
                    answers = list(ex.map(lambda _, b=body: server.request("/api/analyze", b),
                                          range(args.n)))
                wall = time.perf_counter() - t0
                same = all(s == 200 and strip_timing(a) == want for s, a in answers)
                print(f"  {args.n} at once: {wall:.2f} s in all, every answer equal: {same}")
                if not same:
                    sys.exit(1)
            print(json.dumps(server.request("/api/status")[1]))
        finally:
            server.stop()


if __name__ == "__main__":
    main()

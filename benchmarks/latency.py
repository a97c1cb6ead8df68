"""How soon the interactive commands answer: ``palace serve`` (an analysis over HTTP) and
``palace live`` (a hint at the real prompt).

    python benchmarks/latency.py serve [--n 20]
    python benchmarks/latency.py live [--rounds 20] [--time 1]
    python benchmarks/latency.py all                   # both, one result file each

``serve``: a server is started on a free port of 127.0.0.1 (``palace serve --port 0``) and
stopped at the end. Per position, the median and 90th percentile of the wall time of one
``POST /api/analyze`` against the analysis's own ``stats.seconds`` (the difference is the
server's part: the child forked from the forkserver, the pipes, HTTP); then ``--n``
requests at once from as many threads, the wall time of the whole batch. Every answer is
compared with the analysis run in this process (timings left out): a difference is a bug,
not noise, and the run fails.

``live``: ``palace live`` in a pseudo-terminal (pexpect), the time from sending ``hint`` to
the first line of the answer and to the prompt after it. Rows: ``floor`` (a ``status``
line, no hint: the terminal's own round trip), ``forced`` (the only legal move is a pickup:
answered at once, no analysis), ``flip`` (only face-down cards left: answered at once),
``search`` (hidden hands and a draw pile: the first line is the "thinking" line printed
before the analysis; the answer comes after ``--time``).

Results: ``benchmarks/results/latency-serve.json``, ``latency-live.json`` (with their
provenance: the machine may be shared, and its load is recorded).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import provenance

from palace_solver.analysis import analyze
from palace_solver.game.position import load_position

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "endgame.json"
HIDDEN = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
          "| burned 10 4 4 4 4 | draw 27 | to_move 0")
PALACE = shutil.which("palace") or str(Path(sys.executable).with_name("palace"))
#: Keys of ``stats`` that measure time (they differ between two runs of one analysis).
TIMING = ("seconds", "build_seconds", "solve_seconds", "determinizations_per_second",
          "nodes_per_second", "memory_mb", "map_load")


def _steady(a: dict) -> dict:
    out = json.loads(json.dumps(a))
    for k in TIMING:
        out.get("stats", {}).pop(k, None)
    return out


def _ms(xs) -> dict:
    xs = sorted(xs)
    return {"median_ms": round(1000 * statistics.median(xs), 1),
            "p90_ms": round(1000 * xs[int(0.9 * (len(xs) - 1))], 1),
            "max_ms": round(1000 * xs[-1], 1)}


class _Server:
    """``palace serve --port 0`` in a child process (its own session, so it is stopped
    with everything it forked); the address is read from the line it prints."""

    def __init__(self, sessions: str):
        self.proc = subprocess.Popen([PALACE, "serve", "--port", "0", "--sessions", sessions],
                                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     text=True, cwd=sessions, start_new_session=True)
        self.url = None
        deadline = time.monotonic() + 30
        while self.url is None and time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"(http://\S+/)", line)
            if m:
                self.url = m.group(1).rstrip("/")
        if self.url is None:
            self.stop()
            raise SystemExit("palace serve did not start")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(10)

    def post(self, path: str, body: dict):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def serve(n: int) -> dict:
    cases = [("exact: examples/endgame.json", {"position": EXAMPLE.read_text()}),
             ("search: hidden hands and a draw pile, 8 deals",
              {"position": HIDDEN, "samples": 8, "seed": 1})]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        server = _Server(d)
        try:
            for label, body in cases:
                pos = load_position(body["position"])
                want = _steady(analyze(pos, samples=body.get("samples"),
                                       seed=body.get("seed", 0)).to_json())
                walls, own = [], []
                for _ in range(n):
                    t0 = time.perf_counter()
                    status, got = server.post("/api/analyze", body)
                    walls.append(time.perf_counter() - t0)
                    if status != 200 or _steady(got) != want:
                        raise SystemExit(f"{label}: an answer differs from the analysis: {got}")
                    own.append(got["stats"]["seconds"])
                t0 = time.perf_counter()
                with ThreadPoolExecutor(n) as ex:
                    answers = list(ex.map(lambda _, b=body: server.post("/api/analyze", b),
                                          range(n)))
                at_once = time.perf_counter() - t0
                if not all(s == 200 and _steady(a) == want for s, a in answers):
                    raise SystemExit(f"{label}: an answer sent at once differs")
                row = {"position": label, "requests": n, "request": _ms(walls),
                       "analysis_median_ms": round(1000 * statistics.median(own), 1),
                       "at_once_seconds": round(at_once, 2)}
                rows.append(row)
                print(f"{label}: request median {row['request']['median_ms']} ms, "
                      f"p90 {row['request']['p90_ms']} ms; analysis alone "
                      f"{row['analysis_median_ms']} ms; {n} at once {at_once:.2f} s")
        finally:
            server.stop()
    return {"rows": rows}


def _spawn(args):
    import pexpect

    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    c = pexpect.spawn(PALACE, args, env=env, encoding="utf-8", timeout=120,
                      dimensions=(50, 200))
    c.delaybeforesend = None
    return c


def _timed(child, line, first, prompt, rounds) -> dict:
    """Seconds to ``first`` and to ``prompt`` after sending ``line``, per round."""
    a, b = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        child.sendline(line)
        child.expect(first)
        a.append(time.perf_counter() - t0)
        child.expect(prompt)
        b.append(time.perf_counter() - t0)
    return {"rounds": rounds, "first_line": _ms(a), "answer": _ms(b)}


BURNED = ("2 2 2 3 3 3 4 4 5 5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q "
          "K K A A A A")


def live(rounds: int, seconds: float) -> dict:
    import pexpect

    rows = {}
    # The forced pickup: me 3 on bob's K (after "me 7x2", "bob K").
    forced = (f"standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} "
              f"| to_move 0 | perspective 0")
    c = _spawn(["live", "--position", forced, "--no-hints", "--time", "5"])
    c.expect("your turn> ")
    c.sendline("me 7x2")
    c.expect("bob> ")
    c.sendline("bob K")
    c.expect("your turn> ")
    rows["floor"] = _timed(c, "status", "your turn\r\n", "your turn> ", rounds)
    rows["forced"] = _timed(c, "hint", "only one legal move: pickup", "your turn> ", rounds)
    c.sendline("quit")
    c.expect(pexpect.EOF)
    # A flip: the user has only face-down cards.
    flip = (f"standard | me: - / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} 3 7 7 "
            f"| to_move 0 | perspective 0")
    c = _spawn(["live", "--position", flip, "--no-hints", "--time", "5"])
    c.expect("your turn> ")
    rows["flip"] = _timed(c, "hint", "only one legal move: flip", "your turn> ", rounds)
    c.sendline("quit")
    c.expect(pexpect.EOF)
    # An ordinary turn with hidden hands: the thinking line, then the answer.
    c = _spawn(["live", "--names", "me,bob,ann", "--hand", "9 9 K", "--up",
                "me: 2 J Q; bob: 4 4 A; ann: 5 6 7", "--first", "bob", "--no-hints",
                "--time", str(seconds)])
    c.expect("bob> ")
    c.sendline("bob 5")
    c.expect("ann> ")
    c.sendline("ann 6")
    c.expect("your turn> ")
    rows["search"] = _timed(c, "hint", "thinking for up to", "your turn> ", max(3, rounds // 5))
    c.sendline("quit")
    c.expect(pexpect.EOF)
    for name, r in rows.items():
        print(f"{name:<8} first line: median {r['first_line']['median_ms']:7.1f} ms, max "
              f"{r['first_line']['max_ms']:7.1f} ms   answer: median "
              f"{r['answer']['median_ms']:7.1f} ms, max {r['answer']['max_ms']:7.1f} ms")
    return {"hint_seconds": seconds, "rows": rows}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("serve", "live", "all"))
    ap.add_argument("--n", type=int, default=20, help="serve: requests in each row")
    ap.add_argument("--rounds", type=int, default=20, help="live: rounds of each row")
    ap.add_argument("--time", type=float, default=1.0, help="live: hint budget, seconds")
    ap.add_argument("--no-save", action="store_true", help="print only")
    args = ap.parse_args(argv)
    if args.what in ("serve", "all"):
        rec = provenance.record()
        out = serve(args.n)
        if not args.no_save:
            print(provenance.write("latency-serve.json", out, rec))
    if args.what in ("live", "all"):
        rec = provenance.record()
        out = live(args.rounds, args.time)
        if not args.no_save:
            print(provenance.write("latency-live.json", out, rec))


if __name__ == "__main__":
    main()

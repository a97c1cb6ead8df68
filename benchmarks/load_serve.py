"""A load test of ``palace serve``: many clients at once, mixing board analyses, live events
and hints, against a server started here on a free port of 127.0.0.1.

    python benchmarks/load_serve.py [--clients 50] [--seconds 60] [--out load-serve.json]

Each client is a thread with its own live session (created at the start, a two-player game
simulated with the engine's greedy bot and entered event by event as the user at seat 0
would), looping until the time is up over: a live event (60%), a hint for the session (15%,
``time`` 0.2 s), an analysis of a random late-game board position (25%, ``time`` 0.3 s),
the board's view of the position (always cheap). When its game is over the client starts a
new session. Every request's status and wall time are recorded per kind.

At the end: requests a second, p50 and p99 latency per kind and overall, the statuses
(errors other than 503 for a full queue are reported by status and message), the server's
peak memory (the server process's high-water mark, and the largest total of the server and
its analysis children sampled every half second), and whether every live session file is
intact: it loads, and holds exactly the events its client had acknowledged, in order.

A bounded script rather than locust: the clients need game logic (legal events of their
own game), and the numbers should come from one process that also watches the server's
memory. The result goes to ``benchmarks/results/`` with its provenance (command, commit,
date, cores, load).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import provenance

from palace_solver.game.cards import rank_name, ranks_of
from palace_solver.game.generate import random_exact_state
from palace_solver.game.moves import FLIP
from palace_solver.game.position import Position
from palace_solver.game.rules import Rules
from palace_solver.game.state import DEAL, LAYOUT_PHASE, State
from palace_solver.live.session import Session
from palace_solver.sample.policies import make_bot


def _sample(state, rng):
    x = rng.randrange(sum(state.pool))
    for r, c in enumerate(state.pool):
        if x < c:
            return r
        x -= c
    raise AssertionError


def simulate(seed: int, cap: int = 300):
    """A two-player game with greedy bots, as the user at seat 0 enters it: the setup
    (names, hand, face-up cards, who starts) and the event lines."""
    names = ["me", "bob"]
    state = State.new_game(Rules(), 2)
    rng = random.Random(f"load-chance-{seed}")
    brng = random.Random(f"load-bots-{seed}")
    bots = [make_bot("greedy"), make_bot("greedy")]
    while state.phase == DEAL:
        state.apply(_sample(state, rng))
    while state.phase == LAYOUT_PHASE:
        state.apply(bots[state.to_move].choose(state, brng))
    setup = {"names": "me,bob", "me": "me",
             "hand": " ".join(rank_name(r) for r in ranks_of(state.hands[0])),
             "up": "; ".join(f"{nm}: " + " ".join(rank_name(r) for r in ranks_of(state.face_up[p]))
                             for p, nm in enumerate(names)),
             "first": names[state.to_move]}
    lines, seen = [], set()
    while not state.is_terminal() and len(seen) < cap and state.key() not in seen:
        seen.add(state.key())
        p = state.to_move
        m = bots[p].choose(state, brng)
        state.apply(m)
        if m.kind == FLIP:
            r = _sample(state, rng)
            state.apply(r)
            lines.append(f"{names[p]} flip {rank_name(r)}")
        else:
            lines.append(f"{names[p]} {m}")
        while state.is_chance() and state.pending[1] != 0:
            state.apply(_sample(state, rng))
        if state.is_chance():
            drawn = []
            while state.is_chance():
                drawn.append(_sample(state, rng))
                state.apply(drawn[-1])
            lines.append("draw " + " ".join(map(rank_name, drawn)))
    return setup, lines


class Server:
    def __init__(self, sessions: str, parallel: int | None):
        args = [sys.executable, "-m", "palace_solver.cli.main", "serve", "--port", "0",
                "--sessions", sessions, "--max-seconds", "60"]
        if parallel:
            args += ["--parallel", str(parallel)]
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     text=True, cwd=sessions, start_new_session=True)
        for _ in range(50):
            line = self.proc.stderr.readline()
            m = re.search(r"http://([\d.]+):(\d+)/", line)
            if m:
                self.host, self.port = m.group(1), int(m.group(2))
                return
        raise RuntimeError("palace serve did not start")

    def stop(self):
        os.killpg(self.proc.pid, 15)
        self.proc.wait(20)


def _rss_kb(pid: int, key: str = "VmRSS") -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _tree(pid: int) -> list[int]:
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


class Client(threading.Thread):
    def __init__(self, k: int, srv: Server, end: float, log: list, lock: threading.Lock):
        super().__init__(daemon=True)
        self.k, self.srv, self.end, self.log, self.lock = k, srv, end, log, lock
        self.rng = random.Random(k)
        self.sessions: dict[str, list[str]] = {}   # id -> events acknowledged
        self.game = 0

    def request(self, kind: str, method: str, path: str, body=None):
        conn = http.client.HTTPConnection(self.srv.host, self.srv.port, timeout=120)
        data = None if body is None else json.dumps(body)
        t0 = time.perf_counter()
        try:
            conn.request(method, path, body=data,
                         headers={"Content-Type": "application/json"} if data else {})
            r = conn.getresponse()
            raw = r.read()
            status = r.status
        except OSError as e:
            status, raw = 0, str(e).encode()
        finally:
            conn.close()
        dt = time.perf_counter() - t0
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = {"error": raw[:200].decode(errors="replace")}
        with self.lock:
            self.log.append((kind, status, dt, obj.get("error") if status >= 400 or not status
                             else None))
        return status, obj

    def new_game(self):
        setup, lines = simulate(1000 * self.k + self.game)
        self.game += 1
        sid = f"load-{self.k}-{self.game}.json"
        status, _ = self.request("create", "POST", "/api/live", {**setup, "file": sid})
        if status != 201:
            return None
        self.sessions[sid] = []
        return sid, lines

    def run(self):
        cur = self.new_game()
        i = 0
        while time.monotonic() < self.end:
            x = self.rng.random()
            if cur is None:
                cur, i = self.new_game(), 0
                continue
            sid, lines = cur
            if x < 0.60:
                if i >= len(lines):
                    cur = None
                    continue
                status, obj = self.request("event", "POST", f"/api/live/{sid}/event",
                                           {"event": lines[i]})
                if status == 200:
                    self.sessions[sid].append(obj["event"])
                    i += 1
            elif x < 0.75:
                self.request("hint", "POST", f"/api/live/{sid}/hint", {"time": 0.2})
            else:
                s = random_exact_state(self.rng, 2)
                pos = Position.from_state(s).to_json()
                self.request("board", "POST", "/api/board", {"position": pos, "line": []})
                self.request("analyze", "POST", "/api/analyze", {"position": pos, "time": 0.3})


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--parallel", type=int, default=None,
                    help="palace serve --parallel (default: the server's, the cores)")
    ap.add_argument("--out", default="load-serve.json")
    args = ap.parse_args(argv)
    rec = provenance.record()
    with tempfile.TemporaryDirectory() as d:
        srv = Server(d, args.parallel)
        log: list = []
        lock = threading.Lock()
        stop = threading.Event()
        peak = {"server_kb": 0, "tree_kb": 0}

        def watch():
            while not stop.is_set():
                tree = sum(_rss_kb(p) for p in _tree(srv.proc.pid))
                peak["tree_kb"] = max(peak["tree_kb"], tree)
                stop.wait(0.5)
        w = threading.Thread(target=watch, daemon=True)
        w.start()
        t0 = time.monotonic()
        end = t0 + args.seconds
        clients = [Client(k, srv, end, log, lock) for k in range(args.clients)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        wall = time.monotonic() - t0
        stop.set()
        w.join()
        peak["server_kb"] = _rss_kb(srv.proc.pid, "VmHWM")
        srv.stop()
        # every session file: loads, and holds the acknowledged events in order
        intact = bad = 0
        problems = []
        for c in clients:
            for sid, acked in c.sessions.items():
                try:
                    s = Session.load(str(Path(d) / sid))
                    ok = list(s.events) == acked
                except Exception as e:  # noqa: BLE001 - reported, not raised
                    ok, s = False, None
                    problems.append(f"{sid}: {e}")
                if ok:
                    intact += 1
                else:
                    bad += 1
                    if s is not None:
                        problems.append(f"{sid}: {len(s.events)} events, {len(acked)} acked")
    kinds = sorted({k for k, *_ in log})
    by_kind = {}
    for k in kinds + ["all"]:
        rows = [r for r in log if k == "all" or r[0] == k]
        lat = [r[2] for r in rows]
        statuses: dict = {}
        for r in rows:
            statuses[str(r[1])] = statuses.get(str(r[1]), 0) + 1
        by_kind[k] = {"requests": len(rows), "per_second": round(len(rows) / wall, 1),
                      "p50_ms": round(1000 * pct(lat, 0.5), 1) if lat else None,
                      "p99_ms": round(1000 * pct(lat, 0.99), 1) if lat else None,
                      "mean_ms": round(1000 * statistics.fmean(lat), 1) if lat else None,
                      "statuses": statuses}
    errors: dict = {}
    for k, status, _, err in log:
        if status >= 400 or status == 0:
            key = f"{k} {status}: {(err or '')[:60]}"
            errors[key] = errors.get(key, 0) + 1
    # a full queue (503) is expected under this load, and a hint while the session waits
    # for a draw (409); anything else is not
    unexpected = {k: v for k, v in errors.items()
                  if " 503:" not in k and not k.startswith("hint 409")}
    out = {"clients": args.clients, "seconds": round(wall, 1),
           "mix": "60% live events, 15% hints (0.2 s), 25% board view + analysis (0.3 s)",
           "requests": len(log), "per_second": by_kind["all"]["per_second"],
           "latency": by_kind, "errors": errors, "unexpected_errors": unexpected,
           "server_peak_rss_mb": round(peak["server_kb"] / 1024, 1),
           "server_and_children_peak_rss_mb": round(peak["tree_kb"] / 1024, 1),
           "sessions": {"files": intact + bad, "intact": intact, "damaged": bad,
                        "problems": problems[:20]}}
    print(json.dumps(out, indent=1))
    print(provenance.write(args.out, out, rec))
    return 0 if not unexpected and not bad else 1


if __name__ == "__main__":
    sys.exit(main())

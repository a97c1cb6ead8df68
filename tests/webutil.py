"""A real ``palace serve`` for the web tests: started as a child process on a free port of
127.0.0.1, its address read from the line it prints, stopped by its process id."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from palace_solver.solve.results import Analysis  # noqa: F401 - the package is importable

#: Keys of ``stats`` that measure time (they differ between two runs of one analysis).
TIMING = ("seconds", "build_seconds", "solve_seconds", "determinizations_per_second",
          "nodes_per_second", "memory_mb", "map_load")


class Server:
    def __init__(self, sessions, *args):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "palace_solver.cli.main", "serve", "--port", "0",
             "--sessions", str(sessions), *args],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
            # not the checkout: there `-m palace_solver` would be the source tree, which
            # has neither the compiled core nor palace_solver.cli (both are installed)
            cwd=str(sessions), start_new_session=True)
        deadline = time.monotonic() + 30
        self.url = None
        self.banner = ""
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.banner += line
            m = re.search(r"(http://\S+/)", line)
            if m:
                self.url = m.group(1).rstrip("/")
                break
        if self.url is None:
            self.stop()
            raise RuntimeError(f"palace serve did not start: {self.banner!r}")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)

    def request(self, path, body=None, timeout=120):
        """``(status, JSON)`` of a GET (no body) or a POST."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def strip_timing(a: dict) -> dict:
    """An analysis JSON without the figures that measure time."""
    out = json.loads(json.dumps(a))
    for k in TIMING:
        out.get("stats", {}).pop(k, None)
    return out

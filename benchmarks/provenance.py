"""Where a benchmark result comes from, written the same way by every runner.

A number without its circumstances cannot be compared with the next one: the machine here
has two cores shared with other jobs, so a timing says little without the load it was
measured under. Every file a runner writes under ``benchmarks/results/`` is a JSON object
whose ``"provenance"`` key is :func:`record`'s dict:

- ``command``: the command line, as typed (``python benchmarks/perft.py --quick``);
- ``commit``: the checkout's ``git rev-parse HEAD``, and ``dirty`` when files differed
  from it (None outside a git checkout);
- ``date``: the start, UTC, ISO 8601; ``seconds``: the wall time of the run;
- ``machine``: ``cores`` (``os.cpu_count``), ``load`` (the 1-minute load average at the
  start and at the end), the platform and the processor's name;
- ``versions``: Python, palace-solver, and the libraries a result can depend on.

    rec = provenance.record()
    ...                                   # the measurement
    provenance.write(RESULTS / "perft.json", {"rows": rows}, rec)

From the package it imports only the atomic write (:mod:`palace_solver.atomic`: a result is
never left half written); the package's version comes from ``importlib.metadata``.
"""
from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from palace_solver.atomic import write_atomic

__all__ = ["RESULTS", "finish", "git_commit", "record", "write"]

#: The one folder of results.
RESULTS = Path(__file__).resolve().parent / "results"
#: Distributions whose version goes into every record (absent ones are left out).
PACKAGES = ("palace-solver", "numpy", "Cython", "networkx", "starlette", "uvicorn", "ray",
            "open_spiel")


def git_commit(cwd: Path | None = None) -> tuple[str | None, bool]:
    """``(commit, dirty)`` of the checkout holding ``cwd`` (default: this file's), or
    ``(None, False)`` outside one. Dirty: a tracked file other than a result differs from
    the commit (a runner rewriting a result file does not make the code it ran dirty)."""
    cwd = cwd or Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=cwd, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                 "--", ":/", ":(exclude,top)benchmarks/results/"],
                                capture_output=True, text=True, cwd=cwd, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None, False
    return head, bool(status.strip())


def _cpu_name() -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def record(argv=None) -> dict:
    """The provenance of a run starting now (``argv``: default ``sys.argv``)."""
    argv = list(sys.argv if argv is None else argv)
    if argv and argv[0].endswith(".py"):
        # the script as run from the checkout's root: python benchmarks/perft.py
        here = Path(argv[0]).resolve()
        try:
            argv[0] = str(here.relative_to(RESULTS.parents[1]))
        except ValueError:
            argv[0] = str(here)
        argv = ["python"] + argv
    commit, dirty = git_commit()
    return {"command": " ".join(shlex.quote(a) for a in argv), "commit": commit,
            "dirty": dirty, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": None,
            "machine": {"cores": os.cpu_count(), "load": [round(os.getloadavg()[0], 2)],
                        "platform": platform.platform(), "cpu": _cpu_name()},
            "versions": _versions(), "_t0": time.perf_counter()}


def finish(rec: dict) -> dict:
    """The record completed at the end of the run: its wall time and the load now."""
    out = {k: v for k, v in rec.items() if k != "_t0"}
    out["machine"] = dict(rec["machine"], load=rec["machine"]["load"][:1]
                          + [round(os.getloadavg()[0], 2)])
    if "_t0" in rec:
        out["seconds"] = round(time.perf_counter() - rec["_t0"], 1)
    return out


def write(path, results: dict, rec: dict) -> Path:
    """Write ``{"provenance": finish(rec), **results}`` to ``path`` (made relative to
    :data:`RESULTS` when it has no folder), atomically; return the path."""
    path = Path(path)
    if path.parent == Path("."):
        path = RESULTS / path
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(str(path), json.dumps({"provenance": finish(rec), **results}, indent=1) + "\n")
    return path

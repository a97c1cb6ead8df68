"""One batch layer for the heavy jobs: a list of tasks, a function, results in task order.

A batch is a sequence of JSON-able task dicts, each with a unique ``"id"``, and a
top-level function ``fn(task) -> dict`` that is deterministic given the task (the task
carries its own seed, see :func:`task_seed`). :func:`run_batch` runs the tasks in this
process (``jobs=1``), in local processes (``jobs>1``) or on a Ray cluster (``ray=...``),
and returns the results in task order. Since nothing depends on which worker ran a task or
when it finished, the same tasks give the same results for any number of workers.

Output file (``output=``), one JSON object a line::

    {"palace_batch": 1, "label": "games", "tasks": 40, "fingerprint": "9f0c..."}
    {"id": 3, "result": {...}}
    {"id": 0, "result": {...}}

The first line is a header whose fingerprint hashes the function's name and the whole task
list, so a file is never resumed by a different batch. Each finished task is appended as
one line, flushed and fsynced, in completion order: a batch killed at any moment loses at
most the tasks still running. On start, the lines already there are read and their tasks
are skipped; a truncated or corrupt last line (the kill came mid-write) is dropped and the
file cut back to the last good line. When every task is done the file is rewritten in task
order (through a temporary file and an atomic rename), so the finished file is the same
bytes whatever the workers, the completion order or the number of interruptions.

Results are passed through JSON (``json.loads(json.dumps(r))``) whether computed now or
read back, so a resumed batch returns exactly what an uninterrupted one does (tuples come
back as lists, dict keys as strings).

Ray is imported only when asked for (``pip install '.[ray]'``): an existing distributed
engine rather than a home-made one, with its own scheduler, cluster launcher and dashboard.
"""
from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import multiprocessing as mp
import os
import socket
import sys
import time
from typing import Callable, Sequence

from ..atomic import write_atomic

__all__ = ["BatchError", "run_batch", "task_seed", "batch_fingerprint"]

FORMAT = 1  # version of the output file layout, in the header


class BatchError(ValueError):
    """A user error: bad tasks, an output file of another batch, Ray missing or unreachable.
    The message is one line."""


def task_seed(seed: int, task_id) -> int:
    """The seed of task ``task_id`` in a batch seeded with ``seed``: 63 bits of
    blake2b(f"{seed}:{task_id}"), so it depends on the pair only, not on the workers.

    >>> task_seed(0, 1) == task_seed(0, 1) != task_seed(1, 1)
    True
    """
    h = hashlib.blake2b(f"{seed}:{task_id}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") >> 1


def _dumps(obj) -> str:
    # One canonical form for every line: keys sorted, no spaces, so equal objects are
    # equal bytes (floats use repr, which round-trips exactly).
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _fn_name(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def batch_fingerprint(fn, tasks: Sequence[dict]) -> str:
    """blake2b of the function's qualified name and the canonical JSON of the task list."""
    try:
        text = _dumps({"fn": _fn_name(fn), "tasks": list(tasks)})
    except (TypeError, ValueError) as e:
        raise BatchError(f"tasks are not JSON-able: {e}") from None
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _check_ids(tasks) -> list[str]:
    """The key of each task id (its JSON text, so 1 and "1" stay distinct).

    :raises BatchError: a task that is not a dict, lacks an id, or repeats one.
    """
    keys, seen = [], set()
    for i, t in enumerate(tasks):
        if not isinstance(t, dict) or "id" not in t:
            raise BatchError(f"task {i} is not a dict with an 'id'")
        tid = t["id"]
        if isinstance(tid, bool) or not isinstance(tid, (str, int)):
            raise BatchError(f"task {i}: id {tid!r} is neither a string nor an integer")
        k = _dumps(tid)
        if k in seen:
            raise BatchError(f"task id {tid!r} appears twice")
        seen.add(k)
        keys.append(k)
    return keys


# -- the output file -------------------------------------------------------------------------

def finished_results(path) -> list[tuple]:
    """``(id, result)`` of each finished task in the batch output file ``path`` as it is now
    (a run still going, or stopped by a kill, gives the tasks done so far; a line the kill
    cut is skipped), in the file's order. For readers; a run resumes by :func:`run_batch`."""
    out = []
    with open(path) as f:
        f.readline()                    # the header
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if "result" in rec:
                out.append((rec["id"], rec["result"]))
    return out


def rename_tasks(path, fn, begun: Sequence[dict], tasks: Sequence[dict],
                 check: Callable[[dict], None] | None = None) -> bool:
    """Move the output file ``path`` of the batch ``begun`` to ``tasks``: the same work
    whose tasks now spell a field otherwise (an agent named with options a later default
    would change). Its results stay; its header takes ``tasks``' fingerprint, so that
    :func:`run_batch` resumes it under them. ``check(done)``, given the finished results by
    id, may refuse the move by raising (say, when a task played again comes out otherwise).

    :returns: whether the file was moved (False: absent, or not ``begun``'s file: moved
        already, or another batch, which :func:`run_batch` then refuses).
    :raises BatchError: ``begun`` and ``tasks`` are not the same ids in the same order."""
    if _check_ids(begun) != _check_ids(tasks):
        raise BatchError("a renamed batch keeps its task ids, in their order")
    path = os.fspath(path)
    if not os.path.exists(path):
        return False
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    try:
        header = json.loads(lines[0])
    except ValueError:
        return False
    if header.get("fingerprint") != batch_fingerprint(fn, begun):
        return False
    if check is not None:
        check(dict(finished_results(path)))
    header["fingerprint"] = batch_fingerprint(fn, tasks)
    write_atomic(path, [(_dumps(header) + "\n").encode(), b"\n".join(lines[1:])])
    return True


def _load(path: str, header: dict, keys: set) -> dict:
    """Results already in ``path`` by id key; creates the file (with its header) if absent
    or empty, and cuts a damaged last line.

    :raises BatchError: a file that is not a batch output, belongs to another batch, has a
        damaged line before the last, or holds an id outside the task list.
    """
    head = (_dumps(header) + "\n").encode()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        data = b""
    except OSError as e:
        raise BatchError(f"cannot read {path}: {e.strerror or e}") from None
    if head.startswith(data):  # absent, empty, or killed while writing the header
        try:
            write_atomic(path, [head])
        except OSError as e:
            raise BatchError(f"cannot write {path}: {e.strerror or e}") from None
        return {}
    first, nl, _ = data.partition(b"\n")
    try:
        old = json.loads(first) if nl else None
    except ValueError:
        old = None
    if not isinstance(old, dict) or "palace_batch" not in old:
        raise BatchError(f"{path} exists and is not a batch output file; "
                         f"give another --output or delete it")
    if old.get("palace_batch") != FORMAT or old.get("fingerprint") != header["fingerprint"]:
        # only the fingerprint decides: the label is cosmetic and may change
        raise BatchError(f"{path} was written by another batch (fingerprint "
                         f"{str(old.get('fingerprint'))[:12]}, this one "
                         f"{header['fingerprint'][:12]}); give another --output or delete it")
    done: dict = {}
    pos = good = len(first) + 1
    lines = data[pos:].split(b"\n")
    for i, line in enumerate(lines):
        last = i == len(lines) - 1
        if last and not line:
            break
        try:
            if last:  # no newline after it: the write was cut
                raise ValueError
            rec = json.loads(line)
            key = _dumps(rec["id"])
            result = rec["result"]
            if not isinstance(result, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            if last or all(not x for x in lines[i + 1:]):
                break  # the damaged line is the last one: cut it below
            raise BatchError(f"{path}: line {i + 2} is damaged (not the last line); "
                             f"the file cannot be resumed") from None
        if key not in keys:
            raise BatchError(f"{path}: task id {rec['id']!r} is not in this batch")
        if key in done:
            raise BatchError(f"{path}: task id {rec['id']!r} appears twice")
        done[key] = result
        pos += len(line) + 1
        good = pos
    if good < len(data):
        with open(path, "r+b") as f:
            f.truncate(good)
            f.flush()
            os.fsync(f.fileno())
    return done


class _Sink:
    """Appends one line per finished task; the only writer of the output file."""

    def __init__(self, path: str | None):
        self.f = open(path, "ab") if path else None

    def add(self, task_id, result) -> None:
        if self.f is not None:
            self.f.write((_dumps({"id": task_id, "result": result}) + "\n").encode())
            self.f.flush()
            os.fsync(self.f.fileno())

    def close(self) -> None:
        if self.f is not None:
            self.f.close()


# -- progress --------------------------------------------------------------------------------

class _Progress:
    """``label: done/total  pct  rate/s  eta`` on stderr: redrawn in place on a terminal,
    a plain line every few seconds otherwise (logs of a cluster job)."""

    def __init__(self, on, label: str, total: int, done: int):
        tty = sys.stderr.isatty()
        self.on = bool(tty if on == "auto" else on) and total > 0
        self.tty, self.label, self.total = tty, label, total
        self.start_done = self.done = done
        self.t0 = self.last = time.monotonic()
        if self.on and done:
            sys.stderr.write(f"{label}: resuming, {done} of {total} already done\n")
        self._draw(force=True)

    def tick(self) -> None:
        self.done += 1
        self._draw(force=self.done == self.total)

    def _draw(self, force=False) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if not force and now - self.last < (0.2 if self.tty else 5.0):
            return
        self.last = now
        n, el = self.done - self.start_done, now - self.t0
        rate = n / el if el > 0 else 0.0
        left = self.total - self.done
        eta = f"  eta {left / rate:.0f} s" if rate > 0 and n and left else ""
        width = 24
        fill = width * self.done // self.total
        text = (f"{self.label}: [{'#' * fill}{'-' * (width - fill)}] {self.done}/{self.total}"
                f"  {rate:.1f}/s{eta}")
        sys.stderr.write(("\r" + text + "\033[K") if self.tty else text + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.on and self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


# -- runners: each yields (index, result) as tasks finish ------------------------------------

def _run_local(fn, tasks, todo, jobs):
    if jobs <= 1:
        for i in todo:
            yield i, fn(tasks[i])
        return
    # fork: the workers inherit the imported engine instead of re-importing it
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    ex = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    try:
        it = iter(todo)
        pending = {}
        for i in it:  # a bounded number in flight: memory stays flat on huge batches
            pending[ex.submit(fn, tasks[i])] = i
            if len(pending) >= 4 * jobs:
                break
        while pending:
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                i = pending.pop(fut)
                yield i, fut.result()
                nxt = next(it, None)
                if nxt is not None:
                    pending[ex.submit(fn, tasks[nxt])] = nxt
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise BatchError("Ray is not installed: pip install '.[ray]' "
                         "(or pip install 'ray>=2.9')") from None
    return ray


def _routable_ip() -> str | None:
    """The address Ray puts in place of a loopback one (the interface of the default
    route); a UDP connect sends nothing."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("8.8.8.8", 80))
            return s.getsockname()[0]
    except OSError:
        return None


def _check_reachable(address: str) -> None:
    """Ray waits without end for a cluster that is not there; one TCP connect first turns
    a wrong HOST:PORT into a prompt error.

    :raises BatchError: nothing accepts connections at that address.
    """
    if address in ("auto", "local"):
        return
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit():
        return  # not HOST:PORT: Ray words the error
    hosts = [host]
    if host in ("127.0.0.1", "localhost", "::1"):
        hosts.append(_routable_ip())  # Ray connects there instead, unless told otherwise
    for h in hosts:
        if h is None:
            continue
        try:
            socket.create_connection((h, int(port)), timeout=5).close()
            return
        except OSError:
            continue
    raise BatchError(f"cannot connect to Ray at {address!r}: nothing accepts connections "
                     f"there (is the cluster started?)")


def _ray_connect(ray, address: str, jobs: int) -> bool:
    """Connect (or start, for 'local'); True if this call started the session."""
    if ray.is_initialized():
        return False  # the caller owns the session (tests, notebooks)
    _check_reachable(address)
    kw = dict(address=address, log_to_driver=False, logging_level="ERROR")
    if address == "local":
        # a one-machine cluster for this batch only (connecting to a running cluster
        # takes no resource options)
        kw.update(num_cpus=jobs if jobs > 1 else None, include_dashboard=False)
    try:
        ray.init(**kw)
    except Exception as e:  # noqa: BLE001 - Ray raises many kinds; one line for the user
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise BatchError(f"cannot connect to Ray at {address!r}: {msg}") from None
    return True


def _run_ray(fn, tasks, todo, jobs, ray):
    pending: dict = {}
    try:
        remote = ray.remote(num_cpus=1, max_retries=3)(fn)
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        # Tasks in flight: by default twice the cluster's CPUs, enough to keep every CPU
        # busy while results travel back, few enough that a huge batch does not sit in the
        # object store at once. jobs > 1 caps the tasks running at once (a share of a
        # shared cluster): exactly that many in flight.
        limit = jobs if jobs > 1 else 2 * cpus
        it = iter(todo)
        for i in it:
            pending[remote.remote(tasks[i])] = i
            if len(pending) >= limit:
                break
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                i = pending.pop(ref)
                yield i, ray.get(ref)
                nxt = next(it, None)
                if nxt is not None:
                    pending[remote.remote(tasks[nxt])] = nxt
    finally:
        for ref in pending:  # an error or an interrupt: stop what is still queued
            ray.cancel(ref, force=True)


# -- the entry point -------------------------------------------------------------------------

def run_batch(fn: Callable[[dict], dict], tasks: Sequence[dict], *, jobs: int = 1,
              ray: str | None = None, output: str | os.PathLike | None = None,
              progress: bool | str = False, label: str = "tasks") -> list[dict]:
    """Run ``fn`` on every task; the results in task order.

    :param fn: a top-level (picklable) function, deterministic given its task, returning a
        JSON-able dict.
    :param tasks: JSON-able dicts, each with a unique ``"id"`` (string or integer).
    :param jobs: local processes (1: this process). With ``ray``, when above 1: the most
        tasks running at once (default: twice the cluster's CPUs in flight, so every CPU is
        busy); with ``ray="local"`` also the CPUs of the cluster started.
    :param ray: None (local), ``"local"`` (start a one-machine cluster for this batch),
        ``"auto"`` (the cluster this machine belongs to) or an address ``HOST:PORT`` /
        ``ray://HOST:PORT``. A session already initialized by the caller is used as is.
    :param output: JSONL file of finished tasks; resumed if it exists (module docstring).
    :param progress: a bar on stderr: True, False, or ``"auto"`` (when stderr is a terminal).
    :param label: what the tasks are, for the progress bar and the output header.
    :raises BatchError: bad tasks, ``jobs < 1``, an output file of another batch or
        damaged before its last line, Ray missing or unreachable.
    Exceptions raised by ``fn`` propagate; tasks finished before stay in ``output``.
    """
    tasks = list(tasks)
    if not isinstance(jobs, int) or jobs < 1:
        raise BatchError(f"jobs must be a positive integer, not {jobs!r}")
    keys = _check_ids(tasks)
    done: dict = {}
    sink = _Sink(None)
    if output is not None:
        path = os.fspath(output)
        header = {"palace_batch": FORMAT, "label": label, "tasks": len(tasks),
                  "fingerprint": batch_fingerprint(fn, tasks)}
        done = _load(path, header, set(keys))
    results: list = [done.get(k) for k in keys]
    todo = [i for i, k in enumerate(keys) if k not in done]
    started = False
    if ray is not None:
        ray_mod = _import_ray()  # even with nothing to do: a missing Ray is said at once
    if not todo:
        runner = iter(())
    elif ray is not None:
        # connect before anything is drawn, so a refusal is the only output
        started = _ray_connect(ray_mod, str(ray), jobs)
        runner = _run_ray(fn, tasks, todo, jobs, ray_mod)
    else:
        runner = _run_local(fn, tasks, todo, jobs)
    if output is not None:
        sink = _Sink(path)
    bar = _Progress(progress, label, len(tasks), len(tasks) - len(todo))
    try:
        for i, res in runner:
            try:
                res = json.loads(json.dumps(res))
            except (TypeError, ValueError) as e:
                raise TypeError(f"result of task {tasks[i]['id']!r} is not JSON-able: "
                                f"{e}") from None
            if not isinstance(res, dict):
                raise TypeError(f"result of task {tasks[i]['id']!r} is not a dict")
            sink.add(tasks[i]["id"], res)
            results[i] = res
            bar.tick()
    finally:
        if hasattr(runner, "close"):
            runner.close()
        sink.close()
        bar.close()
        if started:  # a session this call opened (not the caller's)
            ray_mod.shutdown()
    if output is not None:
        # every task done: the canonical file, in task order
        lines = [(_dumps(header) + "\n").encode()]
        lines += [(_dumps({"id": t["id"], "result": r}) + "\n").encode()
                  for t, r in zip(tasks, results)]
        write_atomic(path, lines)
    return results

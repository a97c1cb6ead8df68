"""Analyses off the request thread: one child process per analysis, a cap on how many run
at once, a hard time limit, and cancellation when the browser goes away.

Why processes. The search holds the CPU (and the compiled core does not release the GIL),
so an analysis in the server's own process would stall every other request. A child
process can also be killed at once when its tab is closed or its limit passes, which a
thread cannot. Children come from a *forkserver* that has imported the analyzer already:
starting one costs a fork, not an interpreter start, and they are never forked from the
server's threads (forking a threaded process can copy a held lock).

The child calls :func:`palace_solver.analysis.analyze` with the options of ``palace analyze``
(``time_budget``, ``samples``, ``seed``, ``method``, ``depth``; one job) and sends back
progress messages and then the analysis JSON, the same object ``palace analyze --json``
prints.

Multiprocessing would have each child run the server's main module again first (as
``__mp_main__``, as it does for every process it does not fork directly): slow (the whole
command line imported again) and fragile (a main module without the ``if __name__ ==
"__main__"`` guard would start a server in every child). The child needs nothing of it, so
:func:`_clean_start` hides the main module while a child is started.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

__all__ = ["AnalysisBusy", "AnalysisCancelled", "AnalysisFailed", "AnalysisInvalid",
           "AnalysisTimeout", "Runner"]


class AnalysisFailed(RuntimeError):
    """The analysis raised; the message is one line."""


class AnalysisInvalid(AnalysisFailed):
    """The analyzer refused its input (``palace analyze`` would exit with status 2)."""


class AnalysisTimeout(AnalysisFailed):
    """The analysis did not finish within the server's limit (the child was killed)."""


class AnalysisBusy(AnalysisFailed):
    """The queue of waiting analyses is full: try again later (503)."""


class AnalysisCancelled(AnalysisFailed):
    """The client went away; the child was killed."""


def _child(conn, kind: str, payload: dict, options: dict, limit: float,
           server_pid: int) -> None:
    """Runs in the child: ``kind`` ``analyze`` (``payload`` a position's JSON; progress
    reported at most ten times a second), ``hint`` (``payload`` a live session's JSON:
    its hint, as ``palace live`` gives it) or ``review`` (``payload`` a game record's
    JSON: its review, progress by decisions). Ends itself after ``limit`` seconds and when
    the server is gone, whatever happened to the server (:func:`_watch`)."""
    from palace_solver.analysis import analyze
    from palace_solver.game.position import Position

    # A process group of its own: killing it reaches the hint's own analysis child too.
    try:
        os.setpgid(0, 0)
    except OSError:  # pragma: no cover
        pass
    _watch(server_pid, limit)

    last = [0.0]

    def progress(done, total=None):
        now = time.monotonic()
        if now - last[0] >= 0.1:
            last[0] = now
            try:
                conn.send(("progress", done, total))
            except OSError:
                pass

    try:
        if kind == "review":
            from palace_solver.review.web import review_json
            conn.send(("done", review_json(payload, options, progress)))
            return
        if kind == "hint":
            from palace_solver.live.session import Session
            session = Session.from_json(payload)
            conn.send(("done", session.hint(options["time_budget"], seed=options["seed"])))
            return
        pos = Position.from_json(payload)
        if options.get("history") is not None:
            options = dict(options, history=[Position.from_json(h) for h in options["history"]])
        a = analyze(pos, progress=progress, jobs=1, **options)
        conn.send(("done", a.to_json()))
    except ValueError as e:   # InvalidPositionError, NotExactError, bad options
        conn.send(("invalid", str(e).splitlines()[0] if str(e) else type(e).__name__))
    except MemoryError as e:
        conn.send(("error", f"out of memory: {e} (give a time budget)"))
    except BaseException as e:  # noqa: BLE001 - reported to the parent as one line
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        conn.send(("error", msg))
    finally:
        conn.close()


def _watch(server_pid: int, limit: float) -> None:
    """A thread that ends this process after ``limit`` seconds, or as soon as the server
    (``server_pid``) is gone: no analysis outlives a server that was killed. (The
    forkserver cannot tell: each child holds the pipe that keeps it alive.)"""
    def watch():
        end = time.monotonic() + limit
        while time.monotonic() < end:
            try:
                os.kill(server_pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:  # pragma: no cover - alive, another user's now
                pass
            time.sleep(0.5)
        os._exit(3)
    threading.Thread(target=watch, daemon=True).start()


@contextlib.contextmanager
def _clean_start():
    """While a process starts: hide the main module's name and file from multiprocessing,
    so that the child does not run it again, and set ``PYTHONSAFEPATH`` for the forkserver
    (started with ``python -c``, it would otherwise put the current directory first on its
    path and import a source tree found there instead of the installed package; Python
    3.11's forkserver ignores the parent's path). Used around synchronous calls on the
    event loop's thread only (module doc)."""
    main = sys.modules.get("__main__")
    saved = {k: getattr(main, k) for k in ("__spec__", "__file__") if hasattr(main, k)}
    env = os.environ.get("PYTHONSAFEPATH")
    try:
        if main is not None:
            main.__spec__ = None
            if "__file__" in saved:
                del main.__file__
        os.environ["PYTHONSAFEPATH"] = "1"
        yield
    finally:
        for k, v in saved.items():
            setattr(main, k, v)
        if env is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = env


@dataclass
class Job:
    """One analysis in flight (for the status endpoint)."""

    started: float
    process: object | None = None


class Runner:
    """Runs analyses in child processes, at most ``parallel`` at once (the others wait
    their turn, at most ``max_waiting`` of them: past that a request is refused with
    :class:`AnalysisBusy` at once), each killed after ``max_seconds``."""

    def __init__(self, parallel: int | None = None, max_seconds: float = 300.0,
                 max_waiting: int | None = None):
        self.parallel = parallel or max(1, os.cpu_count() or 1)
        self.max_seconds = max_seconds
        #: waiting analyses at most (default: 8 a slot, at least 32)
        self.max_waiting = (max_waiting if max_waiting is not None
                            else max(32, 8 * self.parallel))
        self._ctx = None
        self._queue: collections.deque = collections.deque()
        self._granted = 0     # turns handed to waiters that have not started yet
        self.running = 0
        self.waiting = 0
        self.finished = 0
        self.cancelled = 0
        self.refused = 0      # turned away: the queue was full

    def _context(self):
        if self._ctx is None:
            if "forkserver" in mp.get_all_start_methods():
                ctx = mp.get_context("forkserver")
                # What a child needs, imported once: the analyzer, the compiled core
                # (else imported at the first solve), this module (the child's target) and
                # the live session model (hints).
                ctx.set_forkserver_preload(["palace_solver.analysis", "palace_solver._engine",
                                            __name__, "palace_solver.live.session"])
            else:  # pragma: no cover - not Linux
                ctx = mp.get_context("spawn")
            self._ctx = ctx
            self.warm_up()
        return self._ctx

    def warm_up(self) -> None:
        """Start the forkserver now (it imports the analyzer once)."""
        ctx = self._context()
        if ctx.get_start_method() == "forkserver":
            from multiprocessing import forkserver
            with _clean_start():
                forkserver.ensure_running()

    def status(self) -> dict:
        return {"running": self.running, "waiting": self.waiting, "parallel": self.parallel,
                "finished": self.finished, "cancelled": self.cancelled,
                "max_seconds": self.max_seconds, "max_waiting": self.max_waiting,
                "refused": self.refused}

    def full(self) -> bool:
        """Whether a new analysis would find the queue of waiting ones full."""
        busy = self.running + self._granted >= self.parallel or bool(self._queue)
        return busy and self.waiting >= self.max_waiting

    async def run(self, pos_json: dict, options: dict, progress=None, gone=None) -> dict:
        """The analysis JSON of ``pos_json`` (a valid position's JSON).

        ``progress(done, total, seconds)`` is awaited on progress; ``gone()`` is awaited
        every few tenths of a second and, when true, cancels the analysis.

        :raises AnalysisFailed: (or a subclass) with a one-line message.
        """
        return await self._job("analyze", pos_json, options, progress, gone)

    async def run_hint(self, session_json: dict, time_budget: float, seed: int,
                       gone=None) -> dict:
        """The hint of a live session (its JSON), the dict
        :meth:`palace_solver.live.session.Session.hint` gives.

        :raises AnalysisFailed: (or a subclass) with a one-line message.
        """
        return await self._job("hint", session_json,
                               {"time_budget": time_budget, "seed": seed}, None, gone)

    async def run_review(self, record_json: dict, options: dict, progress=None,
                         gone=None) -> dict:
        """The review of a game record (its JSON form): ``{"review", "svg"}``
        (:func:`palace_solver.review.web.review_json`).

        :raises AnalysisFailed: (or a subclass) with a one-line message.
        """
        return await self._job("review", record_json, options, progress, gone)

    async def _job(self, kind, payload, options, progress, gone) -> dict:
        try:
            await self._acquire(gone)
            self.running += 1
            try:
                return await self._run(kind, payload, options, progress, gone)
            finally:
                self.running -= 1
                self._release()
        except asyncio.CancelledError:
            self.cancelled += 1      # the server dropped the request (its client left)
            raise

    async def _acquire(self, gone) -> None:
        """A turn to run: at once when fewer than ``parallel`` run, else first come, first
        served; a client that goes away while waiting leaves the queue."""
        if self.running + self._granted < self.parallel and not self._queue:
            return       # the caller counts itself as running before any await
        if self.waiting >= self.max_waiting:
            self.refused += 1
            raise AnalysisBusy(f"the server is busy: {self.waiting} analyses waiting (at "
                               f"most {self.max_waiting}); try again shortly")
        fut = asyncio.get_running_loop().create_future()
        self._queue.append(fut)
        self.waiting += 1
        try:
            while not fut.done():
                await asyncio.wait({fut}, timeout=0.25)
                if not fut.done() and gone is not None and await gone():
                    self.cancelled += 1
                    raise AnalysisCancelled("the client went away")
        except BaseException:
            if fut in self._queue:
                self._queue.remove(fut)
            elif fut.done() and not fut.cancelled():
                self._granted -= 1   # granted just as we left: pass the turn on
                self._release()
            fut.cancel()
            raise
        finally:
            self.waiting -= 1
        self._granted -= 1

    def _release(self) -> None:
        while self._queue:
            fut = self._queue.popleft()
            if not fut.done():
                self._granted += 1
                fut.set_result(True)
                return

    async def _run(self, kind, payload, options, progress, gone) -> dict:
        ctx = self._context()
        parent, child = ctx.Pipe(duplex=False)
        # A hint starts a child of its own, which a daemonic process may not; every job is
        # killed in the ``finally`` below anyway.
        proc = ctx.Process(target=_child,
                           args=(child, kind, payload, options, self.max_seconds + 5.0,
                                 os.getpid()),
                           daemon=kind != "hint")
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        t0 = time.monotonic()
        next_check = t0
        watching = False
        try:
            with _clean_start():
                proc.start()
            child.close()
            # Woken as soon as the child writes; every quarter second anyway, to check the
            # client, the limit, and to tick the progress clock.
            loop.add_reader(parent.fileno(), readable.set)
            watching = True
            while True:
                readable.clear()
                if parent.poll():
                    try:
                        msg = parent.recv()
                    except EOFError:
                        proc.join(2.0)
                        raise AnalysisFailed(f"the analysis process died (exit code "
                                             f"{proc.exitcode})") from None
                    if msg[0] == "progress":
                        if progress is not None:
                            await progress(msg[1], msg[2], time.monotonic() - t0)
                        continue
                    if msg[0] == "done":
                        self.finished += 1
                        return msg[1]
                    if msg[0] == "invalid":
                        raise AnalysisInvalid(msg[1])
                    raise AnalysisFailed(msg[1])
                now = time.monotonic()
                if now - t0 > self.max_seconds:
                    raise AnalysisTimeout(f"no answer within the server's limit of "
                                          f"{self.max_seconds:g} s (give a smaller time "
                                          f"budget)")
                if now >= next_check:
                    next_check = now + 0.25
                    if gone is not None and await gone():
                        self.cancelled += 1
                        raise AnalysisCancelled("the client went away")
                    if progress is not None:
                        await progress(None, None, now - t0)
                try:
                    await asyncio.wait_for(readable.wait(), max(0.01, next_check - now))
                except TimeoutError:
                    pass
        finally:
            # No await here: under cancellation every await would be cancelled again.
            if watching:
                loop.remove_reader(parent.fileno())
            if proc.is_alive():
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                proc.kill()
            proc.join(2.0)
            parent.close()

"""What the endpoints share: the error answer, reading a JSON body, the options of an
analysis read as ``palace analyze`` reads them, and a job's answer streamed as lines."""
from __future__ import annotations

import asyncio
import json

from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from .access import MAX_BODY
from .jobs import AnalysisFailed

__all__ = ["ANALYZE_KEYS", "METHODS", "ApiError", "analyze_options", "error_response",
           "job_stream", "read_json"]

#: ``method`` values of ``POST /api/analyze`` (those of ``palace analyze --method``).
METHODS = ("auto", "exact", "sampled", "ismcts")
ANALYZE_KEYS = ("position", "time", "samples", "seed", "method", "depth", "history")


class ApiError(Exception):
    """An answer other than 200: ``status`` and a one-line message (plus extra keys)."""

    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def error_response(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message.splitlines()[0] if message else "error", **extra},
                        status_code=status)


async def read_json(request: Request) -> dict:
    """The request body as a JSON object.

    :raises ApiError: 400 for a body that is not a JSON object, 413 past the body limit
        (``app.state.max_body``, :data:`palace_solver.web.access.MAX_BODY`).
    """
    limit = getattr(request.app.state, "max_body", MAX_BODY)
    chunks, size = [], 0
    async for chunk in request.stream():      # counted as it comes (a chunked body too)
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"request body over the limit of {limit:,} bytes")
        chunks.append(chunk)
    body = b"".join(chunks)
    try:
        obj = json.loads(body or b"null")
    except (ValueError, RecursionError) as e:
        raise ApiError(400, f"bad JSON: {e}") from None
    if not isinstance(obj, dict):
        raise ApiError(400, "expected a JSON object")
    return obj


def analyze_options(obj: dict) -> dict:
    """The keyword arguments of :func:`palace_solver.analysis.analyze` from a request, as
    ``palace analyze`` reads its options (``position`` and ``history`` are read by the
    endpoint).

    :raises ApiError: 400 for an unknown key or a bad value.
    """
    for k in obj:
        if k not in ANALYZE_KEYS:
            raise ApiError(400, f"unknown key {k!r} (known: {', '.join(ANALYZE_KEYS)})")
    out: dict = {}
    t = obj.get("time")
    if t is not None:
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not t >= 0.01:
            raise ApiError(400, f'"time" must be a number of seconds, at least 0.01, not {t!r}')
        out["time_budget"] = float(t)
    for key, low in (("samples", 1), ("depth", 1), ("seed", None)):
        v = obj.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or (low is not None and v < low):
            need = "an integer" if low is None else f"an integer, at least {low}"
            raise ApiError(400, f'"{key}" must be {need}, not {v!r}')
        out[key] = v
    out.setdefault("seed", 0)
    m = obj.get("method", "auto")
    if m not in METHODS:
        raise ApiError(400, f'"method" must be one of {", ".join(METHODS)}, not {m!r}')
    out["method"] = m
    return out




def job_stream(job, first: dict | None = None, ticks: bool = True) -> StreamingResponse:
    """A job of the runner as lines of JSON (``application/x-ndjson``): ``first`` if given,
    ``{"progress": done, "total": n, "seconds": s}`` as it goes, then the job's result or
    ``{"error": ...}``.

    ``job(progress)`` is awaited for the result; ``progress(done, total, seconds)`` is the
    runner's callback (``done`` None: a tick of the clock only, passed on when ``ticks``).
    Closing the connection cancels the job (the runner kills its child process).
    """
    async def lines():
        queue: asyncio.Queue = asyncio.Queue()

        async def progress(done, total, seconds):
            if done is not None or ticks:
                await queue.put({"progress": done, "total": total,
                                 "seconds": round(seconds, 2)})

        async def work():
            try:
                res = await job(progress)
            except AnalysisFailed as e:
                res = {"error": str(e)}
            await queue.put(res)

        task = asyncio.create_task(work())
        try:
            if first is not None:
                yield json.dumps(first) + "\n"
            while True:
                msg = await queue.get()
                yield json.dumps(msg) + "\n"
                if "progress" not in msg:
                    break
        finally:
            if not task.done():
                task.cancel()

    return StreamingResponse(lines(), media_type="application/x-ndjson",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

"""The Review tab's endpoints (docs/review.md).

- ``POST /api/review/record`` ``{"record": TEXT or JSON} | {"session": ID}, "seats"``: the
  record read and replayed: its canonical text and JSON, the seats reviewed, and per
  decision the position as the mover saw it (``table`` for the board). 400 with the line at
  fault for a record that cannot happen.
- ``POST /api/review/stream`` (the same keys, plus ``nodes``, ``seed``): the review as lines
  of JSON, ``{"progress": done, "total": n}`` per decision, then ``{"review": report, "svg":
  graph}`` or ``{"error": ...}``. Closing the connection cancels.
- ``GET /api/live/{id}/record``: a live session as a record (only what its seat saw):
  ``{"text", "record"}``; ``GET /api/live/{id}/record.txt``: its text form as a download,
  the web companion's Export.

Errors are ``{"error": "<one line>"}`` with a 4xx status, as every endpoint of the server.
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..game.record import RecordError
from ..live.events import LiveError
from ..live.export import session_record
from ..review.run import ReviewError
from ..review.web import frames, read
from .common import ApiError, job_stream, read_json

__all__ = ["ReviewApi"]

KEYS = ("record", "session", "seats", "nodes", "seed")
#: The largest node budget a request may ask for a decision (the default budget is less).
MAX_NODES = 10_000_000


class ReviewApi:
    """The review endpoints; ``live`` is the server's :class:`~palace_solver.web.live_api.
    LiveApi` (its directory of sessions)."""

    def __init__(self, live):
        self.live = live

    def routes(self) -> list[Route]:
        return [Route("/api/review/record", self.record, methods=["POST"]),
                Route("/api/review/stream", self.stream, methods=["POST"]),
                Route("/api/live/{sid}/record", self.session_record, methods=["GET"]),
                Route("/api/live/{sid}/record.txt", self.session_record_text,
                      methods=["GET"])]

    async def _record(self, obj: dict):
        for k in obj:
            if k not in KEYS:
                raise ApiError(400, f"unknown key {k!r} (known: {', '.join(KEYS)})")
        if ("record" in obj) == ("session" in obj):
            raise ApiError(400, 'give "record" (its text or JSON) or "session" (an id)')
        seats = obj.get("seats")
        if seats is not None and (not isinstance(seats, list)
                                  or not all(isinstance(x, str) for x in seats)):
            raise ApiError(400, '"seats" must be a list of names')
        try:
            if "session" in obj:
                sid = obj["session"]
                if not isinstance(sid, str):
                    raise ApiError(400, '"session" must be a session id')
                async with self.live.lock(sid):
                    rec = session_record(self.live.load(sid))
            else:
                rec = read(obj["record"])
        except (RecordError, LiveError) as e:
            raise ApiError(400, str(e)) from None
        return rec, seats

    async def record(self, request: Request) -> Response:
        obj = await read_json(request)
        rec, seats = await self._record(obj)
        try:
            return JSONResponse(frames(rec, seats))
        except (RecordError, ReviewError) as e:
            raise ApiError(400, str(e)) from None

    async def stream(self, request: Request) -> Response:
        obj = await read_json(request)
        rec, seats = await self._record(obj)
        options: dict = {"seats": seats, "seed": 0}
        for key, low, high in (("nodes", 1, MAX_NODES), ("seed", None, None)):
            v = obj.get(key)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int) or (low is not None and v < low) \
                    or (high is not None and v > high):
                raise ApiError(400, f'"{key}" must be an integer'
                               + (f" from {low} to {high:,}" if low is not None else "")
                               + f", not {v!r}")
            options[key] = v
        try:
            frames(rec, seats)          # refuse a bad record before starting the job
        except (RecordError, ReviewError) as e:
            raise ApiError(400, str(e)) from None
        runner = request.app.state.runner
        record_json = rec.to_json()

        def job(progress):
            return runner.run_review(record_json, options, progress=progress,
                                     gone=request.is_disconnected)

        return job_stream(job, ticks=False)

    async def session_record_text(self, request: Request) -> Response:
        rec = await self._session(request.path_params["sid"])
        name = request.path_params["sid"].rpartition(".")[0] + ".txt"
        return Response(rec.text(), media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def _session(self, sid: str):
        async with self.live.lock(sid):
            session = self.live.load(sid)
            try:
                return session_record(session)
            except LiveError as e:
                raise ApiError(400, str(e)) from None

    async def session_record(self, request: Request) -> Response:
        rec = await self._session(request.path_params["sid"])
        return JSONResponse({"text": rec.text(), "record": rec.to_json()})

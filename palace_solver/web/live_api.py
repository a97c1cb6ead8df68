"""The live companion's endpoints: ``palace live`` sessions followed from a web page.

One game, one file. The session files are those of ``palace live`` (``--file`` /
``--resume``): the page and the terminal read and write the same format, so a game started
in either can be resumed in the other. The file is the only record: every request loads
it (the setup and the accepted events, replayed), applies one change through the
session model of :mod:`palace_solver.live.session`, and saves it (written to a temporary
file and renamed over the old one). Requests on one session wait for each other; requests
on different sessions do not.

Endpoints (ids are file names inside the sessions directory, ``*.json``):

- ``GET /api/live``: the sessions of the directory.
- ``POST /api/live``: start a session: ``{"names", "me", "rules", "hand", "up", "dealer",
  "first", "file"}`` (the words of ``palace live --names/--me/--rules/--hand/--up/...``),
  ``{"names", "deal", ...}`` to start at the deal (your cards as dealt; the face-up
  cards are then entered as events, ``me up 10 A K``), or ``{"position": ..., "me": ...}``
  to start mid-game.
- ``GET /api/live/{id}``: the session as the page draws it (:func:`state`).
- ``POST /api/live/{id}/event`` ``{"event": "bob 7x2"}``: one event of the event language
  of ``palace live``. Refused: status 409, ``{"error": <the terminal's message>}``, and
  nothing changes.
- ``POST /api/live/{id}/undo`` ``{"count": 1}``.
- ``POST /api/live/{id}/hint`` ``{"time": 2, "seed": 0}``: the hint ``palace live`` gives
  (its data and its text): moves with the loss figures, ties, the expected continuation,
  the others' odds; at the deal, the layouts of the user's face-up cards.
"""
from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..game.cards import RANKS, rank_name, ranks_of
from ..game.position import InvalidPositionError, parse_position
from ..game.view import UNKNOWN
from ..live.events import LiveError
from ..live.hints import format_hint
from ..live.picture import picture
from ..live.session import SESSION_FORMAT, Session, Setup
from ..live.start import build_setup, seat_of
from .common import ApiError, analyze_options, read_json
from .jobs import AnalysisBusy, AnalysisCancelled, AnalysisFailed, AnalysisInvalid

__all__ = ["LiveApi", "state"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.json$")


def state(session: Session, sid: str) -> dict:
    """What the page shows: the table (as the board draws it), whose turn and what the
    session expects next, the unseen cards, the events and the session's summary."""
    s = session.state
    players = [{"name": session.names[p], "viewer": p == session.me,
                "hand": [rank_name(r) for r in ranks_of(s.hands[p])],
                "unknown": s.hands[p][UNKNOWN],
                "face_up": [rank_name(r) for r in ranks_of(s.face_up[p])],
                "face_down": s.face_down[p], "out": s.out[p],
                "laid_out": session.laid_out(p),
                "source": s.source(p) if not s.out[p] else None}
               for p in range(s.n)]
    expect: dict = {"kind": "play"}
    if s.is_terminal():
        expect = {"kind": "over"}
    elif session.in_layout():
        waiting = session.waiting_layouts()
        expect = {"kind": "layout", "waiting": [session.names[p] for p in waiting],
                  "cards": s.rules.zone_size}
    elif session.first_open:
        expect = {"kind": "first"}
    elif s.is_chance():
        kind, q, k = s.pending
        expect = {"kind": kind, "player": session.names[q] if kind == "draw" else None,
                  "cards": k}
    else:
        p = s.to_move
        expect = {"kind": "flip" if s.source(p) == "face_down" else "play",
                  "player": session.names[p], "source": s.source(p)}
    unseen = session.unseen()
    table = {"rules": s.rules.to_json(), "players": players,
             "pile": [rank_name(r) for r in s.pile],
             "burned": [rank_name(r) for r in ranks_of(s.burned)],
             "draw_pile": s.draw_pile,
             "to_move": s.to_move if (s.to_move >= 0 and not session.first_open
                                      and not session.in_layout()) else None,
             "direction": s.direction}
    return {"id": sid, "file": session.path, "names": list(session.names),
            "me": session.names[session.me], "rules": str(s.rules), "table": table,
            "expect": expect, "status": _status(session),
            "unseen": {rank_name(r): unseen[r] for r in RANKS if unseen[r]},
            "unseen_total": sum(unseen[r] for r in RANKS),
            "events": list(session.events), "summary": session.summary(),
            "picture": picture(session)}


def _status(session: Session) -> str:
    s = session.state
    if not session.at_decision():
        return session.waiting_for()
    return "your turn" if s.to_move == session.me else f"{session.names[s.to_move]}'s turn"


class LiveApi:
    """The live endpoints over one directory of session files."""

    def __init__(self, directory: str):
        self.directory = Path(directory).resolve()
        self._locks: dict[str, asyncio.Lock] = {}

    def routes(self) -> list[Route]:
        return [
            Route("/api/live", self.list_or_create, methods=["GET", "POST"]),
            Route("/api/live/{sid}", self.get, methods=["GET"]),
            Route("/api/live/{sid}/event", self.event, methods=["POST"]),
            Route("/api/live/{sid}/undo", self.undo, methods=["POST"]),
            Route("/api/live/{sid}/hint", self.hint, methods=["POST"]),
        ]

    # -- files ----------------------------------------------------------------------------
    def path(self, sid: str) -> Path:
        """The file of session ``sid``: a plain file name (no directory part, no leading
        dot) inside the sessions directory, and no link leading out of it.

        :raises ApiError: 400 for any other id."""
        if not isinstance(sid, str) or not _ID.match(sid) or ".." in sid:
            raise ApiError(400, f"bad session id {str(sid)[:80]!r} (a file name ending in "
                                f".json)")
        p = self.directory / sid
        if p.is_symlink() or p.resolve().parent != self.directory:
            raise ApiError(400, f"bad session id {sid!r} (not a file of the sessions "
                                f"directory)")
        return p

    def lock(self, sid: str) -> asyncio.Lock:
        self.path(sid)           # only ids of the directory get a lock
        return self._locks.setdefault(sid, asyncio.Lock())

    def load(self, sid: str) -> Session:
        path = self.path(sid)
        if not path.exists():
            raise ApiError(404, f"no session {sid!r} in {self.directory}")
        try:
            return Session.load(str(path))
        except LiveError as e:
            raise ApiError(400, str(e)) from None

    def new_id(self, wanted: str | None) -> str:
        if wanted:
            sid = wanted if wanted.endswith(".json") else wanted + ".json"
            self.path(sid)
            if (self.directory / sid).exists():
                raise ApiError(409, f"a session {sid!r} exists already")
            return sid
        import time
        base = time.strftime("palace-live-%Y%m%d-%H%M%S")
        sid, k = base + ".json", 1
        while (self.directory / sid).exists():
            k += 1
            sid = f"{base}-{k}.json"
        return sid

    # -- endpoints ------------------------------------------------------------------------
    async def list_or_create(self, request: Request) -> Response:
        if request.method == "POST":
            return await self.create(request)
        out = []
        files = []
        for f in self.directory.glob("*.json"):
            try:
                if not f.is_symlink() and f.is_file():   # a link may lead outside
                    files.append((-f.stat().st_mtime, f))
            except OSError:
                continue
        for mtime, f in sorted(files):
            try:
                obj = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                continue
            if not isinstance(obj, dict) or obj.get("format") != SESSION_FORMAT:
                continue
            setup = obj.get("setup") or {}
            out.append({"id": f.name, "names": setup.get("names"),
                        "events": len(obj.get("events") or []),
                        "modified": -mtime})
        return JSONResponse({"directory": str(self.directory), "sessions": out})

    async def create(self, request: Request) -> Response:
        obj = await read_json(request)
        known = ("names", "me", "rules", "hand", "up", "deal", "deal_up", "dealer", "first",
                 "position", "file")
        for k in obj:
            if k not in known:
                raise ApiError(400, f"unknown key {k!r} (known: {', '.join(known)})")
        for k in known:
            kinds = (str, dict) if k in ("up", "position") else (str,)
            if k in obj and obj[k] is not None and not isinstance(obj[k], kinds):
                raise ApiError(400, f'"{k}" must be a string' + (
                    " or an object" if len(kinds) > 1 else ""))
        up = obj.get("up")
        if isinstance(up, dict) and not all(isinstance(k, str) and isinstance(v, str)
                                            for k, v in up.items()):
            raise ApiError(400, '"up" must be a string or an object of names to cards')
        try:
            if obj.get("position"):
                value = obj["position"]
                pos = parse_position(json.dumps(value) if isinstance(value, dict) else value)
                names = [p.name or f"p{i}" for i, p in enumerate(pos.players)]
                setup = Setup.from_position(pos, seat_of(obj.get("me"), names, "me"))
            else:
                up = obj.get("up") or ""
                if isinstance(up, dict):
                    up = "; ".join(f"{k}: {v}" for k, v in up.items())
                setup = build_setup(None, obj.get("names") or None, obj.get("me") or None,
                                    obj.get("rules") or None, obj.get("hand") or None,
                                    [up] if up else [], obj.get("dealer") or None,
                                    obj.get("first") or None, ask=None,
                                    deal=obj.get("deal") or None,
                                    deal_up=obj.get("deal_up") or None)
        except (LiveError, InvalidPositionError) as e:
            raise ApiError(400, str(e)) from None
        sid = self.new_id(obj.get("file"))
        async with self.lock(sid):
            session = Session(setup, path=str(self.directory / sid))
            try:
                session.save()
            except OSError as e:
                raise ApiError(500, f"cannot save the session: {e}") from None
        return JSONResponse(state(session, sid), status_code=201)

    async def get(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        async with self.lock(sid):
            return JSONResponse(state(self.load(sid), sid))

    async def event(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        obj = await read_json(request)
        line = obj.get("event")
        if not isinstance(line, str) or not line.strip():
            raise ApiError(400, '"event" must be an event line, e.g. "bob 7x2"')
        async with self.lock(sid):
            session = self.load(sid)
            try:
                reply = session.apply(line)
            except LiveError as e:
                return JSONResponse({"error": str(e), "state": state(session, sid)},
                                    status_code=409)
            except OSError as e:
                raise ApiError(500, f"cannot save the session: {e}") from None
            return JSONResponse({"ok": True, "message": reply.message, "event": reply.event,
                                 "state": state(session, sid)})

    async def undo(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        obj = await read_json(request)
        k = obj.get("count", 1)
        if isinstance(k, bool) or not isinstance(k, int):
            raise ApiError(400, '"count" must be a number of events')
        async with self.lock(sid):
            session = self.load(sid)
            try:
                reply = session.undo(k)
            except LiveError as e:
                return JSONResponse({"error": str(e), "state": state(session, sid)},
                                    status_code=409)
            return JSONResponse({"ok": True, "message": reply.message,
                                 "state": state(session, sid)})

    async def hint(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        obj = await read_json(request)
        for k in obj:
            if k not in ("time", "seed"):
                raise ApiError(400, f"unknown key {k!r} (known: time, seed)")
        options = analyze_options(obj)
        async with self.lock(sid):
            session = self.load(sid)
            if not (session.at_decision() or session.in_layout()):
                return JSONResponse({"error": f"no hint: {session.waiting_for()}"},
                                    status_code=409)
            t = options.get("time_budget") or float(session.settings.get("time", 2.0))
            record = session.to_json()
        runner = request.app.state.runner
        try:
            h = await runner.run_hint(record, t, options["seed"],
                                      gone=request.is_disconnected)
        except AnalysisCancelled as e:
            return JSONResponse({"error": str(e)}, status_code=499)
        except AnalysisInvalid as e:
            return JSONResponse({"error": f"no hint: {e}"}, status_code=409)
        except AnalysisBusy as e:
            return JSONResponse({"error": str(e)}, status_code=503)
        except AnalysisFailed as e:
            return JSONResponse({"error": f"no hint: {e}"}, status_code=503)
        return JSONResponse({"hint": h, "text": format_hint(h),
                             "events": len(record["events"])})

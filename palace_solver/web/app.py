"""The web application: the page, its static files and the JSON API (Starlette).

Endpoints (docs/web.md lists them with examples):

- ``GET /`` the page; ``GET /static/...`` its files (shipped in the package, no CDN).
- ``GET /api/info``: version, variants, whether the server listens beyond this machine.
- ``POST /api/position``: read and validate a position (JSON or text form): its canonical
  JSON and text, or 400 with the error and where it is.
- ``POST /api/analyze``: ``{"position", "time", "samples", "seed", "method", "depth",
  "history"}`` to the analysis JSON of ``palace analyze --json`` with the same options
  (``history``: the game's earlier positions, as ``--history`` reads them); 400
  ``{"error": ...}`` for invalid input.
- ``POST /api/analyze/stream``: the same, as lines of JSON: progress, then the result.
- ``POST /api/board``: a position and a line of steps to the current node (legal moves,
  chance outcomes, or the result).
- ``GET /api/status``: analyses running and waiting.
- ``/api/live/...``: the live companion (:mod:`palace_solver.web.live_api`).
- ``/api/review/...``: the Review tab (:mod:`palace_solver.web.review_api`).

Errors are JSON ``{"error": "<one line>"}`` with status 400 (bad input), 401 (no access
token where one is needed: :mod:`palace_solver.web.access`), 404, 409 (an event the rules
refuse), 413 (a body over the limit), 503 (the queue of waiting analyses is full, or no
answer within the server's limit) or 500 (a fault of the analyzer itself).
"""
from __future__ import annotations

import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..game.cards import RANKS, parse_rank, rank_name
from ..game.position import InvalidPositionError, Position, parse_position, to_text
from ..game.rules import VARIANTS, Rules, RulesError
from .board import BoardError, replay
from .common import METHODS, ApiError, analyze_options, error_response, job_stream, read_json
from .access import MAX_BODY, Guard
from .jobs import (
    AnalysisBusy,
    AnalysisCancelled,
    AnalysisFailed,
    AnalysisInvalid,
    AnalysisTimeout,
    Runner,
)
from .live_api import LiveApi
from .review_api import ReviewApi

STATIC = Path(__file__).parent / "static"


# -- positions -------------------------------------------------------------------------------

def where(message: str) -> str | None:
    """Which part of a position an error message is about (for the page to mark it):
    ``player N``, ``pile``, ``burned``, ``draw`` (the unseen count), ``to_move``,
    ``perspective``, ``rules``, ``cards`` (too many of a rank) or ``players``."""
    m = re.search(r"\bplayer (\d+)", message)
    if m:
        return f"player {m.group(1)}"
    for key, pattern in (("cards", r"cards? of rank"), ("draw", r"unseen card|draw pile"),
                         ("pile", r"\bpile\b"), ("burned", r"\bburned\b"),
                         ("to_move", r"\bto_move\b"), ("perspective", r"\bperspective\b"),
                         ("last_player", r"\blast_player\b"), ("direction", r"\bdirection\b"),
                         ("rules", r"variant|rules|jokers|decks?\b"),
                         ("players", r"players?\b")):
        if re.search(pattern, message):
            return key
    return None


def load(value) -> Position:
    """A position from the ``position`` value of a request: a JSON object, or a string
    (JSON or the text form).

    :raises ApiError: 400 naming the problem.
    """
    if value is None:
        raise ApiError(400, 'missing "position" (POSITION.md JSON or the text form)')
    try:
        if isinstance(value, dict):
            return Position.from_json(value)
        if isinstance(value, str):
            return parse_position(value)
    except InvalidPositionError as e:
        raise ApiError(400, str(e), where=where(e.problem)) from None
    raise ApiError(400, '"position" must be a JSON object or a string')


def counts(value) -> dict:
    """Per rank: cards in the deck and cards not yet placed, for a position that may be
    invalid (the page's card picker); empty when the rules or players cannot be read."""
    if not isinstance(value, dict):
        return {}
    try:
        rules = Rules.from_json(value.get("rules", "standard"))
        n = len(value.get("players") or [])
        deck = rules.deck_counts(max(n, 2))
    except (RulesError, TypeError, AttributeError):
        return {}
    used = [0] * len(deck)
    try:
        cards = list(value.get("pile") or []) + list(value.get("burned") or [])
        for p in value.get("players") or []:
            h = p.get("hand", [])
            cards += list(h.get("known", []) if isinstance(h, dict) else h)
            cards += list(p.get("face_up") or [])
        for c in cards:
            used[parse_rank(c)] += 1
    except (ValueError, TypeError, AttributeError):
        return {}
    return {"deck": {rank_name(r): deck[r] for r in RANKS if deck[r]},
            "left": {rank_name(r): deck[r] - used[r] for r in RANKS if deck[r]},
            "zone_size": rules.zone_size}


async def api_position(request: Request) -> Response:
    obj = await read_json(request)
    value = obj.get("position")
    extra = counts(value)
    try:
        pos = load(value)
    except ApiError as e:
        return error_response(e.status, e.message, **e.extra, **extra)
    return JSONResponse({"position": pos.to_json(), "text": to_text(pos), **extra,
                         **counts(pos.to_json())})


# -- analysis --------------------------------------------------------------------------------

#: The most earlier positions a request may give (a game has a few hundred decisions).
MAX_HISTORY = 4096


def load_history(value) -> list[dict]:
    """The ``history`` value of a request: a list of positions, each as ``position`` is
    read; returned as their JSON (the analysis runs in another process).

    :raises ApiError: 400 naming the entry at fault.
    """
    if not isinstance(value, list):
        raise ApiError(400, '"history" must be a list of positions (JSON objects or strings)')
    if len(value) > MAX_HISTORY:
        raise ApiError(400, f'"history" holds {len(value)} positions, at most {MAX_HISTORY}')
    out = []
    for i, v in enumerate(value):
        try:
            out.append(load(v).to_json())
        except ApiError as e:
            raise ApiError(400, f"history[{i}]: {e.message}") from None
    return out


def _parse_analyze(obj: dict, runner: Runner) -> tuple[dict, dict]:
    options = analyze_options(obj)
    if obj.get("history") is not None:
        options["history"] = load_history(obj["history"])
    pos = load(obj.get("position"))
    t = options.get("time_budget")
    if t is not None and t > runner.max_seconds:
        raise ApiError(400, f'"time" {t:g} is over the server\'s limit of '
                            f'{runner.max_seconds:g} s')
    return pos.to_json(), options


async def api_analyze(request: Request) -> Response:
    runner: Runner = request.app.state.runner
    obj = await read_json(request)
    pos_json, options = _parse_analyze(obj, runner)
    try:
        result = await runner.run(pos_json, options, gone=request.is_disconnected)
    except AnalysisCancelled as e:
        return error_response(499, str(e))
    except AnalysisInvalid as e:
        return error_response(400, str(e))
    except (AnalysisTimeout, AnalysisBusy) as e:
        return error_response(503, str(e))
    except AnalysisFailed as e:
        return error_response(500, str(e))
    return JSONResponse(result)


async def api_analyze_stream(request: Request) -> Response:
    """Lines of JSON: ``{"progress": done, "total": n, "seconds": s}`` as the search goes,
    then ``{"analysis": ...}`` or ``{"error": ...}``. Closing the connection cancels."""
    runner: Runner = request.app.state.runner
    obj = await read_json(request)
    pos_json, options = _parse_analyze(obj, runner)
    if runner.full():
        raise ApiError(503, f"the server is busy: {runner.waiting} analyses waiting (at most "
                            f"{runner.max_waiting}); try again shortly")

    async def job(progress):
        # The runner also watches the connection itself: when the client leaves while the
        # stream waits on a send, the server cancels the send, not the stream's generator,
        # which is then closed only when it is collected.
        return {"analysis": await runner.run(pos_json, options, progress=progress,
                                             gone=request.is_disconnected)}

    return job_stream(job, first={"queued": runner.waiting > 0, "status": runner.status()})


async def api_status(request: Request) -> Response:
    return JSONResponse(request.app.state.runner.status())


# -- the board -------------------------------------------------------------------------------

async def api_board(request: Request) -> Response:
    obj = await read_json(request)
    pos = load(obj.get("position"))
    steps = obj.get("line", [])
    if isinstance(steps, str):
        steps = [s for s in steps.split(",") if s.strip()]
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise ApiError(400, '"line" must be a list of steps (moves and cards)')
    try:
        line = replay(pos, [s.strip() for s in steps])
    except BoardError as e:
        raise ApiError(400, str(e)) from None
    return JSONResponse({"start": {"position": pos.to_json(), "text": to_text(pos)},
                         "names": line.names, "viewer": line.names[line.viewer],
                         "steps": line.steps, "node": line.node(), "table": line.table()})


# -- the page --------------------------------------------------------------------------------

async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def api_info(request: Request) -> Response:
    st = request.app.state
    return JSONResponse({"version": _version(), "host": st.host, "exposed": st.exposed,
                         "token_required": st.token_required,
                         "variants": list(VARIANTS), "methods": list(METHODS),
                         "max_seconds": st.runner.max_seconds,
                         "live": st.live is not None,
                         "sessions": str(st.live.directory) if st.live is not None else None})


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("palace-solver")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def is_loopback(host: str) -> bool:
    """Whether ``host`` serves this machine only."""
    import ipaddress
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def create_app(*, host: str = "127.0.0.1", sessions: str | None = None,
               runner: Runner | None = None, token: str | None = None,
               max_body: int = MAX_BODY) -> Starlette:
    """The application. ``host`` is only shown (the warning on a non-loopback address);
    ``sessions`` is the directory of live session files (default: the current one);
    ``token``: every request must carry it (:mod:`palace_solver.web.access`; ``palace
    serve`` sets one whenever it listens beyond loopback); ``max_body``: the largest
    request body in bytes."""

    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(exc.status, exc.message, **exc.extra)

    async def not_found(request: Request, exc) -> Response:
        if request.url.path.startswith("/api/") or request.url.path == "/api":
            return error_response(getattr(exc, "status_code", 404),
                                  getattr(exc, "detail", None) or "not found")
        return Response("not found", status_code=getattr(exc, "status_code", 404))

    routes = [
        Route("/", index),
        Route("/api/info", api_info),
        Route("/api/status", api_status),
        Route("/api/position", api_position, methods=["POST"]),
        Route("/api/analyze", api_analyze, methods=["POST"]),
        Route("/api/analyze/stream", api_analyze_stream, methods=["POST"]),
        Route("/api/board", api_board, methods=["POST"]),
    ]
    live = LiveApi(sessions or ".")
    routes += live.routes()
    routes += ReviewApi(live).routes()
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    app = Starlette(routes=routes, exception_handlers={ApiError: api_error, 404: not_found,
                                                       405: not_found},
                    middleware=[Middleware(Guard, token=token, max_body=max_body)])
    app.state.runner = runner or Runner()
    app.state.host = host
    app.state.exposed = not is_loopback(host)
    app.state.live = live
    app.state.max_body = max_body
    app.state.token_required = token is not None
    return app

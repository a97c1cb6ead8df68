"""Who may use the server, and how much they may send: the access token and the body limit.

Why a token. ``palace serve --host 0.0.0.0`` is how a phone at the table reaches the
companion, and then everyone on that network could read the live sessions (the user's
hidden hand), add events to them and start analyses. So when the server listens on anything
but loopback, every request must carry a secret token, generated at start (or given with
``--token``) and printed as a URL and a QR code: the phone's camera opens it. On loopback
nothing changes unless a token is given.

How a request carries it, any one of:

- ``?token=T`` in the URL (the printed URL). A page request with it gets the token as a
  session cookie and is redirected to the same URL without it, so the token does not stay
  in the address bar or the history; the page's own requests then carry the cookie (a
  session cookie: the browser keeps it until it is closed).
- the ``palace_token`` cookie;
- ``Authorization: Bearer T`` or ``X-Palace-Token: T`` (programs).

A request without a valid token gets 401 and nothing else: ``{"error": ...}`` for the API,
a short text for the page, no static file, no session name. Tokens are compared in constant
time (:func:`hmac.compare_digest`).

The body limit. A request whose ``Content-Length`` is over ``max_body`` bytes is refused here
before anything is read; a body without a length (chunked) is counted as it is read
(:func:`palace_solver.web.common.read_json`) and cut off past the limit. Both get 413 with a
one-line error.

This is a pure ASGI middleware (:class:`Guard`), so it stands in front of every route,
static files included.
"""
from __future__ import annotations

import hmac
import json
import secrets
from urllib.parse import parse_qsl, urlencode

__all__ = ["COOKIE", "MAX_BODY", "Guard", "new_token"]

#: The cookie that keeps the token for the browser session.
COOKIE = "palace_token"
#: Largest request body, in bytes (a history of 4,096 positions is about 1.5 MB).
MAX_BODY = 2 * 1024 * 1024


def new_token() -> str:
    """A fresh secret token: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def _cookies(headers: dict) -> dict:
    out = {}
    for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
        k, _, v = part.strip().partition("=")
        if k:
            out[k] = v
    return out


async def _send_error(send, status: int, message: str, api: bool, headers=()) -> None:
    if api:
        body = json.dumps({"error": message}).encode()
        ctype = b"application/json"
    else:
        body = (message + "\n").encode()
        ctype = b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype),
                            (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), *headers]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: the token check (when ``token`` is set) and the body limit."""

    def __init__(self, app, token: str | None = None, max_body: int = MAX_BODY):
        self.app = app
        self.token = token
        self.max_body = max_body

    def _valid(self, given: str | None) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        api = path.startswith("/api/") or path == "/api"
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        if self.token is not None:
            query = parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                              keep_blank_values=True)
            from_query = next((v for k, v in query if k == "token"), None)
            auth = headers.get(b"authorization", b"").decode("latin-1")
            bearer = auth[7:].strip() if auth[:7].lower() == "bearer " else None
            given = [from_query, bearer,
                     headers.get(b"x-palace-token", b"").decode("latin-1") or None,
                     _cookies(headers).get(COOKIE)]
            if not any(self._valid(g) for g in given):
                return await _send_error(
                    send, 401, "this server needs its access token: open the URL it printed "
                               "at start (with ?token=...)", api,
                    [(b"www-authenticate", b'Bearer realm="palace"')])
            if self._valid(from_query) and scope.get("method") == "GET" and not api:
                # The page: keep the token in a session cookie, drop it from the URL.
                rest = urlencode([(k, v) for k, v in query if k != "token"])
                location = (path or "/") + ("?" + rest if rest else "")
                cookie = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Lax"
                await send({"type": "http.response.start", "status": 303,
                            "headers": [(b"location", location.encode("latin-1")),
                                        (b"set-cookie", cookie.encode()),
                                        (b"cache-control", b"no-store"),
                                        (b"content-length", b"0")]})
                await send({"type": "http.response.body", "body": b""})
                return
        length = headers.get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                return await _send_error(send, 400, "bad Content-Length", api)
            if n > self.max_body:
                return await _send_error(send, 413, f"request body of {n:,} bytes is over the "
                                                    f"limit of {self.max_body:,}", api)
        await self.app(scope, receive, send)

"""Access to the server: beyond loopback every request needs the secret token (generated
at start, or --token), printed as a URL and a QR code; without it 401 and nothing else. The
page keeps it in a session cookie. Loopback is as before unless --token is given. Bodies
over the limit get 413, a full queue of waiting analyses 503."""
from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request

import pytest
from starlette.testclient import TestClient
from webutil import Server

from palace_solver.web.access import COOKIE
from palace_solver.web.app import create_app
from palace_solver.web.jobs import AnalysisBusy, Runner

ENDGAME = ("standard | me: 7 7 / A / 1 ; bob: K / 2 / 1 | pile 5 | unseen 3 9 "
           "| burned rest | to_move 0")


def get(url, headers=None, data=None):
    req = urllib.request.Request(url, data=data, headers=headers or {})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


@pytest.fixture(scope="module")
def exposed(tmp_path_factory):
    d = tmp_path_factory.mktemp("sessions")
    (d / "secret.json").write_text(json.dumps({"format": "palace-live-1", "setup": {
        "names": ["me", "bob"]}, "events": []}))
    s = Server(d, "--host", "0.0.0.0")
    # the rest of the banner: the QR code follows the URL line
    s.proc.stderr.readline()
    yield s
    s.stop()


def test_the_start_line_prints_the_url_with_the_token_and_a_qr_code(exposed):
    assert "every request needs the access token" in exposed.banner
    m = re.search(r"palace serve: (http://\S+/\?token=(\S+))  \(Ctrl-C to stop\)",
                  exposed.banner)
    assert m, exposed.banner
    assert len(m.group(2)) >= 20
    line = exposed.proc.stderr.readline()
    assert set(line.strip()) <= set("█▀▄ "), line     # the QR code's first row


def _token(server) -> str:
    return re.search(r"\?token=(\S+)", server.banner).group(1)


def _local(server) -> str:
    port = server.url.rsplit(":", 1)[1]
    return f"http://127.0.0.1:{port}"


def test_a_request_from_this_machine_without_the_token_is_refused(exposed):
    base = _local(exposed)
    for path in ("/api/info", "/api/live", "/api/live/secret.json", "/", "/static/app.js",
                 "/api/status"):
        status, headers, body = get(base + path)
        assert status == 401, (path, status)
        assert b"secret" not in body and b"bob" not in body and b"function" not in body
        if path.startswith("/api/"):
            assert json.loads(body)["error"].startswith("this server needs its access token")
    status, _, body = get(base + "/api/analyze", {"Content-Type": "application/json"},
                          json.dumps({"position": ENDGAME}).encode())
    assert status == 401
    for wrong in ("x", _token(exposed)[:-1], _token(exposed) + "x", ""):
        assert get(base + f"/api/info?token={wrong}")[0] == 401
        assert get(base + "/api/info", {"Authorization": f"Bearer {wrong}"})[0] == 401


def test_with_the_token_it_is_served(exposed):
    base, tok = _local(exposed), _token(exposed)
    status, _, body = get(base + f"/api/info?token={tok}")
    assert status == 200 and json.loads(body)["token_required"] is True
    assert get(base + "/api/live", {"Authorization": f"Bearer {tok}"})[0] == 200
    assert get(base + "/api/live", {"X-Palace-Token": tok})[0] == 200
    status, headers, _ = get(base + f"/?token={tok}")
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={tok};") and "HttpOnly" in cookie
    kept = {"Cookie": f"{COOKIE}={tok}"}
    status, _, body = get(base + "/", kept)
    assert status == 200 and b"<html" in body.lower()
    assert get(base + "/static/app.js", kept)[0] == 200
    status, _, body = get(base + "/api/live", kept)
    assert status == 200 and "secret.json" in body.decode()


def test_loopback_is_unchanged_unless_a_token_is_given(tmp_path):
    with TestClient(create_app(sessions=str(tmp_path))) as c:
        assert c.get("/api/info").status_code == 200
        assert c.get("/").status_code == 200
    with TestClient(create_app(sessions=str(tmp_path), token="s3cret")) as c:
        assert c.get("/api/info").status_code == 401
        assert c.get("/api/info", headers={"X-Palace-Token": "s3cret"}).status_code == 200


def test_a_body_over_the_limit_is_413_declared_or_streamed(tmp_path):
    with TestClient(create_app(sessions=str(tmp_path), max_body=1000)) as c:
        r = c.post("/api/position", content=b"{" + b" " * 2000 + b"}",
                   headers={"content-type": "application/json"})
        assert r.status_code == 413 and "over the limit" in r.json()["error"]

        def chunks():
            for _ in range(5):
                yield b" " * 400
        r = c.post("/api/position", content=chunks(), headers={"content-type":
                                                                  "application/json"})
        assert r.status_code == 413 and "over the limit" in r.json()["error"]
        r = c.post("/api/position", json={"position": ENDGAME})
        assert r.status_code == 200


def test_a_full_queue_is_refused_at_once():
    runner = Runner(parallel=1, max_waiting=2)

    async def go():
        gate = asyncio.Event()
        started = []

        async def slow_run(*a, **k):
            started.append(1)
            await gate.wait()
            return {}
        runner._run = slow_run
        jobs = [asyncio.create_task(runner._job("analyze", {}, {}, None, None))
                for _ in range(3)]
        await asyncio.sleep(0.1)
        assert runner.running == 1 and runner.waiting == 2 and runner.full()
        with pytest.raises(AnalysisBusy, match="the server is busy: 2 analyses waiting"):
            await runner._job("analyze", {}, {}, None, None)
        gate.set()
        await asyncio.gather(*jobs)
        assert runner.refused == 1 and not runner.full()
    asyncio.run(go())


def test_a_full_queue_is_503_over_http(tmp_path):
    class Full(Runner):
        def full(self):
            return True

        async def _acquire(self, gone):
            raise AnalysisBusy("the server is busy: 16 analyses waiting (at most 16); "
                               "try again shortly")
    with TestClient(create_app(sessions=str(tmp_path), runner=Full(parallel=1))) as c:
        for path in ("/api/analyze", "/api/analyze/stream"):
            r = c.post(path, json={"position": ENDGAME})
            assert r.status_code == 503 and r.json()["error"].startswith("the server is busy")

"""Bad input over HTTP: every JSON endpoint fuzzed with hypothesis. Every answer is a 2xx or
a 4xx with a one-line ``error``, never a 500, and a refused request changes no session file.

The bodies are drawn three ways: any JSON value; an object with the endpoint's own keys,
each holding a plausible value (valid positions, events, names) or any JSON; and raw bytes.
Session ids in the path include traversal attempts. The analyses themselves run in a stub
runner that checks what it is handed (a valid position's JSON, known options) and answers
at once: what is fuzzed is the server's reading of requests, not the search (a few real
analyses of random valid positions run at the end, at a tiny budget)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from palace_solver.game.position import Position, from_text
from palace_solver.web.app import create_app

EXACT = ("standard | me: 7 7 / A / 1 ; bob: K / 2 / 1 | pile 5 | unseen 3 9 | burned rest "
         "| to_move 0")
HIDDEN = "standard | me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 | pile 3 5 | draw 32 | to_move 0"
POSITIONS = [EXACT, HIDDEN, "me: 3 / 4 5 6 7 / 3 ; bob: ?3 / 8 9 J / 3 | draw 32 | to_move 0",
             "me: 7 7 / A / 0 ; bob: K / 2 / 0 | pile 5 | burned rest | to_move 0",
             "{}", "", "standard |", "| | |", "me: / / ; bob: / / | to_move 9"]
EVENTS = ["bob 7", "bob 7x2", "me pickup", "bob pickup 7", "draw K", "draw", "Q", "q", "k",
          "first me", "first bob", "out bob", "burn", "start 5", "bob flip 9", "me up 10 A K",
          "undo", "hint", "quit", "bob", "x" * 300, "bob 7\n me 8", "\u0000", "  "]
NAMES = ["me,bob", "me,bob,carol", "me,me", "bob", "", "a,b,c,d,e,f,g", "me, bob"]
SIDS = ["game.json", "../game.json", "..%2Fgame.json", "../../etc/passwd", "/etc/passwd",
        "..", ".", "a/../game.json", "game.json/..", "%2e%2e%2fgame.json", ".game.json",
        "game", "x" * 300 + ".json", "g\u00e9.json", "game.json%00.txt", "CON.json",
        "link.json", "nope.json"]

#: Game records (docs/record.md) for the review endpoints: an exact endgame played out, and
#: a refused one.
RECORDS = ["palace record 1\nseats: al bo\nstart: position\nposition: " + EXACT.replace(
    "me:", "al:").replace("bob:", "bo:") + "\n\nal 7\n", "palace record 1\nseats: al bo\n",
    "palace record 1\nrules: nope\nseats: al bo\n", "not a record", ""]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=5),
    max_leaves=12)


def plausible(key: str):
    """A value for ``key`` that is often right and sometimes subtly wrong."""
    specific = {
        "position": st.sampled_from(POSITIONS)
        | st.sampled_from(POSITIONS).map(lambda p: p.replace("7", "7 7"))
        | st.just(from_text(HIDDEN).to_json()) | st.just(from_text(EXACT).to_json())
        | st.just(from_text(EXACT).to_json()).map(lambda d: {**d, "to_move": 5}),
        "time": st.floats(-1, 1e9) | st.integers(-5, 10**12) | st.sampled_from([0.01, 0.05]),
        "samples": st.integers(-3, 10**9), "depth": st.integers(-3, 10**6),
        "seed": st.integers(-2**63, 2**64), "method": st.sampled_from(
            ["auto", "exact", "sampled", "ismcts", "search", "nope", ""]),
        "history": st.lists(st.sampled_from(POSITIONS), max_size=3),
        "line": st.lists(st.sampled_from(["7", "7x2", "pickup", "flip", "K", "?", ""]),
                         max_size=4) | st.text(max_size=20),
        "event": st.sampled_from(EVENTS) | st.text(max_size=40),
        "count": st.integers(-3, 10**6),
        "names": st.sampled_from(NAMES), "me": st.sampled_from(["me", "bob", "0", "", "zed"]),
        "rules": st.sampled_from(["standard", "four_cards", "jokers", "nope", ""]),
        "hand": st.sampled_from(["3 7 Q", "3 7", "X", "3 3 3 3 3", ""]),
        "up": st.sampled_from(["me: 2 A K; bob: 5 9 J", "me: 2 A K", "bob: 1 2 3", ""])
        | st.dictionaries(st.sampled_from(["me", "bob"]), st.sampled_from(["2 A K", "5 9 J"])),
        "deal": st.sampled_from(["3 7 Q 2 A K", "3 7", ""]),
        "file": st.sampled_from(SIDS) | st.text(max_size=20),
        "dealer": st.sampled_from(["me", "bob", "9"]), "first": st.sampled_from(["me", "bob"]),
        "record": st.sampled_from(RECORDS) | st.sampled_from(RECORDS).map(
            lambda t: t.replace("7", "Q")) | st.sampled_from(RECORDS).map(
            lambda t: "\n".join(t.splitlines()[:-1])),
        "session": st.sampled_from(SIDS), "seats": st.lists(st.sampled_from(
            ["al", "bo", "me", "zed", ""]), max_size=3),
        "nodes": st.integers(-3, 10**9),
    }
    base = specific.get(key, st.nothing())
    return st.one_of(base, base, base, json_values)


def bodies(keys):
    obj = st.fixed_dictionaries({}, optional={k: plausible(k) for k in keys})
    extra = st.dictionaries(st.text(max_size=8), json_values, max_size=2)
    return st.one_of(
        obj, obj, obj, st.tuples(obj, extra).map(lambda t: {**t[0], **t[1]}),
        json_values, st.binary(max_size=60))


ANALYZE = ("position", "time", "samples", "seed", "method", "depth", "history")
ENDPOINTS = [
    ("POST", "/api/position", ("position",)),
    ("POST", "/api/analyze", ANALYZE),
    ("POST", "/api/analyze/stream", ANALYZE),
    ("POST", "/api/board", ("position", "line")),
    ("POST", "/api/live", ("names", "me", "rules", "hand", "up", "deal", "deal_up", "dealer",
                           "first", "position", "file")),
    ("POST", "/api/live/{sid}/event", ("event",)),
    ("POST", "/api/live/{sid}/undo", ("count",)),
    ("POST", "/api/live/{sid}/hint", ("time", "seed")),
    ("GET", "/api/live/{sid}", ()),
    ("GET", "/api/live/{sid}/record", ()),
    ("GET", "/api/live/{sid}/record.txt", ()),
    ("POST", "/api/review/record", ("record", "session", "seats", "nodes", "seed")),
    ("POST", "/api/review/stream", ("record", "session", "seats", "nodes", "seed")),
    ("GET", "/api/live", ()),
    ("GET", "/api/info", ()),
    ("GET", "/api/status", ()),
]


class StubRunner:
    """Stands in for the process runner: checks its input, answers at once."""

    max_seconds = 30.0
    waiting = 0

    def status(self):
        return {"running": 0, "waiting": 0, "parallel": 1, "finished": 0, "cancelled": 0,
                "max_seconds": self.max_seconds}

    def warm_up(self):
        pass

    def full(self):
        return False

    async def run(self, pos_json, options, progress=None, gone=None):
        pos = Position.from_json(pos_json)      # a valid position, or this raises
        assert set(options) <= {"time_budget", "samples", "seed", "method", "depth",
                                "history"}, options
        if progress is not None:
            await progress(1, 2, 0.0)
        return {"method": "exact", "to_move": pos.to_move, "loss_probability": [0.5, 0.5],
                "best_move": None, "moves": [], "stats": {}}

    async def run_review(self, record_json, options, progress=None, gone=None):
        from palace_solver.game.record import Record
        Record.from_json(record_json)           # a valid record, or this raises
        assert set(options) <= {"seats", "seed", "nodes"}, options
        if progress is not None:
            await progress(1, 2, 0.0)
        return {"review": {"players": [], "decisions": []}, "svg": "<svg/>"}

    async def run_hint(self, session_json, time_budget, seed, gone=None):
        assert time_budget > 0 and isinstance(seed, int)
        return {"ok": True, "forced": True, "message": "stub: play 7", "mover": "me",
                "notes": [], "odds": []}


def snapshot(directory: Path) -> dict:
    return {f.name: (f.read_bytes(), f.stat().st_mtime_ns) for f in directory.iterdir()
            if f.is_file()}


class Fuzz:
    tried = 0


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz-sessions")
    app = create_app(sessions=str(d), runner=StubRunner())
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.post("/api/live", json={"names": "me,bob", "hand": "3 7 Q",
                                      "up": "me: 2 A K; bob: 5 9 J", "file": "game.json"})
        assert r.status_code == 201, r.text
        assert c.post("/api/live/game.json/event", json={"event": "first me"}).status_code == 200
        outside = d.parent / "outside.json"
        outside.write_text(r.text)
        os.symlink(outside, d / "link.json")
        yield c, d
    print(f"\nfuzz: {Fuzz.tried} requests tried")


def check(resp, before: dict, after: dict):
    assert 200 <= resp.status_code < 300 or 400 <= resp.status_code < 500, \
        (resp.status_code, resp.text[:300])
    if resp.status_code >= 400:
        body = resp.json()
        assert isinstance(body.get("error"), str) and body["error"], body
        assert "\n" not in body["error"], body
        assert before == after, "a refused request changed a session file"
    elif resp.headers.get("content-type", "").startswith("application/x-ndjson"):
        for line in resp.text.splitlines():
            msg = json.loads(line)
            assert "error" not in msg or (isinstance(msg["error"], str)
                                          and "\n" not in msg["error"]), msg


@settings(max_examples=int(os.environ.get("PALACE_FUZZ_EXAMPLES", "500")), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_every_json_endpoint_answers_2xx_or_4xx(app_dir, data):
    client, directory = app_dir
    method, path, keys = data.draw(st.sampled_from(ENDPOINTS), label="endpoint")
    if "{sid}" in path:
        sid = data.draw(st.sampled_from(SIDS) | st.text(min_size=1, max_size=15), label="sid")
        path = path.replace("{sid}", quote(sid, safe="%"))
    before = snapshot(directory)
    Fuzz.tried += 1
    if method == "GET":
        resp = client.get(path)
    else:
        body = data.draw(bodies(keys), label="body")
        if isinstance(body, bytes):
            resp = client.post(path, content=body,
                               headers={"content-type": "application/json"})
        else:
            resp = client.post(path, content=json.dumps(body, allow_nan=True),
                               headers={"content-type": "application/json"})
    check(resp, before, snapshot(directory))
    # Nothing outside the sessions directory is ever written.
    assert (directory.parent / "outside.json").exists()
    assert all(not f.name.endswith(".tmp") for f in directory.iterdir())


@pytest.mark.parametrize("sid", ["../game.json", "..%2Fgame.json", "%2E%2E%2Fgame.json",
                                 "..%5Cgame.json", "a%2F..%2F..%2Fgame.json",
                                 "%2Fetc%2Fpasswd", "link.json", "..", "game.json%00"])
def test_session_ids_stay_inside_the_sessions_directory(app_dir, sid):
    client, directory = app_dir
    before = snapshot(directory)
    for method, suffix, body in (("GET", "", None), ("POST", "/event", {"event": "Q"}),
                                 ("POST", "/undo", {}), ("POST", "/hint", {}),
                                 ("GET", "/record", None), ("GET", "/record.txt", None)):
        url = f"/api/live/{sid}{suffix}"
        resp = client.get(url) if method == "GET" else client.post(url, json=body)
        Fuzz.tried += 1
        assert resp.status_code in (400, 404), (url, resp.status_code, resp.text)
        assert "root" not in resp.text and "passwd" not in resp.text.replace(sid, "")
    assert snapshot(directory) == before
    r = client.post("/api/live", json={"names": "me,bob", "hand": "3 7 Q",
                                       "up": "me: 2 A K; bob: 5 9 J", "file": "../escape"})
    Fuzz.tried += 1
    assert r.status_code == 400 and not (directory.parent / "escape.json").exists()


@pytest.mark.parametrize("body", [{"names": {"": None}}, {"names": ["me", "bob"]},
                                  {"up": {"me": 3}}, {"hand": {"known": []}}])
def test_what_the_fuzz_found(app_dir, body):
    """Found by the fuzz: a new session whose names were an object answered 500."""
    client, directory = app_dir
    before = snapshot(directory)
    r = client.post("/api/live", json=body)
    Fuzz.tried += 1
    assert r.status_code == 400 and "must be a string" in r.json()["error"], r.text
    assert snapshot(directory) == before


def test_real_analyses_of_random_positions_answer_2xx(tmp_path):
    """The real runner (child processes) on random valid positions, at a tiny budget."""
    import random

    from palace_solver.game.generate import random_exact_state
    from palace_solver.web.jobs import Runner
    app = create_app(sessions=str(tmp_path), runner=Runner(parallel=1, max_seconds=20))
    rng = random.Random(4)
    with TestClient(app, raise_server_exceptions=False) as c:
        for i in range(6):
            pos = Position.from_state(random_exact_state(rng, 2 + i % 2)).to_json()
            for body in ({"position": pos, "time": 0.05},
                         {"position": pos, "time": 0.05, "method": "sampled", "samples": 4}):
                r = c.post("/api/analyze", json=body)
                Fuzz.tried += 1
                assert r.status_code == 200, (r.status_code, r.text[:300])
                assert r.json()["moves"]
        r = c.post("/api/analyze", json={"position": HIDDEN, "time": 0.2})
        Fuzz.tried += 1
        assert r.status_code == 200, r.text[:300]

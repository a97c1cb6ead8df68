"""The Review tab's endpoints (palace_solver/web/review_api.py): a record read into the
board's frames or refused with its line, the review streamed, a live session exported;
every error is ``{"error": one line}`` with a 4xx status."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from palace_solver.live.session import Session, Setup
from palace_solver.web.app import create_app

DATA = Path(__file__).parent / "data" / "records"
RECORD = (DATA / "greedy-view.txt").read_text()


@pytest.fixture()
def client(tmp_path):
    with TestClient(create_app(sessions=str(tmp_path))) as c:
        yield c


def test_a_record_becomes_the_boards_frames(client):
    r = client.post("/api/review/record", json={"record": RECORD})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["reviewed"] == ["greedy"] and d["seats"] == ["greedy", "random"]
    first = d["decisions"][0]
    assert first["player"] == "greedy" and first["table"]["players"][0]["viewer"]
    assert first["table"]["players"][1]["unknown"] == 3
    same = client.post("/api/review/record", json={"record": d["record"]})   # the JSON form
    def strip(ds):                      # lines: of the text, or the events' numbers
        return [{k: v for k, v in x.items() if k != "line"} for x in ds]

    assert same.status_code == 200 and strip(same.json()["decisions"]) == strip(d["decisions"])


@pytest.mark.parametrize("body,status,start", [
    ({"record": RECORD.replace("random 2\n", "random 7x4\n", 1)}, 400, "line 13 'random 7x4'"),
    ({"record": "palace record 1\nseats: al bo\nrules: nonsense\n"}, 400, "line 3"),
    ({"record": 7}, 400, '"record" must be'),
    ({}, 400, 'give "record"'),
    ({"record": RECORD, "session": "x.json"}, 400, 'give "record"'),
    ({"record": RECORD, "colour": 1}, 400, "unknown key 'colour'"),
    ({"record": RECORD, "seats": ["random"]}, 400, "the record does not know random's cards"),
    ({"session": "nope.json"}, 404, "no session 'nope.json'"),
    ({"session": "../x"}, 400, "bad session id"),
])
def test_errors_are_one_line(client, body, status, start):
    for path in ("/api/review/record", "/api/review/stream"):
        r = client.post(path, json=body)
        assert r.status_code == status, (path, r.text)
        err = r.json()["error"]
        assert err.startswith(start) and "\n" not in err, err


def test_the_stream_gives_progress_then_the_review(client):
    with client.stream("POST", "/api/review/stream",
                       json={"record": RECORD, "nodes": 200}) as r:
        assert r.status_code == 200
        lines = [json.loads(x) for x in r.iter_lines() if x]
    # decisions reviewed, never a bare tick of the clock (the page counts them)
    assert all(isinstance(x["progress"], int) for x in lines[:-1])
    last = lines[-1]
    assert last["svg"].startswith("<svg")
    assert [p["name"] for p in last["review"]["players"]] == ["greedy"]
    bad = client.post("/api/review/stream", json={"record": RECORD, "nodes": 0})
    assert bad.status_code == 400 and bad.json()["error"].startswith('"nodes" must be')


def test_a_live_session_exports_its_record(client, tmp_path):
    from palace_solver.game.record import parse_record
    from palace_solver.game.rules import Rules
    setup = Setup(names=["greedy", "random"], me=0, rules=Rules(), hand=[],
                  face_up=[[], []], dealer=1, deal=[5, 11, 13, 11, 9, 5],
                  deal_up=[11, 9, 5])
    s = Session(setup, path=str(tmp_path / "g.json"))
    for ev in (DATA / "greedy-view.live").read_text().splitlines()[:20]:
        s.apply(ev)
    r = client.get("/api/live/g.json/record")
    assert r.status_code == 200
    rec = parse_record(r.json()["text"])
    assert rec.viewer == 0 and rec.events == s.events
    t = client.get("/api/live/g.json/record.txt")
    assert t.status_code == 200 and t.text == r.json()["text"]
    assert "attachment" in t.headers["content-disposition"]
    frames = client.post("/api/review/record", json={"session": "g.json"})
    assert frames.status_code == 200 and frames.json()["reviewed"] == ["greedy"]
    assert client.get("/api/live/none.json/record").status_code == 404

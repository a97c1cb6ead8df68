"""``palace serve``'s JSON API: the analysis equals ``palace analyze --json`` (exact and
sampled, same seed), bad input gets 400 and one line, twenty analyses at once all answer,
a closed connection cancels its analysis, the board replays lines, the live endpoints
follow the same session files as ``palace live``."""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from palace_solver.cli.main import cli
from starlette.testclient import TestClient
from position_fixtures import AFTER_PICKUP, BEFORE_PICKUP
from webutil import Server, strip_timing

from palace_solver.live.session import Session
from palace_solver.web.app import create_app, is_loopback, where
from palace_solver.web.jobs import Runner

BURNED = ("2 2 2 2 3 3 3 3 4 4 5 5 5 6 6 7 7 7 7 8 8 8 8 9 9 9 10 10 10 10 J J J J Q Q Q Q "
          "K K A A A A")
#: examples/endgame.json in the text form.
ENDGAME = (f"standard | me: K K / - / 2 ; bob: - / - / 1 | pile 4 6 6 | burned {BURNED} "
           f"| draw 0 | to_move 0")
EXACT2 = ("standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned 2 2 2 3 3 3 4 4 "
          "5 5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q K K A A A A "
          "| to_move 0")
SAMPLED = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
           "| burned 10 4 4 4 4 | draw 27 | to_move 0")


def cli_json(*args) -> dict:
    r = CliRunner().invoke(cli, ["analyze", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("sessions"), "--max-seconds", "60")
    yield s
    s.stop()


@pytest.fixture()
def client(tmp_path):
    with TestClient(create_app(sessions=str(tmp_path))) as c:
        yield c


# -- analysis ---------------------------------------------------------------------------------

@pytest.mark.parametrize("body, args", [
    ({"position": ENDGAME}, []),
    ({"position": EXACT2, "time": 5}, ["--time", "5"]),
    ({"position": SAMPLED, "samples": 12, "seed": 3}, ["--samples", "12", "--seed", "3"]),
    ({"position": SAMPLED, "samples": 6, "seed": 0, "method": "ismcts"},
     ["--samples", "6", "--method", "ismcts"]),
])
def test_analyze_equals_the_cli(server, body, args):
    status, got = server.request("/api/analyze", body)
    assert status == 200, got
    want = cli_json(body["position"], *args)
    assert strip_timing(got) == strip_timing(want)
    assert got["moves"] and got["method"] == want["method"]


def test_analyze_takes_the_json_form_too(server):
    from palace_solver.game.position import parse_position
    pos = parse_position(SAMPLED).to_json()
    status, got = server.request("/api/analyze", {"position": pos, "samples": 5, "seed": 9})
    assert status == 200
    assert strip_timing(got) == strip_timing(cli_json(SAMPLED, "--samples", "5", "--seed", "9"))


def test_analyze_takes_the_games_history(server, tmp_path):
    hist = tmp_path / "earlier.txt"
    hist.write_text(AFTER_PICKUP + "\n")
    body = {"position": BEFORE_PICKUP, "samples": 16, "history": [AFTER_PICKUP]}
    status, got = server.request("/api/analyze", body)
    assert status == 200, got
    want = cli_json(BEFORE_PICKUP, "--samples", "16", "--history", str(hist))
    assert strip_timing(got) == strip_timing(want)
    loss = {m["move"]: m["loss_probability"] for m in got["moves"]}
    assert loss["pickup"] == [0.5, 0.5] and got["stats"]["history"] == 1
    status, plain = server.request("/api/analyze", dict(body, history=[]))
    assert status == 200 and plain["stats"]["history"] == 0


@pytest.mark.parametrize("body, needle", [
    ({}, 'missing "position"'),
    ({"position": "standard | me: 7 7 7 7 7 / - / 1 ; bob: K / - / 1 | to_move 0"},
     "invalid position: 5 cards of rank 7"),
    ({"position": "{not json"}, "invalid position: bad JSON"),
    ({"position": 7}, '"position" must be'),
    ({"position": ENDGAME, "time": "soon"}, '"time" must be'),
    ({"position": ENDGAME, "time": 0}, '"time" must be'),
    ({"position": ENDGAME, "samples": 0}, '"samples" must be'),
    ({"position": ENDGAME, "seed": 1.5}, '"seed" must be'),
    ({"position": ENDGAME, "method": "magic"}, '"method" must be'),
    ({"position": ENDGAME, "colour": 1}, "unknown key 'colour'"),
    ({"position": ENDGAME, "time": 1000}, "over the server's limit"),
    ({"position": SAMPLED, "method": "exact"}, "not an exact-mode position"),
    ({"position": ENDGAME, "history": ENDGAME}, '"history" must be a list'),
    ({"position": ENDGAME, "history": [ENDGAME, "standard | nonsense"]},
     "history[1]: invalid position"),
])
def test_bad_input_is_400_with_one_line(server, body, needle):
    status, got = server.request("/api/analyze", body)
    assert status == 400, got
    assert needle in got["error"] and "\n" not in got["error"]


def test_a_body_that_is_not_json_is_400(server):
    import urllib.request
    req = urllib.request.Request(server.url + "/api/analyze", data=b"{oops",
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == 400 and json.loads(e.value.read())["error"].startswith("bad JSON")


def test_twenty_analyses_at_once(server):
    bodies = [({"position": ENDGAME}, []),
              ({"position": EXACT2}, []),
              ({"position": SAMPLED, "samples": 4, "seed": 1}, ["--samples", "4", "--seed", "1"]),
              ({"position": SAMPLED, "samples": 4, "seed": 2}, ["--samples", "4", "--seed", "2"])]
    want = [strip_timing(cli_json(b["position"], *a)) for b, a in bodies]
    jobs = [i % len(bodies) for i in range(20)]
    with ThreadPoolExecutor(20) as ex:
        answers = list(ex.map(lambda i: server.request("/api/analyze", bodies[i][0]), jobs))
    for i, (status, got) in zip(jobs, answers):
        assert status == 200, got
        assert strip_timing(got) == want[i]
    status, st = server.request("/api/status")
    assert st["running"] == 0 and st["waiting"] == 0


def _wait(server, pred, seconds=15.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        st = server.request("/api/status")[1]
        if pred(st):
            return st
        time.sleep(0.05)
    raise AssertionError(f"status never matched: {st}")


def test_a_closed_connection_cancels_its_analysis(server):
    before = server.request("/api/status")[1]
    body = json.dumps({"position": SAMPLED, "samples": 1_000_000}).encode()
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"POST /api/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    _wait(server, lambda st: st["running"] == before["running"] + 1)
    # Meanwhile another client is served at once.
    t0 = time.monotonic()
    assert server.request("/api/analyze", {"position": ENDGAME})[0] == 200
    assert time.monotonic() - t0 < 10
    sock.close()
    st = _wait(server, lambda st: st["running"] == before["running"])
    assert st["cancelled"] == before["cancelled"] + 1


def test_the_stream_reports_progress_then_the_analysis(server):
    import urllib.request
    req = urllib.request.Request(server.url + "/api/analyze/stream",
                                 data=json.dumps({"position": SAMPLED, "samples": 30,
                                                  "seed": 4}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        lines = [json.loads(x) for x in r.read().decode().splitlines()]
    assert "queued" in lines[0] and "status" in lines[0]
    assert any(m.get("progress") for m in lines)
    assert strip_timing(lines[-1]["analysis"]) == strip_timing(
        cli_json(SAMPLED, "--samples", "30", "--seed", "4"))


def test_an_analysis_past_the_limit_is_stopped(tmp_path):
    app = create_app(sessions=str(tmp_path), runner=Runner(max_seconds=1))
    with TestClient(app) as c:
        t0 = time.monotonic()
        r = c.post("/api/analyze", json={"position": SAMPLED, "samples": 1_000_000})
        assert r.status_code == 503 and "limit of 1 s" in r.json()["error"]
        assert time.monotonic() - t0 < 10
        assert c.get("/api/status").json()["running"] == 0


# -- positions and the board ------------------------------------------------------------------

@pytest.mark.parametrize("text, problem, part", [
    ("standard | me: 7 7 7 7 7 / - / 1 ; bob: K / - / 1 | to_move 0", "5 cards of rank 7",
     "cards"),
    ("standard | me: 7 / - / 1 ; bob: K / - / 1 | pile 10 | to_move 0", "the pile holds a 10",
     "pile"),
    ("standard | me: 7 / - / 1 ; bob: - / - / 0 | to_move 0", "player 1 (bob) has no cards",
     "player 1"),
    ("standard | me: 7 / - / 1 ; bob: K / - / 1 | to_move 0", "unseen cards but", "draw"),
    ("standard | me: 7 / - / 1 ; bob: K / - / 1 | to_move 5", "to_move 5", "to_move"),
])
def test_position_errors_say_where(client, text, problem, part):
    r = client.post("/api/position", json={"position": text})
    assert r.status_code == 400
    assert problem in r.json()["error"] and r.json()["where"] == part


def test_position_is_read_and_counted(client):
    r = client.post("/api/position", json={"position": ENDGAME})
    assert r.status_code == 200
    assert r.json()["text"] == ENDGAME
    assert r.json()["left"] == {r: 0 for r in r.json()["deck"]} | {"4": 1, "5": 1, "9": 1}


def test_where_names_the_rules():
    assert where("unknown variant 'x'") == "rules"
    assert where("the jokers variant is for exactly 6 players, not 2") == "rules"


def test_board_plays_a_line_with_chance_choices(client):
    r = client.post("/api/board", json={"position": ENDGAME, "line": []}).json()
    assert r["node"]["moves"] == ["K", "Kx2", "pickup"] and r["node"]["to_move"] == "me"
    r = client.post("/api/board", json={"position": ENDGAME, "line": ["K"]}).json()
    assert r["node"]["kind"] == "decision" and r["node"]["moves"] == ["flip"]
    r = client.post("/api/board", json={"position": ENDGAME, "line": ["K", "flip"]}).json()
    ch = r["node"]["chance"]
    assert ch["kind"] == "flip" and ch["player"] == "bob"
    assert [(o["card"], o["probability"]) for o in ch["outcomes"]] == [
        ("4", 1 / 3), ("5", 1 / 3), ("9", 1 / 3)]
    r = client.post("/api/board", json={"position": ENDGAME, "line": "K,flip,5"}).json()
    # a 5 on a K cannot be played: bob takes the pile
    assert "takes the pile" in r["steps"][-1]["notes"][0]
    assert r["table"]["players"][1]["hand"] == ["4", "5", "6", "6", "K"]
    assert r["node"]["to_move"] == "me"
    # the position after the line analyzes like any other
    assert client.post("/api/position", json={"position": r["node"]["text"]}).status_code == 200


def test_board_refuses_an_illegal_step(client):
    r = client.post("/api/board", json={"position": ENDGAME, "line": ["K", "7"]})
    assert r.status_code == 400
    assert r.json()["error"].startswith("step 2 '7': not a legal move for bob")


def test_unknown_api_path_is_json_404(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.json()


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for f in ("app.js", "app.css"):
        assert client.get(f"/static/{f}").status_code == 200
    assert "http" not in client.get("/static/app.js").text.replace("http://", "") \
        .replace("HTTP ", "")  # nothing loaded from the internet


def test_the_page_warns_when_served_beyond_this_machine(tmp_path):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    with TestClient(create_app(host="0.0.0.0", sessions=str(tmp_path))) as c:
        assert c.get("/api/info").json()["exposed"] is True
    with TestClient(create_app(sessions=str(tmp_path))) as c:
        assert c.get("/api/info").json()["exposed"] is False


def test_serve_command_help_and_bad_port():
    r = CliRunner().invoke(cli, ["serve", "--help"])
    assert r.exit_code == 0 and "--host" in r.output and "--sessions" in r.output
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    try:
        port = sock.getsockname()[1]
        r = CliRunner().invoke(cli, ["serve", "--port", str(port)])
        assert r.exit_code == 2 and "cannot listen on 127.0.0.1" in r.output
    finally:
        sock.close()


# -- live -------------------------------------------------------------------------------------

NEW = {"names": "me bob", "hand": "9 9 K", "up": "me: 2 J Q; bob: 4 4 A", "first": "bob"}


def terminal(args, script) -> list[str]:
    """The lines `palace live --script` prints for ``script``."""
    r = CliRunner().invoke(cli, ["live", *args, "--script", "-", "--no-hints"], input=script)
    assert r.exit_code == 0, r.output
    return r.output.splitlines()


def test_live_session_events_and_refusals(client, tmp_path):
    r = client.post("/api/live", json={**NEW, "file": "g1"})
    assert r.status_code == 201, r.json()
    st = r.json()
    assert st["id"] == "g1.json" and st["status"] == "bob's turn"
    assert st["expect"] == {"kind": "play", "player": "bob", "source": "hand"}
    r = client.post("/api/live/g1.json/event", json={"event": "bob 5"})
    assert r.status_code == 200 and r.json()["event"] == "bob 5"
    assert r.json()["state"]["status"] == "your turn"
    # refused: the terminal's message, and nothing changes
    before = client.get("/api/live/g1.json").json()
    r = client.post("/api/live/g1.json/event", json={"event": "me 3"})
    assert r.status_code == 409
    lines = terminal(["--names", "me,bob", "--hand", "9 9 K", "--up", "me: 2 J Q",
                      "--up", "bob: 4 4 A", "--first", "bob"], "bob 5\nme 3\n")
    assert f"refused: {r.json()['error']}" in lines
    assert client.get("/api/live/g1.json").json() == before
    assert json.loads((tmp_path / "g1.json").read_text())["events"] == ["bob 5"]
    # undo
    r = client.post("/api/live/g1.json/undo", json={})
    assert r.status_code == 200 and r.json()["state"]["events"] == []
    r = client.post("/api/live/g1.json/undo", json={})
    assert r.status_code == 409 and r.json()["error"] == "nothing to undo"


def test_live_sessions_move_between_the_page_and_the_terminal(client, tmp_path):
    # started on the page, resumed in the terminal
    client.post("/api/live", json={**NEW, "file": "web"})
    client.post("/api/live/web.json/event", json={"event": "bob 5"})
    out = terminal(["--resume", str(tmp_path / "web.json")], "me 9x2\n")
    assert any("you play 9x2" in x for x in out)
    assert Session.load(str(tmp_path / "web.json")).events == ["bob 5", "me 9x2"]
    st = client.get("/api/live/web.json").json()
    assert st["events"] == ["bob 5", "me 9x2"] and st["status"] == "waiting for the 2 cards you drew ('draw ...')"
    # started in the terminal, resumed on the page
    path = tmp_path / "term.json"
    terminal(["--names", "me,bob", "--hand", "9 9 K", "--up", "me: 2 J Q", "--up",
              "bob: 4 4 A", "--first", "bob", "--file", str(path)], "bob 6\n")
    r = client.post("/api/live/term.json/event", json={"event": "me K"})
    assert r.status_code == 200, r.json()
    assert Session.load(str(path)).events == ["bob 6", "me K"]
    names = [s["id"] for s in client.get("/api/live").json()["sessions"]]
    assert sorted(names) == ["term.json", "web.json"]


def test_live_hint_is_the_terminals_hint(client, tmp_path):
    start = EXACT2 + " | perspective 0"
    r = client.post("/api/live", json={"position": start, "file": "h"})
    assert r.status_code == 201, r.json()
    r = client.post("/api/live/h.json/hint", json={"time": 3})
    assert r.status_code == 200, r.json()
    h = r.json()["hint"]
    assert h["ok"] and h["mover"] == "me" and r.json()["text"].startswith("suggestions for me")
    out = CliRunner().invoke(cli, ["live", "--position", start, "--script", "-", "--json",
                                   "--no-hints"], input="hint 3\n")
    assert out.exit_code == 0, out.output
    term = json.loads(out.output.splitlines()[-1])["suggestions"]
    keys = ("move", "loss", "mover_loss", "your_loss", "tied", "ci95")
    assert [{k: m[k] for k in keys} for m in h["moves"]] == \
        [{k: m[k] for k in keys} for m in term["moves"]]
    assert h["odds"] == term["odds"]


def test_live_from_the_deal_with_a_layout_hint(client):
    r = client.post("/api/live", json={"names": "me bob", "deal": "3 7 A 10 2 K",
                                       "file": "d"})
    assert r.status_code == 201, r.json()
    st = r.json()
    assert st["expect"] == {"kind": "layout", "waiting": ["me", "bob"], "cards": 3}
    assert st["table"]["players"][0]["hand"] == ["2", "3", "7", "10", "K", "A"]
    r = client.post("/api/live/d.json/hint", json={"time": 0.3})
    assert r.status_code == 200, r.json()
    h = r.json()["hint"]
    assert h["method"] == "swap" and all(m["move"].startswith("up ") for m in h["moves"])
    assert len(h["moves"]) == 20                       # 6 cards choose 3
    r = client.post("/api/live/d.json/event", json={"event": "me up 10 A K"})
    assert r.status_code == 200, r.json()
    assert r.json()["state"]["expect"]["waiting"] == ["bob"]
    r = client.post("/api/live/d.json/event", json={"event": "bob up 5 9"})
    assert r.status_code == 409 and "\n" not in r.json()["error"]
    r = client.post("/api/live/d.json/event", json={"event": "bob up 5 9 J"})
    assert r.status_code == 200, r.json()
    st = r.json()["state"]
    assert st["expect"]["kind"] in ("play", "first")
    assert st["table"]["players"][1]["face_up"] == ["5", "9", "J"]
    assert Session.load(st["file"]).events == ["me up 10 K A", "bob up 5 9 J"]


def test_live_hint_waits_for_a_decision(client):
    client.post("/api/live", json={**NEW, "file": "w"})
    client.post("/api/live/w.json/event", json={"event": "bob 5"})
    client.post("/api/live/w.json/event", json={"event": "me 9x2"})
    r = client.post("/api/live/w.json/hint", json={})
    assert r.status_code == 409
    assert r.json()["error"] == "no hint: waiting for the 2 cards you drew ('draw ...')"


@pytest.mark.parametrize("path, status", [("/api/live/nope.json", 404),
                                          ("/api/live/..%2Fx.json", 404),
                                          ("/api/live/.x.json", 400),
                                          ("/api/live/x.txt", 400)])
def test_live_bad_ids(client, path, status):
    assert client.get(path).status_code == status


def test_live_bad_setup_is_400(client):
    r = client.post("/api/live", json={"names": "me bob", "hand": "9 9", "up": "me: 2 J Q; bob: 4 4 A"})
    assert r.status_code == 400 and r.json()["error"] == "your hand has 2 cards; it should have 3"


def test_closing_the_stream_cancels_its_analysis(server):
    before = server.request("/api/status")[1]
    body = json.dumps({"position": SAMPLED, "samples": 1_000_000}).encode()
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"POST /api/analyze/stream HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    assert b"200 OK" in sock.recv(4096)
    _wait(server, lambda st: st["running"] == before["running"] + 1)
    sock.close()
    st = _wait(server, lambda st: st["running"] == before["running"])
    assert st["cancelled"] == before["cancelled"] + 1
    assert st["finished"] == before["finished"]


def _processes_mentioning(text: str) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if text.encode() in f.read():
                        out.append(int(d))
            except OSError:
                pass
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_no_analysis_outlives_a_killed_server(tmp_path):
    s = Server(tmp_path, "--max-seconds", "60")
    try:
        def long_analysis():
            try:
                s.request("/api/analyze", {"position": SAMPLED, "samples": 1_000_000},
                          timeout=30)
            except OSError:
                pass            # the server is killed under it
        t = threading.Thread(target=long_analysis, daemon=True)
        t.start()
        _wait(s, lambda st: st["running"] == 1)
        # the forkserver and the analysis run with this test's folder on their path
        assert len(_processes_mentioning(str(tmp_path))) >= 3
    finally:
        os.killpg(s.proc.pid, signal.SIGKILL)
        s.proc.wait(10)
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(tmp_path)):
        assert time.monotonic() < deadline, "an analysis outlived its server"
        time.sleep(0.1)

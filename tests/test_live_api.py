"""The session API that other front ends (a web page) build on: create, apply a line (a
reply, or a refusal that changes nothing), undo, one file per game, a summary as data."""
from __future__ import annotations

import json

import pytest

from palace_solver.game.rules import Rules
from palace_solver.live.picture import picture
from palace_solver.live.session import Session, Setup


def _session(path=None):
    return Session(Setup(["me", "bob"], 0, Rules(), [9, 9, 13], [[2, 11, 12], [4, 4, 14]],
                         first=1), path=path)


def test_try_apply_answers_a_refusal_without_raising(tmp_path):
    path = tmp_path / "g.json"
    s = _session(str(path))
    before = json.dumps(s.summary())
    r = s.try_apply("me 9")
    assert not r.ok and r.event is None and "bob's turn" in r.message
    assert "\n" not in r.message and json.dumps(s.summary()) == before
    r = s.try_apply("bob 5")
    assert r.ok and r.event == "bob 5"
    assert json.loads(path.read_text())["events"] == ["bob 5"]
    assert s.summary()["to_move"] == "me" and "your turn" in picture(s)
    assert s.undo().ok and Session.load(str(path)).events == []


def test_a_hint_is_given_the_positions_the_game_can_come_back_to(monkeypatch):
    # A repeated position ends the game in a draw, so the hint's search is given the
    # positions already played as the user saw them then; a refill starts a new stretch
    # (the draw pile only shrinks), and undo takes positions back out.
    from palace_solver.live import hints
    s = _session()
    s.apply("bob 5")                 # bob refills: a new stretch
    p1 = s.position().to_json()
    s.apply("me pickup")             # no refill: the same stretch
    p2 = s.position().to_json()
    assert [h.to_json() for h in s.history()] == [p1, p2]
    seen = {}
    monkeypatch.setattr(hints, "hint", lambda pos, *a, history=None, **k:
                        seen.setdefault("history", [h.to_json() for h in history]))
    s.hint(0.1)
    assert seen["history"] == [p1, p2]
    s.apply("bob 7")                 # bob refills again
    assert [h.to_json() for h in s.history()] == [s.position().to_json()]
    s.undo()
    assert [h.to_json() for h in s.history()] == [p1, p2]


def test_an_exact_hint_counts_the_games_earlier_positions():
    # In exact mode the graph solver is given the history too: its values are those of the
    # game from here, checked against the Python reference solver given the same positions.
    from palace_solver.game.position import from_text
    from palace_solver.solve.exact import ExactSolver
    burned = ("2 2 2 2 3 3 3 3 4 4 5 5 5 6 6 7 7 7 8 8 8 8 9 9 9 9 10 10 10 J J J J Q Q Q K "
              "K K K A A A A")
    pos = from_text(f"standard | me: 6 / - / 1 ; bob: 4 4 / 10 / 1 | pile 5 6 | burned "
                    f"{burned} | to_move 0 | perspective 0")
    s = Session(Setup.from_position(pos))
    s.apply("me pickup")
    s.apply("bob 4")
    h = s.hint(0.5)
    assert h["mover"] == "me"
    assert h["ok"] and h["method"] == "exact"
    assert h["analysis"]["stats"]["history"] == len(s.history()) == 3
    ref = ExactSolver(s.position().to_state(),
                      history=[p.to_state() for p in s.history()]).analysis()
    plain = ExactSolver(s.position().to_state()).analysis()
    got = {m["move"]: m["loss"]["me"] for m in h["moves"]}
    assert got == {str(m.move): pytest.approx(float(m.loss[0]), abs=1e-9) for m in ref.moves}
    assert [m.loss for m in ref.moves] != [m.loss for m in plain.moves]

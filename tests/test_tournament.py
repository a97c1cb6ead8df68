"""The tournament machinery (benchmarks/tournament.py) on a handful of starts: every game
ends with one loser or a draw, each start is played in both seatings, the paired summary
counts what was played, the same seed gives the same games, and the public-knowledge
tracker of the method bots agrees with the OpenSpiel adapter's."""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from palace_solver.agents.method_bots import HandTracker, determinize
from palace_solver.agents.play import _sample
from palace_solver.game.rules import Rules
from palace_solver.game.state import State
from palace_solver.jobs.batch import run_batch
from palace_solver.sample.policies import GreedyBot

_spec = importlib.util.spec_from_file_location(
    "tournament", Path(__file__).resolve().parents[1] / "benchmarks" / "tournament.py")
T = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(T)

BUDGET = {"det_samples": 2, "det_nodes": 500, "det_exact_nodes": 1000,
          "ismcts_iterations": 10, "draw_limit": 0, "os_sims": 2, "os_uct": 1.4}


def _outcomes(results):
    """Game results without the timings (they are the only non-deterministic fields)."""
    return [{k: v for k, v in r.items() if k not in ("seconds", "stats")} for r in results]


def _check_accounting(tasks, results):
    for t, r in zip(tasks, results):
        loss = r["loss"]
        assert sum(loss) == pytest.approx(1.0)
        if r["reason"] == "end":
            assert sorted(loss) == [0.0, 1.0], r        # exactly one loser
        else:
            assert r["reason"] in ("repetition", "cap") and loss == [0.5, 0.5], r
        a_seat = 1 if t["swap"] else 0
        assert r["seats"][a_seat] == t["a"] and r["seats"][1 - a_seat] == t["b"]
        assert r["score"] == 1.0 - loss[a_seat]
        assert r["outcome"] == {1.0: "win", 0.0: "loss", 0.5: "draw"}[r["score"]]
    starts = {}
    for t in tasks:
        starts.setdefault((t["a"], t["b"], t["kind"], t["start"]), []).append(t["swap"])
    assert all(sorted(v) == [0, 1] for v in starts.values())  # both seatings of each start


def test_games_accounting_and_determinism():
    tasks = T.make_tasks([("det", "greedy"), ("ismcts", "random")], ["late", "full"],
                         starts=2, seed=7, late_cards=8, budget=BUDGET)
    assert len(tasks) == 2 * 2 * 2 * 2
    results = run_batch(T.play_one, tasks)
    _check_accounting(tasks, results)
    # The same seed gives the same games; one task alone gives what it gave in the batch.
    again = run_batch(T.play_one, tasks[:4])
    assert _outcomes(again) == _outcomes(results[:4])
    assert _outcomes([T.play_one(tasks[5])]) == _outcomes(results[5:6])
    # Both seatings of a start begin from the same position.
    s0, _, h0 = T.make_start("late", 1, 8)
    s1, _, h1 = T.make_start("late", 1, 8)
    assert s0.key() == s1.key() and h0 == h1 and s0.draw_pile == 0
    assert sum(s0.cards_left(p) for p in range(2)) <= 8
    rows = T.summarize(tasks, results)
    assert len(rows) == 4
    for r in rows:
        assert r["games"] == 4 and r["starts"] == 2
        assert r["wins"] + r["draws"] + r["losses"] == 4
        assert r["lo"] <= r["score"] <= r["hi"]
    sp = T.speeds(results)
    assert set(sp) == {"det", "ismcts"} and sp["det"]["searched"] <= sp["det"]["decisions"]
    assert "| det | greedy late |" in T.report(
        type("A", (), {"jobs": 1, "summary_only": False})(), BUDGET, rows, sp, 1.0, ["--quick"])


def test_openspiel_pairing_replays_the_start():
    pytest.importorskip("pyspiel")
    tasks = T.make_tasks([("greedy", "os_ismcts")], ["late"], starts=1, seed=3,
                         late_cards=6, budget=BUDGET)
    results = [T.play_one(t) for t in tasks]   # asserts the replayed start matches
    _check_accounting(tasks, results)
    assert results[0]["stats"]["os_ismcts"]["decisions"] > 0


def test_tracker_matches_openspiel_known_cards():
    pyspiel = pytest.importorskip("pyspiel")
    import palace_solver.interop.openspiel_game  # noqa: F401
    game = pyspiel.load_game("python_palace", {"players": 2})
    rng = random.Random(5)
    st = game.new_initial_state()
    tracker = HandTracker(2)
    g = GreedyBot()
    while not st.is_terminal():
        tracker.before(st.engine)
        if st.is_chance_node():
            st.apply_action(_sample(st.engine, rng))
        else:
            st.apply_action(st.action_of(g.choose(st.engine, rng)))
        tracker.after(st.engine)
        assert tracker.known == st._d.known


def test_determinize_keeps_what_is_known():
    s = State.new_game(Rules(), 2)
    rng = random.Random(1)
    tracker = HandTracker(2)
    while s.is_chance() or s.phase != "play":
        tracker.apply(s, _sample(s, rng) if s.is_chance() else GreedyBot().choose(s, rng))
    for i in range(5):
        d = determinize(s, 0, tracker.known, random.Random(i))
        assert d.hands[0] == s.hands[0] and d.face_up == s.face_up
        assert sum(d.hands[1]) == sum(s.hands[1])
        assert all(d.hands[1][r] >= tracker.known[1][r] for r in range(16))
        total = [d.hands[0][r] + d.hands[1][r] + d.pool[r] for r in range(16)]
        assert total == [s.hands[0][r] + s.hands[1][r] + s.pool[r] for r in range(16)]


def test_p_value_without_spread_is_a_sign_test():
    """Every start scored the same: three starts cannot be significant, a thousand are."""
    assert T.p_value(1.0, [1.0] * 3) == pytest.approx(0.25)
    assert T.p_value(0.5, [0.5] * 3) == 1.0
    assert T.p_value(0.0, [0.0] * 1000) < 1e-250
    # with spread, the paired t statistic as before
    assert T.p_value(0.75, [1.0, 0.5] * 50) < 1e-6

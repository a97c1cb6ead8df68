"""benchmarks/ceiling.py: continuations of a recorded game from its middle, and the
ceiling's estimator."""
import random

import numpy as np
import pytest

from palace_solver.agents.registry import make_agent
from palace_solver.jobs.batch import task_seed
from palace_solver.jobs.match import play_game
from palace_solver.learn.engine_games import game_tasks, play_selfplay_game, replay
from scripts import load_script


def replay_state(game, k):
    return [st for st, _, _, d in replay(game) if d == k][0]


def _script():
    return load_script("benchmarks/ceiling.py")


@pytest.fixture(scope="module")
def games():
    return [(t["id"], play_selfplay_game(t))
            for t in game_tasks(4, seed=3, agent="greedy", players={2: 1.0})]


def test_a_game_continued_from_its_first_decision_with_its_own_seeds_is_the_same_game(games):
    ceil = _script()
    g, game = games[0]
    rules, s, tracker, history, seen = ceil.at_decision(game, 0)
    assert seen == set()
    agents = [make_agent("greedy", task_seed(3, f"{g}/{q}")) for q in range(2)]
    out = play_game(rules, s, tracker, history, agents,
                    random.Random(f"engine-game-chance-3-{g}"),
                    random.Random(task_seed(3, f"{g}/bots")), record=True)
    assert out["events"] == game["events"] and out["loss"] == game["loss"]


def test_a_continuation_starts_at_the_true_position_and_knows_the_positions_played(games):
    ceil = _script()
    _, game = games[1]
    states = [st for st, _, _, _ in replay(game)]
    k = len(states) // 2
    rules, s, tracker, history, seen = ceil.at_decision(game, k)
    assert s.key() == states[k].key()
    assert seen == {st.key() for st in states[:k]}
    # a position already played is a repetition: the continuation is a draw at once
    out = play_game(rules, s, tracker, history, [make_agent("greedy", 0)] * 2,
                    random.Random(0), random.Random(0), seen=seen | {s.key()})
    assert out["reason"] == "repetition" and out["loss"] == [0.5, 0.5]
    res = ceil.continue_game({"id": "x/0", "decision": k, "agent": "greedy"}, game)
    assert res["mover"] == s.to_move and res["y"] in (0.0, 0.5, 1.0)


@pytest.mark.parametrize("phase", ["draw", "end"])
def test_positions_are_decisions_of_their_phase_with_a_choice_one_a_game(games, phase):
    ceil = _script()
    pos = ceil.positions(games, phase)
    assert pos and [p["game"] for p in pos] == sorted({p["game"] for p in pos})
    for p in pos:
        game = dict(games)[p["game"]]
        st = [st for st, _, _, k in replay(game) if k == p["decision"]][0]
        assert (st.draw_pile > 0) == (phase == "draw") and len(st.legal_moves()) > 1
        assert p["weight"] == len(ceil.eligible(game, phase)) and p["mover"] == st.to_move
    assert ceil.positions(games, phase) == pos          # seeded by the game


def test_the_end_phase_has_tasks_of_its_own(games):
    ceil = _script()
    draw, end = (ceil.tasks(ceil.positions(games, ph), phase=ph) for ph in ("draw", "end"))
    # the draw phase's tasks are those its file was begun with: no phase key
    assert all("phase" not in t for t in draw) and all(t["phase"] == "end" for t in end)
    g, game = games[0]
    k = ceil.eligible(game, "end")[0]
    task = {"id": f"{g}/0", "decision": k, "agent": "greedy"}
    a, b = (ceil.continue_game({**task, "phase": "end"}, game) for _ in range(2))
    a.pop("seconds"), b.pop("seconds")
    assert a == b and a["y"] in (0.0, 0.5, 1.0)     # a task is deterministic
    assert a["mover"] == replay_state(game, k).to_move


def test_the_ceiling_estimates_one_minus_expected_variance_over_the_reference():
    ceil = _script()
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 1, 4000)
    y = (rng.uniform(size=(4000, 2)) < p[:, None]).astype(float)
    pos = [{"weight": 1, "figure": float(q)} for q in p]
    res = ceil.ceiling(pos, y.tolist(), boot=200)
    # Y ~ Bernoulli(p), p uniform: E[p(1 - p)] = 1/6, E[(Y - 1/2)^2] = 1/4
    truth = 1 - (1 / 6) / (1 / 4)
    lo, hi = res["ceiling"]["ci95"]
    assert lo < truth < hi and abs(res["ceiling"]["brier_skill"] - truth) < 0.04
    # the true p as the figure reaches the same skill
    assert res["figure"]["brier_skill"] == pytest.approx(truth, abs=0.04)
    # a constant 1/2 has no skill, whatever the continuations say
    flat = ceil.ceiling([{"weight": 1, "figure": 0.5}] * 4000, y.tolist(), boot=10)
    assert flat["figure"]["brier_skill"] == pytest.approx(0.0, abs=1e-12)
    # the paired distance: none for the true p, the whole ceiling for the constant
    lo, hi = res["ceiling_minus_figure"]["ci95"]
    assert lo < 0 < hi and abs(res["ceiling_minus_figure"]["skill"]) < 0.02
    assert flat["ceiling_minus_figure"]["skill"] == pytest.approx(
        flat["ceiling"]["brier_skill"], abs=1e-9)


def test_weights_count_a_position_as_its_game_s_decisions():
    ceil = _script()
    pos = [{"weight": 3, "figure": 0.2}, {"weight": 1, "figure": 0.9}]
    ys = [[0.0, 1.0], [1.0, 1.0]]
    res = ceil.ceiling(pos, ys, boot=5)
    var = np.array([0.5, 0.0])
    ref = np.array([0.25, 0.25])
    w = np.array([3, 1])
    assert res["ceiling"]["brier_skill"] == pytest.approx(1 - (w @ var) / (w @ ref), abs=1e-4)


def test_each_stage_counts_for_the_positions_before_its_first_gap():
    ceil = _script()
    pos = [{"game": g} for g in (5, 7, 9)]
    done = {f"{g}/{c}": {"y": float(c % 2)} for g in (5, 7, 9) for c in (0, 1)}
    del done["9/1"]
    done.update({"5/2": {"y": 1.0}, "5/3": {"y": 1.0}, "7/3": {"y": 0.5}, "9/2": {"y": 0.5},
                 "9/3": {"y": 0.5}})
    keep, ys = ceil.done_prefix(pos, done)
    # 9 lacks its second continuation; 7 its third, so 9's later stage does not count
    assert keep == pos[:2] and ys == [[0.0, 1.0, 1.0, 1.0], [0.0, 1.0]]
    assert ceil.done_prefix(pos, {"7/0": {"y": 1.0}, "7/1": {"y": 1.0}}) == ([], [])
    order = [t["id"] for t in ceil.tasks([{"game": 5, "decision": 2}, {"game": 7, "decision": 4}])]
    assert order == ["5/0", "5/1", "7/0", "7/1", "5/2", "5/3", "7/2", "7/3"]


def test_the_files_resume_under_the_pinned_engine_which_played_them():
    # their continuations were played by engine as it was on 2026-12-03; pin() moved them to
    # AGENT after AGENT played their first continuation again as recorded. A stage played
    # today must be played by that engine, not by today's.
    import json

    from palace_solver.jobs.batch import batch_fingerprint
    ceil = _script()
    ceil.continue_game.__module__ = "__main__"      # as `python benchmarks/ceiling.py run`
    assert ceil.AGENT != ceil.BEGUN_AGENT
    assert make_agent(ceil.AGENT).config.infer_temp == 1.0
    games = sorted((g, r) for g, r in ceil._games(ceil.RUN).items() if g >= ceil.FIRST)
    for phase, (out, _, _) in ceil.PHASES.items():
        head = json.loads(out.open().readline())
        pos = ceil.positions(games, phase)
        assert head["fingerprint"] == batch_fingerprint(ceil.continue_game,
                                                        ceil.tasks(pos, phase=phase)), phase
        assert ceil.pin(pos, phase, out) is False   # nothing more to move


def _analyses(games):
    """calibration.py's rows for the fixture's games: each decision with a choice, its
    draw pile, the mover's outcome and a figure of its own (to tell which one was taken)."""
    out = {}
    for g, game in games:
        rows = [{"k": k, "draw": st.draw_pile, "outcome": game["loss"][st.to_move],
                 "figure": k / 1000, "method": "search"}
                for st, _, _, k in replay(game) if len(st.legal_moves()) > 1]
        out[g] = rows
    return out


@pytest.mark.parametrize("phase", ["draw", "end"])
def test_the_second_set_takes_one_analysed_decision_of_the_phase_a_game(games, phase):
    ceil = _script()
    analyses = _analyses(games)
    pos = ceil.analysed_positions(dict(games), analyses, phase, "seed")
    assert pos and [p["game"] for p in pos] == sorted({p["game"] for p in pos})
    for p in pos:
        game = dict(games)[p["game"]]
        rows = [r for r in analyses[p["game"]] if (r["draw"] > 0) == (phase == "draw")]
        st = replay_state(game, p["decision"])
        assert (st.draw_pile > 0) == (phase == "draw") and p["weight"] == len(rows)
        assert p["analysis"] == p["decision"] / 1000       # the analysis of that decision
        assert p["mover"] == st.to_move and p["outcome"] == game["loss"][st.to_move]
        assert p["figure"] == game["figures"][p["decision"]][1]
    assert ceil.analysed_positions(dict(games), analyses, phase, "seed") == pos
    # a game whose analysed decisions are all of the other phase gives no position
    other = {g: [r for r in rows if (r["draw"] > 0) != (phase == "draw")]
             for g, rows in analyses.items()}
    assert ceil.analysed_positions(dict(games), other, phase, "seed") == []


def test_an_analysis_of_another_decision_is_refused(games):
    ceil = _script()
    analyses = _analyses(games)
    g = next(g for g, rows in analyses.items() if len({r["draw"] for r in rows}) > 1)
    a, b = analyses[g][0], next(r for r in analyses[g] if r["draw"] != analyses[g][0]["draw"])
    analyses = {g: [{**a, "k": b["k"]}]}                    # a's draw pile, b's decision
    with pytest.raises(ValueError, match="another one"):
        ceil.analysed_positions(dict(games), analyses, "draw" if a["draw"] else "end", "s")


def test_the_analysis_is_scored_against_the_same_continuations():
    ceil = _script()
    rng = np.random.default_rng(2)
    p = rng.uniform(0, 1, 3000)
    y = (rng.uniform(size=(3000, 4)) < p[:, None]).astype(float)
    pos = [{"weight": 1, "figure": 0.5, "analysis": float(q)} for q in p]
    res = ceil.ceiling(pos, y.tolist(), boot=100)
    truth = 1 - (1 / 6) / (1 / 4)
    assert res["analysis"]["brier_skill"] == pytest.approx(truth, abs=0.04)
    assert res["figure"]["brier_skill"] == pytest.approx(0.0, abs=1e-12)
    assert abs(res["ceiling_minus_analysis"]["skill"]) < 0.02
    assert res["ceiling_minus_figure"]["skill"] == pytest.approx(
        res["ceiling"]["brier_skill"], abs=1e-9)
    # without analyses, as the first set's report was written
    plain = ceil.ceiling([{"weight": 1, "figure": 0.5}] * 3000, y.tolist(), boot=5)
    assert "analysis" not in plain and "ceiling_minus_analysis" not in plain


def test_the_second_set_s_tasks_name_their_set_and_phase_and_its_chance_is_its_own(games):
    ceil = _script()
    g, game = games[0]
    k = ceil.eligible(game, "draw")[0]
    pos = [{"game": g, "decision": k}]
    w1 = ceil.tasks(pos, ceil.W1["stages"], "greedy", "run", "draw",
                    tag={"set": "w1-engine", "phase": "draw"})
    assert [t["id"] for t in w1] == [f"{g}/{c}" for c in range(4)]
    assert all(t["set"] == "w1-engine" and t["phase"] == "draw" for t in w1)
    first = ceil.tasks(pos, agent="greedy", run="run")[0]
    assert first["id"] == w1[0]["id"] and "set" not in first
    # the same game, decision and ids in the two sets: other chance (seeded by set, phase
    # and id), so the two sets' continuations are not copies of each other
    runs = [[ceil.continue_game({**t, "id": f"{g}/{c}"}, game) for c in range(6)]
            for t in (first, w1[0])]
    assert [r["decisions"] for r in runs[0]] != [r["decisions"] for r in runs[1]]
    assert all(r["mover"] == replay_state(game, k).to_move for run in runs for r in run)


def test_the_second_set_draws_from_the_analyses_of_w1_engine_s_games():
    # the set as planned (2026-12-07): every start of the row, both phases, engine's network
    # pinned; the positions come from the analyses the calibration mark was measured on
    ceil = _script()
    assert ceil.W1["run"] == "row:w1-engine" and ceil.W1["starts"] == 500
    assert ceil.W1["stages"] == (4,)
    assert make_agent(ceil.W1["agent"]).config.weights == "gen4"
    for name in ceil.W1["analyses"]:
        assert (ceil.HERE / "results" / "calibration" / name).exists(), name


def test_the_second_set_s_draw_phase_file_resumes_under_its_planned_tasks():
    # begun 2026-12-07 with every position of the plan, four continuations each
    import json

    from palace_solver.jobs.batch import batch_fingerprint
    ceil = _script()
    ceil.continue_game.__module__ = "__main__"      # as `python benchmarks/ceiling.py run`
    pos = ceil.w1_positions("draw")
    todo = ceil.w1_tasks(pos, "draw")
    assert all(t["agent"] == ceil.W1["agent"] and t["set"] == "w1-engine" for t in todo)
    head = json.loads(ceil.W1["draw"][0].open().readline())
    assert head["tasks"] == len(todo) == 4 * 952
    assert head["fingerprint"] == batch_fingerprint(ceil.continue_game, todo)

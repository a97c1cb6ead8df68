"""``palace match`` and the agents by name (palace_solver/jobs/match.py, agents/registry.py)."""
from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

from palace_solver.agents.method_bots import HandTracker, progress_pick
from palace_solver.agents.play import _sample
from palace_solver.agents.registry import (
    AGENTS,
    AgentError,
    agent_names,
    make_agent,
    openspiel_available,
    parse_agent,
)
from palace_solver.cli.main import cli
from palace_solver.game.moves import Move
from palace_solver.game.rules import Rules
from palace_solver.game.state import PLAY_PHASE
from palace_solver.jobs.match import (
    format_summary,
    make_start,
    match_tasks,
    p_value,
    play_task,
    run_match,
    summarize,
)
from palace_solver.sample.policies import GreedyBot

#: a cheap engine, so that whole matches fit in a test
ENGINE = "engine:nodes=3000:determinizations=4:end_nodes=3000:end_determinizations=2"
#: fields of a summary that do not depend on the machine
STABLE = ("a", "b", "players", "kind", "starts", "games", "score", "ci95", "p", "wins",
          "draws", "losses", "mean_decisions", "a_loss_rate")


def test_same_seed_same_result_for_one_and_two_jobs(tmp_path):
    one = run_match(ENGINE, "greedy", starts=3, seed=5, jobs=1, progress=False)
    two = run_match(ENGINE, "greedy", starts=3, seed=5, jobs=2, progress=False,
                    output=tmp_path / "m.jsonl")
    assert {k: one[k] for k in STABLE} == {k: two[k] for k in STABLE}
    assert one["games"] == 6 and one["wins"] + one["draws"] + one["losses"] == 6
    # resumed from the finished file: the same games, nothing replayed
    again = run_match(ENGINE, "greedy", starts=3, seed=5, jobs=1, progress=False,
                      output=tmp_path / "m.jsonl")
    assert {k: again[k] for k in STABLE} == {k: one[k] for k in STABLE}
    other = run_match(ENGINE, "greedy", starts=3, seed=6, jobs=1, progress=False)
    assert other["mean_decisions"] != one["mean_decisions"]


def test_every_seating_of_a_start_shares_the_start_and_the_chance():
    tasks = match_tasks("greedy", "lowest", players=3, starts=2, seed=1)
    assert [(t["start"], t["seat"]) for t in tasks] == [(0, 0), (0, 1), (0, 2), (1, 0),
                                                        (1, 1), (1, 2)]
    # the same agent in every seat: every seating of a start is the same game
    same = [play_task(dict(t, a="greedy", b="greedy")) for t in tasks[:3]]
    assert same[0]["loss"] == same[1]["loss"] == same[2]["loss"]
    assert [r["a_loss"] for r in same] == [same[0]["loss"][k] for k in range(3)]
    res = [play_task(t) for t in tasks]
    s = summarize(tasks, res)
    assert s["players"] == 3 and s["games"] == 6 and s["equal_score"] == pytest.approx(2 / 3)
    assert s["score"] == pytest.approx(1 - sum(r["a_loss"] for r in res) / 6)


def test_a_draw_is_half_a_loss_in_two_players():
    tasks = match_tasks("random", "random", starts=4, seed=0)
    res = [play_task(t) for t in tasks]
    assert any(r["outcome"] == "draw" for r in res)  # random bots repeat positions
    for r in res:
        if r["outcome"] == "draw":
            assert r["loss"] == [0.5, 0.5] and r["a_loss"] == 0.5


def test_starts():
    s, tracker, history = make_start("full", Rules(), 2, "k")
    assert s.phase == PLAY_PHASE and s.draw_pile > 0 and not s.is_chance()
    s2, _, h2 = make_start("full", Rules(), 2, "k")
    assert s2.key() == s.key() and h2 == history
    late, _, _ = make_start("late", Rules(), 3, "k", late_cards=10)
    assert late.draw_pile == 0 and sum(late.cards_left(p) for p in range(3)) <= 10
    assert isinstance(tracker, HandTracker)


def test_agents_by_name():
    names = agent_names()
    for want in ("engine", "hint", "rollout", "det", "ismcts", "greedy", "lowest", "random"):
        assert want in names
    assert ("os_ismcts" in names) == openspiel_available()
    assert parse_agent("engine:nodes=1000:rollouts=0") == ("engine",
                                                          {"nodes": 1000, "rollouts": 0})
    with pytest.raises(AgentError, match="unknown agent"):
        parse_agent("stockfish")
    with pytest.raises(AgentError, match="key=value"):
        parse_agent("engine:nodes")
    with pytest.raises(AgentError):
        make_agent("engine:bogus=1")
    assert make_agent("engine:nodes=1000").config.nodes == 1000
    # end_ options set the configuration once the draw pile is empty
    e = make_agent("engine:end_nodes=5000:nodes=1000")
    assert (e.endgame.nodes, e.config.nodes, e.use_history) == (5000, 1000, True)
    assert make_agent("engine:end=flat").endgame is None
    assert make_agent("engine:history=0").use_history is False
    assert make_agent("engine:history=off").use_history is False
    # the p2 rows' decision made progress where it leads engine's default
    assert (make_agent("engine").pickup_margin, make_agent("engine").pickup_below) == (0.05, 0.33)
    old = make_agent("engine:pickup_margin=0:pickup_below=1")
    assert (old.pickup_margin, old.pickup_below) == (0.0, 1.0)
    assert (make_agent("engine1").pickup_margin, make_agent("engine1").pickup_below) == (0.0, 1.0)
    # the c2 rows' decision made contempt 0.1 engine's default in both phases (play only)
    e = make_agent("engine")
    assert (e.config.contempt, e.endgame.contempt) == (0.1, 0.1)
    e = make_agent("engine:contempt=0:end_contempt=0")
    assert (e.config.contempt, e.endgame.contempt) == (0, 0)
    assert make_agent("engine:end=flat").config.contempt == 0.1
    assert (make_agent("engine1").config.contempt, make_agent("engine1").endgame.contempt) == (0, 0)
    for bad in ("engine:end=deeper", "engine:end=flat:end_nodes=9", "engine:end_bogus=1",
                "engine:contempt=0.3", "engine:end_contempt=-0.1",
                "engine:pickup_margin=0.3", "engine:pickup_margin=-0.01",
                "engine:pickup_below=1.5", "engine:pickup_below=-0.1",
                "engine:late_below=1.5", "engine:late_from=-1"):
        with pytest.raises(AgentError):
            make_agent(bad)
    # options arrive as text: a wrong type or sign is refused when the agent is made, with
    # the field's name, not in the compiled search's first decision
    for bad, says in (("engine:nodes=abc", "nodes 'abc' is not a whole number"),
                      ("engine:nodes=-5", "nodes -5 is not a whole number of at least 0"),
                      ("engine:end_nodes=1.5", "nodes 1.5"),
                      ("engine:determinizations=0", "determinizations 0"),
                      ("engine:infer_temp=-1", "infer_temp -1"),
                      ("engine:eval=foo", "eval 'foo'"), ("engine:revealed=2", "revealed 2"),
                      ("engine:nodez=5", "engine has no option 'nodez'"),
                      ("engine:budget=abc", "budget='abc': a number"),
                      ("engine:budget=0", "budget=0: above 0"),
                      ("engine:pickup_margin=abc", "pickup_margin='abc': a number"),
                      ("engine:late_from=2.5", "late_from=2.5: a whole number"),
                      ("engine:history=yes", "history='yes': 0, 1 or off"),
                      ("engine:end_nodez=5", "engine has no option 'end_nodez'"),
                      ("det:foo=1", "det has no option 'foo'")):
        with pytest.raises(AgentError, match=re.escape(says)):
            make_agent(bad)


@pytest.mark.parametrize("spec", ["engine:nodes=2000", "engine_gd:nodes=2000",
                                  "engine:nodes=2000:contempt=0.1:end_contempt=0.1",
                                  "engine:nodes=2000:pickup_margin=0.05",
                                  "engine:nodes=2000:pickup_margin=0.05:pickup_below=0.33",
                                  "engine_det:nodes=2000",
                                  "hint:seconds=0.2", "rollout:seconds=0.05", "det:samples=2",
                                  "ismcts:iterations=10", "greedy", "lowest", "random"])
def test_each_agent_plays_legal_moves(spec):
    s, tracker, _ = make_start("full", Rules(), 2, "agents")
    agent = make_agent(spec, seed=1)
    if hasattr(agent, "tracker"):
        agent.tracker = tracker
    rng = random.Random(0)
    for _ in range(3):
        while s.is_chance():
            s.apply(s.chance_outcomes()[0][0])
        if s.is_terminal():
            break
        m = agent.choose(s, rng)
        assert m in s.legal_moves()
        tracker.apply(s, m)


def test_progress_pick_gives_a_near_pickup_up_for_the_best_play_and_nothing_else():
    pick, p3, p5, k = Move.pickup(), Move.play(3, 1), Move.play(5, 1), Move.play(13, 2)
    vals = [(pick, [0.60, 0.40]), (p3, [0.45, 0.55]), (p5, [0.43, 0.57]), (k, [0.30, 0.70])]
    # the mover is seat 1: pickup 0.40 is best; 5 (0.57) and 3 (0.55) are within 0.2 of it
    assert progress_pick(vals, 1, 0.2) == [(p3, [0.45, 0.55]), (p5, [0.43, 0.57])]
    assert progress_pick(vals, 1, 0.1) == vals          # no play within 0.1: pickup stays
    assert progress_pick(vals, 1, 0.0) == vals          # off
    # a play best already: untouched, whatever the margin
    assert progress_pick(vals, 0, 0.25) == vals
    assert progress_pick([(pick, [0.5, 0.5])], 0, 0.25) == [(pick, [0.5, 0.5])]
    # below: only where the pickup's loss (0.40 for seat 1) is at most it
    assert progress_pick(vals, 1, 0.2, below=0.40) == [(p3, [0.45, 0.55]), (p5, [0.43, 0.57])]
    assert progress_pick(vals, 1, 0.2, below=0.39) == vals


def test_the_late_bound_takes_over_once_the_game_has_run_late_from_decisions():
    # engine raises its bound from decision late_from on (since the l1 rows); late_below=none
    # keeps one bound throughout, as before them
    assert (make_agent("engine").late_from, make_agent("engine").late_below) == (200, 0.5)
    assert make_agent("engine:late_below=none").late_below is None
    agent = make_agent("engine:nodes=2000:late_below=0.5:late_from=3")
    s, tracker, _ = make_start("full", Rules(), 2, "late")
    agent.tracker = tracker
    rng = random.Random(0)
    seen = []
    while not s.is_terminal() and len(seen) < 6:
        while s.is_chance():
            tracker.apply(s, _sample(s, rng))
        if s.is_terminal():
            break
        seen.append(agent.pickup_bound())
        tracker.apply(s, agent.choose(s, rng))
    # decisions 0, 1, 2 keep pickup_below; from decision 3 on the late bound
    assert seen == [0.33, 0.33, 0.33, 0.5, 0.5, 0.5]
    agent.tracker = None                  # no record of the game: never late
    assert agent.pickup_bound() == 0.33


def test_the_nopick_bound_holds_until_another_player_takes_the_pile_by_choice():
    # engine:nopick_below=X: the bound X until another seat picks up with a play in hand;
    # its own pickups and forced ones do not count; engine's bound 1 since the w1 rows,
    # nopick_below=none the engine before them
    assert make_agent("engine").nopick_below == 1.0
    assert make_agent("engine:nopick_below=none").nopick_below is None
    with pytest.raises(ValueError, match="nopick_below"):
        make_agent("engine:nopick_below=1.5")
    agent = make_agent("engine:nodes=2000:nopick_below=0.9")
    plain = make_agent("engine:nodes=2000:nopick_below=none")
    s, tracker, _ = make_start("full", Rules(), 2, "nopick")
    agent.tracker = plain.tracker = tracker
    rng = random.Random(0)
    bounds, by_choice = [], []
    while not s.is_terminal() and len(by_choice) < 2:
        while s.is_chance():
            tracker.apply(s, _sample(s, rng))
        if s.is_terminal():
            break
        bounds.append((agent.pickup_bound(0), plain.pickup_bound(0)))
        legal = s.legal_moves()
        chosen = Move.pickup() in legal and any(m.kind != "pickup" for m in legal)
        # seat 0 takes the pile once with a play in hand, then seat 1
        if chosen and len(by_choice) == s.to_move:
            by_choice.append(len(bounds))
            tracker.apply(s, Move.pickup())
        else:
            tracker.apply(s, GreedyBot().choose(s, rng))
    assert len(by_choice) == 2 and by_choice[0] < by_choice[1]
    # seat 0's own pickup by choice (and the forced ones) leave the bound at 0.9; seat 1's
    # ends it, for the rest of the game; seat 1's view counts seat 0's
    assert all(b == (0.9, 0.33) for b in bounds[:by_choice[1]])
    assert agent.pickup_bound(0) == 0.33 and agent.others_picked(1)
    assert agent.pickup_bound() == 0.33               # no seat: the bounds as without it
    agent.tracker = HandTracker(2)                    # a new game starts again
    assert agent.pickup_bound(0) == 0.9


def test_sees_hands_searches_the_others_hands_as_they_are(monkeypatch):
    # the measuring agent of the o1 rows: the search gets the true hands (nothing hidden in
    # them, no inference), the face-down cards and the draw pile still unknown
    import palace_solver.agents.method_bots as mb
    seen = []
    real = mb.decide

    def spy(view, hidden, cfg, *a, **kw):
        seen.append((view.to_state(), hidden, kw.get("observations")))
        return real(view, hidden, cfg, *a, **kw)
    monkeypatch.setattr(mb, "decide", spy)
    s, tracker, _ = make_start("full", Rules(), 2, "sees")
    rng = random.Random(0)
    for spec in ("engine:nodes=2000:sees_hands=1", "engine:nodes=2000"):
        agent = make_agent(spec)
        agent.tracker = tracker
        t = s.clone()
        while agent.stats["searched"] == 0:
            while t.is_chance():
                t.apply(_sample(t, rng))
            agent.choose(t, rng)
            if agent.stats["searched"] == 0:
                t.apply(GreedyBot().choose(t, rng))
        view, hidden, _ = seen[-1]
        other = 1 - t.to_move
        if spec.endswith("sees_hands=1"):
            assert hidden == [0, 0] and view.hands[other] == t.hands[other]
            assert view.pool == t.pool and sum(t.pool) == t.draw_pile + sum(t.face_down)
        else:
            assert hidden[other] > 0 and view.hands[other] != t.hands[other]
    with pytest.raises(AgentError, match="sees_hands"):
        make_agent("engine:sees_hands=2")


def test_engine_det_hands_over_to_det_when_the_draw_pile_is_empty():
    agent = make_agent("engine_det:nodes=2000", seed=1)
    for kind in ("full", "late"):
        s, tracker, _ = make_start(kind, Rules(), 2, "handover")
        agent.tracker = tracker
        before = [b.stats["decisions"] for b in agent.parts]
        assert agent.choose(s, random.Random(0)) in s.legal_moves()
        moved = [b.stats["decisions"] - x for b, x in zip(agent.parts, before)]
        assert moved == ([1, 0] if s.draw_pile > 0 else [0, 1]), (kind, s.draw_pile)


def check_game(task: dict, r: dict) -> None:
    """A finished game's record adds up: one loser at the end (or the loss shared by a
    draw), A's loss its seat's, the outcome its score's."""
    loss, n = r["loss"], task["players"]
    assert sum(loss) == pytest.approx(1.0)
    if r["reason"] == "end":
        assert sorted(loss) == [0.0] * (n - 1) + [1.0], r
        assert r["outcome"] == ("loss" if r["a_loss"] == 1.0 else "win"), r
    else:
        # a draw: the players still in share the loss
        assert r["reason"] in ("repetition", "cap") and r["outcome"] == "draw", r
        assert len({x for x in loss if x > 0}) == 1, r
    assert r["a_loss"] == loss[task["seat"]]


@pytest.mark.skipif(not openspiel_available(), reason="needs the openspiel extra")
def test_os_ismcts_replays_the_game():
    """OpenSpiel's ISMCTS seated by ``palace match`` follows the game it is dropped into
    (its adapter replays the start; a move of the adapter that the table refuses would
    raise), plays its seat, and the game is scored as any other; the same seed gives the
    same game."""
    tasks = match_tasks("os_ismcts:sims=5", "greedy", starts=1, seed=2, kind="late")
    for t in tasks:
        r = play_task(t)
        check_game(t, r)
        assert r["a_decisions"] > 0 and r["b_decisions"] > 0
        again = play_task(t)
        assert (again["loss"], again["decisions"]) == (r["loss"], r["decisions"])


def test_every_game_of_a_match_adds_up():
    tasks = match_tasks("greedy", "random", players=2, starts=6, seed=3)
    for t in tasks:
        check_game(t, play_task(t))
    tasks = match_tasks("lowest", "greedy", players=3, starts=2, seed=3, kind="late")
    for t in tasks:
        check_game(t, play_task(t))


def test_a_recorded_game_is_the_same_game_and_replays_to_its_end():
    from palace_solver.learn.engine_games import replay
    for t in match_tasks(ENGINE, "greedy", starts=2, seed=4):
        plain, kept = play_task(t), play_task(dict(t, record=True))
        assert {k: kept[k] for k in plain if "seconds" not in k} == \
            {k: v for k, v in plain.items() if "seconds" not in k}
        # as a self-play record: every decision replays, the engine's with its figure
        n = t["players"]
        game = {"n": n, "rules": t["rules"], "events": kept["events"],
                "prefix": kept["prefix"], "figures": kept["figures"]}
        moves = list(replay(game))
        assert len(moves) == len(kept["figures"]) == kept["decisions"]
        assert any(fig is not None for _, _, fig, _ in moves)


def test_p_value_without_spread_is_a_sign_test():
    """Every start scored the same: three starts cannot be significant, a thousand are."""
    assert p_value(1.0, [1.0] * 3) == pytest.approx(0.25)
    assert p_value(0.5, [0.5] * 3) == 1.0
    assert p_value(0.0, [0.0] * 1000) < 1e-250
    # with spread, the paired t statistic: significant only when the mean is off the null
    assert p_value(0.75, [1.0, 0.5] * 50) < 1e-6
    assert p_value(0.5, [1.0, 0.0] * 50) == pytest.approx(1.0)


def test_tracker_matches_openspiel_known_cards():
    """The public-knowledge tracker of the method bots agrees with the OpenSpiel adapter's
    own record of the cards each player is known to hold, event after event."""
    pyspiel = pytest.importorskip("pyspiel")
    import palace_solver.interop.openspiel_game  # noqa: F401
    game = pyspiel.load_game("python_palace", {"players": 2})
    rng = random.Random(5)
    st = game.new_initial_state()
    tracker = HandTracker(2)
    g = GreedyBot()
    pickups = 0
    while not st.is_terminal():
        tracker.before(st.engine)
        if st.is_chance_node():
            st.apply_action(_sample(st.engine, rng))
        else:
            before = sum(map(sum, tracker.known))
            st.apply_action(st.action_of(g.choose(st.engine, rng)))
            pickups += sum(map(sum, st._d.known)) > before
        tracker.after(st.engine)
        assert tracker.known == st._d.known
    assert pickups > 0      # the game made some hand cards public


def test_a_player_already_out_at_a_drawn_game_won_it():
    # nine players cannot finish in 400 decisions: every game is drawn at the cap, and the
    # seats already out share no loss. A's game is a draw only if A was still in.
    r = run_match("greedy", "random", players=9, starts=2, seed=0, progress=False)
    assert r["capped"] == r["games"] == 18
    tasks = match_tasks("greedy", "random", players=9, starts=2, seed=0, rules=Rules())
    for t in tasks:
        res = play_task(t)
        assert res["reason"] == "cap"
        assert res["outcome"] == ("draw" if res["a_loss"] > 0 else "win")
    assert r["draws"] + r["wins"] == 18 and r["losses"] == 0
    assert r["score"] == pytest.approx(1 - sum(play_task(t)["a_loss"] for t in tasks) / 18)
    assert "18 of 18 games reached the cap of 400 decisions" in format_summary(
        {**r, "wall_seconds": 0.0, "jobs": 1})
    # a p-value that underflows is said as a bound, not as 0
    text = format_summary({**r, "p": 0.0, "wall_seconds": 0.0, "jobs": 1})
    assert "p < 1e-15" in text and "p = 0 " not in text
    assert "p = 0.031" in format_summary({**r, "p": 0.0312, "wall_seconds": 0.0, "jobs": 1})
    longer = run_match("greedy", "random", players=2, starts=2, seed=0, progress=False)
    assert longer["capped"] == 0 and "reached the cap" not in format_summary(
        {**longer, "wall_seconds": 0.0, "jobs": 1})


def test_cli_match_json_and_errors():
    runner = CliRunner()
    res = runner.invoke(cli, ["match", ENGINE, "greedy", "--starts", "2", "--json",
                              "--no-progress"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 4 and 0 <= out["ci95"][0] <= out["score"] <= out["ci95"][1] <= 1
    assert out["a_decisions_per_second"] > 0
    for args in (["match", "enginex", "greedy"], ["match", "engine", "greedy", "--starts", "0"],
                 ["match", "engine", "greedy", "--variant", "nonsense"],
                 ["match", "engine:nodes", "greedy"], ["match", "engine:nodes=abc", "greedy"],
                 ["match", "engine:nodes=-5", "greedy"]):
        res = runner.invoke(cli, args)
        assert res.exit_code == 2, (args, res.output)
        assert res.output.count("\n") == 1 and res.output.startswith("palace: ")
    res = runner.invoke(cli, ["match", "--help"])
    assert res.exit_code == 0 and "--players" in res.output and "os_ismcts" in res.output
    assert set(AGENTS) >= {"engine", "hint", "rollout", "det", "ismcts", "os_ismcts"}


def test_two_results_of_one_game_are_the_same_but_for_their_timings():
    from palace_solver.jobs.match import same_result
    one = {"loss": [0.0, 1.0], "decisions": 12, "seconds": 1.5, "a_seconds": 0.7,
           "b_seconds": 0.8}
    assert same_result(one, dict(one, seconds=9.0, a_seconds=4.0, b_seconds=5.0))
    assert not same_result(one, dict(one, decisions=13))
    assert not same_result(one, dict(one, events=[]))     # a field more is a difference

"""Recorded self-play games (palace_solver/learn/engine_games.py): every game replays from
its deal to the same positions, in the order the game met them, and the training arrays
and the policy model's data come from those replays."""
from __future__ import annotations

import json

import numpy as np
import pytest

from palace_solver.agents.registry import make_agent
from palace_solver.jobs.batch import task_seed
from palace_solver.jobs.match import make_start
from palace_solver.learn.engine_games import (
    game_tasks,
    play_selfplay_game,
    read_games,
    replay,
    replay_tracked,
    run_games,
    to_dataset,
)
from palace_solver.learn.policy import decisions, fit, loglik


def test_a_recorded_game_replays_to_its_positions():
    for task in game_tasks(4, seed=3, agent="greedy", players={2: 1, 3: 1}):
        rec = json.loads(json.dumps(play_selfplay_game(task)))   # through JSON, as stored
        keys = [s.key() for s, _, _, _ in replay(rec)]
        assert len(keys) == rec["decisions"] == len(rec["figures"])
        # the positions are those of the game: the first one is the start's
        start, _, _ = make_start("full", *_config(rec), f"engine-game-deal-3-{task['id']}")
        assert keys[0] == start.key()
        tracked = [(s.key(), str(m)) for s, m, _, _, _ in replay_tracked(rec)]
        assert tracked == [(s.key(), str(m)) for s, m, _, _ in replay(rec)]
        assert sum(rec["loss"]) == 1


def test_random_layouts_replay_and_differ_from_greedys():
    # the layouts-calib run: the tasks name the layout only when it is not greedy's, and
    # its games replay from the deal like any other
    assert all("layout" not in t for t in game_tasks(2, seed=3, agent="greedy"))
    tasks = game_tasks(12, seed=3, agent="greedy", players={2: 1}, layout="random")
    assert all(t["layout"] == "random" for t in tasks)
    differ = 0
    for task in tasks:
        rec = json.loads(json.dumps(play_selfplay_game(task)))
        assert len([s for s, _, _, _ in replay(rec)]) == rec["decisions"]
        rules, n = _config(rec)
        key = f"engine-game-deal-3-{task['id']}"
        rnd, _, _ = make_start("full", rules, n, key, layout="random")
        grd, _, _ = make_start("full", rules, n, key)
        assert next(s for s, _, _, _ in replay(rec)).key() == rnd.key()
        # the same deal, so the same cards each player holds in hand and face up together
        for p in range(n):
            both = [[h + f for h, f in zip(st.hands[p], st.face_up[p])] for st in (rnd, grd)]
            assert both[0] == both[1]
        differ += any(rnd.face_up[p] != grd.face_up[p] for p in range(n))
    assert differ >= 6          # greedy puts its high cards up; chance does not, mostly
    with pytest.raises(ValueError, match="layout"):
        make_start("full", rules, 2, "x", layout="people")


def _config(rec):
    from palace_solver.game.rules import Rules
    return Rules.from_json(rec["rules"]), rec["n"]


def test_a_game_is_the_same_whoever_plays_it(tmp_path):
    tasks = game_tasks(3, seed=5, agent="greedy")
    out = tmp_path / "g.jsonl"
    first = run_games(tasks, jobs=1, output=out, progress=False)
    again = json.loads(json.dumps([play_selfplay_game(t) for t in tasks]))
    for a, b in zip(again, first):
        for k in ("seconds", "think"):   # timings: the only fields a run may change
            a.pop(k), b.pop(k)
        assert a == b
    assert [g for g, _ in read_games(out)] == [0, 1, 2]


def test_the_engines_figures_are_recorded_for_its_searched_decisions():
    task = game_tasks(1, seed=1, agent="engine:determinizations=8:nodes=4000:end_nodes=4000",
                      players={2: 1})[0]
    rec = play_selfplay_game(task)
    figs = [f[1] for f in rec["figures"]]
    assert any(f is not None for f in figs) and all(f is None or 0 <= f <= 1 for f in figs)
    agent = make_agent(task["agent"], task_seed(1, "0/0"))
    assert agent.last_figure is None   # a fresh agent has reported nothing


def test_training_arrays_and_the_policy_data_come_from_the_replays():
    games = [(t["id"], play_selfplay_game(t))
             for t in game_tasks(6, seed=2, agent="greedy", players={2: 1})]
    data = to_dataset(games)
    n_dec = sum(g["decisions"] for _, g in games)
    assert len(data["nact"]) == n_dec and data["y"].shape == (2 * n_dec,)
    assert np.allclose(data["y"].reshape(-1, 2).sum(axis=1), 1.0)
    d = decisions(games)
    theta = fit(d)
    ll = loglik(theta, d)
    # greedy plays one move for each position: the fitted model explains it far better
    # than a uniform choice among the legal moves does
    assert ll["model"] > ll["uniform"] + 0.3


def test_the_policy_fit_is_the_penalised_likelihoods_maximum():
    from palace_solver.learn import policy
    games = [(t["id"], play_selfplay_game(t))
             for t in game_tasks(6, seed=3, agent="greedy", players={2: 1})]
    from palace_solver import _engine
    d = decisions(games)
    # the textbook sums over every decision padded to the widest of all, from the replays
    feats, ys = [], []
    for _, game in games:
        for state, move, _, _ in replay(game):
            moves, f = _engine.policy_features(_engine.CState.from_state(state))
            if len(moves) > 1:
                feats.append(np.asarray(f, np.float64))
                ys.append(moves.index(move))
    assert d["y"].tolist() == ys
    counts = np.array([len(f) for f in feats])
    assert np.array_equal(np.diff(d["start"]), counts)
    mask = np.arange(counts.max())[None, :] < counts[:, None]
    x = np.zeros(mask.shape + (d["x"].shape[1],))
    for i, f in enumerate(feats):
        x[i, :len(f)] = f
    rng = np.random.default_rng(0)
    theta0 = rng.normal(0, 0.3, x.shape[2])
    p = policy._probs(theta0, x, mask)
    mean = np.einsum("nm,nmf->nf", p, x)
    xc = x - mean[:, None, :]
    # the blocked moments (blocks of 7 decisions, each padded to its own widest) are the same
    total, spread = policy._moments(theta0, policy._blocks(d, chunk=7))
    np.testing.assert_allclose(total, mean.sum(0), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(spread, np.einsum("nm,nmf,nmg->fg", p, xc, xc),
                               rtol=1e-10, atol=1e-10)
    ll = np.log(p[np.arange(len(d["y"])), d["y"]]).mean()
    assert loglik(theta0, d)["model"] == pytest.approx(ll, rel=1e-12)
    assert loglik(theta0, d)["uniform"] == pytest.approx(-np.log(counts).mean(), rel=1e-12)
    # and over a selection of the decisions (the held-out games' of a fit)
    sel = d["game"] % 2 == 1
    assert 0 < sel.sum() < len(sel)
    ll_sel = np.log(p[np.flatnonzero(sel), d["y"][sel]]).mean()
    assert loglik(theta0, d, sel)["model"] == pytest.approx(ll_sel, rel=1e-12)
    assert loglik(theta0, d, sel)["decisions"] == sel.sum()

    # at the fit, the penalised log-likelihood's gradient (by finite differences) is zero
    ridge = 1e-2
    theta = fit(d, ridge=ridge)
    n = len(d["y"])

    def objective(t):
        return loglik(t, d)["model"] * n - ridge * n * (t @ t)
    for k in rng.choice(len(theta), 6, replace=False):
        e = np.zeros_like(theta)
        e[k] = 1e-5
        assert abs(objective(theta + e) - objective(theta - e)) / 2e-5 < 1e-4 * n

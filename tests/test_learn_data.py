"""Self-play data, exact labels and training of the learned evaluation: small runs."""
from __future__ import annotations

import numpy as np
import pytest

from palace_solver import _engine
from palace_solver.jobs.batch import run_batch
from palace_solver.learn import exactdata, selfplay
from palace_solver.learn.features import rows
from palace_solver.learn.model import Net, fold, probs, softmax
from palace_solver.learn.train import errors, group, train


def _data(per_task, games=6, **kw):
    tasks = selfplay.dataset_tasks(games, seed=3, per_task=per_task, keep=0.5, **kw)
    return selfplay.load_dataset([selfplay.selfplay_task(t) for t in tasks])


def test_data_do_not_depend_on_the_split_into_tasks():
    a, b = _data(6, mix="mixed"), _data(2, mix="mixed")
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert len(a["nact"]) > 50
    assert set(np.unique(a["nact"])) <= {2, 3, 4, 5}


def test_labels_are_loss_shares_of_the_players_in():
    d = _data(6)
    sums = np.add.reduceat(d["y"], d["start"])
    np.testing.assert_allclose(sums, 1.0, atol=1e-6)
    assert d["pb"].shape == (int(d["nact"].sum()), 37)


def test_the_batch_layer_gives_the_same_data_with_two_processes(tmp_path):
    tasks = selfplay.dataset_tasks(8, seed=4, per_task=2, keep=0.3, mix="mixed")
    one = selfplay.generate(tasks, jobs=1)
    two = selfplay.generate(tasks, jobs=2, output=tmp_path / "d.jsonl")
    assert one == two


def test_det_selfplay_runs_under_the_learned_mode():
    before = _engine.get_eval_mode()
    tasks = selfplay.dataset_tasks(1, seed=5, per_task=1, keep=1.0, mix="det",
                                   eval_mode="learned", players={2: 1}, samples=1, nodes=300)
    r = selfplay.selfplay_task(tasks[0])
    assert r["positions"] > 10
    assert _engine.get_eval_mode() == before


def test_exact_labels_are_the_exact_solver_values():
    import random

    from exact_gen import random_exact_state

    from palace_solver.solve.solver import solve_exact
    rng = random.Random(2)
    solved = 0
    for _ in range(40):
        s = random_exact_state(rng, rng.choice((2, 3)))
        g = exactdata.solved_graph(_engine.CState.from_state(s), 5_000)
        if g is None:
            continue
        solved += 1
        want = solve_exact(s, engine="python").loss
        assert g.root_value() == pytest.approx([float(x) for x in want], abs=1e-9)
        for u in exactdata.random_nodes(g, 2, rng):
            st = g.node_state(u)
            if st.is_terminal() or st.is_chance():
                continue
            sub = solve_exact(st, engine="python").loss
            assert g.node_value(u) == pytest.approx([float(x) for x in sub], abs=1e-9)
    assert solved >= 10


def test_exact_data_sets():
    tasks = exactdata.exact_tasks(6, seed=7, per_task=6, max_cards=8, max_nodes=20_000,
                                  extra=2, keep=1.0, players={2: 1})
    r = exactdata.exact_task(tasks[0])
    d = selfplay.load_dataset([r])
    assert r["positions"] > 5
    # two players in every position here: values in [0, 1], each pair sums to 1
    y = d["y"].reshape(-1, 2)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, atol=1e-9)
    assert ((y >= 0) & (y <= 1)).all()


def test_folding_the_scaling_changes_no_estimate():
    rng = np.random.default_rng(0)
    net = Net(8, 4, rng)
    pb = rng.integers(0, 4, (5, 3, 37)).astype(np.uint8)
    pub = rng.integers(0, 4, (5, 90)).astype(np.uint8)
    x = rows(pb, pub)
    mean = x.reshape(-1, x.shape[-1]).mean(0)
    sd = x.reshape(-1, x.shape[-1]).std(0)
    sd[sd < 1e-6] = 0.0
    inv = np.where(sd == 0, 0.0, 1.0 / np.where(sd == 0, 1.0, sd))
    want = softmax(net.forward(((x - mean) * inv).astype(np.float32))[0])
    np.testing.assert_allclose(probs(fold(net.p, mean, sd), x), want, rtol=1e-4, atol=1e-6)


def test_backward_matches_finite_differences():
    rng = np.random.default_rng(1)
    net = Net(6, 5, rng)
    x = rng.standard_normal((4, 3, 207)).astype(np.float32)
    y = softmax(rng.standard_normal((4, 3)))

    def loss():
        return float(-(y * np.log(softmax(net.forward(x)[0].astype(np.float64)))).sum())
    s, cache = net.forward(x)
    g = net.backward(cache, (softmax(s) - y).astype(np.float32))
    for k in ("w1", "b2", "w3"):
        idx = tuple(rng.integers(0, d) for d in net.p[k].shape)
        old = net.p[k][idx]
        net.p[k][idx] = old + 1e-2
        up = loss()
        net.p[k][idx] = old - 1e-2
        down = loss()
        net.p[k][idx] = old
        assert g[k][idx] == pytest.approx((up - down) / 2e-2, rel=0.05, abs=1e-3), k


def test_training_is_reproducible_and_learns(tmp_path):
    d = _data(20, games=20)
    d["fingerprint"] = "test"
    a = train([d], h1=8, h2=4, epochs=2, batch=64, seed=1)
    b = train([d], h1=8, h2=4, epochs=2, batch=64, seed=1)
    for k in a["weights"]:
        np.testing.assert_array_equal(a["weights"][k], b["weights"][k])
    held = group(d, d["game"] % 10 == 9)
    mine = errors(a["weights"], held)
    assert mine["positions"] > 0
    assert mine["logloss"] < errors(None, held, "cardcount")["logloss"]


def test_run_batch_resumes_a_data_set(tmp_path):
    tasks = selfplay.dataset_tasks(4, seed=8, per_task=2, keep=0.3)
    out = tmp_path / "d.jsonl"
    first = run_batch(selfplay.selfplay_task, tasks[:1] + tasks[1:], output=out)
    again = selfplay.generate(tasks, output=out)
    assert first == again

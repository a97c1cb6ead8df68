"""The compiled graph solver's layout and threads never change a value; budgets and memory.

Thread count, key compaction (pext in hardware or its portable loop) and merged positions
must give the same graph bytes and the same values, checked on hypothesis positions against
the Python reference solver (without merging, node for node); the
analysis JSON is the same bytes for 1 and 2 threads. Budgets: the deepening table is sized
to the time and reused; a graph that cannot fit in memory is refused in one line.
"""
from __future__ import annotations

import json
import math
import pathlib
import random

import numpy as np
import pytest
from click.testing import CliRunner
from exact_gen import random_exact_state, random_rules, walk_against_reference
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from palace_solver import _engine as eng
from palace_solver.cli.main import cli
from palace_solver.game.position import Position
from palace_solver.game.rules import Rules
from palace_solver.solve import compiled
from palace_solver.solve.compiled import GraphTooLargeError, solve_compiled
from palace_solver.solve import deepening
from palace_solver.solve.deepening import new_search, search_deepening, table_mb
from palace_solver.solve.exact import ExactSolver

TINY = dict(hand=(0, 2), face_up=(0, 1), face_down=(0, 1), pile=(0, 2))
#: stats that measure time or name the thread count: everything else is the answer
TIMING = {"seconds", "build_seconds", "solve_seconds", "threads"}


def _graph(s, threads=1, bmi2=True, split_all=False, merge=True):
    g = eng.ExactGraph(eng.CState.from_state(s), threads, bmi2, merge)
    if split_all:
        # split every build step and every layer between the threads, however small
        # (by default graphs this small are worked by one thread)
        g.par_min = g.par_min_build = 1
    assert g.build()
    g.solve()
    return g


def _answer_json(a) -> str:
    d = a.to_json()
    d["stats"] = {k: v for k, v in d["stats"].items() if k not in TIMING}
    return json.dumps(d)


def _case(seed, n):
    rng = random.Random(seed)
    rules = random_rules(rng)
    size = TINY if n == 2 else dict(TINY, hand=(0, 1))
    return random_exact_state(rng, n, rules, **size)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(st.integers(0, 10**9), st.sampled_from([2, 2, 3, 4]))
def test_threads_and_layout_never_change_a_value(seed, n):
    s = _case(seed, n)
    probe = eng.ExactGraph(eng.CState.from_state(s))
    assume(probe.build(max_nodes=3000))
    solver = ExactSolver(s)
    ref = solver.analysis()
    for merge in (True, False):
        one = _graph(s, 1, merge=merge)
        base = one.graph_digest()
        vals = np.asarray(one.values())
        assert vals.shape == (one.node_count(), n)
        assert [one.node_value(u) for u in range(one.node_count())] == vals.tolist()
        for threads, bmi2 in ((2, True), (3, True), (2, False), (1, False)):
            g = _graph(s, threads, bmi2, split_all=True, merge=merge)
            assert g.graph_digest() == base
            assert np.array_equal(np.asarray(g.values()), vals)
            assert g.root_moves() == one.root_moves()
        got = dict((str(m), v) for m, v in one.root_moves())
        for mv in ref.moves:
            assert got[str(mv.move)] == pytest.approx([float(x) for x in mv.loss], abs=1e-12)
        assert one.root_value() == pytest.approx([float(x) for x in ref.loss], abs=1e-12)
    # without merged positions the graph is the reference solver's, node for node
    assert one.node_count() == len(solver.states)
    assert walk_against_reference(one, s, solver) == len(solver.states)


def test_the_same_json_bytes_for_one_and_two_threads():
    rng = random.Random(4)
    done = 0
    while done < 6:
        n = rng.choice((2, 3))
        size = dict(hand=(1, 3), face_up=(0, 2), face_down=(0, 2), pile=(0, 2)) if n == 2 \
            else dict(TINY, hand=(0, 2))
        s = random_exact_state(rng, n, Rules(), **size)
        g = eng.ExactGraph(eng.CState.from_state(s))
        if not g.build(max_nodes=400_000) or g.node_count() < 30_000:
            continue        # large enough for the threads to split the work (PAR_MIN)
        assert _graph(s, 1).graph_digest() == _graph(s, 2).graph_digest()
        a1 = solve_compiled(s, threads=1)
        a2 = solve_compiled(s, threads=2)
        assert a1.method == "exact"
        assert _answer_json(a1) == _answer_json(a2)
        done += 1


def test_a_graph_too_large_for_memory_is_refused_in_one_line(monkeypatch):
    rng = random.Random(5)
    s = random_exact_state(rng, 2, Rules(), hand=(3, 3), face_up=(3, 3), face_down=(3, 3),
                           pile=(2, 2))
    # The estimate alone rules it out: no build at all.
    monkeypatch.setattr(compiled, "available_memory", lambda: 1 << 20)
    with pytest.raises(GraphTooLargeError, match=r"would need about [0-9.]+ GB"):
        solve_compiled(s)
    # The estimate lets it through, the build runs into the cap and says what it found.
    monkeypatch.setattr(compiled, "predict_nodes", lambda state: 10.0)
    monkeypatch.setattr(compiled, "available_memory", lambda: 4 << 20)
    with pytest.raises(GraphTooLargeError, match=r"needs more than .* positions found"):
        solve_compiled(s)
    # With a time budget the answer comes from the deepening instead.
    a = solve_compiled(s, time_budget=0.3)
    assert a.method in ("depth_limited", "exact") and "graph" in a.stats


def test_the_build_never_grows_past_its_memory_cap():
    # with or without a time budget: no array of the build may grow past max_bytes, so the
    # cap holds at the peak, not only where a chunk of the build ends
    rng = random.Random(5)
    s = random_exact_state(rng, 2, Rules(), hand=(3, 3), face_up=(3, 3), face_down=(3, 3),
                           pile=(2, 2))
    for cap_mb in (2, 12):
        for seconds in (0.0, 100.0):
            g = eng.ExactGraph(eng.CState.from_state(s), 2)
            assert not g.build(max_nodes=10**9, max_bytes=cap_mb << 20, seconds=seconds)
            assert g.stop_reason == "memory"
            st = g.stats()
            assert 0 < st["build_peak_mb"] <= cap_mb and st["nodes"] > 1000 * cap_mb


def test_cli_says_so_in_one_line_with_status_2(monkeypatch):
    monkeypatch.setattr(compiled, "available_memory", lambda: 1 << 20)
    rng = random.Random(5)
    s = random_exact_state(rng, 2, Rules(), hand=(3, 3), face_up=(3, 3), face_down=(3, 3),
                           pile=(2, 2))
    text = json.dumps(Position.from_state(s).to_json())
    r = CliRunner().invoke(cli, ["analyze", text])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "would need about" in lines[0] and "GB" in lines[0]


def test_an_unreachable_graph_goes_straight_to_deepening():
    rng = random.Random(5)
    s = random_exact_state(rng, 2, Rules(), hand=(3, 3), face_up=(3, 3), face_down=(3, 3),
                           pile=(2, 2))
    assert compiled.predict_nodes(s) > 1e6
    a = solve_compiled(s, time_budget=0.1)
    assert a.method == "depth_limited"
    assert a.stats["graph"].startswith("graph skipped")


def test_table_is_sized_to_the_budget():
    """The table grows with the budget, by doubling from the smallest size, until it is big
    enough for the budget's nodes or reaches the default; --hash overrides it."""
    budgets = [0.001, 0.01, 0.05, 0.2, 0.5, 1.0, 2.0, 10.0, 1000.0]
    sizes = [table_mb(b) for b in budgets]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1] == deepening.DEFAULT_HASH_MB
    for b, mb in zip(budgets, sizes):
        ratio = mb / deepening.HASH_MIN_MB
        assert ratio == 2 ** round(math.log2(ratio))            # a doubling of the smallest
        need = b * deepening.HASH_MB_PER_SECOND
        assert mb >= min(need, deepening.DEFAULT_HASH_MB)       # big enough for the budget
        assert mb == deepening.HASH_MIN_MB or mb / 2 < need     # and no bigger than that
    assert table_mb(None) == deepening.DEFAULT_HASH_MB
    assert table_mb(0.2, 7) == 7 and table_mb(None, 3.5) == 3.5


def test_a_reused_table_searches_as_a_new_one():
    rng = random.Random(9)
    states = [random_exact_state(rng, 2, Rules(), hand=(2, 3), face_up=(1, 2),
                                 face_down=(1, 2), pile=(1, 2)) for _ in range(3)]
    fresh = []
    for s in states:
        d = eng.DeepSearch(eng.CState.from_state(s), 8.0)
        fresh.append([d.iterate(k, 0.0) for k in range(1, 7)] + [d.nodes])
    for s, want in zip(states, fresh):
        d = new_search(eng.CState.from_state(s), 8.0)
        got = [d.iterate(k, 0.0) for k in range(1, 7)] + [d.nodes]
        assert got == want
    a = search_deepening(states[0], depth=6, hash_mb=8)
    b = search_deepening(states[0], depth=6, hash_mb=8)
    assert a.to_json()["moves"] == b.to_json()["moves"] and a.stats["nodes"] == b.stats["nodes"]


CYCLING = pathlib.Path(__file__).parent / "data" / "cycling_4p.jsonl"


@pytest.mark.slow
def test_a_fixed_point_that_cycles_is_flagged_by_both_solvers():
    # Found by benchmarks/fixed_point_cycles.py (seed 4, --variants): four players, a
    # layer whose sweeps cycle with period 12.
    row = json.loads(CYCLING.read_text().splitlines()[0])
    s = Position.from_json(row["position"]).to_state()
    c = solve_compiled(s, threads=2)
    ref = ExactSolver(s).analysis()
    for a in (c, ref):
        assert a.stats["converged"] is False
        assert a.stats["fixed_point"]["cycling"] == 1
        assert a.stats["fixed_point"]["max_period"] == 12
    assert c.loss == pytest.approx([float(x) for x in ref.loss], abs=1e-12)
    got = {str(m.move): m.loss for m in c.moves}
    for m in ref.moves:
        assert got[str(m.move)] == pytest.approx([float(x) for x in m.loss], abs=1e-12)
    r = CliRunner().invoke(cli, ["analyze", json.dumps(row["position"])])
    assert r.exit_code == 0, r.output
    # said in plain words (the same facts: one layer cycles, with period 12)
    assert "(1 of 10 stages)" in r.output and "chase each other in a circle" in r.output
    assert "every 12 rounds" in r.output


def test_a_converged_fixed_point_says_so():
    rng = random.Random(2)
    for _ in range(200):
        s = random_exact_state(rng, 3, Rules(), **dict(TINY, hand=(0, 1)))
        a = solve_compiled(s)
        if a.stats["nodes"] <= 2000 and a.stats["fixed_point"]["layers"] > 0:
            break
    else:
        pytest.fail("no small three-player position with a 3+ player layer in 200 draws")
    for a in (solve_compiled(s), ExactSolver(s).analysis()):
        assert a.stats["converged"] is True and a.stats["fixed_point"]["cycling"] == 0
        assert a.stats["fixed_point"]["layers"] > 0     # there was a fixed point to settle
    two = solve_compiled(_case(3, 2))
    assert len(_case(3, 2).active()) == 2 and "fixed_point" not in two.stats


def test_values_are_the_node_values_in_one_array():
    s = _case(5, 3)
    g = eng.ExactGraph(eng.CState.from_state(s))
    assert g.build()
    with pytest.raises(ValueError, match="solved"):
        g.values()
    g.solve()
    out = np.full((g.node_count() + 3, s.n), -1.0)
    g.values(out)                                   # filled in place
    assert out[:g.node_count()].tolist() == [g.node_value(u) for u in range(g.node_count())]
    assert (out[g.node_count():] == -1.0).all()     # rows past the graph are left alone
    with pytest.raises(ValueError, match="array of"):
        g.values(np.zeros((g.node_count(), s.n + 1)))


def _history_walk(s, rng, plies=10):
    """Decision positions of a random line from ``s`` that stay in its layer (no flip, burn
    or player out: the positions a game can come back to), the root among them or not."""
    from palace_solver.solve.exact import progress
    out = [s.clone()] if rng.random() < 0.5 else []
    c = s.clone()
    for _ in range(plies):
        moves = c.legal_moves()
        rng.shuffle(moves)
        for m in moves:
            d = c.clone()
            d.apply(m)
            if not d.is_chance() and not d.is_terminal() and progress(d) == progress(s) \
                    and d.out == s.out:
                break
        else:
            break
        c = d
        out.append(c.clone())
    return out


def test_the_games_history_is_a_draw_for_every_solver():
    # Reaching a position of the game's history again ends it in a draw. The compiled graph
    # (any thread count), the Python reference solver and, for two players, the compiled
    # deepening run to the end must agree on every root move.
    rng = random.Random(11)
    checked = changed = 0
    for seed in range(400):
        if checked >= 40:
            break
        n = (2, 2, 3)[seed % 3]
        s = _case(seed, n)
        probe = eng.ExactGraph(eng.CState.from_state(s))
        if not probe.build(max_nodes=3000):
            continue
        hist = _history_walk(s, rng)
        if not hist:
            continue
        ref = ExactSolver(s, history=hist).analysis()
        plain = ExactSolver(s).analysis()
        got = {}
        for threads in (1, 2):
            g = eng.ExactGraph(eng.CState.from_state(s), threads)
            g.par_min = g.par_min_build = 1
            assert g.set_history([eng.CState.from_state(h) for h in hist]) == len(hist)
            assert g.build()
            g.solve()
            got[threads] = (g.graph_digest(), dict((str(m), v) for m, v in g.root_moves()))
        assert got[1] == got[2]
        for mv in ref.moves:
            assert got[1][1][str(mv.move)] == pytest.approx([float(x) for x in mv.loss],
                                                            abs=1e-12), seed
        if n == 2:
            deep = search_deepening(s, history=hist)
            assert deep.stats["complete"]
            dv = {str(m.move): m.loss for m in deep.moves}
            for mv in ref.moves:
                assert dv[str(mv.move)] == pytest.approx([float(x) for x in mv.loss],
                                                         abs=1e-9), seed
        changed += [m.loss for m in ref.moves] != [m.loss for m in plain.moves]
        checked += 1
    assert checked >= 40 and changed >= 10, (checked, changed)

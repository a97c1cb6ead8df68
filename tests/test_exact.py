"""The exact solvers against independent definitions: the brute force of tests/exact_gen.py
(no table, first repetition on a line is a draw, exact fractions), the shared examples, and
each other (pure-Python graph solver vs compiled graph solver vs iterative deepening)."""
from __future__ import annotations

import json
import pathlib
import random
import sys
from fractions import Fraction

import pytest
from exact_gen import (
    TooBig,
    brute_force,
    brute_force_moves,
    random_exact_state,
    random_rules,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from palace_solver.game.position import Position
from palace_solver.game.rules import Rules
from palace_solver.game.state import State
from palace_solver.solve.deepening import search_deepening
from palace_solver.solve.exact import ExactSolver
from palace_solver.solve.solver import solve_exact

sys.setrecursionlimit(20000)
#: tests/data/exact_*.jsonl: the public examples with their exact values (copied in).
EXAMPLES = pathlib.Path(__file__).resolve().parent / "data"
ROWS = [json.loads(line) for f in sorted(EXAMPLES.glob("exact_*.jsonl")) for line in open(f)
        if line.strip()]
assert len(ROWS) >= 16, f"the examples are missing from {EXAMPLES}"
TINY = dict(hand=(0, 2), face_up=(0, 1), face_down=(0, 1), pile=(0, 2))


def _moves(a):
    return {str(m.move): m.loss for m in a.moves}


def _close(a, b, tol=1e-9):
    return len(a) == len(b) and all(abs(float(x) - float(y)) <= tol for x, y in zip(a, b))


def _same_analysis(a, b, tol=1e-9):
    ma, mb = _moves(a), _moves(b)
    return (_close(a.loss, b.loss, tol) and set(ma) == set(mb)
            and all(_close(ma[k], mb[k], tol) for k in ma))


@pytest.mark.parametrize("i", range(len(ROWS)))
def test_shared_examples_compiled(i):
    row = ROWS[i]
    a = solve_exact(Position.from_json(row["position"]).to_state(), engine="cython")
    exp = row["expected"]
    assert _close(a.loss, exp["loss_probability"]), (a.loss, exp)
    em = {m["move"]: m["loss_probability"] for m in exp["moves"]}
    got = _moves(a)
    assert set(got) == set(em)
    for k in em:
        assert _close(got[k], em[k]), (k, got[k], em[k])


@pytest.mark.parametrize("i", range(len(ROWS)))
def test_shared_examples_python_reference_and_deepening(i):
    state = Position.from_json(ROWS[i]["position"]).to_state()
    compiled = solve_exact(state, engine="cython")
    if compiled.stats["nodes"] <= 40_000:
        ref = solve_exact(state, engine="python")
        assert _same_analysis(ref, compiled, 1e-12)
    deep = search_deepening(state, depth=60)
    assert _same_analysis(deep, compiled, 1e-9)


def _tiny_case(seed, n=2, max_nodes=150):
    """A random tiny position whose whole graph has at most ``max_nodes`` positions."""
    from palace_solver import _engine

    rng = random.Random(seed)
    rules = random_rules(rng)
    size = TINY if n == 2 else dict(TINY, hand=(0, 1))
    s = random_exact_state(rng, n, rules, **size)
    g = _engine.ExactGraph(_engine.CState.from_state(s))
    assume(g.build(max_nodes=max_nodes))
    return s, solve_exact(s, engine="cython")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                 HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_agrees_with_brute_force_move_by_move(seed):
    s, compiled = _tiny_case(seed)
    try:
        moves = brute_force_moves(s, [20000])
        root = brute_force(s, None, [20000])
    except TooBig:
        assume(False)
    ref = solve_exact(s, engine="python")
    assert ref.loss == root
    assert _moves(ref) == moves                      # exact fractions, move by move
    assert _same_analysis(compiled, ref, 1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                 HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([2, 3, 4]))
def test_values_are_probabilities_and_engines_agree(seed, n):
    s, compiled = _tiny_case(seed, n, max_nodes=3000)
    ref = solve_exact(s, engine="python")
    for a in (ref, compiled):
        for vec in [a.loss] + [m.loss for m in a.moves]:
            assert all(-1e-12 <= float(x) <= 1 + 1e-12 for x in vec)
            assert abs(sum(float(x) for x in vec) - 1) < 1e-9
            assert all(float(vec[p]) == 0 for p in range(n) if s.out[p])
    assert _same_analysis(ref, compiled, 1e-12)
    assert ref.moves[0].loss[s.to_move] == min(m.loss[s.to_move] for m in ref.moves)


def _embed_with_player_out(s2: State) -> State:
    """The same table with a third seat whose player is already out."""
    s3 = State(s2.rules, 3)
    for p in range(2):
        s3.hands[p], s3.face_up[p] = s2.hands[p][:], s2.face_up[p][:]
        s3.face_down[p] = s2.face_down[p]
    s3.pile, s3.burned, s3.pool = s2.pile[:], s2.burned[:], s2.pool[:]
    s3.out = [False, False, True]
    s3.out_order = [2]
    s3.to_move = s2.to_move
    s3.check_cards()
    return s3


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                 HealthCheck.too_slow])
@given(st.integers(0, 10**9))
def test_three_players_with_one_out_is_the_two_player_game(seed):
    rng = random.Random(seed)
    rules = random_rules(rng).without("first_out_wins")
    s2 = random_exact_state(rng, 2, rules, **TINY)
    s3 = _embed_with_player_out(s2)
    for engine in ("python", "cython"):
        a2, a3 = solve_exact(s2, engine=engine), solve_exact(s3, engine=engine)
        assert _close(list(a2.loss) + [0], a3.loss, 1e-12)
        m2, m3 = _moves(a2), _moves(a3)
        assert set(m2) == set(m3)
        assert all(_close(list(m2[k]) + [0], m3[k], 1e-12) for k in m2)


def test_identical_results_across_runs_and_pile_orders():
    rng = random.Random(7)
    for _ in range(20):
        s = random_exact_state(rng, 2, Rules(), hand=(1, 2), face_up=(0, 1), face_down=(0, 1),
                               pile=(2, 3))
        a = solve_exact(s, engine="cython")
        b = solve_exact(s, engine="cython")
        assert a.loss == b.loss and _moves(a) == _moves(b)
        # Cards under the top run play no role: reorder them, same key, same values.
        t = s.clone()
        k = t.top_run()
        rest = t.pile[:-k]
        t.pile = rest[::-1] + t.pile[-k:] if rest else t.pile
        if t.key() == s.key():
            c = solve_exact(t, engine="cython")
            assert c.loss == a.loss and _moves(c) == _moves(a)


def test_deepening_is_independent_of_hash_size_once_exact():
    rng = random.Random(11)
    for _ in range(10):
        s = random_exact_state(rng, 2, Rules(), **TINY)
        exact = solve_exact(s, engine="cython")
        small = search_deepening(s, depth=80, hash_mb=1)
        big = search_deepening(s, depth=80, hash_mb=64)
        assert _same_analysis(small, exact) and _same_analysis(big, exact)


def test_deepening_reports_exact_when_every_line_ends():
    s = Position.from_json(ROWS[2]["position"]).to_state() if ROWS else None
    if s is None:
        rng = random.Random(3)
        s = random_exact_state(rng, 2, Rules(), **TINY)
    a = search_deepening(s)
    assert a.method == "exact" and a.stats["complete"]
    assert _same_analysis(a, solve_exact(s, engine="cython"))


def test_depth_limited_answer_within_budget_is_labelled():
    # A larger position with a tight depth: the answer is an estimate and says so.
    rng = random.Random(5)
    s = random_exact_state(rng, 2, Rules(), hand=(3, 3), face_up=(3, 3), face_down=(3, 3),
                           pile=(2, 2))
    a = solve_exact(s, engine="cython", depth=3)
    assert a.method == "depth_limited" and a.stats["depth"] == 3
    assert all(abs(sum(m.loss) - 1) < 1e-9 for m in a.moves)


def test_python_solver_counts_a_fraction():
    # Example 4: the flips decide, player 0 loses with probability exactly 1/6.
    s = Position.from_json(ROWS[4]["position"]).to_state()
    ref = solve_exact(s, engine="python")
    assert ref.loss == [Fraction(1, 6), Fraction(5, 6)]
    assert all(isinstance(x, Fraction) for x in ref.loss)
    c = solve_exact(s, engine="cython")
    assert abs(c.loss[0] - 1 / 6) < 1e-12


def test_exact_solver_rejects_a_draw_pile():
    rng = random.Random(1)
    s = random_exact_state(rng, 2, Rules(), **TINY)
    s.draw_pile = 1
    with pytest.raises(ValueError):
        ExactSolver(s)

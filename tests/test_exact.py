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
    table_case,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from plain_solvers import PlainGraph
from plain_solvers import TooBig as PlainTooBig

from palace_solver.game.position import Position, parse_position
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


#: Draws of brute_case (seeded ``brute-I``) whose graphs hold 200 to 1,200 positions, whose
#: root moves differ for the mover, some strictly between 0 and 1, and whose brute
#: force fits in BRUTE_BUDGET calls; the test checks all three.
BRUTE_CASES = (111, 539, 556, 612, 2141, 2192, 2207)
BRUTE_BUDGET = 40_000


def brute_case(i: int) -> State:
    rng = random.Random(f"brute-{i}")
    return random_exact_state(rng, 2, random_rules(rng), hand=(1, 3), face_up=(0, 2),
                              face_down=(1, 2), pile=(0, 3))


def test_agrees_with_brute_force_on_graphs_of_hundreds_of_positions():
    """The brute force (repetition on the line = draw, exact fractions, a memo that is sound
    for that definition) against the Python reference, move by move and exactly, and the
    compiled solver. The reference's graph size is the graph the brute force covers."""
    sizes, moves, nontrivial, calls = [], 0, 0, 0
    for i in BRUTE_CASES:
        s = brute_case(i)
        g = PlainGraph(s, budget=4000)
        budget = [BRUTE_BUDGET]
        bf = brute_force_moves(s, budget, {}, g.components())
        calls += BRUTE_BUDGET - budget[0]
        ref = solve_exact(s, engine="python")
        assert ref.stats["nodes"] == len(g) and 200 <= len(g) <= 1200
        assert _moves(ref) == bf, i
        mine = [v[s.to_move] for v in bf.values()]
        assert len(set(mine)) >= 2 and any(0 < x < 1 for x in mine), (i, bf)
        assert _same_analysis(solve_exact(s, engine="cython"), ref, 1e-12)
        sizes.append(len(g))
        moves += len(bf)
        nontrivial += sum(0 < x < 1 for v in bf.values() for x in v)
    print(f"\n[brute force] positions {len(sizes)} (graphs of {min(sizes)}-{max(sizes)} "
          f"positions, {sum(sizes)} in all), root moves {moves}, non-trivial values "
          f"{nontrivial}, brute-force calls {calls}")


def test_brute_force_budget_bounds_it():
    s = brute_case(BRUTE_CASES[0])
    full = [10 ** 9]
    brute_force_moves(s, full, None)             # no memo: the plain line-by-line search
    used = 10 ** 9 - full[0]
    assert used > 1000
    budget = [used // 2]
    with pytest.raises(TooBig):
        brute_force_moves(s, budget, None)
    assert budget[0] == -1                       # it stopped at the first call past it
    budget = [used]
    brute_force_moves(s, budget, None)
    assert budget[0] == 0


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


def _rotated(s: State, k: int) -> State:
    """The same table with every seat moved k places on (player p sits at p + k)."""
    n = s.n
    t = s.clone()
    for p in range(n):
        q = (p + k) % n
        t.hands[q], t.face_up[q] = s.hands[p][:], s.face_up[p][:]
        t.face_down[q], t.out[q] = s.face_down[p], s.out[p]
    t.out_order = [(p + k) % n for p in s.out_order]
    t.to_move = (s.to_move + k) % n
    t.last_player = None if s.last_player is None else (s.last_player + k) % n
    t.check_cards()
    return t


def _start_cases():
    """Two-player positions with several moves, and three-player ones with cycles."""
    rng = random.Random(7)
    out = []
    while len(out) < 12:
        s = random_exact_state(rng, 2, random_rules(rng), hand=(1, 3), face_up=(0, 1),
                               face_down=(0, 1), pile=(1, 3))
        if len(s.legal_moves()) < 2:
            continue
        try:
            PlainGraph(s, budget=2000)
        except PlainTooBig:
            continue
        out.append(s)
    # Found by search: with a value that used a repetition kept in the table for other
    # lines, the deepening gave the pickup 0.5 (the draw of the line it was first met on).
    out.append(parse_position(REPETITION_TRAP).to_state())
    return out + [table_case(3, i) for i in (45, 88, 326, 695, 1436)]


REPETITION_TRAP = (
    "standard+five_low+back_to_last_player | 8 A / - / 0 ; 3 K / - / 0 | pile A 9 | burned "
    "2 2 2 2 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 9 9 9 10 10 10 10 J J J J Q Q Q Q "
    "K K K A A | draw 0 | to_move 0")


def _solve_from(s: State, engine: str):
    """The graph solvers, or iterative deepening run until every line ends (None when it
    does not within 60 plies)."""
    if engine != "deepening":
        return solve_exact(s, engine=engine)
    a = search_deepening(s, depth=60, hash_mb=4)
    return a if a.method == "exact" else None


@pytest.mark.parametrize("engine", ["python", "cython", "deepening"])
def test_values_do_not_depend_on_where_the_search_started(engine):
    """RULES.md: a value must not depend on the order in which the search met the
    positions. Each root move's position, solved as a root of its own (a graph met in
    another order), has the value that move has in the root's graph; the same table with
    the seats moved round has the same values, moved round. The deepening search meets
    repetitions on its lines: a value that used one must not be kept for other lines."""
    checked = 0
    for s in _start_cases():
        if engine == "deepening" and s.n > 2:
            continue                      # max-n to the end of every line: too slow here
        a = _solve_from(s, engine)
        if a is None:
            continue
        by_move = _moves(a)
        if engine == "deepening":         # and the graph solver is a second algorithm
            graph = _moves(solve_exact(s, engine="cython"))
            assert all(_close(graph[x], by_move[x], 1e-9) for x in graph), s.describe()
        for m in s.legal_moves():
            c = s.clone()
            c.apply(m)
            if c.is_chance() or c.is_terminal():
                continue
            b = _solve_from(c, engine)
            assert b is not None
            assert _close(b.loss, by_move[str(m)], 1e-9), (s.describe(), str(m))
            checked += 1
        for k in range(1, s.n):
            r = _solve_from(_rotated(s, k), engine)
            turn = lambda v: [v[(p - k) % s.n] for p in range(s.n)]  # noqa: E731
            assert _close(r.loss, turn(a.loss), 1e-9)
            rm = _moves(r)
            assert set(rm) == set(by_move)
            assert all(_close(rm[x], turn(by_move[x]), 1e-9) for x in by_move)
    assert checked >= (10 if engine == "deepening" else 20)


def test_cards_under_the_top_run_play_no_role():
    rng = random.Random(7)
    checked = 0
    while checked < 10:
        s = random_exact_state(rng, 2, Rules(), hand=(1, 2), face_up=(0, 1), face_down=(0, 1),
                               pile=(3, 4))
        k = s.top_run()
        rest = s.pile[:-k]
        moved = rest[1:] + rest[:1]
        if moved == rest:
            continue
        t = s.clone()
        t.pile = moved + s.pile[-k:]
        assert t.pile != s.pile and t.key() == s.key()
        a, c = solve_exact(s, engine="cython"), solve_exact(t, engine="cython")
        assert c.loss == a.loss and _moves(c) == _moves(a)
        checked += 1


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


def test_the_fallback_values_its_horizon_with_the_network_and_says_so():
    """The depth-limited fallback stops at the learned value (deepening.HORIZON), not the
    card count; either gives exact figures to the moves it resolves, the compiled core's
    evaluation mode comes back afterwards, and the stats name the value used."""
    from palace_solver import _engine
    from palace_solver.solve.deepening import HORIZON

    rng = random.Random(5)
    s = random_exact_state(rng, 2, Rules(), hand=(3, 3), face_up=(3, 3), face_down=(3, 3),
                           pile=(2, 2))
    before = _engine.get_eval_mode()
    net = solve_exact(s, engine="cython", depth=3)
    assert _engine.get_eval_mode() == before
    card = solve_exact(s, engine="cython", depth=3, horizon=("cardcount", ""))
    assert HORIZON == ("learned", "gen4")
    assert net.stats["horizon"] == "the learned value (network gen4)"
    assert card.stats["horizon"] == "the card count"
    open_net = {str(m.move): m.loss for m in net.moves if m.resolved is False}
    open_card = {str(m.move): m.loss for m in card.moves if m.resolved is False}
    assert open_net and open_net.keys() == open_card.keys() and open_net != open_card
    for m in card.moves:        # a resolved figure does not depend on the horizon
        if m.resolved:
            assert [x.loss for x in net.moves if x.move == m.move] == [m.loss]


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

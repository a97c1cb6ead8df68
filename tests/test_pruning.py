"""The depth-limited search prunes without changing values.

Without the table, alpha-beta with Star1, and Star2's probes, must return at every depth
exactly what plain expectiminimax (every move, every outcome) returns: pruning only skips
work. With the table, a search that reports every line ended must equal the exact graph
solver, whichever probing is on.
"""
from __future__ import annotations

import random

import pytest
from exact_gen import random_exact_state, random_rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palace_solver.solve.deepening import (
    STAR2_OFF,
    STAR2_SEARCH,
    STAR2_TABLE,
    search_deepening,
)
from palace_solver.solve.engine import _module
from palace_solver.solve.solver import solve_exact

SMALL = dict(hand=(0, 3), face_up=(0, 2), face_down=(0, 2), pile=(0, 3))
TINY = dict(hand=(0, 2), face_up=(0, 1), face_down=(0, 2), pile=(0, 2))
MODES = {"plain": None, "star1": STAR2_OFF, "star2-table": STAR2_TABLE,
         "star2-search": STAR2_SEARCH}


def _values(state, depth, mode, table):
    eng = _module()
    s = eng.DeepSearch(eng.CState.from_state(state), 1.0)
    s.use_table = table
    if MODES[mode] is None:
        s.plain = True
    else:
        s.star2 = MODES[mode]
    complete, moves = s.iterate(depth, 0.0)
    return [str(m) for m, _ in moves], [v[0] for _, v in moves], s


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 9))
def test_pruning_without_table_equals_plain_expectiminimax(seed, depth):
    rng = random.Random(seed)
    state = random_exact_state(rng, 2, random_rules(rng), **SMALL)
    if state.is_terminal():
        return
    moves, plain, _ = _values(state, depth, "plain", False)
    for mode in ("star1", "star2-search"):
        m, vals, _ = _values(state, depth, mode, False)
        assert m == moves
        assert all(abs(a - b) <= 1e-9 for a, b in zip(vals, plain)), (mode, vals, plain)


def test_star2_probes_and_cuts_happen():
    # The parity above must not hold merely because nothing was pruned.
    rng = random.Random(4)
    probes = cuts = 0
    for _ in range(40):
        state = random_exact_state(rng, 2, **SMALL)
        if state.is_terminal():
            continue
        _, _, s = _values(state, 6, "star2-search", False)
        probes += s.probes
        cuts += s.star2_cuts
    assert probes > 0 and cuts > 0


@pytest.mark.parametrize("star2", [STAR2_OFF, STAR2_TABLE, STAR2_SEARCH])
def test_complete_search_equals_exact_graph_under_every_probing(star2):
    rng = random.Random(100 + star2)
    checked = 0
    for _ in range(25):
        state = random_exact_state(rng, 2, random_rules(rng), **TINY)
        if state.is_terminal():
            continue
        a = search_deepening(state, depth=40, hash_mb=4, star2=star2)
        if a.method != "exact":
            continue
        b = solve_exact(state, engine="cython")
        got = {str(m.move): m.loss for m in a.moves}
        exp = {str(m.move): m.loss for m in b.moves}
        assert set(got) == set(exp)
        for k in exp:
            assert all(abs(float(x) - float(y)) <= 1e-9 for x, y in zip(got[k], exp[k])), k
        checked += 1
    assert checked >= 10

"""The solvers against separate, plain implementations of their definitions
(tests/plain_solvers.py), on positions chosen to be hard: several legal moves whose values
differ for the mover, and values strictly between 0 and 1.

- Three and four players: value iteration over the whole graph with exact fractions, from
  the draw value (the definition of docs/spec/RULES.md), node by node against the Python reference and
  move by move against the compiled solver.
- Depth-limited search: plain recursive expectiminimax with the same horizon evaluation,
  against the compiled search's root move values at every depth up to 6 without the table
  (with its pruning, and in its own plain mode); with the table, the same best move
  whenever the plain values separate it by more than 1e-9.

Each test prints what it covered (``pytest -s``): positions, moves, values strictly between
0 and 1.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from evalmode import cardcount_eval
from exact_gen import random_exact_state, random_rules, table_case
from plain_solvers import PlainGraph, PlainSearch, TooBig, horizon_eval

from palace_solver.game.rules import Rules
from palace_solver.solve.engine import _module
from palace_solver.solve.exact import ExactSolver
from palace_solver.solve.solver import solve_exact

#: Indices of :func:`random_table_state` draws (seeded ``table-N-I``) whose positions are
#: hard and whose graphs hold at most 3,000 positions; the test checks both. Several
#: three-player ones need 3 to 15 rounds of value iteration (values moving round cycles).
CASES_NP = ([(3, i) for i in (45, 53, 57, 88, 104, 199, 233, 314, 326, 695, 867, 1399,
                              1436)]
            + [(4, i) for i in (213, 275, 459, 626, 1028, 1336)])


def _hard(values: dict, mover: int) -> bool:
    mine = [v[mover] for v in values.values()]
    return len(values) >= 2 and max(mine) - min(mine) > 1e-9 and all(0 < x < 1 for x in mine)


def _nontrivial(values) -> int:
    return sum(0 < x < 1 for v in values for x in v)


def test_three_and_four_players_equal_plain_value_iteration():
    positions, moves, nontrivial, nodes, node_nontrivial = Counter(), 0, 0, 0, 0
    rounds = Counter()
    for n, i in CASES_NP:
        s = table_case(n, i)
        assert not any(s.out)
        g = PlainGraph(s, budget=3000).solve()
        plain = g.root_moves()
        mover = s.to_move
        mine = [v[mover] for v in plain.values()]
        assert len(plain) >= 2 and len(set(mine)) >= 2, (n, i, plain)
        assert any(0 < x < 1 for x in mine), (n, i, plain)
        # The Python reference, node by node (exact fractions).
        ref = ExactSolver(s)
        ref.solve()
        assert len(ref.states) == len(g)
        for u, st in enumerate(g.states):
            assert tuple(ref.value[ref.ids[st.key()]]) == g.value[u], (n, i, st.describe())
        a = ref.analysis()
        assert {str(m.move): tuple(m.loss) for m in a.moves} == plain
        assert a.best_move is not None and plain[str(a.best_move)][mover] == min(mine)
        # The compiled graph solver, node by node (doubles): the flat graph, a node a
        # position (the merged one is checked against the reference in test_exact_merge.py,
        # and its answer just below).
        eng = _module()
        cg = eng.ExactGraph(eng.CState.from_state(s), 1, True, False)
        assert cg.build(max_nodes=10 ** 6)
        cg.solve()
        assert cg.node_count() == len(g)
        seen, todo = {0}, [0]            # a node's state is known once an edge reaches it
        while todo:
            u = todo.pop()
            want = g.value[g.ids[cg.node_state(u).key()]]
            assert all(abs(float(x) - y) <= 1e-12 for x, y in zip(want, cg.node_value(u))), (
                n, i, u)
            for _, outs in cg.node_edges(u):
                for _, t in outs:
                    if not isinstance(t, tuple) and t not in seen:
                        seen.add(t)
                        todo.append(t)
        assert len(seen) == len(g)
        # The compiled solver's answer, move by move.
        c = solve_exact(s, engine="cython")
        assert c.method == "exact"
        got = {str(m.move): m.loss for m in c.moves}
        assert set(got) == set(plain)
        for k, v in plain.items():
            assert all(abs(float(x) - y) <= 1e-12 for x, y in zip(v, got[k])), (n, i, k)
            assert sum(v) == 1
        positions[n] += 1
        rounds[g.sweeps] += 1
        moves += len(plain)
        nontrivial += _nontrivial(plain.values())
        nodes += len(g)
        node_nontrivial += sum(any(0 < x < 1 for x in v) for v in g.value)
    print(f"\n[independent n-player] positions {dict(positions)}, root moves {moves}, "
          f"non-trivial move values {nontrivial}, graph positions {nodes}, "
          f"positions with a non-trivial value {node_nontrivial}, positions by the most "
          f"rounds of value iteration that changed a value {dict(sorted(rounds.items()))}")


# -- depth-limited search --------------------------------------------------------------------

def _compiled_root(state, depth, *, table, plain=False, search=None):
    eng = _module()
    s = search or eng.DeepSearch(eng.CState.from_state(state), 1.0)
    s.use_table = table
    s.plain = plain
    complete, moves = s.iterate(depth, 0.0)
    return {str(m): v for m, v in moves}


def _two_and_three(rng, two: int, three: int) -> list:
    """``(players, state)`` cases of :func:`_depth_cases`: ``two`` of 2 players, then
    ``three`` of 3."""
    return [(2, s) for s in _depth_cases(rng, 2, two)] + \
        [(3, s) for s in _depth_cases(rng, 3, three)]


def _same_root_values(plain: dict, got: dict, where) -> int:
    """The compiled root moves are plain's, in its order, with its values to 1e-12; the
    number of moves compared."""
    assert list(got) == list(plain), where
    for k, v in plain.items():
        assert all(abs(x - y) <= 1e-12 for x, y in zip(v, got[k])), (where, k)
    return len(plain)


def _same_best_with_table(s, depth, plain, deep) -> int:
    """With the table on (``deep``, deepened one depth at a time), the best move is
    plain's when plain has a single best: 1 when checked, 0 when plain has a tie."""
    mover = s.to_move
    tab = _compiled_root(s, depth, table=True, search=deep)
    mine = sorted(v[mover] for v in plain.values())
    if mine[1] - mine[0] <= 1e-9:
        return 0
    best = min(plain, key=lambda k: plain[k][mover])
    assert min(tab, key=lambda k: tab[k][mover]) == best, (depth, plain, tab)
    return 1


def _depth_cases(rng, n, count):
    out = []
    while len(out) < count:
        s = random_exact_state(rng, n, random_rules(rng), hand=(1, 3), face_up=(0, 3),
                               face_down=(1, 3), pile=(0, 3))
        if len(s.legal_moves()) < 2:
            continue
        search = PlainSearch(budget=20000)
        try:
            v6 = search.root(s, 6)
        except TooBig:
            continue
        if _hard(v6, s.to_move):
            out.append(s)
    return out


def test_depth_limited_search_equals_plain_expectiminimax():
    # PlainSearch mirrors the card-count horizon evaluation: force it, whatever the default
    with cardcount_eval():
        _depth_limited_search_equals_plain_expectiminimax()


def _depth_limited_search_equals_plain_expectiminimax():
    rng = random.Random(2026)
    cases = _two_and_three(rng, 24, 8)
    eng = _module()
    positions, compared, nontrivial, nodes, best_checked, evals = Counter(), 0, 0, 0, 0, 0
    for n, s in cases:
        deep = eng.DeepSearch(eng.CState.from_state(s), 1.0)   # table on, deepening
        for d in range(1, 7):
            search = PlainSearch()
            plain = search.root(s, d)
            nodes += search.calls
            for flag in (False, True):
                got = _compiled_root(s, d, table=False, plain=flag)
                compared += _same_root_values(plain, got, (n, d, flag))
            nontrivial += _nontrivial(plain.values())
            # The table on, deepening one depth at a time as the solver does.
            best_checked += _same_best_with_table(s, d, plain, deep)
            # The horizon evaluation itself, against the compiled one.
            for st, v in search.horizon[:5]:
                e = eng.eval_position(eng.CState.from_state(st))
                assert all(abs(x - y) <= 1e-15 for x, y in zip(e, v))
                evals += 1
        positions[n] += 1
    print(f"\n[independent depth-limited] positions {dict(positions)}, depths 1-6, "
          f"root move values compared {compared}, non-trivial {nontrivial}, plain decision "
          f"nodes {nodes}, best moves checked with the table {best_checked}, horizon "
          f"evaluations cross-checked {evals}")


def _walk_positions(s, rng, walks=12, plies=4):
    """Decision positions met on random lines from ``s`` (chance outcomes drawn by weight),
    the root's own children first: candidates for a game's history."""
    found = {}
    for m in s.legal_moves():
        c = s.clone()
        c.apply(m)
        if not c.is_terminal() and not c.is_chance():
            found.setdefault(c.key(), c)
    for _ in range(walks):
        c = s.clone()
        for _ in range(plies):
            while c.is_chance() and not c.is_terminal():
                outs = c.chance_outcomes()
                c.apply(rng.choices([r for r, _ in outs], [w for _, w in outs])[0])
            if c.is_terminal():
                break
            c.apply(rng.choice(c.legal_moves()))
            if not c.is_terminal() and not c.is_chance():
                found.setdefault(c.key(), c)
    return list(found.values())


def test_search_with_the_games_history_equals_plain_expectiminimax():
    # A game ends at its first repeated position: with the positions already played given
    # (DeepSearch.set_history), reaching one is a draw, and a mover at the horizon takes a
    # draw one move away when it is better for them. PlainSearch(history=...) is the
    # definition, with the card-count horizon evaluation.
    with cardcount_eval():
        _search_with_history()


def _search_with_history(seed=4242, two=12, contempt=0.0):
    """Compiled against PlainSearch on random 2- and 3-player cases with a history of up to
    4 positions near the root, depths 1-4, with and without the table; ``contempt`` for
    both. The history (or, with contempt, the contempt) must change 20 values at least."""
    rng = random.Random(seed)
    cases = _two_and_three(rng, two, 4)
    eng = _module()
    compared = changed = best_checked = 0
    for n, s in cases:
        near = _walk_positions(s, rng)
        hist = rng.sample(near, min(len(near), 4))
        keys = [h.key() for h in hist]
        deep = eng.DeepSearch(eng.CState.from_state(s), 1.0)
        deep.set_history([eng.CState.from_state(h) for h in hist])
        deep.contempt = contempt
        for d in range(1, 5):
            plain = PlainSearch(history=keys, contempt=contempt).root(s, d)
            base = (PlainSearch(history=keys) if contempt else PlainSearch()).root(s, d)
            changed += sum(any(abs(x - y) > 1e-12 for x, y in zip(plain[k], base[k]))
                           for k in plain)
            for flag in (False, True):
                search = eng.DeepSearch(eng.CState.from_state(s), 1.0)
                search.set_history([eng.CState.from_state(h) for h in hist])
                search.contempt = contempt
                got = _compiled_root(s, d, table=False, plain=flag, search=search)
                compared += _same_root_values(plain, got, (n, d, flag))
            # The table on, deepening one depth at a time: values that used the history
            # must not be kept for other lines.
            best_checked += _same_best_with_table(s, d, plain, deep)
            for v in plain.values():
                assert abs(sum(v) - 1) < 1e-12 and all(-1e-12 <= x <= 1 + 1e-12 for x in v)
    # the history (the contempt) must matter here, or this test would check nothing new
    assert changed >= 20, changed
    what = "contempt" if contempt else "history"
    print(f"\n[independent {what}] positions {len(cases)}, depths 1-4, root move values "
          f"compared {compared}, changed by the {what} {changed}, best moves checked with "
          f"the table {best_checked}")


def test_search_with_contempt_equals_plain_expectiminimax_with_contempt():
    # A draw-averse agent (DeepSearch.contempt): every repetition, of the line or of the
    # game's history, and every draw taken at the horizon count 0.1 worse for the root's
    # mover and 0.1 / (players in - 1) better for each other one. PlainSearch(contempt=...)
    # is the definition; the table must keep none of it (a value that used a repetition is
    # never stored), which the deepening with the table checks.
    with cardcount_eval():
        _search_with_history(seed=9191, two=10, contempt=0.1)


def test_paranoid_search_equals_plain_paranoid_expectiminimax():
    # Three and four players with DeepSearch.paranoid: the two-player search (alpha-beta,
    # Star1/Star2, the table) on the root mover's loss, every other mover maximising it.
    # PlainSearch(paranoid=True) is the definition: its root mover's figure, move by move,
    # with and without pruning, with a game's history and contempt too; the others get the
    # rest in equal shares. It must differ from max-n somewhere, or this checks nothing.
    with cardcount_eval():
        _paranoid_search()


def _paranoid_search():
    rng = random.Random(5150)
    cases = [(3, s) for s in _depth_cases(rng, 3, 8)] + [(4, s) for s in _depth_cases(rng, 4, 4)]
    eng = _module()
    compared = differs = best_checked = 0
    for n, s in cases:
        me = s.to_move
        near = _walk_positions(s, rng)
        hist = rng.sample(near, min(len(near), 3))
        contempt = rng.choice((0.0, 0.1))
        deep = eng.DeepSearch(eng.CState.from_state(s), 1.0)
        deep.paranoid = True
        for d in range(1, 6):
            plain = PlainSearch(paranoid=True).root(s, d)
            maxn = PlainSearch().root(s, d)
            differs += sum(abs(plain[k][me] - maxn[k][me]) > 1e-12 for k in plain)
            for flag in (False, True):
                search = eng.DeepSearch(eng.CState.from_state(s), 1.0)
                search.paranoid = True
                got = _compiled_root(s, d, table=False, plain=flag, search=search)
                assert list(got) == list(plain), (n, d, flag)
                for k, v in got.items():
                    assert abs(v[me] - plain[k][me]) <= 1e-12, (n, d, flag, k)
                    assert abs(sum(v) - 1) <= 1e-12 and all(x >= -1e-12 for x in v)
                compared += len(got)
            tab = _compiled_root(s, d, table=True, search=deep)
            mine = sorted(v[me] for v in plain.values())
            if mine[1] - mine[0] > 1e-9:
                best = min(plain, key=lambda k: plain[k][me])
                assert min(tab, key=lambda k: tab[k][me]) == best, (n, d)
                best_checked += 1
        # with the game's history and contempt
        keys = [h.key() for h in hist]
        for d in range(1, 4):
            plain = PlainSearch(history=keys, contempt=contempt, paranoid=True).root(s, d)
            search = eng.DeepSearch(eng.CState.from_state(s), 1.0)
            search.paranoid = True
            search.set_history([eng.CState.from_state(h) for h in hist])
            search.contempt = contempt
            got = _compiled_root(s, d, table=False, search=search)
            for k, v in got.items():
                assert abs(v[me] - plain[k][me]) <= 1e-12, (n, d, "history", k)
            compared += len(got)
    assert differs >= 10, differs
    print(f"\n[independent paranoid] positions {len(cases)}, root move values compared "
          f"{compared}, differing from max-n {differs}, best moves checked with the table "
          f"{best_checked}")


def test_search_with_seats_that_play_as_the_greedy_bot_equals_plain_expectiminimax():
    # DeepSearch.greedy_seats (decide.pxi's model_styles): those seats' decisions below the
    # root have the greedy bot's move alone. PlainSearch(greedy_seats=...) is the
    # definition, with the pure-Python bot: two and three players, max-n and paranoid, with
    # and without pruning, the table, and a game's history. It must differ from the search
    # without them somewhere, or this checks nothing.
    with cardcount_eval():
        _greedy_seats_search()


def _greedy_seats_search():
    rng = random.Random(7070)
    cases = _two_and_three(rng, 10, 6)
    eng = _module()
    compared = differs = best_checked = 0
    for n, s in cases:
        me = s.to_move
        others = [q for q in range(n) if q != me]
        seats = frozenset(rng.sample(others, rng.randint(1, len(others))))
        mask = sum(1 << q for q in seats)
        paranoid = n > 2 and rng.random() < 0.5
        deep = eng.DeepSearch(eng.CState.from_state(s), 1.0)
        deep.greedy_seats, deep.paranoid = mask, paranoid
        for d in range(1, 6):
            plain = PlainSearch(greedy_seats=seats, paranoid=paranoid).root(s, d)
            free = PlainSearch(paranoid=paranoid).root(s, d)
            differs += sum(abs(plain[k][me] - free[k][me]) > 1e-12 for k in plain)
            for flag in (False, True):
                search = eng.DeepSearch(eng.CState.from_state(s), 1.0)
                search.greedy_seats, search.paranoid = mask, paranoid
                got = _compiled_root(s, d, table=False, plain=flag, search=search)
                if paranoid:        # (only the root mover's figure is the search's)
                    assert list(got) == list(plain), (n, d, flag)
                    assert all(abs(v[me] - plain[k][me]) <= 1e-12 for k, v in got.items())
                    compared += len(got)
                else:
                    compared += _same_root_values(plain, got, (n, d, flag))
            best_checked += _same_best_with_table(s, d, plain, deep)
        # with the game's history
        near = _walk_positions(s, rng)
        hist = rng.sample(near, min(len(near), 3))
        for d in range(1, 4):
            plain = PlainSearch(history=[h.key() for h in hist], greedy_seats=seats,
                                paranoid=paranoid).root(s, d)
            search = eng.DeepSearch(eng.CState.from_state(s), 1.0)
            search.greedy_seats, search.paranoid = mask, paranoid
            search.set_history([eng.CState.from_state(h) for h in hist])
            got = _compiled_root(s, d, table=False, search=search)
            for k, v in got.items():
                assert abs(v[me] - plain[k][me]) <= 1e-12, (n, d, "history", k)
            compared += len(got)
    assert differs >= 10, differs
    print(f"\n[independent greedy seats] positions {len(cases)}, root move values compared "
          f"{compared}, changed by the seats {differs}, best moves checked with the table "
          f"{best_checked}")


def test_plain_horizon_evaluation_is_the_documented_formula():
    # Two players, 3 cards against 1 face-down card (1.5): 1 / (1 + exp(-0.35 * 1.5)).
    s = random_exact_state(random.Random(1), 2, Rules(), hand=(3, 3), face_up=(0, 0),
                           face_down=(0, 0), pile=(0, 0))
    s.hands[1] = [0] * len(s.hands[1])
    s.face_down[1] = 1
    v = horizon_eval(s)
    assert v[0] == pytest.approx(1 / (1 + math.exp(-0.35 * 1.5)), abs=1e-15)
    assert v[0] + v[1] == pytest.approx(1.0, abs=1e-15)
    assert Fraction(1, 2) < Fraction(v[0])


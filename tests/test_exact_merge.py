"""Merged positions in the compiled exact graph: one node for the positions that differ only
by which ranks of a run of interchangeable ranks were burned (ext/exact.pxi, "Merged
positions").

The check is the definition: every position of the game below the root, reached through
the node that stands for it, has that node's value in the Python reference solver, which
merges nothing.
"""
from __future__ import annotations

import random

import pytest
from exact_gen import random_exact_state, random_rules, walk_against_reference

from palace_solver import _engine as eng
from palace_solver.game.cards import rank_name
from palace_solver.game.position import parse_position
from palace_solver.game.rules import Rules
from palace_solver.solve.exact import ExactSolver
from palace_solver.solve.line import line_from_graph

DECK = "2 3 4 5 6 7 8 9 10 J Q K A".split()
SIZE = dict(hand=(0, 2), face_up=(0, 2), face_down=(0, 2), pile=(0, 3))


def _solved(s, merge):
    g = eng.ExactGraph(eng.CState.from_state(s), 1, True, merge)
    assert g.build()
    g.solve()
    return g


def _same_answer(g, flat, exact):
    """The root's values and move values of two graphs: the same doubles with three players
    or more (the relabelling keeps every order there), equal but for rounding with two (a
    flip's outcomes are summed in another order)."""
    if exact:
        assert g.root_value() == flat.root_value() and g.root_moves() == flat.root_moves()
        return
    assert g.root_value() == pytest.approx(flat.root_value(), abs=1e-12)
    assert [str(m) for m, _ in g.root_moves()] == [str(m) for m, _ in flat.root_moves()]
    for (_, a), (_, b) in zip(g.root_moves(), flat.root_moves()):
        assert a == pytest.approx(b, abs=1e-12)


def _merged_cases(seed, k):
    """k random positions (random variants) whose merged graph has fewer nodes than the
    flat one, with that graph; the root's answer is checked against the flat graph's."""
    rng = random.Random(seed)
    merged = tries = 0
    while merged < k:
        tries += 1
        assert tries < 2000, f"only {merged} positions with merged nodes"
        n = rng.choice((2, 2, 3))
        s = random_exact_state(rng, n, random_rules(rng), **SIZE)
        flat = eng.ExactGraph(eng.CState.from_state(s), 1, True, False)
        if not flat.build(max_nodes=5000):
            continue
        flat.solve()
        g = _solved(s, True)
        assert g.stats()["merged"] and not flat.stats()["merged"]
        _same_answer(g, flat, exact=n > 2)
        if g.node_count() == flat.node_count():
            continue
        assert g.node_count() < flat.node_count()
        merged += 1
        yield s, g


def test_every_position_has_the_value_of_the_node_that_stands_for_it():
    for s, g in _merged_cases(11, 20):
        ref = ExactSolver(s)
        ref.solve()
        # and the walk met every position of the reference solver's graph
        assert walk_against_reference(g, s, ref) == len(ref.states)


def _replay(line, here):
    for node in line:
        assert node.move in [str(m) for m in here.legal_moves()]
        after = here.clone()
        after.apply(node.move)
        outcomes = after.chance_outcomes() if after.is_chance() else []
        if not node.branches:
            assert len(outcomes) <= 1      # a flip that can turn up one rank only
            if outcomes:
                after.apply(outcomes[0][0])
            here = after
            continue
        assert len(node.branches) == len(outcomes)
        for (label, p, sub), (rank, w) in zip(node.branches, outcomes):
            assert label.startswith(f"turns up {rank_name(rank)}") and p == float(w)
            c = after.clone()
            c.apply(rank)
            _replay(sub, c)


def test_the_best_line_is_played_from_the_position_itself():
    # a merged node's moves are those of the line's own position, not of another it
    # stands for
    for s, g in _merged_cases(12, 10):
        line = line_from_graph(g, max_plies=40, max_nodes=400)
        assert line
        _replay(line, eng.CState.from_state(s))


def test_with_three_players_a_tie_keeps_the_real_move_order():
    # p2's 10 and A both leave p2 unbeaten after p1's 8; the first in legal-move order (10)
    # decides who loses. A relabelling that puts A (in 3-9 and J-A's class) below the 10
    # would pick the A and swap p0's and p1's losses.
    held = ["J", "8", "9", "J", "10", "A"]
    rest = [r for r in DECK for _ in range(4)]
    for r in held:
        rest.remove(r)
    s = parse_position(f"standard | J / - / 0 ; 8 9 J / - / 0 ; 10 A / - / 0 | "
                       f"burned {' '.join(rest)} | draw 0 | to_move 1").to_state()
    want = ExactSolver(s).analysis()
    g = _solved(s, True)
    assert g.stats()["merged"]
    got = dict((str(m), v) for m, v in g.root_moves())
    for mv in want.moves:
        assert got[str(mv.move)] == [float(x) for x in mv.loss], mv.move
    assert g.root_value() == [float(x) for x in want.loss]


def test_a_game_history_turns_merging_off():
    # a position like one of the history is not a repetition of it
    rng = random.Random(5)
    while True:
        s = random_exact_state(rng, 2, Rules(), **SIZE)
        flat = eng.ExactGraph(eng.CState.from_state(s), 1, True, False)
        if not flat.build(max_nodes=5000):
            continue
        if _solved(s, True).node_count() < flat.node_count():
            break
    g = eng.ExactGraph(eng.CState.from_state(s))
    assert g.set_history([eng.CState.from_state(s)]) == 1
    assert g.build()
    assert not g.stats()["merged"] and g.node_count() == flat.node_count()

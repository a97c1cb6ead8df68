"""Sampled analysis (determinization): figures, intervals, seeds, jobs, the whole game.

The coverage test needs a truth that the sampled figures estimate. Determinization reports,
per move, the mean over sampled deals of the exact value of that move in the deal. On tiny
positions every consistent deal can be listed with its probability
(:func:`consistent_deals`), so the expectation of that per-deal exact value is computed
exactly; the 95% intervals must contain it at about their stated rate.
"""
from __future__ import annotations

import json
import random

import pytest
from exact_gen import random_exact_state

from palace_solver.analysis import analyze
from palace_solver.game.position import Position, from_text
from palace_solver.sample.sampled import analyze_sampled
from palace_solver.sample.sampler import consistent_deals, state_with_hands
from palace_solver.sample.stats import mean_ci, t975
from palace_solver.solve.solver import solve_exact

LATE = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
        "| burned 10 4 4 4 4 | draw 27 | to_move 0")


def hidden_tiny(rng: random.Random) -> Position:
    """A tiny exact-mode deal (at most 6 cards in play, so that every deal solves in
    milliseconds) with some of the other player's hand cards hidden."""
    while True:
        s = random_exact_state(rng, hand=(1, 3), face_up=(0, 1), face_down=(0, 1),
                               pile=(0, 2))
        if sum(map(sum, s.hands)) + sum(map(sum, s.face_up)) + sum(s.face_down) <= 6:
            break
    pos = Position.from_state(s)
    other = pos.players[1 - pos.to_move]
    keep = rng.randrange(len(other.hand_known))
    other.hand_known = other.hand_known[:keep]
    return pos.validate()


def expected_values(pos: Position) -> dict:
    """Move text -> the exact expectation over consistent deals of its per-deal value."""
    out: dict = {}
    for deal, p in consistent_deals(pos):
        a = solve_exact(state_with_hands(pos, deal))
        for m in a.moves:
            out.setdefault(str(m.move), []).append((p, [float(x) for x in m.loss]))
    return out


def test_intervals_cover_the_expected_value():
    rng = random.Random(2024)
    cases = covered = 0
    while cases < 200:
        pos = hidden_tiny(rng)
        truth = expected_values(pos)
        mover = pos.to_move
        a = analyze_sampled(pos, samples=16, seed=cases, exact_cards=100)
        first = a.stats["move_ci95"]
        move = next(iter(truth))
        vals = [v[mover] for _, v in truth[move]]
        if max(vals) - min(vals) < 1e-12:
            continue                      # every deal agrees: nothing to estimate
        mean = sum(float(p) * v[mover] for p, v in truth[move])
        lo, hi = first[move][mover]
        cases += 1
        covered += lo - 1e-12 <= mean <= hi + 1e-12
    # 95% intervals: binomial(200, 0.95) is below 176 with probability < 0.1%; t intervals
    # from 16 skewed values run a little under their nominal rate (about 92% here).
    assert covered >= 0.88 * cases, (covered, cases)


def test_all_known_hands_give_the_exact_values():
    rng = random.Random(5)
    for _ in range(5):
        s = random_exact_state(rng, hand=(1, 2), face_up=(0, 1), face_down=(0, 2))
        pos = Position.from_state(s)
        ex = solve_exact(s)
        sa = analyze(pos, method="sampled", samples=8)
        assert sa.method == "sampled" and sa.samples == 1
        want = {str(m.move): [float(x) for x in m.loss] for m in ex.moves}
        got = {str(m.move): m.loss for m in sa.moves}
        assert want.keys() == got.keys()
        for k in want:
            assert got[k] == pytest.approx(want[k])
        assert sa.ci95 == [(x, x) for x in sa.loss]


def _check_figures(a):
    for fig in [a.loss] + [m.loss for m in a.moves]:
        assert abs(sum(fig) - 1) < 1e-9
        assert all(0 <= x <= 1 for x in fig)
    for (lo, hi), x in zip(a.ci95, a.loss):
        assert 0 <= lo <= x <= hi <= 1


def test_whole_game_from_the_first_turn():
    """A full deal: hidden opponent hand, 34 cards in the draw pile."""
    pos = from_text("me: 3 5 9 / K A 2 / 3 ; bob: ?3 / Q 10 7 / 3 | draw 34 | to_move 0")
    a = analyze(pos, samples=6, seed=1)
    assert a.method == "search" and a.samples == 6   # the engine's search (the default)
    _check_figures(a)
    assert {str(m.move) for m in a.moves} == {"3", "5", "9"}
    js = a.to_json()
    assert js["samples"] == 6 and len(js["ci95"]) == 2
    _check_move_cis(js, 2)
    json.dumps(js)


def _check_move_cis(js: dict, n: int) -> None:
    """POSITION.md: each entry of a sampled answer's ``moves`` carries its own ``ci95``, one
    [lo, hi] per player, around that move's figures."""
    assert js["moves"]
    for m in js["moves"]:
        assert len(m["ci95"]) == n, m
        for (lo, hi), x in zip(m["ci95"], m["loss_probability"]):
            assert 0 <= lo <= x <= hi <= 1, m
        assert m["ci95"] == js["stats"]["move_ci95"][m["move"]]
    best = js["moves"][0]
    assert best["ci95"] == js["ci95"] and best["loss_probability"] == js["loss_probability"]


def test_every_move_of_a_sampled_answer_has_its_interval():
    pos = from_text(LATE)
    for method in ("sampled", "ismcts"):
        js = analyze(pos, method=method, samples=40, seed=2).to_json()
        _check_move_cis(js, 2)
        assert len(js["moves"]) >= 2
        # Not the position's interval copied: the moves' intervals differ.
        assert len({json.dumps(m["ci95"]) for m in js["moves"]}) > 1
    # Every hand known: one exact solve, zero-width intervals on every move.
    s = random_exact_state(random.Random(4), hand=(1, 2), face_up=(0, 1), face_down=(0, 1))
    js = analyze(Position.from_state(s), method="sampled", samples=4).to_json()
    _check_move_cis(js, 2)
    assert len(js["moves"]) == 3
    assert all(lo == hi for m in js["moves"] for lo, hi in m["ci95"])
    # Exact answers carry no intervals.
    assert all("ci95" not in m for m in analyze(Position.from_state(s)).to_json()["moves"])


def test_seed_and_jobs():
    pos = from_text(LATE)
    a = analyze_sampled(pos, samples=8, seed=3)
    b = analyze_sampled(pos, samples=8, seed=3, jobs=2)
    c = analyze_sampled(pos, samples=8, seed=4)
    assert a.to_json()["moves"] == b.to_json()["moves"]
    assert a.ci95 == b.ci95
    assert a.to_json()["moves"] != c.to_json()["moves"]
    _check_figures(a)


def test_progress_and_time_budget():
    pos = from_text(LATE)
    calls = []
    a = analyze_sampled(pos, time_budget=0.3, seed=1, progress=lambda d, t: calls.append((d, t)))
    assert a.samples == len(calls) >= 1 and calls[-1] == (a.samples, None)
    calls.clear()
    analyze_sampled(pos, samples=3, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_bad_method():
    with pytest.raises(ValueError, match="unknown analysis method"):
        analyze_sampled(from_text(LATE), method="magic")


def test_mean_ci():
    assert mean_ci([0.5]) == (0.5, 0.0, 1.0)
    m, lo, hi = mean_ci([1.0] * 30)
    assert m == 1.0 and hi == 1.0 and lo == pytest.approx(0.9)
    m, lo, hi = mean_ci([0, 1] * 50)
    assert m == 0.5 and hi - lo == pytest.approx(2 * t975(99) * 0.5025 / 10, rel=1e-3)
    assert t975(1) == 12.706 and abs(t975(1000) - 1.9623) < 1e-3

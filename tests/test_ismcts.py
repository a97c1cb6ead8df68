"""SO-ISMCTS: figures, seeds, visits, and the obvious move on hand-built positions."""
from __future__ import annotations

import pytest

from palace_solver.analysis import analyze
from palace_solver.game.position import from_text
from palace_solver.sample.ismcts import ismcts_tree
from palace_solver.sample.sampled import analyze_sampled

LATE = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
        "| burned 10 4 4 4 4 | draw 27 | to_move 0")
# My last card is a 10: playing it burns and wins; picking up the pile loses for sure.
_REST = " ".join(["2"] * 3 + [r for r in "3 4 5 6 7 8 9 J Q K".split() for _ in range(4)]
                 + ["10"] * 3 + ["A"] * 2)
WIN = from_text(f"me: 10 / - / 0 ; bob: ?2 / - / 0 | pile 2 | burned {_REST} | to_move 0")


def test_finds_the_winning_move():
    a = analyze_sampled(WIN, method="ismcts", samples=200, seed=1)
    assert str(a.best_move) == "10"
    assert a.loss == [0.0, 1.0]
    assert a.method == "ismcts" and a.samples == 200


def test_figures_and_visits():
    pos = from_text(LATE)
    a = analyze(pos, method="ismcts", samples=300, seed=2)
    assert sum(a.stats["visits"].values()) == 300
    assert list(a.stats["visits"]) == [str(m.move) for m in a.moves]
    for fig in [a.loss] + [m.loss for m in a.moves]:
        assert abs(sum(fig) - 1) < 1e-9 and all(0 <= x <= 1 for x in fig)
    for (lo, hi), x in zip(a.ci95, a.loss):
        assert 0 <= lo <= x <= hi <= 1
    js = a.to_json()
    assert js["method"] == "ismcts" and js["samples"] == 300 and len(js["ci95"]) == 2


def test_seeded():
    pos = from_text(LATE)
    a = analyze_sampled(pos, method="ismcts", samples=150, seed=5)
    b = analyze_sampled(pos, method="ismcts", samples=150, seed=5)
    assert a.to_json()["moves"] == b.to_json()["moves"]
    c = analyze_sampled(pos, method="ismcts", samples=150, seed=5, jobs=2)
    assert c.samples == 150 and c.stats["trees"] == 2
    # jobs=2 is two independent trees, tree k seeded from (seed, k), 75 iterations each,
    # root statistics summed: grow the same two trees here, one after the other.
    trees = [ismcts_tree(pos, 75, 5, k) for k in (0, 1)]
    visits: dict = {}
    sums: dict = {}
    for t in trees:
        assert t["iterations"] == 75
        for m, (v, s, _) in t["root"].items():
            visits[str(m)] = visits.get(str(m), 0) + v
            sums[str(m)] = [x + y for x, y in zip(sums.get(str(m), [0.0, 0.0]), s)]
    assert c.stats["visits"] == visits
    for m in c.moves:
        k = str(m.move)
        assert m.loss == pytest.approx([x / visits[k] for x in sums[k]], abs=1e-12)
    # Not one tree twice: the second tree differs from the first.
    assert trees[0]["root"] != trees[1]["root"]
    d = analyze_sampled(pos, method="ismcts", samples=150, seed=5, jobs=2)
    assert d.to_json()["moves"] == c.to_json()["moves"]


def test_progress():
    calls = []
    analyze_sampled(from_text(LATE), method="ismcts", samples=20,
                    progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (20, 20) and len(calls) == 20

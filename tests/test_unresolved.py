"""Figures a depth-limited search did not resolve are marked, in the JSON, the table, the
live hint and the page's data: each move says whether its figure is proven or an estimate,
and an estimate is tied with nothing. A move whose every line ended is proven (its figure
is the exact one) even when the iteration as a whole is not; the time budget still holds,
and the exact solver answers when it fits."""
from __future__ import annotations

import json
import random
import time

import pytest
from click.testing import CliRunner

from palace_solver.cli.main import cli
from exact_gen import random_table_state

from palace_solver.game.generate import random_exact_state
from palace_solver.game.position import from_text
from palace_solver.solve.compiled import predict_nodes, solve_compiled
from palace_solver.solve.deepening import search_deepening
from palace_solver.solve.results import Analysis, MoveValue, ties

ISSUE = ("standard | me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | unseen 2 5 7 K A "
         "| burned rest | to_move 0")


def analyze(*args):
    r = CliRunner().invoke(cli, ["analyze", *args])
    assert r.exit_code == 0, r.output
    return r.output


def test_the_issues_position_at_depth_12_is_marked_everywhere():
    js = json.loads(analyze(ISSUE, "--depth", "12", "--json"))
    assert js["method"] == "depth_limited" and js["stats"]["complete"] is False
    assert all(m["resolved"] is False for m in js["moves"]), js["moves"]
    assert js["stats"]["resolved_moves"] == 0 and js["stats"]["unresolved_moves"] == 3
    text = analyze(ISSUE, "--depth", "12")
    rows = [x for x in text.splitlines() if x.startswith(("*", "  J", "  9", "  pickup"))
            and "%" in x]
    assert len(rows) == 3
    for line in rows:                       # J's 50.00% among them: an estimate
        assert "~" in line and line.endswith("estimate (depth 12)"), line
    assert "loss now: me ~" in text
    assert "0 of 3 moves proven" in text


@pytest.mark.parametrize("n", [2, 3])
def test_a_resolved_move_has_its_exact_figure(n):
    """Over random positions and depths, every move the search calls resolved has the
    whole-graph solver's figure, also when other moves are not resolved."""
    partial = resolved = 0
    for seed in range(40 if n == 2 else 150):
        rng = random.Random(seed)
        s = random_exact_state(rng, n) if n == 2 else random_table_state(rng, n)
        if predict_nodes(s) > 30_000:
            continue                      # keep the exact solves small
        exact = {str(m.move): m for m in solve_compiled(s).moves}
        for d in (2, 3, 4, 6):
            a = search_deepening(s, depth=d)
            if a.method == "exact":
                assert all(m.resolved is None for m in a.moves)
                break
            flags = [m.resolved for m in a.moves]
            assert all(f in (True, False) for f in flags)
            partial += 0 < sum(flags) < len(flags)
            proven = [m for m in a.moves if m.resolved]
            assert a.stats["resolved_moves"] == len(proven)
            for m in proven:
                resolved += 1
                assert m.loss == pytest.approx(exact[str(m.move)].loss, abs=1e-9), (seed, d)
            if proven:
                best = min(m.loss[s.to_move] for m in proven)
                assert a.stats["loss_at_most"] == pytest.approx(best)
                assert min(m.loss[s.to_move] for m in exact.values()) <= best + 1e-9
            # the estimates are tied with nothing
            assert not any(t and m.resolved is False for t, m in zip(ties(a), a.moves))
    assert resolved > 5 and partial > 2, (resolved, partial)


def test_an_estimate_is_tied_with_nothing_and_says_so_in_the_json():
    mv = [MoveValue("c", [0.5, 0.5], resolved=True), MoveValue("d", [0.5, 0.5], resolved=False),
          MoveValue("a", [0.6, 0.4], resolved=True)]
    a = Analysis("depth_limited", 0, mv[0].loss, mv, {})
    assert ties(a) == [False, False, False]   # d's 0.5 equals c's, but is an estimate
    js = a.to_json()
    assert [m["resolved"] for m in js["moves"]] == [True, False, True]
    exact = Analysis("exact", 0, mv[0].loss, [MoveValue("c", [0.5, 0.5]),
                                              MoveValue("d", [0.5, 0.5])], {})
    assert ties(exact) == [False, True] and "resolved" not in exact.to_json()["moves"][0]


def test_the_time_budget_holds_and_the_exact_solver_answers_when_it_fits():
    t0 = time.perf_counter()
    js = json.loads(analyze(ISSUE, "--time", "1", "--json"))
    assert time.perf_counter() - t0 < 6.0
    assert js["stats"]["seconds"] < 1.5
    assert js["method"] == "depth_limited" and "resolved_moves" in js["stats"]
    small = ("standard | me: 7 7 / A / 1 ; bob: K / 2 / 1 | pile 5 | unseen 3 9 "
             "| burned rest | to_move 0")
    js = json.loads(analyze(small, "--time", "2", "--json"))
    assert js["method"] == "exact" and all("resolved" not in m for m in js["moves"])


def test_the_live_hint_marks_estimates():
    from palace_solver.live.hints import format_hint
    h = {"ok": True, "mover": "me", "method": "depth_limited", "seconds": 1.0, "notes": [
        "not resolved: the search reached depth 9; 0 of 2 moves proven"],
        "moves": [{"move": "9", "mover_loss": 0.3, "ci95": None, "tied": False,
                   "resolved": False},
                  {"move": "J", "mover_loss": 0.5, "ci95": None, "tied": False,
                   "resolved": False}]}
    text = format_hint(h)
    assert "~ 30.0%" in text and "~ 50.0%" in text
    assert "not resolved" in text

"""`palace match`: the verdict and the p-value are one test. The issue's case: 4 starts
printed `p = 0.0027 ... no significant difference` (a normal p-value beside a Student t
interval)."""
from __future__ import annotations

import math
import random

import pytest

from palace_solver.jobs.match import format_summary, p_value
from palace_solver.sample.stats import mean_ci, t_two_sided_p


def summary(pairs, null=0.5):
    m, lo, hi = mean_ci(pairs)
    return {"a": "A", "b": "B", "players": 2, "kind": "late", "starts": len(pairs),
            "games": 2 * len(pairs), "seed": 0, "score": m, "ci95": [lo, hi],
            "equal_score": null, "p": p_value(m, pairs, null), "a_loss_rate": 1 - m,
            "wins": 0, "draws": 0, "losses": 0, "mean_decisions": 1.0,
            "a_decisions_per_second": None, "a_ms_per_decision": None,
            "b_decisions_per_second": None, "b_ms_per_decision": None,
            "wall_seconds": 1.0, "jobs": 1}


def verdict(r) -> str:
    line = format_summary(r).splitlines()[1]
    return ("A better" if "A better" in line else "B better" if "B better" in line
            else "none")


def test_the_issues_four_starts():
    # Four starts scoring 1, 1, 1 and 0.5: a normal approximation says p = 0.0027, the
    # t interval on 3 degrees of freedom holds 0.5.
    r = summary([1.0, 1.0, 1.0, 0.5])
    assert r["ci95"][0] < 0.5
    assert r["p"] >= 0.05, r["p"]
    assert verdict(r) == "none"


def test_verdict_follows_the_p_value_everywhere():
    rng = random.Random(7)
    for _ in range(3000):
        n = rng.choice([2, 3, 4, 5, 6, 8, 12, 20, 31, 40, 100])
        pairs = [rng.choice([0.0, 0.5, 1.0, 0.25, 0.75]) if rng.random() < 0.8
                 else 1.0 for _ in range(n)]
        r = summary(pairs)
        v = verdict(r)
        assert (v != "none") == (r["p"] < 0.05), (pairs, r["p"], r["ci95"], v)
        if v == "A better":
            assert r["score"] > 0.5
        if v == "B better":
            assert r["score"] < 0.5


@pytest.mark.parametrize("df", [1, 2, 3, 5, 10, 29, 30, 31, 60, 200])
def test_t_p_value_is_five_percent_at_the_quantile(df):
    from palace_solver.sample.stats import t975
    assert t_two_sided_p(t975(df), df) == pytest.approx(0.05, abs=2e-4)


def test_t_p_value_known_values():
    # Student t, two-sided: t = 1 on 1 df is 0.5; t = 2 on 3 df 0.1393.
    assert t_two_sided_p(1.0, 1) == pytest.approx(0.5)
    assert t_two_sided_p(2.0, 3) == pytest.approx(0.13933, abs=1e-4)
    assert t_two_sided_p(0.0, 7) == pytest.approx(1.0)
    assert t_two_sided_p(50.0, 4) < 1e-5
    assert t_two_sided_p(1.96, 100000) == pytest.approx(math.erfc(1.96 / math.sqrt(2)),
                                                        abs=1e-4)

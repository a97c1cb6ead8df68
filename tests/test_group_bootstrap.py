"""The bootstrap over games that every benchmark's interval uses (sample/stats.py)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palace_solver.sample.stats import group_bootstrap, group_sums, percentile_ci


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_weighted_resample_is_the_concatenated_one(groups, seed):
    """A ratio of sums over a resample of whole groups, drawn the way a reader would write
    it (``rng.choice`` of the groups, their rows concatenated), is the weighted form's."""
    groups = np.array(groups)
    values = np.random.default_rng(seed).normal(size=len(groups))
    boot = 5
    inverse, counts = group_bootstrap(groups, boot, np.random.default_rng(seed))
    ug = np.unique(groups)
    assert counts.shape == (boot, len(ug))
    assert (counts.sum(axis=1) == len(ug)).all()
    assert (ug[inverse] == groups).all()
    rng = np.random.default_rng(seed)
    sums = group_sums(inverse, values, len(ug))
    sizes = group_sums(inverse, np.ones(len(groups)), len(ug))
    for c in counts:
        pick = np.concatenate([np.nonzero(groups == g)[0] for g in rng.choice(ug, len(ug))])
        assert np.isclose(c @ sums / (c @ sizes), values[pick].mean())


def test_group_sums_and_percentiles():
    inverse = np.array([0, 1, 0, 2])
    assert group_sums(inverse, [1.0, 2.0, 3.0, 4.0], 4).tolist() == [4.0, 2.0, 4.0, 0.0]
    assert percentile_ci(np.arange(101.0)) == [2.5, 97.5]
    # resamples where the statistic is undefined are left out, not NaN-poisoning the interval
    assert percentile_ci([np.nan, 1.0, 1.0]) == [1.0, 1.0]
    assert percentile_ci([np.nan]) == [None, None]

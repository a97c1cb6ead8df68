"""Means and 95% intervals of values in [0, 1], for every sampled estimate.

The interval is Student's t around the sample mean, clipped to [0, 1]; when every sample
agrees (variance 0) it is the mean plus or minus 3/n, the "rule of three" width, so that a
unanimous small sample never claims certainty. Imports nothing of the package.
"""
from __future__ import annotations

import math

# Student's t, 97.5% quantile, for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (table to 30, then
    the first terms of the Cornish-Fisher expansion around 1.96)."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


def t_two_sided_p(t: float, df: int) -> float:
    """Two-sided p-value of Student's t statistic ``t`` with ``df`` degrees of freedom:
    P(|T| >= |t|), from the closed form for whole degrees of freedom (Abramowitz and Stegun
    26.7.3-4); past 20,000 the normal tail. At ``t975(df)`` it is 0.05, so a test by this
    p-value and the interval of :func:`mean_ci` agree.

    >>> round(t_two_sided_p(1.0, 1), 4), round(t_two_sided_p(2.0, 3), 4)
    (0.5, 0.1393)
    """
    t = abs(float(t))
    if df < 1 or math.isnan(t):
        return 1.0
    if df > 20000:
        return math.erfc(t / math.sqrt(2))
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:
        term = acc = math.cos(theta) if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            acc += term
        a = 2.0 / math.pi * (theta + s * acc)
    else:
        term = acc = 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            acc += term
        a = s * acc
    return min(1.0, max(0.0, 1.0 - a))


def mean_ci(values) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the mean of values in [0, 1] and its 95% interval (module doc)."""
    return _t_interval(values, 0.0, 1.0)


def _t_interval(values, lo: float, hi: float) -> tuple[float, float, float]:
    """Student's t interval of the mean, clipped to [lo, hi]; the rule-of-three width when
    every value agrees; the whole range for fewer than two values."""
    n = len(values)
    mean = math.fsum(values) / n if n else 0.0
    if n < 2:
        return mean, lo, hi
    var = math.fsum((x - mean) ** 2 for x in values) / (n - 1)
    half = t975(n - 1) * math.sqrt(var / n) if var > 1e-24 else 3.0 / n
    return mean, max(lo, mean - half), min(hi, mean + half)


def ci_from_sums(n: int, s: float, sq: float) -> tuple[float, float, float]:
    """:func:`mean_ci` from the count, sum and sum of squares of the values (no list)."""
    if n == 0:
        return 0.0, 0.0, 1.0
    mean = s / n
    if n == 1:
        return mean, 0.0, 1.0
    var = max(0.0, (sq - n * mean * mean) / (n - 1))
    half = t975(n - 1) * math.sqrt(var / n) if var > 1e-12 else 3.0 / n
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def diff_ci(values) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` for differences in [-1, 1] (one move's loss minus another's on the
    same deal): the paired form of :func:`mean_ci`, clipped to [-1, 1], the rule-of-three
    width when every difference agrees. Deals common to both moves cancel the luck of the
    deal, which the two moves' separate intervals count twice."""
    return _t_interval(values, -1.0, 1.0)


def group_bootstrap(groups, boot: int, rng):
    """A bootstrap over groups (the games of the decisions, whose outcomes are not
    independent within a game): ``(inverse, counts)``, ``inverse[i]`` the group of row ``i``
    (numbered in sorted order) and ``counts[b, g]`` how many times group ``g`` is drawn in
    resample ``b``, the groups drawn with replacement as many as there are. A statistic
    that is a ratio of sums (a mean, a bias, a Brier skill) is the same over the resample
    whether its rows are concatenated or weighted by their group's count, and the weighted
    form needs only per-group sums (:func:`group_sums`).

    Resample ``b`` is ``rng.integers(0, G, G)``, drawn in order: the draws of
    ``rng.choice(unique_groups, G)`` a resample, so routines written either way agree."""
    import numpy as np
    ug, inverse = np.unique(np.asarray(groups), return_inverse=True)
    size = len(ug)
    counts = np.empty((boot, size), dtype=np.float64)
    for b in range(boot):
        counts[b] = np.bincount(rng.integers(0, size, size), minlength=size)
    return inverse, counts


def group_sums(inverse, values, size: int):
    """Per-group sums of ``values`` (rows grouped by ``inverse`` of :func:`group_bootstrap`)."""
    import numpy as np
    return np.bincount(inverse, weights=np.asarray(values, dtype=np.float64), minlength=size)


def percentile_ci(draws) -> list[float]:
    """The 2.5 and 97.5 percentiles of a statistic's bootstrap draws (NaN draws, resamples
    where the statistic is undefined, left out)."""
    import numpy as np
    d = np.asarray(draws, dtype=np.float64)
    d = d[~np.isnan(d)]
    if not len(d):
        return [None, None]
    return [float(x) for x in np.percentile(d, [2.5, 97.5])]

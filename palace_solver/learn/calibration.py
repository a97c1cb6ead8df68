"""Fitting the calibration map of the search's figures (applied by
:mod:`palace_solver.sample.calibration`) to the outcomes of decisions of the engine's own
games: the rows of ``benchmarks/calibration.py run`` (``figure`` of the move played,
``outcome`` 1 loss, 0 win, 1/2 draw, ``draw`` the draw pile, ``method``, and ``raw``, the
search's figure before a map, where one was applied).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..jobs.batch import finished_results
from ..sample.calibration import BANDS, certain, logit, row_band


def fit_band(x, y, iters: int = 50) -> tuple[float, float]:
    """``(a, b)`` maximising the likelihood of outcomes ``y`` (in [0, 1]: a draw is 1/2)
    under ``sigmoid(a * logit(x) + b)``, by Newton's method (a two-parameter logistic
    regression with soft labels; a tiny ridge keeps it defined on separable data).

    >>> a, b = fit_band([0.2, 0.2, 0.8, 0.8], [0.0, 0.5, 0.5, 1.0])
    >>> round(a, 3), round(b, 3)
    (0.792, 0.0)
    """
    z = logit(x)
    y = np.asarray(y, dtype=float)
    X = np.stack([z, np.ones_like(z)], axis=1)
    w = np.array([1.0, 0.0])
    ridge = 1e-6 * len(z)
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        grad = X.T @ (p - y) + ridge * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + ridge * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w = w - step
        if np.abs(step).max() < 1e-12:
            break
    return float(w[0]), float(w[1])


#: Added to the game numbers of a strength row's calibration files (``row-ROW-...``, whose
#: games are numbered ``start + 100000 * seat``), so that pooled with a self-play run's
#: files (games 0, 1, ...) no two games share a number: the intervals resample games.
ROW_GAMES = 10**6


def read_rows(files) -> list[tuple[int, dict]]:
    """``(game, row)`` for the decisions in the files of ``benchmarks/calibration.py run``
    (batch files: a header line, then one finished game a line; a torn line is skipped).
    A strength row's files (named ``row-...``) have their games moved past
    :data:`ROW_GAMES`; files of two different rows are not to be read together (their
    numbers would meet)."""
    return [(res["game"] + (ROW_GAMES if Path(f).name.startswith("row-") else 0), r)
            for f in files for _, res in finished_results(f) for r in res["rows"]]


#: the bands a map fits by default: the search's (a map of the fallback's figures as well
#: names :data:`~palace_solver.sample.calibration.FALLBACK` among its bands)
SEARCH_BANDS = tuple(name for name, _, _ in BANDS)


def band_of(row: dict) -> str | None:
    """The band of a row of ``benchmarks/calibration.py run``
    (:func:`~palace_solver.sample.calibration.row_band`); a fallback's row from before the
    rows said whether its figure was proved (no ``proved``) has none."""
    if row["method"] == "depth_limited" and "proved" not in row:
        return None
    return row_band(row["method"], row["draw"], row.get("proved", False))


def search_rows(files, bands=SEARCH_BANDS) -> list[tuple[int, dict]]:
    """The rows of ``files`` that a map of ``bands`` changes (their figure in one of those
    bands and not certain: :func:`~palace_solver.sample.calibration.certain`), ``figure``
    being the analysis's own figure (``raw`` where a map was applied), ``band`` its band."""
    out = []
    for g, r in read_rows(files):
        x, name = r.get("raw", r["figure"]), band_of(r)
        if name in bands and not certain(x):
            out.append((g, {**r, "figure": x, "band": name}))
    return out


def fit_map(rows, bands=SEARCH_BANDS, least: int = 0) -> dict:
    """Per band of ``bands``, ``(a, b)`` of :func:`fit_band` over the ``rows`` of that band
    (rows of :func:`search_rows`: ``figure``, ``outcome``, ``band``); a band without rows
    keeps the identity (1, 0), and one with fewer than ``least`` (when given) is left out,
    so that the map keeps its figures as they are."""
    out = {}
    for name in bands:
        sel = [r for r in rows if r["band"] == name]
        if least and len(sel) < least:
            continue
        out[name] = fit_band([r["figure"] for r in sel], [r["outcome"] for r in sel]) \
            if sel else (1.0, 0.0)
    return out

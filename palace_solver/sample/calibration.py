"""Calibration of the search's figures to the outcomes of the engine's own games.

RULES.md's loss probability is, for the search, an estimate of what happens when the
engine plays every seat from there (docs/search.md). The search's mean over deals is not
that yet: each deal is searched with every hand known, and the network at its horizon
was fitted to other games, so the raw figure is too sure of itself once the draw pile is
empty and a little optimistic for the mover before. A calibration map corrects this
from outcomes: for two players, the mover's figure ``x`` becomes

    sigmoid(a * logit(x) + b)

with ``(a, b)`` of the draw pile's band (:data:`BANDS`), fitted by maximum likelihood to
the outcomes (1 loss, 0 win, 1/2 draw) of decisions of the engine's games against itself
(``benchmarks/calibration.py fit``, its file ``palace_solver/data/calibration-NAME.json``
with the games it read). ``a > 0``, so within a position the moves keep their order and
their ties; the other player's figure is one minus the mover's, so the two still add up to
1. Positions of three or more players keep the search's figures: no map was fitted there.

Imports nothing of the package but the batch layer's reader, when reading decisions.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: the draw pile's bands, each fitted on its own: (name, fewest cards, most cards)
BANDS = (("end", 0, 0), ("late", 1, 9), ("draw", 10, 10_000))
#: figures are clipped this far from 0 and 1 before the logit
EPS = 1e-3


def band(draw_pile: int) -> str:
    """The band of :data:`BANDS` holding ``draw_pile`` cards."""
    for name, lo, hi in BANDS:
        if lo <= draw_pile <= hi:
            return name
    raise ValueError(f"a draw pile of {draw_pile} cards")


def logit(x):
    x = np.clip(np.asarray(x, dtype=float), EPS, 1 - EPS)
    return np.log(x / (1 - x))


@dataclass(frozen=True)
class CalibrationMap:
    """A fitted map (module doc): per band ``(a, b)``."""

    name: str
    params: dict

    def mover_loss(self, x: float, draw_pile: int) -> float:
        """The calibrated figure of the mover's raw figure ``x``."""
        a, b = self.params[band(draw_pile)]
        return float(1.0 / (1.0 + math.exp(-(a * float(logit(x)) + b))))


def calibration_path(name: str) -> str:
    """The file of map ``name``: a shipped one's, or ``name`` itself when it is a .json path."""
    if name.endswith(".json"):
        return name
    data = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
    return os.path.join(data, f"calibration-{name}.json")


@lru_cache(maxsize=8)
def load_map(name: str) -> CalibrationMap:
    """The map ``name`` (:func:`calibration_path`: ``palace_solver/data/calibration-NAME.json``).

    :raises ValueError: for a name with no file.
    """
    path = calibration_path(name)
    if not os.path.exists(path):
        raise ValueError(f"no calibration map {name!r} (looked for {path})")
    with open(path) as f:
        rec = json.load(f)
    return CalibrationMap(name, {k: tuple(v) for k, v in rec["params"].items()})


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


def read_rows(files) -> list[tuple[int, dict]]:
    """``(game, row)`` for the decisions in the files of ``benchmarks/calibration.py run``
    (batch files: a header line, then one finished game a line; a torn line is skipped)."""
    from ..jobs.batch import finished_results
    return [(res["game"], r) for f in files for _, res in finished_results(f)
            for r in res["rows"]]


def search_rows(files) -> list[tuple[int, dict]]:
    """The rows of ``files`` whose figure came from the search (the ones a map changes),
    ``figure`` being the search's own figure (``raw`` where a map was applied)."""
    return [(g, {**r, "figure": r.get("raw", r["figure"])})
            for g, r in read_rows(files) if r["method"] == "search"]


def fit_map(rows) -> dict:
    """Per band of :data:`BANDS`, ``(a, b)`` of :func:`fit_band` over ``rows`` (dicts with
    ``figure``, ``outcome``, ``draw``); a band without rows keeps the identity (1, 0)."""
    out = {}
    for name, lo, hi in BANDS:
        sel = [r for r in rows if lo <= r["draw"] <= hi]
        out[name] = fit_band([r["figure"] for r in sel], [r["outcome"] for r in sel]) \
            if sel else (1.0, 0.0)
    return out

"""The policy model of the other seats, fitted on the engine's own games.

The model (``ext/policy.pxi``) is a conditional logit: the probability of each legal move
is the softmax of ``theta . phi(s, m)`` over the legal moves, with ``phi`` a few dozen move
features that read only what the mover knows. It is fitted here by maximum likelihood on
the decisions of recorded games (:mod:`palace_solver.learn.engine_games`), the moves the
engine actually chose in its true position, with a small ridge penalty; held-out games
(number 9 mod 10) give the log-likelihood per decision against the uniform choice among
the legal moves. Newton's method on 34 coefficients converges in a few steps, so numpy is
all it needs.
"""
from __future__ import annotations

import numpy as np

from .. import _engine
from .engine_games import replay

__all__ = ["decisions", "fit", "loglik"]


def decisions(games) -> dict:
    """The fit's data from ``(number, record)`` games: per decision with at least two legal
    moves, phi of every legal move, the index of the move played and the game's number:
    ``{"x": (N, M, F) float32 padded, "mask": (N, M) bool, "y": (N,), "game": (N,)}``."""
    rows, ys, gs = [], [], []
    for g, game in games:
        for state, move, _, _ in replay(game):
            moves, feats = _engine.policy_features(_engine.CState.from_state(state))
            if len(moves) < 2:
                continue
            rows.append(np.asarray(feats, np.float32))
            ys.append(moves.index(move))
            gs.append(g)
    m = max((len(r) for r in rows), default=1)
    f = _engine.POLICY_FEATURES
    x = np.zeros((len(rows), m, f), np.float32)
    mask = np.zeros((len(rows), m), bool)
    for i, r in enumerate(rows):
        x[i, :len(r)] = r
        mask[i, :len(r)] = True
    return {"x": x, "mask": mask, "y": np.array(ys, np.int64), "game": np.array(gs)}


def _probs(theta, x, mask):
    z = x @ theta
    z = np.where(mask, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def loglik(theta, data, select=None) -> dict:
    """Mean log-likelihood per decision of the model and of the uniform choice."""
    sel = np.ones(len(data["y"]), bool) if select is None else select
    x, mask, y = data["x"][sel], data["mask"][sel], data["y"][sel]
    p = _probs(np.asarray(theta, np.float64), x.astype(np.float64), mask)
    ll = np.log(np.clip(p[np.arange(len(y)), y], 1e-300, 1.0))
    uni = -np.log(mask.sum(axis=1))
    return {"decisions": int(len(y)), "model": float(ll.mean()) if len(y) else None,
            "uniform": float(uni.mean()) if len(y) else None}


def _spread(x, mean, p, order, counts, chunk: int = 2048) -> np.ndarray:
    """sum over decisions and moves of p (x - mean)(x - mean)^T, as matrix products (BLAS)
    over blocks of decisions of about as many legal moves (``order``: the decisions by their
    ``counts``), each cut to its own widest: the rows are padded to the widest decision of
    all, six times the mean, and a padded move adds nothing (its p is 0). A three-operand
    einsum over the padded rows was the fit's cost."""
    f = x.shape[2]
    out = np.zeros((f, f))
    sp = np.sqrt(p)
    for i in range(0, len(order), chunk):
        idx = order[i:i + chunk]
        m = int(counts[idx].max())
        w = ((x[idx, :m] - mean[idx, None, :]) * sp[idx, :m, None]).reshape(-1, f)
        out += w.T @ w
    return out


def fit(data, ridge: float = 1e-3, steps: int = 30, select=None) -> np.ndarray:
    """theta maximising the likelihood of the decisions (where ``select``), Newton steps
    with a ridge penalty ``ridge * |theta|^2`` per decision (deterministic)."""
    sel = np.ones(len(data["y"]), bool) if select is None else select
    x = data["x"][sel].astype(np.float64)
    mask, y = data["mask"][sel], data["y"][sel]
    n, _, f = x.shape
    theta = np.zeros(f)
    onehot = np.zeros(mask.shape)
    onehot[np.arange(n), y] = 1.0
    observed = np.einsum("nm,nmf->f", onehot, x)
    counts = mask.sum(axis=1)
    order = np.argsort(counts, kind="stable")
    for _ in range(steps):
        p = _probs(theta, x, mask)
        mean = np.einsum("nm,nmf->nf", p, x)
        grad = observed - mean.sum(0) - 2 * ridge * n * theta
        hess = -_spread(x, mean, p, order, counts) - 2 * ridge * n * np.eye(f)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return theta

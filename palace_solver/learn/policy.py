"""The policy model of the other seats, fitted on the engine's own games.

The model (``ext/policy.pxi``) is a conditional logit: the probability of each legal move
is the softmax of ``theta . phi(s, m)`` over the legal moves, with ``phi`` a few dozen move
features that read only what the mover knows. It is fitted here by maximum likelihood on
the decisions of recorded games (:mod:`palace_solver.learn.engine_games`), the moves the
engine actually chose in its true position, with a small ridge penalty; held-out games
(number 9 mod 10) give the log-likelihood per decision against the uniform choice among
the legal moves. Newton's method on 35 coefficients converges in a few steps, so numpy is
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
    ``{"x": (T, F) float32, the legal moves of every decision one after another, "start":
    (N + 1,) where decision i's moves begin (its last ends at ``start[i + 1]``), "y": (N,),
    "game": (N,)}``. Not padded to the widest decision: generation 4's 989,020 decisions
    hold 6.5 legal moves on average and 35 at most, so padded they took 4.8 GB (and the fit
    twice that as float64) where they now take 0.9."""
    rows, ys, gs = [], [], []
    for g, game in games:
        for state, move, _, _ in replay(game):
            moves, feats = _engine.policy_features(_engine.CState.from_state(state))
            if len(moves) < 2:
                continue
            rows.append(np.asarray(feats, np.float32))
            ys.append(moves.index(move))
            gs.append(g)
    f = _engine.POLICY_FEATURES
    start = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=start[1:])
    x = np.concatenate(rows) if rows else np.zeros((0, f), np.float32)
    return {"x": x, "start": start, "y": np.array(ys, np.int64), "game": np.array(gs)}


def _blocks(data, select=None, chunk: int = 2048) -> list:
    """The selected decisions as padded float64 blocks ``(x (b, m, F), mask (b, m), y (b,))``
    of about ``chunk`` decisions of as many legal moves each (ordered by their count), each
    padded only to its own widest: a padded move is all zeros and masked out."""
    start, y = data["start"], data["y"]
    idx = np.arange(len(y)) if select is None else np.flatnonzero(select)
    counts = (start[1:] - start[:-1])[idx]
    order = idx[np.argsort(counts, kind="stable")]
    out = []
    for i in range(0, len(order), chunk):
        block = order[i:i + chunk]
        c = start[block + 1] - start[block]
        m = int(c.max())
        mask = np.arange(m)[None, :] < c[:, None]
        x = np.zeros((len(block), m, data["x"].shape[1]))
        x[mask] = data["x"][np.concatenate([np.arange(a, b) for a, b in
                                            zip(start[block], start[block + 1])])]
        out.append((x, mask, y[block]))
    return out


def _probs(theta, x, mask):
    z = x @ theta
    z = np.where(mask, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def loglik(theta, data, select=None) -> dict:
    """Mean log-likelihood per decision of the model and of the uniform choice."""
    theta = np.asarray(theta, np.float64)
    model = uniform = 0.0
    n = 0
    for x, mask, y in _blocks(data, select):
        p = _probs(theta, x, mask)
        model += float(np.log(np.clip(p[np.arange(len(y)), y], 1e-300, 1.0)).sum())
        uniform -= float(np.log(mask.sum(axis=1)).sum())
        n += len(y)
    return {"decisions": n, "model": model / n if n else None,
            "uniform": uniform / n if n else None}


def _moments(theta, blocks) -> tuple:
    """Over the blocks' decisions: the sum of each decision's expected phi under the model
    and the sum of its spread, sum over moves of p (x - mean)(x - mean)^T, as matrix
    products (BLAS) block by block. A three-operand einsum over rows padded to the widest
    decision of all was the fit's cost, and a padded move adds nothing (its p is 0)."""
    f = len(theta)
    total, spread = np.zeros(f), np.zeros((f, f))
    for x, mask, _ in blocks:
        p = _probs(theta, x, mask)
        mean = np.einsum("nm,nmf->nf", p, x)
        total += mean.sum(0)
        w = ((x - mean[:, None, :]) * np.sqrt(p)[:, :, None]).reshape(-1, f)
        spread += w.T @ w
    return total, spread


def fit(data, ridge: float = 1e-3, steps: int = 30, select=None) -> np.ndarray:
    """theta maximising the likelihood of the decisions (where ``select``), Newton steps
    with a ridge penalty ``ridge * |theta|^2`` per decision (deterministic)."""
    blocks = _blocks(data, select)
    f = data["x"].shape[1]
    n = sum(len(y) for _, _, y in blocks)
    theta = np.zeros(f)
    observed = sum((x[np.arange(len(y)), y].sum(0) for x, _, y in blocks), np.zeros(f))
    for _ in range(steps):
        total, spread = _moments(theta, blocks)
        grad = observed - total - 2 * ridge * n * theta
        hess = -spread - 2 * ridge * n * np.eye(f)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return theta

"""The evaluation network in numpy: forward, backward, Adam, and the weights file.

One network scores every player still in from that player's input row
(:func:`palace_solver.learn.features.rows`): ``score = w3 . relu(W2 relu(W1 x + b1) + b2)``;
the loss estimate is the softmax of the scores over the players (two players: a logistic).
Training minimises the cross-entropy between that softmax and the players' final loss
shares, which always sum to 1.

Inputs are scaled by their mean and spread on the training data; the shipped weights have
the scaling folded into the first layer (``W1 / sd``, ``b1 - (mean / sd) W1``), so the
compiled core (``ext/evaluate.pxi``) reads the raw integer features. Inputs that never vary
in the training data get zero weight: the network ignores what it never saw.

The weights file (``palace_solver/data/eval_weights.npz``): ``w1`` (207 x H1), ``b1``,
``w2`` (H1 x H2), ``b2``, ``w3`` (H2), float32, and ``meta`` (JSON text: how it was made).
"""
from __future__ import annotations

import json

import numpy as np

from .features import IN

__all__ = ["Adam", "Net", "cardcount_probs", "fold", "load_weights", "probs", "save_weights",
           "unfold"]


class Net:
    """Parameters (float32) and the forward/backward pass on (N, a, IN) inputs."""

    def __init__(self, h1: int, h2: int, rng: np.random.Generator):
        self.p = {
            "w1": (rng.standard_normal((IN, h1)) * np.sqrt(2.0 / IN)).astype(np.float32),
            "b1": np.zeros(h1, np.float32),
            "w2": (rng.standard_normal((h1, h2)) * np.sqrt(2.0 / h1)).astype(np.float32),
            "b2": np.zeros(h2, np.float32),
            "w3": (rng.standard_normal(h2) * np.sqrt(1.0 / h2)).astype(np.float32),
        }

    def forward(self, x: np.ndarray):
        """Scores (N, a) and the cache for :meth:`backward`."""
        p = self.p
        z1 = x @ p["w1"] + p["b1"]
        h1 = np.maximum(z1, 0.0)
        z2 = h1 @ p["w2"] + p["b2"]
        h2 = np.maximum(z2, 0.0)
        return h2 @ p["w3"], (x, z1, h1, z2, h2)

    def backward(self, cache, ds: np.ndarray) -> dict:
        """Gradients of the parameters given d loss / d scores (N, a)."""
        x, z1, h1, z2, h2 = cache
        p = self.p
        g = {"w3": np.einsum("nah,na->h", h2, ds)}
        dz2 = ds[..., None] * p["w3"] * (z2 > 0)
        g["w2"] = h1.reshape(-1, h1.shape[-1]).T @ dz2.reshape(-1, dz2.shape[-1])
        g["b2"] = dz2.sum(axis=(0, 1))
        dz1 = (dz2 @ p["w2"].T) * (z1 > 0)
        g["w1"] = x.reshape(-1, x.shape[-1]).T @ dz1.reshape(-1, dz1.shape[-1])
        g["b1"] = dz1.sum(axis=(0, 1))
        return g


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Adam:
    """Adam (Kingma & Ba) with decoupled weight decay on the weight matrices."""

    def __init__(self, params: dict, lr: float = 1e-3, b1: float = 0.9, b2: float = 0.999,
                 eps: float = 1e-8, decay: float = 0.0):
        self.lr, self.b1, self.b2, self.eps, self.decay = lr, b1, b2, eps, decay
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict, grads: dict, lr: float | None = None) -> None:
        self.t += 1
        lr = self.lr if lr is None else lr
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for k, g in grads.items():
            m, v = self.m[k], self.v[k]
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            upd = (m / c1) / (np.sqrt(v / c2) + self.eps)
            if self.decay and k.startswith("w"):
                upd = upd + self.decay * params[k]
            params[k] -= (lr * upd).astype(np.float32)


def fold(params: dict, mean: np.ndarray, sd: np.ndarray) -> dict:
    """Weights on raw inputs from weights on scaled inputs ((x - mean) / sd); inputs with
    sd 0 get zero weight."""
    safe = np.where(sd == 0, 1.0, sd)
    w1 = np.where((sd == 0)[:, None], 0.0, params["w1"] / safe[:, None])
    b1 = params["b1"] - (mean / safe) @ np.where((sd == 0)[:, None], 0.0, params["w1"])
    out = dict(params)
    out["w1"], out["b1"] = w1.astype(np.float32), b1.astype(np.float32)
    return out


def unfold(weights: dict, mean: np.ndarray, sd: np.ndarray) -> dict:
    """Weights on scaled inputs from folded weights on raw inputs (the inverse of
    :func:`fold` where ``sd`` > 0): to go on training a shipped network on new data."""
    w1 = weights["w1"].astype(np.float64)
    out = {k: np.array(v, dtype=np.float32) for k, v in weights.items()}
    out["w1"] = (w1 * sd[:, None]).astype(np.float32)
    out["b1"] = (weights["b1"] + mean @ w1).astype(np.float32)
    return out


def probs(weights: dict, x: np.ndarray) -> np.ndarray:
    """Loss estimates (N, a) of raw input rows (N, a, IN) with folded weights."""
    h1 = np.maximum(x @ weights["w1"] + weights["b1"], 0.0)
    h2 = np.maximum(h1 @ weights["w2"] + weights["b2"], 0.0)
    return softmax((h2 @ weights["w3"]).astype(np.float64))


def cardcount_probs(pb: np.ndarray, scale: float = 0.35, blind: float = 1.5) -> np.ndarray:
    """The card-count evaluation (ext/deepen.pxi) from player blocks (N, a, 37)."""
    burden = pb[..., 29].astype(np.float64) + pb[..., 30] + blind * pb[..., 28]
    return softmax(scale * burden)


def save_weights(path, weights: dict, meta: dict) -> None:
    np.savez(path, **{k: np.ascontiguousarray(weights[k], dtype=np.float32)
                      for k in ("w1", "b1", "w2", "b2", "w3")},
             meta=np.array(json.dumps(meta, sort_keys=True)))


def load_weights(path) -> tuple[dict, dict]:
    """(weights, meta) of a weights file."""
    with np.load(path) as f:
        w = {k: f[k] for k in ("w1", "b1", "w2", "b2", "w3")}
        meta = json.loads(str(f["meta"])) if "meta" in f.files else {}
    return w, meta

"""Training the evaluation network on self-play data, and its error on held-out positions.

:func:`train` reads data sets written by :mod:`palace_solver.learn.selfplay` (batch output
files), holds out every game whose number is 9 mod 10 (whole games, so no position of a
held-out game is seen in training), fits :class:`~palace_solver.learn.model.Net` with Adam
on the cross-entropy against the final loss shares, and returns the folded weights with
the held-out errors. Everything is seeded: the same data, options and seed give the same
weights bit for bit on one machine (the script pins numpy to one thread; another machine
may round differently).

Errors (:func:`errors`), over positions: ``mse`` is the squared error of each player's loss
estimate against the outcome, averaged over the players still in (two players: the usual
(p - y)^2 of either one), ``logloss`` the cross-entropy -sum y log p, next to the card-count
evaluation's and a constant's (1/a for a players) on the same positions.
"""
from __future__ import annotations

import json
import time

import numpy as np

from .features import IN, rows
from .model import Adam, Net, cardcount_probs, fold, probs, softmax, unfold
from .selfplay import load_dataset

__all__ = ["errors", "group", "read_dataset", "train"]


def read_dataset(path) -> dict:
    """The arrays of a self-play batch output file (:func:`selfplay.load_dataset`)."""
    results = []
    with open(path) as f:
        header = json.loads(f.readline())
        for line in f:
            if line.strip():
                results.append(json.loads(line)["result"])
    data = load_dataset(results)
    data["fingerprint"] = header.get("fingerprint")
    return data


def group(data: dict, select=None) -> dict:
    """Positions by players still in: {a: (pb (N, a, 37) uint8, pub (N, 90) uint8,
    y (N, a) float32, draw (N,) draw pile)} for the positions where ``select`` is True."""
    nact, start = data["nact"], data["start"]
    out = {}
    for a in np.unique(nact):
        idx = np.nonzero((nact == a) & (select if select is not None else True))[0]
        if not len(idx):
            continue
        rows_idx = start[idx][:, None] + np.arange(a)[None, :]
        out[int(a)] = (data["pb"][rows_idx], data["pub"][idx], data["y"][rows_idx],
                       data["pub"][idx, 61].astype(np.int64))
    return out


def _scaling(groups: dict, rng: np.random.Generator, sample: int = 200_000):
    """Mean and spread of the input rows, over a sample of positions of every group."""
    xs, ws = [], []
    total = sum(len(g[0]) for g in groups.values())
    for a, (pb, pub, _, _) in sorted(groups.items()):
        k = min(len(pb), max(1, sample * len(pb) // total))
        idx = np.sort(rng.choice(len(pb), k, replace=False))
        x = rows(pb[idx], pub[idx]).reshape(-1, IN)
        xs.append(x)
        ws.append(np.full(len(x), len(pb) / k, np.float64))
    x = np.concatenate(xs).astype(np.float64)
    w = np.concatenate(ws)
    mean = (x * w[:, None]).sum(0) / w.sum()
    sd = np.sqrt(((x - mean) ** 2 * w[:, None]).sum(0) / w.sum())
    sd[sd < 1e-6] = 0.0
    return mean.astype(np.float32), sd.astype(np.float32)


def errors(weights: dict | None, groups: dict, kind: str = "learned") -> dict:
    """Mean squared error and log loss over the positions of ``groups`` for the learned
    evaluation (``weights``), ``cardcount`` or ``constant``."""
    se = ll = 0.0
    count = 0
    for a, (pb, pub, y, _) in sorted(groups.items()):
        for i in range(0, len(pb), 20000):
            sl = slice(i, i + 20000)
            if kind == "learned":
                p = probs(weights, rows(pb[sl], pub[sl]))
            elif kind == "cardcount":
                p = cardcount_probs(pb[sl])
            else:
                p = np.full(y[sl].shape, 1.0 / a)
            yy = y[sl].astype(np.float64)
            se += ((p - yy) ** 2).mean(axis=1).sum()
            ll += -(yy * np.log(np.clip(p, 1e-12, 1.0))).sum()
            count += len(yy)
    return {"positions": count, "mse": se / count if count else None,
            "logloss": ll / count if count else None}


def train(datasets, *, h1: int = 64, h2: int = 32, epochs: int = 4, batch: int = 512,
          lr: float = 2e-3, decay: float = 1e-4, seed: int = 0, progress=None,
          init: dict | None = None, best_of_epochs: bool = False) -> dict:
    """Fit the network on ``datasets`` (arrays of :func:`read_dataset`); returns
    ``{"weights", "meta"}`` with the held-out errors in ``meta``.

    ``init``: folded weights to start from (a shipped network: the next generation goes
    on from the last one, which saw far more games than one generation of the engine's
    own plays); their hidden sizes replace ``h1``, ``h2``. ``best_of_epochs``: keep the
    weights of the epoch with the lowest held-out log loss (the held-out games are never
    trained on, but then they choose the epoch: report errors on other games)."""
    rng = np.random.default_rng(seed)
    train_g, held_g = {}, {}
    for d in datasets:
        held = d["game"] % 10 == 9
        for dst, sel in ((train_g, ~held), (held_g, held)):
            for a, parts in group(d, sel).items():
                dst.setdefault(a, []).append(parts)
    train_g = {a: tuple(np.concatenate(c) for c in zip(*v)) for a, v in train_g.items()}
    held_g = {a: tuple(np.concatenate(c) for c in zip(*v)) for a, v in held_g.items()}
    mean, sd = _scaling(train_g, rng)
    inv = np.where(sd == 0, 0.0, 1.0 / np.where(sd == 0, 1.0, sd)).astype(np.float32)
    if init is not None:
        h1, h2 = len(init["b1"]), len(init["b2"])
    net = Net(h1, h2, rng)
    if init is not None:
        net.p = unfold(init, mean, sd)
    opt = Adam(net.p, lr=lr, decay=decay)
    best = (None, float("inf"), 0)
    n_train = sum(len(g[0]) for g in train_g.values())
    steps_per_epoch = sum((len(g[0]) + batch - 1) // batch for g in train_g.values())
    total_steps = epochs * steps_per_epoch
    step = 0
    t0 = time.perf_counter()
    for ep in range(epochs):
        plan = []
        for a, g in sorted(train_g.items()):
            perm = rng.permutation(len(g[0]))
            plan += [(a, perm[i:i + batch]) for i in range(0, len(perm), batch)]
        order = rng.permutation(len(plan))
        run_loss = 0.0
        for j in order:
            a, idx = plan[j]
            pb, pub, y, _ = train_g[a]
            idx = np.sort(idx)
            x = (rows(pb[idx], pub[idx]) - mean) * inv
            s, cache = net.forward(x)
            p = softmax(s)
            yy = y[idx]
            run_loss += float(-(yy * np.log(np.clip(p, 1e-12, 1.0))).sum())
            ds = ((p - yy) / len(idx)).astype(np.float32)
            grads = net.backward(cache, ds)
            # cosine decay of the step size to a tenth
            frac = step / max(1, total_steps - 1)
            opt.step(net.p, grads, lr * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * frac))))
            step += 1
        held_ll = None
        if best_of_epochs or progress is not None:
            held_ll = errors(fold(net.p, mean, sd), held_g)["logloss"] if held_g else None
        if best_of_epochs and held_ll is not None and held_ll < best[1]:
            best = ({k: v.copy() for k, v in net.p.items()}, held_ll, ep + 1)
        if progress is not None:
            progress(f"epoch {ep + 1}/{epochs}: train log loss {run_loss / n_train:.4f}, "
                     f"held-out {held_ll if held_ll is None else round(held_ll, 4)}, "
                     f"{time.perf_counter() - t0:.0f} s")
    if best_of_epochs and best[0] is not None:
        net.p = best[0]
    weights = fold(net.p, mean, sd)
    meta = {"h1": h1, "h2": h2, "epochs": epochs, "batch": batch, "lr": lr, "decay": decay,
            "seed": seed, "train_positions": int(n_train), "init": init is not None,
            "best_epoch": best[2] if best_of_epochs else None,
            "held_positions": int(sum(len(g[0]) for g in held_g.values())),
            "data": [d.get("fingerprint") for d in datasets],
            "seconds": round(time.perf_counter() - t0, 1)}
    return {"weights": weights, "meta": meta, "held": held_g}

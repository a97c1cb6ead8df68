#!/usr/bin/env python3
"""The horizon evaluations against exact values: squared error and log loss of the card
count, the learned network and a constant, on positions the exact solver can solve.

    python benchmarks/eval_exact.py [--positions 150] [--seed 0] [--weights FILE]

Sets of positions:

- ``random``: random two-player exact-mode positions (palace_solver.game.generate, as
  benchmarks/calibrate_eval.py draws them: 0-3 hand, 0-3 face-up, 0-2 face-down cards each,
  pile of 0-3), solved exactly; with seed 0 and 150 positions, the set the card count was
  fitted on (squared error 0.164 there);
- ``examples``: the exact examples of tests/data/exact_2p.jsonl (their expected values).

Errors are those of palace_solver/learn/train.py: squared error averaged over the players,
log loss -sum y log p (y: exact loss probabilities).
"""
import argparse
import json
import math
import random
from pathlib import Path

from palace_solver import _engine
from palace_solver.game.generate import random_exact_state
from palace_solver.game.position import Position
from palace_solver.game.rules import Rules
from palace_solver.learn.model import load_weights

ROOT = Path(__file__).resolve().parents[1]


def random_set(k: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < k:
        s = random_exact_state(rng, 2, Rules(), hand=(0, 3), face_up=(0, 3),
                               face_down=(0, 2), pile=(0, 3))
        c = _engine.CState.from_state(s)
        g = _engine.ExactGraph(c)
        if not g.build(max_nodes=5_000_000, seconds=2.0):
            continue
        g.solve()
        out.append((c, g.root_value()))
    return out


def example_set():
    out = []
    for line in open(ROOT / "tests" / "data" / "exact_2p.jsonl"):
        rec = json.loads(line)
        s = Position.from_json(rec["position"]).to_state()
        out.append((_engine.CState.from_state(s), rec["expected"]["loss_probability"]))
    return out


def errs(data, fn):
    se = ll = 0.0
    for c, y in data:
        p = fn(c)
        act = [q for q in range(len(y)) if p[q] > 0 or y[q] > 0]
        se += sum((p[q] - y[q]) ** 2 for q in act) / len(act)
        ll += -sum(y[q] * math.log(max(p[q], 1e-12)) for q in act)
    return se / len(data), ll / len(data)


def evaluate(data):
    def mode(m):
        def f(c):
            old = _engine.set_eval_mode(m)
            try:
                return _engine.eval_position(c)
            finally:
                _engine.set_eval_mode(old)
        return f

    def const(c):
        v = _engine.eval_position(c)  # only to know who is in
        k = sum(1 for x in v if x > 0)
        return [1.0 / k if x > 0 else 0.0 for x in v]
    return {"learned": errs(data, mode("learned")), "cardcount": errs(data, mode("cardcount")),
            "constant": errs(data, const)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=150, help="random positions")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random positions")
    ap.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    args = ap.parse_args()
    if args.weights:
        w, _ = load_weights(args.weights)
        _engine.load_eval_weights(*(w[k] for k in ("w1", "b1", "w2", "b2", "w3")),
                                  source=args.weights)
    sets = {f"random ({args.positions}, seed {args.seed})": random_set(args.positions,
                                                                       args.seed),
            "examples (tests/data)": example_set()}
    print(f"{'exact positions':<28} {'learned mse/logloss':>20} {'card count':>16} "
          f"{'constant':>16}")
    for name, data in sets.items():
        r = evaluate(data)
        print(f"{name:<28} " + " ".join(f"{r[k][0]:.4f}/{r[k][1]:.4f}".rjust(w)
                                        for k, w in (("learned", 20), ("cardcount", 16),
                                                     ("constant", 16))))


if __name__ == "__main__":
    main()

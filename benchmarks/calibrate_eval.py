#!/usr/bin/env python3
"""Calibrate the horizon evaluation of the depth-limited search against exact values.

Solves random two-player exact-mode positions exactly, then fits the three parameters of
ext/deepen.pxi's horizon_eval (SCALE, TEMPO, BLIND) by a grid search on the mean squared
error between the evaluation and the exact loss, and prints the error of the current and
the fitted parameters (and of the constant 1/2, for scale).

    python benchmarks/calibrate_eval.py [--positions 400] [--seed 0]
"""
import argparse
import itertools
import random

from palace_solver import _engine
from palace_solver.game.generate import random_exact_state
from palace_solver.game.rules import Rules
from palace_solver.solve.solver import solve_exact


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    data = []
    while len(data) < args.positions:
        s = random_exact_state(rng, 2, Rules(), hand=(0, 3), face_up=(0, 3), face_down=(0, 2),
                               pile=(0, 3))
        a = solve_exact(s, engine="cython", time_budget=2.0)
        if a.method != "exact":
            continue
        data.append((_engine.CState.from_state(s), a.loss[0]))

    def mse(params):
        _engine.set_eval_params(*params)
        return sum((_engine.eval_position(c)[0] - v) ** 2 for c, v in data) / len(data)

    current = (0.35, 0.0, 1.5)
    base = sum((0.5 - v) ** 2 for _, v in data) / len(data)
    grid = itertools.product([0.2, 0.35, 0.45, 0.55, 0.7, 0.9, 1.2], [0.0, 0.2, 0.45, 0.7, 1.0],
                             [0.6, 0.8, 1.0, 1.2, 1.5])
    best = min(grid, key=mse)
    print(f"positions: {len(data)}")
    print(f"MSE constant 1/2:           {base:.4f}")
    print(f"MSE current {current}: {mse(current):.4f}")
    print(f"MSE fitted  {best}: {mse(best):.4f}")
    _engine.set_eval_params(*current)


if __name__ == "__main__":
    main()

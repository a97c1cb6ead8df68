#!/usr/bin/env python3
"""Cost of one horizon evaluation: the compiled card count, the compiled learned network,
and the same network through Python (features of palace_solver/learn/features.py and the
numpy forward pass of palace_solver/learn/model.py, one position at a time, as a Python
search would call it).

    python benchmarks/eval_cost.py [--positions 2000] [--reps 200]   # results/eval-cost.json

Positions: decision nodes of greedy self-play games, 2-5 players (seeded). Times are CPU
time of this process (the machine is shared: waiting for a core does not count).
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import provenance  # noqa: E402

from palace_solver import _engine  # noqa: E402
from palace_solver.game.rules import Rules  # noqa: E402
from palace_solver.game.state import PLAY_PHASE, State  # noqa: E402
from palace_solver.learn.features import state_rows  # noqa: E402
from palace_solver.learn.model import load_weights, probs  # noqa: E402
from palace_solver.sample.policies import GreedyBot  # noqa: E402


def positions(k: int, seed: int):
    rng = random.Random(seed)
    out, bot = [], GreedyBot()
    while len(out) < k:
        n = rng.randint(2, 5)
        s = State.new_game(Rules(), n)
        while not s.is_terminal() and len(out) < k:
            if s.is_chance():
                outs = s.chance_outcomes()
                s.apply(rng.choices([r for r, _ in outs], [float(p) for _, p in outs])[0])
                continue
            if s.phase == PLAY_PHASE:
                if rng.random() < 0.3:
                    out.append(s.clone())
                if len(out) % 50 == 0 and rng.random() < 0.02:
                    break
            s.apply(bot.choose(s, rng))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-save", action="store_true", help="print only")
    args = ap.parse_args()
    rec = provenance.record()
    states = positions(args.positions, args.seed)
    cs = [_engine.CState.from_state(s) for s in states]
    c = _engine.eval_cost(cs, args.reps)
    w, meta = load_weights(_engine._default_weights_path())
    py_reps = max(1, min(3, args.reps))
    t0 = time.process_time()
    for _ in range(py_reps):
        for s in states:
            _, x = state_rows(s)
            probs(w, x[None])
    py = (time.process_time() - t0) / (py_reps * len(states)) * 1e9
    print(f"{len(states)} positions, network {meta.get('h1')}x{meta.get('h2')}")
    print(f"card count, compiled:      {c['cardcount_ns']:10.0f} ns a call")
    print(f"learned, compiled:         {c['learned_ns']:10.0f} ns a call "
          f"({c['learned_ns'] / c['cardcount_ns']:.0f}x the card count)")
    print(f"learned, Python + numpy:   {py:10.0f} ns a call "
          f"({py / c['learned_ns']:.0f}x the compiled network)")
    if not args.no_save:
        out = {"positions": len(states), "reps": args.reps, "seed": args.seed,
               "network": [meta.get("h1"), meta.get("h2")],
               "cardcount_compiled_ns": round(c["cardcount_ns"], 1),
               "learned_compiled_ns": round(c["learned_ns"], 1),
               "learned_python_ns": round(py, 1)}
        print(provenance.write("eval-cost.json", out, rec))


if __name__ == "__main__":
    main()

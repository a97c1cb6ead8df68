"""Generations of the learned values: each learns from the games of the one before.

    python benchmarks/generations.py games RUN [--jobs J] [--games N]   # resumable
    python benchmarks/generations.py train GEN                          # the next network

A run is a named set of self-play games (:data:`RUNS`): the agent that plays every seat,
the seed and the number of games. Game ``g`` of a run is the same game whoever plays it,
whenever (:mod:`palace_solver.learn.engine_games`), and a run's file resumes where it
stopped. ``train GEN`` fits generation GEN's network and policy model on the runs its
recipe names (:data:`RECIPES`) and writes ``palace_solver/data/eval_weights-genGEN.npz``;
the same games, recipe and seed give the same weights bit for bit on one machine
(numpy pinned to one thread).

Runs:

- ``gen0-train``: the games generation 1 learns from, played by generation 0: the
  engine's search with learned leaves (:data:`SEARCH`) and the network learned from
  greedy games (``gen0``). A decision costs it about a quarter of ``engine1``'s, so the
  two cores here play four times as many games in the same hours.
- ``gen0-calib``: ``engine1`` at its full budget against itself: the held-out games on
  which the figures of ``palace analyze`` before this work are calibrated (never trained
  on).
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from palace_solver.learn.engine_games import game_tasks, run_games  # noqa: E402

#: Where the runs' game files live (large, not committed: rebuilt from their recipes).
DATA = Path(os.environ.get("PALACE_GAMES", Path(__file__).resolve().parent / "results"
                           / "games"))

#: run -> agent, seed, games asked
#: The draw phase's search of the engine from generation 0 on: 32 deals, each searched by
#: iterative deepening (alpha-beta, the draw pile's order fixed per deal) with the
#: generation's network at the leaves, 60,000 nodes a decision; the endgame as engine1's.
SEARCH = ("engine:determinizations=32:nodes=60000:chance_width=0:rollouts=0:max_depth=64"
          ":eval=learned:stop_at_budget=0:exact_nodes=0")


def search_agent(gen: int) -> str:
    """The agent of generation ``gen``: SEARCH and the endgame with its network."""
    return f"{SEARCH}:weights=gen{gen}:end_weights=gen{gen}"


RUNS = {
    "gen0-train": (search_agent(0), 100, 4000),
    "gen0-calib": ("engine1", 0, 4000),
}


#: generation -> how its network and policy model are fitted: the runs (and how many of
#: each run's first games) they learn from, the network they go on from, and the trainer's
#: options and seed (palace_solver.learn.train.train, learn.policy.fit)
RECIPES: dict = {}


def games_file(run: str) -> Path:
    legacy = {"gen0-calib": "gen0-games.jsonl"}   # the first run's file name
    path = DATA / f"{run}.jsonl"
    if not path.exists() and run in legacy and (DATA / legacy[run]).exists():
        return DATA / legacy[run]
    return path


def run_tasks(run: str, games: int | None = None):
    agent, seed, asked = RUNS[run]
    return game_tasks(games or asked, seed=seed, agent=agent)


def fit_generation(gen: int, recipe: dict, progress=None) -> dict:
    """Generation ``gen``'s weights from its recipe: ``{"weights", "policy", "meta"}``."""
    import hashlib

    import numpy as np

    from palace_solver.learn.engine_games import read_games, to_dataset
    from palace_solver.learn.model import load_weights
    from palace_solver.learn.policy import decisions, fit, loglik
    from palace_solver.learn.train import train
    from palace_solver.solve.engine import weights_path

    games, digests = [], []
    for run, count in recipe["runs"]:
        got = read_games(games_file(run))[:count]
        if len(got) < count:
            raise SystemExit(f"run {run}: {len(got)} finished games, the recipe needs {count}")
        # game numbers of different runs apart, so that 'held out' (9 mod 10) is per game
        games += [(g + 1_000_000 * len(digests), rec) for g, rec in got]
        digests.append(hashlib.blake2b(repr([(g, rec["events"]) for g, rec in got]).encode(),
                                       digest_size=8).hexdigest())
    data = to_dataset(games)
    init = load_weights(weights_path(recipe["init"]))[0] if recipe.get("init") else None
    out = train([data], init=init, progress=progress, **recipe["train"])
    pol = decisions(games)
    held = pol["game"] % 10 == 9
    theta = fit(pol, select=~held, **recipe.get("policy", {}))
    meta = dict(out["meta"])
    meta.update(generation=gen, recipe=recipe, games_digest=digests,
                policy={"train": loglik(theta, pol, ~held), "held": loglik(theta, pol, held)})
    return {"weights": out["weights"], "policy": np.asarray(theta, np.float64), "meta": meta,
            "held": out["held"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("games", help="play a run's self-play games (resumable)")
    g.add_argument("run", choices=sorted(RUNS))
    g.add_argument("--jobs", type=int, default=1)
    t = sub.add_parser("train", help="fit a generation's network and policy model")
    t.add_argument("gen", type=int)
    t.add_argument("--out", type=Path, help="default: palace_solver/data/eval_weights-genGEN.npz")
    args = ap.parse_args(argv)
    if args.cmd == "train":
        import json

        import numpy as np

        from palace_solver.learn.train import errors
        res = fit_generation(args.gen, RECIPES[args.gen],
                             progress=lambda m: print(m, file=sys.stderr))
        out = args.out or (Path(__file__).resolve().parents[1] / "palace_solver" / "data"
                           / f"eval_weights-gen{args.gen}.npz")
        meta = res["meta"]
        meta["held_errors"] = {k: errors(res["weights"], res["held"], kind=k)
                               if k == "learned" else errors(None, res["held"], kind=k)
                               for k in ("learned", "cardcount", "constant")}
        np.savez(out, **{k: np.ascontiguousarray(res["weights"][k], dtype=np.float32)
                         for k in ("w1", "b1", "w2", "b2", "w3")},
                 policy=res["policy"], meta=np.array(json.dumps(meta, sort_keys=True)))
        print(json.dumps({k: meta[k] for k in ("held_errors", "policy")}, indent=1))
        print(f"{out}", file=sys.stderr)
        return 0
    if args.cmd == "games":
        out = games_file(args.run)
        out.parent.mkdir(parents=True, exist_ok=True)
        res = run_games(run_tasks(args.run), jobs=args.jobs, output=out)
        print(f"{len(res)} games in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

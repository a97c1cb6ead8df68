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
- ``gen1-train``: generation 1's search against itself, the games of generation 2.
- ``gen1-calib``: ``engine`` (generation 1 at its full budget) against itself: the
  "after" of the calibration benchmark.

A recipe's runs are read as their first games without a gap (``finished_games``), so a
run still growing does not change the generations fitted on it.
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from palace_solver.learn.engine_games import first_games, game_tasks, run_games  # noqa: E402
from palace_solver.learn.generation import RECIPES, fit_generation, save_generation  # noqa: E402

#: Where the runs' game files live: committed (about 5 KB a game), so that a run grows
#: across sessions and a generation's recipe can be rebuilt from a clone.
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
    "gen1-train": (search_agent(1), 101, 4000),
    "gen1-calib": ("engine", 1, 4000),
}


def games_file(run: str) -> Path:
    legacy = {"gen0-calib": "gen0-games.jsonl"}   # the first run's file name
    path = DATA / f"{run}.jsonl"
    if not path.exists() and run in legacy and (DATA / legacy[run]).exists():
        return DATA / legacy[run]
    return path


def run_tasks(run: str, games: int | None = None):
    agent, seed, asked = RUNS[run]
    return game_tasks(games or asked, seed=seed, agent=agent)


def finished_games(run: str) -> list:
    """The run's first games without a gap (``first_games``), none for a run not begun."""
    path = games_file(run)
    return first_games(path) if path.exists() else []


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
        recipe = RECIPES[args.gen]
        try:
            res = fit_generation(args.gen, recipe,
                                 {run: finished_games(run) for run, _ in recipe["runs"]},
                                 progress=lambda m: print(m, file=sys.stderr))
        except ValueError as e:
            raise SystemExit(str(e))
        out = args.out or (Path(__file__).resolve().parents[1] / "palace_solver" / "data"
                           / f"eval_weights-gen{args.gen}.npz")
        meta = save_generation(res, out)
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

"""Generations of the learned values: each learns from the games of the one before.

    python benchmarks/generations.py games GEN --games N [--jobs J] [--out FILE]
    python benchmarks/generations.py train GEN [--data FILE ...] [--out FILE]

``games GEN`` plays the self-play games of generation GEN's engine (the agent of
:data:`AGENT`) on the batch layer, resumable: game ``g`` of generation GEN is the same game
whoever plays it, whenever (:mod:`palace_solver.learn.engine_games`, seed GEN). ``train
GEN+1`` fits the next generation's network on them (:mod:`palace_solver.learn.train`).
The recipe of every shipped generation is in :data:`RECIPES`; rebuilding one from its
games gives its weights bit for bit on one machine (tests/test_generations.py).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from palace_solver.learn.engine_games import game_tasks, run_games

DATA = Path("/work/data") if Path("/work/data").is_dir() else \
    Path(__file__).resolve().parent / "results" / "generations"

#: generation -> the agent whose games it plays
AGENT = {0: "engine1"}


def games_file(gen: int) -> Path:
    return DATA / f"gen{gen}-games.jsonl"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("games", help="play a generation's self-play games (resumable)")
    g.add_argument("gen", type=int)
    g.add_argument("--games", type=int, required=True)
    g.add_argument("--jobs", type=int, default=1)
    g.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "games":
        out = args.out or games_file(args.gen)
        out.parent.mkdir(parents=True, exist_ok=True)
        tasks = game_tasks(args.games, seed=args.gen, agent=AGENT[args.gen])
        res = run_games(tasks, jobs=args.jobs, output=out)
        print(f"{len(res)} games in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

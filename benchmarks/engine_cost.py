"""What a decision costs two engines, side by side on the same positions.

    python benchmarks/engine_cost.py [--a engine1] [--b engine] [--positions 60]

Strength bought with time is no progress, so the engine is timed against the frozen
``engine1`` on the very positions ``engine1`` met in its own games (the ``gen0-calib`` run
of ``benchmarks/generations.py``, or another ``--run``: every tenth decision with a
choice; ``--play AGENT``: fresh self-play games of that agent, whose seats are then what
the engine infers and searches), each position decided by A and then by B with the seat's
view and the game's public record, alternating so that both meet the same load. Times are
CPU seconds of this process (with ``--repeat R``, the least of R decisions of the same
position: a decision's nodes do not change from one to the next, only the time the load
adds). Per phase (draw pile holding cards, empty): the median and mean milliseconds a
decision, the ratio of B's median to A's, nodes a decision and nodes per second, horizon
evaluations per second and the depth reached. ``benchmarks/results/engine-cost.json``.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import provenance

from palace_solver.agents.registry import make_agent
from palace_solver.learn.engine_games import (
    game_tasks, play_selfplay_game, read_games, replay_tracked)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generations import games_file  # noqa: E402
from strength import agent_budget  # noqa: E402


def positions(count: int, every: int = 10, run: str = "gen0-calib", first: int = 0,
              players: int | None = None, games=None):
    """(state, tracker) of decisions with a choice from the run's games from ``first`` on
    (of ``players`` players only, when given; ``games``: ``(number, record)`` pairs read
    instead of the run's), the draw phase and the endgame in the proportions the games have
    them."""
    out = []
    for g, game in read_games(games_file(run)) if games is None else games:
        if g < first or players is not None and game["n"] != players:
            continue
        for state, _, _, k, tracker in replay_tracked(game):
            if k % every == 0 and len(state.legal_moves()) > 1:
                out.append((state, tracker.clone()))
                if len(out) >= count:
                    return out
    return out


def timed(spec: str, state, tracker) -> dict:
    agent = make_agent(spec, seed=1)
    agent.tracker = tracker
    before = dict(agent.stats)
    t0 = time.process_time()
    agent.choose(state, random.Random(0))
    sec = time.process_time() - t0
    nodes = agent.stats.get("nodes", 0) - before.get("nodes", 0)
    depth = agent.stats.get("depth", 0) - before.get("depth", 0)
    return {"seconds": sec, "nodes": nodes, "depth": depth}


def summary(rows):
    if not rows:
        return None
    ms = [1000 * r["seconds"] for r in rows]
    sec = sum(r["seconds"] for r in rows)
    return {"decisions": len(rows), "median_ms": round(statistics.median(ms), 2),
            "mean_ms": round(statistics.mean(ms), 2),
            "nodes_per_decision": round(statistics.mean(r["nodes"] for r in rows)),
            "nodes_per_second": round(sum(r["nodes"] for r in rows) / sec) if sec else None,
            "mean_depth": round(statistics.mean(r["depth"] for r in rows), 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="engine1")
    ap.add_argument("--b", default="engine")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--run", default="gen0-calib", help="the self-play run the positions are from")
    ap.add_argument("--first", type=int, default=0, help="its first game used")
    ap.add_argument("--players", type=int, default=None,
                    help="only the run's games of this many players (default: all)")
    ap.add_argument("--play", metavar="AGENT",
                    help="positions from fresh self-play games of AGENT (greedy, ...) instead "
                         "of --run's: its seats are what the engine infers and searches")
    ap.add_argument("--seed", type=int, default=0, help="with --play (default 0)")
    ap.add_argument("--out", default="engine-cost.json")
    ap.add_argument("--repeat", type=int, default=1,
                    help="decide each position this many times, keep the least CPU time "
                         "(the load here inflates single timings)")
    args = ap.parse_args(argv)
    rec = provenance.record()
    games = None
    if args.play:
        # played one at a time, only as many as the positions need
        tasks = game_tasks(10 * args.positions, seed=args.seed, agent=args.play,
                           players={args.players or 2: 1.0}, first=args.first)
        games = ((t["id"], play_selfplay_game(t)) for t in tasks)
        args.run = f"play:{args.play}:{args.players or 2}p:seed{args.seed}"
    pos = positions(args.positions, run=args.run, first=args.first, players=args.players,
                    games=games)
    res = {"a": {"draw": [], "end": []}, "b": {"draw": [], "end": []}}
    for i, (state, tracker) in enumerate(pos):
        phase = "draw" if state.draw_pile > 0 else "end"
        order = (("a", args.a), ("b", args.b)) if i % 2 == 0 else (("b", args.b), ("a", args.a))
        best = {}
        for _ in range(max(1, args.repeat)):
            for side, spec in order:
                t = timed(spec, state, tracker.clone())
                if side not in best or t["seconds"] < best[side]["seconds"]:
                    best[side] = t
        for side in ("a", "b"):
            res[side][phase].append(best[side])
    out = {"a": args.a, "b": args.b, "repeat": args.repeat,
           "agents": [agent_budget(args.a), agent_budget(args.b)], "positions": len(pos),
           "run": args.run, "first_game": args.first, "phases": {}}
    if args.players is not None:
        out["players"] = args.players
    for phase in ("draw", "end"):
        sa, sb = summary(res["a"][phase]), summary(res["b"][phase])
        out["phases"][phase] = {"a": sa, "b": sb,
                                "median_ratio_b_over_a": round(sb["median_ms"] / sa["median_ms"], 3)
                                if sa and sb else None}
        print(f"{phase}: {args.a} {sa}\n      {args.b} {sb}\n      ratio "
              f"{out['phases'][phase]['median_ratio_b_over_a']}")
    print(provenance.write(args.out, out, rec), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

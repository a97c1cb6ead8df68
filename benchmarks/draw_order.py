"""How far the engine's draw-phase choices lean on the draw pile's order it cannot know.

    python benchmarks/draw_order.py [--positions 200] [--specs A,B,...] [--reference R]

``engine`` fixes the draw pile's order in each deal it searches (``SearchConfig.ordered``):
every deal is then a game of perfect information, and each side's replies deeper in the
tree are chosen knowing the cards still to come, which no player does. The alternative
keeps the refills as chance nodes, ``chance_width`` draws of the pool per node
(``ordered=0``). On the same draw-phase positions (every fifth decision with a choice of
the held-out games 400 on of ``gen1-calib``, with the seat's view and the game's public
record), each agent decides once; per agent: the share of decisions that are a pickup,
the median CPU milliseconds, the mean depth reached, and how often its move is the
reference's, a search without the order at 16 times the nodes and three times the draws
kept per chance node (the default reference). Nothing here is a game's outcome: it says
how the agents differ, not which wins (that is the e1 rows of RESULTS-strength.md).
``benchmarks/results/draw-order.json``.
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
from palace_solver.game.moves import PICKUP

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_cost import positions  # noqa: E402
from strength import agent_budget  # noqa: E402

SPECS = ("engine", "engine:ordered=0:chance_width=2", "engine:ordered=0:chance_width=3",
         "engine:ordered=0:chance_width=4")
REFERENCE = "engine:ordered=0:chance_width=6:budget=16"


def draw_positions(count: int, run: str = "gen1-calib", first: int = 400):
    """(state, tracker) of ``count`` draw-phase decisions with a choice, in game order."""
    found = positions(count * 4, every=5, run=run, first=first)
    return [p for p in found if p[0].draw_pile > 0][:count]


def decisions(spec: str, pos) -> list[dict]:
    """One decision of ``spec`` (seed 1) at each position: the move and what it cost."""
    rows = []
    for state, tracker in pos:
        agent = make_agent(spec, seed=1)
        agent.tracker = tracker.clone()
        t0 = time.process_time()
        move = agent.choose(state, random.Random(0))
        rows.append({"move": str(move), "pickup": move.kind == PICKUP,
                     "ms": 1000 * (time.process_time() - t0), "depth": agent.stats["depth"]})
    return rows


def summarize(rows: list[dict], ref: list[dict] | None) -> dict:
    out = {"pickup_share": round(statistics.mean(r["pickup"] for r in rows), 4),
           "median_ms": round(statistics.median(r["ms"] for r in rows), 2),
           "mean_depth": round(statistics.mean(r["depth"] for r in rows), 3)}
    if ref is not None:
        out["agrees_with_reference"] = round(
            statistics.mean(a["move"] == b["move"] for a, b in zip(rows, ref)), 4)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--specs", default=",".join(SPECS), help="agents, comma-separated")
    ap.add_argument("--reference", default=REFERENCE)
    ap.add_argument("--out", type=Path, default=provenance.RESULTS / "draw-order.json")
    args = ap.parse_args(argv)
    rec = provenance.record(argv)
    pos = draw_positions(args.positions)
    legal_pickup = sum(any(m.kind == PICKUP for m in s.legal_moves()) for s, _ in pos)
    print(f"{len(pos)} draw-phase positions, {legal_pickup} with a pickup legal",
          file=sys.stderr)
    ref = decisions(args.reference, pos)
    agents = {args.reference: summarize(ref, None)}
    for spec in args.specs.split(","):
        agents[spec] = summarize(decisions(spec, pos), ref)
        print(spec, agents[spec], file=sys.stderr)
    budgets = {spec: agent_budget(spec) for spec in agents}
    provenance.write(args.out, {"positions": len(pos), "pickup_legal": legal_pickup,
                                "reference": args.reference, "agents": agents,
                                "budgets": budgets}, rec)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Quick paired matches for the horizon evaluation: the det bot searching from the first
play with one evaluation, against greedy or against det with another evaluation.

    python benchmarks/eval_match.py det:learned greedy --starts 200 --jobs 2
    python benchmarks/eval_match.py det:learned det:cardcount --starts 200 --jobs 2

Agents: ``greedy``, ``lowest``, ``random``, or ``det:MODE`` (DetBot with ``draw_limit=None``
and the horizon evaluation MODE: cardcount, learned, auto; DetBot switches the mode around
each of its searches, so two det agents with different modes can meet), ``detg:MODE`` (the same
bot playing greedy while the draw pile holds cards). Starts are the tournament's full-deal
starts (benchmarks/tournament.py: a seeded deal, greedy layouts); each is played twice,
seats swapped, with the same chance cards (common random numbers). Score of A: 1 - A's mean
loss share, with a paired 95% interval over the starts. Budgets: ``--samples`` deals per
decision, ``--nodes`` search nodes per deal.
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tournament import _play, make_start  # noqa: E402

from palace_solver import _engine  # noqa: E402
from palace_solver.agents.method_bots import DetBot  # noqa: E402
from palace_solver.jobs.batch import run_batch, task_seed  # noqa: E402
from palace_solver.learn.model import load_weights  # noqa: E402
from palace_solver.sample.policies import make_bot  # noqa: E402
from palace_solver.sample.stats import mean_ci  # noqa: E402


def make_agent(spec: str, budget: dict, seed: int):
    kind, _, mode = spec.partition(":")
    if kind in ("det", "detg"):
        bot = DetBot(seed, samples=budget["samples"], deal_nodes=budget["nodes"],
                     exact_mode_nodes=budget["exact_nodes"], draw_nodes=budget["nodes"],
                     draw_limit=None if kind == "det" else 0, eval_mode=mode or "learned")
        return bot
    return make_bot(spec)


def _use_weights(path):
    if path and _engine.eval_weights_loaded() != path:
        w, _ = load_weights(path)
        _engine.load_eval_weights(*(w[k] for k in ("w1", "b1", "w2", "b2", "w3")),
                                  source=path)


def play_task(task: dict) -> dict:
    _use_weights(task["budget"].get("weights"))
    names = [task["b"], task["a"]] if task["swap"] else [task["a"], task["b"]]
    start, tracker, _ = make_start("full", task["start"])
    bots = [make_agent(nm, task["budget"], task_seed(task["seed"], f"{task['id']}/{i}"))
            for i, nm in enumerate(names)]
    for b in bots:
        if not hasattr(b, "tracker"):
            b.tracker = None
    t0 = time.perf_counter()
    loss, decisions, reason = _play(start, tracker, bots, {
        "seed": task["seed"], "kind": "full", "start": task["start"], "id": task["id"]})
    sa = 1 if task["swap"] else 0
    st = {k: v for b in bots if hasattr(b, "stats") for k, v in b.stats.items()
          if k in ("decisions", "searched", "nodes", "seconds")}
    return {"score": 1.0 - loss[sa], "decisions": decisions, "reason": reason,
            "seconds": time.perf_counter() - t0, "stats": st}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="agent A (det:MODE, detg:MODE, greedy, lowest, random)")
    ap.add_argument("b", help="agent B")
    ap.add_argument("--starts", type=int, default=200, help="full-deal starts (x2 seatings)")
    ap.add_argument("--first", type=int, default=0, help="first start index")
    ap.add_argument("--samples", type=int, default=4, help="det: deals per decision")
    ap.add_argument("--nodes", type=int, default=3000, help="det: nodes per deal")
    ap.add_argument("--exact-nodes", type=int, default=30000,
                    help="det: nodes when no hand card is hidden")
    ap.add_argument("--weights", default=None,
                    help="weights file of the learned evaluation (default: the shipped one)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the games")
    ap.add_argument("--jobs", type=int, default=1, help="local processes")
    ap.add_argument("--output", default=None, help="resumable JSONL of finished games")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args()
    budget = {"samples": args.samples, "nodes": args.nodes, "exact_nodes": args.exact_nodes}
    if args.weights:
        budget["weights"] = str(Path(args.weights).resolve())
    tasks = [{"id": 2 * i + sw, "a": args.a, "b": args.b, "start": args.first + i,
              "swap": sw, "seed": args.seed, "budget": budget}
             for i in range(args.starts) for sw in (0, 1)]
    t0 = time.perf_counter()
    res = run_batch(play_task, tasks, jobs=args.jobs, output=args.output, progress="auto",
                    label="games")
    paired = [(res[2 * i]["score"] + res[2 * i + 1]["score"]) / 2 for i in range(args.starts)]
    m, lo, hi = mean_ci(paired)
    wins = sum(r["score"] == 1 for r in res)
    draws = sum(r["score"] == 0.5 for r in res)
    out = {"a": args.a, "b": args.b, "starts": args.starts, "score": m, "ci95": [lo, hi],
           "wins": wins, "draws": draws, "losses": len(res) - wins - draws,
           "seconds_per_game": sum(r["seconds"] for r in res) / len(res),
           "wall_seconds": round(time.perf_counter() - t0, 1), "budget": budget}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.a} vs {args.b}: {m:.3f} [{lo:.3f}, {hi:.3f}] over {args.starts} starts "
              f"x 2 seatings (W/D/L {wins}/{draws}/{out['losses']}), "
              f"{out['seconds_per_game']:.2f} s a game, budget {budget}")


if __name__ == "__main__":
    main()

"""Does ``palace review`` tell a strong player from a weak one, and what does a review cost?

Two questions, one runner (results/review-accuracy.json):

1. **Accuracy.** ``engine`` plays ``random`` and ``greedy`` over ``--starts`` full deals,
   each deal in both seatings (as ``palace match`` does: the same chance events in both),
   every game recorded; each record is reviewed at the default budget
   (:class:`palace_solver.review.judge.Budget`), both seats. Reported: each side's mean
   accuracy and mean added loss over the games.
2. **Cost.** For ``--cost-games`` engine-against-engine games, the CPU seconds the engine
   spent choosing its moves (both seats) against the CPU seconds of reviewing the game
   (both seats, default budget), in this process (``--jobs 1``) and with two worker
   processes (children's CPU added; wall time too). The engine-against-random games' ratio
   (the engine's seat only against reviewing both seats) is reported as well.

    python benchmarks/review_accuracy.py --starts 10 --cost-games 3

Games are played with the pieces of ``palace match`` (its starts, agents and their view of
the table, a chance generator seeded by the start) and written with
:func:`palace_solver.game.record.record_from_events`.
"""
from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402

from palace_solver.agents.play import _sample  # noqa: E402
from palace_solver.agents.registry import make_agent  # noqa: E402
from palace_solver.game.record import record_from_events  # noqa: E402
from palace_solver.game.rules import Rules  # noqa: E402
from palace_solver.jobs.match import CAP, make_start, start_key  # noqa: E402
from palace_solver.review.judge import Budget  # noqa: E402
from palace_solver.review.run import review  # noqa: E402


def play(a: str, b: str, start: int, seat: int, seed: int = 0):
    """One game of ``a`` (in ``seat``) against ``b`` from full start ``start``: the record
    and the CPU seconds each seat's agent spent choosing."""
    rules = Rules()
    n = 2
    s, tracker, history = make_start("full", rules, n, start_key("full", n, seed, start))
    specs = [a if q == seat else b for q in range(n)]
    agents = [make_agent(sp, seed * 1000 + start * 10 + q) for q, sp in enumerate(specs)]
    for ag in agents:
        if hasattr(ag, "tracker"):
            ag.tracker = tracker
    events = [ev if isinstance(ev, int) else str(ev) for ev in history]
    rng = random.Random(f"review-bench-{seed}-{start}")
    bot_rng = random.Random(f"review-bench-bots-{seed}-{start}-{seat}")
    cpu = [0.0] * n
    seen: set = set()
    reason = "cap"
    for _ in range(CAP):
        while s.is_chance():
            ev = _sample(s, rng)
            tracker.apply(s, ev)
            events.append(ev)
        if s.is_terminal():
            reason = "end"
            break
        k = s.key()
        if k in seen:
            reason = "repetition"
            break
        seen.add(k)
        p = s.to_move
        t = time.process_time()
        mv = agents[p].choose(s, bot_rng)
        cpu[p] += time.process_time() - t
        events.append(str(mv))
        tracker.apply(s, mv)
    names = [specs[0], specs[1] if specs[1] != specs[0] else specs[1] + "2"]
    if reason == "end":
        loss = s.result()
        result = f"{names[[q for q in range(n) if loss[q] == 1][0]]} loses"
    else:
        result = f"draw ({reason})"
    rec = record_from_events(rules, names, events, result=result,
                             tags={"source": "benchmarks/review_accuracy.py",
                                   "match start": str(start)},
                             fill_seed=f"{seed}-{start}-{seat}")
    return rec, cpu


def timed_review(records, jobs: int):
    t0, w0 = time.process_time(), time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    reports = review(records, budget=Budget(), jobs=jobs, progress=False)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - t0 + (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return reports, cpu, time.perf_counter() - w0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=10, help="deals per opponent (x2 seatings)")
    ap.add_argument("--cost-games", type=int, default=3)
    ap.add_argument("--opponents", default="random,greedy")
    ap.add_argument("--jobs", type=int, default=2, help="workers for the accuracy reviews")
    ap.add_argument("--output", default=str(provenance.RESULTS / "review-accuracy.json"))
    args = ap.parse_args(argv)
    rec = provenance.record()
    out: dict = {"budget": Budget().to_json(), "accuracy": {}, "cost": {}}
    for opp in args.opponents.split(","):
        games = []
        for start in range(args.starts):
            for seat in (0, 1):
                r, cpu = play("engine", opp, start, seat)
                games.append((f"{opp}-{start}-{seat}", r, cpu[seat]))
        reports, cpu, wall = timed_review([(k, r) for k, r, _ in games], args.jobs)
        rows = []
        for (k, r, engine_cpu), rep in zip(games, reports):
            acc = {p["name"]: p for p in rep["players"]}
            rows.append({"game": k, "result": r.result, "plies": len(rep["decisions"]),
                         "engine_cpu": round(engine_cpu, 3),
                         "engine": {x: acc["engine"][x] for x in ("accuracy", "loss_added",
                                                                  "inaccuracies", "mistakes",
                                                                  "blunders", "decisions")},
                         opp: {x: acc[opp][x] for x in ("accuracy", "loss_added",
                                                        "inaccuracies", "mistakes",
                                                        "blunders", "decisions")}})
        mean = {side: round(statistics.mean(row[side]["accuracy"] for row in rows), 1)
                for side in ("engine", opp)}
        added = {side: round(statistics.mean(row[side]["loss_added"] for row in rows), 4)
                 for side in ("engine", opp)}
        engine_cpu = sum(row["engine_cpu"] for row in rows)
        out["accuracy"][opp] = {"games": len(rows), "mean_accuracy": mean,
                                "mean_loss_added": added,
                                "review_cpu_seconds": round(cpu, 1),
                                "review_wall_seconds": round(wall, 1), "jobs": args.jobs,
                                "engine_play_cpu_seconds": round(engine_cpu, 1),
                                "cpu_ratio_review_to_engine": round(cpu / engine_cpu, 2)
                                if engine_cpu else None, "rows": rows}
        print(f"engine vs {opp}: mean accuracy {mean}, mean added loss {added}; review "
              f"{cpu:.0f} s CPU for the engine's {engine_cpu:.0f} s", flush=True)
    cost = []
    for g in range(args.cost_games):
        r, cpu = play("engine", "engine", 100 + g, 0)
        _, rcpu1, rwall1 = timed_review([(f"cost-{g}", r)], 1)
        _, rcpu2, rwall2 = timed_review([(f"cost-{g}", r)], 2)
        play_cpu = sum(cpu)
        cost.append({"game": g, "decisions": sum(1 for ln in r.events if " draw " not in ln
                                                 and " up " not in ln),
                     "engine_play_cpu": round(play_cpu, 2),
                     "review_cpu_jobs1": round(rcpu1, 2), "review_wall_jobs1": round(rwall1, 2),
                     "review_cpu_jobs2": round(rcpu2, 2), "review_wall_jobs2": round(rwall2, 2),
                     "ratio_jobs1": round(rcpu1 / play_cpu, 2),
                     "ratio_jobs2": round(rcpu2 / play_cpu, 2)})
        print(f"cost game {g}: engine {play_cpu:.1f} s CPU; review {rcpu1:.1f} s CPU "
              f"(--jobs 2: {rcpu2:.1f} s CPU, {rwall2:.1f} s wall)", flush=True)
    if cost:
        tp = sum(c["engine_play_cpu"] for c in cost)
        out["cost"] = {"games": cost, "engine_play_cpu": round(tp, 2),
                       "review_cpu_jobs1": round(sum(c["review_cpu_jobs1"] for c in cost), 2),
                       "review_cpu_jobs2": round(sum(c["review_cpu_jobs2"] for c in cost), 2),
                       "ratio_jobs1": round(sum(c["review_cpu_jobs1"] for c in cost) / tp, 2),
                       "ratio_jobs2": round(sum(c["review_cpu_jobs2"] for c in cost) / tp, 2)}
    provenance.write(Path(args.output), out, rec)
    print(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

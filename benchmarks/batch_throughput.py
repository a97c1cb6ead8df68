"""Throughput of the batch layer against the number of workers: games/s (``palace play
--games N``) and positions/s (``palace analyze --batch``), in local processes and on Ray.

    python benchmarks/batch_throughput.py                  # 1, 2 local; Ray 1, 2, 4, 8: results/
    python benchmarks/batch_throughput.py --quick          # smaller batches
    python benchmarks/batch_throughput.py --ray-workers 1,2 --games 4000

Rows: local processes (``jobs`` 1 and 2), then a local Ray cluster started with k CPUs for
each k of ``--ray-workers`` (one Ray worker process per CPU; the cluster's start-up is timed
apart, and its workers are warmed up before the clock starts). Every row runs the same
tasks, so every row prints the same signature (total decisions of the games, best-move
digest of the positions): a row that differs would be a bug, not noise.

Ray's per-task overhead is measured on no-op tasks: ``round trip`` is one task submitted
and waited for at a time (``ray.get(f.remote())``), ``pipelined`` the cost per task of
run_batch with tasks in flight, against the same no-op tasks in this process.

Scaling to many Ray workers. A batch is driven from one process that submits every task and
receives every result, so that process sets a ceiling of about 1/overhead tasks/s whatever
the cluster's size; k workers stay busy only while k / task_seconds < 1 / overhead, i.e.
while tasks last well over k x overhead. That is why a task is a group of games (50 games of
a series, 100 of the swap table: tenths of a second) rather than one game (~3 ms, the same
order as Ray's per-task cost). run_batch keeps 2 x workers tasks in flight, so a worker
finds its next task queued when it finishes one (the result's trip back overlaps work),
while a batch of millions of tasks never sits in the object store at once. On this 2-core
machine rows beyond 2 workers only show the cost of oversubscription; on a cluster the
games/s of one worker times the worker count is the expectation, as long as the task length
stays above the bound above (raise ``--per-task`` for very large clusters).

Reading the rows on a shared machine. Linux's autogroup scheduler (on by default on
desktops and on this machine) shares the CPU between *sessions* before processes: local
worker processes sit in the benchmark's session and share its one slice, whereas Ray starts
its workers in sessions of their own, each with a slice. With other jobs running, Ray rows
therefore get more of the machine than local rows, and rows beyond the core count still
"gain"; on an idle machine both sides are bounded by the cores. The load average is printed
for that reason.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time

# A benchmark cluster stays on the loopback address (Ray otherwise binds the routable IP).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import provenance  # noqa: E402

from palace_solver.game.position import InvalidPositionError, Position, to_text  # noqa: E402
from palace_solver.game.rules import Rules  # noqa: E402
from palace_solver.game.state import PLAY_PHASE, State  # noqa: E402
from palace_solver.jobs.batch import run_batch  # noqa: E402
from palace_solver.jobs.batch_analysis import analysis_tasks, analyze_task  # noqa: E402
from palace_solver.jobs.series import merge_series, play_series_task, series_tasks  # noqa: E402
from palace_solver.sample.policies import make_bot  # noqa: E402
from palace_solver.sample.rollout import chance_sample  # noqa: E402


def noop(task: dict) -> dict:
    """A task that does nothing: what is left of its time is the batch layer's cost."""
    return {}


def positions(count: int, seed: int = 0) -> list[str]:
    """Two-player play-phase positions seen by the player to move (hidden hand, draw pile:
    the sampled analysis), from greedy games stopped after 6 to 30 play decisions."""
    out: list[str] = []
    g = 0
    bot = make_bot("greedy")
    while len(out) < count:
        rng = random.Random(f"batch-bench-{seed}-{g}")
        g += 1
        s = State.new_game(Rules(), 2)
        target, k = rng.randrange(6, 30), 0
        while not s.is_terminal():
            if s.is_chance():
                s.apply(chance_sample(s.chance_outcomes(), rng))
                continue
            if s.phase == PLAY_PHASE:
                if k == target:
                    try:
                        out.append(to_text(Position.from_state(s, perspective=s.to_move)))
                    except InvalidPositionError:
                        pass
                    break
                k += 1
            s.apply(bot.choose(s, rng))
    return out


def workloads(args):
    games = series_tasks(Rules(), 2, ["greedy"], args.games, seed=1, per_task=args.per_task)
    pos = analysis_tasks(positions(args.positions), samples=args.samples, depth=2, hash_mb=1,
                         seed=1)
    return games, pos


def measure(games, pos, jobs: int, ray) -> dict:
    t = time.perf_counter()
    g = run_batch(play_series_task, games, jobs=jobs, ray=ray)
    tg = time.perf_counter() - t
    t = time.perf_counter()
    p = run_batch(analyze_task, pos, jobs=jobs, ray=ray)
    tp = time.perf_counter() - t
    n_games = sum(x["games"] for x in games)
    res = merge_series(Rules(), 2, ["greedy"], n_games, 1, g)
    best = hashlib.blake2b(json.dumps([x["analysis"]["best_move"] for x in p]).encode(),
                           digest_size=4).hexdigest()
    return {"games_s": n_games / tg, "positions_s": len(pos) / tp,
            "signature": f"{res.decisions} decisions, moves {best}"}


def ray_overhead(ray, n: int) -> dict:
    f = ray.remote(num_cpus=1)(noop)
    ray.get([f.remote({}) for _ in range(8)])  # warm
    t = time.perf_counter()
    for _ in range(n // 4):
        ray.get(f.remote({}))
    rt = (time.perf_counter() - t) / (n // 4)
    tasks = [{"id": i} for i in range(n)]
    t = time.perf_counter()
    run_batch(noop, tasks, ray="auto")
    pipe = (time.perf_counter() - t) / n
    t = time.perf_counter()
    run_batch(noop, tasks)
    local = (time.perf_counter() - t) / n
    return {"round_trip_ms": 1000 * rt, "pipelined_ms": 1000 * (pipe - local),
            "tasks": n}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3000, help="games per row")
    ap.add_argument("--per-task", type=int, default=50, help="games per task")
    ap.add_argument("--positions", type=int, default=16, help="positions per row")
    ap.add_argument("--samples", type=int, default=4, help="determinizations per position")
    ap.add_argument("--ray-workers", default="1,2,4,8",
                    help="Ray cluster sizes (CPUs) to measure; '' for none")
    ap.add_argument("--overhead-tasks", type=int, default=1000,
                    help="no-op tasks for the per-task overhead")
    ap.add_argument("--quick", action="store_true", help="small batches")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--no-save", action="store_true",
                    help="do not write benchmarks/results/batch-throughput.json")
    args = ap.parse_args(argv)
    rec = provenance.record()
    if args.quick:
        args.games, args.positions, args.overhead_tasks = 600, 6, 200
    games, pos = workloads(args)
    rows = []
    for jobs in (1, 2):
        rows.append({"workers": f"local {jobs} process{'es' if jobs > 1 else ''}",
                     **measure(games, pos, jobs, None)})
        print(_row(rows[-1]), file=sys.stderr)
    overhead = None
    ks = [int(k) for k in args.ray_workers.split(",") if k.strip()]
    if ks:
        import ray
        for k in ks:
            t = time.perf_counter()
            ray.init(address="local", num_cpus=k, include_dashboard=False,
                     log_to_driver=False, logging_level="ERROR")
            start = time.perf_counter() - t
            # warm the workers: one task per CPU, long enough that all k start
            run_batch(play_series_task, games[:k], ray="auto")
            rows.append({"workers": f"ray {k} worker{'s' if k > 1 else ''}",
                         **measure(games, pos, 1, "auto"), "start_s": start})
            print(_row(rows[-1]), file=sys.stderr)
            if k == 2 or (overhead is None and k == ks[-1]):
                overhead = {"workers": k, **ray_overhead(ray, args.overhead_tasks)}
            ray.shutdown()
    sigs = {r["signature"] for r in rows}
    assert len(sigs) == 1, f"results differ between rows: {sigs}"
    out = {"games": len(games) and sum(x["games"] for x in games), "games_per_task":
           args.per_task, "positions": len(pos), "samples": args.samples, "cpus":
           os.cpu_count(), "load_average": os.getloadavg()[0], "rows": rows,
           "ray_overhead": overhead}
    if not args.no_save:
        print(provenance.write("batch-throughput.json", out, rec), file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{out['games']} games (2 players, greedy, {args.per_task} per task), "
          f"{len(pos)} positions (sampled, {args.samples} samples, depth 2); "
          f"{out['cpus']} CPUs, load average {out['load_average']:.2f} at the end")
    print(f"{'workers':<18} {'games/s':>9} {'positions/s':>12} {'cluster start':>14}")
    for r in rows:
        print(_row(r))
    print(f"signature (every row): {rows[0]['signature']}")
    if overhead:
        print(f"Ray per-task overhead ({overhead['workers']} workers, {overhead['tasks']} "
              f"no-op tasks): {overhead['round_trip_ms']:.2f} ms round trip, "
              f"{overhead['pipelined_ms']:.2f} ms per task pipelined by run_batch")
    return 0


def _row(r: dict) -> str:
    start = f"{r['start_s']:.1f} s" if "start_s" in r else "-"
    return (f"{r['workers']:<18} {r['games_s']:>9.0f} {r['positions_s']:>12.2f} "
            f"{start:>14}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The learned evaluation: self-play data, training, and its error, from the command line.

    python benchmarks/train_eval.py data --mix greedy --games 40000 --seed 1 --jobs 2 \\
        --output data/greedy-1.jsonl
    python benchmarks/train_eval.py train data/greedy-1.jsonl data/mixed-2.jsonl \\
        --seed 0 --output palace_solver/data/eval_weights.npz
    python benchmarks/train_eval.py errors palace_solver/data/eval_weights.npz data/x.jsonl

``data`` runs :mod:`palace_solver.learn.selfplay` on the batch layer (``--jobs``, ``--ray``;
``--output`` resumes a killed run). ``train`` fits the network (``palace_solver.learn.train``)
and prints the held-out errors next to the card-count evaluation's; the same files, options
and seed rebuild the same weights (numpy pinned to one thread here). ``errors`` measures a
weights file on the held-out games of data files. The recipe of the shipped weights is in
benchmarks/RESULTS-eval.md.
"""
import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from palace_solver.learn import exactdata, selfplay  # noqa: E402
from palace_solver.learn.model import load_weights, save_weights  # noqa: E402
from palace_solver.learn.train import errors, group, read_dataset, train  # noqa: E402


def _players(text: str) -> dict:
    out = {}
    for part in text.split(","):
        k, _, w = part.partition(":")
        out[int(k)] = float(w or 1)
    return out


def cmd_data(args) -> None:
    extra = {}
    if args.mix == "det":
        extra = {"samples": args.samples, "nodes": args.nodes}
        if args.weights:
            extra["weights"] = str(Path(args.weights).resolve())
    tasks = selfplay.dataset_tasks(args.games, seed=args.seed, mix=args.mix,
                                   per_task=args.per_task, players=_players(args.players),
                                   standard=args.standard, keep=args.keep,
                                   eval_mode=args.eval_mode, **extra)
    res = selfplay.generate(tasks, jobs=args.jobs, ray=args.ray, output=args.output,
                            progress=True)
    print(json.dumps({"games": sum(r["games"] for r in res),
                      "positions": sum(r["positions"] for r in res)}))


def cmd_exact(args) -> None:
    tasks = exactdata.exact_tasks(args.games, seed=args.seed, mix=args.mix,
                                  per_task=args.per_task, players=_players(args.players),
                                  standard=args.standard, keep=args.keep,
                                  max_cards=args.max_cards, max_nodes=args.max_nodes,
                                  extra=args.extra)
    res = exactdata.generate_exact(tasks, jobs=args.jobs, ray=args.ray, output=args.output,
                                   progress=True)
    print(json.dumps({"games": sum(r["games"] for r in res),
                      "positions": sum(r["positions"] for r in res)}))


def _report(weights, held) -> dict:
    rep = {}
    for name, sel in (("all", None), ("draw pile", lambda d: d > 0),
                      ("no draw pile", lambda d: d == 0)):
        g = held if sel is None else {
            a: tuple(x[sel(v[3])] for x in v) for a, v in held.items()}
        g = {a: v for a, v in g.items() if len(v[0])}
        rep[name] = {k: errors(weights, g, k) for k in ("learned", "cardcount", "constant")}
    for a in sorted(held):
        rep[f"{a} players in"] = {k: errors(weights, {a: held[a]}, k)
                                  for k in ("learned", "cardcount", "constant")}
    return rep


def _print_report(rep) -> None:
    print(f"{'held-out positions':<22} {'n':>8}  {'learned mse/logloss':>20}  "
          f"{'card count':>15}  {'constant':>15}")
    for name, r in rep.items():
        if not r["learned"]["positions"]:
            continue

        def f(k):
            return f"{r[k]['mse']:.4f}/{r[k]['logloss']:.4f}"
        print(f"{name:<22} {r['learned']['positions']:>8}  {f('learned'):>20}  "
              f"{f('cardcount'):>15}  {f('constant'):>15}")


def cmd_train(args) -> None:
    datasets = [read_dataset(p) for p in args.data]
    out = train(datasets, h1=args.h1, h2=args.h2, epochs=args.epochs, batch=args.batch,
                lr=args.lr, decay=args.decay, seed=args.seed,
                progress=lambda m: print(m, file=sys.stderr, flush=True))
    rep = _report(out["weights"], out["held"])
    meta = dict(out["meta"], files=[Path(p).name for p in args.data],
                held_errors={k: {m: v[m]["mse"] for m in v} for k, v in rep.items()})
    _print_report(rep)
    if args.output:
        save_weights(args.output, out["weights"], meta)
        digest = __import__("hashlib").blake2b(
            b"".join(np.ascontiguousarray(out["weights"][k]).tobytes()
                     for k in ("w1", "b1", "w2", "b2", "w3")), digest_size=8).hexdigest()
        print(f"weights -> {args.output} (digest {digest})")


def cmd_errors(args) -> None:
    weights, meta = load_weights(args.weights)
    held = {}
    for p in args.data:
        d = read_dataset(p)
        for a, parts in group(d, d["game"] % 10 == 9).items():
            held.setdefault(a, []).append(parts)
    held = {a: tuple(np.concatenate(c) for c in zip(*v)) for a, v in held.items()}
    _print_report(_report(weights, held))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="self-play data on the batch layer")
    d.add_argument("--mix", choices=("greedy", "mixed", "det"), default="greedy",
                   help="who plays (palace_solver/learn/selfplay.py)")
    d.add_argument("--games", type=int, default=10000, help="games to play")
    d.add_argument("--seed", type=int, default=0, help="data set seed")
    d.add_argument("--per-task", type=int, default=200, help="games per batch task")
    d.add_argument("--players", default="2:4,3:2,4:1,5:1",
                   help="player counts and their weights, e.g. 2:4,3:2,4:1,5:1")
    d.add_argument("--standard", type=float, default=0.8,
                   help="share of games under the standard rules (the rest: variants)")
    d.add_argument("--keep", type=float, default=0.3,
                   help="probability of keeping each decision position")
    d.add_argument("--eval-mode", default="cardcount",
                   help="horizon evaluation of the det mix (cardcount, learned, auto)")
    d.add_argument("--samples", type=int, default=2, help="det mix: deals per decision")
    d.add_argument("--nodes", type=int, default=2000, help="det mix: nodes per deal")
    d.add_argument("--weights", default=None,
                   help="det mix: weights file of the learned evaluation (default: shipped)")
    d.add_argument("--jobs", type=int, default=1, help="local processes")
    d.add_argument("--ray", default=None, help="Ray address (auto, local, HOST:PORT)")
    d.add_argument("--output", required=True, help="batch output file (resumable)")
    d.set_defaults(fn=cmd_data)
    x = sub.add_parser("exact", help="late positions of self-play, labelled exactly")
    x.add_argument("--mix", choices=("greedy", "mixed", "det"), default="greedy",
                   help="who plays (palace_solver/learn/selfplay.py)")
    x.add_argument("--games", type=int, default=1000, help="games to play")
    x.add_argument("--seed", type=int, default=0, help="data set seed")
    x.add_argument("--per-task", type=int, default=20, help="games per batch task")
    x.add_argument("--players", default="2:3,3:1", help="player counts and their weights")
    x.add_argument("--standard", type=float, default=0.8,
                   help="share of games under the standard rules")
    x.add_argument("--keep", type=float, default=0.5,
                   help="probability of solving each eligible position")
    x.add_argument("--max-cards", type=int, default=10,
                   help="eligible: at most this many cards left in the players' zones")
    x.add_argument("--max-nodes", type=int, default=50_000,
                   help="skip positions whose game graph is larger")
    x.add_argument("--extra", type=int, default=16,
                   help="other positions of each solved graph to label")
    x.add_argument("--jobs", type=int, default=1, help="local processes")
    x.add_argument("--ray", default=None, help="Ray address (auto, local, HOST:PORT)")
    x.add_argument("--output", required=True, help="batch output file (resumable)")
    x.set_defaults(fn=cmd_exact)
    t = sub.add_parser("train", help="fit the network, print held-out errors")
    t.add_argument("data", nargs="+", help="data set files")
    t.add_argument("--h1", type=int, default=64, help="first hidden layer")
    t.add_argument("--h2", type=int, default=32, help="second hidden layer")
    t.add_argument("--epochs", type=int, default=4, help="passes over the data")
    t.add_argument("--batch", type=int, default=512, help="positions per step")
    t.add_argument("--lr", type=float, default=2e-3, help="Adam step size (cosine decay)")
    t.add_argument("--decay", type=float, default=1e-4, help="weight decay")
    t.add_argument("--seed", type=int, default=0, help="training seed")
    t.add_argument("--output", default=None, help="weights file (.npz)")
    t.set_defaults(fn=cmd_train)
    e = sub.add_parser("errors", help="held-out errors of a weights file")
    e.add_argument("weights", help="weights file (.npz)")
    e.add_argument("data", nargs="+", help="data set files")
    e.set_defaults(fn=cmd_errors)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()

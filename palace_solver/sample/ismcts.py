"""Single-observer Information Set MCTS (Cowling, Powley & Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 2012, algorithm SO-ISMCTS).

Why. Determinization solves each deal as if the hidden cards were visible, then averages:
it suffers from strategy fusion (the mover cannot really choose differently per deal).
ISMCTS grows ONE tree over the analyzing player's information sets and samples a new
determinization on every iteration, so each tree node's statistics average over the deals
consistent with what the observer knows at that node.

The tree. Every move in Palace is public (plays, pickups, flips), so a node is the sequence
of moves from the root; chance outcomes are not branched on (an "open-loop" tree over
chance: draws and flips are sampled afresh each iteration by the engine from the
determinization's pool, which together with the dealt hands is a determinization of the
whole deck order). Because a node's legal moves differ between determinizations, selection
uses availability counts: child value + ``c * sqrt(ln(availability) / visits)``, where the
availability counts the iterations in which the move was legal at its parent. A node's value
for the player who moves there is 1 - that player's mean loss. Expansion adds one untried
legal move (chosen uniformly) per iteration; the simulation is a playout by the ``greedy``
bot (:func:`palace_solver.sample.rollout.playout`); every node on the path gets the playout's loss
vector. ``c`` defaults to 0.7 (losses lie in [0, 1]).

Report. Root moves are ranked best first by visits (the "robust child"), ties by lower mean
loss for the mover; each move's figures are the mean loss vectors of the iterations through
it, with the interval of :func:`palace_solver.sample.stats.mean_ci` computed as if those
iterations were independent (they are not quite: the tree policy adapts), so the intervals
are indicative. The position's figures are those of the first move.

Parallelism: ``jobs`` independent trees (root parallelization), iterations split evenly,
tree ``k`` seeded from ``(seed, k)``, root statistics summed.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import random
import time

from ..game.position import Position
from ..solve.engine import make_state
from ..solve.results import Analysis, MoveValue
from .rollout import chance_sample, playout
from .sampler import sample_state
from .stats import ci_from_sums

__all__ = ["Node", "analyze_ismcts", "ismcts_tree"]

EXPLORATION = 0.7
#: Iterations when neither a count nor a time budget is given.
DEFAULT_ITERATIONS = 2000


class Node:
    """A tree node: the statistics of the move leading to it (from its parent)."""

    __slots__ = ("children", "visits", "avail", "loss", "loss_sq")

    def __init__(self, n: int):
        self.children: dict = {}
        self.visits = 0
        self.avail = 0
        self.loss = [0.0] * n
        self.loss_sq = [0.0] * n


def _to_engine(state, engine):
    if engine != "python":
        try:
            return make_state(state, "cython")
        except Exception:  # noqa: BLE001 - extension missing: the reference engine
            pass
    return state


def ismcts_tree(pos: Position, iterations: int | None, seed: int = 0, tree: int = 0,
                time_budget: float | None = None, c: float = EXPLORATION,
                policy: str = "greedy", engine: str | None = None, progress=None) -> dict:
    """Grow one tree; return the root statistics ``{move: (visits, loss sums, squares)}``
    and the iteration count."""
    n = pos.n
    rng = random.Random(f"palace-ismcts-{seed}-{tree}")
    root = Node(n)
    t0 = time.perf_counter()
    done = 0
    limit = iterations if iterations is not None else 10 ** 9
    while done < limit:
        if time_budget is not None and done and time.perf_counter() - t0 >= time_budget:
            break
        det = _to_engine(sample_state(pos, rng), engine)
        node, path = root, []
        while not det.is_terminal():
            if det.is_chance():
                det.apply(chance_sample(det.chance_outcomes(), rng))
                continue
            p = det.current_player()
            legal = det.legal_moves()
            untried = []
            for m in legal:
                ch = node.children.get(m)
                if ch is None:
                    untried.append(m)
                else:
                    ch.avail += 1
            if untried:
                m = untried[rng.randrange(len(untried))]
                ch = node.children[m] = Node(n)
                ch.avail = 1
                det.apply(m)
                path.append(ch)
                break
            best, best_u = None, -math.inf
            for m in legal:
                ch = node.children[m]
                u = 1.0 - ch.loss[p] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if u > best_u:
                    best, best_u = m, u
            det.apply(best)
            node = node.children[best]
            path.append(node)
        if det.is_terminal():
            loss = [float(x) for x in det.result()]
        else:
            loss = playout(det, rng, policy)
        for nd in path:
            nd.visits += 1
            for i in range(n):
                nd.loss[i] += loss[i]
                nd.loss_sq[i] += loss[i] * loss[i]
        done += 1
        if progress is not None:
            progress(done, iterations)
    return {"iterations": done,
            "root": {m: (ch.visits, ch.loss, ch.loss_sq) for m, ch in root.children.items()},
            "order": list(root.children)}


def _tree_worker(args):
    pos, iters, seed, k, budget, c, policy, engine = args
    return ismcts_tree(pos, iters, seed, k, budget, c, policy, engine)


def analyze_ismcts(pos: Position, iterations: int | None = None, time_budget: float | None = None,
                   seed: int = 0, jobs: int = 1, progress=None, engine: str | None = None,
                   c: float = EXPLORATION, policy: str = "greedy") -> Analysis:
    """ISMCTS analysis of ``pos`` for the player to move (module doc)."""
    if iterations is None and time_budget is None:
        iterations = DEFAULT_ITERATIONS
    t0 = time.perf_counter()
    if jobs <= 1:
        trees = [ismcts_tree(pos, iterations, seed, 0, time_budget, c, policy, engine,
                             progress)]
    else:
        per = None if iterations is None else [iterations // jobs + (k < iterations % jobs)
                                               for k in range(jobs)]
        args = [(pos, None if per is None else per[k], seed, k, time_budget, c, policy, engine)
                for k in range(jobs)]
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        with ctx.Pool(jobs) as pool:
            trees = pool.map(_tree_worker, args)
        if progress is not None:
            total = sum(t["iterations"] for t in trees)
            progress(total, iterations)
    n = pos.n
    stats: dict = {}
    order: list = []
    for t in trees:
        for m in t["order"]:
            v, s, sq = t["root"][m]
            if m not in stats:
                stats[m] = [0, [0.0] * n, [0.0] * n]
                order.append(m)
            st = stats[m]
            st[0] += v
            for i in range(n):
                st[1][i] += s[i]
                st[2][i] += sq[i]
    mover = pos.to_move
    rows = []
    for m in order:
        v, s, sq = stats[m]
        est = [ci_from_sums(v, s[i], sq[i]) for i in range(n)]
        rows.append((m, v, est))
    rows.sort(key=lambda r: (-r[1], r[2][mover][0]))
    moves = [MoveValue(m, [e[0] for e in est]) for m, _, est in rows]
    total = sum(t["iterations"] for t in trees)
    seconds = time.perf_counter() - t0
    a_stats = {"seconds": round(seconds, 6), "iterations": total, "trees": len(trees),
               "exploration": c, "policy": policy, "seed": seed,
               "determinizations_per_second": round(total / seconds, 3) if seconds else None,
               "visits": {str(m): v for m, v, _ in rows},
               "move_ci95": {str(m): [[e[1], e[2]] for e in est] for m, _, est in rows},
               "interval": "student-t on the playouts through each root move (approximate)"}
    best = rows[0]
    return Analysis("ismcts", mover, list(moves[0].loss), moves, a_stats,
                    ci95=[(e[1], e[2]) for e in best[2]], samples=total)

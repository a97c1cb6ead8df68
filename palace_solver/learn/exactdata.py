"""Exact-labelled positions: late positions of self-play games, solved by the compiled exact
solver, for training the evaluation where exact values exist and for measuring its error.

Games are those of :mod:`palace_solver.learn.selfplay` (same task fields: seed, mix,
players, rules). At each decision of the play phase with an empty draw pile and at most
``max_cards`` cards left in the players' zones, kept with probability ``keep``, the whole
game graph is built and solved (:class:`palace_solver._engine.ExactGraph`) unless it has
more than ``max_nodes`` positions; the position is labelled by its exact loss
probabilities (RULES.md, "Values the solver reports"), and so are up to ``extra`` other
positions of the same graph, met on random walks from it (exact too, and nearly free).
The game then goes on. Results use the format of :mod:`palace_solver.learn.selfplay`, so
:func:`palace_solver.learn.selfplay.load_dataset` reads them and training mixes them with
outcome-labelled data; held-out games are chosen the same way (game number 9 mod 10).
"""
from __future__ import annotations

import random

from .. import _engine
from ..agents.play import _sample
from ..game.state import PLAY_PHASE
from ..jobs.batch import run_batch
from .selfplay import TURN_CAP, _start, new_rows, pack_rows

__all__ = ["exact_tasks", "exact_task", "generate_exact", "random_nodes", "solved_graph"]


def _label(out: dict, c, values, g: int, ply: int) -> None:
    order, pb, pub = _engine.eval_blocks(c)
    out["nact"].append(len(order))
    out["pb"].append(pb)
    out["pub"].append(pub)
    out["y"].extend(values[q] for q in order)
    out["game"].append(g)
    out["ply"].append(ply)


def solved_graph(c, max_nodes: int):
    """The solved game graph of a compiled exact-mode decision node, or None when it has
    more than ``max_nodes`` positions."""
    graph = _engine.ExactGraph(c)
    if not graph.build(max_nodes=max_nodes, seconds=0.0):
        return None
    graph.solve()
    return graph


def random_nodes(graph, k: int, rng: random.Random, steps: int = 12) -> list[int]:
    """Up to ``k`` distinct positions of a solved graph other than the root, met on random
    walks from the root (a uniformly random move, then a chance outcome by its
    probability, up to ``steps`` plies)."""
    found: list[int] = []
    for _ in range(2 * k):
        u = 0
        for _ in range(rng.randint(1, steps)):
            edges = graph.node_edges(u)
            if not edges:
                break
            outs = edges[rng.randrange(len(edges))][1]
            tgt = rng.choices([t for _, t in outs], [p for p, _ in outs])[0]
            if not isinstance(tgt, int):
                break
            u = tgt
        if u and u not in found:
            found.append(u)
            if len(found) >= k:
                break
    return found


def _play(task: dict, g: int, out: dict) -> None:
    n, bots, s, tracker, chance, bot_rng, keep_rng = _start(task, g, "exact")
    seen: set = set()
    decisions = 0
    while not s.is_terminal() and decisions < TURN_CAP:
        if s.is_chance():
            tracker.apply(s, _sample(s, chance))
            continue
        if s.phase == PLAY_PHASE:
            k = s.key()
            if k in seen:
                return
            seen.add(k)
            if (s.draw_pile == 0 and sum(s.cards_left(q) for q in range(n)) <= task["max_cards"]
                    and keep_rng.random() < task["keep"]):
                c = _engine.CState.from_state(s)
                graph = solved_graph(c, task["max_nodes"])
                if graph is not None:
                    _label(out, c, graph.root_value(), g, decisions)
                    for u in random_nodes(graph, task["extra"], keep_rng):
                        cu = _engine.CState.from_state(graph.node_state(u))
                        if not (cu.is_terminal() or cu.is_chance()):
                            _label(out, cu, graph.node_value(u), g, decisions)
                del graph
            decisions += 1
        tracker.apply(s, bots[s.to_move].choose(s, bot_rng))


def exact_task(task: dict) -> dict:
    """One task of :func:`exact_tasks` (module docstring)."""
    out = new_rows()
    for g in range(task["first"], task["first"] + task["games"]):
        _play(task, g, out)
    return pack_rows(out, task["games"])


def exact_tasks(games: int, seed: int = 0, mix: str = "greedy", per_task: int = 100,
                players=None, standard: float = 0.8, keep: float = 0.5, max_cards: int = 16,
                max_nodes: int = 300_000, extra: int = 4) -> list[dict]:
    """The batch tasks of an exact-labelled data set of ``games`` games."""
    players = players or {2: 3, 3: 1}
    base = {"seed": seed, "mix": mix, "players": {str(k): v for k, v in players.items()},
            "standard": standard, "keep": keep, "max_cards": max_cards,
            "max_nodes": max_nodes, "extra": extra, "label": "exact"}
    return [{"id": k, "first": g0, "games": min(per_task, games - g0), **base}
            for k, g0 in enumerate(range(0, games, per_task))]


def generate_exact(tasks, jobs: int = 1, ray=None, output=None, progress=False):
    """Run the tasks on the batch layer (resumable when ``output`` is given)."""
    return run_batch(exact_task, tasks, jobs=jobs, ray=ray, output=output,
                     progress=progress, label="exact-labelled tasks")

"""The engine's own games: the data that each generation of the learned values learns from.

Why. A value learned from greedy games estimates the loss when everyone then plays greedy,
and a search with it at the leaves answers for that world, not for the one RULES.md
describes (every player minimising their own loss). Generation k+1 therefore learns from
whole games of generation k against itself: their outcomes label every position played,
and their choices are what the policy model of the other seats (hidden-card inference)
is fitted to.

A data set is a list of batch tasks (:mod:`palace_solver.jobs.batch`: ``--jobs``, Ray,
resumable output), one game a task, so a killed run loses at most the games in flight.
Game ``g`` follows from the data set's seed and ``g`` alone: the player count and rules
(``_game_config``), the deal and every chance event (a generator seeded by the pair), each
seat's agent seed. It is played by :func:`palace_solver.jobs.match.play_game`, as a
``palace match`` game is (a repeated position or ``cap`` decisions is a draw), with every
event recorded: a game can be replayed from ``State.new_game`` (:func:`replay`), so that
any later question (the features of another network, the figure another configuration
reports, a review) is asked of the same games without playing them again.

Per game the result holds ``n``, ``rules``, ``loss`` (each seat's final share: 1 for the
loser, a draw shared by the players still in), ``reason``, ``events`` (a chance outcome as
its rank, a decision as its move's text, from the deal on), ``prefix`` (how many events
precede the first play decision) and ``figures``: per play decision ``[mover, figure,
draw pile]``, where figure is the loss the mover's agent reported for the move it played
(None for a forced move).
"""
from __future__ import annotations

import random

from ..agents.registry import make_agent
from ..game.moves import Move
from ..game.rules import Rules
from ..game.state import PLAY_PHASE, State
from ..jobs.batch import run_batch, task_seed
from ..jobs.match import CAP, make_start, play_game

__all__ = ["first_games", "game_tasks", "play_selfplay_game", "read_games", "replay", "replay_tracked",
           "run_games", "to_dataset"]


def _game_config(seed: int, g: int, players: dict, standard: float):
    """(players, rules) of game ``g``: the standard rules with probability ``standard``,
    else one or two play variants drawn from the learned evaluation's variant sample."""
    from .selfplay import VARIANT_SAMPLE
    rng = random.Random(f"engine-game-{seed}-{g}")
    counts, weights = zip(*sorted((int(k), v) for k, v in players.items()))
    n = int(rng.choices(counts, weights)[0])
    rules = Rules()
    if rng.random() >= standard:
        for _ in range(20):
            cand = Rules.with_variants(rng.sample(VARIANT_SAMPLE, rng.randint(1, 2)))
            if n in cand.player_counts(n):
                rules = cand
                break
    return n, rules


def game_tasks(games: int, seed: int = 0, agent: str = "engine", players=None,
               standard: float = 0.9, cap: int = CAP, first: int = 0,
               layout: str = "greedy") -> list[dict]:
    """The tasks of games ``first .. first + games - 1`` of a data set (module doc).
    ``players``: weights of the player counts (default two players 3, three players 1).
    ``layout``: how the players lay out (:data:`palace_solver.jobs.match.LAYOUTS`; named in
    the tasks only when not ``greedy``, so the data sets before it keep their tasks)."""
    players = {str(k): v for k, v in (players or {2: 3, 3: 1}).items()}
    extra = {} if layout == "greedy" else {"layout": layout}
    return [{"id": g, "seed": seed, "agent": agent, "players": players,
             "standard": standard, "cap": cap, **extra} for g in range(first, first + games)]


def play_selfplay_game(task: dict) -> dict:
    """One game of :func:`game_tasks` (a batch task): the record of the module doc."""
    g, seed = task["id"], task["seed"]
    n, rules = _game_config(seed, g, task["players"], task["standard"])
    start, tracker, history = make_start("full", rules, n, f"engine-game-deal-{seed}-{g}",
                                         layout=task.get("layout", "greedy"))
    agents = [make_agent(task["agent"], task_seed(seed, f"{g}/{q}")) for q in range(n)]
    rng = random.Random(f"engine-game-chance-{seed}-{g}")
    bot_rng = random.Random(task_seed(seed, f"{g}/bots"))
    out = play_game(rules, start, tracker, history, agents, rng, bot_rng, task["cap"],
                    record=True)
    return {"n": n, "rules": rules.to_json(), "loss": out["loss"], "reason": out["reason"],
            "decisions": out["decisions"], "seconds": out["seconds"],
            "think": [round(t, 4) for t in out["think"]], "events": out["events"],
            "prefix": out["prefix"], "figures": out["figures"]}


def replay(game: dict):
    """The play decisions of a recorded game: yields ``(state, move, figure, index)`` for
    each, ``state`` the true position before the move (a fresh object each time),
    ``index`` the decision's number in ``figures``.

    :raises ValueError: a record whose events do not replay (a move that is not legal)."""
    rules = Rules.from_json(game["rules"])
    s = State.new_game(rules, game["n"])
    k = 0
    for i, ev in enumerate(game["events"]):
        if isinstance(ev, int):
            if not s.is_chance():
                raise ValueError(f"event {i}: a chance outcome where a decision is due")
            s.apply(ev)
            continue
        mv = Move.parse(ev)
        if s.phase == PLAY_PHASE and i >= game["prefix"]:
            fig = game["figures"][k]
            if fig[0] != s.to_move:
                raise ValueError(f"event {i}: decision {k} is seat {fig[0]}'s, "
                                 f"not {s.to_move}'s")
            yield s.clone(), mv, fig[1], k
            k += 1
        s.apply(mv)


def replay_tracked(game: dict):
    """As :func:`replay`, with the table's public record: yields ``(state, move, figure,
    index, tracker)``, the :class:`~palace_solver.agents.method_bots.HandTracker` of the
    game so far (the same object each time: copy it to keep it)."""
    from ..agents.method_bots import HandTracker
    rules = Rules.from_json(game["rules"])
    s = State.new_game(rules, game["n"])
    tracker = HandTracker(game["n"])
    k = 0
    for i, ev in enumerate(game["events"]):
        if isinstance(ev, int):
            tracker.apply(s, ev)
            continue
        mv = Move.parse(ev)
        if s.phase == PLAY_PHASE and i >= game["prefix"]:
            yield s.clone(), mv, game["figures"][k][1], k, tracker
            k += 1
        tracker.apply(s, mv)


def run_games(tasks, jobs: int = 1, ray=None, output=None, progress=True) -> list[dict]:
    """Play the tasks on the batch layer (resumable when ``output`` is given)."""
    return run_batch(play_selfplay_game, tasks, jobs=jobs, ray=ray, output=output,
                     progress=progress, label="engine games")


def to_dataset(games, keep: float = 1.0, seed: int = 0) -> dict:
    """The training arrays of :func:`palace_solver.learn.selfplay.load_dataset` (``nact``,
    ``pb``, ``pub``, ``y``, ``game``, ``ply``, ``start``) from recorded games: every play
    decision (each kept with probability ``keep``), its compiled feature blocks of the
    true position and each player's final loss share. ``games``: ``(number, record)``
    pairs, the number going into ``game`` (held-out games are chosen by it)."""
    import numpy as np

    from .. import _engine
    from .selfplay import new_rows, rows_arrays
    out = new_rows()
    for g, game in games:
        rng = random.Random(f"engine-games-keep-{seed}-{g}")
        loss = game["loss"]
        for state, _, _, k in replay(game):
            if keep < 1.0 and rng.random() >= keep:
                continue
            order, pb, pub = _engine.eval_blocks(_engine.CState.from_state(state))
            out["nact"].append(len(order))
            out["pb"].append(pb)
            out["pub"].append(pub)
            out["y"].extend(loss[q] for q in order)
            out["game"].append(g)
            out["ply"].append(k)
    data = rows_arrays(out)
    data["start"] = np.concatenate([[0], np.cumsum(data["nact"].astype(np.int64))[:-1]])
    return data


def read_games(path) -> list:
    """``(number, record)`` of every finished game in a batch output file of
    :func:`run_games` (a run still going or stopped early gives the games done so far)."""
    from ..jobs.batch import finished_results
    return sorted(finished_results(path), key=lambda x: x[0])


def first_games(path) -> list:
    """The finished games of a run's file up to its first gap, as ``(number, record)``
    (a recipe's "first N games" are games 0 .. N-1, whatever the run adds later)."""
    out = []
    for g, rec in read_games(path):
        if g != len(out):
            break
        out.append((g, rec))
    return out

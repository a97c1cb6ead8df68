"""Self-play data for the learned evaluation, generated on the batch layer.

A data set is a list of batch tasks (:mod:`palace_solver.jobs.batch`: ``--jobs``, Ray,
resumable output); task ``k`` plays games ``first .. first + games - 1``. Everything about
game ``g`` (player count, rules, which bot sits where, the cards) follows from the data
set's seed and ``g`` alone, so the data are the same for any split into tasks or workers.

Positions: every decision of the play phase (the draw-pile phase included), each kept with
probability ``keep`` (consecutive positions of one game say nearly the same thing). A
position is stored as its compiled feature blocks (:func:`palace_solver._engine.eval_blocks`:
one block per player still in, in the order of play from the player to move, and the
public block, bytes) and labelled by how the game ended: each of those players' final
loss share (1 for the loser; a draw, by repetition or the turn cap, shared by the players
still in at the end). The labels of a position sum to 1.

Mixes (``mix``), each seat drawn independently per game:

- ``greedy``: greedy in every seat, no exploration;
- ``mixed``: greedy 60%, lowest 20%, random 20%, each seat also playing a uniformly random
  legal move with probability ``epsilon`` (0, 0.05 or 0.15, drawn per seat): coverage of
  positions greedy never reaches;
- ``det``: the determinization bot (:class:`palace_solver.agents.method_bots.DetBot`,
  searching from the first play, ``draw_limit=None``) with the horizon evaluation given by
  ``eval_mode`` (and ``weights``, a weights file, for the learned one) in every seat, a
  small node budget, and greedy in one seat in four.

Rules: the standard rules in ``standard`` of the games (default 0.8), else one or two play
variants drawn from :data:`VARIANT_SAMPLE`. Player counts from ``players`` (weights).

A task's result carries its positions as base64 of a compressed npz (``nact``, ``pb``,
``pub``, ``y``, ``game``, ``ply``): compact enough for JSON lines (a few dozen bytes a
position), so a whole data set is one resumable batch file. :func:`load_dataset` reads it
back into arrays.
"""
from __future__ import annotations

import base64
import io
import random

import numpy as np

from .. import _engine
from ..agents.method_bots import DetBot, HandTracker
from ..agents.play import _sample
from ..game.rules import Rules
from ..game.state import PLAY_PHASE, State
from ..jobs.batch import run_batch
from ..sample.policies import GreedyBot, LowestBot, RandomBot
from .features import PB, PUB

__all__ = ["VARIANT_SAMPLE", "dataset_tasks", "generate", "load_dataset", "selfplay_task"]

#: Variants drawn for the non-standard games (those that change play after the deal and
#: seat 2-5 players with one deck).
VARIANT_SAMPLE = ("must_play", "easy_table_pickup", "no_four_burn", "restricted_tens",
                  "aces_burn", "kings_burn", "seven_low", "five_low", "invisible_8",
                  "invisible_3", "eight_reverses", "eight_skips", "jack_reverses",
                  "four_cards", "choose_face_up", "back_to_last_player", "start_card",
                  "first_out_wins", "lenient_blind")

#: Decisions after which a game is a draw.
TURN_CAP = 1000


class _Epsilon:
    """A bot that plays a uniformly random legal move with probability ``eps``."""

    def __init__(self, bot, eps: float):
        self.bot, self.eps, self.name = bot, eps, bot.name
        self.tracker = None

    def choose(self, state, rng):
        if self.eps and state.phase == PLAY_PHASE and rng.random() < self.eps:
            moves = state.legal_moves()
            return moves[rng.randrange(len(moves))]
        return self.bot.choose(state, rng)


def _game_config(task: dict, g: int):
    """(players, rules, bots) of game ``g``, from the data set's seed and ``g`` only."""
    rng = random.Random(f"learn-game-{task['seed']}-{g}")
    counts, weights = zip(*sorted(task["players"].items()))
    n = int(rng.choices(counts, weights)[0])
    rules = Rules()
    if rng.random() >= task["standard"]:
        for _ in range(20):
            cand = Rules.with_variants(rng.sample(VARIANT_SAMPLE, rng.randint(1, 2)))
            if n in cand.player_counts(n):
                rules = cand
                break
    mix = task["mix"]
    bots = []
    for q in range(n):
        if mix == "greedy":
            bots.append(GreedyBot())
        elif mix == "mixed":
            kind = rng.choices(("greedy", "lowest", "random"), (0.6, 0.2, 0.2))[0]
            bot = {"greedy": GreedyBot, "lowest": LowestBot, "random": RandomBot}[kind]()
            bots.append(_Epsilon(bot, rng.choice((0.0, 0.05, 0.15))))
        elif mix == "det":
            if rng.random() < 0.25:
                bots.append(GreedyBot())
            else:
                bots.append(DetBot(seed=rng.getrandbits(32), samples=task.get("samples", 2),
                                   deal_nodes=task.get("nodes", 2000),
                                   exact_mode_nodes=task.get("nodes", 2000),
                                   draw_nodes=task.get("nodes", 2000), draw_limit=None,
                                   hash_mb=1.0, eval_mode=None))
        else:
            raise ValueError(f"unknown mix {mix!r}")
    return n, rules, bots


def _start(task: dict, g: int, keep: str):
    """Game ``g`` of a task before its deal: the players, their bots (those that track
    hands reading one tracker), the state, the tracker, and the generators of chance, of
    the bots and of what is kept (``learn-KEEP-...``), each seeded by the task and game."""
    n, rules, bots = _game_config(task, g)
    chance = random.Random(f"learn-chance-{task['seed']}-{g}")
    bot_rng = random.Random(f"learn-bots-{task['seed']}-{g}")
    keep_rng = random.Random(f"learn-{keep}-{task['seed']}-{g}")
    tracker = HandTracker(n)
    for b in bots:
        if hasattr(b, "tracker"):
            b.tracker = tracker
    return n, bots, State.new_game(rules, n), tracker, chance, bot_rng, keep_rng


def _play(task: dict, g: int, out: dict) -> int:
    """Play game ``g``, append its kept positions to ``out``; returns them."""
    n, bots, s, tracker, chance, bot_rng, keep_rng = _start(task, g, "keep")
    seen: set = set()
    kept: list = []
    decisions = 0
    loss = None
    while not s.is_terminal():
        if s.is_chance():
            tracker.apply(s, _sample(s, chance))
            continue
        if s.phase == PLAY_PHASE:
            k = s.key()
            if k in seen or decisions >= TURN_CAP:
                share = 1.0 / len(s.active())
                loss = [0.0 if s.out[q] else share for q in range(n)]
                break
            seen.add(k)
            if keep_rng.random() < task["keep"]:
                order, pb, pub = _engine.eval_blocks(_engine.CState.from_state(s))
                kept.append((order, pb, pub, decisions))
            decisions += 1
        tracker.apply(s, bots[s.to_move].choose(s, bot_rng))
    if loss is None:
        loss = [float(x) for x in s.result()]
    for order, pb, pub, ply in kept:
        out["nact"].append(len(order))
        out["pb"].append(pb)
        out["pub"].append(pub)
        out["y"].extend(loss[q] for q in order)
        out["game"].append(g)
        out["ply"].append(ply)
    return len(kept)


def use_weights(path) -> None:
    """Load a weights file into the compiled evaluation unless it is loaded already."""
    if path and _engine.eval_weights_loaded() != path:
        from .model import load_weights
        w, _ = load_weights(path)
        _engine.load_eval_weights(*(w[k] for k in ("w1", "b1", "w2", "b2", "w3")),
                                  source=path)


def selfplay_task(task: dict) -> dict:
    """One task of :func:`dataset_tasks`: its games' positions (module docstring)."""
    use_weights(task.get("weights"))
    old = _engine.set_eval_mode(task.get("eval_mode", "cardcount"))
    try:
        out = new_rows()
        for g in range(task["first"], task["first"] + task["games"]):
            _play(task, g, out)
    finally:
        _engine.set_eval_mode(old)
    return pack_rows(out, task["games"])


def new_rows() -> dict:
    """Empty columns of a task's positions (filled by the games, packed by pack_rows)."""
    return {k: [] for k in ("nact", "pb", "pub", "y", "game", "ply")}


def rows_arrays(out: dict) -> dict:
    """The columns of :func:`new_rows` as the data set's arrays (its dtypes)."""
    return {
        "nact": np.array(out["nact"], dtype=np.uint8),
        "pb": np.frombuffer(b"".join(out["pb"]), dtype=np.uint8).reshape(-1, PB),
        "pub": np.frombuffer(b"".join(out["pub"]), dtype=np.uint8).reshape(-1, PUB),
        "y": np.array(out["y"], dtype=np.float32),
        "game": np.array(out["game"], dtype=np.int32),
        "ply": np.array(out["ply"], dtype=np.int16),
    }


def pack_rows(out: dict, games: int) -> dict:
    """A task's positions as one compressed npz, base64 in the batch layer's JSON result."""
    arrays = rows_arrays(out)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return {"games": games, "positions": len(out["nact"]),
            "data": base64.b64encode(buf.getvalue()).decode("ascii")}


def dataset_tasks(games: int, seed: int = 0, mix: str = "greedy", per_task: int = 200,
                  players=None, standard: float = 0.8, keep: float = 0.3,
                  eval_mode: str = "cardcount", **extra) -> list[dict]:
    """The batch tasks of a data set of ``games`` games (module docstring)."""
    players = players or {2: 4, 3: 2, 4: 1, 5: 1}
    base = {"seed": seed, "mix": mix, "players": {str(k): v for k, v in players.items()},
            "standard": standard, "keep": keep, "eval_mode": eval_mode, **extra}
    return [{"id": k, "first": g0, "games": min(per_task, games - g0), **base}
            for k, g0 in enumerate(range(0, games, per_task))]


def generate(tasks, jobs: int = 1, ray=None, output=None, progress=False) -> list[dict]:
    """Run the tasks on the batch layer (resumable when ``output`` is given)."""
    return run_batch(selfplay_task, tasks, jobs=jobs, ray=ray, output=output,
                     progress=progress, label="self-play tasks")


def decode(result: dict) -> dict:
    """The arrays of one task result."""
    with np.load(io.BytesIO(base64.b64decode(result["data"]))) as f:
        return {k: f[k] for k in f.files}


def load_dataset(results) -> dict:
    """The task results of a data set as one set of arrays: ``nact`` (positions), ``pb``
    (player blocks, sum of nact rows), ``pub``, ``y`` (one label per block), ``game``,
    ``ply``, and ``start`` (each position's first row in ``pb``/``y``)."""
    parts = [decode(r) for r in results]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    data["start"] = np.concatenate([[0], np.cumsum(data["nact"].astype(np.int64))[:-1]])
    return data

"""Series of games between bots on the batch layer: a tally per bot, the same for any
number of workers, resumable from an output file (:mod:`palace_solver.jobs.batch`).

Games are played by :func:`palace_solver.agents.play.play_game`; game ``g`` of a series
seeded ``seed`` is seeded by :func:`game_seed`, and seats rotate by :func:`seats_for`, so
the tally does not depend on how the games are split into tasks.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from fractions import Fraction

from ..agents.play import DEFAULT_TURN_CAP, play_game, seats_for
from ..game.rules import Rules
from ..sample.policies import make_bot
from .batch import run_batch

__all__ = ["SeriesResult", "merge_series", "play_series", "play_series_task", "series_tasks"]


@dataclass
class SeriesResult:
    """A tally per bot name over a series. A bot seated several times in a game counts once
    per seat. ``losses`` counts games where that seat was the loser; ``loss_share`` adds the
    shared losses: each draw's share, and under ``first_out_wins`` (no single loser) each
    non-winner's share (a sum; ``mean_loss_share`` in the JSON and "mean share" in the
    text are it over the games)."""

    rules: Rules
    n_players: int
    games: int
    seed: int
    tally: dict[str, dict] = field(default_factory=dict)
    draws: int = 0
    decisions: int = 0

    def to_dict(self) -> dict:
        return {"rules": self.rules.to_json(), "players": self.n_players, "games": self.games,
                "seed": self.seed, "draws": self.draws,
                "mean_decisions": self.decisions / self.games if self.games else 0.0,
                "bots": {name: {**t, "loss_rate": t["losses"] / t["games"] if t["games"] else 0.0,
                                "loss_share": float(t["loss_share"]),
                                "mean_loss_share": float(t["loss_share"]) / t["games"]
                                if t["games"] else 0.0}
                         for name, t in self.tally.items()}}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def text(self) -> str:
        lines = [f"{self.games} games, {self.n_players} players, rules {self.rules}, "
                 f"seed {self.seed}: {self.draws} draws",
                 f"{'bot':<8} {'games':>7} {'losses':>7} {'loss rate':>9} {'draws':>6} "
                 f"{'mean share':>10}"]
        for name, t in self.tally.items():
            rate = t["losses"] / t["games"] if t["games"] else 0.0
            lines.append(f"{name:<8} {t['games']:>7} {t['losses']:>7} {rate:>9.3f} "
                         f"{t['draws']:>6} {float(t['loss_share']) / t['games']:>10.3f}")
        return "\n".join(lines)


def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game`` of a series seeded with ``seed``."""
    return random.Random(f"palace-series-{seed}-{game}").getrandbits(48)


def games_per_task(games: int) -> int:
    """Games in one batch task of a series of ``games``: a function of the series length only
    (never of the workers), about 100 tasks, at most 50 games (a fraction of a second), so
    the per-task cost (a process hand-off or a Ray call, one fsynced output line) stays
    small against the games and a killed series loses little."""
    return max(1, min(50, games // 100))


def series_tasks(rules: Rules, n_players: int, bot_names, games: int, seed: int = 0,
                 turn_cap: int = DEFAULT_TURN_CAP, repetitions: int = 2,
                 per_task: int | None = None) -> list[dict]:
    """The batch tasks of a series (:mod:`palace_solver.jobs.batch`): task ``k`` plays games
    ``first .. first + games - 1``, each seeded by :func:`game_seed` from the series seed, so
    the tally does not depend on how games are split into tasks or over workers."""
    per = per_task or games_per_task(games)
    bots = [make_bot(b).name for b in bot_names]
    return [{"id": k, "rules": rules.to_json(), "players": n_players, "bots": bots,
             "seed": seed, "first": g0, "games": min(per, games - g0), "turn_cap": turn_cap,
             "repetitions": repetitions}
            for k, g0 in enumerate(range(0, games, per))]


def play_series_task(task: dict) -> dict:
    """One task of :func:`series_tasks`: the tally of its games (loss shares as exact
    fractions written ``"p/q"``, so merging is exact)."""
    rules = Rules.from_json(task["rules"])
    n, bots = task["players"], task["bots"]
    tally = {name: {"games": 0, "losses": 0, "draws": 0, "loss_share": Fraction(0)}
             for name in bots}
    draws = decisions = 0
    for g in range(task["first"], task["first"] + task["games"]):
        seats = seats_for(bots, n, g)
        rec = play_game(rules, n, seats, seed=game_seed(task["seed"], g),
                        turn_cap=task["turn_cap"], record=False,
                        repetitions=task["repetitions"])
        decisions += rec.decisions
        draws += rec.draw
        for q, name in enumerate(seats):
            t = tally[name]
            t["games"] += 1
            t["losses"] += rec.loser == q
            t["draws"] += rec.draw and rec.loss[q] > 0
            t["loss_share"] += rec.loss[q]
    for t in tally.values():
        t["loss_share"] = str(t["loss_share"])
        t["draws"] = int(t["draws"])
    return {"games": task["games"], "draws": int(draws), "decisions": decisions,
            "tally": tally}


def merge_series(rules: Rules, n_players: int, bot_names, games: int, seed: int,
                 results) -> SeriesResult:
    """The :class:`SeriesResult` of task results, added in task order."""
    res = SeriesResult(rules=rules, n_players=n_players, games=games, seed=seed)
    for name in (make_bot(b).name for b in bot_names):
        res.tally.setdefault(name, {"games": 0, "losses": 0, "draws": 0,
                                    "loss_share": Fraction(0)})
    for r in results:
        res.draws += r["draws"]
        res.decisions += r["decisions"]
        for name, part in r["tally"].items():
            t = res.tally[name]
            for k in ("games", "losses", "draws"):
                t[k] += part[k]
            t["loss_share"] += Fraction(part["loss_share"])
    return res


def play_series(rules: Rules, n_players: int, bot_names, games: int, seed: int = 0,
                turn_cap: int = DEFAULT_TURN_CAP, progress=False,
                repetitions: int = 2, jobs: int = 1, ray: str | None = None,
                output=None, per_task: int | None = None) -> SeriesResult:
    """Play ``games`` games, seats rotated (:func:`seats_for`), seeds from :func:`game_seed`,
    through the batch layer (:func:`palace_solver.jobs.batch.run_batch`): the tally is the same
    for any ``jobs``/``ray``, and a series written to ``output`` resumes where it stopped.

    :param progress: a progress bar on stderr (True, False or ``"auto"``).
    :raises palace_solver.jobs.batch.BatchError: an ``output`` file of another series, Ray
        missing or unreachable.
    """
    tasks = series_tasks(rules, n_players, bot_names, games, seed=seed, turn_cap=turn_cap,
                         repetitions=repetitions, per_task=per_task)
    results = run_batch(play_series_task, tasks, jobs=jobs, ray=ray, output=output,
                        progress=progress, label=f"tasks ({tasks[0]['games'] if tasks else 1} games each)")
    return merge_series(rules, n_players, bot_names, games, seed, results)

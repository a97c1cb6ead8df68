"""Generations of the learned values: generation k+1 learns from the games of generation k.

A generation is a file, ``palace_solver/data/eval_weights-genK.npz``: the value network
(``w1`` .. ``w3``, the compiled evaluation's format), the policy model of the other seats
(``policy``: :mod:`palace_solver.learn.policy`, used by the inference of hidden cards) and
``meta``, a JSON text that holds the recipe it was fitted with and a digest of the games.

A recipe (:data:`RECIPES`) names the self-play runs and how many of each run's first games
it learns from, the network it goes on from and the trainer's options and seed. The same
games, recipe and seed give the same network bit for bit on one machine with numpy on one
thread (:func:`fit_generation`; tests/test_generations.py rebuilds every shipped generation
from the games the repository holds and compares). The policy models of generations 1-3
were fitted before the fit's Hessian became blocked matrix products, and generation 4's
before the decisions were stored unpadded and summed block by block
(:func:`palace_solver.learn.policy.fit`): a rebuild gives them again to 1e-12. Held-out
games are those numbered 9 mod 10: never trained on, they give the errors reported in
``meta``.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

__all__ = ["RECIPES", "SWEEPS", "fit_generation", "games_digest", "save_generation",
           "sweep"]

#: generation 4's data: generation 3's and the four thousand recorded games of engines
#: against engines since (docs/learning.md, Generation 4)
GEN4_RUNS = [["gen0-train", 360], ["gen1-calib", 400], ["row:t1-engine", 1000],
             ["row:t1-noinfer", 1000], ["row:c1-engine", 1000], ["row:p2-engine", 1000],
             ["row:g3-engine", 1000]]

#: generation 5's data: generation 4's and the recorded games of engines against engines
#: since, generation 4's own among them (docs/learning.md, Generation 5)
GEN5_RUNS = GEN4_RUNS + [["row:l1-engine", 1000], ["row:g4-engine", 1000],
                         ["row:b1-x4-engine", 1000], ["row:t2-noinfer", 1000]]

#: generation 6's data: generation 5's, the recorded two-player games of engines against
#: engines since (generation 4's w1-engine, generation 5 against 4) and the first time
#: three-player games of engines, t3-noinfer-3p's first 400 starts in their seatings (its
#: last 100 starts are generation 6's three-player test) (docs/learning.md, Generation 6)
GEN6_RUNS = GEN5_RUNS + [["row:w1-engine", 1000], ["row:g5-engine", 1000],
                         ["row:t3-noinfer-3p", 1200]]

#: generation 7's data: generation 6's, the recorded two-player games of engines against
#: engines since (g6-engine, generation 6 against 4) and the first games laid out at random
#: to learn from (layouts-train, generation 4's engine; layouts-calib stays its test)
#: (docs/learning.md, Generation 7)
GEN7_RUNS = GEN6_RUNS + [["row:g6-engine", 1000], ["layouts-train", 800]]

#: generation -> recipe. ``runs``: (run, first games) pairs (benchmarks/generations.py
#: plays the runs); ``init``: the generation it goes on from; ``train``: options of
#: :func:`palace_solver.learn.train.train`; ``policy``: of :func:`~.policy.fit`.
#: Generation 1 was chosen among twelve variants (1-16 epochs, step 2.5e-4 to 2e-3, from
#: gen0 or from scratch) by the log loss of the held-out games among its 360: a short,
#: gentle fit from gen0 (which saw 10^6 greedy positions). The outcomes of a few hundred
#: games label their positions with a few hundred independent results, and longer fits
#: learn the games, not the game: 6 epochs at 1e-3 scored 0.78 on the next 87 games,
#: worse than gen0 (0.66) and a constant (0.74); this recipe scores 0.63 there
#: (docs/learning.md).
RECIPES: dict = {
    1: {"runs": [["gen0-train", 360]], "init": "gen0",
        "train": {"epochs": 2, "lr": 5e-4, "decay": 1e-3, "seed": 0},
        "policy": {"ridge": 1e-3}},
    # Generation 2 learns from generation 1's games (gen1-calib 0-399: gen1-calib 400-763
    # stay held out for the calibration benchmark and this generation's test) beside
    # generation 1's own data. Chosen among ten fits on those data (five schedules of 1-3
    # epochs at step 2.5e-4 to 1e-3, each from gen0 and from gen1) by the held-out games'
    # log loss (0.658): again one gentle epoch, from gen0 (docs/learning.md).
    2: {"runs": [["gen0-train", 360], ["gen1-calib", 400]], "init": "gen0",
        "train": {"epochs": 1, "lr": 5e-4, "decay": 1e-3, "seed": 0},
        "policy": {"ridge": 1e-3}},
    # Generation 3 adds the thousand recorded games of the strength row t1-engine (engine
    # against engine, generation 1 at its full budget). Chosen by SWEEPS[3] (eight fits,
    # benchmarks/results/generation3-sweep.json): held-out log loss 0.6246, the gentlest
    # fit, from gen0.
    3: {"runs": [["gen0-train", 360], ["gen1-calib", 400], ["row:t1-engine", 1000]],
        "init": "gen0", "train": {"decay": 1e-3, "epochs": 1, "lr": 2.5e-4, "seed": 0},
        "policy": {"ridge": 1e-3}},
    # Generation 4 adds the four thousand recorded games of engines against engines since
    # (t1-noinfer, c1-engine, p2-engine, g3-engine). Chosen by SWEEPS[4] (eight fits,
    # benchmarks/results/generation4-sweep.json): held-out log loss 0.6268, the gentlest
    # fit, from gen0 (from gen3 the same fit gave 0.6271).
    4: {"runs": GEN4_RUNS, "init": "gen0",
        "train": {"decay": 1e-3, "epochs": 1, "lr": 2.5e-4, "seed": 0},
        "policy": {"ridge": 1e-3}},
    # Generation 5 adds the four thousand recorded games of engines against engines since
    # (l1-engine, g4-engine, b1-x4-engine, t2-noinfer), generation 4's own among them.
    # Chosen by SWEEPS[5] (twelve fits, benchmarks/results/generation5-sweep.json): held-out
    # log loss 0.61952, two epochs at the gentlest step, from gen0 (one epoch at twice the
    # step: 0.61953); fitted under the held OpenBLAS kernel (REBUILD_ATOL).
    5: {"runs": GEN5_RUNS, "init": "gen0",
        "train": {"decay": 1e-3, "epochs": 2, "lr": 1.25e-4, "seed": 0},
        "policy": {"ridge": 1e-3}},
    # Generation 6 adds the recorded two-player games since (w1-engine, g5-engine) and the
    # first three-player games of engines at the full budget (t3-noinfer-3p's first 400
    # starts). Chosen by SWEEPS[6] (twelve fits, benchmarks/results/generation6-sweep.json):
    # held-out log loss 0.62028, one epoch at step 2.5e-4 from gen0 (two at half the step:
    # 0.62053; from gen5 at best 0.62095).
    6: {"runs": GEN6_RUNS, "init": "gen0",
        "train": {"decay": 1e-3, "epochs": 1, "lr": 2.5e-4, "seed": 0},
        "policy": {"ridge": 1e-3}},
}

#: generation -> the fits it is chosen among, written before they are fitted: every
#: combination of ``init`` and the trainer's options listed, on the runs named; the one
#: of lowest held-out log loss becomes the generation's recipe (:func:`sweep`,
#: ``benchmarks/generations.py sweep``). Generation 3: docs/learning.md.
SWEEPS: dict = {
    3: {"runs": [["gen0-train", 360], ["gen1-calib", 400], ["row:t1-engine", 1000]],
        "init": ["gen0", "gen2"],
        "train": {"epochs": [1, 2], "lr": [2.5e-4, 5e-4], "decay": [1e-3], "seed": [0]},
        "policy": {"ridge": 1e-3}},
    4: {"runs": GEN4_RUNS, "init": ["gen0", "gen3"],
        "train": {"epochs": [1, 2], "lr": [2.5e-4, 5e-4], "decay": [1e-3], "seed": [0]},
        "policy": {"ridge": 1e-3}},
    # the gentlest fit won generations 3 and 4, so a gentler step joins the grid
    5: {"runs": GEN5_RUNS, "init": ["gen0", "gen4"],
        "train": {"epochs": [1, 2], "lr": [1.25e-4, 2.5e-4, 5e-4], "decay": [1e-3],
                  "seed": [0]},
        "policy": {"ridge": 1e-3}},
    # generation 5's grid, going on from gen0 or from gen5
    6: {"runs": GEN6_RUNS, "init": ["gen0", "gen5"],
        "train": {"epochs": [1, 2], "lr": [1.25e-4, 2.5e-4, 5e-4], "decay": [1e-3],
                  "seed": [0]},
        "policy": {"ridge": 1e-3}},
    # the same grid, going on from gen0 or from gen6 (written before layouts-train was
    # complete and before any of its games was read)
    7: {"runs": GEN7_RUNS, "init": ["gen0", "gen6"],
        "train": {"epochs": [1, 2], "lr": [1.25e-4, 2.5e-4, 5e-4], "decay": [1e-3],
                  "seed": [0]},
        "policy": {"ridge": 1e-3}},
}


def games_digest(games) -> str:
    """A digest of ``(number, record)`` games' numbers and events (what the fit reads)."""
    return hashlib.blake2b(repr([(g, rec["events"]) for g, rec in games]).encode(),
                           digest_size=8).hexdigest()


#: How far a refit's weights may lie from the shipped ones (absolute, each weight): the
#: OpenBLAS kernel picked for a processor rounds differently and the fit carries that on
#: (generation 3, fitted on an Intel Xeon, refitted on an AMD EPYC: up to 0.053 with the
#: kernel picked there, 1.2e-4 with the Haswell kernel that benchmarks/generations.py now
#: holds to); another training seed moves its first layer by up to 1.3, its last layers by
#: 0.006 to 0.009 (measured 2026-12-07; docs/learning.md, Rebuilding on another processor).
REBUILD_ATOL = 1e-3


def fit_generation(gen: int, recipe: dict, runs: dict, progress=None) -> dict:
    """Generation ``gen``'s weights from its recipe and ``runs`` (run name -> that run's
    finished ``(number, record)`` games in order): ``{"weights", "policy", "meta",
    "held"}``.

    :raises ValueError: a run holds fewer finished games than the recipe needs."""
    from .engine_games import to_dataset
    from .policy import decisions, fit, loglik
    from .train import train

    games, digests = _recipe_games(recipe, runs)
    out = train([to_dataset(games)], init=_init(recipe), progress=progress,
                **recipe["train"])
    pol = decisions(games)
    held = pol["game"] % 10 == 9
    theta = fit(pol, select=~held, **recipe.get("policy", {}))
    meta = dict(out["meta"])
    meta.update(generation=gen, recipe=recipe, games_digest=digests,
                policy={"train": loglik(theta, pol, ~held), "held": loglik(theta, pol, held)})
    return {"weights": out["weights"], "policy": np.asarray(theta, np.float64), "meta": meta,
            "held": out["held"]}


def _recipe_games(recipe: dict, runs: dict):
    """The games a recipe reads, numbered apart per run, and each run's digest."""
    games, digests = [], []
    for run, count in recipe["runs"]:
        got = list(runs.get(run, ()))[:count]
        if len(got) < count:
            raise ValueError(f"run {run}: {len(got)} finished games, the recipe needs {count}")
        # game numbers of different runs apart, so that 'held out' (9 mod 10) is per game
        games += [(g + 1_000_000 * len(digests), rec) for g, rec in got]
        digests.append(games_digest(got))
    return games, digests


def _init(recipe: dict):
    from ..solve.engine import weights_path
    from .model import load_weights
    return load_weights(weights_path(recipe["init"]))[0] if recipe.get("init") else None


def sweep(grid: dict, runs: dict, progress=None) -> dict:
    """Fit every combination of a :data:`SWEEPS` entry on its runs' games (read once) and
    name the one of lowest held-out log loss: ``{"fits": [{"recipe", "held_logloss"}],
    "chosen": recipe}``, each ``recipe`` one :func:`fit_generation` takes. Ties go to the
    first listed."""
    import itertools

    from .engine_games import to_dataset
    from .train import errors, train

    games, _ = _recipe_games(grid, runs)
    data = to_dataset(games)
    keys = sorted(grid["train"])
    fits = []
    for init, values in itertools.product(grid["init"],
                                          itertools.product(*(grid["train"][k] for k in keys))):
        recipe = {"runs": grid["runs"], "init": init, "train": dict(zip(keys, values)),
                  "policy": grid.get("policy", {})}
        out = train([data], init=_init(recipe), **recipe["train"])
        ll = errors(out["weights"], out["held"])["logloss"]
        fits.append({"recipe": recipe, "held_logloss": ll})
        if progress is not None:
            progress(f"{init} {recipe['train']}: held-out log loss {ll:.4f}")
    best = min(range(len(fits)), key=lambda i: (fits[i]["held_logloss"], i))
    return {"fits": fits, "chosen": fits[best]["recipe"]}


def save_generation(res: dict, path) -> dict:
    """Write :func:`fit_generation`'s result as a generation file; returns its ``meta``
    with the held-out errors of the network, of the card count and of a constant."""
    from .train import errors
    meta = dict(res["meta"])
    meta["held_errors"] = {k: errors(res["weights"] if k == "learned" else None, res["held"],
                                     kind=k) for k in ("learned", "cardcount", "constant")}
    np.savez(path, **{k: np.ascontiguousarray(res["weights"][k], dtype=np.float32)
                      for k in ("w1", "b1", "w2", "b2", "w3")},
             policy=res["policy"], meta=np.array(json.dumps(meta, sort_keys=True)))
    return meta

"""Generations of the learned values: each learns from the games of the one before.

    python benchmarks/generations.py games RUN [--jobs J] [--games N]   # resumable
    python benchmarks/generations.py sweep GEN                          # the fits to choose from
    python benchmarks/generations.py train GEN                          # the next network
    python benchmarks/generations.py test RUN --first F [--games N]     # networks on held-out games
    python benchmarks/generations.py test row:ROW --first F --players 3 # ... with three players

A run is a named set of self-play games (:data:`RUNS`): the agent that plays every seat,
the seed and the number of games. Game ``g`` of a run is the same game whoever plays it,
whenever (:mod:`palace_solver.learn.engine_games`), and a run's file resumes where it
stopped. ``train GEN`` fits generation GEN's network and policy model on the runs its
recipe names (:data:`RECIPES`) and writes ``palace_solver/data/eval_weights-genGEN.npz``;
the same games, recipe and seed give the same weights bit for bit on one machine
(numpy pinned to one thread). ``sweep GEN`` fits the variants a generation is chosen
among (:data:`SWEEPS`, written before they are fitted) and writes each one's held-out
log loss to ``results/generationGEN-sweep.json``; the lowest becomes the recipe.

Runs:

- ``gen0-train``: the games generation 1 learns from, played by generation 0: the
  engine's search with learned leaves (:data:`SEARCH`) and the network learned from
  greedy games (``gen0``). A decision costs it about a quarter of ``engine1``'s, so the
  two cores here play four times as many games in the same hours.
- ``gen0-calib``: ``engine1`` at its full budget against itself: the held-out games on
  which the figures of ``palace analyze`` before this work are calibrated (never trained
  on).
- ``gen1-train``: generation 1's search against itself (not begun: generation 2 learns
  from ``gen1-calib``'s first 400 games, the engine's own play at its full budget).
- ``gen1-calib``: ``engine`` (generation 1 at its full budget) against itself: the
  "after" of the calibration benchmark (games 400 on; no recipe reads them).
- ``layouts-calib``: ``engine`` against itself, every player laying out at random
  (``LAYOUT``): held-out games on layouts the engine's swap never makes, for ``test`` and
  ``calibration.py`` (no recipe reads them).
- ``layouts-train``: the same on other deals (``LAYOUTS_TRAIN``): games laid out at random
  for a generation to learn from (docs/learning.md, Layouts the engine's games never hold).
- ``many-calib``: the same pinned ``engine`` against itself with four and five players
  (``PLAYERS``): held-out games on which the figures of more than three players are
  measured (docs/learning.md, Four and five players); no recipe reads them.

``test`` scores networks on games no recipe trained on (a run's, or a recorded row's:
``row:ROW``): each two-player position's value for the mover against the mover's final
loss share (1 loss, 0 win, 1/2 draw), as log loss and as Brier skill against a constant
1/2, while the draw pile holds cards and once it is empty; intervals by bootstrap over
games, and each network's difference from the first one named paired over the same
positions. ``--players 3`` scores the positions with three players still in instead
(the share of a draw 1/3, the Brier skill against a constant 1/3).

A recipe's runs are read as their first games without a gap (``finished_games``), so a
run still growing does not change the generations fitted on it. A run named ``row:ROW``
is the recorded games of strength row ROW (``benchmarks/strength.py``, ``RECORDED``):
engines against engines, each start in every seating; game ``start + 100000 * seat``,
so that both seatings of a start, which share its deal and chance, are held out together
(9 mod 10).
"""
from __future__ import annotations

import os
import platform

#: One thread, and one OpenBLAS kernel on every x86-64 host, so that a fit here rebuilds on
#: another processor (generation.REBUILD_ATOL); set before numpy loads it
HELD_BLAS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
             **({"OPENBLAS_CORETYPE": "Haswell"}
                if platform.machine() in ("x86_64", "AMD64") else {})}
for _k, _v in HELD_BLAS.items():
    os.environ.setdefault(_k, _v)

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from palace_solver.learn.engine_games import first_games, game_tasks, run_games  # noqa: E402
from palace_solver.learn.generation import (  # noqa: E402
    RECIPES,
    SWEEPS,
    fit_generation,
    save_generation,
    sweep,
)

#: Where the runs' game files live: committed (about 5 KB a game), so that a run grows
#: across sessions and a generation's recipe can be rebuilt from a clone.
DATA = Path(os.environ.get("PALACE_GAMES", Path(__file__).resolve().parent / "results"
                           / "games"))

#: run -> agent, seed, games asked
#: The draw phase's search of the engine from generation 0 on: 32 deals, each searched by
#: iterative deepening (alpha-beta, the draw pile's order fixed per deal) with the
#: generation's network at the leaves, 60,000 nodes a decision; the endgame as engine1's.
SEARCH = ("engine:determinizations=32:nodes=60000:chance_width=0:rollouts=0:max_depth=64"
          ":eval=learned:stop_at_budget=0:exact_nodes=0")


#: layouts-train's player: ``engine`` as it is today (generation 4), with the options the
#: rows being played may change pinned at today's values (the m3 and b2 candidates), so
#: that the run, begun beside them, grows whatever they decide
LAYOUTS_TRAIN = "engine:nodes=120000:infer_greedy=0:end_infer_greedy=0"


def search_agent(gen: int) -> str:
    """The agent of generation ``gen``: SEARCH and the endgame with its network."""
    return f"{SEARCH}:weights=gen{gen}:end_weights=gen{gen}"


RUNS = {
    "gen0-train": (search_agent(0), 100, 4000),
    "gen0-calib": ("engine1", 0, 4000),
    "gen1-train": (search_agent(1), 101, 4000),
    "gen1-calib": ("engine", 1, 4000),
    "layouts-calib": ("engine", 3, 400),
    "layouts-train": (LAYOUTS_TRAIN, 4, 800),
    "many-calib": (LAYOUTS_TRAIN, 5, 400),
}
#: Runs whose players lay out otherwise than ``greedy`` (``palace_solver.jobs.match.LAYOUTS``)
#: layouts-calib: held-out games dealt with layouts at random, to measure the figures on
#: layouts the engine's own games never hold (docs/learning.md); no recipe reads them.
LAYOUT = {"layouts-calib": "random", "layouts-train": "random"}
#: Runs dealt to other player counts than every other run's (two players 3, three 1):
#: many-calib, half four players and half five, to measure the figures there
PLAYERS = {"many-calib": {4: 1, 5: 1}}


#: Runs whose agent's name builds another agent than the one that played their games, since
#: decisions changed ``engine``'s defaults (benchmarks/RESULTS-strength.md): they take no
#: more games, whose player would not be the run's; the recipes read the games they hold.
CLOSED = {
    "gen0-train": "SEARCH takes engine's defaults, changed since its games (the inference of "
                  "generation 1, revealed cards, the tempered inference, progress where it "
                  "leads)",
    "gen1-calib": "engine has changed since its games (revealed cards, the tempered "
                  "inference, progress where it leads)",
}


def games_file(run: str) -> Path:
    legacy = {"gen0-calib": "gen0-games.jsonl"}   # the first run's file name
    path = DATA / f"{run}.jsonl"
    if not path.exists() and run in legacy and (DATA / legacy[run]).exists():
        return DATA / legacy[run]
    return path


#: a recipe's run named so reads a recorded strength row (:func:`row_games`)
ROW_RUN = "row:"
#: the number of a row's game is its start plus this times its seat
SEAT_STRIDE = 100_000


def row_games(path, players: int) -> list:
    """The recorded games of a strength row's file (``palace match`` games under the
    standard rules, in task order up to the first one not finished) as self-play records
    ``(number, record)``: number ``start + SEAT_STRIDE * seat``; the record has ``n``,
    ``rules``, ``loss``, ``reason``, ``events``, ``prefix`` and ``figures``.

    :raises ValueError: a finished game without its events (a row not recorded)."""
    from palace_solver.game.rules import Rules
    from palace_solver.jobs.batch import finished_results
    done = dict(finished_results(path))
    rules = Rules().to_json()
    out = []
    for i in range(len(done)):
        start, seat = divmod(i, players)
        res = done.get(f"{start}/{seat}")
        if res is None:
            break
        if "events" not in res:
            raise ValueError(f"{path}: game {start}/{seat} was played without its events")
        out.append((start + SEAT_STRIDE * seat,
                    {"n": players, "rules": rules, "loss": res["loss"],
                     "reason": res["reason"], "events": res["events"],
                     "prefix": res["prefix"], "figures": res["figures"]}))
    return out


def run_tasks(run: str, games: int | None = None):
    agent, seed, asked = RUNS[run]
    return game_tasks(games or asked, seed=seed, agent=agent, players=PLAYERS.get(run),
                      layout=LAYOUT.get(run, "greedy"))


def finished_games(run: str) -> list:
    """The run's first games without a gap (``first_games``), none for a run not begun;
    for ``row:ROW``, the row's recorded games (:func:`row_games`)."""
    if run.startswith(ROW_RUN):
        from strength import ROWS, _file   # benchmarks/strength.py
        row = run[len(ROW_RUN):]
        path = _file(row)
        return row_games(path, ROWS[row][2]) if path.exists() else []
    path = games_file(run)
    return first_games(path) if path.exists() else []


def _mover_values(data: dict, gens: list[str], players: int = 2) -> dict:
    """Mover's value of every position with ``players`` players still in under each
    network, with its outcome, game and draw pile.

    :raises ValueError: no such position."""
    import numpy as np

    from palace_solver.learn.features import rows
    from palace_solver.learn.model import load_weights, probs
    from palace_solver.solve.engine import weights_path
    idx = np.nonzero(data["nact"] == players)[0]
    if not len(idx):
        raise ValueError(f"no position with {players} players still in")
    r = data["start"][idx][:, None] + np.arange(players)[None, :]
    pb, pub = data["pb"][r], data["pub"][idx]
    out = {"y": data["y"][r][:, 0].astype(np.float64), "game": data["game"][idx],
           "draw": pub[:, 61].astype(np.int64)}
    for gen in gens:
        w = load_weights(weights_path(gen))[0]
        out[gen] = np.concatenate([probs(w, rows(pb[i:i + 20000], pub[i:i + 20000]))[:, 0]
                                   for i in range(0, len(pb), 20000)]).astype(np.float64)
    return out


def score_networks(games: list, gens: list[str], boot: int = 1000, seed: int = 0,
                   players: int = 2) -> dict:
    """Log loss and Brier skill against an equal share (1/2 with two players) of each
    network on the positions of ``games`` (``(number, record)``) with ``players`` players
    still in, by phase, with bootstrap intervals over games."""
    import numpy as np

    from palace_solver.learn.engine_games import to_dataset
    from palace_solver.sample.stats import group_bootstrap, group_sums, percentile_ci
    v = _mover_values(to_dataset(games), gens, players)
    inv, picks = group_bootstrap(v["game"], boot, np.random.default_rng(seed))
    size = picks.shape[1]
    share = 1 / players
    out = {"games": int(size), "players": players, "baseline": share, "phases": {}}
    for phase, sel in (("all", np.ones(len(v["y"]), bool)), ("draw pile not empty", v["draw"] > 0),
                       ("draw pile empty", v["draw"] == 0)):
        if not sel.any():
            out["phases"][phase] = {"positions": 0}
            continue
        y, g = v["y"][sel], inv[sel]
        base = group_sums(g, (share - y) ** 2, size)
        row = {"positions": int(sel.sum())}

        def skill(p, wts):
            return 1 - (wts @ group_sums(g, (p - y) ** 2, size)) / (wts @ base)
        for k, gen in enumerate(gens):
            p = np.clip(v[gen][sel], 1e-12, 1 - 1e-12)
            ll = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
            draws = [skill(p, w) for w in picks]
            ent = {"logloss": round(float(ll), 4),
                   "brier_skill": round(float(skill(p, np.ones(size))), 4),
                   "ci95": [round(x, 4) for x in percentile_ci(draws)]}
            if k:
                p0 = np.clip(v[gens[0]][sel], 1e-12, 1 - 1e-12)
                diff = [skill(p, w) - skill(p0, w) for w in picks]
                ent[f"minus_{gens[0]}"] = round(float(ent["brier_skill"] - skill(
                    p0, np.ones(size))), 4)
                ent[f"minus_{gens[0]}_ci95"] = [round(x, 4) for x in percentile_ci(diff)]
            row[gen] = ent
        out["phases"][phase] = row
    return out


#: Generations whose rebuild is checked here, not in the test suite: generation 4's fit
#: reads 5,760 games and takes about 2.5 minutes of CPU and 3 GB at its peak (19 GB until
#: the policy data stopped padding every decision to the widest; /usr/bin/time),
#: generation 5's 9,760 games about 3.2 minutes and 4.8 GB, generation 6's 12,960 games about
#: 5 minutes and 6 GB; the whole suite takes about 9 minutes.
#: ``rebuild GEN`` writes results/generationGEN-rebuild.json with the shipped file's
#: digest; tests/test_generations.py checks that the file names the weights shipped today
#: and says they came out equal.
REBUILT_HERE = (4, 5, 6)


def rebuild(gen: int) -> int:
    """Fit generation ``gen`` again and compare each array with the shipped file (the test
    suite's tolerance, ``REBUILD_ATOL``); the verdict to results/generationGEN-rebuild.json."""
    import hashlib
    import json
    import resource
    import tempfile
    import time

    import numpy as np

    import provenance
    from palace_solver.learn.generation import (
        RECIPES, REBUILD_ATOL, fit_generation, save_generation)
    from palace_solver.solve.engine import weights_path
    rec = provenance.record()
    shipped = Path(weights_path(f"gen{gen}"))
    t0 = time.perf_counter()
    res = fit_generation(gen, RECIPES[gen], {run: finished_games(run)
                                             for run, _ in RECIPES[gen]["runs"]})
    diffs, equal = {}, True
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "again.npz"
        save_generation(res, out)
        with np.load(out) as a, np.load(shipped) as b:
            for k in b.files:
                if k == "meta":
                    continue
                diffs[k] = float(np.max(np.abs(a[k] - b[k]))) if a[k].size else 0.0
                equal &= bool(np.allclose(a[k], b[k], rtol=0, atol=REBUILD_ATOL))
    body = {"generation": gen, "shipped": shipped.name,
            "shipped_sha256": hashlib.sha256(shipped.read_bytes()).hexdigest(),
            "equal": equal, "max_abs_diff": diffs,
            "fit_seconds": round(time.perf_counter() - t0, 1),
            "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2)}
    path = provenance.RESULTS / f"generation{gen}-rebuild.json"
    provenance.write(path, body, rec)
    print(json.dumps(body, indent=1))
    return 0 if equal else 1


def _test_run(name: str) -> str:
    """A run ``test`` can score: one of RUNS, or ``row:ROW`` for a recorded strength row."""
    if name in RUNS:
        return name
    if name.startswith(ROW_RUN):
        from strength import RECORDED   # benchmarks/strength.py
        if name[len(ROW_RUN):] in RECORDED:
            return name
    raise argparse.ArgumentTypeError(f"{name!r}: not a run ({', '.join(sorted(RUNS))}) "
                                     f"nor row:ROW of a recorded strength row")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("games", help="play a run's self-play games (resumable)")
    g.add_argument("run", choices=sorted(RUNS))
    g.add_argument("--jobs", type=int, default=1)
    t = sub.add_parser("train", help="fit a generation's network and policy model")
    t.add_argument("gen", type=int)
    t.add_argument("--out", type=Path, help="default: palace_solver/data/eval_weights-genGEN.npz")
    b = sub.add_parser("rebuild", help="fit a shipped generation again from its recipe and "
                       "compare with the shipped file (for the generations too large for "
                       "the test suite: REBUILT_HERE)")
    b.add_argument("gen", type=int)
    w = sub.add_parser("sweep", help="fit the variants a generation is chosen among "
                       "(SWEEPS) and name the one of lowest held-out log loss")
    w.add_argument("gen", type=int, choices=sorted(SWEEPS))
    w.add_argument("--output", type=Path, help="default: results/generationGEN-sweep.json")
    s = sub.add_parser("test", help="score networks on games no recipe trained on")
    s.add_argument("run", type=_test_run,
                   help=f"a run ({', '.join(sorted(RUNS))}) or row:ROW, a recorded strength row")
    s.add_argument("--first", type=int, required=True, help="the first game scored")
    s.add_argument("--players", type=int, default=2,
                   help="score the positions with this many players still in (default 2); "
                        "the Brier skill is against an equal share, 1/PLAYERS")
    s.add_argument("--games", type=int, help="how many (default: the rest of the run)")
    s.add_argument("--gens", default="gen1,gen0", help="networks, the first one the reference")
    s.add_argument("--output", type=Path, help="also write the JSON here")
    args = ap.parse_args(argv)
    if args.cmd == "test":
        import json
        games = finished_games(args.run)[args.first:]
        games = games[:args.games] if args.games else games
        if not games:
            raise SystemExit(f"run {args.run}: no finished games from game {args.first}")
        for gen, recipe in RECIPES.items():
            for run, count in recipe["runs"]:
                if run == args.run and count > args.first:
                    print(f"note: gen{gen} trained on games 0-{count - 1} of {run}",
                          file=sys.stderr)
        try:
            scores = score_networks(games, args.gens.split(","), players=args.players)
        except ValueError as e:
            raise SystemExit(f"run {args.run}: {e}")
        res = {"run": args.run, "first": games[0][0], "last": games[-1][0], **scores}
        text = json.dumps(res, indent=1)
        print(text)
        if args.output:
            args.output.write_text(text + "\n")
        return 0
    if args.cmd == "sweep":
        import json
        grid = SWEEPS[args.gen]
        try:
            res = sweep(grid, {run: finished_games(run) for run, _ in grid["runs"]},
                        progress=lambda m: print(m, file=sys.stderr))
        except ValueError as e:
            raise SystemExit(str(e))
        out = args.output or (Path(__file__).resolve().parent / "results"
                              / f"generation{args.gen}-sweep.json")
        text = json.dumps({"generation": args.gen, **res}, indent=1)
        out.write_text(text + "\n")
        print(text)
        print(f"{out}", file=sys.stderr)
        return 0
    if args.cmd == "rebuild":
        return rebuild(args.gen)
    if args.cmd == "train":
        import json
        recipe = RECIPES[args.gen]
        try:
            res = fit_generation(args.gen, recipe,
                                 {run: finished_games(run) for run, _ in recipe["runs"]},
                                 progress=lambda m: print(m, file=sys.stderr))
        except ValueError as e:
            raise SystemExit(str(e))
        out = args.out or (Path(__file__).resolve().parents[1] / "palace_solver" / "data"
                           / f"eval_weights-gen{args.gen}.npz")
        meta = save_generation(res, out)
        print(json.dumps({k: meta[k] for k in ("held_errors", "policy")}, indent=1))
        print(f"{out}", file=sys.stderr)
        return 0
    if args.cmd == "games":
        if args.run in CLOSED:
            raise SystemExit(f"run {args.run} takes no more games: {CLOSED[args.run]}; "
                             f"new games under today's agent are a run of their own (RUNS)")
        out = games_file(args.run)
        out.parent.mkdir(parents=True, exist_ok=True)
        res = run_games(run_tasks(args.run), jobs=args.jobs, output=out)
        print(f"{len(res)} games in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

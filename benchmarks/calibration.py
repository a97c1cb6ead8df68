"""Calibration of the figures of ``palace analyze`` on the engine's own games.

    python benchmarks/calibration.py run RUN --which before|after [--first F] [--games N]
    python benchmarks/calibration.py report FILE [FILE ...] [--raw] [--map M] [--over FILE ...]
    python benchmarks/calibration.py fit FILE [FILE ...] --name NAME [--fallback] [--least N]
    python benchmarks/calibration.py pair FILE [FILE ...] --vs FILE [FILE ...] [--raw] [--apart]

RULES.md promises, for each move, the probability that the mover loses when every player
then plays to minimise their own loss. The engine playing every seat is this project's
stand-in for that, so a figure is calibrated when, over many decisions of the engine's
games against itself, the outcomes follow the figures: among decisions reported at 0.3,
the mover lost (counting a draw as its share) three times in ten.

``run`` takes the games of a self-play run (``benchmarks/generations.py``; none of them
trained on), keeps each decision with a choice with probability ``--keep`` (seeded by
the game and the decision), and asks the analysis of that moment, from the mover's view
(their own cards, the table, the public record, the game's history as they saw it), for
the figure of the move the game's player made. ``--which before`` is the analysis as it
stood before the values learned from the engine's games (``HINT1``, ``HINT1_END`` of
``sample/drawsearch.py``; in exact mode the depth-limited fallback with the card count at
its horizon), ``after`` today's ``palace analyze``. Both give the exact solver the
positions where every hand is known and the draw pile is empty, with the hints' time
budget (2 s). ``--which unordered`` is ``after`` with a draw-phase search that does not fix
the draw pile's order per deal (each refill a chance node, two draws kept per node: the
candidate of RESULTS-strength.md's e1 rows), on the decisions while the draw pile holds
cards only (once it is empty there is no order to see, and the figures are ``after``'s).
``--which after --weights GEN`` is ``after`` with another generation's network and policy
model in the search (``HINT.with_(weights=GEN)``; its map still applied, the figures
before it kept), on the decisions the search analyses only: exact mode's, whose solver and
fallback horizon do not depend on the search's network, are ``after``'s. Its search is
bound by its nodes alone (no time budget), so that the load of the machine, which the
strength rows share, cannot cut it short: on a core of its own these searches stay well
inside the hints' 2 s (docs/learning.md), so the figures are the 2 s analysis's; each row
keeps the search's ``seconds``.
``--bound nodes`` bounds the search of ``after`` by its nodes alone in the same way (exact
mode keeps its 2 s), for runs beside the strength rows.
RUN may be ``row:ROW``, the recorded games of a strength row (``strength.py``'s
``RECORDED``; ``generations.py row_games``): game ``start + 100000 * seat``, ``--first`` and
``--games`` counting starts, every seating of each (files ``row-ROW-WHICH-FFFF.jsonl``).
One batch task a game, resumable, games F .. F+N-1 of the run in
``benchmarks/results/calibration/RUN-WHICH-FFFF.jsonl`` (a run's games arrive over hours:
one file per block of games, and ``report`` reads them all). The tasks name the
configurations analysed, so a file written by others (an engine since changed) is refused,
not resumed: ``--label L`` writes RUN-L-FFFF.jsonl, a new measurement of the same games.
``--players N`` takes the run's N-player games instead of its two-player ones, each
decision while every player is still in (a position with a player out has no analysis),
in ``RUN-WHICH-Np-FFFF.jsonl``: their figures come through no map (none was ever fitted on
three or more players) and are measured against a constant 1/N.

``report`` prints, per tenth of the figure (deciles of [0, 1]), the count, the mean figure,
the mean outcome and their difference; the bias (mean figure minus mean outcome) overall
and while the draw pile holds cards or not; and the Brier skill against a constant 1/n
(n players), each with a 95% interval by bootstrap over games; the decisions by method;
``--raw`` the search's figures before the
calibration map (``palace_solver/sample/calibration.py``); ``--over BASE``: the decisions of
the BASE files, each one that the first files hold taken from them instead (a ``--weights``
run laid over the ``after`` run it measured a part of again).

``pair`` compares two sets of files on the decisions both hold (the same game and
decision): the first's bias and Brier skill minus the second's, overall and per phase,
with 95% intervals by bootstrap over games (``--raw``: the search's figures before the
map, in both; ``--map NAME``: the first files' search figures through that map).
``--apart``: the two sets are of different games (another run's, such as games laid out
otherwise): every decision of each, each set's games resampled on its own.

``fit`` fits that map on the search's decisions of ``after`` files (held-out games, never
trained on; ``--fallback``: and a band of its own for the depth-limited fallback's figures
that it did not prove, from rows that say so), writes
``palace_solver/data/calibration-NAME.json`` with the files' digests and a cross-fit (each
half of the games mapped by the map of the other half); the map is then measured on other
games than the ones it was fitted on.
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
from collections import Counter  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from palace_solver.agents.method_bots import history_positions, view_position  # noqa: E402
from palace_solver.analysis import analyze, exact_history, is_exact_mode  # noqa: E402
from palace_solver.jobs.batch import BatchError, run_batch  # noqa: E402
from palace_solver.learn.engine_games import read_games, replay_tracked  # noqa: E402
from palace_solver.learn.calibration import (  # noqa: E402
    SEARCH_BANDS, band_of, fit_map, search_rows)
from palace_solver.learn.calibration import read_rows as load_rows  # noqa: E402
from palace_solver.sample.calibration import (  # noqa: E402
    BANDS, FALLBACK, CalibrationMap, calibration_path, load_map)
from palace_solver.sample.drawsearch import (  # noqa: E402
    HINT, HINT1, HINT1_END, HINT_END, analyze_search)
from palace_solver.sample.stats import group_bootstrap, group_sums, percentile_ci  # noqa: E402
from palace_solver.solve.solver import solve_exact  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generations import ROW_RUN, SEAT_STRIDE, finished_games, games_file  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "calibration"
ROOT = Path(__file__).resolve().parent.parent
#: the hints' time budget (palace live), seconds
SECONDS = 2.0
#: ``--which unordered``: the hints' draw-phase search without the draw pile's order
UNORDERED = HINT.with_(ordered=False, chance_width=2)


def figure(pos, history, which: str, weights: str = "", bound: str = "time"
           ) -> tuple[dict, str, dict | None, set, float] | None:
    """Each legal move's loss figure for the mover, the method that gave them, the
    search's figures before the calibration map (None without one), the moves whose
    figure a depth-limited fallback proved (exact, not an estimate), and the analysis's
    seconds; None where ``which`` (and ``weights``) does not analyse the position
    (``unordered`` once the draw pile is empty, ``weights`` in exact mode). ``bound``:
    ``nodes`` searches ``after``'s search positions by their node budget alone."""
    if weights:
        if which != "after":
            raise ValueError("--weights measures the analyses as they ship ('after') "
                             "with another network")
        if is_exact_mode(pos):
            return None
        config = (HINT if pos.draw_pile > 0 else HINT_END).with_(weights=weights)
        a = analyze_search(pos, config=config, seed=0, history=history)
    elif which == "unordered":
        if pos.draw_pile == 0:
            return None
        a = analyze_search(pos, config=UNORDERED, time_budget=SECONDS, seed=0,
                           history=history)
    elif which == "before" and not is_exact_mode(pos):
        a = analyze_search(pos, config=HINT1 if pos.draw_pile > 0 else HINT1_END,
                           time_budget=SECONDS, seed=0, history=history)
    elif which == "before":   # the depth-limited fallback with the card count, as it was
        a = solve_exact(pos.to_state(), time_budget=SECONDS, history=exact_history(pos, history),
                        horizon=("cardcount", ""))
    elif bound == "nodes" and not is_exact_mode(pos):
        a = analyze(pos, seed=0, history=history)
    else:
        a = analyze(pos, time_budget=SECONDS, seed=0, history=history)
    cal = a.stats.get("calibration")
    return ({str(mv.move): mv.loss[pos.to_move] for mv in a.moves}, a.method,
            cal["raw_mover_loss"] if cal else None,
            {str(mv.move) for mv in a.moves if mv.resolved}, a.stats.get("seconds"))


def analysis_digest(which: str, weights: str = "") -> str:
    """A digest of the configurations ``which`` analyses with (the calibration map's name
    is one of their fields), their network ``weights`` where given."""
    configs = {"before": (HINT1, HINT1_END), "after": (HINT, HINT_END),
               "unordered": (UNORDERED, HINT_END)}[which]
    if weights:
        configs = tuple(c.with_(weights=weights) for c in configs)
    text = json.dumps([c.to_json() for c in configs], sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


_GAMES: dict = {}


def _games_of(file: str) -> dict:
    """The finished games of a run's file or of ``row:ROW``, read once a process (a task a
    game would read the file again for each)."""
    if file not in _GAMES:
        _GAMES.clear()
        _GAMES[file] = dict(finished_games(file) if file.startswith(ROW_RUN)
                            else read_games(file))
    return _GAMES[file]


def calib_task(task: dict) -> dict:
    """One game's kept decisions: figure of the move played, outcome, draw pile, method."""
    rec = _games_of(task["file"]).get(task["game"])
    if rec is None:
        raise ValueError(f"game {task['game']} is not in {task['file']}")
    rng = random.Random(f"calib-{task['game']}")
    weights = task.get("weights", "")
    rows = []
    for state, move, _, k, tracker in replay_tracked(rec):
        if len(state.legal_moves()) < 2:
            continue
        if len(state.active()) < state.n:
            # a position with a player out has no analysis (POSITION.md); with two
            # players none comes before the end
            continue
        if rng.random() >= task["keep"]:
            continue
        me = state.to_move
        pos = view_position(state, me, tracker).validate()
        got = figure(pos, history_positions(state, me, tracker), task["which"], weights,
                     task.get("bound", "time"))
        if got is None:
            continue
        figs, method, raw, proved, seconds = got
        rows.append({"k": k, "draw": state.draw_pile, "figure": figs[str(move)],
                     "best": min(figs.values()), "outcome": rec["loss"][me],
                     "method": method, "n": rec["n"],
                     # (a fallback keeps no raw figure for a move it proved)
                     **({"raw": raw[str(move)]} if raw and str(move) in raw else {}),
                     **({"proved": str(move) in proved} if method == "depth_limited" else {}),
                     **({"seconds": seconds} if weights or "bound" in task else {})})
    return {"game": task["game"], "rows": rows}


def run(args) -> None:
    if args.run.startswith(ROW_RUN):
        path, have = args.run, dict(finished_games(args.run))
        games = [s + SEAT_STRIDE * seat for s in range(args.first, args.first + args.games)
                 for seat in range(args.players)]
    else:
        path = games_file(args.run)
        have = dict(read_games(path))
        games = list(range(args.first, args.first + args.games))
    missing = [g for g in games if g not in have]
    if missing:
        raise SystemExit(f"{path}: games {missing[:5]}... are not finished yet")
    # the games of one player count (two unless --players): the skill is against 1/n
    games = [g for g in games if have[g]["n"] == args.players]
    if not games:
        raise SystemExit(f"{path}: no {args.players}-player game among games "
                         f"{args.first}-{args.first + args.games - 1}")
    # (a file of two-player tasks keeps the tasks it was written with: no players key)
    extra = {} if args.players == 2 else {"players": args.players}
    if args.weights:
        if args.which != "after":
            raise SystemExit("--weights: only with --which after")
        extra["weights"] = args.weights
    if args.bound != "time":
        if args.which != "after" or args.weights:
            raise SystemExit("--bound nodes: only with --which after, without --weights "
                             "(which is bound by its nodes already)")
        extra["bound"] = args.bound
    # the configurations analysed are part of every task, so that a file written by other
    # ones (an engine since changed) is refused, not resumed as if it were this run's
    tasks = [{"id": g, "game": g, "file": str(path), "which": args.which, "keep": args.keep,
              "analysis": analysis_digest(args.which, args.weights), **extra} for g in games]
    OUT.mkdir(parents=True, exist_ok=True)
    which = f"{args.which}-{args.weights}" if args.weights else args.which
    name = args.label or (which if args.players == 2 else f"{which}-{args.players}p")
    out = OUT / f"{args.run.replace(':', '-')}-{name}-{args.first:04d}.jsonl"
    try:
        run_batch(calib_task, tasks, jobs=args.jobs, output=out, progress=True,
                  label="calibration games")
    except BatchError as e:
        raise SystemExit(f"{e}\n(a new measurement of the same games: give it a --label)")
    print(f"{out}", file=sys.stderr)


def _stats(fig, out, base):
    bias = float(np.mean(fig - out))
    brier = float(np.mean((fig - out) ** 2))
    ref = float(np.mean((base - out) ** 2))
    return bias, 1.0 - brier / ref if ref > 0 else float("nan")


def _totals(inverse, counts, select):
    """``total(v)``: per bootstrap resample of the games, the sum of ``v`` over the
    selected decisions drawn (``group_bootstrap``'s ``inverse`` and ``counts``)."""
    def total(v):
        return counts @ group_sums(inverse, np.where(select, v, 0.0), counts.shape[1])
    return total


def _arrays(rows):
    """The decisions' games, figures, outcomes, constant baselines (1/n) and whether the
    draw pile held cards, as arrays."""
    return (np.array([g for g, _ in rows]), np.array([r["figure"] for _, r in rows]),
            np.array([r["outcome"] for _, r in rows]),
            np.array([1.0 / r["n"] for _, r in rows]),
            np.array([r["draw"] > 0 for _, r in rows]))


def _resampled(total, fig, out, base):
    """Per bootstrap resample (``total`` of :func:`_totals`): the decisions drawn, their
    bias and their Brier skill."""
    n = total(np.ones(len(fig)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (n, total(fig - out) / n,
                1.0 - total((fig - out) ** 2) / total((base - out) ** 2))


def summary(rows, boot: int = 1000, seed: int = 0) -> dict:
    """The report's numbers (module doc) as data."""
    games, fig, out, base, draw = _arrays(rows)
    rng = np.random.default_rng(seed)

    def with_ci(select, rng=rng):
        point = _stats(fig[select], out[select], base[select]) if select.any() else (None, None)
        total = _totals(*group_bootstrap(games, boot, rng), select)
        n, bias, skill = _resampled(total, fig, out, base)
        return {"decisions": int(select.sum()), "bias": point[0],
                "bias_ci95": percentile_ci(bias[n > 0]), "brier_skill": point[1],
                "brier_skill_ci95": percentile_ci(skill[n > 0])}

    deciles = []
    # a generator of their own, so that the overall figures' intervals stay as they were
    tenths = np.random.default_rng([seed, 1])
    for d in range(10):
        sel = (fig >= d / 10) & ((fig < (d + 1) / 10) | (d == 9))
        deciles.append({"decile": [d / 10, (d + 1) / 10], "count": int(sel.sum()),
                        "mean_figure": float(fig[sel].mean()) if sel.any() else None,
                        "mean_outcome": float(out[sel].mean()) if sel.any() else None,
                        "bias_ci95": with_ci(sel, tenths)["bias_ci95"] if sel.any() else None})
    return {"games": int(len(np.unique(games))), "all": with_ci(np.ones(len(fig), bool)),
            "draw_pile": with_ci(draw), "no_draw_pile": with_ci(~draw), "deciles": deciles}


def crossfit(rows, bands=SEARCH_BANDS, least: int = 0) -> dict:
    """Each game's decisions (rows of :func:`search_rows`) mapped by the map fitted on the
    other half of the games (by the game number's parity): how much a map fitted on games
    it never saw gains, raw against mapped, while the draw pile holds cards and once it is
    empty."""
    mapped = []
    for half in (0, 1):
        cmap = CalibrationMap("crossfit",
                              fit_map([r for g, r in rows if g % 2 != half], bands,
                                      least=least))
        mapped += [(g, {**r, "figure": cmap.apply(r["figure"], r["band"])})
                   for g, r in rows if g % 2 == half]
    raw, new = summary(rows), summary(mapped)
    return {part: {"decisions": raw[part]["decisions"],
                   "raw": [raw[part]["bias"], raw[part]["brier_skill"]],
                   "mapped": [new[part]["bias"], new[part]["brier_skill"]]}
            for part in ("all", "draw_pile", "no_draw_pile")}


def fit(args) -> None:
    bands = SEARCH_BANDS + ((FALLBACK,) if args.fallback else ())
    rows = search_rows(args.files, bands)
    players = sorted({r["n"] for _, r in rows})
    if len(players) != 1:
        raise SystemExit(f"fit: the files hold decisions of {players or 'no'} players; a map "
                         "is fitted on games of one number of players")
    params = fit_map([r for _, r in rows], bands, least=args.least)
    files = [{"file": os.path.relpath(f, ROOT),
              "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()} for f in args.files]
    drawn = {n: [lo, hi] for n, lo, hi in BANDS}
    rec = {"name": args.name, "form": "sigmoid(a * logit(x) + b) of the mover's figure x",
           **({"players": players[0]} if players[0] != 2 else {}),
           **({"least": args.least} if args.least else {}),
           "params": params,
           "bands": {n: drawn.get(n, "the depth-limited fallback's figures not proved")
                     for n in bands},
           "decisions": {n: sum(r["band"] == n for _, r in rows) for n in bands},
           "games": len({g for g, _ in rows}), "files": files,
           "crossfit": crossfit(rows, bands, args.least),
           "command": "python benchmarks/calibration.py fit " + " ".join(
               f["file"] for f in files) + f" --name {args.name}"
           + (" --fallback" if args.fallback else "")
           + (f" --least {args.least}" if args.least else "")}
    out = Path(calibration_path(args.name))
    out.write_text(json.dumps(rec, indent=1) + "\n")
    print(json.dumps(rec, indent=1))
    print(out, file=sys.stderr)


def paired(rows_a, rows_b, boot: int = 1000, seed: int = 0) -> dict:
    """A's bias and Brier skill minus B's on the decisions both hold (keyed by game and
    decision number), overall and per phase, each with a 95% interval by bootstrap over
    games (the same resampled games for both)."""
    b_at = {(g, r["k"]): r for g, r in rows_b}
    both = [(g, r, b_at[(g, r["k"])]) for g, r in rows_a if (g, r["k"]) in b_at]
    if not both:
        raise SystemExit("pair: no decision is in both sets of files")
    games = np.array([g for g, _, _ in both])
    fa = np.array([r["figure"] for _, r, _ in both])
    fb = np.array([r["figure"] for _, _, r in both])
    out = np.array([r["outcome"] for _, r, _ in both])
    base = np.array([1.0 / r["n"] for _, r, _ in both])
    draw = np.array([r["draw"] > 0 for _, r, _ in both])
    rng = np.random.default_rng(seed)
    inverse, counts = group_bootstrap(games, boot, rng)

    def part(select):
        total = _totals(inverse, counts, select)
        n, ref = total(np.ones(len(fa))), total((base - out) ** 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            dbias = (total(fa - out) - total(fb - out)) / n
            dskill = (total((fb - out) ** 2) - total((fa - out) ** 2)) / ref
        a = _stats(fa[select], out[select], base[select])
        b = _stats(fb[select], out[select], base[select])
        ok = n > 0
        return {"decisions": int(select.sum()), "a": list(a), "b": list(b),
                "bias_difference": a[0] - b[0],
                "bias_difference_ci95": percentile_ci(dbias[ok]),
                "skill_difference": a[1] - b[1],
                "skill_difference_ci95": percentile_ci(dskill[ok])}
    parts = {"all": np.ones(len(fa), bool), "draw_pile": draw, "no_draw_pile": ~draw}
    return {"games": int(len(np.unique(games))),
            **{k: part(v) for k, v in parts.items() if v.any()}}


def apart(rows_a, rows_b, boot: int = 1000, seed: int = 0) -> dict:
    """A's bias and Brier skill minus B's where the two sets share no game (another run's
    games: the same question asked of other positions), overall and per phase, each with
    a 95% interval by a bootstrap over each set's games on its own."""
    sides = []
    rng = np.random.default_rng(seed)
    for rows in (rows_a, rows_b):
        games, fig, out, base, draw = _arrays(rows)
        sides.append((fig, out, base, draw, group_bootstrap(games, boot, rng)))

    def part(name):
        stats, draws = [], []
        for fig, out, base, draw, (inverse, counts) in sides:
            select = {"all": np.ones(len(fig), bool), "draw_pile": draw,
                      "no_draw_pile": ~draw}[name]
            if not select.any():
                return None
            draws.append(_resampled(_totals(inverse, counts, select), fig, out, base)[1:])
            stats.append((int(select.sum()), _stats(fig[select], out[select], base[select])))
        (na, a), (nb, b) = stats
        dbias, dskill = draws[0][0] - draws[1][0], draws[0][1] - draws[1][1]
        ok = np.isfinite(dbias) & np.isfinite(dskill)
        return {"decisions": [na, nb], "a": list(a), "b": list(b),
                "bias_difference": a[0] - b[0],
                "bias_difference_ci95": percentile_ci(dbias[ok]),
                "skill_difference": a[1] - b[1],
                "skill_difference_ci95": percentile_ci(dskill[ok])}
    parts = {k: part(k) for k in ("all", "draw_pile", "no_draw_pile")}
    return {"games": [len({g for g, _ in rows}) for rows in (rows_a, rows_b)],
            **{k: v for k, v in parts.items() if v is not None}}


def remapped(rows, name: str):
    """``rows`` with the analysis's own figures put through the map ``name`` (the map is a
    function of the figure and its band: rows of a band, of the map's number of players
    only)."""
    cmap = load_map(name)
    return [(g, {**r, "figure": cmap.apply(r.get("raw", r["figure"]), band_of(r))})
            if band_of(r) is not None and r["n"] == cmap.players else (g, r) for g, r in rows]


def pair(args) -> None:
    def rows(files, name=""):
        got = load_rows(files)
        if name:
            return remapped(got, name)
        return [(g, {**r, "figure": r.get("raw", r["figure"])}) for g, r in got] \
            if args.raw else got
    s = (apart if args.apart else paired)(rows(args.files, args.map), rows(args.vs))
    def both(n):
        return " and ".join(map(str, n)) if isinstance(n, list) else n
    print(f"{both(s['games'])} games")
    for name in ("all", "draw_pile", "no_draw_pile"):
        if name not in s:
            continue
        p = s[name]
        lo, hi = p["skill_difference_ci95"]
        blo, bhi = p["bias_difference_ci95"]
        print(f"{name}: {both(p['decisions'])} decisions, Brier skill {p['a'][1]:+.3f} against "
              f"{p['b'][1]:+.3f}, difference {p['skill_difference']:+.3f} [{lo:+.3f}, "
              f"{hi:+.3f}]; bias {p['a'][0]:+.4f} against {p['b'][0]:+.4f}, difference "
              f"{p['bias_difference']:+.4f} [{blo:+.4f}, {bhi:+.4f}]")
    if args.json:
        print(json.dumps(s, indent=1))


def laid_over(rows, base):
    """The decisions of ``base`` with those that ``rows`` holds too (the same game and
    decision) taken from ``rows``: the analyses as they would ship where a run measured a
    part of them again (``--weights``: the search's decisions, exact mode's from ``base``)."""
    mine = {(g, r["k"]): (g, r) for g, r in rows}
    return [mine.get((g, r["k"]), (g, r)) for g, r in base]


def report(args) -> None:
    rows = load_rows(args.files)
    if args.raw or args.map:
        rows = [(g, {**r, "figure": r.get("raw", r["figure"])}) for g, r in rows]
    if args.map:
        rows = remapped(rows, args.map)
    if args.over:
        rows = laid_over(rows, load_rows(args.over))
    s = summary(rows)
    methods = Counter(r["method"] for _, r in rows)
    print(f"{s['games']} games; decisions by method: "
          + ", ".join(f"{m} {c}" for m, c in sorted(methods.items())))
    print("| decile | count | mean figure | mean outcome | bias [95% CI] |\n|---|---|---|---|---|")
    for d in s["deciles"]:
        mf = "-" if d["mean_figure"] is None else f"{d['mean_figure']:.3f}"
        mo = "-" if d["mean_outcome"] is None else f"{d['mean_outcome']:.3f}"
        bias = "-" if d["mean_figure"] is None else (
            f"{d['mean_figure'] - d['mean_outcome']:+.3f} [{d['bias_ci95'][0]:+.3f}, "
            f"{d['bias_ci95'][1]:+.3f}]")
        print(f"| {d['decile'][0]:.1f}-{d['decile'][1]:.1f} | {d['count']} | {mf} | {mo} "
              f"| {bias} |")
    for part in ("all", "draw_pile", "no_draw_pile"):
        p = s[part]
        if not p["decisions"]:
            print(f"{part}: no decisions")
            continue
        print(f"{part}: {p['decisions']} decisions, bias {p['bias']:+.4f} "
              f"[{p['bias_ci95'][0]:+.4f}, {p['bias_ci95'][1]:+.4f}], Brier skill "
              f"{p['brier_skill']:+.3f} [{p['brier_skill_ci95'][0]:+.3f}, "
              f"{p['brier_skill_ci95'][1]:+.3f}]")
    if args.json:
        print(json.dumps(s, indent=1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("run")
    r.add_argument("--which", choices=("before", "after", "unordered"), required=True)
    r.add_argument("--first", type=int, default=0, help="the run's first game number "
                   "(row:ROW: its first start)")
    r.add_argument("--games", type=int, default=50, help="games from --first (one file; "
                   "row:ROW: starts, each in every seating)")
    r.add_argument("--keep", type=float, default=0.12)
    r.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5),
                   help="the games of this many players (the decisions while all are in; "
                        "default 2); not 2: the file is RUN-WHICH-Np-FIRST.jsonl")
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument("--label", default="", help="the file's name in place of --which's "
                   "(RUN-LABEL-FIRST.jsonl): a new measurement of games already measured")
    r.add_argument("--weights", default="", help="with --which after: the search with this "
                   "network and policy model (gen4), on the search's decisions only; the "
                   "file is RUN-after-GEN-FIRST.jsonl")
    r.add_argument("--bound", choices=("time", "nodes"), default="time",
                   help="with --which after: 'nodes' bounds the search by its nodes alone, "
                        "not the hints' 2 s (exact mode keeps them), so that a machine's "
                        "load does not cut it short")
    p = sub.add_parser("report")
    p.add_argument("files", nargs="+")
    p.add_argument("--json", action="store_true")
    p.add_argument("--raw", action="store_true",
                   help="the search's figures before the calibration map")
    p.add_argument("--map", default="", help="the search's figures through this map "
                                             "instead of the one the run applied")
    p.add_argument("--over", nargs="+", default=[], help="the decisions of these files, each "
                   "one the first files hold taken from them (as --map leaves it)")
    f = sub.add_parser("fit", help="fit the calibration map of palace analyze's search "
                                   "figures on 'after' rows (games never trained on)")
    f.add_argument("files", nargs="+")
    f.add_argument("--name", required=True, help="the map's name (palace_solver/data/"
                                                 "calibration-NAME.json)")
    f.add_argument("--fallback", action="store_true",
                   help="a band for the depth-limited fallback's figures too (rows that "
                        "say whether the figure was proved)")
    f.add_argument("--least", type=int, default=0,
                   help="a band with fewer decisions than this gets no (a, b): the map keeps "
                        "its figures (default: every band with decisions is fitted)")
    q = sub.add_parser("pair", help="the first files' bias and skill minus those of --vs, "
                                    "on the decisions both hold")
    q.add_argument("files", nargs="+")
    q.add_argument("--vs", nargs="+", required=True)
    q.add_argument("--raw", action="store_true",
                   help="the search's figures before the calibration map, in both")
    q.add_argument("--map", default="", help="the first files' search figures through this "
                                             "map instead of the one their run applied")
    q.add_argument("--apart", action="store_true",
                   help="the sets share no game (another run's): every decision of each, "
                        "each set's games resampled on its own")
    q.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    {"run": run, "report": report, "fit": fit, "pair": pair}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

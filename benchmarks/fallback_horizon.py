"""The value at the horizon of `palace analyze`'s depth-limited fallback: card count or network.

    python benchmarks/fallback_horizon.py run [--first F] [--games N]   # resumable
    python benchmarks/fallback_horizon.py report
    python benchmarks/fallback_horizon.py run --pair gen1,gen4 --first F --games N
    python benchmarks/fallback_horizon.py report --pair gen1,gen4 [--fit-below 400]

In exact mode (every hand known, the draw pile empty) a position whose graph does not fit
the budget gets the depth-limited search (``solve/deepening.py``), and its unresolved
figures are the value at its horizon. This measures which value makes those figures follow
the outcomes: on the decisions of ``gen1-calib`` games (the engine against itself, never
trained on) that the calibration benchmark keeps (``calibration.py``: the same seeded 12%
of the decisions with a choice, two players only) and where the analysis with the hints'
2 s falls back to that search, the mover's figure for the move played with the card count
and with generation 1's network, and the outcome. One line a decision in
``results/fallback-horizon.jsonl``; a game is done when its ``done`` line is there.

``report``: Brier skill of each against a constant 1/2, the bias, and the gain of the
network with a 95% interval by bootstrap over games. The figures depend on the machine's
speed (a time budget), not on the order of the games.

``--pair A,B`` (horizons of :data:`HORIZONS`; ``card,gen1`` is the first run above, in its
own file) compares two networks as the analysis ships them: on the decisions where the
analysis with A falls back, every move's figure with each and whether the search proved it,
both searched one after the other so that they share the machine's load
(``results/fallback-horizon-A-B.jsonl``). Its report maps A's unproved figures through the
fallback band of the map A shipped with (:data:`SHIPPED_MAP`),
fits B's band on the games below ``--fit-below`` and maps B's with it, and gives on the
games from there on the paired difference of Brier skill, B minus A (docs/learning.md, the
fallback's horizon with generation 4).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

import numpy as np

from palace_solver.agents.method_bots import history_positions, view_position
from palace_solver.game.position import Position
from palace_solver.learn.engine_games import read_games, replay_tracked
from palace_solver.solve.compiled import solve_compiled
from palace_solver.analysis import exact_history, is_exact_mode
from palace_solver.learn.calibration import fit_band
from palace_solver.sample.calibration import FALLBACK, calibration_path, load_map
from palace_solver.sample.stats import group_bootstrap, percentile_ci

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generations import games_file  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "fallback-horizon.jsonl"
SECONDS = 2.0
KEEP = 0.12
#: the values a horizon can take, by the names ``--pair`` gives them
HORIZONS = {"card": ("cardcount", ""), "gen1": ("learned", "gen1"),
            "gen4": ("learned", "gen4")}
FIRST_PAIR = ("card", "gen1")
#: the map whose fallback band served a horizon's figures while it shipped
SHIPPED_MAP = {"gen1": "tempered", "gen4": "fallback-gen4"}


def _out(pair) -> Path:
    return OUT if tuple(pair) == FIRST_PAIR else \
        OUT.with_name(f"fallback-horizon-{pair[0]}-{pair[1]}.jsonl")


def _analysis(pos: Position, hist, horizon):
    """What `palace analyze` does in exact mode (``analysis.analyze``), with ``horizon``,
    before the calibration map."""
    return solve_compiled(pos.to_state(), time_budget=SECONDS,
                          history=exact_history(pos, hist), horizon=horizon)


def _figures(pos: Position, hist, horizon) -> tuple[str, dict]:
    a = _analysis(pos, hist, horizon)
    return a.method, {str(m.move): m.loss[pos.to_move] for m in a.moves}


def _decisions(first: int, count: int, done: set):
    """``(game, record, k, state, move, position, history)`` of the kept exact-mode
    decisions of gen1-calib's two-player games ``first``..., a game's last one followed
    by ``(game, None, ...)``: the calibration benchmark's seeded 12%."""
    have = dict(read_games(games_file("gen1-calib")))
    for g in range(first, first + count):
        if g in done or have[g]["n"] != 2:
            continue
        rec = have[g]
        rng = random.Random(f"calib-{g}")
        for state, move, _, k, tracker in replay_tracked(rec):
            if len(state.legal_moves()) < 2 or rng.random() >= KEEP:
                continue
            me = state.to_move
            pos = view_position(state, me, tracker).validate()
            if is_exact_mode(pos):
                yield g, rec, k, state, move, pos, history_positions(state, me, tracker)
        yield g, None, None, None, None, None, None


def _run(path: Path, first: int, count: int, row_of) -> None:
    """Append ``row_of(game, record, k, state, move, position, history)`` (None: no row) for
    each kept decision of the games not yet done, then each game's ``done`` line."""
    done = {r["game"] for r in _lines(path) if r.get("done")}
    with open(path, "a") as out:
        for g, rec, *decision in _decisions(first, count, done):
            row = None if rec is None else row_of(g, rec, *decision)
            if row is not None:
                out.write(json.dumps(row) + "\n")
            if rec is None:
                out.write(json.dumps({"game": g, "done": True}) + "\n")
                out.flush()
                print(f"game {g} done", file=sys.stderr)


def run(first: int, count: int) -> None:
    def row_of(g, rec, k, state, move, pos, hist):
        method, card = _figures(pos, hist, HORIZONS["card"])
        if method != "depth_limited":
            return None
        _, net = _figures(pos, hist, HORIZONS["gen1"])
        return {"game": g, "k": k, "outcome": rec["loss"][state.to_move],
                "card": card[str(move)], "learned": net[str(move)]}
    _run(OUT, first, count, row_of)


def run_pair(pair, first: int, count: int) -> None:
    """Both horizons' analyses of each kept decision where the first falls back."""
    def row_of(g, rec, k, state, move, pos, hist):
        row = {"game": g, "k": k, "outcome": rec["loss"][state.to_move], "move": str(move)}
        for name in pair:
            a = _analysis(pos, hist, HORIZONS[name])
            if name == pair[0] and a.method != "depth_limited":
                return None
            played = next(m for m in a.moves if str(m.move) == str(move))
            # "proved": the analysis leaves the figure unmapped, as
            # analysis.calibrate_fallback does all but a fallback's unresolved ones
            row[name] = {"method": a.method, "figure": played.loss[pos.to_move],
                         "proved": not (a.method == "depth_limited"
                                        and played.resolved is False),
                         "depth": a.stats.get("depth")}
        return row
    _run(_out(pair), first, count, row_of)


def _lines(path: Path = OUT) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def report() -> dict:
    lines = _lines()
    done = {r["game"] for r in lines if r.get("done")}
    rows = [r for r in lines if not r.get("done") and r["game"] in done]
    y = np.array([r["outcome"] for r in rows])
    g = np.array([r["game"] for r in rows])
    x = {k: np.array([r[k] for r in rows]) for k in ("card", "learned")}

    def skill(k, w):   # w: each decision's weight (its game's draws in a resample)
        return 1 - (w @ (x[k] - y) ** 2) / (w @ (0.5 - y) ** 2)

    inverse, counts = group_bootstrap(g, 2000, np.random.default_rng(0))
    games = counts.shape[1]
    everything = np.ones(len(rows))
    gains = [skill("learned", c[inverse]) - skill("card", c[inverse]) for c in counts]
    return {"games": len(done), "games_with_fallback": int(games),
            "decisions": len(rows),
            **{k: {"brier_skill": round(float(skill(k, everything)), 4),
                   "bias": round(float(np.mean(x[k] - y)), 4)} for k in x},
            "gain": round(float(skill("learned", everything) - skill("card", everything)), 4),
            "gain_ci95": [round(v, 4) for v in percentile_ci(gains)]}


def _skill(f, y, w):
    """Brier skill against a constant 1/2 of figures ``f`` for outcomes ``y``, each row
    weighted by ``w`` (its game's draws in a bootstrap resample)."""
    return 1 - (w @ (f - y) ** 2) / (w @ (0.5 - y) ** 2)


def mapped(rows, name: str, band) -> np.ndarray:
    """Horizon ``name``'s figures of ``rows`` as the analysis would show them: those it did
    not prove through ``sigmoid(a logit(x) + b)`` with ``band = (a, b)``, as
    ``analysis.calibrate_fallback`` does."""
    from palace_solver.sample.calibration import logit
    x = np.array([r[name]["figure"] for r in rows])
    proved = np.array([r[name]["proved"] for r in rows])
    z = np.clip(band[0] * logit(x) + band[1], -50, 50)
    return np.where(proved, x, 1.0 / (1.0 + np.exp(-z)))


def pair_rows(path: Path) -> tuple[list[dict], set]:
    """The decisions of a ``--pair`` file's finished games, and those games."""
    lines = _lines(path)
    done = {r["game"] for r in lines if r.get("done")}
    return [r for r in lines if not r.get("done") and r["game"] in done], done


def fit_rows(rows, name: str, fit_below: int) -> list[dict]:
    """The rows a band of horizon ``name`` is fitted on: its figures the analysis would
    map, of the games below ``fit_below``."""
    return [r for r in rows if r["game"] < fit_below and not r[name]["proved"]]


def fit_fallback_band(rows, name: str, fit_below: int) -> tuple[float, float]:
    fit = fit_rows(rows, name, fit_below)
    return fit_band([r[name]["figure"] for r in fit], [r["outcome"] for r in fit])


def save_map(pair, fit_below: int, map_name: str) -> Path:
    """Write B's fitted band as the fallback band of a shipped map
    (``palace_solver/data/calibration-NAME.json``), with the file and games it was fitted
    on, so that a test can rebuild it."""
    path = _out(pair)
    rows, _ = pair_rows(path)
    b = pair[1]
    fit = fit_rows(rows, b, fit_below)
    rel = path.relative_to(Path(__file__).resolve().parent.parent)
    rec = {"name": map_name, "form": "sigmoid(a * logit(x) + b) of the mover's figure x",
           "params": {FALLBACK: list(fit_fallback_band(rows, b, fit_below))},
           "source": "fallback_horizon.py", "horizon": b, "fit_below": fit_below,
           "decisions": {FALLBACK: len(fit)}, "games": len({r["game"] for r in fit}),
           "files": [{"file": str(rel),
                      "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}],
           "command": f"python benchmarks/fallback_horizon.py report --pair {','.join(pair)} "
                      f"--fit-below {fit_below} --save-map {map_name}"}
    out = Path(calibration_path(map_name))
    out.write_text(json.dumps(rec, indent=1) + "\n")
    return out


def report_pair(pair, fit_below: int) -> dict:
    """B's fallback band fitted on the games below ``fit_below``; on the rest, each
    horizon's skill and bias, raw and mapped (A by the shipped band), and B minus A."""
    a, b = pair
    rows, done = pair_rows(_out(pair))
    fit = fit_rows(rows, b, fit_below)
    test = [r for r in rows if r["game"] >= fit_below]
    out = {"pair": list(pair), "games": len(done), "fit_below": fit_below,
           "fit_decisions": len(fit), "test_decisions": len(test),
           "test_games": len({r["game"] for r in test})}
    if not fit or not test:
        return out
    band_b = fit_fallback_band(rows, b, fit_below)
    band_a = load_map(SHIPPED_MAP[a]).params[FALLBACK]
    y = np.array([r["outcome"] for r in test])
    g = np.array([r["game"] for r in test])
    shown_a, shown_b = mapped(test, a, band_a), mapped(test, b, band_b)
    figs = {f"{a} raw": np.array([r[a]["figure"] for r in test]),
            f"{b} raw": np.array([r[b]["figure"] for r in test]),
            f"{a} mapped ({SHIPPED_MAP[a]})": shown_a, f"{b} mapped (fitted)": shown_b}
    one = np.ones(len(test))
    inverse, counts = group_bootstrap(g, 2000, np.random.default_rng(0))

    def diff(w):
        return _skill(shown_b, y, w) - _skill(shown_a, y, w)
    out.update({
        "band_fitted": [round(v, 4) for v in band_b],
        "band_shipped": [round(v, 4) for v in band_a],
        "proved": {n: int(sum(r[n]["proved"] for r in test)) for n in pair},
        "fell_back": {n: int(sum(r[n]["method"] == "depth_limited" for r in test))
                      for n in pair},
        "mean_depth": {n: round(float(np.mean([r[n]["depth"] for r in test
                                               if r[n]["method"] == "depth_limited"])), 2)
                       for n in pair},
        **{k: {"brier_skill": round(float(_skill(v, y, one)), 4),
               "bias": round(float(np.mean(v - y)), 4)} for k, v in figs.items()},
        "mapped_gain": round(float(diff(one)), 4),
        "mapped_gain_ci95": [round(v, 4) for v in
                             percentile_ci([diff(c[inverse]) for c in counts])]})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "report"))
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--pair", default=",".join(FIRST_PAIR),
                    help="two horizons A,B of " + ", ".join(HORIZONS)
                    + " (default: the first run's card,gen1)")
    ap.add_argument("--fit-below", type=int, default=400,
                    help="with --pair: B's band is fitted on the games below this one, "
                         "the report is of the rest")
    ap.add_argument("--save-map", metavar="NAME",
                    help="with --pair and report: write B's fitted band as the fallback "
                         "band of map NAME (palace_solver/data/calibration-NAME.json)")
    args = ap.parse_args(argv)
    pair = tuple(args.pair.split(","))
    if len(pair) != 2 or not set(pair) <= set(HORIZONS):
        ap.error(f"--pair takes two of {', '.join(HORIZONS)}")
    if pair != FIRST_PAIR and pair[0] not in SHIPPED_MAP:
        ap.error(f"--pair: A must be a horizon that shipped with a map: "
                 f"{', '.join(SHIPPED_MAP)}")
    if pair == FIRST_PAIR:
        if args.what == "run":
            run(args.first, args.games)
        print(json.dumps(report(), indent=1))
        return 0
    if args.what == "run":
        run_pair(pair, args.first, args.games)
    print(json.dumps(report_pair(pair, args.fit_below), indent=1))
    if args.save_map:
        print(f"wrote {save_map(pair, args.fit_below, args.save_map)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

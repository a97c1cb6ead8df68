"""The value at the horizon of `palace analyze`'s depth-limited fallback: card count or network.

    python benchmarks/fallback_horizon.py run [--first F] [--games N]   # resumable
    python benchmarks/fallback_horizon.py report

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
"""
from __future__ import annotations

import argparse
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
from palace_solver.sample.stats import group_bootstrap, percentile_ci

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generations import games_file  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "fallback-horizon.jsonl"
SECONDS = 2.0
KEEP = 0.12


def _figures(pos: Position, hist, horizon) -> tuple[str, dict]:
    """What `palace analyze` does in exact mode (``analysis.analyze``), with ``horizon``."""
    a = solve_compiled(pos.to_state(), time_budget=SECONDS, history=exact_history(pos, hist),
                       horizon=horizon)
    return a.method, {str(m.move): m.loss[pos.to_move] for m in a.moves}


def run(first: int, count: int) -> None:
    done = {r["game"] for r in _lines() if r.get("done")}
    have = dict(read_games(games_file("gen1-calib")))
    with open(OUT, "a") as out:
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
                if not is_exact_mode(pos):
                    continue
                hist = history_positions(state, me, tracker)
                method, card = _figures(pos, hist, ("cardcount", ""))
                if method != "depth_limited":
                    continue
                _, net = _figures(pos, hist, ("learned", "gen1"))
                out.write(json.dumps({"game": g, "k": k, "outcome": rec["loss"][me],
                                      "card": card[str(move)], "learned": net[str(move)]})
                          + "\n")
            out.write(json.dumps({"game": g, "done": True}) + "\n")
            out.flush()
            print(f"game {g} done", file=sys.stderr)


def _lines() -> list[dict]:
    if not OUT.exists():
        return []
    out = []
    for line in OUT.read_text().splitlines():
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "report"))
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--games", type=int, default=60)
    args = ap.parse_args(argv)
    if args.what == "run":
        run(args.first, args.games)
    print(json.dumps(report(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

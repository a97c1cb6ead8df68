"""What the draw phase allows: the Brier skill of the best figure any analysis could give.

    python benchmarks/ceiling.py run [--jobs J]        # resumable
    python benchmarks/ceiling.py report [--output FILE]

The calibration benchmark asks the figures of ``palace analyze`` for a Brier skill of
+0.15 against a constant 1/2 while the draw pile holds cards. No figure can beat the one
that knows the position's true value: the mover's expected loss share when the engine then
plays every seat, ``p(S) = E[Y | S]``. Its Brier score is ``E[Var(Y | S)]``, the part of
the outcome that no knowledge of the position can foresee (the draw pile's order, the
face-down cards, the searches' own chance), so its skill ``1 - E[Var(Y | S)] / E[(Y -
1/2)^2]`` is the ceiling of every figure computed from ``S``. An analysis sees less than
``S`` (the other hand is hidden from the mover), and its ceiling is lower still: if this
one is below +0.15, the issue's target is out of reach of any estimator, and its honest
answer is the ceiling, not a better network.

The estimate. Positions are decisions of the held-out games of ``gen1-calib`` (games 400
on: no recipe trains on them), two-player, draw pile not empty, a choice to make: one a
game, drawn uniformly among its eligible decisions (seeded by the game), weighted by their
number so that the figures are per decision as the calibration table's are. From each, the
engine (both seats) plays ``K`` continuations to the end, each with its own chance and
agent seeds, from the true position with the game's history (the agents' inference sees
what the game's players saw), the decisions the game has left of its cap, and the
positions already played (a repetition is a draw, as in the game). With ``K`` outcomes
``y_1..y_K`` of a position (two, then four: :data:`STAGES`), ``sum (y_k - mean)^2 / (K -
1)`` is an unbiased estimate of ``Var(Y | S)``; the ceiling is its weighted mean over the
positions against the weighted mean of ``(y_k - 1/2)^2``; 95% interval by bootstrap over
positions (one a game, so over games). The engine's figure recorded in the game for the
move it played is scored against the same continuations for comparison, and the distance
between the two, paired by position (``ceiling_minus_figure``: ``(f - mean)^2 - var / K``
estimates ``(f - p)^2`` without bias, so the true distance is never below 0 while its
estimate may be).

``--phase end`` asks the same of the decisions with the draw pile empty (the issue's
+0.45 there), from positions of its own (one a game, drawn with another seed), into
``ceiling-end.jsonl``.

``--set w1-engine`` asks both of a second set of positions, planned on 2026-12-07 before
any of its continuations (:data:`W1`): the decisions of ``w1-engine``'s recorded games
(generation 4's engine against itself, the games the calibration mark was measured on) that
``calibration.py`` analysed as ``palace analyze`` ships (``row-w1-engine-after-*``), one a
game of the row's 500 starts, drawn among the game's analysed decisions of the phase
and weighted by their number, four continuations each by ``engine`` as it is now (its
network pinned). There the shipped analysis's figure is scored against the continuations
beside the game's own (``analysis``, ``ceiling_minus_analysis``).

One batch task a continuation, ``benchmarks/results/ceiling.jsonl``; ``report`` reads each
stage's continuations as a prefix of the positions' order without a gap (:func:`done_prefix`),
so that slow games are not left out of what is reported.
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "ceiling.jsonl"
#: phase -> its output, whether a position with ``d`` cards in the draw pile belongs to it,
#: the seed of its choice of a game's position
PHASES = {"draw": (OUT, lambda d: d > 0, "ceiling"),
          "end": (HERE / "results" / "ceiling-end.jsonl", lambda d: d == 0, "ceiling-end")}
RUN, FIRST = "gen1-calib", 400
#: the engine whose continuations the files hold: ``engine`` as it was when they were
#: played (2026-12-03), every option a decision has changed since pinned to its value then,
#: so that a stage played today is played by the same engine as the first
AGENT = ("engine:revealed=0:end_revealed=0:infer_temp=1:end_infer_temp=1:weights=gen1"
         ":end_weights=gen1:pickup_margin=0:pickup_below=1")
#: the name the files were begun under, which builds another engine since (their results
#: hold no name: :func:`pin` moves a file begun under it to ``AGENT``)
BEGUN_AGENT = "engine"
#: continuations a position, in stages: every position's first two, then every position's
#: next two (the report uses, per position, the stages done in order)
STAGES = (2, 2)

#: the second set: its run, the starts whose games it takes, the engine of its
#: continuations, the analyses it draws its positions from (``results/calibration``), its
#: stages, and per phase its output and the seed of its choice of a game's position
W1 = {"run": "row:w1-engine", "starts": 500, "agent": "engine:weights=gen4:end_weights=gen4",
      "analyses": ("row-w1-engine-after-0000.jsonl", "row-w1-engine-after-0300.jsonl"),
      "stages": (4,),
      "draw": (HERE / "results" / "ceiling-w1-engine.jsonl", "ceiling-w1"),
      "end": (HERE / "results" / "ceiling-w1-engine-end.jsonl", "ceiling-w1-end")}
SETS = ("gen1-calib", "w1-engine")


def eligible(game: dict, phase: str = "draw") -> list[int]:
    """Decision numbers of a two-player game's play in ``phase`` (the draw pile not empty,
    or empty) with more than one legal move."""
    from palace_solver.learn.engine_games import replay
    if game["n"] != 2:
        return []
    inside = PHASES[phase][1]
    return [k for state, _, _, k in replay(game)
            if inside(state.draw_pile) and len(state.legal_moves()) > 1]


def positions(games: list, phase: str = "draw") -> list[dict]:
    """One eligible decision a game of ``(number, record)`` pairs: ``game``, ``decision``,
    ``weight`` (the game's eligible decisions), the game's outcome and figure there."""
    out = []
    for g, game in games:
        ks = eligible(game, phase)
        if not ks:
            continue
        k = random.Random(f"{PHASES[phase][2]}-{g}").choice(ks)
        mover = game["figures"][k][0]
        out.append({"game": g, "decision": k, "weight": len(ks), "mover": mover,
                    "figure": game["figures"][k][1], "outcome": game["loss"][mover]})
    return out


def analysed_positions(games: dict, analyses: dict, phase: str, seed: str) -> list[dict]:
    """One analysed decision of the phase a game (``analyses``: game -> calibration.py's
    rows), as :func:`positions` gives them, with the shipped analysis's figure of the move
    played (``analysis``); in the games' order."""
    out = []
    for g in sorted(analyses):
        rows = [r for r in analyses[g] if (r["draw"] > 0) == (phase == "draw")]
        if not rows:
            continue
        r = random.Random(f"{seed}-{g}").choice(rows)
        mover, figure, draw = games[g]["figures"][r["k"]]
        if draw != r["draw"] or games[g]["loss"][mover] != r["outcome"]:
            raise ValueError(f"game {g}: the analysis of decision {r['k']} is of another one")
        out.append({"game": g, "decision": r["k"], "weight": len(rows), "mover": mover,
                    "figure": figure, "analysis": r["figure"], "outcome": r["outcome"]})
    return out


def w1_positions(phase: str) -> list[dict]:
    """The positions of the second set (:data:`W1`) in ``phase``."""
    sys.path.insert(0, str(HERE))
    from generations import SEAT_STRIDE

    from palace_solver.jobs.batch import finished_results
    analyses = {}
    for name in W1["analyses"]:
        for _, res in finished_results(HERE / "results" / "calibration" / name):
            if res["game"] % SEAT_STRIDE < W1["starts"]:
                analyses[res["game"]] = res["rows"]
    return analysed_positions(_games(W1["run"]), analyses, phase, W1[phase][1])


def w1_tasks(pos: list[dict], phase: str) -> list[dict]:
    """The second set's continuations of ``pos`` in ``phase`` (:data:`W1`)."""
    return tasks(pos, W1["stages"], W1["agent"], W1["run"], phase,
                 tag={"set": "w1-engine", "phase": phase})


def tasks(pos: list[dict], stages=STAGES, agent: str = AGENT, run: str = RUN,
          phase: str = "draw", tag: dict | None = None) -> list[dict]:
    out, first = [], 0
    # the draw phase's tasks are as they were before there were phases (its file resumes)
    tag = tag if tag is not None else {} if phase == "draw" else {"phase": phase}
    for size in stages:
        out += [{"id": f"{p['game']}/{c}", "run": run, "game": p["game"],
                 "decision": p["decision"], "cont": c, "agent": agent, **tag}
                for p in pos for c in range(first, first + size)]
        first += size
    return out


@functools.lru_cache(maxsize=2)
def _games(run: str) -> dict:
    sys.path.insert(0, str(HERE))
    from generations import finished_games
    return dict(finished_games(run))


def at_decision(game: dict, k: int):
    """``(state, tracker, history, seen)`` before decision ``k`` of a recorded game: the true
    position, the public record, every event from the deal (ranks and Moves) and the keys of
    the play's positions before it."""
    from palace_solver.agents.method_bots import HandTracker
    from palace_solver.game.moves import Move
    from palace_solver.game.rules import Rules
    from palace_solver.game.state import PLAY_PHASE, State
    rules = Rules.from_json(game["rules"])
    s, tracker = State.new_game(rules, game["n"]), HandTracker(game["n"])
    history, seen, d = [], set(), 0
    for i, ev in enumerate(game["events"]):
        if not isinstance(ev, int):
            ev = Move.parse(ev)
            if s.phase == PLAY_PHASE and i >= game["prefix"]:
                if d == k:
                    return rules, s, tracker, history, seen
                seen.add(s.key())
                d += 1
        tracker.apply(s, ev)
        history.append(ev)
    raise ValueError(f"the game has no decision {k}")


def continue_game(task: dict, game: dict | None = None) -> dict:
    """One continuation (a batch task): the mover's loss share when ``agent`` plays every
    seat from decision ``decision`` of the game on."""
    from palace_solver.agents.registry import make_agent
    from palace_solver.jobs.batch import task_seed
    from palace_solver.jobs.match import CAP, play_game
    game = game if game is not None else _games(task["run"])[task["game"]]
    rules, s, tracker, history, seen = at_decision(game, task["decision"])
    tid = "/".join(str(task[k]) for k in ("set", "phase", "id") if k in task)
    agents = [make_agent(task["agent"], task_seed(7, f"{tid}/{q}")) for q in range(s.n)]
    out = play_game(rules, s, tracker, history, agents, random.Random(f"ceiling-chance-{tid}"),
                    random.Random(task_seed(7, f"{tid}/bots")), CAP - task["decision"], seen=seen)
    return {"mover": s.to_move, "y": out["loss"][s.to_move], "reason": out["reason"],
            "decisions": out["decisions"], "seconds": out["seconds"]}


def ceiling(pos: list[dict], outcomes: list[list[float]], boot: int = 1000, seed: int = 0) -> dict:
    """Ceiling skill and the recorded figures' skill against the continuations
    ``outcomes`` (per position, its mover's losses: two or more); the same for the
    analysis's figures where the positions have them (``analysis``)."""
    import numpy as np

    from palace_solver.sample.stats import group_bootstrap, percentile_ci
    ys = [np.array(o, dtype=np.float64) for o in outcomes]
    if min(len(o) for o in ys) < 2:
        raise ValueError("a position needs two continuations or more")
    w = np.array([p["weight"] for p in pos], dtype=np.float64)
    var = np.array([o.var(ddof=1) for o in ys])
    ref = np.array([((o - 0.5) ** 2).mean() for o in ys])
    means = np.array([o.mean() for o in ys])
    kinds = [k for k in ("figure", "analysis") if any(k in p for p in pos)]
    scored = {}
    for kind in kinds:
        fig = np.array([np.nan if p.get(kind) is None else p[kind] for p in pos])
        err = np.array([((f - o) ** 2).mean() for f, o in zip(fig, ys)])
        # (f - mean)^2 - var / K estimates (f - p)^2 without bias: the figure's distance
        # below the ceiling, on the positions with a figure, paired by position
        gap = (fig - means) ** 2 - var / np.array([len(o) for o in ys], dtype=np.float64)
        scored[kind] = (~np.isnan(fig), err, gap)

    def stats(wt):
        out = {"ceiling": 1 - (wt @ var) / (wt @ ref)}
        for kind, (has, err, gap) in scored.items():
            out[kind] = 1 - (wt[has] @ err[has]) / (wt[has] @ ref[has])
            out[f"ceiling_minus_{kind}"] = (wt[has] @ gap[has]) / (wt[has] @ ref[has])
        return out
    point = stats(w)
    _, counts = group_bootstrap(np.arange(len(w)), boot, np.random.default_rng(seed))
    draws = [stats(w * c) for c in counts]
    res = {"positions": len(pos), "continuations": int(sum(len(o) for o in ys)),
           "decisions_represented": int(w.sum())}
    for key in ["ceiling"] + kinds:
        res[key] = {"brier_skill": round(float(point[key]), 4),
                    "ci95": [round(x, 4) for x in percentile_ci([d[key] for d in draws])]}
    for key in (f"ceiling_minus_{k}" for k in kinds):
        res[key] = {"skill": round(float(point[key]), 4),
                    "ci95": [round(x, 4) for x in percentile_ci([d[key] for d in draws])]}
    res["mean_outcome"] = round(float(w @ means / w.sum()), 4)
    res["draw_share"] = round(float(w @ [(o == 0.5).mean() for o in ys] / w.sum()), 4)
    return res


def done_prefix(pos: list[dict], results: dict, stages=STAGES) -> tuple[list, list]:
    """The positions with their outcomes, stage by stage: a stage counts for the positions
    before the first one with a continuation of that stage not done (and a position without
    its first stage is not reported), so that what is reported depends on the order of the
    positions, not on which games were slow."""
    ys: list[list] = []
    first = 0
    for stage, size in enumerate(stages):
        for i, p in enumerate(pos):
            got = [results.get(f"{p['game']}/{c}") for c in range(first, first + size)]
            if any(r is None for r in got) or (stage and i >= len(ys)):
                break
            if stage:
                ys[i] += [r["y"] for r in got]
            else:
                ys.append([r["y"] for r in got])
        first += size
    return pos[:len(ys)], ys


def pin(pos: list[dict], phase: str, out: Path) -> bool:
    """Move a file begun under :data:`BEGUN_AGENT` to :data:`AGENT` once its first finished
    continuation, played again by ``AGENT``, comes out as recorded (False: nothing to move).

    :raises SystemExit: it comes out otherwise (``AGENT`` is not the engine that played)."""
    from palace_solver.jobs.batch import rename_tasks
    from palace_solver.jobs.match import same_result
    now = tasks(pos, phase=phase)

    def check(done):
        first = next((t for t in now if t["id"] in done), None)
        if first is not None and not same_result(continue_game(first), done[first["id"]]):
            raise SystemExit(f"{out}: continuation {first['id']} played by {AGENT} differs "
                             f"from its record")
    moved = rename_tasks(out, continue_game, tasks(pos, agent=BEGUN_AGENT, phase=phase), now,
                         check)
    if moved:
        print(f"{out.name}: its continuations, begun as {BEGUN_AGENT}, now under {AGENT}",
              file=sys.stderr)
    return moved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="play the continuations (resumable)")
    r.add_argument("--jobs", type=int, default=1)
    o = sub.add_parser("report", help="the ceiling on the positions done so far")
    o.add_argument("--output", type=Path, help="also write the JSON here")
    for p in (r, o):
        p.add_argument("--phase", choices=list(PHASES), default="draw",
                       help="the positions' phase: draw pile not empty (default) or empty")
        p.add_argument("--set", choices=SETS, default=SETS[0], dest="positions",
                       help="the positions: gen1-calib's games 400 on (default), or the "
                            "analysed decisions of w1-engine's games")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import provenance
    prov = provenance.record(None if argv is None else ["benchmarks/ceiling.py", *argv])
    if args.positions == "w1-engine":
        out, stages, agent, run = W1[args.phase][0], W1["stages"], W1["agent"], W1["run"]
        pos = w1_positions(args.phase)
        todo = w1_tasks(pos, args.phase)
        meta = {"run": run, "starts": W1["starts"], "analyses": list(W1["analyses"])}
    else:
        out, stages, agent = PHASES[args.phase][0], STAGES, AGENT
        games = sorted((g, rec) for g, rec in _games(RUN).items() if g >= FIRST)
        pos = positions(games, args.phase)
        todo = tasks(pos, phase=args.phase)
        meta = {"run": RUN, "first_game": FIRST}
    if args.cmd == "run":
        from palace_solver.jobs.batch import run_batch
        if args.positions == "gen1-calib":
            pin(pos, args.phase, out)
        run_batch(continue_game, todo, jobs=args.jobs, output=out, label="ceiling",
                  progress=True)
        return 0
    from palace_solver.jobs.batch import finished_results
    results = dict(finished_results(out)) if out.exists() else {}
    keep, ys = done_prefix(pos, results, stages)
    if not keep:
        raise SystemExit(f"{out}: no position has its first {stages[0]} continuations yet")
    res = {**meta, "phase": args.phase, "positions_planned": len(pos), "agent": agent,
           **ceiling(keep, ys)}
    print(json.dumps(res, indent=1))
    if args.output:
        # the report's own record (the continuations' tasks name the engine that played)
        provenance.write(args.output, res, prov)
    return 0


if __name__ == "__main__":
    sys.exit(main())

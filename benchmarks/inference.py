"""How much the inference of hidden cards knows: the true hands against the deals it draws.

    python benchmarks/inference.py [--run gen0-train] [--first 110] [--games 40] [--weights gen1]
                                   [--temp 1.0] [--greedy 0.0]
    python benchmarks/inference.py --play greedy --games 40 [--players 2] [--seed 0] ...

For every decision of the games ``first .. first + games - 1`` of a self-play run (games
the generation's policy model was not fitted on), as the mover saw it (its own hand, what
the table showed, the others' last decisions), the engine's inference draws candidate
deals of the others' unknown hand cards and weighs them by the policy model's likelihood
of the observed moves (``ext/decide.pxi``). Each unknown card of another player is then
given a rank distribution: the mean over the candidates, weighted (inference) or not (the
uniform deals without inference: the same candidates, equal weights). The score is the
mean log-likelihood of the true cards' ranks, inference minus uniform, in nats per hidden
card: above 0, the weighted deals put more mass on the hands the players really held.
``--temp`` multiplies the log-weights (``SearchConfig.infer_temp``: below 1 flattens them,
for a policy model too sure of itself). ``--greedy G`` gives each other seat the greedy
style with prior G (``SearchConfig.infer_greedy``, ext/decide.pxi, Styles). ``--play AGENT``
scores fresh self-play games of that agent instead of a run's (``--players``: how many
players; ``--seed``): ``--play greedy`` asks how well the inference reads seats that play
as the greedy bot does.
Intervals: by bootstrap over games (the decisions of one game are not independent).
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import provenance  # noqa: E402
from generations import games_file  # noqa: E402

from palace_solver.agents.method_bots import observations  # noqa: E402
from palace_solver.learn.engine_games import (  # noqa: E402
    game_tasks, play_selfplay_game, read_games, replay_tracked)
from palace_solver.sample.drawsearch import SearchConfig, decide, state_view  # noqa: E402
from palace_solver.sample.stats import group_bootstrap, percentile_ci  # noqa: E402
from palace_solver.solve.engine import compiled  # noqa: E402

#: 24 deals of 4 candidates each, as the engine draws them; the search itself is one ply
#: of the card count (only the weights are read)
CFG = SearchConfig(determinizations=24, nodes=24, chance_width=0, rollouts=0, max_depth=1,
                   eval="cardcount", infer=4)
#: a rank no candidate gives a hidden card still gets this share (of the mean), so that
#: one card the candidates all missed does not dominate the mean
FLOOR = 1e-3


def _unknown_counts(view, cands, q):
    """(candidates, 16): the unknown cards each candidate gives ``q``, by rank."""
    known = np.array(view.to_state().hands[q][:16], float)
    return np.array([c.to_state().hands[q][:16] for c in cands], float) - known


def score_decision(state, me, tracker, seed, cfg=CFG):
    """``(phase, hidden cards, sum of log-ratio, weighted ess)`` or None when nothing is
    inferred (no unknown cards, no observations)."""
    E = compiled()
    view, hidden = state_view(state, me, tracker.known)
    if not any(hidden[q] for q in range(state.n) if q != me):
        return None
    obs = observations(state, me, tracker)
    if not obs:
        return None
    raw = decide(view, hidden, cfg, seed, observations=obs)
    w = raw.get("weights")
    if w is None:
        return None
    cands = [E.determinize(view, hidden, E.candidate_seed(seed, c)) for c in range(len(w))]
    w = np.asarray(w, float)
    known = view.to_state()
    total, cards = 0.0, 0
    for q in range(state.n):
        if q == me or not hidden[q]:
            continue
        u = _unknown_counts(view, cands, q) / hidden[q]   # each candidate's rank shares
        pw, pu = w @ u, u.mean(axis=0)
        true = np.array(state.hands[q][:16]) - np.array(known.hands[q][:16])
        a = (1 - FLOOR) * pw + FLOOR * pu.mean()
        b = (1 - FLOOR) * pu + FLOOR * pu.mean()
        hit = true > 0
        total += float(np.sum(true[hit] * np.log(a[hit] / b[hit])))
        cards += int(true.sum())
    ess = 1.0 / float(np.sum(np.square(w)))
    return ("draw" if state.draw_pile else "end"), cards, total, ess


def _boot(per_game, reps=2000, seed=0):
    rng = np.random.default_rng(seed)
    g = np.array(per_game, float)   # (games, 2): log-ratio sum, cards
    if len(g) == 0 or g[:, 1].sum() == 0:
        return None, [None, None]
    _, counts = group_bootstrap(np.arange(len(g)), reps, rng)
    means = counts @ g[:, 0] / np.maximum(counts @ g[:, 1], 1)
    return float(g[:, 0].sum() / g[:, 1].sum()), percentile_ci(means)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default="gen0-train")
    ap.add_argument("--first", type=int, default=110, help="first game (not trained on)")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--weights", default="gen1", help="the generation whose policy model")
    ap.add_argument("--temp", type=float, default=1.0, help="infer_temp of the weights")
    ap.add_argument("--greedy", type=float, default=0.0,
                    help="infer_greedy: the prior of the greedy style of a seat (default 0)")
    ap.add_argument("--play", metavar="AGENT",
                    help="score fresh self-play games of AGENT (greedy, ...) instead of --run")
    ap.add_argument("--players", type=int, default=2, help="with --play (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="with --play (default 0)")
    ap.add_argument("--output", default=str(provenance.RESULTS / "inference.json"))
    args = ap.parse_args(argv)
    rec = provenance.record()
    # decide() loads the network and its policy model
    try:
        cfg = CFG.with_(weights=args.weights, infer_temp=args.temp, infer_greedy=args.greedy)
    except ValueError as e:
        ap.error(str(e))
    if args.play:
        tasks = game_tasks(args.games, seed=args.seed, agent=args.play,
                           players={args.players: 1.0}, first=args.first)
        games = [(t["id"], play_selfplay_game(t)) for t in tasks]
        args.run = f"play:{args.play}:{args.players}p:seed{args.seed}"
    else:
        games = [(g, r) for g, r in read_games(games_file(args.run))
                 if args.first <= g < args.first + args.games]
    if len(games) < args.games:
        print(f"{args.run}: only {len(games)} of the {args.games} games asked are finished",
              file=sys.stderr)
    per = {"all": [], "draw": [], "end": []}
    ess, decisions = [], 0
    t0 = time.perf_counter()
    for i, (g, game) in enumerate(games):
        acc = {k: [0.0, 0] for k in per}
        for state, _, _, k, tracker in replay_tracked(game):
            for me in range(state.n):   # every seat's view of the same decision
                if me == state.to_move or state.out[me]:
                    continue
                got = score_decision(state, me, tracker, seed=g * 1000 + k, cfg=cfg)
                if got is None:
                    continue
                phase, cards, total, e = got
                for key in ("all", phase):
                    acc[key][0] += total
                    acc[key][1] += cards
                ess.append(e)
                decisions += 1
        for key in per:
            per[key].append(acc[key])
        print(f"game {g} ({i + 1}/{len(games)}): {decisions} views, "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    out = {"run": args.run, "games": [g for g, _ in games], "weights": args.weights,
           "config": cfg.to_json(), "floor": FLOOR, "views": decisions,
           "mean_ess": float(np.mean(ess)) if ess else None,
           "candidates": CFG.determinizations * CFG.infer}
    for key, rows in per.items():
        mean, ci = _boot(rows)
        out[key] = {"nats_per_card": mean, "ci95": ci,
                    "cards": int(sum(r[1] for r in rows))}
    provenance.write(args.output, out, rec)
    for key in per:
        print(f"{key}: {out[key]}")
    print(f"mean effective candidates {out['mean_ess']} of {out['candidates']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed of the engine's search: its decisions and playouts, compiled against the Python
path each replaces.

    python benchmarks/speed.py [--positions 40]        # benchmarks/results/speed.json

Positions: the first play decision of ``--positions`` full deals (``palace match`` starts,
two players), and the same games 20 greedy decisions later. For each part, the compiled
rate and the Python rate on the same positions:

- playout: greedy playouts to the end (decisions/s). Compiled: ``greedy_playout_loss``
  (ext/chance.pxi); Python: ``sample.rollout.playout`` with the greedy bot on the reference
  engine (what the ``rollout`` baseline, the sampled analysis, plays).
- decision: one ``engine`` decision (the seat's view, 2,048 deals or 800,000 nodes): ms per
  decision and nodes/s (nodes = search nodes + playout decisions).
- endgame decision: one ``engine`` decision once the draw pile is empty (``ENGINE_END``: 16
  deals sharing 150,000 nodes, deepening with the learned evaluation), on the first
  decision of ``--positions`` late starts: ms per decision, nodes/s, depth reached.

Times are CPU seconds of this process (waiting for a shared core does not count). The cost
of one horizon evaluation is ``benchmarks/eval_cost.py``'s question.
"""
from __future__ import annotations

import argparse
import random
import time

import provenance

from palace_solver.game.rules import Rules
from palace_solver.jobs.match import make_start
from palace_solver.sample.drawsearch import ENGINE, ENGINE_END, decide, state_view
from palace_solver.sample.policies import GreedyBot
from palace_solver.sample.rollout import playout
from palace_solver.solve.engine import compiled


def positions(k: int):
    out = []
    g = GreedyBot()
    rng = random.Random(0)
    for i in range(k):
        s, tracker, _ = make_start("full", Rules(), 2, f"speed-{i}")
        out.append((s.clone(), tracker.clone()))
        for _ in range(20):
            while s.is_chance():
                tracker.apply(s, s.chance_outcomes()[rng.randrange(len(s.chance_outcomes()))][0])
            if s.is_terminal():
                break
            tracker.apply(s, g.choose(s, rng))
        if not s.is_terminal() and not s.is_chance():
            out.append((s, tracker))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--no-save", action="store_true", help="print only")
    args = ap.parse_args(argv)
    rec = provenance.record()
    out = {"positions": args.positions}
    E = compiled()
    pos = positions(args.positions)
    print(f"{len(pos)} positions")
    # playouts
    steps, t0 = 0, time.process_time()
    for j, (s, _) in enumerate(pos):
        c = E.CState.from_state(s)
        for k in range(50):
            steps += E.greedy_playout_loss(c, 1000 * j + k)[1]
    ct = time.process_time() - t0
    psteps, t0 = 0, time.process_time()
    for j, (s, _) in enumerate(pos):
        for k in range(2):
            st = s.clone()
            rng = random.Random(j * 10 + k)
            before = 0

            class Count(GreedyBot):
                def choose(self, state, r):
                    nonlocal before
                    before += 1
                    return super().choose(state, r)
            import palace_solver.sample.rollout as ro
            old = ro.make_bot
            ro.make_bot = lambda name: Count()
            try:
                playout(st, rng)
            finally:
                ro.make_bot = old
            psteps += before
    pt = time.process_time() - t0
    print(f"playout: compiled {steps / ct:,.0f} decisions/s ({steps} decisions), Python "
          f"{psteps / pt:,.0f} decisions/s ({psteps}): {steps / ct / (psteps / pt):,.0f}x")
    out["playout"] = {"compiled_decisions_per_second": round(steps / ct),
                      "python_decisions_per_second": round(psteps / pt),
                      "ratio": round(steps / ct / (psteps / pt))}
    # decisions
    nodes, t0, nd = 0, time.process_time(), 0
    for j, (s, tr) in enumerate(pos):
        if len(s.legal_moves()) < 2:
            continue
        view, hidden = state_view(s, s.to_move, tr.known)
        raw = decide(view, hidden, ENGINE, j)
        nodes += raw["nodes"] + raw["playout_steps"]
        nd += 1
    dt = time.process_time() - t0
    print(f"engine decision: {1000 * dt / nd:.1f} ms CPU each ({nd} decisions), "
          f"{nodes / dt:,.0f} nodes/s, {nodes / nd:,.0f} nodes each")
    out["decision"] = {"decisions": nd, "ms_per_decision": round(1000 * dt / nd, 2),
                       "decisions_per_second": round(nd / dt, 2),
                       "nodes_per_second": round(nodes / dt),
                       "nodes_per_decision": round(nodes / nd)}
    # endgame decisions
    nodes, depth, t0, nd = 0, 0, time.process_time(), 0
    for j in range(args.positions):
        s, tr, _ = make_start("late", Rules(), 2, f"speed-late-{j}")
        if len(s.legal_moves()) < 2:
            continue
        view, hidden = state_view(s, s.to_move, tr.known)
        raw = decide(view, hidden, ENGINE_END, j)
        nodes += raw["nodes"] + raw["playout_steps"]
        depth += max(raw["depth"])
        nd += 1
    dt = time.process_time() - t0
    print(f"engine endgame decision: {1000 * dt / nd:.1f} ms CPU each ({nd} decisions), "
          f"{nodes / dt:,.0f} nodes/s, {nodes / nd:,.0f} nodes each, depth {depth / nd:.1f} "
          f"on average")
    out["endgame_decision"] = {"decisions": nd, "ms_per_decision": round(1000 * dt / nd, 2),
                               "decisions_per_second": round(nd / dt, 2),
                               "nodes_per_second": round(nodes / dt),
                               "nodes_per_decision": round(nodes / nd),
                               "mean_depth": round(depth / nd, 2)}
    if not args.no_save:
        print(provenance.write("speed.json", out, rec))
    return out


if __name__ == "__main__":
    main()

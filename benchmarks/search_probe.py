#!/usr/bin/env python3
"""Probe: can a depth-first alpha-beta search prove a two-player exact value with far fewer
positions than the whole graph? A research measurement, not a solver of the package.

Why ask. The 3+3+3 suite positions have graphs of more than 400 M merged positions
(``graph_census.py``); two cores build and solve about 140 M in 60 s. Only a method that
visits a fraction of the graph can be exact within 60 s, and with two players the reported
loss is zero-sum (RULES.md: the two figures sum to 1), so alpha-beta applies.

The search (pure Python, on :class:`State`; values are player 0's loss, player 1
maximises it):

- Decision nodes: fail-soft alpha-beta, the table's best move first.
- Flips: Star1 (each outcome's window from the bounds 0 and 1 of the rest).
- Cycles: a position already on the current path scores 1/2 (the draw). Inside a layer
  (RULES.md's repetition rule, ``solve/exact.py``) the game is deterministic; for the
  search of the root with an empty path, a tree whose repetition leaves score 1/2 and
  whose other leaves carry the graph values has the root's graph value (the attractor
  strategy of a side above 1/2 never repeats a position; a side held to 1/2 has a strategy
  that keeps every leaf at 1/2 or better for it).
- The table keeps only what is independent of the path (graph-history interaction):
  a result whose repetition leaves all point at the node itself or below it; besides, a
  lower bound above 1/2 (a strategy that stays above 1/2 meets no repetition leaf) and an
  upper bound below 1/2, whatever the path.

What it measures, per position: the probe's value against the compiled exact solver's
(to 1e-9), the positions it searched and those it could not keep (path-dependent), against
the merged graph's positions. ``--keep-all`` keeps every result (unsound in general: what
the sound rule costs). ``--verify N`` proves the value from the probe's choices
(:func:`strategy_bounds`) on graphs of at most N positions.

    python benchmarks/search_probe.py --random 60 --seed 5 --limit 300000
    python benchmarks/search_probe.py --suite 2p-h2u2d2-0 --limit 3000000 --json out.json
    python benchmarks/search_probe.py --suite --keep-all --limit 300000
"""
from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

INF = 1 << 30


class OverLimit(Exception):
    pass


class Probe:
    def __init__(self, limit: int, keep_all: bool = False):
        self.keep_all = keep_all   # unsound in general: a measurement of what caching costs
        self.table: dict = {}      # key -> (lower, upper) of the graph value
        self.best: dict = {}       # key -> the move that decided last time
        self.path: dict = {}       # key -> depth, positions on the current line
        self.limit = limit
        self.nodes = 0
        self.path_dependent = 0

    def value(self, s, a: float, b: float, d: int) -> tuple[float, int]:
        """(value or bound, shallowest path depth a repetition leaf below pointed at)."""
        if s.is_terminal():
            return float(s.result()[0]), INF
        if s.is_chance():
            return self._flip(s, a, b, d)
        k = s.key()
        if k in self.path:
            return 0.5, self.path[k]
        return self._decide(s, k, a, b, d)

    def _flip(self, s, a, b, d):
        known, rest, dep = 0.0, 1.0, INF
        for r, p in s.chance_outcomes():
            p = float(p)
            rest -= p
            c = s.clone()
            c.apply(r)
            v, dd = self.value(c, max(0.0, (a - known - rest) / p), min(1.0, (b - known) / p),
                               d + 1)
            dep = min(dep, dd)
            known += p * v
            if known >= b:
                return known, dep
            if known + rest <= a:
                return known + rest, dep
        return known, dep

    def _decide(self, s, k, a, b, d):
        self.nodes += 1
        if self.nodes > self.limit:
            raise OverLimit
        lo, hi = self.table.get(k, (0.0, 1.0))
        if lo >= b or lo == hi:
            return lo, INF
        if hi <= a:
            return hi, INF
        a, b = max(a, lo), min(b, hi)
        a0, b0 = a, b
        self.path[k] = d
        maxi = s.to_move == 1
        moves = s.legal_moves()
        first = self.best.get(k)
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        best, arg, dep = (-1.0 if maxi else 2.0), None, INF
        for m in moves:
            c = s.clone()
            c.apply(m)
            v, dd = self.value(c, a, b, d + 1)
            dep = min(dep, dd)
            if (v > best) if maxi else (v < best):
                best, arg = v, m
            if maxi:
                a = max(a, v)
            else:
                b = min(b, v)
            if a >= b:
                break
        del self.path[k]
        if dep >= d or self.keep_all:
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
        else:
            self.path_dependent += 1
            if best > 0.5 and best > a0:
                lo = max(lo, best)
            elif best < 0.5 and best < b0:
                hi = min(hi, best)
            else:
                return best, dep
        self.table[k] = (lo, hi)
        self.best[k] = arg
        return best, dep


def strategy_bounds(state, probe: Probe, graph_max: int) -> dict:
    """Bounds from the probe's own choices: where one side plays the move the probe's table
    names (searching from a position it never met), the other side's best answer, solved
    exactly on that smaller graph by the Python reference solver, gives a bound on the
    value (player 0 fixed: an upper bound on its loss; player 1 fixed: a lower bound). Equal
    bounds prove the value whatever the probe's table got wrong."""
    from palace_solver.solve.exact import ExactSolver

    class OneSideFixed(ExactSolver):
        def __init__(self, root, side):
            super().__init__(root)
            self.side = side

        def _moves(self, s):
            if len(self.states) > graph_max:
                raise OverLimit
            return [choice(s)] if s.to_move == self.side else s.legal_moves()

    searches = [0]

    def choice(s):
        k = s.key()
        m = probe.best.get(k)
        if m is None:
            searches[0] += 1
            probe.path.clear()
            probe.value(s, 0.0, 1.0, 0)
            m = probe.best[k]
        return m

    out = {}
    for side, name in ((0, "upper"), (1, "lower")):
        g = OneSideFixed(state, side)
        try:
            out[name] = float(g.solve()[0])
            out[f"{name}_graph"] = len(g.states)
        except OverLimit:
            out[name] = out[f"{name}_graph"] = None
    out["strategy_searches"] = searches[0]
    return out


def reference(state, graph_cap: int) -> dict:
    """The compiled graph's size and exact value of player 0's loss, or ``None`` for both
    past ``graph_cap`` positions (the graph alone: no deepening after a cap)."""
    from palace_solver.solve.engine import _module

    eng = _module()
    g = eng.ExactGraph(eng.CState.from_state(state), 2)
    exact = g.build(graph_cap)
    if exact:
        g.solve()
    return {"graph_positions": g.stats()["nodes"] if exact else None,
            "exact": float(g.root_value()[0]) if exact else None}


def probe_row(name, state, limit, graph_cap, keep_all=False, verify_max=0, strategy_limit=None):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 200_000))
    row = {"name": name, **reference(state, graph_cap)}
    p = Probe(limit, keep_all)
    t0 = time.perf_counter()
    try:
        v, _ = p.value(state, 0.0, 1.0, 0)
        row["probe"] = v
    except OverLimit:
        row["probe"] = None
    row.update(searched=p.nodes if p.nodes <= limit else None, path_dependent=p.path_dependent,
               seconds=round(time.perf_counter() - t0, 2))
    row["agrees"] = (None if row["probe"] is None or row["exact"] is None
                     else abs(row["probe"] - row["exact"]) < 1e-9)
    if verify_max and row["probe"] is not None and (row["graph_positions"] or 0) <= verify_max:
        # the choices' own searches get a budget of their own
        p.limit = p.nodes + (strategy_limit or limit)
        row["strategy"] = strategy_bounds(state, p, verify_max)
    return row


def compiled_row(name, state, depth: int, seconds: float, graph_cap: int,
                 hash_mb: float = 1024.0) -> dict:
    """The package's compiled search (ext/deepen.pxi: alpha-beta, Star1/Star2, a repetition
    on the line scores 1/2, the table keeps only line-independent results) in one iteration
    deep enough that most lines end, within ``seconds``. Exact when no line met the horizon
    (``complete``); ``None`` values when the time ran out first."""
    from palace_solver.solve.deepening import new_search
    from palace_solver.solve.engine import _module

    eng = _module()
    row = {"name": name, "depth": depth, **reference(state, graph_cap)}
    search = new_search(eng.CState.from_state(state), hash_mb)
    t0 = time.perf_counter()
    res = search.iterate(depth, seconds)
    secs = time.perf_counter() - t0
    row.update(seconds=round(secs, 2), nodes=search.nodes,
               nodes_per_second=round(search.nodes / secs) if secs else None,
               repetitions=search.reps, horizon_evals=search.evals)
    row["complete"] = None if res is None else res[0]
    pick = min if state.to_move == 0 else max       # player 0's loss; player 1 maximises it
    row["value"] = None if res is None else pick(v[0] for _, v in res[1])
    return row


def summarize(rows, limit: int, keep_all: bool, verify: bool) -> dict:
    """Counts over the rows. *Answered*: the probe gave a value and the exact one is known
    (with ``keep_all`` an answer can be wrong: ``disagree`` counts those)."""
    done = [r for r in rows if r["probe"] is not None and r["graph_positions"]]
    summary = {
        "positions": len(rows), "limit": limit, "keep_all": keep_all,
        "disagree": sum(r["agrees"] is False for r in rows),
        "answered": len(done), "over_limit": sum(r["probe"] is None for r in rows),
        "searched_vs_graph_answered": (round(sum(r["searched"] for r in done)
                                             / sum(r["graph_positions"] for r in done), 4)
                                       if done else None),
        "answered_fractional": sum(r["exact"] not in (0.0, 1.0) for r in done),
        "over_limit_fractional": sum(r["probe"] is None and r["exact"] not in (0.0, 1.0, None)
                                     for r in rows),
    }
    if verify:
        checked = [r for r in rows if r.get("strategy") and r["strategy"]["upper"] is not None
                   and r["strategy"]["lower"] is not None]
        tight = [r for r in checked
                 if abs(r["strategy"]["upper"] - r["strategy"]["lower"]) < 1e-9]
        one_sided = sum(max(r["strategy"]["upper_graph"], r["strategy"]["lower_graph"])
                        for r in tight)
        summary["strategy"] = {
            "checked": len(checked), "tight": len(tight),
            "graph_share": (round(one_sided / sum(r["graph_positions"] for r in tight), 4)
                            if tight else None)}
    return summary


def main(argv=None) -> int:
    from exact_gen import random_exact_state

    from palace_solver.game.rules import Rules
    from palace_solver.solve.bench import load_suite

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--random", type=int, default=0, help="Random two-player positions.")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--suite", nargs="*", default=None, help="Bench-suite names (none: all).")
    ap.add_argument("--limit", type=int, default=300_000, help="Searched positions, at most.")
    ap.add_argument("--graph-cap", type=int, default=60_000_000,
                    help="Compiled graph positions, at most (the reference value).")
    ap.add_argument("--keep-all", action="store_true",
                    help="Keep every result in the table, line-dependent or not (unsound in "
                         "general): how much the sound rule costs.")
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="On proved positions whose graph has at most N positions: the "
                         "bounds that the probe's choices for each side give (pure Python).")
    ap.add_argument("--strategy-limit", type=int, default=None, metavar="N",
                    help="Searched positions for --verify's choices (default: --limit).")
    ap.add_argument("--compiled", type=int, default=0, metavar="DEPTH",
                    help="Instead of the Python probe: the compiled search, one iteration "
                         "of DEPTH plies (at most 510) within --seconds.")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    cases = []
    if args.suite is not None:
        suite = load_suite()
        cases += [(n, p.to_state()) for n, p in suite if not args.suite or n in args.suite]
    rng = random.Random(args.seed)
    want = len(cases) + args.random
    while len(cases) < want:
        s = random_exact_state(rng, 2, Rules(), hand=(1, 3), face_up=(0, 2), face_down=(0, 1),
                               pile=(0, 3))
        if not (s.is_terminal() or s.is_chance()):
            cases.append((f"random-{len(cases)}", s))
    rows = []
    for name, s in cases:
        if args.compiled:
            row = compiled_row(name, s, args.compiled, args.seconds, args.graph_cap)
        else:
            row = probe_row(name, s, args.limit, args.graph_cap, args.keep_all,
                            args.verify, args.strategy_limit)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.compiled:
        summary = {"positions": len(rows), "depth": args.compiled, "seconds": args.seconds,
                   "exact": sum(bool(r["complete"]) for r in rows),
                   "disagree": sum(bool(r["complete"]) and r["exact"] is not None
                                   and abs(r["value"] - r["exact"]) > 1e-9 for r in rows)}
    else:
        summary = summarize(rows, args.limit, args.keep_all, bool(args.verify))
    print(json.dumps({"summary": summary}))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary},
                                                      indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

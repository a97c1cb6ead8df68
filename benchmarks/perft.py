"""perft: node-count signatures and speed of the compiled and the Python rules engines.

For each late-game position of benchmarks/positions/perft_suite.json (draw pile empty, face-
down cards left, so flips are chance nodes expanded over every unseen rank), count the leaves
of the game tree to a fixed depth in the compiled engine and compare with the signature
written below: a changed count means the rules or the move generator changed, and is
reported as MISMATCH (exit status 1). The same positions are searched by a Python perft over
State.clone/apply to a smaller depth (its count must equal the compiled one at that depth),
and both speeds are reported as successors made per second, with their ratio.

    python benchmarks/perft.py            # signatures + speed: benchmarks/results/perft.json
    python benchmarks/perft.py --quick    # signatures only (no Python engine timing, no file)
    python benchmarks/perft.py --regenerate   # rebuild the suite (new signatures!)
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import provenance

from palace_solver.game.position import Position
from palace_solver.game.rules import Rules
from palace_solver.game.state import PLAY_PHASE, State
from palace_solver.solve.perft import perft as py_perft

SUITE = Path(__file__).with_name("positions") / "perft_suite.json"

#: name -> (depth, leaves at that depth). Update only on purpose, with the reason in the commit.
SIGNATURES = {
    "2p-std-0": (10, 22202777),
    "2p-std-1": (8, 22852180),
    "2p-std-2": (9, 14375759),
    "2p-std-3": (10, 19769887),
    "2p-std-4": (9, 22624783),
    "2p-std-5": (14, 9927228),
    "2p-seven_low": (9, 10325201),
    "2p-lenient+inv8": (9, 25317345),
    "3p-std": (11, 9658185),
    "4p-std": (13, 8775344),
}


def load_suite():
    data = json.loads(SUITE.read_text())
    return [(e["name"], e["depth"], e["py_depth"], Position.from_json(e["position"]).to_state())
            for e in data]


def regenerate() -> None:
    """Late-game positions from seeded random games: draw pile gone, nobody out, a decision."""
    rng = random.Random(1234)
    specs = [("2p-std-%d" % i, Rules(), 2) for i in range(6)] + [
        ("2p-seven_low", Rules.with_variants(["seven_low"]), 2),
        ("2p-lenient+inv8", Rules.with_variants(["lenient_blind", "invisible_8"]), 2),
        ("3p-std", Rules(), 3),
        ("4p-std", Rules(), 4),
    ]
    out = []
    for name, rules, n in specs:
        while True:
            s = State.new_game(rules, n)
            while not s.is_terminal() and not (s.phase == PLAY_PHASE and s.draw_pile == 0
                                               and not s.is_chance()):
                if s.is_chance():
                    o = s.chance_outcomes()
                    s.apply(rng.choices([r for r, _ in o], weights=[p for _, p in o])[0])
                else:
                    s.apply(rng.choice(s.legal_moves()))
            if s.is_terminal() or any(s.out) or min(s.face_down) == 0:
                continue
            break
        pos = Position.from_state(s)
        out.append({"name": name, "depth": 0, "py_depth": 0, "position": pos.to_json()})
    SUITE.parent.mkdir(exist_ok=True)
    SUITE.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out)} positions to {SUITE}; set depths and signatures by hand")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="signatures only, no Python timing")
    ap.add_argument("--regenerate", action="store_true", help="rebuild the position suite")
    ap.add_argument("--deeper", type=int, default=0, help="extra plies (no signature check)")
    args = ap.parse_args(argv)
    if args.regenerate:
        regenerate()
        return 0
    from palace_solver.solve.engine import compiled
    CState = compiled().CState

    rec = provenance.record()
    rows = []
    bad = 0
    c_nodes = c_time = py_nodes = py_time = 0.0
    print(f"{'position':18} {'depth':>5} {'leaves':>12} {'successors':>12} {'Mnodes/s':>9}"
          f" {'py depth':>8} {'py nodes/s':>10}  signature")
    for name, depth, py_depth, state in load_suite():
        depth += args.deeper
        c = CState.from_state(state)
        t = time.perf_counter()
        leaves, made = c.perft_count(depth)
        dt = time.perf_counter() - t
        c_nodes += made
        c_time += dt
        want = SIGNATURES.get(name)
        if args.deeper:
            sig = "(not checked)"
        elif want is None:
            sig = f"NEW ({depth}, {leaves})"
            bad += 1
        elif want != (depth, leaves):
            sig = f"MISMATCH: expected {want}"
            bad += 1
        else:
            sig = "ok"
        py = ""
        if not args.quick:
            counter = [0]
            t = time.perf_counter()
            py_leaves = py_perft(state.clone(), py_depth, counter)
            pdt = time.perf_counter() - t
            py_nodes += counter[0]
            py_time += pdt
            if py_leaves != c.perft(py_depth):
                sig += f"  MISMATCH python {py_leaves} != compiled {c.perft(py_depth)}"
                bad += 1
            py = f"{py_depth:>8} {counter[0] / pdt:>10.0f}"
        print(f"{name:18} {depth:>5} {leaves:>12} {made:>12} {made / dt / 1e6:>9.1f} {py}  {sig}")
        rows.append({"position": name, "depth": depth, "leaves": leaves, "successors": made,
                     "seconds": round(dt, 4), "signature": sig,
                     **({"python_depth": py_depth, "python_nodes_per_second":
                         round(counter[0] / pdt)} if not args.quick else {})})
    c_rate = c_nodes / c_time
    print(f"compiled: {c_nodes:.0f} successors in {c_time:.2f} s = {c_rate / 1e6:.1f} M/s")
    if not args.quick:
        py_rate = py_nodes / py_time
        print(f"python:   {py_nodes:.0f} successors in {py_time:.2f} s = {py_rate / 1e3:.1f} k/s")
        print(f"ratio compiled/python: {c_rate / py_rate:.0f}x")
    if bad:
        print(f"{bad} signature problem(s)")
    if not args.quick and not args.deeper:
        summary = {"compiled_nodes_per_second": round(c_rate),
                   "python_nodes_per_second": round(py_rate),
                   "ratio": round(c_rate / py_rate), "signature_problems": bad}
        print(provenance.write("perft.json", {"rows": rows, "summary": summary}, rec))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

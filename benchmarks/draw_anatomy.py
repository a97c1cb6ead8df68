"""What the engine's drawn games look like: who picks up when a play was legal, how many
cards each side holds, how long the draw pile lasts (benchmarks/RESULTS-strength.md, Where
the draws come from).

    python benchmarks/draw_anatomy.py DIR [DIR ...] [--json] [--out FILE]

Each DIR holds the records of one pairing (``palace match engine B --record DIR``). Per
pairing and seat name: games and how they ended, decisions a game, *voluntary* pickups
(a pickup when another move was legal) per 100 of the seat's decisions in the draw phase
and after it, the cards such a pickup took, the seat's mean hand size, and the share of
the game played before the draw pile emptied. The records know every hand, so nothing here
is estimated; the numbers describe these games only, the few starts of a quick look, not
the rows' 1,000 games. With ``--out FILE`` the table is also written as JSON with its
provenance.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import provenance

from palace_solver.game.moves import PICKUP
from palace_solver.review.replay import replay
from palace_solver.review.run import load_records


def _seat_counts() -> dict:
    return {"decisions": [0, 0], "voluntary": [0, 0], "taken": 0, "hand": 0}


def anatomy(records) -> dict:
    """The counts of one pairing's records, by seat name (see the module docstring)."""
    endings: Counter = Counter()
    seats: dict = {}
    plies = before_empty = 0
    for _, rec in records:
        rp = replay(rec)
        endings[rec.result or "unfinished"] += 1
        n = len(rp.decisions)
        plies += n
        before_empty += n if rp.draw_empty_ply is None else rp.draw_empty_ply - 1
        for d in rp.decisions:
            c = seats.setdefault(rp.names[d.player], _seat_counts())
            phase = 0 if d.draw_pile > 0 else 1
            c["decisions"][phase] += 1
            me = d.truth.players[d.player]
            c["hand"] += me.hand_count
            if d.move.kind == PICKUP and len(d.legal) > 1:
                c["voluntary"][phase] += 1
                c["taken"] += len(d.truth.pile)
    games = sum(endings.values())
    out = {"games": games, "endings": dict(sorted(endings.items())),
           "decisions_per_game": plies / games if games else 0.0,
           "share_before_empty": before_empty / plies if plies else 0.0, "seats": {}}
    for name, c in seats.items():
        dec = sum(c["decisions"])
        vol = sum(c["voluntary"])
        out["seats"][name] = {
            "decisions": c["decisions"],
            "voluntary_per_100": [100 * v / d if d else 0.0
                                  for v, d in zip(c["voluntary"], c["decisions"])],
            "cards_per_voluntary": c["taken"] / vol if vol else 0.0,
            "mean_hand": c["hand"] / dec if dec else 0.0,
        }
    return out


def _table(rows: dict) -> str:
    lines = ["| pairing | games | endings | decisions/game | before empty | seat | "
             "vol. pickups /100 (draw, after) | cards a vol. pickup | mean hand |",
             "|---|---|---|---|---|---|---|---|---|"]
    for pairing, a in rows.items():
        end = ", ".join(f"{k} {v}" for k, v in a["endings"].items())
        for name, s in a["seats"].items():
            v = s["voluntary_per_100"]
            lines.append(f"| {pairing} | {a['games']} | {end} | {a['decisions_per_game']:.0f} | "
                         f"{a['share_before_empty']:.0%} | {name} | {v[0]:.1f}, {v[1]:.1f} | "
                         f"{s['cards_per_voluntary']:.1f} | {s['mean_hand']:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="directories of game records, one per pairing")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    ap.add_argument("--out", help="also write the counts with their provenance to this file")
    args = ap.parse_args(argv)
    rec = provenance.record()
    rows = {Path(d).name: anatomy(load_records(d)) for d in args.dirs}
    print(json.dumps(rows, indent=1) if args.json else _table(rows))
    if args.out:
        provenance.write(Path(args.out), {"pairings": rows}, rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())

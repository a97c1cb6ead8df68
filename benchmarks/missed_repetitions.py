"""How often a seat's move leads back to a position the game went through, and how often the
search's history missed it before ``SearchConfig.revealed`` (benchmarks/RESULTS-strength.md,
Revealed cards).

    python benchmarks/missed_repetitions.py [--records DIR] [--seat engine]

Reads the game records of DIR (``palace match A B --record DIR``; the default DIR holds the
first 4 starts of ``g1-mos_uct``: ``palace match engine mos_uct --starts 4 --seed 0``, the
same games as the row's). For every decision of the seat, every legal move whose position
the game already went through (the records know every hand) is counted, and counted as
*missed* when the seat saw that position with more unknown cards of the other side than it
knows now: the matching before ``revealed`` gave such a position to the search only when the
hidden counts were equal. Written to ``benchmarks/results/missed-repetitions.json``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import provenance

from palace_solver.review.replay import replay
from palace_solver.review.run import load_records

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "results" / "records" / "engine-mos_uct"


def _hidden(pos) -> list[int]:
    return [p.hand_unknown for p in pos.players]


def count(rec, seat: str) -> dict:
    """The moves back of ``seat`` in one record: how many, how many missed, and whether the
    game ended with a missed one."""
    rp = replay(rec)
    me = list(rp.record.seats).index(seat)
    back = missed = 0
    ended = False
    for d in rp.decisions:
        if d.player != me:
            continue
        st = d.truth.to_state()
        keys = [h.to_state().key() for h in d.truth_history[:-1]]
        views = d.histories[me][:-1]
        now = _hidden(d.views[me])
        for m in st.legal_moves():
            c = st.clone()
            c.apply(m)
            if c.is_chance() or c.is_terminal() or c.key() not in keys:
                continue
            back += 1
            if _hidden(views[keys.index(c.key())]) != now:
                missed += 1
                ended |= d is rp.decisions[-1] and m == d.move
    return {"moves_back": back, "missed": missed, "ended_by_missed": ended}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", default=str(RECORDS), help="a directory of game records")
    ap.add_argument("--seat", default="engine", help="the seat whose moves are counted")
    args = ap.parse_args(argv)
    rec = provenance.record()
    games = {}
    for key, r in load_records(args.records):
        games[Path(key).name] = count(r, args.seat)
    total = {k: sum(g[k] for g in games.values()) for k in ("moves_back", "missed",
                                                             "ended_by_missed")}
    total["games_with_missed"] = sum(1 for g in games.values() if g["missed"])
    total["games"] = len(games)
    for name, g in games.items():
        print(f"{name}: {g['moves_back']} back, {g['missed']} missed"
              + (", the last one ended the game" if g["ended_by_missed"] else ""))
    print(f"all: {total['moves_back']} moves back, {total['missed']} missed, in "
          f"{total['games_with_missed']} of {total['games']} games; "
          f"{total['ended_by_missed']} games ended by one")
    if args.records == str(RECORDS):
        provenance.write(HERE / "results" / "missed-repetitions.json",
                         {"records": str(RECORDS.relative_to(HERE.parent)), "seat": args.seat,
                          "games": games, "total": total}, rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())

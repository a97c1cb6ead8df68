"""What the engine's drawn games look like: who picks up when a play was legal, how many
cards each side holds, how long the draw pile lasts (benchmarks/RESULTS-strength.md, Where
the draws come from).

    python benchmarks/draw_anatomy.py DIR [DIR ...] [--json] [--out FILE]

Each DIR holds the records of one pairing (``palace match engine B --record DIR``). Per
pairing and seat name: games and how they ended, decisions a game, *voluntary* pickups (a
pickup when a play was legal, ``game.moves.pickup_by_choice``; before 2026-12-06 a choice
among pickups alone counted too, RESULTS-strength.md, rows w1-) per 100 of the seat's
decisions in the draw phase and after it, the cards such a pickup took, the seat's mean
hand size, and the share of the game played before the draw pile emptied. The records know
every hand, so nothing here is estimated; the numbers describe these games only, the few
starts of a quick look, not the rows' 1,000 games. With ``--out FILE`` the table is also
written as JSON with its provenance.

    python benchmarks/draw_anatomy.py --row ROW [--row ROW ...] [--json]
    python benchmarks/draw_anatomy.py --match FILE      # palace match --record D --output FILE

reads instead a recorded strength row (``benchmarks/strength.py``, ``RECORDED``: each
game's events and each move's figure): the same counts for its agents A and B, how its
games ended, which side's move closed each repetition (a pickup or a play, voluntary or
forced), A's voluntary pickups by A's own figure for the pickup (its loss when it
picks up: at most 0.33, 0.33-0.5, above 0.5), which is what ``pickup_below`` reads, and
when each side made its first voluntary pickup of a game, which is what
``engine:nopick_below`` reads of the other side. The
games of a row are those of its file so far; these are counts, not estimates.

    python benchmarks/draw_anatomy.py --row ROW --by-ending

gives the same counts for the games of each ending apart (a repeated position, the
decision cap, a game decided), each with its median length, A's figure over its last 10
figured decisions (mean over the games), the games that ended with cards still in the
draw pile, and both sides' hands over the last 100 decisions of each game.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter, deque
from pathlib import Path

import provenance

from palace_solver.game.moves import PICKUP, pickup_by_choice
from palace_solver.game.rules import Rules
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
            if pickup_by_choice(d.move, d.legal):
                c["voluntary"][phase] += 1
                c["taken"] += len(d.truth.pile)
    games = sum(endings.values())
    out = {"games": games, "endings": dict(sorted(endings.items())),
           "decisions_per_game": plies / games if games else 0.0,
           "share_before_empty": before_empty / plies if plies else 0.0}
    out["seats"] = {name: _seat_summary(c) for name, c in seats.items()}
    return out


def _seat_summary(c: dict) -> dict:
    """A seat's counts (:func:`_seat_counts`) as rates."""
    dec = sum(c["decisions"])
    vol = sum(c["voluntary"])
    return {"decisions": c["decisions"],
            "voluntary_per_100": [100 * v / d if d else 0.0
                                  for v, d in zip(c["voluntary"], c["decisions"])],
            "cards_per_voluntary": c["taken"] / vol if vol else 0.0,
            "mean_hand": c["hand"] / dec if dec else 0.0}


#: the decisions at each game's end over which both sides' hands are averaged
LAST = 100
#: the bands of the mover's own figure for the voluntary pickups of a row's side A
BANDS = ((0.0, 0.33), (0.33, 0.5), (0.5, 1.0))


def row_anatomy(results, a_name: str, b_name: str, late: int | None = None) -> dict:
    """The counts of a recorded row's finished games ``(id, result)`` (``id`` "start/seat",
    A in seat ``seat``; two players): per side as :func:`anatomy`, plus the endings by
    reason, the closers of repetitions, and A's voluntary pickups by its figure; with
    ``late``, those of the game's decisions ``late`` on (the first one 0) apart too
    (``a_by_figure_late``) and the games that ran past it (``games_past_late``).

    :raises ValueError: a game without its events (a row not recorded)."""
    from palace_solver.learn.engine_games import replay
    rules = Rules().to_json()
    endings: Counter = Counter()
    closers: Counter = Counter()
    sides = {a_name + " (A)": _seat_counts(), b_name + " (B)": _seat_counts()}
    names = list(sides)
    bands = [{"decisions": 0, "voluntary": 0} for _ in BANDS]
    late_bands = [{"decisions": 0, "voluntary": 0} for _ in BANDS]
    games = plies = before_empty = left = past_late = 0
    lengths, last_figures, last_hands = [], [], []
    # per side, the decision of the game (the first 0) of each game's first voluntary
    # pickup, None where it made none (what engine:nopick_below reads of the others)
    firsts: dict = {name: [] for name in names}
    for gid, res in results:
        if "events" not in res:
            raise ValueError(f"game {gid} was played without its events")
        seat_a = int(str(gid).split("/")[1])
        game = {"n": 2, "rules": rules, "events": res["events"], "prefix": res["prefix"],
                "figures": res["figures"]}
        games += 1
        endings[res["reason"]] += 1
        last, mine, pile, n = None, [], 0, 0
        first: dict = {}
        hands: deque = deque(maxlen=LAST)
        for state, move, fig, k in replay(game):
            n, pile = n + 1, state.draw_pile
            hands.append((sum(state.hands[seat_a]), sum(state.hands[1 - seat_a])))
            me = state.to_move
            side = names[0] if me == seat_a else names[1]
            c = sides[side]
            phase = 0 if state.draw_pile > 0 else 1
            c["decisions"][phase] += 1
            c["hand"] += sum(state.hands[me])
            legal = state.legal_moves()
            choice = len(legal) > 1
            voluntary = pickup_by_choice(move, legal)
            if voluntary:
                c["voluntary"][phase] += 1
                c["taken"] += len(state.pile)
                first.setdefault(side, n - 1)
            if me == seat_a and fig is not None:
                mine.append(fig)
                # the last band closed above: records played before 2026-12-06's
                # clamp hold a few figures an ulp past 1 (palace_solver.solve.results.probability)
                b = next((i for i, (lo, hi) in enumerate(BANDS) if fig <= hi), len(BANDS) - 1)
                bands[b]["decisions"] += 1
                bands[b]["voluntary"] += voluntary
                if late is not None and k >= late:
                    late_bands[b]["decisions"] += 1
                    late_bands[b]["voluntary"] += voluntary
            plies += 1
            before_empty += phase == 0
            # a play is voluntary where another move was legal, a pickup where a play was
            last = (side, "pickup" if move.kind == PICKUP else "play",
                    "voluntary" if (voluntary if move.kind == PICKUP else choice)
                    else "forced")
        if res["reason"] == "repetition" and last is not None:
            closers[" ".join(last)] += 1
        for name in names:
            firsts[name].append(first.get(name))
        lengths.append(n)
        past_late += late is not None and n > late
        left += pile > 0
        if mine:
            last_figures.append(sum(mine[-10:]) / len(mine[-10:]))
        if hands:
            last_hands.append([sum(h[i] for h in hands) / len(hands) for i in (0, 1)])
    out = {"games": games, "endings": dict(sorted(endings.items())),
           "decisions_per_game": plies / games if games else 0.0,
           "median_decisions": statistics.median(lengths) if lengths else 0,
           "a_last_figures": (sum(last_figures) / len(last_figures) if last_figures
                              else None),
           "a_last_figures_below": {f"{x:g}": sum(f < x for f in last_figures)
                                    for x in (0.5, 0.6)},
           "draw_pile_left": left,
           # both sides' hands over each game's last LAST decisions (mean over the games),
           # and the games where A's was the larger
           "last_hands": [sum(h[i] for h in last_hands) / len(last_hands) if last_hands
                          else None for i in (0, 1)],
           "a_hand_larger_last": sum(a > b for a, b in last_hands),
           "share_before_empty": before_empty / plies if plies else 0.0,
           "repetitions_closed_by": dict(sorted(closers.items())),
           "a_by_figure": [{"figure": list(band), **n} for band, n in zip(BANDS, bands)],
           "first_voluntary": {name: _first_summary(f) for name, f in firsts.items()}}
    if late is not None:
        out["late"] = late
        out["games_past_late"] = past_late
        out["a_by_figure_late"] = [{"figure": list(band), **n}
                                   for band, n in zip(BANDS, late_bands)]
    out["seats"] = {name: _seat_summary(c) for name, c in sides.items()}
    return out


def _first_summary(firsts: list) -> dict:
    """Of each game's first voluntary pickup by one side (decision of the game, None for a
    game without one): the median decision, the one by which 90% of the games with one had
    made it, and the games without one."""
    made = sorted(f for f in firsts if f is not None)
    return {"games": len(firsts), "never": len(firsts) - len(made),
            "median": statistics.median(made) if made else None,
            "by_90": made[math.ceil(0.9 * len(made)) - 1] if made else None}


def _row_parts(name: str, results, a: str, b: str, by_ending: bool,
               late: int | None = None) -> dict:
    """The counts of a row's games, and with ``by_ending`` those of each ending's games apart
    (named ``NAME (ENDING)``)."""
    results = list(results)
    out = {name: row_anatomy(results, a, b, late)}
    if by_ending:
        for reason in sorted({res["reason"] for _, res in results}):
            out[f"{name} ({reason})"] = row_anatomy(
                [(g, res) for g, res in results if res["reason"] == reason], a, b, late)
    return out


def _row_text(row: str, a: dict) -> str:
    below = ", ".join(f"{v} below {k}" for k, v in a["a_last_figures_below"].items())
    fig = "-" if a["a_last_figures"] is None else f"{a['a_last_figures']:.2f}"
    lines = [_table({row: a}), "",
             f"median decisions {a['median_decisions']:g}; A's figure over its last 10 "
             f"decisions {fig} (games: {below}); games ended with cards in the draw pile "
             f"{a['draw_pile_left']}; hands over the last {LAST} decisions: A "
             + ("-" if a["last_hands"][0] is None else
                f"{a['last_hands'][0]:.1f}, B {a['last_hands'][1]:.1f} (A's the larger in "
                f"{a['a_hand_larger_last']} games)"),
             "repetitions closed by: " + (", ".join(f"{k} {v}" for k, v in
                                                  a["repetitions_closed_by"].items()) or "-"),
             "A's voluntary pickups by its figure: " + ", ".join(
                 f"{b['figure'][0]:g}-{b['figure'][1]:g}: {b['voluntary']} of "
                 f"{b['decisions']} decisions" for b in a["a_by_figure"]),
             "first voluntary pickup, decision of the game (median; by it in 90% of the "
             "games with one; games without one): " + ", ".join(
                 f"{name} {f['median']:g}; {f['by_90']}; {f['never']} of {f['games']}"
                 if f["median"] is not None else f"{name} none in {f['games']} games"
                 for name, f in a["first_voluntary"].items())]
    if "late" in a:
        lines.append(f"from decision {a['late']} on ({a['games_past_late']} games ran that "
                     f"long): " + ", ".join(
                         f"{b['figure'][0]:g}-{b['figure'][1]:g}: {b['voluntary']} of "
                         f"{b['decisions']} decisions" for b in a["a_by_figure_late"]))
    return "\n".join(lines)


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
    ap.add_argument("dirs", nargs="*", help="directories of game records, one per pairing")
    ap.add_argument("--row", action="append", default=[],
                    help="a recorded strength row instead (benchmarks/strength.py RECORDED)")
    ap.add_argument("--match", action="append", default=[],
                    help="the output file of a recorded palace match (--record DIR "
                    "--output FILE), read as a row of sides A and B")
    ap.add_argument("--by-ending", action="store_true",
                    help="with --row or --match: the counts of each ending's games apart too")
    ap.add_argument("--late", type=int, metavar="N",
                    help="with --row or --match: A's decisions from the game's decision N on "
                    "(the first 0) counted apart too")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    ap.add_argument("--out", help="also write the counts with their provenance to this file")
    args = ap.parse_args(argv)
    if not args.dirs and not args.row and not args.match:
        ap.error("name directories of records, --row ROW or --match FILE")
    rec = provenance.record()
    rows = {Path(d).name: anatomy(load_records(d)) for d in args.dirs}
    from palace_solver.jobs.batch import finished_results
    if args.row:
        from strength import ROWS, _file    # benchmarks/strength.py
        for row in args.row:
            if row not in ROWS or not _file(row).exists():
                ap.error(f"no file of strength row {row!r}")
            a, b = ROWS[row][:2]
            try:
                rows.update(_row_parts(row, finished_results(_file(row)), a, b,
                                       args.by_ending, args.late))
            except ValueError as e:
                ap.error(f"{row}: {e}")
    for f in args.match:
        if not Path(f).is_file():
            ap.error(f"no file {f}")
        try:
            rows.update(_row_parts(f, finished_results(f), "A", "B", args.by_ending,
                                   args.late))
        except ValueError as e:
            ap.error(f"{f}: {e} (play it with --record)")
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        named = [k for k in rows if k in args.row + args.match
                 or k.split(" (")[0] in args.row + args.match]
        plain = {k: v for k, v in rows.items() if k not in named}
        parts = ([_table(plain)] if plain else []) + [_row_text(r, rows[r]) for r in named]
        print("\n\n".join(parts))
    if args.out:
        provenance.write(Path(args.out), {"pairings": rows}, rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())

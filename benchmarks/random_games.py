"""Random full games through the reference rules engine: a smoke test and a speed figure.

Plays ``--games`` (default 10,000) games of random bots for each player count 2 to 6 under
the standard rules, then ``--variant-games`` (default 1,000) for each variant switch (3
players; 6 for ``jokers``), with no exception allowed. Prints per configuration: games,
draws (repeated position or turn cap), mean decisions per game and games per second, then
a total. Games are seeded 0, 1, 2, ... so the counts are a signature: the same code gives
the same draws and decisions on every run.

    python benchmarks/random_games.py --quick        # a few games per configuration
    python benchmarks/random_games.py --json
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from palace_solver.agents.play import DEFAULT_TURN_CAP, play_game
from palace_solver.game.rules import VARIANTS, Rules


def configurations(games: int, variant_games: int):
    """(label, rules, players, games) of the benchmark, in order."""
    for n in range(2, 7):
        yield f"standard {n}p", Rules(), n, games
    for v in VARIANTS:
        n = 6 if v == "jokers" else 3
        yield f"{v} {n}p", Rules.with_variants([v]), n, variant_games


def run(label: str, rules: Rules, n: int, games: int, turn_cap: int, check: bool) -> dict:
    bots = ["random"] * n
    draws = decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        try:
            rec = play_game(rules, n, bots, seed=seed, turn_cap=turn_cap, record=False,
                            check=check)
        except Exception as e:  # the benchmark's purpose: say which game broke
            raise SystemExit(f"{label}: game with seed {seed} failed: "
                             f"{type(e).__name__}: {e}") from e
        draws += rec.draw
        decisions += rec.decisions
    secs = time.perf_counter() - t0
    return {"config": label, "rules": str(rules), "players": n, "games": games,
            "draws": draws, "decisions": decisions,
            "mean_decisions": decisions / games if games else 0.0,
            "seconds": secs, "games_per_s": games / secs if secs else 0.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000,
                    help="games per player count 2..6, standard rules (default 10000)")
    ap.add_argument("--variant-games", type=int, default=1_000,
                    help="games per variant (default 1000)")
    ap.add_argument("--quick", action="store_true",
                    help="5 games per configuration (for the test suite)")
    ap.add_argument("--check", action="store_true",
                    help="also call State.check_cards after every event (slower)")
    ap.add_argument("--turn-cap", type=int, default=DEFAULT_TURN_CAP,
                    help=f"decisions before a game is a draw (default {DEFAULT_TURN_CAP})")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    games, vgames = (5, 5) if args.quick else (args.games, args.variant_games)

    rows = []
    if not args.json:
        print(f"{'configuration':<28} {'games':>7} {'draws':>7} {'mean dec':>9} "
              f"{'games/s':>9}")
    for label, rules, n, g in configurations(games, vgames):
        row = run(label, rules, n, g, args.turn_cap, args.check)
        rows.append(row)
        if not args.json:
            print(f"{label:<28} {g:>7} {row['draws']:>7} {row['mean_decisions']:>9.1f} "
                  f"{row['games_per_s']:>9.1f}", flush=True)
    total_games = sum(r["games"] for r in rows)
    total_secs = sum(r["seconds"] for r in rows)
    total = {"games": total_games, "draws": sum(r["draws"] for r in rows),
             "decisions": sum(r["decisions"] for r in rows), "seconds": total_secs,
             "games_per_s": total_games / total_secs if total_secs else 0.0}
    if args.json:
        json.dump({"configurations": rows, "total": total}, sys.stdout, indent=2)
        print()
    else:
        print(f"{'total':<28} {total_games:>7} {total['draws']:>7} "
              f"{total['decisions'] / max(total_games, 1):>9.1f} {total['games_per_s']:>9.1f}"
              f"   ({total['decisions']} decisions, {total_secs:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""benchmarks/missed_repetitions.py: the count of moves back that the old matching missed."""
from __future__ import annotations

from pathlib import Path

from scripts import load_script

from palace_solver.review.run import load_records

RECORD = Path(__file__).parent / "data" / "records" / "revealed-repetition.txt"


def test_the_game_that_ended_at_a_missed_repetition_is_counted_so():
    bench = load_script("benchmarks/missed_repetitions.py")
    rec = load_records(str(RECORD))[0][1]
    assert bench.count(rec, "engine") == {"moves_back": 1, "missed": 1, "ended_by_missed": True}
    # the other seat's moves never led back to a position it had seen with less knowledge
    assert bench.count(rec, "mos_uct")["missed"] == 0

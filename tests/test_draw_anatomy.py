"""benchmarks/draw_anatomy.py: voluntary pickups, hands and endings counted from records."""
from __future__ import annotations

from pathlib import Path

import pytest
from scripts import load_script

from palace_solver.review.run import load_records

RECORD = Path(__file__).parent / "data" / "records" / "revealed-repetition.txt"


def test_the_counts_of_a_record_read_by_hand():
    bench = load_script("benchmarks/draw_anatomy.py")
    got = bench.anatomy(load_records(str(RECORD)))
    assert got["games"] == 1 and got["endings"] == {"draw (repetition)": 1}
    # 28 decisions, all while the draw pile held cards
    assert got["decisions_per_game"] == 28 and got["share_before_empty"] == 1.0
    engine, mos = got["seats"]["engine"], got["seats"]["mos_uct"]
    assert engine["decisions"] == [14, 0] and mos["decisions"] == [14, 0]
    # engine picks up 7 times; at decisions 2 (3 4 5 on a Q) and 4 (nothing beats a K) it
    # must. The other five took 3 (8 Q 2), 1 (an A, holding a 2), 2, 1 and 2 cards.
    assert engine["voluntary_per_100"] == [pytest.approx(100 * 5 / 14), 0.0]
    assert engine["cards_per_voluntary"] == pytest.approx(9 / 5)
    # mos_uct's pickups on a Q holding 3 3 J and 3 8 J are forced; the one on an 8 is not
    assert mos["voluntary_per_100"] == [pytest.approx(100 / 14), 0.0]
    assert mos["cards_per_voluntary"] == 1.0


def test_the_table_has_a_line_per_seat(capsys, tmp_path):
    bench = load_script("benchmarks/draw_anatomy.py")
    pairing = tmp_path / "engine-mos_uct"
    pairing.mkdir()
    (pairing / RECORD.name).write_text(RECORD.read_text())
    assert bench.main([str(pairing), "--out", str(tmp_path / "out.json")]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines()
             if x.startswith("| engine-mos_uct |")]
    assert [x.split(" | ")[5] for x in lines] == ["engine", "mos_uct"]
    assert '"pairings"' in (tmp_path / "out.json").read_text()

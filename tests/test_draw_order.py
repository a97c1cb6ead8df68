"""benchmarks/draw_order.py: draw-phase positions of held-out games, each agent's decision
there, and how often two agents choose alike."""
from __future__ import annotations

from scripts import load_script

from palace_solver.game.moves import PICKUP


def test_positions_are_draw_phase_choices_and_agreement_counts_equal_moves():
    bench = load_script("benchmarks/draw_order.py")
    pos = bench.draw_positions(3)
    assert len(pos) == 3
    assert all(s.draw_pile > 0 and len(s.legal_moves()) > 1 for s, _ in pos)
    spec = "engine:nodes=3000:determinizations=2"
    rows = bench.decisions(spec, pos)
    legal = [{str(m) for m in s.legal_moves()} for s, _ in pos]
    assert all(r["move"] in lg for r, lg in zip(rows, legal))
    assert [r["pickup"] for r in rows] == [r["move"] == str(next(
        (m for m in s.legal_moves() if m.kind == PICKUP), None)) for r, (s, _) in
        zip(rows, pos)]
    # the same agent and seed decide the same moves: agreement 1; a changed move lowers it
    again = bench.decisions(spec, pos)
    assert bench.summarize(again, rows)["agrees_with_reference"] == 1.0
    other = [dict(rows[0], move="not a move")] + rows[1:]
    assert bench.summarize(other, rows)["agrees_with_reference"] == round(2 / 3, 4)
    assert 0.0 <= bench.summarize(rows, None)["pickup_share"] <= 1.0

"""Perft with the reference engine: leaves ``depth`` steps below a state, a chance event
counting as a step with one branch per unseen rank. The compiled ``CState.perft`` must give
the same counts (tests/test_parity.py, benchmarks/perft.py)."""
from __future__ import annotations

from ..game.state import State


def perft(s: State, depth: int, counter: list[int] | None = None) -> int:
    """Leaves ``depth`` steps deep; ``counter[0]`` is increased by every successor made."""
    if depth == 0 or s.is_terminal():
        return 1
    steps = [r for r, _ in s.chance_outcomes()] if s.is_chance() else s.legal_moves()
    total = 0
    for step in steps:
        c = s.clone()
        c.apply(step)
        if counter is not None:
            counter[0] += 1
        total += perft(c, depth - 1, counter) if depth > 1 else 1
    return total

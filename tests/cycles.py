"""Random games that pick the pile up often, so that positions come back: the checks of the
game's history (tests/test_drawsearch.py, tests/test_exact_history.py) read their
decisions, the game itself saying which moves repeat a position."""
from __future__ import annotations

import random

from palace_solver.agents.play import _sample
from palace_solver.game.moves import PICKUP
from palace_solver.game.rules import Rules
from palace_solver.jobs.match import make_start


def pickup_games(n: int, games: int, tag: str = "cycles", decisions: int = 300):
    """Each decision ``(state, tracker)`` of ``games`` full deals of ``n`` players, where
    a pickup is taken 40% of the time it is legal and a random move otherwise (read them,
    do not change them: the game goes on from them)."""
    for g in range(games):
        rng = random.Random(g)
        s, tracker, _ = make_start("full", Rules(), n, f"{tag}-{g}")
        for _ in range(decisions):
            if s.is_terminal():
                break
            if s.is_chance():
                tracker.apply(s, _sample(s, rng))
                continue
            yield s, tracker
            ups = [m for m in s.legal_moves() if m.kind == PICKUP]
            tracker.apply(s, ups[0] if ups and rng.random() < 0.4 else rng.choice(s.legal_moves()))


def moves_back(s, tracker) -> dict:
    """``{move: index in tracker.history}`` of the legal moves of ``s`` whose position the
    game already went through (the game's own record: a draw if played)."""
    seen = {p.key(): i for i, (p, _) in enumerate(tracker.history[:-1])}
    back = {}
    for m in s.legal_moves():
        c = s.clone()
        c.apply(m)
        if not (c.is_chance() or c.is_terminal()) and c.key() in seen:
            back[m] = seen[c.key()]
    return back

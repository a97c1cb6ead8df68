"""What an analysis says: the result types every solver returns, below every solver.

:class:`Analysis` is the analysis JSON of POSITION.md; :func:`rank_moves` orders moves best
first for the mover; :func:`check_exact` tells exact mode apart (RULES.md). Imports only the
game model.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..game.moves import Move
from ..game.state import State


class NotExactError(ValueError):
    """The position has hidden cards other than face-down ones: it needs sampling."""


def check_exact(s: State) -> None:
    """:raises NotExactError: unless every hand is known and the draw pile is empty."""
    if s.draw_pile:
        raise NotExactError(f"not an exact-mode position: {s.draw_pile} cards in the draw pile")


def probability(x):
    """``x`` brought back into [0, 1]. The compiled searches value a chance node as the sum
    of each outcome's probability times its value, in floating point: a loss certain in
    every outcome can come out 1 + 2**-52 and its complement -2**-52, which POSITION.md's
    figures may not be (and which the calibration maps would take for estimates)."""
    return 0.0 if x < 0 else 1.0 if x > 1 else x


@dataclass
class MoveValue:
    move: Move
    loss: list
    #: sampled answers: the move's 95% interval, one (lo, hi) per player (POSITION.md)
    ci95: list | None = None
    #: a depth-limited search: whether the move's figure is proven (every line under it
    #: ended) or an estimate at the horizon; None where the question does not arise
    resolved: bool | None = None

    def __post_init__(self):
        self.loss = [probability(x) for x in self.loss]


@dataclass
class Analysis:
    """What ``palace analyze`` reports (POSITION.md)."""

    method: str
    to_move: int
    loss: list
    moves: list[MoveValue]
    stats: dict = field(default_factory=dict)
    ci95: list | None = None
    samples: int | None = None
    #: the solved graph (compiled ExactGraph), kept for --line and --tree; not serialized
    graph: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.loss = [probability(x) for x in self.loss]

    @property
    def best_move(self) -> Move | None:
        return self.moves[0].move if self.moves else None

    def to_json(self) -> dict:
        out = {"method": self.method, "to_move": self.to_move,
               "loss_probability": [float(x) for x in self.loss],
               "best_move": str(self.best_move) if self.moves else None,
               "moves": [_move_json(m) for m in self.moves]}
        if self.ci95 is not None:
            out["ci95"] = [[float(a), float(b)] for a, b in self.ci95]
            out["samples"] = self.samples
        out["stats"] = self.stats
        return out


def _move_json(m: MoveValue) -> dict:
    d = {"move": str(m.move), "loss_probability": [float(x) for x in m.loss]}
    if m.ci95 is not None:
        d["ci95"] = [[float(a), float(b)] for a, b in m.ci95]
    if m.resolved is not None:
        d["resolved"] = m.resolved
    return d


def rank_moves(mover: int, moves: list[MoveValue]) -> list[MoveValue]:
    """Best first for the mover: lowest own loss; ties keep the legal-move order."""
    return sorted(moves, key=lambda m: m.loss[mover])


def tied_with_best(intervals) -> list[bool]:
    """Which moves are tied with the best one: for moves listed best first, each with the
    95% interval ``(lo, hi)`` of the mover's loss, True where the interval overlaps the
    best move's (for exact values, zero-width intervals: an equal value). The best move
    itself is False: it is the one the others tie with.

    >>> tied_with_best([(0.30, 0.40), (0.35, 0.50), (0.41, 0.60), (0.40, 0.40)])
    [False, True, False, True]
    """
    intervals = [tuple(iv) for iv in intervals]
    if not intervals:
        return []
    lo0, hi0 = intervals[0]
    return [False] + [lo <= hi0 and lo0 <= hi for lo, hi in intervals[1:]]


def move_intervals(a: Analysis) -> list[tuple[float, float]]:
    """The 95% interval of the mover's loss for each move of ``a`` (best first): from the
    sampled analysis's ``stats["move_ci95"]``, or the exact value twice."""
    ci = a.stats.get("move_ci95") or {}
    out = []
    for m in a.moves:
        iv = ci.get(str(m.move))
        x = float(m.loss[a.to_move])
        out.append((float(iv[a.to_move][0]), float(iv[a.to_move][1])) if iv else (x, x))
    return out


def tied_by_pairs(moves: list[str], vs_best: dict) -> list[bool]:
    """Which moves (best first) are tied with the best one when the analysis gives, per
    move, the 95% interval of its loss minus the best move's over the same deals
    (``stats["vs_best_ci95"]``): True where that interval reaches 0.

    >>> tied_by_pairs(["a", "b", "c"], {"a": [0, 0], "b": [-0.01, 0.02], "c": [0.004, 0.03]})
    [False, True, False]
    """
    return [False] + [vs_best[m][0] <= 0.0 for m in moves[1:]]


def ties(a: Analysis) -> list[bool]:
    """Which moves of an analysis are tied with the best (``palace analyze``, the live hints
    and the review mark these): by the paired intervals of :func:`tied_by_pairs` where the
    search gives them, else :func:`tied_with_best`; a figure the search did not resolve is
    tied with nothing."""
    if a.moves and a.moves[0].resolved is False:
        return [False] * len(a.moves)
    pairs = a.stats.get("vs_best_ci95")
    tied = (tied_by_pairs([str(m.move) for m in a.moves], pairs) if pairs
            else tied_with_best(move_intervals(a)))
    return [t and m.resolved is not False for t, m in zip(tied, a.moves)]

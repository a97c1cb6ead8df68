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


@dataclass
class MoveValue:
    move: Move
    loss: list


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

    @property
    def best_move(self) -> Move | None:
        return self.moves[0].move if self.moves else None

    def to_json(self) -> dict:
        out = {"method": self.method, "to_move": self.to_move,
               "loss_probability": [float(x) for x in self.loss],
               "best_move": str(self.best_move) if self.moves else None,
               "moves": [{"move": str(m.move), "loss_probability": [float(x) for x in m.loss]}
                         for m in self.moves]}
        if self.ci95 is not None:
            out["ci95"] = [[float(a), float(b)] for a, b in self.ci95]
            out["samples"] = self.samples
        out["stats"] = self.stats
        return out


def rank_moves(mover: int, moves: list[MoveValue]) -> list[MoveValue]:
    """Best first for the mover: lowest own loss; ties keep the legal-move order."""
    return sorted(moves, key=lambda m: m.loss[mover])

"""Moves and their notation (POSITION.md).

| text        | move                                                      |
|-------------|-----------------------------------------------------------|
| ``7x2``     | play two 7s from the current source (``7 7`` also read)   |
| ``pickup``  | take the pile                                             |
| ``pickup 7``| face-up stage: put the face-up 7 on the pile, take the pile|
| ``flip``    | face-down stage: turn a face-down card over               |
| ``up A 10 2``| deal phase: lay these cards face up (swap / choose)      |
"""
from __future__ import annotations

from dataclasses import dataclass

from .cards import CardError, parse_rank, rank_name

PLAY, PICKUP, FLIP, LAYOUT = "play", "pickup", "flip", "up"


class InvalidMoveError(ValueError):
    """Text that is not a move in the notation."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the given position."""


@dataclass(frozen=True, order=True)
class Move:
    """One decision of a player. ``rank``/``count`` for plays; ``rank`` is the face-up
    card laid down for a face-up pickup; ``layout`` the face-up ranks chosen at the deal."""

    kind: str
    rank: int = 0
    count: int = 0
    layout: tuple = ()

    @staticmethod
    def play(rank: int, count: int = 1) -> "Move":
        return Move(PLAY, rank, count)

    @staticmethod
    def pickup(rank: int = 0) -> "Move":
        return Move(PICKUP, rank)

    @staticmethod
    def flip() -> "Move":
        return Move(FLIP)

    @staticmethod
    def up(ranks) -> "Move":
        return Move(LAYOUT, layout=tuple(sorted(ranks)))

    def __str__(self) -> str:
        if self.kind == PLAY:
            name = rank_name(self.rank)
            return name if self.count == 1 else f"{name}x{self.count}"
        if self.kind == PICKUP:
            return "pickup" if not self.rank else f"pickup {rank_name(self.rank)}"
        if self.kind == FLIP:
            return "flip"
        return "up " + " ".join(rank_name(r) for r in self.layout)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> "Move":
        """Read a move: ``Move.parse('7 7') == Move.play(7, 2)``.

        :raises InvalidMoveError: quoting the text when it is not a move.
        """
        words = str(text).strip().split()
        if not words:
            raise InvalidMoveError(f"invalid move {text!r}: empty")
        head = words[0].lower()
        try:
            if head == "pickup":
                if len(words) == 1:
                    return Move.pickup()
                if len(words) == 2:
                    return Move.pickup(parse_rank(words[1]))
            elif head == "flip" and len(words) == 1:
                return Move.flip()
            elif head == "up" and len(words) > 1:
                return Move.up(parse_rank(w) for w in words[1:])
            elif len(words) == 1:
                w = words[0]
                if "x" in w.lower() and not w.lower().startswith("x"):
                    name, _, n = w.lower().rpartition("x")
                    if not n.isdigit() or int(n) < 1:
                        raise InvalidMoveError(f"invalid move {text!r}: bad count {n!r}")
                    return Move.play(parse_rank(name), int(n))
                return Move.play(parse_rank(w), 1)
            else:
                ranks = [parse_rank(w) for w in words]
                if len(set(ranks)) == 1:
                    return Move.play(ranks[0], len(ranks))
                raise InvalidMoveError(f"invalid move {text!r}: cards of different ranks")
        except CardError as e:
            raise InvalidMoveError(f"invalid move {text!r}: {e}") from None
        raise InvalidMoveError(f"invalid move {text!r}")


def pickup_by_choice(move: Move, legal) -> bool:
    """Whether ``move`` takes the pile while ``legal`` (the position's legal moves) holds a
    play or a flip: a choice among pickups alone (which face-up card goes along) is forced.
    What the strength benchmark's draw counts and ``engine:nopick_below`` both read."""
    return move.kind == PICKUP and any(m.kind != PICKUP for m in legal)

"""Simple playing bots, for self-play, benchmarks and sanity checks of the solver.

A bot is an object with a ``name`` and a method ``choose(state, rng) -> Move`` called at a
decision node (deal-phase layout or play) of the player to move. ``rng`` is a
:class:`random.Random` owned by the game driver, so a game is deterministic given its seed.

Information: a bot may only use what its player could see at the table: the legal moves
(which follow from its own cards and the pile), its own hand and face-up cards
(``state.hands[p]``, ``state.face_up[p]``), everybody's face-up cards, the pile and the
burned cards, and the public counts (cards in hands, face-down cards, draw pile). None of the
bots here reads another player's hand or the unseen pool (``state.pool``): those hold the
face-down cards and the draw pile, which nobody at the table knows.

| name     | play                                                                   |
|----------|------------------------------------------------------------------------|
| random   | uniform over the legal moves                                           |
| lowest   | the lowest legal rank (2 lowest, 10 between 9 and J), every copy of it;|
|          | picks up only when it must; lays its highest cards face up             |
| greedy   | the lowest legal *normal* card, every copy; keeps 2s, 10s and the      |
|          | burning / transparent ranks of the variants for when it is stuck;      |
|          | lays those specials, then its highest cards, face up                   |
"""
from __future__ import annotations

import random

from ..game.cards import ORDERED_RANKS, TWO
from ..game.moves import LAYOUT, PICKUP, PLAY, Move
from ..game.rules import Rules
from ..game.state import State

__all__ = ["BOTS", "Bot", "GreedyBot", "LowestBot", "RandomBot", "make_bot"]


class Bot:
    """Base class: a named strategy. Subclasses implement :meth:`choose`."""

    name = "bot"

    def choose(self, state: State, rng: random.Random) -> Move:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _plays(moves):
    return [m for m in moves if m.kind == PLAY]


def _most_of(plays, rank):
    """The play of every copy of ``rank`` among ``plays``."""
    return max((m for m in plays if m.rank == rank), key=lambda m: m.count)


def _pickup_choice(moves, order):
    """A forced pickup: the plain one, or (face-up stage) laying the least valuable card."""
    pickups = [m for m in moves if m.kind == PICKUP]
    return min(pickups, key=lambda m: order(m.rank) if m.rank else -1)


def _layout_by(moves, value):
    """The layout whose face-up cards are worth most under ``value`` (sum, then the best)."""
    return max((m for m in moves if m.kind == LAYOUT),
               key=lambda m: (sorted((value(r) for r in m.layout), reverse=True),
                              [-r for r in m.layout]))


class RandomBot(Bot):
    """Uniform over the legal moves (including layouts and voluntary pickups)."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> Move:
        moves = state.legal_moves()
        return moves[rng.randrange(len(moves))]


def _plain_value(rank: int) -> int:
    """The printed value: 2 lowest, 10 between 9 and J, the joker above the ace."""
    return rank


class LowestBot(Bot):
    """Lowest card first: the lowest-ranked legal card by its printed value (2 < 3 < ... <
    10 < J < Q < K < A), every copy of it; picks up only when it has no play; lays its
    highest cards face up."""

    name = "lowest"

    def choose(self, state: State, rng: random.Random) -> Move:
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        if moves[0].kind == LAYOUT:
            return _layout_by(moves, _plain_value)
        plays = _plays(moves)
        if plays:
            low = min((m.rank for m in plays), key=_plain_value)
            return _most_of(plays, low)
        return _pickup_choice(moves, _plain_value)


class GreedyBot(Bot):
    """Saves its specials. Plays the lowest legal normal card (every copy); when none is
    legal, a special: a transparent card first (the pile keeps its rank), then a 2 (resets
    the pile), then a burning card (10, or A/K under ``aces_burn``/``kings_burn``), one card
    at a time. It takes the pile only when it has no legal play at all. At the deal it lays
    its specials, then its highest cards, face up (so the hand stays low and cheap)."""

    name = "greedy"

    @staticmethod
    def special(rules: Rules, rank: int) -> bool:
        """2, 10 and the ranks that burn or are transparent under ``rules``."""
        return rank in (TWO, 10) or rules.burns(rank) or rules.transparent(rank)

    @staticmethod
    def _special_order(rules: Rules, rank: int) -> int:
        """Which special to spend first: transparent, then 2, then burners."""
        if rules.transparent(rank):
            return 0
        if rank == TWO:
            return 1
        return 2

    def value(self, rules: Rules, rank: int) -> int:
        """Keeping value of a card: normal ranks by their order, specials above the ace."""
        if self.special(rules, rank):
            return 100 - self._special_order(rules, rank)
        return ORDERED_RANKS.index(rank) if rank in ORDERED_RANKS else 50

    def choose(self, state: State, rng: random.Random) -> Move:
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        rules = state.rules
        if moves[0].kind == LAYOUT:
            return _layout_by(moves, lambda r: self.value(rules, r))
        plays = _plays(moves)
        normal = [m for m in plays if not self.special(rules, m.rank)]
        if normal:
            low = min((m.rank for m in normal), key=lambda r: self.value(rules, r))
            return _most_of(normal, low)
        if plays:
            r = min((m.rank for m in plays), key=lambda r: self._special_order(rules, r))
            return Move.play(r, 1)
        return _pickup_choice(moves, lambda r: self.value(rules, r))


#: Bot classes by the name used on the command line.
BOTS = {"random": RandomBot, "lowest": LowestBot, "greedy": GreedyBot}


def make_bot(name: str) -> Bot:
    """A new bot by name: ``make_bot('greedy')``.

    :raises ValueError: for an unknown name, listing the known ones.
    """
    try:
        return BOTS[name.strip().lower()]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None

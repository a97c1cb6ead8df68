"""Determinization: deal the hidden hand cards of a position, consistently with what the
analyzing player knows.

What is sampled. A :class:`~palace_solver.game.position.Position` counts its hidden cards: the
unseen pool (the deck minus every known card) is split among the unknown hand cards of the
players, the face-down cards and the draw pile. The reference engine keeps face-down cards
and the draw pile in an unseen pool and draws from it at reveal time (game/state.py), so only the
unknown *hand* cards need a deal: :func:`sample_state` deals them, every known card stays
where it is, and the rest of the unseen cards become the State's pool.

Distribution. Every physical card of the unseen pool is equally likely to sit in any hidden
slot (RULES.md: "all equally likely given what is known"). Suits never matter, so a deal is
reported as rank counts per hand, and its probability is the multivariate hypergeometric
``prod_r C(unseen_r; k_1r, k_2r, ..., rest_r) / C(U; k_1, k_2, ..., rest)``: the chance
that a uniform shuffle of the U unseen physical cards puts those ranks in those hands.
:func:`consistent_deals` lists every deal with that exact probability (for tests and tiny
positions); :func:`sample_state` draws one by shuffling the unseen cards (a seeded
:class:`random.Random`), so it never deals a card twice or contradicts a known one.

Seeds. :func:`sample_rng` gives sample ``i`` of a run seeded with ``seed`` its own generator,
so an analysis does not depend on the order or the number of processes computing it.
"""
from __future__ import annotations

import random
from fractions import Fraction
from math import comb

from ..game.cards import NRANK, RANKS
from ..game.position import PlayerPosition, Position
from ..game.state import State

__all__ = ["consistent_deals", "deal_probability", "hidden_slots", "sample_deal",
           "sample_rng", "sample_state", "state_with_hands"]


def sample_rng(seed: int, i: int) -> random.Random:
    """The generator of sample ``i`` in a run seeded with ``seed`` (string-seeded, so it is
    the same on every platform and in every process)."""
    return random.Random(f"palace-sample-{seed}-{i}")


def hidden_slots(pos: Position) -> list[int]:
    """Unknown hand cards per player (the slots a determinization fills)."""
    return [p.hand_unknown for p in pos.players]


def _unseen_list(pos: Position) -> list[int]:
    unseen = pos.unseen_counts()
    return [r for r in RANKS for _ in range(unseen[r])]


def sample_deal(pos: Position, rng: random.Random) -> list[list[int]]:
    """Ranks dealt to each player's unknown hand cards (one list per player, sorted)."""
    cards = _unseen_list(pos)
    rng.shuffle(cards)
    out, i = [], 0
    for k in hidden_slots(pos):
        out.append(sorted(cards[i:i + k]))
        i += k
    return out


def state_with_hands(pos: Position, deal: list[list[int]]) -> State:
    """The State of ``pos`` with ``deal[p]`` added to player ``p``'s known hand cards."""
    players = [PlayerPosition(p.name, list(p.hand_known) + list(d), p.hand_count,
                              list(p.face_up), p.face_down)
               for p, d in zip(pos.players, deal)]
    full = Position(rules=pos.rules, players=players, pile=list(pos.pile),
                    burned=list(pos.burned), draw_pile=pos.draw_pile, to_move=pos.to_move,
                    perspective=pos.perspective, direction=pos.direction,
                    last_player=pos.last_player)
    return full.to_state()


def sample_state(pos: Position, rng: random.Random | int = 0) -> State:
    """One determinization of ``pos``: a PLAY-phase State with every hand known.

    ``rng`` is a :class:`random.Random` or a seed. The unknown hand cards are dealt from the
    unseen pool uniformly (module doc); known cards are kept; face-down cards and the draw
    pile stay in the State's pool.

    >>> from palace_solver.game.position import from_text
    >>> pos = from_text("me: 3 / - / 0 ; bob: ?2 / - / 0 | burned 2 2 2 2 3 3 3 4 4 4 4 "
    ...     "5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q K K K K A A"
    ...     " | to_move 0")
    >>> s = sample_state(pos, 1)
    >>> s.hands[1][14], s.pool[14]
    (2, 0)
    """
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    return state_with_hands(pos, sample_deal(pos, rng))


def _multinomial(total: int, parts) -> int:
    out, left = 1, total
    for k in parts:
        out *= comb(left, k)
        left -= k
    return out


def deal_probability(pos: Position, deal: list[list[int]]) -> Fraction:
    """The exact probability of a deal (rank lists per player) under the uniform shuffle."""
    unseen = pos.unseen_counts()
    slots = hidden_slots(pos)
    total = sum(unseen)
    counts = [[0] * NRANK for _ in deal]
    for p, d in enumerate(deal):
        if len(d) != slots[p]:
            return Fraction(0)
        for r in d:
            counts[p][r] += 1
    num = 1
    for r in RANKS:
        used = [c[r] for c in counts]
        if sum(used) > unseen[r]:
            return Fraction(0)
        num *= _multinomial(unseen[r], used)
    return Fraction(num, _multinomial(total, slots))


def consistent_deals(pos: Position) -> list[tuple[list[list[int]], Fraction]]:
    """Every deal of the unknown hand cards with its exact probability (they sum to 1).

    Exponential in the hidden hand cards: for tests and tiny positions.
    """
    unseen = pos.unseen_counts()
    slots = hidden_slots(pos)
    ranks = [r for r in RANKS if unseen[r]]
    out: list = []

    def hands(k, left, i):
        """Multisets of ``k`` ranks from ``ranks[i:]`` within ``left`` counts."""
        if k == 0:
            yield []
            return
        if i == len(ranks):
            return
        r = ranks[i]
        for c in range(min(k, left[r]), -1, -1):
            left[r] -= c
            for rest in hands(k - c, left, i + 1):
                yield [r] * c + rest
            left[r] += c

    def rec(p, left, acc):
        if p == len(slots):
            deal = [list(h) for h in acc]
            out.append((deal, deal_probability(pos, deal)))
            return
        for h in list(hands(slots[p], list(left), 0)):
            for r in h:
                left[r] -= 1
            rec(p + 1, left, acc + [h])
            for r in h:
                left[r] += 1

    rec(0, list(unseen), [])
    return out

"""Ranks and their notation.

A card is only its rank: suits never matter in Palace. Ranks are small ints so that
counts per rank fit in plain lists indexed by rank (index 0 and 1 unused).
"""
from __future__ import annotations

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN = 2, 3, 4, 5, 6, 7, 8, 9, 10
JACK, QUEEN, KING, ACE, JOKER = 11, 12, 13, 14, 15

#: Every rank, in the order used for counts and for display.
RANKS = (TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE, JOKER)
#: The ranks of a standard deck (no joker).
DECK_RANKS = RANKS[:-1]
#: Ranks that follow the "equal or higher" order; 2, 10 and the joker stand outside it.
ORDERED_RANKS = (THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, JACK, QUEEN, KING, ACE)
#: Length of a counts list indexed by rank.
NRANK = 16

_NAMES = {TWO: "2", THREE: "3", FOUR: "4", FIVE: "5", SIX: "6", SEVEN: "7", EIGHT: "8",
          NINE: "9", TEN: "10", JACK: "J", QUEEN: "Q", KING: "K", ACE: "A", JOKER: "JK"}
_PARSE = {v: k for k, v in _NAMES.items()}
_PARSE.update({"T": TEN, "JOKER": JOKER, "X": JOKER})
_SUITS = "SHDC"


class CardError(ValueError):
    """A card that is not one of 2..10, J, Q, K, A (or JK for a joker)."""


def rank_name(rank: int) -> str:
    """Canonical text of a rank: ``rank_name(10) == '10'``."""
    return _NAMES[rank]


def parse_rank(text: str) -> int:
    """Parse a card such as ``'7'``, ``'T'``, ``'10s'``, ``'qd'`` or ``'JK'``.

    >>> parse_rank('Qd'), parse_rank('t'), parse_rank('10H')
    (12, 10, 10)

    :raises CardError: for anything else.
    """
    t = str(text).strip().upper()
    if t in _PARSE:
        return _PARSE[t]
    if len(t) >= 2 and t[-1] in _SUITS and t[:-1] in _PARSE and _PARSE[t[:-1]] != JOKER:
        return _PARSE[t[:-1]]
    raise CardError(f"unknown rank {text!r}")


def counts_of(ranks) -> list[int]:
    """Counts per rank of an iterable of ranks."""
    c = [0] * NRANK
    for r in ranks:
        c[r] += 1
    return c


def ranks_of(counts) -> list[int]:
    """The ranks of a counts list, lowest first (2 and 10 in rank-value order)."""
    return [r for r in RANKS for _ in range(counts[r])]


def names(ranks) -> list[str]:
    return [rank_name(r) for r in ranks]

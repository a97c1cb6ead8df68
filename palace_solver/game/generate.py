"""Random small exact-mode positions: every hand known, no draw pile, the rest burned.

For checking the solvers against each other (the tests) and for measuring them on positions
of a chosen size (the benchmarks). Seeded by the caller's :class:`random.Random`, so a
seed names a position.
"""
from __future__ import annotations

import random

from .cards import DECK_RANKS, NRANK
from .rules import Rules
from .state import State

__all__ = ["PLAY_VARIANTS", "random_exact_state", "random_rules"]

#: Variants that matter after the deal and that the generator can seat (no jokers: 6 players).
PLAY_VARIANTS = ("must_play", "easy_table_pickup", "no_four_burn", "restricted_tens",
                 "aces_burn", "kings_burn", "seven_low", "five_low", "invisible_8",
                 "invisible_3", "eight_reverses", "eight_skips", "jack_reverses",
                 "back_to_last_player", "first_out_wins", "lenient_blind")


def random_exact_state(rng: random.Random, n: int = 2, rules: Rules | None = None,
                       hand=(0, 2), face_up=(0, 2), face_down=(0, 2), pile=(0, 3)) -> State:
    """A random PLAY-phase decision node with every hand known and no draw pile.

    Cards not dealt to a zone are burned, except the face-down ones which stay unseen.
    """
    rules = rules or Rules()
    s = State(rules, n)
    deck = [r for r in DECK_RANKS for _ in range(s.pool[r])]
    rng.shuffle(deck)
    for p in range(n):
        while True:
            h, u, d = (rng.randint(*hand), rng.randint(*face_up), rng.randint(*face_down))
            if h + u + d:
                break
        for _ in range(h):
            s.hands[p][deck.pop()] += 1
        for _ in range(u):
            s.face_up[p][deck.pop()] += 1
        s.face_down[p] = d
    k = rng.randint(*pile)
    while len(s.pile) < k and deck:
        r = deck.pop()
        top4 = len(s.pile) >= 3 and s.pile[-1] == s.pile[-2] == s.pile[-3] == r
        if rules.burns(r) or (top4 and not rules.no_four_burn):
            deck.insert(0, r)
            continue
        s.pile.append(r)
    unseen = sum(s.face_down)
    pool = [0] * NRANK
    for r in deck[:unseen]:
        pool[r] += 1
    for r in deck[unseen:]:
        s.burned[r] += 1
    s.pool = pool
    s.to_move = rng.randrange(n)
    s.check_cards()
    return s


def random_rules(rng: random.Random, k: int = 2) -> Rules:
    """The standard rules with 0 to ``k`` of :data:`PLAY_VARIANTS` switched on, at random."""
    return Rules.with_variants(rng.sample(PLAY_VARIANTS, rng.randint(0, k)))

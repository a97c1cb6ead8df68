"""The sampler deals hidden hand cards uniformly among the consistent deals, never deals a
card twice and never contradicts a known card."""
from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from palace_solver.agents.play import _sample
from palace_solver.game.position import PlayerPosition, Position, from_text
from palace_solver.game.rules import Rules
from palace_solver.game.state import PLAY_PHASE, State
from palace_solver.sample.policies import GreedyBot
from palace_solver.sample.sampler import (
    consistent_deals,
    deal_probability,
    sample_deal,
    sample_rng,
    sample_state,
)

#: Cards burned so that the unseen pool of TINY is 3 A, 2 K, 1 J.
_BURNED = ("2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 8 9 9 9 9 10 10 10 10 "
           "J J J Q Q Q")
#: Bob holds 2 unknown cards and 1 known; Carol 1 unknown; 3 face-down cards.
TINY = from_text(f"me: K K / A / 2 ; bob: Q ?2 / - / 0 ; carol: ?1 / - / 1 | burned {_BURNED}"
                 " | to_move 0")


def random_position(rng: random.Random, n: int = 2, hide: float = 0.5) -> Position:
    """A position from a greedy game stopped at a random play-phase decision, with each
    hand card of the players other than the one to move hidden with probability ``hide``."""
    while True:
        s = State.new_game(Rules(), n)
        stop = rng.randrange(1, 60)
        k = 0
        while not s.is_terminal():
            if s.is_chance():
                s.apply(_sample(s, rng))
                continue
            if s.phase == PLAY_PHASE:
                k += 1
                if k == stop:
                    break
            s.apply(GreedyBot().choose(s, rng))
        if s.is_terminal() or any(s.out):
            continue
        pos = Position.from_state(s)
        for i, p in enumerate(pos.players):
            if i != pos.to_move:
                p.hand_known = [r for r in p.hand_known if rng.random() >= hide]
        return pos.validate()


def test_probabilities_sum_to_one():
    deals = consistent_deals(TINY)
    assert sum(p for _, p in deals) == 1
    # bob: 2 of the 6 unseen {A A A K K J}, then carol 1 of the other 4.
    assert deal_probability(TINY, [[], [14, 14], [13]]) == Fraction(3, 15) * Fraction(2, 4)
    assert deal_probability(TINY, [[], [11, 11], [13]]) == 0
    assert len(deals) == 12          # bob JK JA KK KA AA, then carol 2+2+2+3+3
    assert all(p > 0 for _, p in deals)


def test_sampler_is_uniform_chi_square():
    """4000 samples against the exact deal probabilities (multivariate hypergeometric)."""
    deals = consistent_deals(TINY)
    index = {tuple(map(tuple, d)): j for j, (d, _) in enumerate(deals)}
    observed = [0] * len(deals)
    n = 4000
    for i in range(n):
        observed[index[tuple(map(tuple, sample_deal(TINY, sample_rng(7, i))))]] += 1
    expected = [float(p) * n for _, p in deals]
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    df = len(deals) - 1
    try:
        from scipy.stats import chi2 as dist
        assert dist.sf(chi2, df) > 0.001, (chi2, df)
    except ImportError:  # pragma: no cover - tabulated 99.9% points
        crit = {10: 29.59, 11: 31.26, 12: 32.91, 13: 34.53, 14: 36.12, 15: 37.70, 16: 39.25,
                17: 40.79, 18: 42.31, 19: 43.82}
        assert chi2 < crit[df], (chi2, df)


def test_seeded_reproducible():
    a = sample_state(TINY, random.Random(3))
    b = sample_state(TINY, random.Random(3))
    assert a.key() == b.key()


def test_fully_known_position_is_unchanged():
    pos = from_text("3 7 7 / A 10 / 3 ; K K / 2 / 3 | pile 5 6 6 | burned 10 4 4 4 4 "
                    "| draw 30 | to_move 0")
    assert sample_state(pos, 1).key() == pos.to_state().key()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 4), st.floats(0, 1), st.integers(0, 10 ** 6))
def test_never_deals_twice_or_contradicts(game_seed, n, hide, seed):
    pos = random_position(random.Random(game_seed), n, hide)
    s = sample_state(pos, seed)
    s.check_cards()                                     # every card exactly once
    unseen = pos.unseen_counts()
    for i, p in enumerate(pos.players):
        assert sum(s.hands[i]) == p.hand_count
        for r in set(p.hand_known):                     # known cards kept
            assert s.hands[i][r] >= p.hand_known.count(r)
        assert sorted(r for r in range(16) for _ in range(s.face_up[i][r])) == sorted(p.face_up)
        assert s.face_down[i] == p.face_down
    dealt = [sum(s.hands[i][r] for i in range(n)) - sum(p.hand_known.count(r)
                                                        for p in pos.players)
             for r in range(16)]
    for r in range(16):                                 # dealt from the unseen pool only
        assert 0 <= dealt[r] <= unseen[r]
        assert s.pool[r] == unseen[r] - dealt[r]
    assert s.draw_pile == pos.draw_pile and s.to_move == pos.to_move


def test_only_unknown_slots_are_filled():
    pos = Position(Rules(), [PlayerPosition(None, [3], 1, [], 0),
                             PlayerPosition(None, [], 0, [], 2)], to_move=0)
    pos.burned = [r for r in range(2, 15) for _ in range(4)]
    pos.burned.remove(3)
    pos.burned.remove(4)
    pos.burned.remove(5)
    pos.validate()
    s = sample_state(pos, 0)
    assert s.hands[0][3] == 1 and sum(s.hands[1]) == 0 and sum(s.pool) == 2

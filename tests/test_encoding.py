"""Packed position identity of the compiled engine (layout in ext/core.pxi).

- encode/decode round trip (CState -> words -> CState, CState -> State -> CState);
- packed words are equal iff State.key() is equal;
- no two positions with different State.key() share a 64-bit key, over >= 100k distinct
  positions from random playouts under the standard rules and every variant.
"""
from __future__ import annotations

import random

import pytest

from palace_solver.game.rules import VARIANTS, Rules
from palace_solver.game.state import OVER, PLAY_PHASE, State

_engine = pytest.importorskip("palace_solver._engine")
CState = _engine.CState

SAMPLE = 100_000


def _dealt(rules, n, rng):
    s = State.new_game(rules, n)
    while s.phase not in (PLAY_PHASE, OVER):
        if s.is_chance():
            outs = s.chance_outcomes()
            s.apply(rng.choices([r for r, _ in outs], weights=[p for _, p in outs])[0])
        else:
            s.apply(rng.choice(s.legal_moves()))
    return CState.from_state(s)


def _playout(c, rng, limit=400):
    """Yield the states of a random game in the compiled engine."""
    yield c
    for _ in range(limit):
        if c.is_terminal():
            return
        c = c.clone()
        if c.is_chance():
            outs = c.chance_outcomes()
            c.apply(rng.choices([r for r, _ in outs], weights=[p for _, p in outs])[0])
        else:
            c.apply(rng.choice(c.legal_moves()))
        yield c


def _positions(target):
    """(group, CState) pairs from random games, about `target` of them, over all rule sets."""
    rng = random.Random(20240607)
    configs = [Rules()] + [Rules.with_variants([v]) for v in VARIANTS] + [
        Rules.with_variants(["lenient_blind", "invisible_8", "eight_reverses", "jack_reverses"]),
        Rules.with_variants(["back_to_last_player", "seven_low", "five_low", "must_play"]),
    ]
    made = 0
    while made < target:
        for rules in configs:
            n = rng.choice(rules.player_counts())
            for c in _playout(_dealt(rules, n, rng), rng):
                yield (str(rules), n), c
                made += 1


@pytest.fixture(scope="module")
def sample():
    return list(_positions(int(SAMPLE * 1.25)))


def test_packed_equal_iff_key_equal_and_no_64bit_collision(sample):
    by_packed = {}
    by_key = {}
    by_hash = {}
    distinct = 0
    for group, c in sample:
        key = (group, c.to_state().key())
        packed = (group, c.packed())
        h = (group, c.key())
        if key not in by_key:
            distinct += 1
            by_key[key] = packed
        assert by_key[key] == packed, "equal State.key(), different packed words"
        assert by_packed.setdefault(packed, key) == key, "equal packed words, different keys"
        assert by_hash.setdefault(h, key) == key, f"64-bit key collision in {group}"
    assert distinct >= SAMPLE, distinct


def test_round_trips(sample):
    for i, (group, c) in enumerate(sample[::7]):
        data = c.packed()
        back = CState.from_packed(c, data)
        assert back.packed() == data
        assert back.key() == c.key()
        st = c.to_state()
        st.check_cards()
        assert back.to_state().key() == st.key()
        again = CState.from_state(st)
        assert again.packed() == data
        assert again.legal_moves() == c.legal_moves()
        assert again.chance_outcomes() == c.chance_outcomes()
        assert back.legal_moves() == c.legal_moves()
        assert back.current_player() == c.current_player()
        if c.is_terminal():
            assert back.result() == c.result()


def test_pile_rebuilt_with_same_top_facts():
    """Without lenient_blind the pile order is not stored; to_state rebuilds one with the same
    multiset, top rank, top run (capped at 3) and rank to beat."""
    rules = Rules.with_variants(["invisible_8", "invisible_3", "no_four_burn"])
    s = State(rules, 2)
    s.hands = [[0] * 16 for _ in range(2)]
    s.hands[0][9] = 1
    s.hands[1][4] = 1
    s.pool = [0] * 16
    s.pile = [5, 9, 6, 6, 6, 6, 6, 8, 3, 8, 8]
    c = CState.from_state(s)
    back = c.to_state()
    assert back.pile_key() == s.pile_key()
    assert back.effective_top() == 6
    assert back.pile[-2:] == [8, 8] and back.pile[-3] != 8


def test_word_counts_documented():
    """pack_nwords: 6 words for two players under the standard rules (362 bits)."""
    rng = random.Random(1)
    assert _dealt(Rules(), 2, rng).nwords() == 6
    assert _dealt(Rules(), 4, rng).nwords() == 10  # 587 bits
    assert _dealt(Rules.with_variants(["lenient_blind"]), 2, rng).nwords() == 12  # 739 bits
    assert _dealt(Rules.with_variants(["jokers"]), 6, rng).nwords() == 14  # 867 bits


def test_fields_outside_key_do_not_change_the_packing():
    """direction with two players, last_player without back_to_last_player, out_order."""
    rng = random.Random(2)
    c = _dealt(Rules(), 2, rng)
    s = c.to_state()
    s2 = s.clone()
    s2.direction = -s.direction
    s2.last_player = 1 if s.last_player != 1 else 0
    assert s.key() == s2.key()
    assert CState.from_state(s2).packed() == c.packed()

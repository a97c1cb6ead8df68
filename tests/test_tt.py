"""Transposition table of ext/tt.pxi: store/probe, full-key verification, replacement rule,
counters."""
from __future__ import annotations

import random
import struct

import pytest

from palace_solver.game.moves import Move
from palace_solver.game.rules import Rules
from palace_solver.game.state import OVER, PLAY_PHASE, State

_engine = pytest.importorskip("palace_solver._engine")
CState = _engine.CState
TT = _engine.TranspositionTable
EXACT, LOWER, UPPER = _engine.TT_BOUND_EXACT, _engine.TT_BOUND_LOWER, _engine.TT_BOUND_UPPER


def word(i: int) -> bytes:
    return struct.pack("<Q", i)


def some_states(k: int, seed: int = 0):
    rng = random.Random(seed)
    s = State.new_game(Rules(), 2)
    out = []
    while len(out) < k:
        if s.is_terminal():
            s = State.new_game(Rules(), 2)
        if s.is_chance():
            outs = s.chance_outcomes()
            s.apply(rng.choices([r for r, _ in outs], weights=[p for _, p in outs])[0])
        else:
            s.apply(rng.choice(s.legal_moves()))
        if s.phase in (PLAY_PHASE, OVER):
            out.append(CState.from_state(s))
    return out


def test_store_probe_round_trip():
    a, b = some_states(2)
    t = TT(1.0, a.nwords())
    assert t.probe(a) is None
    assert t.store(a, [0.25, 0.75], depth=5, bound=EXACT, best=Move.play(7, 2))
    values, depth, bound, best = t.probe(a)
    assert values[:2] == [0.25, 0.75] and values[2:] == [0.0] * 4
    assert (depth, bound, best) == (5, EXACT, Move.play(7, 2))
    assert t.probe(b) is None
    t.store(b, [1.0, 0.0], depth=2, bound=LOWER)
    assert t.probe(b)[3] is None
    assert t.probe(a.clone()) is not None, "a clone is the same position"
    s = t.stats()
    assert (s["stores"], s["hits"], s["probes"], s["occupied"]) == (2, 3, 5, 2)


def test_the_table_is_the_largest_power_of_two_buckets_within_its_size():
    for mb, nwords in ((1.0, 6), (1.0, 1), (4.0, 3), (0.3, 2)):
        t = TT(mb, nwords)
        nb = t.nbuckets
        assert nb & (nb - 1) == 0 and t.capacity % nb == 0
        # within the size asked, and no room for twice the buckets
        assert t.bytes <= mb * 2**20 < 2 * t.bytes, (mb, nwords)
    # wider keys take more room a slot
    wide, narrow = TT(1.0, 6), TT(1.0, 1)
    assert wide.bytes / wide.capacity > narrow.bytes / narrow.capacity
    assert TT(0.0, 6).nbuckets == 1


def test_full_key_verification_rejects_a_colliding_hash():
    """Two positions forced onto the same 64-bit hash: the words tell them apart."""
    a, b = some_states(2, seed=3)
    assert a.packed() != b.packed()
    t = TT(1.0, a.nwords())
    h = 0x1234_5678_9ABC_DEF0
    t.store(a.packed(), [0.5, 0.5], 3, EXACT, key=h)
    assert t.probe(b.packed(), key=h) is None
    assert t.stats()["collisions"] == 1
    assert t.probe(a.packed(), key=h)[1] == 3
    # Storing b under the same hash takes another slot; both stay readable.
    t.store(b.packed(), [0.0, 1.0], 4, EXACT, key=h)
    assert t.probe(a.packed(), key=h)[0][:2] == [0.5, 0.5]
    assert t.probe(b.packed(), key=h)[0][:2] == [0.0, 1.0]
    assert t.stats()["occupied"] == 2


def test_replacement_prefers_depth_then_age():
    t = TT(0.0, 1)  # one bucket of 4 slots: every key lands in it
    assert t.capacity == 4
    for i, d in enumerate((5, 1, 7, 3)):
        t.store(word(i), [0.1 * i], d, EXACT)
    assert t.stats()["replacements"] == 0 and t.stats()["occupied"] == 4
    t.store(word(10), [1.0], 4, EXACT)            # evicts the shallowest (depth 1)
    assert t.probe(word(1)) is None
    assert all(t.probe(word(i)) is not None for i in (0, 2, 3, 10))
    assert t.stats()["replacements"] == 1
    # Two searches later every old entry is worth depth - 16: a new shallow entry evicts the
    # oldest-lowest one (depth 3, now -13) rather than a fresh one.
    t.new_search()
    t.new_search()
    t.store(word(11), [1.0], 0, EXACT)
    assert t.probe(word(3)) is None
    t.store(word(12), [1.0], 0, EXACT)            # next: depth 4 -> -12
    assert t.probe(word(10)) is None
    assert t.probe(word(11)) is not None
    assert t.stats()["occupied"] == 4


def test_same_position_keeps_the_deeper_current_entry():
    t = TT(0.0, 1)
    t.store(word(1), [0.3], 6, LOWER)
    assert not t.store(word(1), [0.9], 2, UPPER)  # shallower, same search: kept
    assert t.probe(word(1))[1:3] == (6, LOWER)
    assert t.store(word(1), [0.4], 2, EXACT)      # an exact result always replaces
    assert t.probe(word(1))[1:3] == (2, EXACT)
    t.store(word(1), [0.5], 9, LOWER)
    t.new_search()
    assert t.store(word(1), [0.6], 1, UPPER)      # an older search's entry gives way
    assert t.probe(word(1))[1:3] == (1, UPPER)
    assert t.stats()["occupied"] == 1 and t.stats()["replacements"] == 0


def test_counters_and_clear():
    states = some_states(300, seed=5)
    t = TT(4.0, states[0].nwords())
    distinct = {c.packed() for c in states}
    for c in states:
        if t.probe(c) is None:
            t.store(c, [0.5, 0.5], 1, EXACT)
    s = t.stats()
    assert s["probes"] == 300
    assert s["hits"] == 300 - len(distinct)
    assert s["stores"] == len(distinct) == s["occupied"]
    assert s["collisions"] == 0
    assert s["occupancy"] == pytest.approx(len(distinct) / t.capacity)
    t.clear()
    s = t.stats()
    assert all(s[k] == 0 for k in ("probes", "hits", "stores", "occupied", "replacements"))
    assert t.probe(states[0]) is None


def test_bad_keys_rejected():
    t = TT(0.0, 2)
    with pytest.raises(ValueError):
        t.probe(word(1))          # one word in a two-word table
    with pytest.raises(ValueError):
        t.store(word(1) * 2, [0.0] * 7, 1)
    with pytest.raises(ValueError):
        t.probe(b"123")

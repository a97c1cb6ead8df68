"""The learned evaluation: compiled features equal the numpy mirror, seat relabelling moves
nothing but the seat order, the compiled network equals numpy's, the mode switch."""
from __future__ import annotations

import random

import numpy as np
import pytest
from evalmode import cardcount_eval, eval_mode, loaded_weights
from hypothesis import given, settings
from hypothesis import strategies as st

from palace_solver import _engine
from palace_solver.game.rules import Rules
from palace_solver.game.state import PLAY_PHASE, State
from palace_solver.learn import features
from palace_solver.learn.model import cardcount_probs, load_weights, probs
from palace_solver.learn.selfplay import VARIANT_SAMPLE
from palace_solver.sample.policies import GreedyBot

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def _game_states(seed: int, limit: int = 400):
    """States along one game (greedy and random moves mixed), 2-5 players, some variants:
    decision nodes and pending draws and flips of the play phase."""
    rng = random.Random(seed)
    n = rng.randint(2, 5)
    rules = Rules()
    if rng.random() < 0.6:
        cand = Rules.with_variants(rng.sample(VARIANT_SAMPLE, rng.randint(1, 3)))
        if n in cand.player_counts(n):
            rules = cand
    s = State.new_game(rules, n)
    greedy = GreedyBot()
    for _ in range(limit):
        if s.is_terminal():
            return
        if s.phase == PLAY_PHASE and (s.to_move >= 0 or s.pending[0] in ("draw", "flip")):
            yield s
        if s.is_chance():
            outs = s.chance_outcomes()
            s.apply(rng.choices([r for r, _ in outs], [float(p) for _, p in outs])[0])
        elif rng.random() < 0.4:
            moves = s.legal_moves()
            s.apply(moves[rng.randrange(len(moves))])
        else:
            s.apply(greedy.choose(s, rng))


def _compiled_states(seed: int, limit: int = 300):
    """States reached by the compiled engine itself (random moves), as CStates."""
    rng = random.Random(seed)
    for s in _game_states(seed, 60):
        if s.to_move >= 0:
            break
    else:
        return
    c = _engine.CState.from_state(s)
    for _ in range(limit):
        if c.is_terminal():
            return
        if c.is_chance():
            outs = c.chance_outcomes()
            c.apply(rng.choices([r for r, _ in outs], [float(p) for _, p in outs])[0])
        else:
            yield c
            moves = c.legal_moves()
            c.apply(moves[rng.randrange(len(moves))])


def _assert_same_features(c, s) -> None:
    order, got = _engine.eval_features(c)
    order2, want = features.state_rows(s)
    assert order == order2, s.describe()
    np.testing.assert_array_equal(np.array(got, dtype=np.float32), want, err_msg=s.describe())
    order3, pb, pub = _engine.eval_blocks(c)
    o4, pb2, pub2 = features.blocks(s)
    assert order3 == o4
    np.testing.assert_array_equal(np.frombuffer(pb, np.uint8).reshape(-1, features.PB), pb2)
    np.testing.assert_array_equal(np.frombuffer(pub, np.uint8), pub2)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_features_equal_the_mirror_on_python_states(seed):
    for s in _game_states(seed):
        _assert_same_features(_engine.CState.from_state(s), s)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_features_equal_the_mirror_on_compiled_states(seed):
    for c in _compiled_states(seed):
        _assert_same_features(c, c.to_state())


def test_feature_layout_by_hand():
    from stateutil import build
    s = build(hands=[["3", "7", "7"], ["K", "2"], ["10"]], face_up=[["A"], [], ["4"]],
              face_down=[3, 0, 1], pile=["5", "6", "6"], to_move=1)
    order, pb, pub = features.blocks(s)
    assert order == [1, 2, 0]
    own = pb[0]
    assert own[13 - 2] == 1 and own[2 - 2] == 1           # K and 2 in hand
    assert own[28] == 0 and own[29] == 2 and own[31] == 2
    assert (own[32], own[33], own[34]) == (1, 0, 0)
    assert own[35] == 2                                   # K and 2 are legal on a 6
    assert own[36] == 1                                   # one special (the 2)
    assert pb[2][35] == 2 and pb[2][36] == 0              # player 0: the 7s, not the 3
    assert pub[6 - 2] == 2 and pub[14] == 3 and pub[45] == 2
    assert pub[15 + 6 - 1] == 1 and pub[30 + 6 - 1] == 1  # top and rank to beat: 6
    assert pub[62 + 1] == 1 and pub[67] == 3
    x = features.rows(pb, pub)
    np.testing.assert_array_equal(x[0, features.PB:2 * features.PB], pb[1])   # next
    np.testing.assert_array_equal(x[0, 2 * features.PB:3 * features.PB], pb[1] + pb[2])
    assert x[2, 3 * features.PB + 2] == 1                 # player 0 sits at place 2


# -- seats ---------------------------------------------------------------------------------

def _relabel(s: State, sigma, flip_direction: bool) -> State:
    """The same game with player p renamed sigma[p] (and the direction reversed)."""
    t = s.clone()
    inv = {sigma[p]: p for p in range(s.n)}
    t.hands = [s.hands[inv[q]][:] for q in range(s.n)]
    t.face_up = [s.face_up[inv[q]][:] for q in range(s.n)]
    t.face_down = [s.face_down[inv[q]] for q in range(s.n)]
    t.out = [s.out[inv[q]] for q in range(s.n)]
    t.out_order = [sigma[p] for p in s.out_order]
    if s.to_move >= 0:
        t.to_move = sigma[s.to_move]
    t.next_after = sigma[s.next_after]
    if s.last_player is not None:
        t.last_player = sigma[s.last_player]
    if s.pending is not None:
        t.pending = (s.pending[0], sigma[s.pending[1]], s.pending[2])
    if flip_direction:
        t.direction = -s.direction
    return t


def _symmetries(n: int, rng: random.Random):
    """Relabellings that keep the game: rotations, and reflections with the direction
    reversed (with 2 or 3 players these include every swap of two seats)."""
    k = rng.randrange(n)
    yield [(p + k) % n for p in range(n)], False
    yield [(k - p) % n for p in range(n)], n > 2


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_features_follow_the_players_when_seats_are_relabelled(seed):
    rng = random.Random(seed)
    for s in _game_states(seed, 200):
        if rng.random() > 0.2:
            continue
        c = _engine.CState.from_state(s)
        order, rows = _engine.eval_features(c)
        for sigma, flip in _symmetries(s.n, rng):
            t = _relabel(s, sigma, flip)
            ct = _engine.CState.from_state(t)
            order_t, rows_t = _engine.eval_features(ct)
            assert order_t == [sigma[p] for p in order]
            assert rows_t == rows
            with eval_mode("learned"):
                v, vt = _engine.eval_position(c), _engine.eval_position(ct)
            assert [vt[sigma[p]] for p in range(s.n)] == v


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_swapping_any_two_seats_keeps_every_players_block(seed):
    """Any swap of two seats (with 4 or more players it changes who follows whom): each
    player's own block follows the player, the public block stays, and the rows are those
    of the new order of play."""
    rng = random.Random(seed)
    for s in _game_states(seed, 200):
        if rng.random() > 0.2:
            continue
        i, j = rng.sample(range(s.n), 2)
        sigma = list(range(s.n))
        sigma[i], sigma[j] = j, i
        order, pb, pub = _engine.eval_blocks(_engine.CState.from_state(s))
        t = _relabel(s, sigma, False)
        order_t, pb_t, pub_t = _engine.eval_blocks(_engine.CState.from_state(t))
        assert pub_t == pub
        blk = dict(zip(order, np.frombuffer(pb, np.uint8).reshape(-1, features.PB).tolist()))
        blk_t = dict(zip(order_t, np.frombuffer(pb_t, np.uint8).reshape(-1, features.PB)
                         .tolist()))
        assert blk_t == {sigma[p]: b for p, b in blk.items()}
        np.testing.assert_array_equal(features.state_rows(t)[1],
                                      np.array(_engine.eval_features(
                                          _engine.CState.from_state(t))[1], np.float32))


# -- the network ---------------------------------------------------------------------------

def _random_weights(rng: np.random.Generator, h1=24, h2=12):
    return {"w1": (rng.standard_normal((features.IN, h1)) * 0.05).astype(np.float32),
            "b1": (rng.standard_normal(h1) * 0.1).astype(np.float32),
            "w2": (rng.standard_normal((h1, h2)) * 0.2).astype(np.float32),
            "b2": (rng.standard_normal(h2) * 0.1).astype(np.float32),
            "w3": (rng.standard_normal(h2) * 0.5).astype(np.float32)}


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_network_equals_numpy(seed):
    w = _random_weights(np.random.default_rng(seed))
    with loaded_weights(w):
        _compare_with_numpy(w, seed)


def _compare_with_numpy(w, seed):
    for s in _game_states(seed, 150):
        order, x = features.state_rows(s)
        want = probs(w, x[None])[0]
        got = _engine.learned_eval_position(_engine.CState.from_state(s))
        np.testing.assert_allclose([got[p] for p in order], want, rtol=1e-5, atol=1e-6)
        assert sum(got) == pytest.approx(1.0)
        assert all(got[p] == 0.0 for p in range(s.n) if p not in order)


def test_shipped_weights_load_and_agree_with_numpy():
    w, meta = load_weights(_engine._default_weights_path())
    assert meta.get("h1") == w["w1"].shape[1]
    with eval_mode("learned"):
        assert _engine.eval_weights_loaded().endswith("eval_weights.npz")
        for s in _game_states(7, 200):
            order, x = features.state_rows(s)
            got = _engine.eval_position(_engine.CState.from_state(s))
            np.testing.assert_allclose([got[p] for p in order], probs(w, x[None])[0],
                                       rtol=1e-5, atol=1e-6)


def test_bad_weights_are_refused():
    w = _random_weights(np.random.default_rng(0))
    before = _engine.learned_eval_position(_engine.CState.from_state(next(_game_states(3))))
    with pytest.raises(ValueError, match="bytes"):
        _engine.load_eval_weights(w["w1"][:-1], w["b1"], w["w2"], w["b2"], w["w3"])
    with pytest.raises(ValueError, match="hidden sizes"):
        _engine.load_eval_weights(w["w1"], np.zeros(0, np.float32), w["w2"], w["b2"],
                                  w["w3"])
    # a refused load leaves the loaded network as it was
    assert _engine.learned_eval_position(
        _engine.CState.from_state(next(_game_states(3)))) == before


# -- the mode ------------------------------------------------------------------------------

def test_mode_switch_and_its_names():
    with cardcount_eval():
        assert _engine.get_eval_mode() == "cardcount"
        with eval_mode("learned"):
            assert _engine.get_eval_mode() == "learned"
        assert _engine.get_eval_mode() == "cardcount"
    with pytest.raises(ValueError, match="unknown evaluation mode"):
        _engine.set_eval_mode("neural")


def test_each_mode_evaluates_what_it_says():
    seen_draw = seen_empty = 0
    for s in _game_states(11, 400):
        if s.to_move < 0:
            continue
        c = _engine.CState.from_state(s)
        order, pb, _ = features.blocks(s)
        with cardcount_eval():
            cc = _engine.eval_position(c)
        np.testing.assert_allclose([cc[p] for p in order], cardcount_probs(pb[None])[0],
                                   rtol=1e-12)
        with eval_mode("learned"):
            le = _engine.eval_position(c)
        assert le == _engine.learned_eval_position(c)
        with eval_mode("auto"):
            au = _engine.eval_position(c)
        assert au == (le if s.draw_pile > 0 else cc)
        seen_draw += s.draw_pile > 0
        seen_empty += s.draw_pile == 0
    assert seen_draw and seen_empty


def test_the_search_uses_the_mode():
    """A depth-1 search's values are the horizon evaluation of each move's result."""
    from palace_solver.game.position import parse_position
    pos = parse_position("standard | me: 3 7 9 9 Q / A 10 / 3 ; bob: 5 K Q / 2 / 3 | pile 6 "
                         "| draw 34 | to_move 0")
    s = pos.to_state()
    checked = 0
    for mode in ("cardcount", "learned"):
        with eval_mode(mode):
            search = _engine.DeepSearch(_engine.CState.from_state(s), 1.0)
            _, moves = search.iterate(1, 0.0)
            for m, v in moves:
                c = _engine.CState.from_state(s)
                c.apply(m)
                if c.is_chance() or c.is_terminal():
                    continue
                assert v == pytest.approx(_engine.eval_position(c), abs=1e-12), (mode, m)
                checked += 1
    assert checked >= 6

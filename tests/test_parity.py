"""The compiled engine agrees with the reference engine (palace_solver/state.py).

Random full games are played with the Python engine up to a random PLAY-phase point (the
deal, the layout and any start card included), then continued in both engines in lockstep;
at every step both must agree on the player to move, the legal moves (same order), the
chance outcomes, the successor (decoded back to a State: same key(), all cards accounted
for) and the result. Under the standard rules, under every variant of RULES.md alone, and
under random mixes of the variants that act after the deal.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palace_solver.game.rules import VARIANTS, Rules
from palace_solver.game.state import OVER, PLAY_PHASE, State
from palace_solver.solve.perft import perft as py_perft

_engine = pytest.importorskip("palace_solver._engine")
CState = _engine.CState

#: Switches that only shape the deal (deck, zone size, layout, start card) are still played
#: here: the deal is done by the Python engine and the compiled one takes over after it.
DEAL_ONLY = ("jokers", "two_decks", "four_cards", "choose_face_up", "start_card")
AFTER_DEAL = tuple(v for v in VARIANTS if v not in DEAL_ONLY)
CONFIGS = [()] + [(v,) for v in VARIANTS]
MAX_STEPS = 300
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def random_step(state, rng: random.Random):
    """A random chance outcome (by its probability) or a uniformly random legal move."""
    if state.is_chance():
        outs = state.chance_outcomes()
        return rng.choices([r for r, _ in outs], weights=[p for _, p in outs])[0]
    return rng.choice(state.legal_moves())


def start_position(rules: Rules, n: int, rng: random.Random, prefix: int) -> State:
    """A game dealt and played by the Python engine up to `prefix` PLAY-phase steps."""
    s = State.new_game(rules, n)
    while s.phase not in (PLAY_PHASE, OVER):
        s.apply(random_step(s, rng))
    for _ in range(prefix):
        if s.is_terminal():
            break
        s.apply(random_step(s, rng))
    return s


def assert_same(ps: State, cs, where) -> None:
    assert cs.current_player() == ps.current_player(), where
    assert cs.is_chance() == ps.is_chance(), where
    assert cs.is_terminal() == ps.is_terminal(), where
    assert cs.legal_moves() == ps.legal_moves(), where
    # each found alone by its index, as the random rollouts draw them
    assert cs.moves_by_index() == ps.legal_moves(), where
    assert cs.chance_outcomes() == ps.chance_outcomes(), where
    back = cs.to_state()
    back.check_cards()
    assert back.key() == ps.key(), where
    assert back.out_order == ps.out_order, where
    assert back.last_player == ps.last_player, where
    assert back.burned == ps.burned, where
    assert CState.from_state(ps).packed() == cs.packed(), where
    if ps.is_terminal():
        assert cs.result() == ps.result(), where


def lockstep(rules: Rules, n: int, seed: int, prefix: int) -> int:
    """Play one game in both engines; returns the steps compared."""
    rng = random.Random(seed)
    ps = start_position(rules, n, rng, prefix)
    cs = CState.from_state(ps)
    assert_same(ps, cs, (str(rules), n, seed, "start"))
    steps = 0
    while not ps.is_terminal() and steps < MAX_STEPS:
        step = random_step(ps, rng)
        ps.apply(step)
        cs.apply(step)
        steps += 1
        assert_same(ps, cs, (str(rules), n, seed, steps, str(step)))
    return steps


@pytest.mark.parametrize("variants", CONFIGS, ids=lambda v: "+".join(v) or "standard")
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), prefix=st.integers(0, 80))
def test_lockstep_playouts(variants, data, seed, prefix):
    rules = Rules.with_variants(variants)
    n = data.draw(st.sampled_from(rules.player_counts()), label="players")
    lockstep(rules, n, seed, prefix)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(mix=st.sets(st.sampled_from(AFTER_DEAL + ("four_cards", "two_decks", "start_card")),
                   min_size=2, max_size=7),
       data=st.data(), seed=st.integers(0, 2**32 - 1), prefix=st.integers(0, 80))
def test_lockstep_variant_mixes(mix, data, seed, prefix):
    rules = Rules.with_variants(sorted(mix))
    n = data.draw(st.sampled_from([n for n in rules.player_counts() if n <= 5]), label="players")
    lockstep(rules, n, seed, prefix)




@pytest.mark.parametrize("variants", [(), ("lenient_blind", "invisible_8", "eight_reverses"),
                                      ("back_to_last_player", "must_play", "seven_low"),
                                      ("first_out_wins", "easy_table_pickup", "kings_burn"),
                                      ("eight_skips", "invisible_3", "no_four_burn")],
                         ids=lambda v: "+".join(v) or "standard")
@pytest.mark.parametrize("seed", range(3))
def test_perft_matches_python(variants, seed):
    """Every successor, not just one random line: perft counts agree to depth 4."""
    rng = random.Random(seed)
    rules = Rules.with_variants(variants)
    ps = start_position(rules, 2 + seed, rng, 40 + 20 * seed)
    cs = CState.from_state(ps)
    for d in range(5):
        assert cs.perft(d) == py_perft(ps, d), (d, str(rules))


def test_chance_pending_round_trip():
    """States waiting on a draw, a flip or a start card convert both ways."""
    rng = random.Random(7)
    seen = set()
    for rules in (Rules(), Rules.with_variants(["start_card"])):
        for _ in range(30):
            s = State.new_game(rules, 2)
            while not s.is_terminal() and len(seen) < 3:
                if s.phase == PLAY_PHASE and s.pending is not None:
                    seen.add(s.pending[0])
                    c = CState.from_state(s)
                    assert c.is_chance()
                    assert c.to_state().key() == s.key()
                s.apply(random_step(s, rng))
    assert seen == {"draw", "flip", "start"}


def test_illegal_moves_rejected():
    rng = random.Random(3)
    s = start_position(Rules(), 2, rng, 5)
    while s.is_chance():
        s.apply(random_step(s, rng))
    c = CState.from_state(s)
    legal = {str(m) for m in c.legal_moves()}
    from palace_solver.game.moves import IllegalMoveError
    for text in ("flip", "2x9", "pickup 7"):
        if text not in legal:
            with pytest.raises(IllegalMoveError):
                c.apply(text)
    with pytest.raises(IllegalMoveError):
        c.apply(5)  # a rank at a decision node


def test_before_play_phase_rejected():
    s = State.new_game(Rules(), 2)
    with pytest.raises(ValueError, match="after the deal"):
        CState.from_state(s)


def test_engine_interface(monkeypatch):
    """palace_solver.solve.engine: one entry point; a clear message when the module is missing."""
    import sys

    from palace_solver.solve import engine

    rng = random.Random(11)
    ps = start_position(Rules(), 3, rng, 10)
    assert engine.cython_available()
    c = engine.make_state(ps, "cython")
    p = engine.make_state(ps, "python")
    assert c.legal_moves() == p.legal_moves()
    assert engine.to_state(c).key() == engine.to_state(p).key() == ps.key()
    with pytest.raises(ValueError, match="unknown engine"):
        engine.make_state(ps, "rust")
    monkeypatch.setitem(sys.modules, "palace_solver._engine", None)
    monkeypatch.delattr("palace_solver._engine", raising=False)
    assert not engine.cython_available()
    with pytest.raises(engine.EngineUnavailableError, match=r"pip install \."):
        engine.make_state(ps, "cython")
    assert engine.default_engine() == "python"

"""Palace as an OpenSpiel game (palace_solver.interop.openspiel_game).

Skipped when open_spiel is not installed (`pip install .[openspiel]`).
"""
import random
import subprocess
import sys
from fractions import Fraction

import pytest

pyspiel = pytest.importorskip("pyspiel")

from palace_solver import Move, Rules, State  # noqa: E402
from palace_solver.game.cards import RANKS, parse_rank, ranks_of  # noqa: E402
from palace_solver.interop.openspiel_game import (  # noqa: E402
    LAYOUT_BASE,
    ActionCodec,
    PalaceState,
    _cards,
    parse_variants,
)

GAMES = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 5},
    {"players": 2, "variants": "must_play"},
    {"players": 3, "variants": "seven_low,invisible_8,eight_reverses"},
    {"players": 3, "variants": "choose_face_up,jack_reverses"},
    {"players": 2, "variants": "four_cards,lenient_blind"},
    {"players": 4, "variants": "start_card,back_to_last_player,easy_table_pickup"},
    {"players": 5, "variants": "first_out_wins,eight_skips,restricted_tens"},
    {"players": 2, "variants": "invisible_3,five_low,kings_burn,aces_burn,no_four_burn"},
    {"players": 6, "variants": "jokers"},
    {"players": 6},
]


def load(params, **extra):
    return pyspiel.load_game("python_palace", {**params, **extra})


def random_step(state, rng):
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(actions, probs)[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


# -- packaging ------------------------------------------------------------------------------
def test_core_package_does_not_import_pyspiel():
    code = "import sys, palace_solver; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_open_spiel_gives_a_clear_import_error():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "try:\n    import palace_solver.interop.openspiel_game\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install .[openspiel]" in out.stdout


# -- game type and actions ------------------------------------------------------------------
def test_game_type_and_info():
    game = load({"players": 3, "variants": "seven_low"})
    t = game.get_type()
    assert t.short_name == "python_palace"
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert game.num_players() == 3
    assert game.utility_sum() == 2.0
    assert (game.min_utility(), game.max_utility()) == (0.0, 1.0)
    assert game.max_chance_outcomes() == 16
    assert game.max_game_length() == 1000
    assert game.rules == Rules.with_variants(["seven_low"])
    assert str(load({"players": 2})) == "python_palace(max_turns=1000,players=2,variants=)"


@pytest.mark.parametrize("variants,n,layouts", [("", 2, 455), ("four_cards", 2, 1820),
                                                ("jokers", 6, 559), ("", 6, 455)])
def test_action_codec_round_trips(variants, n, layouts):
    rules = parse_variants(variants)
    codec = ActionCodec(rules, n)
    assert codec.num_actions == LAYOUT_BASE + layouts
    moves = [Move.play(r, k) for r in RANKS for k in range(1, 9)]
    moves += [Move.pickup(), Move.flip()] + [Move.pickup(r) for r in RANKS]
    moves += [Move.up(c) for c in codec.layouts]
    ids = [codec.encode(m) for m in moves]
    assert ids == list(range(codec.num_actions))
    assert [codec.decode(a) for a in ids] == moves
    assert codec.encode(Move.parse("7x2")) == 5 * 8 + 1
    assert codec.encode(Move.parse("pickup")) == 112
    assert codec.encode(Move.parse("flip")) == 113
    assert codec.encode(Move.parse("pickup A")) == 114 + 12
    with pytest.raises(ValueError):
        codec.decode(codec.num_actions)


def test_bad_parameters():
    with pytest.raises(Exception, match="unknown variant"):
        load({"players": 2, "variants": "nonsense"})
    with pytest.raises(Exception, match="jokers"):
        load({"players": 4, "variants": "jokers"})


# -- OpenSpiel's own consistency checks -----------------------------------------------------
@pytest.mark.parametrize("params", GAMES, ids=lambda p: f"{p['players']}p-{p.get('variants', '')}")
def test_random_sim_test(params):
    game = load(params, max_turns=250)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    assert pyspiel.load_game(str(game)).rules == game.rules


# -- step by step against the reference engine ----------------------------------------------
@pytest.mark.parametrize("params", GAMES, ids=lambda p: f"{p['players']}p-{p.get('variants', '')}")
def test_matches_the_engine_step_by_step(params):
    game = load(params, max_turns=600)
    rules, n = parse_variants(params.get("variants", "")), params["players"]
    for seed in range(3):
        rng = random.Random(seed)
        st, ref = game.new_initial_state(), State.new_game(rules, n)
        while not st.is_terminal():
            assert st.current_player() == ref.current_player()
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                assert outcomes == [(r, float(p)) for r, p in ref.chance_outcomes()]
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
                a = rng.choices([r for r, _ in outcomes], [p for _, p in outcomes])[0]
                ref.apply(a)
            else:
                actions = st.legal_actions()
                assert [st.move_of(a) for a in actions] == sorted(
                    ref.legal_moves(), key=st.action_of)
                assert len(set(actions)) == len(ref.legal_moves())
                a = rng.choice(actions)
                assert st.action_to_string(a) == str(st.move_of(a))
                ref.apply(st.move_of(a))
            st.apply_action(a)
            d = st._d
            for q in range(n):  # every hand card is publicly known or a hidden slot
                for r in RANKS:
                    assert ref.hands[q][r] == d.known[q][r] + len(d.slots[q][r])
        returns = st.returns()
        assert sum(returns) == pytest.approx(n - 1)
        if ref.is_terminal():
            assert returns == ref.returns()
            assert st.loss_shares() == ref.result()
        else:  # the turn cap: a draw among the players still in
            assert st._d.turns == 600
            active = ref.active()
            assert st.loss_shares() == [Fraction(1, len(active)) if q in active else 0
                                        for q in range(n)]


def test_turn_cap_is_a_shared_loss():
    game = load({"players": 2}, max_turns=4)
    st, rng = game.new_initial_state(), random.Random(1)
    while not st.is_terminal():
        random_step(st, rng)
    assert st.returns() == [0.5, 0.5]
    assert len([h for h in st.full_history() if h.player >= 0]) == 4


# -- what each player sees ------------------------------------------------------------------
def test_information_state_hides_other_hands():
    game = load({"players": 2})
    st, rng = game.new_initial_state(), random.Random(3)
    while st.is_chance_node():
        random_step(st, rng)
    s = st.engine
    hist0 = st.information_state_string(0).split("history ")[1].split()
    hist1 = st.information_state_string(1).split("history ")[1].split()
    # Deal order: 3 face-up each (public), then 3 hand cards each, alternating 0, 1.
    assert hist0[:6] == hist1[:6] and "?" not in "".join(hist0[:6])
    assert hist0[7::2] == hist1[6::2] == ["c:?"] * 3      # the other's hand deals
    assert sorted(parse_rank(c[2:]) for c in hist0[6::2]) == ranks_of(s.hands[0])
    assert sorted(parse_rank(c[2:]) for c in hist1[7::2]) == ranks_of(s.hands[1])
    assert "P1: hand 3 known []" in st.observation_string(0)
    assert "P0: hand 3 known []" in st.observation_string(1)
    # Each sees their own hand.
    assert f"P0: hand {_cards(s.hands[0])}" in st.observation_string(0)
    assert f"P1: hand {_cards(s.hands[1])}" in st.observation_string(1)


# -- resampling -----------------------------------------------------------------------------
@pytest.mark.parametrize("params", [g for g in GAMES if g["players"] < 6] + [GAMES[-2]],
                         ids=lambda p: f"{p['players']}p-{p.get('variants', '')}")
def test_resample_from_infostate_keeps_the_information_state(params):
    game = load(params, max_turns=600)
    sampler = pyspiel.UniformProbabilitySampler(11, 0., 1.)
    changed = 0
    for seed, steps in enumerate((1, 6, 25, 60)):
        st, rng = game.new_initial_state(), random.Random(seed)
        while not st.is_terminal() and (st.is_chance_node() or st._d.turns < steps):
            random_step(st, rng)
        if st.is_terminal():
            continue
        p = st.current_player()
        key = st.information_state_string(p)
        for _ in range(5):
            rs = st.resample_from_infostate(p, sampler)
            assert rs.information_state_string(p) == key
            assert rs.observation_string(p) == st.observation_string(p)
            assert rs.legal_actions() == st.legal_actions()
            assert len(rs.history()) == len(st.history())
            rs.engine.check_cards()
            changed += str(rs) != str(st)
            # The sample is a live game: it plays on to the end.
            while not rs.is_terminal():
                random_step(rs, rng)
    assert changed > 0


def test_resample_draws_opponent_hands_from_the_unseen_cards():
    """Right after the deal in 2 players, player 1's hand is 3 of the cards player 0 has
    not seen: over many samples every unseen rank shows up, no seen-out rank does."""
    game = load({"players": 2})
    st, rng = game.new_initial_state(), random.Random(5)
    while st.is_chance_node():
        random_step(st, rng)
    s = st.engine
    sampler = pyspiel.UniformProbabilitySampler(5, 0., 1.)
    seen = [0] * 16
    for _ in range(200):
        rs = st.resample_from_infostate(0, sampler)
        for r in RANKS:
            seen[r] += rs.engine.hands[1][r]
        assert rs.engine.hands[0] == s.hands[0]
        assert rs.engine.face_up == s.face_up
    unseen = [s.pool[r] + s.hands[1][r] for r in range(16)]
    assert all((seen[r] > 0) == (unseen[r] > 0) for r in RANKS)


# -- OpenSpiel's ISMCTS plays through the game ----------------------------------------------
@pytest.mark.parametrize("params,max_turns", [
    ({"players": 2}, 60),
    ({"players": 4, "variants": "first_out_wins,must_play"}, 400),
])
def test_ismcts_bot_plays_complete_games(params, max_turns):
    """The 2-player game may end at its short turn cap; the 4-player first-out-wins game
    is short enough to end by the rules."""
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts
    game = load(params, max_turns=max_turns)
    rs = np.random.RandomState(7)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=1.4,
                           max_simulations=8, random_state=rs)
    sampler = pyspiel.UniformProbabilitySampler(7, 0., 1.)  # seeded: a repeatable test
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    st = game.new_initial_state()
    bot_moves = decisions = 0
    while not st.is_terminal():
        if st.is_chance_node():
            actions, probs = zip(*st.chance_outcomes())
            st.apply_action(rs.choice(actions, p=probs))
            continue
        decisions += 1
        if st.current_player() == 0:
            a = bot.step(st)
            assert a in st.legal_actions()
            st.apply_action(a)
            bot_moves += 1
        else:
            st.apply_action(rs.choice(st.legal_actions()))
    assert isinstance(st, PalaceState)
    n = params["players"]
    # every decision was counted against the cap, and the bot had its turns among them
    assert st.turns == decisions <= max_turns and 0 < bot_moves < decisions
    returns = st.returns()
    assert sum(returns) == pytest.approx(n - 1)
    if st._d.capped:
        # a game stopped at the cap is a draw: the players still in share the loss
        assert st.turns == max_turns and not st.engine.is_terminal()
        still_in = [r for r, out in zip(returns, st.engine.out) if not out]
        assert still_in == pytest.approx([1 - 1 / len(still_in)] * len(still_in))
    else:
        assert st.engine.is_terminal() and returns == [1.0 - x for x in st.engine.loss]
    if n == 4:
        assert not st._d.capped         # short enough to end by the rules


def test_observers_public_and_perfect_information():
    game = load({"players": 2})
    st, rng = game.new_initial_state(), random.Random(4)
    while st.is_chance_node():
        random_step(st, rng)
    s = st.engine
    pub = game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    text = pub.string_from(st, 0)
    assert text == pub.string_from(st, 1).replace("me 1", "me 0", 1)
    assert "P0: hand 3 known []" in text and text.count("c:?") == 6
    full = game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    text = full.string_from(st, 0)
    assert f"P0: hand {_cards(s.hands[0])}" in text and f"P1: hand {_cards(s.hands[1])}" in text

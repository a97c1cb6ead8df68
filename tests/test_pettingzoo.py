"""Palace as a PettingZoo environment (palace_solver.interop.pettingzoo) and the driver it
shares with the Gymnasium one (palace_solver.interop.rl).

PettingZoo's own api_test and seed_test; random games replayed move for move in the
reference and the compiled engines, with the end rules of ``palace match`` and the loss
shares; observations that do not change when what the seat has not seen changes, and that
agree with the seat's view of the position. Skipped without the ``rl`` extra (failed in CI).
"""
import os
import random
import re
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

try:
    from pettingzoo.test import api_test, seed_test
except ImportError:
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("PettingZoo is not installed: pip install '.[rl]'", allow_module_level=True)

from palace_solver.agents.method_bots import HandTracker, view_position  # noqa: E402
from palace_solver.game.cards import RANKS, counts_of  # noqa: E402
from palace_solver.game.moves import IllegalMoveError, Move  # noqa: E402
from palace_solver.game.rules import VARIANTS  # noqa: E402
from palace_solver.game.state import PLAY_PHASE, State  # noqa: E402
from palace_solver.interop import rl  # noqa: E402
from palace_solver.interop.pettingzoo import env, raw_env  # noqa: E402
from palace_solver.jobs.match import make_start, start_key  # noqa: E402
from palace_solver.solve.engine import cython_available  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: Configurations of api_test and seed_test: 2, 3 and 6 players, and with variants.
CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 6},
    {"num_players": 2, "swap": True},
    {"num_players": 3, "variants": "seven_low,invisible_8,eight_reverses"},
    {"num_players": 6, "variants": "jokers"},
    {"num_players": 4, "variants": ["first_out_wins", "back_to_last_player", "eight_skips"]},
    {"num_players": 2, "variants": "four_cards+lenient_blind+choose_face_up", "swap": True},
    {"num_players": 5, "variants": "start_card,must_play,easy_table_pickup,restricted_tens"},
    {"num_players": 3, "variants": "invisible_3,five_low,kings_burn,aces_burn,no_four_burn,"
                                   "jack_reverses,two_decks"},
]
IDS = [f"{c['num_players']}p-{c.get('variants', '')}{'-swap' if c.get('swap') else ''}"
       for c in CONFIGS]
#: What api_test says of every environment outside PettingZoo's own list of dict-observation
#: games (it matches names): the observation is a dict {"observation", "action_mask"}.
KNOWN_WARNINGS = ("Observation is not a NumPy array",
                  "Observation space for each agent probably should be")


def test_every_variant_is_covered():
    named = set()
    for c in CONFIGS:
        v = c.get("variants", ())
        named |= set(re.split(r"[,+]", v) if isinstance(v, str) else v)
    assert named - {""} == set(VARIANTS)


# -- PettingZoo's own tests -------------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_api_test(config):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(**config), num_cycles=1000)
    other = [str(w.message) for w in caught if not str(w.message).startswith(KNOWN_WARNINGS)]
    assert other == []


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_seed_test(config):
    seed_test(lambda: env(**config), num_cycles=500)


def test_raw_env_passes_api_test_too():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(raw_env(num_players=3, engine="python"), num_cycles=1000)
    assert [str(w.message) for w in caught
            if not str(w.message).startswith(KNOWN_WARNINGS)] == []


# -- random games replayed in the package's engines -------------------------------------------
def play_random(config, seed, pickups=1.0):
    """A random game through the wrapped environment: (raw env, [(state key, mask, action,
    agent)] at each decision, every seat's summed reward). A voluntary pickup is chosen
    like any other action when ``pickups`` is 1; with less, the other actions are preferred
    with that chance (random players pass the pile back and forth, and draw most games)."""
    e = env(**config)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, total = [], {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        plays = legal[legal < rl.PICKUP_ACTION]
        if len(plays) and rng.random() >= pickups:
            legal = plays
        action = int(rng.choice(legal))
        steps.append((e.unwrapped.game.state.key(), mask.copy(), action, agent))
        e.step(action)
    return e.unwrapped, steps, total


def replay(game: rl.Game, steps):
    """Replay the game's events in a fresh reference State, checking each decision against
    the environment's and applying palace match's end rules independently: the reason and
    loss shares it finds."""
    codec = game.codec
    s = State.new_game(game.rules, game.n)
    twin = None
    decisions = list(steps)
    seen, played = set(), 0
    for ev in game.events:
        if s.is_chance():
            assert isinstance(ev, int)
            s.apply(ev)
            if twin is not None:
                twin.apply(ev)
            continue
        assert isinstance(ev, Move)
        if s.phase == PLAY_PHASE:
            if twin is None and cython_available():
                from palace_solver._engine import CState
                twin = CState.from_state(s)
            assert s.key() not in seen
            seen.add(s.key())
            played += 1
        if s.phase == PLAY_PHASE or game.swap:
            key, mask, action, agent = decisions.pop(0)
            assert s.key() == key
            assert agent == f"player_{s.to_move}"
            assert np.flatnonzero(mask).tolist() == sorted(codec.encode(m)
                                                           for m in s.legal_moves())
            assert codec.decode(action) == ev
        s.apply(ev)
        if twin is not None:
            twin.apply(ev)
            assert twin.to_state().key() == s.key()
    assert decisions == []
    if s.is_terminal():
        return "end", s.result()
    if played >= game.cap:
        return "cap", _shared(s)
    assert s.key() in seen, "a game that stopped must end, repeat or reach the cap"
    return "repetition", _shared(s)


def _shared(s: State):
    active = s.active()
    return [Fraction(1, len(active)) if q in active else Fraction(0) for q in range(s.n)]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_random_games_replay_in_the_engine(config):
    for seed in range(4):
        e, steps, total = play_random({**config, "cap": 150 if seed % 2 else 400}, seed,
                                      pickups=0.0 if seed < 2 else 1.0)
        game = e.game
        reason, loss = replay(game, steps)
        assert (reason, loss) == (game.reason, game.loss)
        assert [total[a] for a in e.possible_agents] == [1 - float(x) for x in loss]
        assert sum(total.values()) == pytest.approx(game.n - 1)


def test_the_ends_are_all_met():
    reasons = set()
    for seed in range(10):
        for pickups in (0.0, 1.0):
            e, _, _ = play_random({"num_players": 2, "cap": 200}, seed, pickups)
            reasons.add(e.game.reason)
    assert reasons == {"end", "repetition", "cap"}


def test_cap_truncates_and_a_repetition_terminates():
    for seed in range(40):
        e = raw_env(num_players=3, cap=30)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not e.game.over:
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        g = e.game
        assert all(e.truncations.values()) == (g.reason == "cap")
        assert all(e.terminations.values()) == (g.reason != "cap")
        assert all(e.infos[a]["reason"] == g.reason for a in e.agents)
        if g.reason == "cap":
            assert g.decisions == 30
            assert [e.rewards[a] for a in e.possible_agents] == \
                [1 - float(x) for x in _shared(g.state)]


def test_the_cap_is_palace_match_s():
    from palace_solver.jobs.match import CAP
    assert rl.CAP == CAP and raw_env().game.cap == CAP


def test_the_deal_is_palace_match_s():
    """The same seed string deals the same cards, and greedy lays them out the same, as a
    match's start: the first decision and the public knowledge are equal."""
    for n in (2, 3, 6):
        key = start_key("full", n, 0, 7)
        start, tracker, history = make_start("full", rl.make_rules(), n, key)
        g = rl.Game(rl.make_rules(), n)
        g.reset(random.Random(key))
        assert g.state.key() == start.key()
        assert g.tracker.known == tracker.known
        assert g.events == history


def test_compiled_and_reference_drivers_play_the_same_games():
    if not cython_available():
        pytest.skip("the compiled engine is not built")
    for seed in range(5):
        runs = []
        for engine in ("python", "cython"):
            g = rl.Game(rl.make_rules(["seven_low"]), 3, engine=engine)
            assert g.engine == engine
            g.reset(random.Random(seed))
            rng = random.Random(seed)
            while not g.over:
                assert g.legal_moves() == g.state.legal_moves()
                acts = g.legal_actions()
                g.play(acts[rng.randrange(len(acts))])
            runs.append((g.events, g.reason, g.loss))
        assert runs[0] == runs[1]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_public_hands_are_hand_tracker_s(config):
    """The driver's PublicHands knows, after every event of random games, exactly what the
    package's HandTracker knows."""
    for seed in range(3):
        g = rl.Game(rl.make_rules(config.get("variants", ())), config["num_players"],
                    swap=config.get("swap", False))
        g.reset(random.Random(seed))
        rng = random.Random(seed)
        while not g.over:
            acts = g.legal_actions()
            g.play(acts[rng.randrange(len(acts))])
        s, tracker = State.new_game(g.rules, g.n), HandTracker(g.n)
        mine = rl.PublicHands(g.n)
        twin = s.clone()
        for ev in g.events:
            tracker.apply(s, ev)
            mine.apply(twin, ev)
            assert mine.known == tracker.known
        assert mine.known == g.tracker.known and any(map(any, mine.known))


# -- observations -----------------------------------------------------------------------------
def positions(config, seeds):
    """(game, seat) at every decision of random games, for every seat."""
    for seed in seeds:
        g = rl.Game(rl.make_rules(config.get("variants", ())), config["num_players"],
                    swap=config.get("swap", False))
        g.reset(random.Random(seed))
        rng = random.Random(seed)
        while not g.over:
            for seat in range(g.n):
                yield g, seat
            acts = g.legal_actions()
            g.play(acts[rng.randrange(len(acts))])


def redeal(state: State, me: int, known, rng: random.Random) -> State:
    """A copy of ``state`` with everything ``me`` has not seen dealt again: the others'
    hand cards beyond the known ones, with the unseen pool (draw pile and face-down
    cards), shuffled together and dealt back in the same numbers."""
    s = state.clone()
    unseen = s.pool[:]
    slots = []
    for q in range(s.n):
        if q != me:
            extra = [s.hands[q][r] - known[q][r] for r in range(len(unseen))]
            slots.append((q, sum(extra)))
            for r, k in enumerate(extra):
                unseen[r] += k
                s.hands[q][r] -= k
    cards = [r for r in RANKS for _ in range(unseen[r])]
    rng.shuffle(cards)
    for q, k in slots:
        for r in cards[:k]:
            s.hands[q][r] += 1
            unseen[r] -= 1
        cards = cards[k:]
    s.pool = unseen
    s.check_cards()
    return s


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_observations_hold_only_what_the_seat_has_seen(config):
    """Redeal everything the seat has not seen (the others' unknown hand cards, the draw
    pile, the face-down cards): the observation stays the same."""
    changed = 0
    drng = random.Random(0)
    for i, (g, seat) in enumerate(positions(config, range(2))):
        if i % 3:
            continue
        s = g.state
        obs = g.observation(seat)
        other = redeal(s, seat, g.tracker.known, drng)
        changed += other.hands != s.hands
        assert np.array_equal(rl.encode_observation(other, seat, g.tracker.known), obs)
    assert changed > 10


@pytest.mark.parametrize("config", CONFIGS[:6], ids=IDS[:6])
def test_observations_agree_with_the_seat_s_view(config):
    """Field by field against view_position (the seat's Position) where it is defined."""
    lay = rl.layout()
    checked = 0
    for g, seat in positions(config, range(2)):
        s = g.state
        if s.phase != PLAY_PHASE or any(s.out):
            continue
        obs = g.observation(seat)
        view = view_position(s, seat, g.tracker)
        checked += 1
        n = view.n

        def field(name):
            return obs[lay[name]].tolist()

        for k in range(rl.MAX_SEATS):
            if k >= n:
                assert not obs[lay[f"seat{k}.hand"].start:lay[f"seat{k}.to_move"].stop].any()
                continue
            p = view.players[(seat + k) % n]
            assert field(f"seat{k}.hand") == counts_of(p.hand_known)[2:]
            assert field(f"seat{k}.hand_size") == [p.hand_count]
            assert field(f"seat{k}.face_up") == counts_of(p.face_up)[2:]
            assert field(f"seat{k}.face_down") == [p.face_down]
            assert field(f"seat{k}.seated") == [1]
            assert field(f"seat{k}.to_move") == [int((seat + k) % n == view.to_move)]
        assert field("pile") == counts_of(view.pile)[2:]
        assert field("pile_size") == [len(view.pile)]
        top = [RANKS.index(r) for r in reversed(view.pile[-4:])]
        assert obs[lay["pile_top"]].reshape(4, -1).argmax(axis=1)[:len(top)].tolist() == top
        beat = view.effective_top()
        assert field("to_beat") == ([0] * 14 if beat is None else
                                    [int(r == beat) for r in RANKS])
        assert field("burned") == counts_of(view.burned)[2:]
        assert field("unseen") == view.unseen_counts()[2:]
        assert field("draw_pile") == [view.draw_pile]
        assert field("reversed") == [int(view.direction < 0)]
    assert checked > 50


def test_observation_layout_and_bounds():
    lay = rl.layout()
    assert rl.OBS_SIZE == 345 and lay["rules"].stop == rl.OBS_SIZE
    high = rl.observation_high()
    for config in CONFIGS[:6]:
        for g, seat in positions(config, range(1)):
            obs = g.observation(seat)
            assert obs.shape == (rl.OBS_SIZE,) and obs.dtype == np.float32
            assert (obs >= 0).all() and (obs <= high).all()


def test_docs_table_matches_the_layout():
    """docs/rl.md lists every field with the slice the code gives it."""
    text = (ROOT / "docs" / "rl.md").read_text()
    lay = rl.layout()
    for name, sl in lay.items():
        if name.startswith("seat") and not name.startswith("seat0."):
            continue
        short = name.partition(".")[2] or name
        where = f"{sl.start}" if sl.stop == sl.start + 1 else f"{sl.start}-{sl.stop - 1}"
        assert re.search(rf"\|\s*{where}\s*\|\s*`{short}`\s*\|", text), name
    assert f"{rl.OBS_SIZE}" in text


# -- actions ------------------------------------------------------------------------------------
def test_action_ids_are_open_spiel_s():
    codec = rl.ActionCodec(rl.make_rules(), 2, swap=True)
    moves = [Move.play(r, k) for r in RANKS for k in range(1, 9)]
    moves += [Move.pickup(), Move.flip()] + [Move.pickup(r) for r in RANKS]
    moves += [Move.up(c) for c in codec.layouts]
    assert [codec.encode(m) for m in moves] == list(range(codec.num_actions))
    assert [codec.decode(a) for a in range(codec.num_actions)] == moves
    assert rl.ActionCodec(rl.make_rules(), 2).num_actions == rl.NUM_PLAY_ACTIONS == 128
    pytest.importorskip("pyspiel")
    from palace_solver.interop.openspiel_game import ActionCodec as OsCodec
    for variants, n in (("", 2), ("jokers", 6), ("four_cards", 3)):
        mine, theirs = rl.ActionCodec(rl.make_rules(variants), n, swap=True), \
            OsCodec(rl.make_rules(variants), n)
        assert mine.num_actions == theirs.num_actions
        assert all(mine.decode(a) == theirs.decode(a) for a in range(mine.num_actions))


def test_illegal_actions():
    e = env(num_players=2)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    mover = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[mover] == -1
    raw = raw_env(num_players=2)
    raw.reset(seed=1)
    with pytest.raises(IllegalMoveError):
        raw.step(bad)
    with pytest.raises(IllegalMoveError):
        raw.game.play("pickup 7")


def test_bad_configurations():
    with pytest.raises(ValueError, match="unknown variant"):
        raw_env(variants="nonsense")
    with pytest.raises(ValueError, match="jokers"):
        raw_env(num_players=4, variants="jokers")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="cap"):
        raw_env(cap=0)


def test_render(capsys):
    e = raw_env(num_players=3, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text.startswith("Palace 3p") and "legal:" in text and text.count("hand") == 3
    h = raw_env(num_players=2, render_mode="human")
    h.reset(seed=3)
    h.step(int(np.flatnonzero(h.observe(h.agent_selection)["action_mask"])[0]))
    assert capsys.readouterr().out.count("Palace 2p") == 2
    quiet = raw_env(num_players=2)
    quiet.reset(seed=3)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def test_history_is_public():
    g = rl.Game(rl.make_rules(), 2)
    g.reset(random.Random(5))
    rng = random.Random(5)
    while not g.over:
        acts = g.legal_actions()
        g.play(acts[rng.randrange(len(acts))])
    moves = [ev for ev in g.events if isinstance(ev, Move)]
    assert [m for _, m, _ in g.history] == [("flip" if m == Move.flip() else str(m))
                                            for m in moves]
    assert all(card is None or m == "flip" for _, m, card in g.history)


def test_core_package_does_not_import_the_rl_libraries():
    code = ("import sys, palace_solver, palace_solver.interop.rl, palace_solver.agents.registry;"
            " print(sorted(m for m in ('pettingzoo', 'gymnasium') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_missing_pettingzoo_gives_a_clear_import_error():
    code = ("import sys; sys.modules['pettingzoo'] = None\n"
            "try:\n    import palace_solver.interop.pettingzoo\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert "pip install '.[rl]'" in out.stdout

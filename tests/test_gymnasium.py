"""Palace as a single-agent Gymnasium environment (palace_solver.interop.gymnasium) against
``palace match`` agents, and the trained-policy agent (palace_solver.interop.policy).

Gymnasium's own check_env; episodes whose rewards are the learner's loss shares; the other
seats played by agents that see only their seat (the engine, OpenSpiel's ISMCTS fed every
event); a policy that plays the same in the environment and in ``palace match``. Skipped
without the ``rl`` extra (failed in CI).
"""
import os
import random
import warnings

import numpy as np
import pytest

try:
    import gymnasium
    from gymnasium.utils.env_checker import check_env
except ImportError:
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("Gymnasium is not installed: pip install '.[rl]'", allow_module_level=True)

from palace_solver.agents.method_bots import HandTracker  # noqa: E402
from palace_solver.agents.registry import AgentError, make_agent  # noqa: E402
from palace_solver.game.state import PLAY_PHASE  # noqa: E402
from palace_solver.interop import rl  # noqa: E402
from palace_solver.interop.gymnasium import ENV_ID, PalaceEnv  # noqa: E402
from palace_solver.interop.policy import MLPPolicy, PolicyAgent  # noqa: E402
from palace_solver.jobs.match import run_match  # noqa: E402

CONFIGS = [
    {},
    {"num_players": 3, "opponent": "random"},
    {"num_players": 2, "swap": True, "opponent": "random"},
    {"num_players": 6, "variants": "jokers", "opponent": ["greedy", "random", "lowest",
                                                           "greedy", "random"]},
    {"num_players": 4, "variants": "first_out_wins+seven_low", "seat": 2},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values())
                         or "default")
def test_check_env(config, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(ENV_ID, **config).unwrapped)
    assert [str(w.message) for w in caught] == []
    assert "Palace" in capsys.readouterr().out      # the "human" render mode was tried


def test_registered_on_import():
    e = gymnasium.make(ENV_ID, num_players=3, opponent="greedy")
    obs, info = e.reset(seed=0)
    assert obs["observation"].shape == (rl.OBS_SIZE,)
    assert e.action_space.n == rl.NUM_PLAY_ACTIONS
    assert obs["action_mask"][info["legal_actions"]].all()


def run_episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    rewards = []
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.tolist() == sorted(info["legal_actions"])
        assert env.game.to_move == env.seat
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        rewards.append(reward)
        if terminated or truncated:
            return rewards, terminated, truncated, info


@pytest.mark.parametrize("n", [2, 3, 5])
def test_rewards_are_the_learner_s_loss_share(n):
    env = PalaceEnv(num_players=n, opponent="greedy", cap=120)
    rng = np.random.default_rng(n)
    outcomes = set()
    for seed in range(12):
        rewards, terminated, truncated, info = run_episode(env, seed, rng)
        g = env.game
        assert all(r == 0 for r in rewards[:-1])
        if g.state.out[env.seat]:
            # out and safe: its share is 0 whatever follows
            assert rewards[-1] == 1.0 and terminated
            outcomes.add("out")
        else:
            assert g.over and info["reason"] == g.reason
            assert rewards[-1] == 1 - float(g.loss[env.seat]) == 1 - info["loss"][env.seat]
            assert truncated == (g.reason == "cap") != terminated
            outcomes.add(g.reason)
    assert "end" in outcomes or "out" in outcomes


def test_seats_and_seeds():
    env = PalaceEnv(num_players=3, opponent="random")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert seats == {0, 1, 2}
    assert env.reset(seed=4, options={"seat": 1})[1]["seat"] == 1
    fixed = PalaceEnv(num_players=3, seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(5)} == {2}
    a, b = PalaceEnv(num_players=3), PalaceEnv(num_players=3)
    for s in range(3):
        oa, ia = a.reset(seed=s)
        ob, ib = b.reset(seed=s)
        assert np.array_equal(oa["observation"], ob["observation"]) and ia == ib
    with pytest.raises(ValueError, match="seat"):
        PalaceEnv(num_players=2, seat=2)
    with pytest.raises(ValueError, match="opponents"):
        PalaceEnv(num_players=3, opponent=["greedy"])
    with pytest.raises(AgentError):
        PalaceEnv(opponent="stockfish")


def test_illegal_action_ends_the_episode():
    env = PalaceEnv(illegal_reward=-2.0)
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated, info["illegal"]) == (-2.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    assert env.reset(seed=1)[0]["action_mask"].any()
    assert env.action_masks().dtype == bool and env.action_masks().any()


def test_render():
    env = PalaceEnv(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("Palace 2p")
    quiet = PalaceEnv(num_players=2)
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def test_searching_opponents_see_only_their_seat():
    """The engine plays through the game's tracker (the public knowledge and the positions
    already played); OpenSpiel's ISMCTS is fed every event from the deal and checks that
    its own game is the environment's at each of its turns."""
    opponents = ["engine:nodes=300:rollouts=0"]
    try:
        make_agent("os_ismcts:sims=5")
        opponents.append("os_ismcts:sims=5")
    except AgentError:
        pass
    for spec in opponents:
        env = PalaceEnv(num_players=2, opponent=spec, cap=40)
        obs, _ = env.reset(seed=3)
        agent = next(iter(env._agents.values()))
        assert isinstance(env.game.tracker, HandTracker)      # with the positions played
        if hasattr(agent, "tracker"):
            assert agent.tracker is env.game.tracker
        rng = np.random.default_rng(0)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        assert agent.stats["decisions"] > 0


# -- the trained-policy agent -------------------------------------------------------------------
def small_policy(seed=0):
    pol = MLPPolicy.init(hidden=(16,), seed=seed)
    rng = np.random.default_rng(seed)
    pol.layers[-1] = (rng.normal(0, 1, pol.layers[-1][0].shape),
                      rng.normal(0, 1, pol.layers[-1][1].shape))
    return pol


def test_policy_plays_the_same_in_the_environment_and_at_the_table():
    """At every decision of the learner, PolicyAgent (what palace match seats) picks what
    the policy picks from the environment's observation."""
    pol = small_policy()
    agent = PolicyAgent(policy=pol)
    env = PalaceEnv(num_players=3, opponent="greedy")
    checked = 0
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        agent.tracker = env.game.tracker
        done = False
        while not done:
            action = pol.act(obs["observation"], obs["action_mask"])
            move = agent.choose(env.game.state, random.Random(0))
            assert env.game.codec.encode(move) == action or \
                obs["action_mask"].sum() == 1
            checked += 1
            obs, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    assert checked > 50


def test_policy_file_and_match(tmp_path):
    pol = small_policy(1)
    path = tmp_path / "p.npz"
    pol.save(path)
    back = MLPPolicy.load(path)
    assert all(np.array_equal(w, w2) and np.array_equal(b, b2)
               for (w, b), (w2, b2) in zip(pol.layers, back.layers))
    agent = make_agent(f"policy:path={path}")
    assert isinstance(agent, PolicyAgent) and agent.name == f"policy:path={path}"
    with pytest.raises(AgentError, match="path"):
        make_agent("policy")
    summary = run_match(f"policy:path={path}", "random", starts=3, seed=2, progress=False)
    assert summary["games"] == 6 and 0.0 <= summary["score"] <= 1.0
    sampled = make_agent(f"policy:path={path}:sample=1", seed=5)
    state = PalaceEnv().game
    state.reset(random.Random(0))
    assert state.state.phase == PLAY_PHASE
    assert sampled.choose(state.state, random.Random(0)) in state.state.legal_moves()


def test_the_example_trains_saves_and_plays_the_matches(tmp_path, capsys):
    """examples/train_rl.py end to end, on a few games (the real run is in docs/rl.md)."""
    from scripts import load_script
    example = load_script("examples/train_rl.py")
    out = tmp_path / "p.npz"
    assert example.main(["--episodes", "8", "--batch", "4", "--eval-starts", "1",
                         "--out", str(out)]) == 0
    assert MLPPolicy.load(out).num_actions == rl.NUM_PLAY_ACTIONS
    text = capsys.readouterr().out
    assert "vs random: 2 players" in text and "vs greedy: 2 players" in text

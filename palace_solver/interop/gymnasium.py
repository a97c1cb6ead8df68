"""Palace as a single-agent Gymnasium environment: one seat learns, the others are played by
agents of ``palace match``. Importing this module registers it as ``Palace-v0``.

>>> import gymnasium
>>> import palace_solver.interop.gymnasium  # registers Palace-v0
>>> env = gymnasium.make("Palace-v0", num_players=3, opponent="greedy")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(int(info["legal_actions"][0]))

Needs the ``rl`` extra (``pip install '.[rl]'``). The game, the observation and the action
ids are those of the PettingZoo environment (:mod:`palace_solver.interop.pettingzoo`,
:class:`palace_solver.interop.rl.Game`).

Parameters: ``num_players`` (2-6), ``variants``, ``swap``, ``cap`` and ``engine`` as in the
PettingZoo environment; ``opponent``: an agent of ``palace match`` by name with its options
(``"greedy"``, ``"random"``, ``"engine:nodes=2000"``, ...; :func:`~palace_solver.agents.
registry.make_agent`) for every other seat, or a list of names, one per other seat in seat
order after the learner's; ``seat``: the learner's seat (None, the default: a random seat
each episode); ``illegal_reward``: see below.

An episode is one game from the learner's first decision. Each :meth:`step` plays the
learner's action, then the other seats until the learner is to move again or its game is
over: the game ended (``terminated``; the end or a repeated position), the learner went
out (``terminated``: its loss share is 0 whatever follows), or the cap was reached
(``truncated``). The reward is then ``1 - the learner's loss share`` (a draw shared by the
players still in), 0 before. An illegal action ends the episode with ``illegal_reward``
(default -1, PettingZoo's classic convention) and ``info["illegal"] = True``.

The other seats see only what their seat sees (the game's
:class:`~palace_solver.agents.method_bots.HandTracker` is their ``tracker``; agents with
``observe`` are fed every event from the deal, as in ``palace match``). Each episode makes
new agents, seeded from the episode's seed. ``info``: ``seat``, ``legal_actions``,
``history`` (the public record), and at the end ``reason`` and ``loss``.
:meth:`PalaceEnv.action_masks` returns the mask for libraries that ask for it
(sb3-contrib's ``MaskablePPO``).
"""
from __future__ import annotations

import random

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("palace_solver.interop.gymnasium needs Gymnasium; install it with "
                      "`pip install '.[rl]'`") from e

from ..agents.method_bots import HandTracker
from ..agents.registry import make_agent, parse_agent
from .rl import CAP, OBS_SIZE, Game, make_rules, observation_high, render_as

__all__ = ["ENV_ID", "PalaceEnv"]

ENV_ID = "Palace-v0"


class PalaceEnv(gymnasium.Env):
    """Palace from one seat against ``palace match`` agents (module doc).

    :raises AgentError: an unknown opponent.
    :raises RulesError: an unknown variant, or rules that cannot seat ``num_players``.
    :raises ValueError: a bad seat, opponent list, cap or render mode.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, num_players: int = 2, variants=(), opponent="greedy",
                 seat: int | None = None, swap: bool = False, cap: int = CAP,
                 illegal_reward: float = -1.0, render_mode: str | None = None,
                 engine: str = "auto"):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: None, 'human' or 'ansi'")
        self.rules = make_rules(variants)
        # HandTracker, not the driver's lighter PublicHands: searching agents read the
        # positions already played from it (a repeated one is a draw)
        self.game = Game(self.rules, num_players, swap=swap, cap=cap, engine=engine,
                         tracker=HandTracker)
        n = num_players
        specs = [opponent] * (n - 1) if isinstance(opponent, str) else list(opponent)
        if len(specs) != n - 1:
            raise ValueError(f"{len(specs)} opponents for {n - 1} other seats")
        for spec in specs:
            parse_agent(spec)
        self.opponents = specs
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat {seat} of {n} players")
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        n_actions = self.game.codec.num_actions
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, observation_high(), (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)})
        self.action_space = spaces.Discrete(n_actions)
        self._agents: dict = {}
        self._bot_rng = random.Random(0)
        self._done = True

    # -- the Gymnasium API ----------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """A new game; ``options={"seat": k}`` seats the learner at ``k`` for this one."""
        super().reset(seed=seed)
        g, n = self.game, self.game.n
        episode = int(self.np_random.integers(2 ** 63))
        seat = (options or {}).get("seat", self.fixed_seat)
        self.seat = int(self.np_random.integers(n)) if seat is None else int(seat)
        if not 0 <= self.seat < n:
            raise ValueError(f"seat {self.seat} of {n} players")
        others = [(self.seat + k) % n for k in range(1, n)]
        self._agents = {q: make_agent(spec, (episode + q) % 2 ** 63)
                        for q, spec in zip(others, self.opponents)}
        watchers = [a for a in self._agents.values() if hasattr(a, "observe")]
        for a in watchers:
            a.begin(self.rules, n, n + g.cap)   # every seat lays out once before the cap
        self._bot_rng = random.Random(f"palace-bots-{episode}")
        g.reset(random.Random(f"palace-chance-{episode}"), watchers)
        for a in self._agents.values():
            if hasattr(a, "tracker"):
                a.tracker = g.tracker
        self._done = False
        self._play_others()
        if self._done:  # pragma: no cover - no game ends before every seat has played
            raise RuntimeError("the game ended before the learner's first decision")
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() after the episode ended: call reset()")
        g = self.game
        if not g.is_legal(int(action)):
            self._done = True
            return self._obs(), self.illegal_reward, True, False, self._info(illegal=True)
        g.play(int(action))
        self._play_others()
        reward, terminated, truncated = 0.0, False, False
        if self._done:
            reward = 1.0 - self._loss()
            truncated = g.over and g.reason == "cap"
            terminated = not truncated
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (for sb3-contrib's MaskablePPO)."""
        return self.game.action_mask().astype(bool)

    def render(self):
        return render_as(self.game, self.render_mode)

    # -- internals --------------------------------------------------------------------------
    def _play_others(self) -> None:
        """The other seats' decisions until the learner's turn or the end of its game."""
        g = self.game
        while not g.over and not g.state.out[self.seat] and g.to_move != self.seat:
            agent = self._agents[g.to_move]
            g.play(agent.choose(g.state, self._bot_rng))
        self._done = g.over or g.state.out[self.seat]

    def _loss(self) -> float:
        g = self.game
        return 0.0 if g.state.out[self.seat] else float(g.loss[self.seat])

    def _obs(self):
        g = self.game
        mask = g.action_mask() if not self._done and g.to_move == self.seat else \
            np.zeros(g.codec.num_actions, dtype=np.int8)
        return {"observation": g.observation(self.seat), "action_mask": mask}

    def _info(self, illegal: bool = False) -> dict:
        g = self.game
        info = {"seat": self.seat, "history": g.history,
                "legal_actions": [] if self._done else g.legal_actions()}
        if illegal:
            info["illegal"] = True
        if g.over:
            info.update(reason=g.reason, loss=[float(x) for x in g.loss])
        return info


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point=f"{__name__}:PalaceEnv")

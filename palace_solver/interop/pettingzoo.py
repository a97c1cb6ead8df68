"""Palace as a PettingZoo environment, in the style of PettingZoo's classic games (AEC API).

>>> from palace_solver.interop.pettingzoo import env
>>> e = env(num_players=3, variants="seven_low")
>>> e.reset(seed=0)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
...     e.step(action)

Needs the ``rl`` extra (``pip install '.[rl]'``); the core package never imports PettingZoo.

Agents ``player_0`` .. ``player_{n-1}`` in seat order, 2 to 6 (``num_players``), under any
rules (``variants``: switch names of RULES.md as a list or a string separated by commas or
``+``). The deal's swap phase is an option (``swap=True``: each seat chooses its face-up
cards, action ids from 128); off by default, when every seat lays out as the ``greedy`` bot
does, as ``palace match``'s starts do. The game itself is :class:`palace_solver.interop.rl.Game`
(the reference engine, ended as ``palace match`` ends a game).

- Observation: ``{"observation": float32[345], "action_mask": int8[num_actions]}``; the
  array is what that seat may see (layout in :mod:`palace_solver.interop.rl` and
  docs/rl.md); the mask is all zeros for a seat that is not to move.
- Actions: ``Discrete(128)`` (``128 + layouts`` with ``swap``), OpenSpiel's ids.
- Rewards: ``1 - loss share`` for every seat when the game ends (the loser 0, the others 1;
  a draw shared by the players still in, as RULES.md scores it), 0 before. A seat that goes
  out keeps no turn but stays an agent until the end, when every agent is done together.
- Termination: the game's end and a repeated decision position (a draw) terminate every
  agent; ``cap`` decisions (default 400, ``palace match``'s) truncate them, with the draw
  scored in the rewards.
- ``infos[agent]``: ``history`` (the public record of the game so far, one list shared
  by all agents and growing: ``(seat, move, card)``, see
  :class:`~palace_solver.interop.rl.Game`) and, at the end, ``reason`` (``end``,
  ``repetition`` or ``cap``) and ``loss`` (each seat's share). The legal moves as text, and
  the game itself, are ``env.unwrapped.game`` (``legal_moves()``, ``codec.decode(id)``).
- ``render_mode``: ``"ansi"`` returns the table as text, every hand shown (a spectator's
  view); ``"human"`` prints it after every step.
- ``engine``: ``"auto"`` (the compiled engine's legal moves when it is built), ``"cython"``
  or ``"python"``; the game is the same (see :mod:`palace_solver.interop.rl`).

``env()`` wraps ``raw_env`` as the classic games are wrapped: an illegal action ends the game
with reward -1 for the seat that played it and 0 for the others (``TerminateIllegalWrapper``),
an action outside the space fails, and the API order is enforced. ``raw_env`` itself raises
:class:`~palace_solver.game.moves.IllegalMoveError` for an illegal action.
"""
from __future__ import annotations

import random

try:
    import numpy as np
    from gymnasium import spaces
    from gymnasium.utils import EzPickle
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("palace_solver.interop.pettingzoo needs PettingZoo and Gymnasium; "
                      "install them with `pip install '.[rl]'`") from e

from .rl import CAP, OBS_SIZE, Game, make_rules, observation_high, render_as

__all__ = ["env", "raw_env"]

#: The reward of an illegal action under :func:`env` (PettingZoo's classic convention).
ILLEGAL_REWARD = -1


def env(**kwargs):
    """The wrapped environment (module doc); keyword arguments as :class:`raw_env`."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=ILLEGAL_REWARD)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's name for the unwrapped class
    """Palace for ``num_players`` seats under ``variants`` (module doc).

    :raises RulesError: an unknown variant, or rules that cannot seat ``num_players``.
    :raises ValueError: a bad ``cap`` or ``render_mode``.
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "palace_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int = 2, variants=(), swap: bool = False,
                 cap: int = CAP, render_mode: str | None = None, engine: str = "auto"):
        EzPickle.__init__(self, num_players, variants, swap, cap, render_mode, engine)
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: None, 'human' or 'ansi'")
        self.rules = make_rules(variants)
        self.game = Game(self.rules, num_players, swap=swap, cap=cap, engine=engine)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = self.game.codec.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, observation_high(), (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._rng: random.Random | None = None
        self.agent_selection = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        g = self.game
        seat = self._seat[agent]
        if g.to_move == seat:
            mask = g.action_mask()
        else:
            mask = np.zeros(g.codec.num_actions, dtype=np.int8)
        return {"observation": g.observation(seat), "action_mask": mask}

    def reset(self, seed=None, options=None):
        """A new deal. ``seed`` seeds the chance of this game and of the games after it
        (reset without a seed continues the stream; the first one draws from the system)."""
        if seed is not None or self._rng is None:
            self._rng = random.Random(seed)
        g = self.game
        g.reset(random.Random(self._rng.getrandbits(64)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"history": g.history} for a in self.agents}
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.play(int(action))
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        g = self.game
        for a in self.agents:
            self.rewards[a] = 0.0
        if g.over:
            ended = {"reason": g.reason, "loss": [float(x) for x in g.loss]}
            done = self.truncations if g.reason == "cap" else self.terminations
            for a, r in zip(self.possible_agents, g.rewards()):
                self.rewards[a] = r
                done[a] = True
                self.infos[a].update(ended)
            # agent_selection stays on the seat that moved last: it is done first
        else:
            self.agent_selection = self.possible_agents[g.to_move]

    def render(self):
        return render_as(self.game, self.render_mode)

    def close(self):
        pass

    def __str__(self):
        return self.metadata["name"]

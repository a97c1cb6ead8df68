"""A small trained policy as a ``palace match`` agent: ``palace match policy:path=FILE.npz greedy``.

The policy is a masked softmax over the action ids of :mod:`palace_solver.interop.rl`,
computed by a multilayer perceptron in plain numpy from the observation array (each entry
scaled by its largest value, :func:`~palace_solver.interop.rl.observation_high`). Its file is
a ``.npz`` of the layers ``W0, b0, W1, b1, ...`` (tanh between them) and ``obs_size``,
``num_actions``: what ``examples/train_rl.py`` writes.

:class:`PolicyAgent` sees what its seat sees, as every agent of ``palace match``: it builds
the observation of its seat from the state and the driver's
:class:`~palace_solver.agents.method_bots.HandTracker` (its ``tracker``), exactly as the
environments do, and plays the most probable legal action (``sample=1``: draws one). Forced
moves are played without the network and the deal's layouts are ``greedy``'s (the policy has
no layout actions).
"""
from __future__ import annotations

import random

import numpy as np

from ..game.moves import Move
from ..game.state import PLAY_PHASE, State
from ..sample.policies import GreedyBot
from .rl import NUM_PLAY_ACTIONS, OBS_SIZE, ActionCodec, encode_observation, observation_high

__all__ = ["MLPPolicy", "PolicyAgent"]

_SCALE = (1.0 / observation_high()).astype(np.float32)


class MLPPolicy:
    """Layers ``[(W, b), ...]``; tanh hidden units; logits over the actions."""

    def __init__(self, layers):
        self.layers = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64))
                       for w, b in layers]
        if self.layers[0][0].shape[0] != OBS_SIZE:
            raise ValueError(f"the policy reads {self.layers[0][0].shape[0]} inputs, "
                             f"the observation has {OBS_SIZE}")
        self.num_actions = self.layers[-1][0].shape[1]

    @classmethod
    def init(cls, hidden=(64,), num_actions: int = NUM_PLAY_ACTIONS, seed: int = 0):
        """Random weights (scaled Gaussian), a zero last layer: the uniform policy."""
        rng = np.random.default_rng(seed)
        sizes = [OBS_SIZE, *hidden, num_actions]
        layers = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            w = rng.normal(0.0, 1.0 / np.sqrt(a), (a, b)) if i < len(sizes) - 2 \
                else np.zeros((a, b))
            layers.append((w, np.zeros(b)))
        return cls(layers)

    @staticmethod
    def scale(obs) -> np.ndarray:
        """The network's input: observations (one or a batch) scaled into [0, 1]."""
        return np.asarray(obs, dtype=np.float64) * _SCALE

    def forward(self, x):
        """``(logits, hidden activations)`` of scaled inputs ``x`` (batch, OBS_SIZE)."""
        acts = [x]
        for w, b in self.layers[:-1]:
            x = np.tanh(x @ w + b)
            acts.append(x)
        w, b = self.layers[-1]
        return x @ w + b, acts

    def probs(self, obs, mask) -> np.ndarray:
        """The action probabilities of one observation, illegal actions at 0."""
        logits, _ = self.forward(self.scale(obs)[None, :])
        return masked_softmax(logits, np.asarray(mask)[None, :])[0]

    def act(self, obs, mask, rng: np.random.Generator | None = None) -> int:
        """The most probable legal action, or one drawn with ``rng``."""
        p = self.probs(obs, mask)
        if rng is None:
            return int(np.argmax(p))
        return int(rng.choice(len(p), p=p))

    def save(self, path) -> None:
        arrays = {"obs_size": OBS_SIZE, "num_actions": self.num_actions}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"W{i}"], arrays[f"b{i}"] = w, b
        np.savez(path, **arrays)

    @classmethod
    def load(cls, path) -> "MLPPolicy":
        """:raises ValueError: a file of another observation size."""
        with np.load(path) as f:
            if int(f["obs_size"]) != OBS_SIZE:
                raise ValueError(f"{path}: a policy for observations of {int(f['obs_size'])} "
                                 f"entries, not {OBS_SIZE}")
            k = sum(1 for name in f.files if name.startswith("W"))
            return cls([(f[f"W{i}"], f[f"b{i}"]) for i in range(k)])


def masked_softmax(logits, mask) -> np.ndarray:
    """Softmax of each row over its legal entries (``mask`` nonzero); 0 elsewhere."""
    z = np.where(mask > 0, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class PolicyAgent:
    """A trained :class:`MLPPolicy` at the table (module doc). ``path``: its ``.npz`` file;
    ``sample``: 1 to draw the action (from the agent's own seeded generator)."""

    name = "policy"

    def __init__(self, seed: int = 0, path: str | None = None, sample: int = 0,
                 policy: MLPPolicy | None = None):
        if policy is None:
            if path is None:
                raise TypeError("policy needs path=FILE.npz (a trained policy)")
            policy = MLPPolicy.load(path)
        self.policy = policy
        self.rng = np.random.default_rng(seed) if sample else None
        self.tracker = None
        self.stats = {"decisions": 0}
        self._codecs: dict = {}

    def choose(self, state: State, rng: random.Random) -> Move:
        self.stats["decisions"] += 1
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        if state.phase != PLAY_PHASE:
            return GreedyBot().choose(state, rng)
        me = state.to_move
        known = self.tracker.known if self.tracker is not None else \
            [[0] * len(h) for h in state.hands]
        codec = self._codecs.get((state.rules, state.n))
        if codec is None:
            codec = self._codecs[(state.rules, state.n)] = ActionCodec(state.rules, state.n)
        ids = [codec.ids[m] for m in moves]
        mask = np.zeros(self.policy.num_actions, dtype=np.int8)
        mask[ids] = 1
        action = self.policy.act(encode_observation(state, me, known), mask, self.rng)
        return moves[ids.index(action)]

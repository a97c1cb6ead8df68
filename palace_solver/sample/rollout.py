"""Playouts and a depth-limited expectimax over one determinization (a State whose hands are
all known; face-down cards and the draw pile are chance events from its pool).

Why. A determinization with a draw pile is out of reach of the exact solver (the draw pile
makes the game long and every refill is a chance event), so the sampled analysis values it
with a short lookahead and a playout at the horizon:

- :func:`playout`: the game played to its end by a bot policy (``greedy`` by default:
  policies.py), chance events drawn from the pool with the given generator. A playout longer
  than ``cap`` decisions is scored as a draw (the players still in share the loss, as
  RULES.md scores endless play).
- :func:`expectimax`: decision nodes to ``depth`` plies, each mover minimising its own
  estimated loss (ties: the first move in legal-move order, as the exact solver); chance
  nodes (draws, flips) are expanded over every outcome with its probability when a single
  chance event with at most ``chance_width`` outcomes leads to decision nodes, and
  otherwise valued over ``chance_width`` complete chance sequences (a refill of several
  cards is one sequence) drawn with their probabilities (sparse sampling, Kearns, Mansour &
  Ng 2002: the plain average is an unbiased estimate of the expectation). Chance nodes do
  not use up depth. At the
  horizon a node is worth the mean of ``rollouts`` playouts.

Everything works on either engine's states (the compiled ``CState`` or the reference
``State``): they share the OpenSpiel-shaped API, and the bots only read ``legal_moves()`` and
``rules``.
"""
from __future__ import annotations

import random

from .policies import make_bot

#: Decisions after which a playout is scored as a draw.
PLAYOUT_CAP = 400


def draw_shares(state) -> list[float]:
    """Endless play: the players still in share the loss. Works on both engines (a player
    is out when it holds no card; both engines end the game when one player is left)."""
    s = state.to_state() if hasattr(state, "to_state") else state
    act = [p for p in range(s.n) if not s.out[p]]
    return [1.0 / len(act) if not s.out[p] else 0.0 for p in range(s.n)]


def chance_sample(outcomes, rng: random.Random) -> int:
    """One outcome of ``[(rank, prob), ...]`` drawn with its probability."""
    x = rng.random()
    for r, p in outcomes:
        x -= float(p)
        if x < 0:
            return r
    return outcomes[-1][0]


def playout(state, rng: random.Random, policy: str = "greedy", cap: int = PLAYOUT_CAP):
    """Play ``state`` (modified in place) to the end; each player's loss share as floats."""
    bot = make_bot(policy)
    steps = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(chance_sample(state.chance_outcomes(), rng))
            continue
        if steps >= cap:
            return draw_shares(state)
        state.apply(bot.choose(state, rng))
        steps += 1
    return [float(x) for x in state.result()]


def _mean(vs, n):
    k = len(vs)
    return [sum(v[i] for v in vs) / k for i in range(n)]


class Expectimax:
    """Depth-limited expectimax with playouts at the horizon (module doc).

    :param depth: decision plies searched below the node (>= 1 to value the root's moves).
    :param rollouts: playouts averaged at each horizon node.
    :param chance_width: outcomes kept at a chance node (all of them when there are fewer).
    :param policy: the playout bot.
    """

    def __init__(self, n: int, rng: random.Random, depth: int = 1, rollouts: int = 2,
                 chance_width: int = 4, policy: str = "greedy"):
        self.n, self.rng, self.depth = n, rng, depth
        self.rollouts, self.chance_width, self.policy = rollouts, chance_width, policy
        self.nodes = 0
        self.playouts = 0

    def value(self, state, depth: int) -> list[float]:
        self.nodes += 1
        if state.is_terminal():
            return [float(x) for x in state.result()]
        if state.is_chance():
            outs = state.chance_outcomes()
            if len(outs) <= self.chance_width:
                total = [0.0] * self.n
                kids = []
                for r, p in outs:
                    c = state.clone()
                    c.apply(r)
                    kids.append((p, c))
                if not any(c.is_chance() for _, c in kids):
                    for p, c in kids:
                        v = self.value(c, depth)
                        for i in range(self.n):
                            total[i] += float(p) * v[i]
                    return total
            vs = []
            for _ in range(self.chance_width):
                c = state.clone()
                while c.is_chance():
                    c.apply(chance_sample(c.chance_outcomes(), self.rng))
                vs.append(self.value(c, depth))
            return _mean(vs, self.n)
        if depth <= 0:
            vs = []
            for _ in range(self.rollouts):
                self.playouts += 1
                vs.append(playout(state.clone(), self.rng, self.policy))
            return _mean(vs, self.n)
        return min(self.move_values(state, depth), key=lambda mv: mv[1][state.current_player()])[1]

    def move_values(self, state, depth: int | None = None) -> list[tuple]:
        """``[(move, loss vector), ...]`` for every legal move, in legal-move order."""
        depth = self.depth if depth is None else depth
        out = []
        for m in state.legal_moves():
            c = state.clone()
            c.apply(m)
            out.append((m, self.value(c, depth - 1)))
        return out

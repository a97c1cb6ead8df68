"""OpenSpiel's random-rollout evaluation, played on the compiled engine.

OpenSpiel's ``RandomRolloutEvaluator`` plays uniformly random legal actions (chance by its
probabilities) from a leaf to the end and returns the final returns. On ``python_palace``
each step runs the Python reference engine, and random Palace games are long (one
profiled tournament game made 81,616 ``apply_action`` calls, 5 simulations a decision),
so OpenSpiel's ISMCTS bot could afford only a few simulations. :class:`CompiledRollouts`
samples the same distribution, uniform over the same legal moves (the engines agree move
for move: tests/test_parity.py) with the same turn cap, on a ``CState``.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from open_spiel.python.algorithms import mcts

from ..solve.engine import compiled


class CompiledRollouts(mcts.Evaluator):
    """``mcts.RandomRolloutEvaluator(n_rollouts=1)`` for ``python_palace`` states."""

    def __init__(self, random_state: np.random.RandomState | None = None):
        self._rs = random_state or np.random.RandomState()
        self._eng = compiled()

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        max_turns = state.get_game().max_turns
        turns = state.turns
        c = self._eng.CState.from_state(state.engine)
        rs = self._rs
        while not c.is_terminal():
            if c.is_chance():
                outcomes = c.chance_outcomes()
                p = np.array([float(w) for _, w in outcomes])
                c.apply(outcomes[rs.choice(len(outcomes), p=p / p.sum())][0])
                continue
            moves = c.legal_moves()
            c.apply(moves[rs.randint(len(moves))])
            turns += 1
            if turns >= max_turns and not c.is_terminal():
                # python_palace's cap: the players still in share the loss
                active = c.to_state().active()
                share = float(Fraction(1, len(active)))
                return np.array([1.0 - share if q in active else 1.0 for q in range(c.n)])
        return np.array([1.0 - float(x) for x in c.result()])

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]

"""OpenSpiel's ISMCTS bot as a Palace agent (``os_ismcts`` in :mod:`palace_solver.agents.registry`).

OpenSpiel games start at the deal, and its ISMCTS resamples worlds from the information
state, which needs the whole history. The agent therefore keeps its own ``python_palace``
state in step with the game: the driver feeds it every event from the deal on
(:meth:`OsIsmctsAgent.observe`: chance ranks as ints, decisions as Moves), and at its turn
:meth:`OsIsmctsAgent.choose` asks ``ismcts.ISMCTSBot`` for an action on that state and checks
that it is the same position as the game's. Leaf values come from random rollouts, on the
compiled engine by default (:class:`~palace_solver.interop.openspiel_rollout.CompiledRollouts`)
or OpenSpiel's own ``RandomRolloutEvaluator`` (``rollout="openspiel"``).
"""
from __future__ import annotations

import numpy as np

from ..game.moves import Move

__all__ = ["OsIsmctsAgent"]


class OsIsmctsAgent:
    """OpenSpiel ISMCTS, ``sims`` simulations per decision (module doc)."""

    name = "os_ismcts"

    def __init__(self, seed: int = 0, sims: int = 1000, uct: float = 1.4,
                 rollout: str = "compiled"):
        import pyspiel  # noqa: F401 - fails early without the openspiel extra

        from . import openspiel_game  # noqa: F401 - registers python_palace
        if rollout not in ("compiled", "openspiel"):
            raise ValueError(f"os_ismcts rollout {rollout!r}: compiled or openspiel")
        self.seed, self.sims, self.uct, self.rollout = seed, sims, uct, rollout
        self._st = None
        self._bot = None
        self.stats = {"decisions": 0, "searched": 0, "samples": 0, "seconds": 0.0}

    def begin(self, rules, n: int, max_turns: int) -> None:
        """A new game of ``n`` players under ``rules``; events follow from the deal.
        ``max_turns``: python_palace's cap (decisions from the deal), which also caps the
        rollouts (then a draw)."""
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        variants = "+".join(rules.variants())
        game = pyspiel.load_game("python_palace", {"players": n, "variants": variants,
                                                   "max_turns": max_turns})
        rs = np.random.RandomState(self.seed % 2 ** 32)
        if self.rollout == "compiled":
            from .openspiel_rollout import CompiledRollouts
            evaluator = CompiledRollouts(rs)
        else:
            evaluator = mcts.RandomRolloutEvaluator(1, rs)
        self._bot = ismcts.ISMCTSBot(game, evaluator, uct_c=self.uct,
                                     max_simulations=self.sims, random_state=rs)
        self._st = game.new_initial_state()

    def observe(self, event) -> None:
        """One event of the game, in order: a chance rank (int) or a decision (Move)."""
        st = self._st
        st.apply_action(event if isinstance(event, int) else st.action_of(event))

    def choose(self, state, rng) -> Move:
        import time

        st = self._st
        if st.engine.key() != state.key():
            raise RuntimeError("os_ismcts: its game and the match's differ (a missed event)")
        self.stats["decisions"] += 1
        legal = st.legal_actions()
        if len(legal) == 1:
            return st.move_of(legal[0])
        t = time.perf_counter()
        action = self._bot.step(st)
        self.stats["seconds"] += time.perf_counter() - t
        self.stats["searched"] += 1
        self.stats["samples"] += self.sims
        return st.move_of(action)

"""CompiledRollouts samples what OpenSpiel's RandomRolloutEvaluator samples.

Skipped when open_spiel is not installed (`pip install .[openspiel]`).
"""
import math
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402

import palace_solver.interop.openspiel_game  # noqa: E402,F401 - registers python_palace
from palace_solver.game.state import PLAY_PHASE  # noqa: E402
from palace_solver.interop.openspiel_rollout import CompiledRollouts  # noqa: E402


def play_state(seed: int, max_turns: int = 1000, cards_left: int = 10):
    """A python_palace state in the play phase with at most ``cards_left`` cards in play
    and an empty draw pile, reached by random play from a seeded deal."""
    game = pyspiel.load_game("python_palace", {"players": 2, "max_turns": max_turns})
    rng = random.Random(seed)
    while True:
        st = game.new_initial_state()
        while not st.is_terminal():
            s = st.engine
            if (s.phase == PLAY_PHASE and not st.is_chance_node() and s.draw_pile == 0
                    and sum(s.cards_left(p) for p in range(2)) <= cards_left):
                return st
            if st.is_chance_node():
                acts, probs = zip(*st.chance_outcomes())
                st.apply_action(rng.choices(acts, weights=probs)[0])
            else:
                st.apply_action(rng.choice(st.legal_actions()))


def mean_and_se(evaluator, state, n):
    xs = np.array([evaluator.evaluate(state)[0] for _ in range(n)])
    return xs.mean(), xs.std(ddof=1) / math.sqrt(n) if xs.std() > 0 else 0.0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_mean_return_as_openspiel_rollouts(seed):
    st = play_state(seed)
    n = 1500
    ours, se_ours = mean_and_se(CompiledRollouts(np.random.RandomState(seed)), st, n)
    theirs, se_theirs = mean_and_se(
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)), st, n)
    # two independent samples of the same distribution: within 4.5 standard errors
    assert abs(ours - theirs) <= 4.5 * math.hypot(se_ours, se_theirs) + 1e-12, (ours, theirs)


def test_returns_sum_to_one_and_terminal_states_pass_through():
    ev = CompiledRollouts(np.random.RandomState(0))
    st = play_state(5)
    for _ in range(50):
        r = ev.evaluate(st)
        assert len(r) == 2 and abs(r.sum() - 1.0) < 1e-12 and all(0 <= x <= 1 for x in r)
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(st.chance_outcomes()[0][0])
        else:
            st.apply_action(st.legal_actions()[0])
    assert list(ev.evaluate(st)) == st.returns()


def test_turn_cap_shares_the_loss():
    # a cap one decision away: every rollout that does not end the game at once is a draw
    st = play_state(7, max_turns=10 ** 6)
    game = pyspiel.load_game("python_palace", {"players": 2, "max_turns": st.turns + 1})
    capped = game.new_initial_state()
    for p, a, _ in st._d.hist:
        capped.apply_action(a)
    assert capped.turns == st.turns and not capped.is_terminal()
    ev = CompiledRollouts(np.random.RandomState(3))
    results = {tuple(ev.evaluate(capped)) for _ in range(40)}
    assert (0.5, 0.5) in results
    assert results <= {(0.5, 0.5), (1.0, 0.0), (0.0, 1.0)}

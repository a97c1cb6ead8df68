"""Inference of the others' hidden hands (ext/policy.pxi, ext/decide.pxi, agents/method_bots).

The candidates' weights are a distribution; without observations the deals are the uniform
ones, dealt as before; otherwise each candidate's weight
is the likelihood of the observed moves under the policy model, the hands rebuilt from the
candidate, which is checked here against the model evaluated move by move in Python.
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from palace_solver.agents.method_bots import HandTracker, observations
from palace_solver.agents.play import _sample
from palace_solver.game.rules import Rules
from palace_solver.game.state import PLAY_PHASE, State
from palace_solver.sample.drawsearch import SearchConfig, analyze_search, decide, state_view
from palace_solver.sample.policies import GreedyBot, RandomBot
from palace_solver.solve.engine import compiled, use_eval_weights

E = compiled()
CFG = SearchConfig(determinizations=8, nodes=2000, chance_width=0, rollouts=0, max_depth=2,
                   eval="cardcount", infer=4)
#: a model that prefers low plays and dislikes pickups (any fixed coefficients will do)
THETA = [0.3 * ((j * 7) % 5 - 2) for j in range(E.POLICY_FEATURES)]


def _endgame_positions(count: int, seed: int = 0):
    """(state, seat, tracker) of positions after the draw pile ran out where another
    player holds unknown cards, from games of a random and a greedy player."""
    found = []
    rng = random.Random(seed)
    g = 0
    while len(found) < count:
        g += 1
        s = State.new_game(Rules(), 2)
        tracker = HandTracker(2)
        bots = [GreedyBot(), RandomBot()]
        for _ in range(600):
            if s.is_terminal():
                break
            if s.is_chance():
                tracker.apply(s, _sample(s, rng))
                continue
            if s.phase == PLAY_PHASE and s.draw_pile == 0 and rng.random() < 0.5:
                me = s.to_move
                view, hidden = state_view(s, me, tracker.known)
                obs = _since_draws(observations(s, me, tracker))
                if sum(hidden) and any(sum(o[4]) for o in obs):
                    found.append((s.clone(), me, tracker.clone()))
                    break
            tracker.apply(s, bots[s.to_move].choose(s, rng))
    return found


def _since_draws(obs):
    """The observations after the last one followed by a draw (rebuilt without chance)."""
    for i in range(len(obs) - 1, -1, -1):
        if obs[i][5]:
            return obs[i + 1:]
    return obs


def _load(theta):
    """The shipped network, then these coefficients as its policy model."""
    use_eval_weights("")
    E.load_policy_weights(theta)


@pytest.fixture
def theta():
    _load(THETA)
    yield THETA
    E.unload_policy_weights()


def test_the_policy_model_is_a_distribution_over_the_legal_moves(theta):
    rng = random.Random(1)
    for s, me, _ in _endgame_positions(6):
        c = E.CState.from_state(s)
        moves = c.legal_moves()
        p = [math.exp(E.policy_logprob(c, m)) for m in moves]
        if len(moves) > 1:
            assert abs(sum(p) - 1) < 1e-9 and all(0 < x < 1 for x in p)
        else:
            assert p == [1.0]
        rng.shuffle(moves)


def test_no_observation_no_inference(theta):
    s, me, tracker = _endgame_positions(1, seed=3)[0]
    view, hidden = state_view(s, me, tracker.known)
    plain = decide(view, hidden, CFG.with_(infer=0), 9)
    none = decide(view, hidden, CFG, 9, observations=[])
    assert "weights" not in none
    assert np.array_equal(none["values"], plain["values"]) and none["moves"] == plain["moves"]


def test_a_hand_with_more_choices_explains_a_move_less():
    """Even a model indifferent between moves (every coefficient 0) weighs a candidate by
    1 / (its legal moves) per observed choice: the weights follow that exactly."""
    _load([0.0] * E.POLICY_FEATURES)
    for s, me, tracker in _endgame_positions(3, seed=5):
        view, hidden = state_view(s, me, tracker.known)
        obs = _since_draws(observations(s, me, tracker))
        raw = decide(view, hidden, CFG, 4, observations=obs)
        w = raw["weights"]
        assert len(w) == CFG.determinizations * CFG.infer and abs(sum(w) - 1) < 1e-9
        logw = [_python_logw(view, hidden, E.determinize(view, hidden, E.candidate_seed(4, c)),
                             obs, me) for c in range(len(w))]
        m = max(logw)
        z = sum(math.exp(x - m) for x in logw)
        assert all(abs(a - math.exp(b - m) / z) < 1e-9 for a, b in zip(w, logw))


def _python_logw(view, hidden, cand, obs, me):
    """The log-likelihood of the observed moves given a candidate deal, rebuilt in Python:
    going back over a decision adds the unknown cards it played (no draws here)."""
    cs = cand.to_state()
    vs = view.to_state()
    total = 0.0
    for q in range(len(hidden)):
        if q == me or not hidden[q]:
            continue
        u = [cs.hands[q][r] - vs.hands[q][r] for r in range(16)]
        for ov, oh, oq, mv, up, drawn in reversed(obs):
            if oq != q:
                continue
            assert drawn == 0
            u = [a + b for a, b in zip(u, up)]
            assert sum(u) == oh[q]
            st = ov.to_state()
            for r in range(16):
                st.hands[q][r] += u[r]
                st.pool[r] -= u[r]
            total += E.policy_logprob(E.CState.from_state(st), mv)
    return total


@pytest.mark.parametrize("temp", [1.0, 0.5])
def test_weights_are_the_likelihood_of_the_observed_moves(theta, temp):
    # tempered (infer_temp T), a weight is the likelihood to the power T, normalised
    checked = 0
    cfg = CFG.with_(infer_temp=temp)
    for s, me, tracker in _endgame_positions(5, seed=11):
        view, hidden = state_view(s, me, tracker.known)
        obs = _since_draws(observations(s, me, tracker))
        seed = 21
        raw = decide(view, hidden, cfg, seed, observations=obs)
        w = raw["weights"]
        assert abs(sum(w) - 1) < 1e-9 and min(w) >= 0
        logw = [temp * _python_logw(view, hidden,
                                    E.determinize(view, hidden, E.candidate_seed(seed, c)),
                                    obs, me)
                for c in range(len(w))]
        m = max(logw)
        z = sum(math.exp(x - m) for x in logw)
        want = [math.exp(x - m) / z for x in logw]
        assert all(abs(a - b) < 1e-9 for a, b in zip(w, want))
        # the deals searched are candidates, drawn in proportion to their weights
        assert len(raw["chosen"]) == CFG.determinizations
        assert all(w[c] > 0 for c in raw["chosen"])
        checked += len(set(want)) > 1
    assert checked >= 3   # the model told the candidates apart in most positions


def test_a_live_session_reports_what_the_others_did():
    """Session.observations: bob's plays from unknown cards count as unknown cards played,
    his refills as cards drawn, and the hint's analysis takes them (stats.inference)."""
    from palace_solver.live.session import Session
    from palace_solver.live.setup import Setup
    s = Session(Setup(["me", "bob"], 0, Rules(), [4, 5, 13], [[2, 11, 12], [6, 6, 14]],
                      first=1))
    for line in ("bob 3", "me 4", "draw 9", "bob 7", "me 9", "draw 8", "bob pickup"):
        assert s.apply(line).ok, line
    obs = s.observations()
    assert [(str(o["move"]), o["player"], o["drawn"]) for o in obs] == \
        [("3", 1, 1), ("7", 1, 1), ("pickup", 1, 0)]
    assert [o["up"][3] for o in obs] == [1, 0, 0] and obs[1]["up"][7] == 1
    assert all(o["position"].perspective == 0 for o in obs)
    pos = s.position()
    _load(THETA)
    try:
        a = analyze_search(pos, samples=8, nodes=8000, seed=1, observations=obs, infer=4)
        assert a.stats["inference"]["observations"] == 3
        assert 1 <= a.stats["inference"]["effective_deals"] <= 32
        plain = analyze_search(pos, samples=8, nodes=8000, seed=1, infer=4)
        assert plain.stats["inference"] == {"observations": 0, "effective_deals": None}
    finally:
        E.unload_policy_weights()


def test_the_history_of_positions_shows_the_others_moves():
    """analyze --history: consecutive positions one move of another player apart give that
    move as an observation, the same as the live session's record of it."""
    from palace_solver.live.session import Session
    from palace_solver.live.setup import Setup
    from palace_solver.sample.drawsearch import observed_in_history
    s = Session(Setup(["me", "bob"], 0, Rules(), [4, 5, 13], [[2, 11, 12], [6, 6, 14]],
                      first=1))
    for line in ("bob 3", "me 4", "draw 9", "bob 7", "me 9", "draw 8", "bob pickup"):
        assert s.apply(line).ok, line
    from palace_solver.game.view import is_decision
    every = [s._position_of(u[0]) for u in s._undo if is_decision(u[0])]
    got = observed_in_history(s.position(), every)
    want = s.observations()
    assert [(str(o["move"]), o["player"], o["up"], o["drawn"]) for o in got] == \
        [(str(o["move"]), o["player"], o["up"], o["drawn"]) for o in want]
    # the user's own positions only: each is two moves from the next, nothing is certain
    mine = [p for p in every if p.to_move == p.perspective]
    assert observed_in_history(s.position(), mine) == []


def test_a_network_searches_with_another_generations_policy_model():
    """SearchConfig.policy: gen1's network with gen2's model of the other seats holds gen2's
    model exactly, and going back to gen1 alone brings gen1's model back."""
    s, me, _ = _endgame_positions(1, seed=3)[0]
    c = E.CState.from_state(s)
    moves = c.legal_moves()

    def logprobs(*names):
        use_eval_weights(*names)
        return [E.policy_logprob(c, m) for m in moves]
    try:
        own2, own1 = logprobs("gen2"), logprobs("gen1")
        assert own1 != own2                          # the two models differ here
        assert logprobs("gen1", "gen2") == own2
        assert E.eval_weights_loaded().endswith("eval_weights-gen1.npz")
        assert logprobs("gen1") == own1
        with pytest.raises(ValueError, match="no policy model"):
            use_eval_weights("gen1", "gen0")
        assert SearchConfig(policy="gen2").to_json()["policy"] == "gen2"
        assert "policy" not in SearchConfig().to_json()
    finally:
        use_eval_weights("")
        E.unload_policy_weights()

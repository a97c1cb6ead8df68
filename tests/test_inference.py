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


def _python_logw(view, hidden, cand, obs, me, temp=1.0, greedy=0.0, shares=None):
    """The log-likelihood of the observed moves given a candidate deal, rebuilt in Python
    and tempered: going back over a decision adds the unknown cards it played (no draws
    here). With ``greedy`` > 0 each seat's likelihood mixes the greedy style's (the Python
    greedy bot's move but for a slip) with prior ``greedy`` and the model's; ``shares``
    (a dict) then gets each other seat's greedy share of its mixed likelihood, a seat whose
    hand is known included (its likelihood is then the same for every candidate)."""
    cs = cand.to_state()
    vs = view.to_state()
    total = 0.0
    for q in range(len(hidden)):
        if q == me or not (hidden[q] or (greedy and shares is not None)):
            continue
        lm = lg = 0.0
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
            lm += E.policy_logprob(E.CState.from_state(st), mv)
            lg += _greedy_style_logprob(st, mv)
        if greedy:
            a, b = (1 - greedy) * math.exp(temp * lm), greedy * math.exp(temp * lg)
            if hidden[q]:
                total += math.log(a + b)
            if shares is not None:
                shares[q] = b / (a + b)
        else:
            total += temp * lm
    return total


def _greedy_style_logprob(st, mv):
    """The greedy style, by its definition: the greedy bot's move with probability
    1 - slip, the slip shared by every legal move; a forced move explains nothing."""
    moves = st.legal_moves()
    if len(moves) < 2:
        return 0.0
    assert mv in moves
    slip = E.GREEDY_STYLE_SLIP
    bot = GreedyBot().choose(st, random.Random(0))
    return math.log((1 - slip) * (mv == bot) + slip / len(moves))


@pytest.mark.parametrize("temp, greedy", [(1.0, 0.0), (0.5, 0.0), (1.0, 0.3), (0.5, 0.1)])
def test_weights_are_the_likelihood_of_the_observed_moves(theta, temp, greedy):
    # tempered (infer_temp T), a weight is the likelihood to the power T, normalised; with
    # the greedy style (infer_greedy g) each seat's likelihood is g L_greedy + (1 - g) L_model
    checked = 0
    cfg = CFG.with_(infer_temp=temp, infer_greedy=greedy)
    for s, me, tracker in _endgame_positions(5, seed=11):
        view, hidden = state_view(s, me, tracker.known)
        obs = _since_draws(observations(s, me, tracker))
        seed = 21
        raw = decide(view, hidden, cfg, seed, observations=obs)
        w = raw["weights"]
        assert abs(sum(w) - 1) < 1e-9 and min(w) >= 0
        logw = [_python_logw(view, hidden,
                             E.determinize(view, hidden, E.candidate_seed(seed, c)),
                             obs, me, temp, greedy)
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


def test_the_greedy_style_is_a_distribution_over_the_legal_moves_and_off_by_default():
    rng = random.Random(2)
    for s, me, _ in _endgame_positions(6, seed=7):
        c = E.CState.from_state(s)
        moves = c.legal_moves()
        p = [math.exp(E.greedy_style_logprob(c, m)) for m in moves]
        if len(moves) > 1:
            assert abs(sum(p) - 1) < 1e-12
            assert p.count(max(p)) == 1          # the greedy bot's move, the Python bot's
            assert moves[p.index(max(p))] == GreedyBot().choose(s, rng)
        else:
            assert p == [1.0]
    assert SearchConfig().infer_greedy == 0 and "infer_greedy" not in SearchConfig().to_json()
    assert SearchConfig(infer_greedy=0.2).to_json()["infer_greedy"] == 0.2
    for bad in (1.0, -0.1):
        with pytest.raises(ValueError, match="infer_greedy"):
            SearchConfig(infer_greedy=bad)
        with pytest.raises(ValueError, match="infer_greedy"):
            E.Decider(2, 1_000, infer_greedy=bad)


def test_the_style_of_a_seat_is_inferred_from_its_moves(theta):
    """With two players the weights under a prior g of the greedy style are a mixture of the
    model's weights and the style's, the style's share its posterior. Watching the greedy
    bot, the posterior rises above g on average, and over the most moves observed here
    (four) it leaves the model nearly nothing (one move can still point the other way:
    the bot's move may be likelier under the model for the hands that explain it)."""
    g, posts = 0.3, []
    for s, me, tracker in _endgame_positions(16, seed=13):
        assert me == 1                   # these positions watch the greedy bot, at seat 0
        view, hidden = state_view(s, me, tracker.known)
        obs = _since_draws(observations(s, me, tracker))

        def weights(prior):
            return np.array(decide(view, hidden, CFG.with_(infer_greedy=prior), 5,
                                   observations=obs)["weights"])
        model, style, mixed = weights(0.0), weights(1 - 1e-12), weights(g)
        if np.abs(model - style).max() < 1e-6:
            continue                     # the moves do not tell the styles apart here
        # mixed = (1 - post) model + post style, post the style's posterior
        post = float((mixed - model) @ (style - model) / ((style - model) @ (style - model)))
        assert 0 < post < 1
        assert np.abs(mixed - (1 - post) * model - post * style).max() < 1e-9
        posts.append((len(obs), post))
    assert len(posts) >= 10
    assert np.mean([p for _, p in posts]) > g
    assert max(posts)[1] > 0.9


def test_each_seats_style_is_its_posterior_and_each_deal_is_dealt_styles(theta):
    """decide's ``styles``: each seat's posterior of the greedy style, the candidates'
    weights times each one's greedy share of the seat's mixed likelihood (by the Python
    definition); ``greedy_seats``: each deal's seats of that style, only seats with hidden
    cards. ``model_styles`` searches those seats as the bot plays: nothing without the
    style's prior, and the search's values move where a deal holds such a seat."""
    g, changed, checked = 0.3, 0, 0
    for s, me, tracker in _endgame_positions(8, seed=13):
        view, hidden = state_view(s, me, tracker.known)
        obs = _since_draws(observations(s, me, tracker))
        cfg = CFG.with_(infer_greedy=g)
        raw = decide(view, hidden, cfg, 5, observations=obs)
        w = raw["weights"]
        want = [0.0] * len(hidden)
        for c in range(len(w)):
            shares = {}
            _python_logw(view, hidden, E.determinize(view, hidden, E.candidate_seed(5, c)),
                         obs, me, 1.0, g, shares)
            for q, x in shares.items():
                want[q] += w[c] * x
        for q, post in enumerate(raw["styles"]):
            if q != me:
                assert abs(post - want[q]) < 1e-9 and 0 <= post <= 1
            else:
                assert post is None
        masks = raw["greedy_seats"]
        assert len(masks) == CFG.determinizations
        assert all(not m >> me & 1 for m in masks)    # the mover's own moves are all searched
        checked += 1
        styled = decide(view, hidden, cfg.with_(model_styles=True), 5, observations=obs)
        assert styled["greedy_seats"] == masks and styled["weights"] == w
        assert decide(view, hidden, CFG.with_(model_styles=True), 5,
                      observations=obs)["values"].tolist() == \
            decide(view, hidden, CFG, 5, observations=obs)["values"].tolist()
        if any(masks):
            changed += styled["values"].tolist() != raw["values"].tolist()
    assert checked >= 6 and changed >= 1
    # every hand known: the styles are still dealt (the hands are not what is hidden)
    s, me, tracker = _endgame_positions(1, seed=13)[0]
    view, hidden = state_view(s, me, [s.hands[q][:] for q in range(s.n)])
    assert not any(hidden)
    obs = _since_draws(observations(s, me, tracker))
    cfg = CFG.with_(infer_greedy=g, model_styles=True)
    raw = decide(view, hidden, cfg, 5, observations=obs)
    assert raw["styles"][me] is None and 0 < raw["styles"][1 - me] < 1
    assert len(raw["greedy_seats"]) == CFG.determinizations and any(raw["greedy_seats"])
    assert "styles" not in decide(view, hidden, cfg.with_(model_styles=False), 5,
                                  observations=obs)
    # ... and with no move to read them from, nothing is dealt: one deal, the whole budget
    alone = decide(view, hidden, cfg, 5, observations=[])
    plain = decide(view, hidden, cfg.with_(model_styles=False), 5, observations=[])
    assert alone["nodes"] == plain["nodes"] and len(alone["depth"]) == len(plain["depth"]) == 1
    assert alone["values"].tolist() == plain["values"].tolist()
    with pytest.raises(ValueError, match="play only"):
        analyze_search(_a_position(), samples=2, nodes=2_000, infer_greedy=0.1,
                       model_styles=True)


def _a_position():
    from palace_solver.game.position import from_text
    return from_text("standard | me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 | pile 3 5 | "
                     "draw 32 | to_move 0")

"""The peers' algorithms as agents (ext/peers.pxi, palace_solver/agents/peers.py)."""
from __future__ import annotations

import random

import pytest

from palace_solver.agents.peers import MOS_NODES, SERVER_SIMS, MosUctAgent, ServerIsmctsAgent
from palace_solver.agents.registry import AGENTS, make_agent
from palace_solver.game.rules import Rules
from palace_solver.jobs.match import make_start, match_tasks, play_task, run_match
from palace_solver.sample.drawsearch import state_view
from palace_solver.sample.policies import RandomBot
from palace_solver.solve.engine import compiled

#: cheap budgets, so that whole games fit in a test
SERVER = "server_ismcts:sims=60"
MOS = "mos_uct:nodes=60"
#: fields of a match summary that do not depend on the machine
STABLE = ("a", "b", "players", "kind", "starts", "games", "score", "ci95", "p", "wins",
          "draws", "losses", "mean_decisions", "a_loss_rate")

VARIANTS = [Rules(), Rules(must_play=True), Rules(seven_low=True, invisible_8=True,
                                                  eight_reverses=True),
            Rules(lenient_blind=True, back_to_last_player=True),
            Rules(first_out_wins=True, aces_burn=True), Rules(four_cards=True, eight_skips=True)]


def positions(rules, n, kind, key, count=6, seed=0):
    """Decisions with a choice along a random game from a match start, with the tracker
    as the driver keeps it: [(state, tracker)]."""
    s, tracker, _ = make_start(kind, rules, n, key)
    rng = random.Random(seed)
    bot = RandomBot()
    out = []
    while not s.is_terminal() and len(out) < count:
        if s.is_chance():
            outcomes = s.chance_outcomes()
            tracker.apply(s, outcomes[rng.randrange(len(outcomes))][0])
            continue
        if len(s.legal_moves()) > 1:
            out.append((s.clone(), tracker.clone()))
        tracker.apply(s, bot.choose(s, rng))
    return out


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("kind", ["full", "late"])
def test_every_move_is_legal(n, kind):
    for v, rules in enumerate(VARIANTS):
        for spec in (SERVER, MOS, "server_ismcts:sims=40:grow=1"):
            agent = make_agent(spec, seed=v)
            for state, tracker in positions(rules, n, kind, f"legal-{v}", count=4, seed=v):
                agent.tracker = tracker
                assert kind == "late" or state.draw_pile > 0 or rules.jokers
                m = agent.choose(state, random.Random(0))
                assert m in state.legal_moves(), (spec, rules, state)
            assert agent.stats["searched"] > 0


def test_six_players_with_jokers():
    for spec in (SERVER, MOS):
        agent = make_agent(spec)
        for state, tracker in positions(Rules(jokers=True), 6, "full", "jokers", count=3):
            agent.tracker = tracker
            assert agent.choose(state, random.Random(0)) in state.legal_moves()


def test_same_seed_same_moves_and_seeds_matter():
    pos = positions(Rules(), 2, "full", "seeded", count=5)
    for spec in (SERVER, MOS):
        runs = []
        for seed in (4, 4, 5):
            agent = make_agent(spec, seed=seed)
            moves, roots = [], []
            for state, tracker in pos:
                agent.tracker = tracker
                moves.append(agent.choose(state, random.Random(0)))
                roots.append(agent.last_root)
            runs.append((moves, roots, agent.stats["nodes"], agent.stats["rollout_steps"]))
        assert runs[0] == runs[1]
        assert runs[0][1:] != runs[2][1:]  # another seed, other statistics


def test_the_agents_see_only_their_seat():
    """Swapping an opponent's unknown hand card with an unseen card of another rank changes
    nothing the agent is given, so nothing it plays."""
    state, tracker = positions(Rules(), 2, "full", "blind", count=1)[0]
    me, q = state.to_move, 1 - state.to_move
    hand, known = state.hands[q], tracker.known[q]
    r1 = next(r for r in range(2, 16) if hand[r] > known[r])
    r2 = next(r for r in range(2, 16) if state.pool[r] and r != r1)
    other = state.clone()
    other.hands[q][r1] -= 1
    other.hands[q][r2] += 1
    other.pool[r1] += 1
    other.pool[r2] -= 1
    v1, h1 = state_view(state, me, tracker.known)
    v2, h2 = state_view(other, me, tracker.known)
    assert v1.packed() == v2.packed() and h1 == h2
    for spec in (SERVER, MOS):
        a, b = make_agent(spec, seed=2), make_agent(spec, seed=2)
        a.tracker = b.tracker = tracker
        assert a.choose(state, random.Random(0)) == b.choose(other, random.Random(0))
        assert a.last_root == b.last_root


def test_server_tree_is_one_level_as_in_palace_server():
    """Their loop stops at every visited child without children: the tree never grows
    below the root (ext/peers.pxi). The first simulation runs from the root itself."""
    eng = compiled()
    for state, tracker in positions(Rules(), 2, "full", "server-tree", count=4):
        view, hidden = state_view(state, state.to_move, tracker.known)
        s = eng.ServerIsmcts(200, 0.7, False)
        move, root = s.choose(view, hidden, 9)
        assert s.depth == 1 and s.nodes == len(state.legal_moves()) + 1
        assert [m for m, _, _ in root] == state.legal_moves()  # expanded in move order
        assert sum(v for _, v, _ in root) == 199
        most = max(v for _, v, _ in root)
        assert move == [m for m, v, _ in root if v == most][-1]  # ties to the last
        assert s.capped == 0  # random rollouts end by themselves
        g = eng.ServerIsmcts(200, 0.7, True)
        g.choose(view, hidden, 9)
        assert g.depth > 1 and g.nodes == 200


def test_mos_tree_budget_and_decision():
    eng = compiled()
    for state, tracker in positions(Rules(), 2, "full", "mos-tree", count=4):
        view, hidden = state_view(state, state.to_move, tracker.known)
        m = eng.MosUct(150, 2.0, 1000, False)
        move, root = m.choose(view, hidden, 3)
        assert m.nodes == 150 and m.passes >= 149
        assert [mv for mv, _, _ in root] == state.legal_moves()  # every root play expanded
        best = max(w / v for _, v, w in root)
        assert move == [mv for mv, v, w in root if w / v == best][0]  # ties to the first
        robust = eng.MosUct(150, 2.0, 1000, True)
        move, root = robust.choose(view, hidden, 3)
        most = max(v for _, v, _ in root)
        assert move == [mv for mv, v, _ in root if v == most][0]


def test_mos_pass_cap():
    """Passes that expand nothing (a finished game selected) are bounded by max_passes."""
    eng = compiled()
    state, tracker = positions(Rules(), 2, "late", "small", count=1)[0]
    view, hidden = state_view(state, state.to_move, tracker.known)
    m = eng.MosUct(100_000, 2.0, 1000, False, 500)
    assert m.choose(view, hidden, 1)[0] in state.legal_moves()
    assert m.passes == 500 and m.nodes <= 501


@pytest.mark.parametrize("spec", [SERVER, MOS])
def test_a_game_against_greedy_completes(spec):
    r = play_task(match_tasks(spec, "greedy", starts=1, seed=1)[0])
    assert r["reason"] in ("end", "repetition", "cap") and r["a_decisions"] > 0


def test_match_rows_are_the_same_for_one_and_two_jobs(tmp_path):
    one = run_match(SERVER, MOS, starts=2, seed=3, jobs=1, progress=False)
    two = run_match(SERVER, MOS, starts=2, seed=3, jobs=2, progress=False,
                    output=tmp_path / "m.jsonl")
    assert {k: one[k] for k in STABLE} == {k: two[k] for k in STABLE}
    assert one["games"] == 4


@pytest.mark.parametrize("spec", [SERVER, MOS])
def test_each_beats_random(spec):
    """Late starts (empty draw pile, at most 12 cards in play), 50 of them in both seatings.
    Observed: 0.79 for server_ismcts:sims=60 and 0.83 for mos_uct:nodes=60; on the same
    starts random scores 0.555 against itself and greedy 0.795. (From full deals the peers
    draw most games against random, 4 wins, 12 draws, no loss for server_ismcts at its
    default budget over 8 starts: random rollouts value a voluntary pickup almost like a
    play, so both sides walk into a repeated position, which the game scores as a draw.)"""
    r = run_match(spec, "random", starts=50, seed=0, kind="late", jobs=1, progress=False)
    assert r["score"] >= 0.7 and r["ci95"][0] > 0.6, r


def test_registry_options_and_defaults():
    assert "server_ismcts" in AGENTS and "mos_uct" in AGENTS
    s = make_agent("server_ismcts")
    assert isinstance(s, ServerIsmctsAgent)
    assert (s.search.sims, s.search.c, s.search.grow) == (SERVER_SIMS, 0.7, False)
    m = make_agent("mos_uct")
    assert isinstance(m, MosUctAgent)
    assert (m.search.budget, m.search.c, m.search.rollout_cap, m.search.robust) == \
        (MOS_NODES, 2.0, 1000, False)
    m = make_agent("mos_uct:nodes=90:c=1.4:cap=300:policy=robust")
    assert (m.search.budget, m.search.c, m.search.rollout_cap, m.search.robust) == \
        (90, 1.4, 300, True)
    assert make_agent("server_ismcts:sims=7:c=1:grow=1").search.grow
    for bad in ("mos_uct:policy=best", "mos_uct:nodes=0", "server_ismcts:sims=0",
                "server_ismcts:bogus=1"):
        with pytest.raises(ValueError):
            make_agent(bad)

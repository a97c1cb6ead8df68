"""Properties of full games: random seeded games for 2 to 6 players and random variant sets.

At every event every card is accounted for; at every decision node the player to move
holds cards and has a legal move; illegal moves are rejected with a message quoting the move
and the position; results sum to 1; every game ends or is drawn within the turn cap.
"""
from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palace_solver import VARIANTS, IllegalMoveError, Move, Rules, RulesError, State
from palace_solver.agents.play import play_game, seats_for
from palace_solver.game.cards import RANKS, parse_rank
from palace_solver.game.state import PLAY_PHASE
from palace_solver.jobs.series import play_series
from palace_solver.sample.policies import BOTS, make_bot

TURN_CAP = 600
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def configs(draw):
    """(rules, n_players, bot names, seed) with variants valid for the player count."""
    n = draw(st.integers(2, 6))
    names = draw(st.lists(st.sampled_from([v for v in VARIANTS if v != "jokers"]),
                          max_size=4, unique=True))
    if n == 6 and draw(st.booleans()):
        names = [v for v in names if v != "two_decks"] + ["jokers"]  # one deck + 2 jokers
    rules = Rules.with_variants(names)
    try:
        rules.check_players(n)
    except RulesError:
        rules = rules.without("four_cards")
        rules.check_players(n)
    bots = draw(st.lists(st.sampled_from(sorted(BOTS)), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**32))
    return rules, n, bots, seed


def _illegal_candidates(state: State) -> list[Move]:
    legal = set(state.legal_moves())
    cands = [Move.play(r, k) for r in RANKS for k in (1, 2, 5)]
    cands += [Move.pickup(), Move.flip(), Move.pickup(RANKS[3])]
    return [m for m in cands if m not in legal]


def _run(rules, n, bot_names, seed):
    """Play a game by hand, checking the invariants at every node; returns the state and
    whether it ended on its own (not drawn)."""
    bots = [make_bot(b) for b in bot_names]
    rng = random.Random(seed)
    state = State.new_game(rules, n)
    seen = set()
    decisions = 0
    while not state.is_terminal():
        state.check_cards()
        if state.is_chance():
            outcomes = state.chance_outcomes()
            assert outcomes and sum(p for _, p in outcomes) == 1
            ranks, probs = zip(*outcomes)
            state.apply(rng.choices(ranks, weights=[float(p) for p in probs])[0])
            continue
        p = state.current_player()
        assert 0 <= p < n
        legal = state.legal_moves()
        assert legal, f"no legal move in {state.describe()}"
        if state.phase == PLAY_PHASE:
            assert not state.out[p] and state.cards_left(p) > 0
            key = state.key()
            if key in seen or decisions > TURN_CAP:
                return state, False
            seen.add(key)
        if decisions % 7 == 0:
            bad = rng.choice(_illegal_candidates(state))
            before = state.key()
            with pytest.raises(IllegalMoveError) as e:
                state.apply(bad)
            msg = str(e.value)
            assert repr(str(bad)) in msg and state.describe() in msg
            assert state.key() == before  # a rejected move changes nothing
        move = bots[p].choose(state, rng)
        assert move in legal
        state.apply(move)
        decisions += 1
    state.check_cards()
    return state, True


@SETTINGS
@given(configs())
def test_full_games_keep_every_invariant(config):
    rules, n, bots, seed = config
    state, ended = _run(rules, n, bots, seed)
    if ended:
        loss = state.result()
        assert sum(loss) == 1 and all(x >= 0 for x in loss)
        if not rules.first_out_wins:
            assert sorted(loss) == [0] * (n - 1) + [1]
            assert len(state.out_order) == n - 1


@SETTINGS
@given(configs())
def test_play_game_ends_or_draws_within_the_cap(config):
    rules, n, bots, seed = config
    rec = play_game(rules, n, bots, seed=seed, turn_cap=TURN_CAP, check=True)
    assert sum(rec.loss) == 1
    assert rec.decisions <= TURN_CAP + 1
    if rec.draw:
        assert rec.reason in ("repetition", "turn cap") and rec.loser is None
        shares = [x for x in rec.loss if x]
        assert len(set(shares)) == 1
    elif not rules.first_out_wins:
        assert rec.loss[rec.loser] == 1
    end = rec.events[-1]
    assert end["type"] == "end" and end["draw"] == rec.draw


@settings(max_examples=10, deadline=None)
@given(configs())
def test_play_game_is_deterministic_given_the_seed(config):
    rules, n, bots, seed = config
    a = play_game(rules, n, bots, seed=seed, turn_cap=TURN_CAP).to_json()
    assert a == play_game(rules, n, bots, seed=seed, turn_cap=TURN_CAP).to_json()


@settings(max_examples=30, deadline=None)
@given(configs(), st.integers(0, 10**6))
def test_bots_ignore_hidden_cards(config, salt):
    """Greedy and lowest choose the same move whatever the unseen cards and the other
    players' hands are (same counts)."""
    rules, n, _, seed = config
    rec_state = State.new_game(rules, n)
    rng = random.Random(seed)
    steps = 0
    while not rec_state.is_terminal() and steps < 200:
        steps += 1
        if rec_state.is_chance():
            rec_state.apply(rng.choice([r for r, _ in rec_state.chance_outcomes()]))
            continue
        p = rec_state.current_player()
        other = rec_state.clone()
        # Scramble what p cannot see: the unseen pool and the other hands (same sizes).
        mix = random.Random(salt + steps)
        hidden = [r for q in range(n) if q != p for r in RANKS for _ in range(other.hands[q][r])]
        hidden += [r for r in RANKS for _ in range(other.pool[r])]
        mix.shuffle(hidden)
        for q in range(n):
            if q == p:
                continue
            k = sum(other.hands[q])
            other.hands[q] = [0] * len(other.hands[q])
            for r in hidden[:k]:
                other.hands[q][r] += 1
            hidden = hidden[k:]
        other.pool = [0] * len(other.pool)
        for r in hidden:
            other.pool[r] += 1
        for name in ("greedy", "lowest"):
            bot = make_bot(name)
            assert bot.choose(rec_state, random.Random(1)) == bot.choose(other, random.Random(1))
        rec_state.apply(make_bot("random").choose(rec_state, rng))


def test_series_rotates_seats_and_tallies():
    assert seats_for(["greedy", "random"], 3, 0) == ["greedy", "random", "greedy"]
    assert seats_for(["greedy", "random"], 3, 1) == ["random", "greedy", "greedy"]
    res = play_series(Rules(), 3, ["greedy", "random", "lowest"], 12, seed=5, turn_cap=TURN_CAP)
    tally = res.tally
    assert sum(t["games"] for t in tally.values()) == 36
    assert sum(t["losses"] for t in tally.values()) + res.draws == 12
    assert sum(t["loss_share"] for t in tally.values()) == 12
    assert all(isinstance(t["loss_share"], Fraction) for t in tally.values())
    again = play_series(Rules(), 3, ["greedy", "random", "lowest"], 12, seed=5,
                        turn_cap=TURN_CAP)
    assert again.to_json() == res.to_json()


def _replay(rec) -> State:
    """Rebuild a game from its record: the deal summary, then every decision and reveal."""
    state = State.new_game(rec.rules, rec.n_players)
    for e in rec.events:
        t = e["type"]
        if t == "deal":
            left = {(p, z): [parse_rank(c) for c in d[z]] for p, d in enumerate(e["players"])
                    for z in ("hand", "face_up")}
            while state.phase == "deal":  # face-up cards in the order dealt (rule 3)
                state.apply(left[state.deal_queue[0]].pop(0))
        elif t == "layout":
            state.apply("up " + " ".join(e["face_up"]))
        elif t == "move":
            assert state.current_player() == e["player"]
            state.apply(e["move"])
        elif t in ("draw", "flip", "start"):
            state.apply(parse_rank(e["card"]))
    return state


@settings(max_examples=40, deadline=None)
@given(configs())
def test_record_replays_to_the_same_outcome(config):
    """The record is complete: its decisions and reveals replay to the same end."""
    rules, n, bots, seed = config
    rec = play_game(rules, n, bots, seed=seed, turn_cap=TURN_CAP)
    state = _replay(rec)
    assert state.out_order == rec.out_order
    if rec.draw:
        assert not state.is_terminal()
    else:
        assert state.is_terminal() and state.result() == rec.loss
    json.loads(rec.to_json())
    assert rec.text().splitlines()[-1].startswith(("Loser:", "Draw (", "Winner:"))


# -- the bots' strategies on hand-built positions ---------------------------------------------

def _choose(name, hands, **kw):
    from stateutil import build
    kw.setdefault("unseen", [])
    return str(make_bot(name).choose(build(hands, **kw), random.Random(0)))


def test_lowest_bot_plays_every_copy_of_the_lowest_legal_rank():
    assert _choose("lowest", [["9", "9", "5", "2"], ["K"]], pile=["4"]) == "2"
    assert _choose("lowest", [["9", "9", "5", "5"], ["K"]], pile=["4"]) == "5x2"
    assert _choose("lowest", [["3", "4"], ["K"]], pile=["A"]) == "pickup"
    assert _choose("lowest", [[], ["K"]], face_up=[["9", "3"], []], face_down=[1, 0],
                   pile=["A"], unseen=["5"]) == "pickup 3"


def test_greedy_bot_keeps_its_specials_until_stuck():
    assert _choose("greedy", [["2", "10", "9", "5", "5"], ["K"]], pile=["4"]) == "5x2"
    assert _choose("greedy", [["2", "2", "10", "3"], ["K"]], pile=["A"]) == "2"
    assert _choose("greedy", [["10", "3"], ["K"]], pile=["A"]) == "10"
    assert _choose("greedy", [["3", "4"], ["K"]], pile=["A"]) == "pickup"
    # Variant specials: an ace that burns is kept like a 10. On a K, with an A and a 2:
    # a plain A is the one normal legal card, so it is played; a burning A is a special,
    # and a stuck greedy bot spends a 2 before a burner.
    assert _choose("greedy", [["A", "2"], ["Q"]], pile=["K"]) == "A"
    assert _choose("greedy", [["A", "2"], ["Q"]], pile=["K"],
                   rules=Rules.with_variants(["aces_burn"])) == "2"
    assert _choose("greedy", [["K", "2"], ["Q"]], pile=["K"],
                   rules=Rules.with_variants(["kings_burn"])) == "2"
    assert _choose("greedy", [["A", "K"], ["Q"]], pile=["9"],
                   rules=Rules.with_variants(["aces_burn"])) == "K"
    assert _choose("greedy", [["8", "9"], ["Q"]], pile=["4"],
                   rules=Rules.with_variants(["invisible_8"])) == "9"


def test_bots_lay_their_best_cards_face_up():
    s = State.new_game(Rules(), 2)
    deal = {(0, "face_up"): [3, 4, 10], (0, "hand"): [2, 14, 9],
            (1, "face_up"): [5, 6, 7], (1, "hand"): [8, 11, 12]}
    while s.phase == "deal":
        s.apply(deal[s.deal_queue[0]].pop())
    assert str(make_bot("greedy").choose(s, random.Random(0))) == "up 2 10 A"
    assert str(make_bot("lowest").choose(s, random.Random(0))) == "up 9 10 A"


def test_greedy_and_lowest_beat_random():
    res = play_series(Rules(), 2, ["greedy", "random"], 20, seed=2, turn_cap=TURN_CAP)
    assert res.tally["greedy"]["loss_share"] < res.tally["random"]["loss_share"]
    res = play_series(Rules(), 3, ["lowest", "random", "random"], 15, seed=2,
                      turn_cap=TURN_CAP)
    assert res.tally["lowest"]["loss_share"] / 15 < res.tally["random"]["loss_share"] / 30

"""The analysis board's line (palace_solver/web/board.py): on exact positions it is the
engine's game move for move; with hidden hand cards it follows what the viewer sees."""
from __future__ import annotations

import random

import pytest

from palace_solver.game.cards import rank_name
from palace_solver.game.position import Position, parse_position
from palace_solver.web.board import UNKNOWN, BoardError, replay

EXACT = ("standard | me: 3 7 7 / 9 / 1 ; bob: K K 5 / 2 / 1 | pile 5 | burned 2 2 3 3 3 "
         "4 4 4 4 5 5 6 6 6 6 7 7 8 8 8 8 9 9 10 10 10 10 J J J J Q Q Q Q K K A A A A "
         "| to_move 0")
HIDDEN = ("standard | me: 3 7 7 / A 10 / 3 ; bob: ?3 / 2 / 3 | pile 5 6 6 "
          "| burned 10 4 4 4 4 | draw 29 | to_move 0")


@pytest.mark.parametrize("seed", range(6))
def test_exact_lines_are_the_engines_game(seed):
    """Random lines: the board's moves and chance outcomes are the engine's, and every
    decision's position validates and round-trips to the same state."""
    rng = random.Random(seed)
    pos = parse_position(EXACT)
    state = pos.to_state()
    steps: list[str] = []
    for _ in range(60):
        line = replay(pos, steps)
        assert line.state.key() == state.key()
        node = line.node()
        if state.is_terminal():
            assert node["kind"] == "over"
            assert node["loss_probability"] == [float(x) for x in state.result()]
            break
        if state.is_chance():
            outs = state.chance_outcomes()
            assert [(o["card"], o["probability"]) for o in node["chance"]["outcomes"]] == [
                (rank_name(r), float(p)) for r, p in outs]
            r = rng.choice(outs)[0]
            state.apply(r)
            steps.append(rank_name(r))
            continue
        assert node["moves"] == [str(m) for m in state.legal_moves()]
        if not any(state.out):
            again = Position.from_json(node["position"]).to_state()
            assert again.key() == state.key()
        m = rng.choice(state.legal_moves())
        state.apply(m)
        steps.append(str(m))
    else:
        pytest.fail("the game did not end in 60 steps")


def test_hidden_hand_cards_are_revealed_when_played():
    pos = parse_position(HIDDEN)
    line = replay(pos, ["pickup"])           # me takes the pile: bob to move, hand unknown
    node = line.node()
    assert node["to_move"] == "bob"
    # bob may play anything the three unknown cards could be (pile empty now)
    assert "Qx3" in node["moves"] and "10x3" not in node["moves"]   # two 10s are seen
    line.play("Qx2")
    bob = line.table()["players"][1]
    # two unknown cards became the queens; one card left, so bob drew 2 unseen cards
    assert bob["hand"] == [] and bob["unknown"] == 3
    assert line.state.draw_pile == 27
    assert "bob draws 2 (unseen)" in line.steps[-1]["notes"]
    assert line.node()["kind"] == "decision"   # no chance node for an opponent's draw
    after = Position.from_json(line.node()["position"])
    assert after.players[1].hand_count == 3 and after.players[1].hand_known == []
    assert after.to_move == 0 and after.viewer() == 0


def test_the_viewers_draws_are_chance_choices():
    pos = parse_position(HIDDEN)
    line = replay(pos, ["7x2"])
    node = line.node()
    assert node["kind"] == "chance" and node["chance"]["kind"] == "draw"
    assert node["chance"]["player"] == "me" and node["chance"]["cards"] == 2
    assert abs(sum(o["probability"] for o in node["chance"]["outcomes"]) - 1) < 1e-12
    line.play("K")
    line.play("K")
    assert line.table()["players"][0]["hand"] == ["3", "K", "K"]
    assert "Kx2" in line.node()["moves"] and "Kx3" not in line.node()["moves"]
    with pytest.raises(BoardError, match="not a legal move for bob"):
        line.play("3")                        # a 3 does not go on a 7
    assert line.state.hands[1][UNKNOWN] == 3


def test_a_card_that_is_all_seen_is_refused():
    pos = parse_position(HIDDEN)
    with pytest.raises(BoardError, match="every 4 is seen"):
        replay(pos, ["7x2", "4"])


@pytest.mark.parametrize("steps, needle", [
    (["7x3"], "step 1 '7x3': not a legal move for me"),
    (["seven"], "step 1: invalid move 'seven'"),
    (["pickup", "Qx2", "zz"], "step 3: invalid move 'zz'"),
])
def test_bad_steps_name_the_step(steps, needle):
    with pytest.raises(BoardError) as e:
        replay(parse_position(HIDDEN), steps)
    assert needle in str(e.value)

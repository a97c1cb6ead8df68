"""The table seen from one seat: `palace live` and the web board follow a game from the same
seat's view, so the same state must give them the same position."""
from __future__ import annotations

import pytest

from palace_solver.game.moves import Move
from palace_solver.game.position import parse_position
from palace_solver.game.view import (
    UNKNOWN,
    repeatable,
    reveal,
    seat_position,
    seat_state,
    settle_refills,
)
from palace_solver.live.session import Session, Setup
from palace_solver.web.board import replay

# Three players under jack_reverses; "me" plays the last card, a jack: out, and the direction
# reverses. Two seats are left, for whom the direction no longer matters.
THREE_ONE_GOING_OUT = (
    "standard+jack_reverses | me: J / - / 0 ; bob: 3 4 / - / 0 ; ann: 5 6 / - / 0 | pile - "
    "| burned 2 2 2 2 3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J "
    "Q Q Q Q K K K K A A A A | to_move 0")


def test_live_and_the_board_export_the_same_position_with_a_player_out():
    start = parse_position(THREE_ONE_GOING_OUT)
    session = Session(Setup.from_position(start, me=0))
    session.apply("me J")
    line = replay(start, ["J"])
    assert session.state.out == line.state.out == [True, False, False]
    assert session.state.direction == line.state.direction == -1
    ours, board = session.position(), line.position()
    assert ours.n == board.n == 2
    assert ours.to_json() == board.to_json()
    # two seats left: the direction means nothing and is written as 1 (State.key agrees)
    assert ours.direction == 1 and "direction" not in ours.to_json()


def test_the_direction_is_kept_while_three_seats_play():
    start = parse_position(THREE_ONE_GOING_OUT.replace("me: J / - / 0", "me: J J / - / 0")
                           .replace("burned 2 2 2 2 3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 7 8 8 8 8 "
                                    "9 9 9 9 10 10 10 10 J J J",
                                    "burned 2 2 2 2 3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 7 8 8 8 8 "
                                    "9 9 9 9 10 10 10 10 J J"))
    line = replay(start, ["J"])
    session = Session(Setup.from_position(start, me=0))
    session.apply("me J")
    for pos in (line.position(), session.position()):
        assert pos.n == 3 and pos.direction == -1 and pos.to_move == 2


def test_seat_state_and_seat_position_round_trip_with_hidden_cards():
    # written in the canonical order (cards lowest first), so the round trip is exact
    pos = parse_position("standard | me: 3 7 7 / 10 A / 3 ; bob: K ?2 / 2 / 3 | pile 5 6 6 "
                         "| burned 4 4 4 4 10 | draw 29 | to_move 0")
    s = seat_state(pos)
    assert s.hands[1][UNKNOWN] == 2 and s.hands[1][13] == 1 and s.pool[UNKNOWN] == 0
    assert sum(s.pool) == 29 + 3 + 3 + 2
    back = seat_position(s, [p.name for p in pos.players], 0, implicit_viewer=True)
    assert back == pos


def test_refills_of_the_others_become_unknown_cards_and_reveals_take_from_the_pool():
    pos = parse_position("standard | me: 3 7 7 / A 10 / 3 ; bob: ?3 / 2 / 3 | pile 5 6 6 "
                         "| burned 10 4 4 4 4 | draw 29 | to_move 1")
    s = seat_state(pos)
    pool_q = s.pool[12]
    assert reveal(s, 1, 12, 2) == 2
    assert s.hands[1][12] == 2 and s.hands[1][UNKNOWN] == 1 and s.pool[12] == pool_q - 2
    s.apply(Move.play(12, 2))
    assert s.is_chance() and s.pending == ("draw", 1, 2)
    assert settle_refills(s, viewer=0) == [(1, 2)]
    assert s.hands[1][UNKNOWN] == 3 and s.draw_pile == 27 and s.to_move == 0
    with pytest.raises(ValueError):
        reveal(s, 1, 12, 6)


def test_only_positions_of_the_same_stretch_can_come_back():
    a = parse_position(THREE_ONE_GOING_OUT)
    same = parse_position(THREE_ONE_GOING_OUT.replace("to_move 0", "to_move 1"))
    other = parse_position(THREE_ONE_GOING_OUT.replace("bob: 3 4", "bob: 4 3"))
    assert repeatable(a, [same, other]) == [same, other]
    renamed = parse_position(THREE_ONE_GOING_OUT.replace("bob", "bo"))
    burned_more = parse_position(
        "standard+jack_reverses | me: J / - / 0 ; bob: 3 / - / 0 ; ann: 5 6 / - / 0 | pile - "
        "| burned 2 2 2 2 3 3 3 4 4 4 4 5 5 5 6 6 6 7 7 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J "
        "Q Q Q Q K K K K A A A A | to_move 0")
    assert repeatable(a, [renamed, burned_more]) == []

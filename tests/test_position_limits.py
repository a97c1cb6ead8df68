"""Positions that cannot happen are refused (4 face-up or 7 face-down cards under the
standard rules, two players with one name), and a late-game position can be written with
`burned rest`: every card not listed is burned, the hidden ones named with `unseen`. A count
that does not add up says how many cards are missing and where they could go."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from palace_solver.cli.main import cli
from palace_solver.game.cards import rank_name
from palace_solver.game.position import InvalidPositionError, Position, from_text, to_text

ISSUE = ("standard | me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | burned 2 2 2 3 3 3 4 "
         "4 4 5 5 5 6 6 6 7 7 7 8 8 9 9 9 10 10 10 10 J J J Q Q Q K K K A A A | to_move 0")


def burned_text(pos_text):
    return from_text(pos_text)


# -- finding 5: impossible positions ----------------------------------------------------------

def test_four_face_up_cards_under_standard_rules():
    with pytest.raises(InvalidPositionError, match=r"player 0 \(me\) has 4 face-up cards "
                                                   r"\(at most 3 under the standard rules"):
        from_text("me: 3 / 4 5 6 7 / 3 ; bob: ?3 / 8 9 J / 3 | draw 32 | to_move 0")


def test_seven_face_down_cards_under_standard_rules():
    with pytest.raises(InvalidPositionError, match=r"has 7 face-down cards \(at most 3"):
        from_text("me: 3 4 5 / 6 7 8 / 7 ; bob: ?3 / 9 J Q / 3 | draw 28 | to_move 0")


def test_four_cards_variant_allows_four_not_five():
    ok = from_text("four_cards | me: 3 4 5 6 / 6 7 8 9 / 4 ; bob: ?4 / 9 J Q K / 4 "
                   "| draw 28 | to_move 0")
    assert len(ok.players[0].face_up) == 4 and ok.players[0].face_down == 4
    with pytest.raises(InvalidPositionError, match=r"5 face-down cards \(at most 4 under "
                                                   r"these rules"):
        from_text("four_cards | me: 3 4 5 6 / 6 7 8 9 / 5 ; bob: ?4 / 9 J Q K / 4 "
                  "| draw 27 | to_move 0")


def test_two_players_with_the_same_name():
    with pytest.raises(InvalidPositionError, match=r"players 0 and 1 are both named 'me'"):
        from_text(ISSUE.replace("bob:", "me:"))
    with pytest.raises(InvalidPositionError, match=r"both named 'Bob'"):
        Position.from_json({"players": [
            {"name": "bob", "hand": ["3"], "face_up": [], "face_down": 3},
            {"name": "Bob", "hand": {"known": [], "count": 3}, "face_up": [], "face_down": 3}],
            "pile": [], "draw_pile": 40, "to_move": 0})


def test_analyze_refuses_them_with_one_line():
    r = CliRunner().invoke(cli, ["analyze", "me: 3 / 4 5 6 7 / 3 ; bob: ?3 / 8 9 J / 3 "
                                            "| draw 32 | to_move 0"])
    assert r.exit_code == 2 and "4 face-up cards" in r.output
    assert len(r.output.strip().splitlines()) == 1


# -- finding 6: burned rest ---------------------------------------------------------------------

def test_burned_rest_is_the_issues_position():
    short = from_text("standard | me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 "
                      "| unseen 2 5 7 K A | burned rest | to_move 0")
    full = from_text(ISSUE)
    assert sorted(short.burned) == sorted(full.burned)
    assert short.to_json() == full.to_json()
    assert to_text(short) == to_text(full)


def test_burned_rest_in_json_as_a_word_or_in_the_list():
    base = from_text(ISSUE).to_json()
    for burned in ("rest", ["rest"], ["2", "rest"], ["2", "2", "REST"]):
        obj = dict(base, burned=burned, unseen=["2", "5", "7", "K", "A"])
        pos = Position.from_json(obj)
        assert pos.to_json() == base, burned


def test_burned_rest_with_listed_burned_cards_and_no_hidden_cards():
    pos = from_text("me: 7 7 / A / 0 ; bob: K / 2 / 0 | pile 5 | burned 10 rest | to_move 0")
    assert len(pos.burned) == 52 - 6 and sum(pos.unseen_counts()[2:15]) == 0


def test_burned_rest_without_unseen_when_cards_are_hidden():
    with pytest.raises(InvalidPositionError, match=r"'burned rest' .* 5 hidden cards .*"
                                                   r"'unseen' \(5 of them\)"):
        from_text("standard | me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | burned rest "
                  "| to_move 0")


def test_unseen_naming_a_card_that_is_not_left():
    with pytest.raises(InvalidPositionError, match=r"unseen lists 3 cards of rank 8 but only "
                                                   r"2"):
        from_text("me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | unseen 8 8 8 "
                  "| burned rest | to_move 0")


def test_unseen_must_name_as_many_cards_as_are_hidden():
    with pytest.raises(InvalidPositionError, match=r"unseen lists 6 cards but 5 face-down \+ "
                                                   r"0 unknown hand \+ 0 draw pile hide 5"):
        from_text("me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | unseen 2 5 7 K A A "
                  "| burned rest | to_move 0")


def test_unseen_without_rest_is_a_check():
    assert from_text(ISSUE + " | unseen 2 5 7 K A").to_json() == from_text(ISSUE).to_json()
    with pytest.raises(InvalidPositionError, match=r"unseen lists 4 cards"):
        from_text(ISSUE + " | unseen 2 5 7 K")


def test_the_count_error_says_how_many_are_missing_and_where_they_could_go():
    with pytest.raises(InvalidPositionError) as e:
        from_text("standard | me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | to_move 0")
    msg = str(e.value)
    assert "44 unseen cards but 5 face-down + 0 unknown hand + 0 draw pile" in msg
    assert "39 cards of the deck are nowhere" in msg
    for where in ("burned", "burned rest", "draw pile", "'?N'", "the pile"):
        assert where in msg, where
    with pytest.raises(InvalidPositionError, match=r"1 hidden card too many: the deck has "
                                                   r"no card left for it"):
        from_text(ISSUE.replace("/ - / 2 ;", "/ - / 3 ;"))


def test_the_cli_reads_burned_rest():
    r = CliRunner().invoke(cli, ["analyze", "--json", "me: 7 7 / A / 0 ; bob: K / 2 / 0 "
                                                      "| pile 5 | burned rest | to_move 0"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["best_move"] in ("7x2", "A", "7", "pickup")

"""One test (or a few) per standard rule of RULES.md, on small hand-built positions.

Each test is named after the rule it checks (``test_ruleN_...``).
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from stateutil import build, hand, moves, pile, play, rank, up

from palace_solver import CHANCE, IllegalMoveError, Rules, State
from palace_solver.game.state import FACE_DOWN, FACE_UP, HAND, LAYOUT_PHASE, PLAY_PHASE


def b(hands, **kw):
    """A position with no draw pile unless ``unseen`` says otherwise."""
    kw.setdefault("unseen", [])
    return build(hands, **kw)


def deal(n, face_up, hands, rules=None) -> State:
    """A new game dealt with the given face-up cards and hands (face-down cards stay unseen)."""
    s = State.new_game(rules or Rules(), n)
    left = {p: {"face_up": list(face_up[p]), "hand": list(hands[p])} for p in range(n)}
    while s.phase == "deal":
        who, zone = s.deal_queue[0]
        s.apply(rank(left[who][zone].pop(0)))
    return s


# -- setup -----------------------------------------------------------------------------------

def test_rule1_deal_three_face_down_three_face_up_three_in_hand():
    s = deal(3, [["3", "4", "5"], ["6", "7", "8"], ["9", "J", "Q"]],
             [["K", "A", "2"], ["10", "3", "4"], ["5", "6", "7"]])
    assert s.phase == LAYOUT_PHASE and s.current_player() == 0
    for p in range(3):
        assert sum(s.hands[p]) == 3 and sum(s.face_up[p]) == 3 and s.face_down[p] == 3
    assert s.draw_pile == 52 - 27
    s.check_cards()


def test_rule2_swap_any_hand_cards_with_face_up():
    s = deal(2, [["K", "A", "2"], ["3", "4", "5"]], [["3", "4", "5"], ["6", "7", "8"]])
    layouts = moves(s)
    # Every 3-card choice among the six cards K A 2 3 4 5 (all distinct): C(6, 3) = 20.
    assert len(layouts) == 20
    assert "up 3 4 5" in layouts and "up 2 K A" in layouts and "up 2 3 A" in layouts
    s.apply("up 2 3 A")
    assert up(s, 0) == ["2", "3", "A"] and hand(s, 0) == ["4", "5", "K"]
    assert s.current_player() == 1  # each player lays out in turn


def test_rule3_first_player_is_first_face_up_three_in_dealing_order():
    # Player 0 holds a 3 in hand, but player 1 shows a 3 face up: the face-up 3 wins.
    s = deal(3, [["5", "6", "7"], ["3", "9", "9"], ["3", "J", "J"]],
             [["3", "K", "K"], ["4", "A", "A"], ["4", "Q", "Q"]])
    for p in range(3):
        s.apply("up " + " ".join(up(s, p)))
    assert s.phase == PLAY_PHASE and s.current_player() == 1
    assert s.source(1) == HAND  # that player plays from the hand


def test_rule3_first_player_then_a_three_in_hand_then_four():
    s = b([["5", "4"], ["3", "K"]], face_up=[["4"], ["9"]])
    assert s.first_player() == 1   # nobody shows a 3: the first 3 in hand
    s = b([["5", "4"], ["6", "K"], ["7"]], face_up=[["8"], ["9"], ["4"]])
    assert s.first_player() == 2   # no 3 at all: the first face-up 4
    s = b([["5", "7"], ["6", "K"], ["7"]], face_up=[["8"], ["9"], ["Q"]])
    assert s.first_player() == 0   # no 3 or 4: the first 5 (in hand)


def lay_out(s: State, layouts) -> State:
    for p, cards in enumerate(layouts):
        s.apply("up " + " ".join(cards))
    return s


def test_rule3_the_deal_counts_not_the_layout_after_the_swap():
    # The 004 text's own example: Anna (player 0) is dealt A 3 2 face up and takes the 3
    # into her hand. She was dealt the first face-up 3, so she starts, although after the
    # swap bob is the one showing a 3.
    s = deal(2, [["A", "3", "2"], ["9", "9", "J"]], [["4", "10", "6"], ["3", "K", "Q"]])
    lay_out(s, [["A", "10", "2"], ["3", "9", "9"]])
    assert up(s, 0) == ["2", "10", "A"] and hand(s, 0) == ["3", "4", "6"]
    assert up(s, 1) == ["3", "9", "9"]
    assert s.phase == PLAY_PHASE and s.current_player() == 0
    # Nobody dealt a face-up 3: a 3 laid face up after the swap does not count, the first
    # 3 held in hand after the swap does.
    s = deal(3, [["9", "9", "J"], ["8", "8", "Q"], ["7", "7", "K"]],
             [["3", "5", "6"], ["4", "5", "6"], ["3", "4", "A"]])
    lay_out(s, [["3", "9", "J"], ["8", "8", "Q"], ["7", "7", "K"]])
    assert s.current_player() == 2
    # Nobody dealt or holding a 3: the first face-up 4 as dealt, before player 1's swap.
    s = deal(3, [["9", "9", "J"], ["4", "8", "Q"], ["4", "7", "K"]],
             [["5", "5", "6"], ["A", "5", "6"], ["A", "6", "7"]])
    lay_out(s, [["9", "9", "J"], ["A", "8", "Q"], ["4", "7", "K"]])
    assert s.current_player() == 1


def test_rule3_dealing_order_goes_round_the_table_card_by_card():
    # Face-up cards are dealt one round at a time: player 2's first card comes before
    # player 0's second. Player 2 is dealt a 3 as their first card, player 0 as their second.
    s = deal(3, [["9", "3", "J"], ["8", "8", "Q"], ["3", "7", "K"]],
             [["5", "5", "6"], ["4", "5", "6"], ["A", "4", "A"]])
    lay_out(s, [["3", "9", "J"], ["8", "8", "Q"], ["3", "7", "K"]])
    assert s.current_player() == 2
    # Same seats, player 0's 3 dealt in the first round: player 0.
    s = deal(3, [["3", "9", "J"], ["8", "8", "Q"], ["7", "3", "K"]],
             [["5", "5", "6"], ["4", "5", "6"], ["A", "4", "A"]])
    lay_out(s, [["3", "9", "J"], ["8", "8", "Q"], ["3", "7", "K"]])
    assert s.current_player() == 0


def test_rule3_choose_face_up_counts_the_cards_laid_face_up():
    # Nobody is dealt face-up cards under choose_face_up: the cards laid face up, in seat
    # order, stand for them (docs/rules.md, readings where the texts are silent).
    rules = Rules.with_variants(["choose_face_up"])
    s = deal(2, [[], []], [["3", "4", "5", "6", "7", "8"], ["3", "9", "10", "J", "Q", "K"]],
             rules)
    lay_out(s, [["6", "7", "8"], ["3", "Q", "K"]])
    assert s.current_player() == 1
    s = deal(2, [[], []], [["3", "4", "5", "6", "7", "8"], ["3", "9", "10", "J", "Q", "K"]],
             rules)
    lay_out(s, [["6", "7", "8"], ["9", "Q", "K"]])
    assert s.current_player() == 0   # no 3 face up: the first 3 in hand


# -- a turn ----------------------------------------------------------------------------------

def test_rule4_source_is_hand_then_face_up_then_face_down():
    s = b([["3"], ["K", "K", "K"]], face_up=[["9"], ["A"]], face_down=[1, 0],
          unseen=["J"])
    assert s.source(0) == HAND and moves(s) == ["3"]
    play(s, "3")
    play(s, "pickup")                          # player 1 takes the 3
    assert s.source(0) == FACE_UP and moves(s) == ["9"]
    play(s, "9")
    play(s, "pickup")
    assert s.source(0) == FACE_DOWN and moves(s) == ["flip"]


def test_rule5_play_several_cards_of_one_rank():
    s = b([["7", "7", "7", "9", "3"], ["K"]], pile=["5"])
    assert moves(s) == ["7", "7x2", "7x3", "9", "pickup"]
    with pytest.raises(IllegalMoveError):
        s.apply("7x4")
    play(s, "7x3")
    assert pile(s) == ["5", "7", "7", "7"] and s.current_player() == 1


def test_rule5_voluntary_pickup_allowed():
    s = b([["9", "3"], ["K"]], pile=["5"])
    assert "9" in moves(s) and "pickup" in moves(s)
    play(s, "pickup")
    assert hand(s, 0) == ["3", "5", "9"] and s.pile == [] and s.current_player() == 1


def test_rule5_must_pick_up_with_no_legal_play():
    s = b([["3", "4"], ["K"]], pile=["K"])
    assert moves(s) == ["pickup"]


def test_rule5_never_pick_up_an_empty_pile():
    s = b([["3", "4"], ["K"]])
    assert moves(s) == ["3", "4"]


def test_rule5_face_up_pickup_puts_a_card_first_without_burning():
    s = b([[], ["K"]], face_up=[["5", "9"], []], face_down=[1, 0], pile=["5", "5", "5"],
          unseen=["3"])
    assert moves(s) == ["5", "9", "pickup 5", "pickup 9"]
    burned = list(s.burned)
    play(s, "pickup 5")
    # The fourth 5 went on the pile, then the whole pile into the hand: nothing burned.
    assert hand(s, 0) == ["5", "5", "5", "5"] and up(s, 0) == ["9"]
    assert s.burned == burned and s.pile == [] and s.current_player() == 1
    s.check_cards()


def test_rule5_face_up_play_of_the_fourth_card_burns():
    s = b([[], ["K"]], face_up=[["5", "9"], []], face_down=[1, 0], pile=["5", "5", "5"],
          unseen=["3"])
    play(s, "5")
    assert s.pile == [] and s.current_player() == 0  # the burn, and player 0 again


def test_rule6_failed_flip_takes_pile():
    s = b([[], ["K"]], face_down=[2, 0], pile=["9"], unseen=["4", "4"])
    play(s, "flip")
    assert s.current_player() == CHANCE
    assert s.chance_outcomes() == [(4, Fraction(1))]
    play(s, 4)
    assert hand(s, 0) == ["4", "9"] and s.face_down[0] == 1
    assert s.pile == [] and s.current_player() == 1
    s.check_cards()


def test_rule6_legal_flip_counts_as_played():
    s = b([[], ["3"]], face_down=[2, 0], pile=["9"], unseen=["K", "10"])
    play(s, "flip", "K")
    assert pile(s) == ["9", "K"] and s.current_player() == 1
    s = b([[], ["3"]], face_down=[2, 0], pile=["9"], unseen=["K", "10"])
    play(s, "flip", "10")             # a flipped 10 burns: the player goes again
    assert s.pile == [] and s.current_player() == 0 and moves(s) == ["flip"]


def test_rule6_flip_probabilities_are_the_unseen_cards():
    s = b([[], ["3"]], face_down=[3, 0], pile=["9"], unseen=["K", "K", "4"])
    play(s, "flip")
    assert s.chance_outcomes() == [(4, Fraction(1, 3)), (13, Fraction(2, 3))]


def test_rule7_refill_after_play_up_to_three():
    s = b([["6", "6", "8"], ["K", "K", "K"]], pile=["5"], unseen=["4"] * 4)
    assert s.draw_pile == 4
    play(s, "6x2")
    assert s.current_player() == CHANCE
    play(s, 4)
    assert s.current_player() == CHANCE   # two cards, one at a time
    play(s, 4)
    assert hand(s, 0) == ["4", "4", "8"] and s.draw_pile == 2 and s.current_player() == 1


def test_rule7_refill_stops_when_draw_pile_is_empty():
    s = b([["6", "6", "8"], ["K", "K", "K"]], pile=["5"], unseen=["4"])
    play(s, "6x2", "4")
    assert hand(s, 0) == ["4", "8"] and s.draw_pile == 0 and s.current_player() == 1


def test_rule7_no_refill_with_three_or_more_in_hand():
    s = b([["6", "6", "6", "8", "9"], ["K"]], pile=["5"], unseen=["4"] * 3)
    play(s, "6")
    assert s.current_player() == 1 and s.draw_pile == 3


def test_rule7_no_refill_after_pickup():
    s = b([["3"], ["K", "K", "K"]], pile=["K"], unseen=["4"] * 3)
    play(s, "pickup")
    assert hand(s, 0) == ["3", "K"] and s.draw_pile == 3 and s.current_player() == 1


def test_rule8_after_pickup_next_player_starts_new_pile():
    s = b([["3"], ["4", "9"], ["5"]], pile=["K"])
    play(s, "pickup")
    assert s.current_player() == 1 and s.pile == []
    assert moves(s) == ["4", "9"]  # any card on the new, empty pile


# -- legality and effects --------------------------------------------------------------------

def test_rule9_anything_legal_on_empty_pile():
    s = b([["3", "9", "A", "2", "10"], ["K"]])
    assert moves(s) == ["2", "3", "9", "10", "A"]


def test_rule9_equal_or_higher_on_an_ordered_card():
    s = b([["3", "9", "J", "A"], ["K"]], pile=["9"])
    assert moves(s) == ["9", "J", "A", "pickup"]


def test_rule9_two_and_ten_legal_on_anything():
    s = b([["2", "10", "3"], ["K"]], pile=["A"])
    assert moves(s) == ["2", "10", "pickup"]


def test_rule9_anything_legal_on_a_two():
    s = b([["3", "4"], ["K"]], pile=["A", "2"])
    assert moves(s) == ["3", "4", "pickup"]


def test_rule10_ten_burns_and_plays_again():
    s = b([["10", "3", "3"], ["K"]], pile=["5", "A"])
    play(s, "10")
    assert s.pile == [] and s.current_player() == 0
    assert s.burned[rank("10")] >= 1 and s.burned[rank("A")] >= 1
    assert moves(s) == ["3", "3x2"]
    s.check_cards()


def test_rule11_four_of_a_kind_at_once():
    s = b([["6", "6", "6", "6", "3"], ["K"]], pile=["5"])
    play(s, "6x4")
    assert s.pile == [] and s.current_player() == 0


def test_rule11_four_of_a_kind_over_several_turns():
    s = b([["7", "7", "3"], ["7", "Q"], ["J"]], pile=["7"], to_move=0)
    play(s, "7x2")
    assert pile(s) == ["7", "7", "7"] and s.current_player() == 1
    play(s, "7")   # the fourth 7, completed by another player: that player goes again
    assert s.pile == [] and s.current_player() == 1
    s.check_cards()


def test_rule11_twos_count_for_four_of_a_kind():
    s = b([["2", "2", "3"], ["K"]], pile=["9", "2", "2"])
    play(s, "2x2")
    assert s.pile == [] and s.current_player() == 0


def test_rule11_only_the_top_four_count():
    s = b([["7", "3"], ["K"]], pile=["7", "2", "7", "7"])
    play(s, "7")   # four 7s in the pile, but a 2 among the top four: no burn
    assert pile(s) == ["7", "2", "7", "7", "7"] and s.current_player() == 1


def test_rule12_burn_on_last_card_goes_out_next_player_starts():
    s = b([["10"], ["3", "4"], ["5"]], pile=["K"])
    play(s, "10")
    assert s.out[0] and s.pile == [] and s.current_player() == 1
    assert not s.is_terminal()


def test_rule12_four_of_a_kind_on_last_card_goes_out():
    s = b([["5"], ["3", "4"], ["6"]], pile=["5", "5", "5"])
    play(s, "5")
    assert s.out[0] and s.pile == [] and s.current_player() == 1


# -- end -------------------------------------------------------------------------------------

def test_rule13_out_player_is_skipped():
    s = b([["4", "9"], [], ["5", "K"]], pile=["3"])
    assert s.out == [False, True, False]
    play(s, "4")
    assert s.current_player() == 2


def test_rule13_last_player_loses():
    s = b([["A"], [], ["3", "3"]], pile=["K"])
    play(s, "A")
    assert s.is_terminal() and s.result() == [0, 0, 1]
    assert sum(s.result()) == 1


def test_rule13_two_players_first_out_wins():
    s = b([["9", "9"], ["3", "4", "K"]], pile=["5"])
    play(s, "9x2")
    assert s.is_terminal() and s.result() == [0, 1]


def test_rule13_not_out_while_the_draw_pile_refills():
    s = b([["9"], ["3", "4", "K"]], pile=["5"], unseen=["J"])
    play(s, "9", "J")
    assert not s.out[0] and hand(s, 0) == ["J"] and s.current_player() == 1


def test_rule13_not_out_with_face_down_cards_left():
    s = b([["9"], ["3", "4", "K"]], face_down=[1, 0], pile=["5"], unseen=["J"])
    play(s, "9")
    assert not s.out[0] and s.source(0) == FACE_DOWN


def test_illegal_move_message_quotes_move_and_position():
    s = b([["3", "4"], ["K"]], pile=["K"])
    with pytest.raises(IllegalMoveError) as e:
        s.apply("3")
    assert "'3'" in str(e.value) and s.describe() in str(e.value)

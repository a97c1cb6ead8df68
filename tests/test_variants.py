"""One test (at least) per variant switch of palace_solver.game.rules.VARIANTS, named after it,
each showing the variant's effect against the standard rules on the same position."""
from __future__ import annotations

from fractions import Fraction

import pytest
from stateutil import build, hand, moves, pile, play, rank, up

from palace_solver import VARIANTS, Rules, RulesError, State
from palace_solver.game.cards import JOKER
from palace_solver.game.state import LAYOUT_PHASE, PLAY_PHASE

STD = Rules()


def v(*names) -> Rules:
    return Rules.with_variants(names)


def b(hands, **kw):
    kw.setdefault("unseen", [])
    return build(hands, **kw)


def deal_all(s: State, ranks) -> State:
    """Finish the deal with the given ranks, in deal order."""
    ranks = list(ranks)
    while s.phase == "deal":
        s.apply(rank(ranks.pop(0)))
    return s


def keep_layouts(s: State) -> State:
    """Every player lays up the cards dealt face up (no swap) or, when choosing, the
    highest three."""
    while s.phase == LAYOUT_PHASE:
        p = s.current_player()
        cur = up(s, p) or hand(s, p)[-s.rules.zone_size:]
        s.apply("up " + " ".join(cur))
    return s


def test_every_variant_has_a_test_here():
    src = open(__file__).read()
    missing = [name for name in VARIANTS if f"def test_{name}" not in src]
    assert not missing


def test_must_play():
    pos = dict(hands=[["9", "3"], ["K"]], pile=["5"])
    assert "pickup" in moves(b(**pos))
    assert moves(b(**pos, rules=v("must_play"))) == ["9"]
    # Still forced to pick up when nothing is legal.
    assert moves(b([["3"], ["K"]], pile=["5"], rules=v("must_play"))) == ["pickup"]


def test_easy_table_pickup():
    pos = dict(hands=[[], ["K"]], face_up=[["3", "9"], []], face_down=[1, 0],
               pile=["K"], unseen=["4"])
    assert moves(b(**pos)) == ["pickup 3", "pickup 9"]
    s = b(**pos, rules=v("easy_table_pickup"))
    assert moves(s) == ["pickup"]
    play(s, "pickup")
    assert hand(s, 0) == ["K"] and up(s, 0) == ["3", "9"]


def test_no_four_burn():
    pos = dict(hands=[["6", "6", "3"], ["K"]], pile=["6", "6"])
    s = play(b(**pos), "6x2")
    assert s.pile == [] and s.current_player() == 0
    s = play(b(**pos, rules=v("no_four_burn")), "6x2")
    assert pile(s) == ["6"] * 4 and s.current_player() == 1


def test_restricted_tens():
    assert "10" in moves(b([["10", "3"], ["K"]], pile=["J"]))
    assert "10" not in moves(b([["10", "3"], ["K"]], pile=["J"], rules=v("restricted_tens")))
    assert "10" in moves(b([["10", "3"], ["K"]], pile=["9"], rules=v("restricted_tens")))


def _check_burner(name, card):
    pos = dict(hands=[[card, "3"], ["4"]], pile=["9"])
    s = play(b(**pos), card)
    assert pile(s) == ["9", card] and s.current_player() == 1
    s = play(b(**pos, rules=v(name)), card)
    assert s.pile == [] and s.current_player() == 0


def test_aces_burn():
    _check_burner("aces_burn", "A")


def test_kings_burn():
    _check_burner("kings_burn", "K")


def _check_low_rank(name, low):
    cards = ["2", "3", low, "9", "10"]
    assert moves(b([cards, ["K"]], pile=[low])) == ["2", low, "9", "10", "pickup"]
    assert moves(b([cards, ["K"]], pile=[low], rules=v(name))) == \
        ["2", "3", low, "10", "pickup"]


def test_seven_low():
    _check_low_rank("seven_low", "7")


def test_five_low():
    _check_low_rank("five_low", "5")


def _check_invisible(name, card):
    assert card not in moves(b([[card, "5", "9"], ["K"]], pile=["9"]))
    s = b([[card, card, "5", "9"], ["K", "4"]], pile=["9"], rules=v(name))
    assert card in moves(s)
    play(s, card)
    # Transparent: player 1 must still beat the 9 under it (K yes, 4 no).
    assert moves(s) == ["K", "pickup"]
    s = b([[card, card, "5", "9"], ["K", "J"]], pile=["9", card, card], rules=v(name))
    assert s.effective_top() == rank("9")  # stacked invisibles are all transparent
    assert moves(s)[:2] == [card, f"{card}x2"] and "5" not in moves(s)


def test_invisible_8():
    _check_invisible("invisible_8", "8")


def test_invisible_3():
    _check_invisible("invisible_3", "3")


def _check_reverses(name, card):
    pos = dict(hands=[[card, "3"], ["K"], ["A"]], pile=["4"])
    assert play(b(**pos), card).current_player() == 1
    s = play(b(**pos, rules=v(name)), card)
    assert s.current_player() == 2 and s.direction == -1


def test_eight_reverses():
    _check_reverses("eight_reverses", "8")


def test_jack_reverses():
    _check_reverses("jack_reverses", "J")


def test_eight_skips():
    pos = dict(hands=[["8", "3"], ["K"], ["A"]], pile=["4"])
    assert play(b(**pos), "8").current_player() == 1
    assert play(b(**pos, rules=v("eight_skips")), "8").current_player() == 2


def test_jokers():
    with pytest.raises(Exception):
        State.new_game(v("jokers"), 5)
    s = State.new_game(v("jokers"), 6)
    assert sum(s.pool) == 54 and s.pool[JOKER] == 2 and s.draw_pile == 0
    assert State.new_game(STD, 6).draw_pile == 104 - 54  # two decks by default for 6
    # A joker is legal on anything, transparent, and reverses the direction.
    hands = [["JK", "3"], ["K"], ["A"], ["4"], ["5"], ["6"]]
    s = b(hands, pile=["A"], rules=v("jokers"))
    assert moves(s) == ["JK", "pickup"]
    play(s, "JK")
    assert s.current_player() == 5 and s.direction == -1
    assert s.effective_top() == rank("A")


def test_jokers_with_two_decks_is_refused():
    # RULES.md's jokers variant is one deck plus two jokers; never silently one deck.
    with pytest.raises(RulesError, match="jokers .*cannot be combined with two_decks"):
        Rules.with_variants(["jokers", "two_decks"])
    with pytest.raises(RulesError, match="two_decks"):
        Rules(jokers=True, two_decks=True)


def test_two_decks():
    assert STD.deck_counts(2)[rank("7")] == 4
    assert v("two_decks").deck_counts(2)[rank("7")] == 8
    s = State.new_game(v("two_decks"), 2)
    assert s.draw_pile == 104 - 18


def test_four_cards():
    s = keep_layouts(deal_all(State.new_game(v("four_cards"), 2), ["3"] * 4 + ["4"] * 4
                              + ["5"] * 4 + ["6"] * 4))
    assert sum(s.hands[0]) == 4 and sum(s.face_up[0]) == 4 and s.face_down == [4, 4]
    assert s.draw_pile == 52 - 24
    # The refill goes up to four.
    s = b([["6", "6", "8", "9"], ["K"]], pile=["5"], unseen=["4"] * 3, rules=v("four_cards"))
    play(s, "6x2", "4", "4")
    assert hand(s, 0) == ["4", "4", "8", "9"] and s.current_player() == 1


def test_choose_face_up():
    s = deal_all(State.new_game(v("choose_face_up"), 2),
                 ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "2"])
    assert s.phase == LAYOUT_PHASE
    assert sum(s.hands[0]) == 6 and sum(s.face_up[0]) == 0 and s.face_down == [3, 3]
    assert len(moves(s)) == 20  # any 3 of the 6 (all distinct)
    assert hand(s, 0) == ["3", "5", "7", "9", "Q", "A"]
    play(s, "up 3 Q A")
    assert up(s, 0) == ["3", "Q", "A"] and hand(s, 0) == ["5", "7", "9"]


def test_back_to_last_player():
    pos = dict(hands=[["K", "3"], ["A", "4"], ["3", "4"]])
    s = play(b(**pos), "K")
    play(s, "A")
    play(s, "pickup")
    assert s.current_player() == 0
    s = play(b(**pos, rules=v("back_to_last_player")), "K")
    play(s, "A")
    play(s, "pickup")
    assert s.current_player() == 1 and s.pile == []


def test_start_card():
    dealt = ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "2"]
    s = keep_layouts(deal_all(State.new_game(STD, 2), dealt))
    assert s.phase == PLAY_PHASE and s.pile == []
    s = keep_layouts(deal_all(State.new_game(v("start_card"), 2), dealt))
    assert s.is_chance()
    play_chance = s.chance_outcomes()
    assert sum(p for _, p in play_chance) == 1
    s.apply(rank("9"))
    assert pile(s) == ["9"] and s.current_player() == 0
    s.check_cards()


def test_first_out_wins():
    pos = dict(hands=[["A"], ["3", "3"], ["4"]], pile=["K"])
    s = play(b(**pos), "A")
    assert not s.is_terminal() and s.current_player() == 1
    s = play(b(**pos, rules=v("first_out_wins")), "A")
    assert s.is_terminal() and s.result() == [0, Fraction(1, 2), Fraction(1, 2)]


def test_lenient_blind():
    pos = dict(hands=[[], ["3"]], face_down=[2, 0], pile=["5", "6", "9", "K"],
               unseen=["4", "4"])
    s = play(b(**pos), "flip", "4")
    assert hand(s, 0) == ["4", "5", "6", "9", "K"] and s.pile == []
    s = play(b(**pos, rules=v("lenient_blind")), "flip", "4")
    assert hand(s, 0) == ["4", "9", "K"] and pile(s) == ["5", "6"]
    assert s.current_player() == 1
    s.check_cards()


def test_eight_reverses_on_the_last_card():
    """A reversing card keeps its effect when it is the player's last card (only a burn has
    the special rule 12)."""
    s = play(b([["8"], ["K"], ["A"], ["Q"]], pile=["4"], rules=v("eight_reverses")), "8")
    assert s.out[0] and s.direction == -1 and s.current_player() == 3


def test_eight_skips_on_the_last_card():
    s = play(b([["8"], ["K"], ["A"], ["Q"]], pile=["4"], rules=v("eight_skips")), "8")
    assert s.out[0] and s.current_player() == 2

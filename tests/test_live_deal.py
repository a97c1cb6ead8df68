"""`palace live` from the deal: the swap phase (`--deal`, `me up ...`, `bob up ...`), the
layout hint (the analysis of `palace swap`), the first player, then complete simulated games
checked against the truth after every event (tests/livesim.py, as tests/test_live.py does
after the swap)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from livesim import Knowledge, check_against_truth, signature, simulate_deal
from palace_solver.cli.main import cli

from palace_solver.game.cards import ranks_of
from palace_solver.game.rules import Rules
from palace_solver.jobs.swap import layouts
from palace_solver.live.session import LiveError, Session, Setup


@pytest.mark.parametrize("n", [2, 3, 4])
def test_games_from_the_deal_match_the_truth(n, tmp_path):
    for seed in range(8):
        me = seed % n
        setup, evs = simulate_deal(Rules(), n, seed, me)
        path = tmp_path / f"g{n}-{seed}.json"
        s = Session(setup, path=str(path))
        assert s.in_layout() and not s.at_decision()
        know = Knowledge(n, me)
        for i, (text, before, after, info) in enumerate(evs):
            r = s.apply(text)
            assert r.ok and r.event
            if after is None:
                assert s.in_layout()
                continue
            know.update(before, after, info)
            if s.first_open:   # who starts is told by the first play
                assert before is None and not s.at_decision()
                continue
            check_against_truth(s, after, know)
            if i == len(evs) // 2:
                s = Session.load(str(path))
        assert signature(Session.load(str(path))) == signature(s)


@pytest.mark.parametrize("variant", ["four_cards", "choose_face_up", "start_card",
                                     "seven_low"])
def test_games_from_the_deal_under_variants(variant):
    rules = Rules.with_variants([variant])
    for seed in range(3):
        setup, evs = simulate_deal(rules, 3, seed, seed % 3)
        s = Session(setup)
        know = Knowledge(3, seed % 3)
        for text, before, after, info in evs:
            s.apply(text)
            if after is not None:
                know.update(before, after, info)
                if not s.first_open:
                    check_against_truth(s, after, know)


def test_a_3_dealt_face_up_first_decides_as_the_engine_does():
    for seed in (1, 3, 5, 7):   # odd seeds: the session knows the cards dealt face up
        setup, evs = simulate_deal(Rules(), 3, seed, 0, first_card=3)
        s = Session(setup)
        for text, before, after, info in evs:
            s.apply(text)
            if after is not None:
                break
        assert not s.first_open and s.state.to_move == after.to_move == 0


def deal3(path=None, **kw):
    return Session(Setup(["me", "bob", "ann"], 0, Rules(), [], [[], [], []],
                         deal=[3, 7, 14, 10, 2, 13], **kw), path=path)


def test_the_layout_phase_refuses_what_cannot_be():
    s = deal3()
    cases = {
        "me 3": "the face-up cards come first: waiting for the face-up cards of you, bob "
                "and ann",
        "up 9 A K": "you were dealt 0 9s, not 1",
        "up 10 A": "you lay 3 cards face up, not 2",
        "bob up 3 3 3 3": "bob lays 3 cards face up, not 4",
        "draw 5": "the face-up cards come first",
        "first bob": "the face-up cards come first",
    }
    for line, words in cases.items():
        with pytest.raises(LiveError) as e:
            s.apply(line)
        assert words in str(e.value), (line, str(e.value))
    s.apply("bob up 3 3 3")
    with pytest.raises(LiveError, match="ann cannot lay a 3 face up: only 0 of the 4 3s"):
        s.apply("ann up 3 4 5")
    with pytest.raises(LiveError, match="bob has laid out 3 3 3 already"):
        s.apply("bob up 4 5 6")
    assert s.events == ["bob up 3 3 3"] and s.in_layout()
    assert s.summary()["phase"] == "layout" and s.summary()["to_move"] is None


def test_layouts_then_play_and_undo_back_into_the_layout(tmp_path):
    path = tmp_path / "d.json"
    s = deal3(path=str(path))
    assert s.apply("up 10 A K").message == "you lay 10 K A face up; your hand: 2 3 7"
    s.apply("bob up 5 9 J")
    r = s.apply("ann up 4 4 Q")
    assert "every face-up card is down" in r.message and "first play tells" in r.message
    assert s.first_open and s.summary()["phase"] == "play"
    assert s.known_hand(0) == [2, 3, 7] and s.hand_count(1) == 3
    s.apply("bob 5")
    assert s.state.to_move == 2 and not s.first_open
    assert json.loads(path.read_text())["events"] == ["me up 10 K A", "bob up 5 9 J",
                                                      "ann up 4 4 Q", "bob 5"]
    s.undo(2)
    assert s.in_layout() and s.waiting_layouts() == [2]
    again = Session.load(str(path))
    assert signature(again) == signature(s)


def test_first_player_from_the_deal():
    # Every 3 is the user's: the one in hand after the swap decides at once.
    three = Rules()
    s = Session(Setup(["bob", "me"], 1, three, [], [[], []], deal=[3, 3, 3, 3, 9, 13]))
    s.apply("me up 3 3 9")
    s.apply("bob up 5 6 7")
    assert not s.first_open and s.state.to_move == 1
    # The user was dealt a 3 face up as the very first card of the deal (left of the dealer).
    s = Session(Setup(["me", "bob", "ann"], 0, three, [], [[], [], []],
                      deal=[3, 9, 13, 5, 6, 7], deal_up=[3, 5, 6]))
    for line in ("up 9 K 7", "bob up 3 3 4", "ann up 3 4 4"):
        s.apply(line)
    assert not s.first_open and s.state.to_move == 0
    # The same cards without knowing which were dealt face up: the first play tells.
    s = Session(Setup(["me", "bob", "ann"], 0, three, [], [[], [], []],
                      deal=[3, 9, 13, 5, 6, 7]))
    for line in ("up 9 K 7", "bob up 3 3 4", "ann up 3 4 4"):
        s.apply(line)
    assert s.first_open
    s.apply("ann 8")
    assert s.state.to_move == 0 and not s.first_open
    # --first says it.
    s = deal3(first=2)
    for line in ("up 10 A K", "bob up 5 9 J", "ann up 4 4 Q"):
        s.apply(line)
    assert s.state.to_move == 2 and not s.first_open


def test_the_deal_is_checked():
    with pytest.raises(LiveError, match="you were dealt 6 cards"):
        Session(Setup(["me", "bob"], 0, Rules(), [], [[], []], deal=[3, 4, 5]))
    with pytest.raises(LiveError, match="the face-up 9 is not among your cards"):
        Session(Setup(["me", "bob"], 0, Rules(), [], [[], []], deal=[3, 4, 5, 6, 7, 8],
                      deal_up=[9, 3, 4]))
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob", "--deal", "3 7 A 10 2 K",
                                 "--hand", "3 7 A", "--script", "-"], input="")
    assert r.exit_code == 2 and "not both" in r.output
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob", "--deal", "3 7 A 10 2 K",
                                 "--up", "bob: 4 4 9", "--script", "-"], input="")
    assert r.exit_code == 2 and "'bob up 5 9 J'" in r.output
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob", "--deal", "3 7 A 10 2 X",
                                 "--script", "-"], input="")
    assert r.exit_code == 2 and "unknown card 'X'" in r.output


def test_script_json_from_the_deal_with_a_layout_hint():
    script = "hint 0.3\nup 10 A K\nbob up 5 9 J\nann up 4 4 Q\nbob 5\nshow\n"
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob,ann", "--deal", "3 7 A 10 2 K",
                                 "--script", "-", "--json", "--no-hints"], input=script)
    assert r.exit_code == 0, r.output
    hint, mine, bob, ann, play, show = [json.loads(x) for x in r.output.splitlines()]
    h = hint["suggestions"]
    assert hint["ok"] and h["method"] == "swap" and h["mover"] == "me"
    expect = sorted(str(m) for m in layouts(Rules(), 3, [3, 7, 14, 10, 2, 13]))
    assert sorted(m["move"] for m in h["moves"]) == expect
    assert all(m["move"].startswith("up ") for m in h["moves"])
    losses = [m["mover_loss"] for m in h["moves"]]
    assert losses == sorted(losses) and h["games"] >= 1
    assert [m["tied"] for m in h["moves"]][0] is False
    assert all(m["ci95"][0] <= m["mover_loss"] <= m["ci95"][1] for m in h["moves"])
    assert mine["event"] == "me up 10 K A" and mine["state"]["phase"] == "layout"
    assert ann["state"]["phase"] == "play" and ann["state"]["to_move"] is None
    assert play["ok"] and play["state"]["to_move"] == "ann"
    assert "[10] [K] [A]" in show["message"]


def test_layout_hint_keeps_the_layouts_already_shown(monkeypatch):
    from palace_solver.jobs import swap
    laid = []
    monkeypatch.setattr(swap, "make_state", lambda s, engine: s)
    monkeypatch.setattr(swap, "playout", lambda s, rng, bot: laid.append(
        ranks_of(s.face_up[1])) or [0.0] * s.n)
    cards = [3, 7, 14, 10, 2, 13]
    vals = swap.rank_layouts_timed(Rules(), 3, cards, [[5, 9, 11], []], seat=0,
                                   time_budget=0.0, keep_up=True)
    assert len(vals) == len(layouts(Rules(), 3, cards)) and all(v.games == 1 for v in vals)
    assert laid and all(up == [5, 9, 11] for up in laid)
    # Without keep_up the shown cards are the dealt ones, and the bot may swap them.
    laid.clear()
    swap.rank_layouts_timed(Rules(), 3, cards, [[5, 9, 11], []], seat=0, max_games=5,
                            time_budget=60.0)
    assert any(up != [5, 9, 11] for up in laid)

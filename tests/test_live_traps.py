"""`palace live`: the traps a new user fell into, one test each, and the hint features
(`hint SECONDS`, `set time`, forced moves, ties, the continuation, the odds of what the
others hold, the note for an unknown hand)."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from ptyutil import terminal_sigint
from click.testing import CliRunner
from palace_solver.cli.main import cli

from palace_solver.game.position import from_text
from palace_solver.game.rules import Rules
from palace_solver.live import hints as hints_mod
from palace_solver.live.repl import Driver
from palace_solver.live.session import LiveError, Session, Setup
from palace_solver.solve.results import tied_with_best

BURNED = ("2 2 2 3 3 3 4 4 5 5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q "
          "K K A A A A")
ENDGAME = (f"standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} "
           f"| to_move 0 | perspective 0")
TABLE = ["live", "--names", "me,bob", "--hand", "9 9 K", "--up", "me: 2 J Q",
         "--up", "bob: 4 4 A"]


def table(players: str, pile: str, unseen: str, rest: str) -> str:
    """A standard 2-player position: the burned cards are the deck less every card named
    (``players`` as in the text form, ``pile``, the ``unseen`` cards)."""
    from palace_solver.game.cards import DECK_RANKS, parse_rank, rank_name
    left = {r: 4 for r in DECK_RANKS}
    words = pile.split() + unseen.split()
    for seat in players.split(";"):
        hand, up, _down = seat.split(":", 1)[1].split("/")
        words += hand.split() + up.split()
    for w in words:
        if w != "-" and not w.startswith("?"):
            left[parse_rank(w)] -= 1
    burned = " ".join(rank_name(r) for r in DECK_RANKS for _ in range(left[r]))
    return (f"standard | {players} | {'pile ' + pile + ' | ' if pile else ''}burned {burned}"
            f" | {rest}")


def two(first=1, **kw):
    return Session(Setup(["me", "bob"], 0, Rules(), [9, 9, 13], [[2, 11, 12], [4, 4, 14]],
                         first=first), **kw)


# -- card names by the rules in force ----------------------------------------------------------

def test_x_is_not_a_card_without_jokers():
    s = two()
    for line in ("bob X", "bob Xx2", "bob JK", "bob flip X"):
        with pytest.raises(LiveError, match=r"unknown card .*: the cards are 2 3 4 .* no jokers"):
            s.apply(line)
    assert s.events == []
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob", "--hand", "X 9 K", "--up",
                                 "me: 2 J Q; bob: 4 4 A", "--script", "-"], input="")
    assert r.exit_code == 2 and "unknown card 'X'" in r.output and "1 cards" not in r.output


def test_jokers_are_cards_under_the_jokers_rules():
    names = ["me", "b", "c", "d", "e", "f"]
    up = [[3, 4, 5], [6, 7, 8], [9, 11, 12], [13, 14, 2], [3, 4, 5], [6, 7, 8]]
    s = Session(Setup(names, 0, Rules(jokers=True), [15, 9, 13], up, first=0))
    r = s.apply("me X")
    assert r.ok and s.events == ["me JK"]


# -- messages that name the card and the count -------------------------------------------------

def test_a_play_from_a_known_hand_names_the_card_and_the_count():
    pos = from_text(table("me: 3 7 7 / - / 1 ; bob: K / 2 / 1", "", "9 9",
                          "to_move bob | perspective 0"))
    s = Session(Setup.from_position(pos))
    with pytest.raises(LiveError) as e:
        s.apply("bob 3")
    assert str(e.value) == ("bob cannot play a 3: every card in bob's hand is known (K) "
                            "and none is a 3")
    with pytest.raises(LiveError, match=r"bob cannot play two Ks: every card in bob's hand is "
                                        r"known \(K\) and only one is a K"):
        s.apply("bob Kx2")


def test_too_many_cards_of_a_rank_are_counted_in_words():
    with pytest.raises(LiveError, match="5 cards of rank 4 seen, but the deck has only 4"):
        Setup(["me", "bob"], 0, Rules(), [4, 4, 4], [[2, 11, 12], [4, 4, 14]]).validate()


# -- names -------------------------------------------------------------------------------------

def test_duplicate_names_are_refused_before_anything_else():
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob,bob", "--hand", "9 9 K",
                                 "--up", "me: 2 J Q; ann: 4 4 A", "--script", "-"], input="")
    assert r.exit_code == 2
    assert "two players named 'bob'" in r.output and "ann" not in r.output


def test_json_without_script_is_an_error():
    r = CliRunner().invoke(cli, TABLE + ["--json"], input="quit\n")
    assert r.exit_code == 2 and "--json needs --script" in r.output


def test_undoing_the_first_event_says_who_starts_is_not_known():
    s = Session(Setup(["bob", "me"], 1, Rules(), [3, 9, 13], [[2, 11, 12], [4, 4, 14]]))
    assert s.first_open
    s.apply("me 3")
    r = s.undo()
    assert "Your turn" not in r.message and "not known" in r.message
    assert s.first_open


def test_an_event_that_cannot_be_saved_is_not_accepted(tmp_path, monkeypatch):
    s = two(path=str(tmp_path / "g.json"))
    s.save()

    def broken(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(s, "save", broken)
    with pytest.raises(LiveError, match="cannot save the session .*'bob 5' is not recorded"):
        s.apply("bob 5")
    assert s.events == [] and s.state.pile == [] and not s._undo


# -- hints -------------------------------------------------------------------------------------

def test_ties_overlap_the_best_interval():
    assert tied_with_best([]) == []
    assert tied_with_best([(0.1, 0.2)]) == [False]
    assert tied_with_best([(0.1, 0.2), (0.2, 0.3), (0.21, 0.3), (0.0, 1.0)]) == \
        [False, True, False, True]
    assert tied_with_best([(0.5, 0.5), (0.5, 0.5), (0.6, 0.6)]) == [False, True, False]


def _capture_budget(monkeypatch):
    seen = []

    def fake(target, args, limit, cancel=None):
        seen.append(args[1] if target is hints_mod._position_job else args[5])
        return {"ok": False, "message": "stub", "seconds": 0.0}
    monkeypatch.setattr(hints_mod, "run_child", fake)
    return seen


def test_hint_seconds_and_set_time(tmp_path, monkeypatch):
    seen = _capture_budget(monkeypatch)
    path = tmp_path / "g.json"
    s = two(path=str(path))
    s.apply("bob 5")
    d = Driver(s, 5.0, hints=False, seed=0)
    d.handle("hint 0.3")
    d.handle("hint")
    assert d.handle("set time 0.7")["ok"]
    d.handle("hint")
    assert seen == [0.3, 5.0, 0.7]
    assert json.loads(path.read_text())["settings"] == {"time": 0.7}
    assert Session.load(str(path)).settings["time"] == 0.7
    for bad in ("hint 0", "hint -1", "hint soon", "set time x", "set speed 3"):
        ans = d.handle(bad)
        assert not ans["ok"], bad
    assert seen == [0.3, 5.0, 0.7]


def test_a_forced_move_is_answered_without_analysis(monkeypatch):
    monkeypatch.setattr(hints_mod, "run_child", None)   # any analysis would fail
    pos = from_text(table("me: 3 / - / 1 ; bob: Q Q / 2 / 1", "5 7 7 K", "9 9",
                          "to_move 0 | perspective 0"))
    h = hints_mod.hint(pos, 30.0)
    assert h["ok"] and h["forced"] and [m["move"] for m in h["moves"]] == ["pickup"]
    assert "only one legal move: pickup" in hints_mod.format_hint(h)
    # A face-down card is the only move whatever the hidden cards.
    pos = from_text(table("me: 9 / - / 0 ; bob: - / - / 2", "5", "9 9",
                          "to_move bob | perspective 0"))
    h = hints_mod.hint(pos, 30.0)
    assert h["forced"] and h["moves"][0]["move"] == "flip"


def test_a_hint_for_an_unknown_hand_says_it_assumes_a_random_hand(monkeypatch):
    _capture_budget(monkeypatch)
    s = two()
    h = Driver(s, 0.3, hints=False, seed=0).hint()
    assert any("bob's hand is not known to you" in x and "assumes a random hand" in x
               for x in h["notes"])


def test_sampled_hint_marks_ties_and_shows_the_continuation_and_the_odds():
    pytest.importorskip("palace_solver.sample.sampled")
    s = Session(Setup(["me", "bob", "ann"], 0, Rules(), [9, 9, 13],
                      [[2, 11, 12], [4, 4, 14], [5, 6, 7]], first=1))
    s.apply("bob 5")
    s.apply("ann 6")
    h = s.hint(time_budget=0.6, hard_limit=20.0)
    assert h["ok"], h["message"]
    moves = h["moves"]
    # the deals are common to the moves: tied when the loss minus the best's, over them,
    # has an interval reaching 0
    assert h["tie_rule"] == "paired" and moves[0]["vs_best"] == [0.0, 0.0]
    assert [m["tied"] for m in moves] == [False] + [m["vs_best"][0] <= 0 for m in moves[1:]]
    for m in moves[1:]:
        assert m["vs_best"][0] <= m["mover_loss"] - moves[0]["mover_loss"] <= m["vs_best"][1]
    cont = h["continuation"]
    assert cont["deals"] >= 1 and cont["plies"]
    first = cont["plies"][0]
    assert sum(e["count"] for e in first) == cont["deals"]
    assert {e["player"] for e in first} == {"bob"}
    odds = {o["player"]: o for o in h["odds"]}
    assert set(odds) == {"bob", "ann"}
    for o in odds.values():
        assert o["source"] == "hand" and o["unknown"] == 3
        assert 0 < o["ranks"]["2"] < 1 and 0 < o["ranks"]["10"] < 1
        assert o["ranks"]["2"] <= o["beats"] <= 1 and "10" in o["beats_ranks"]
        assert "3" not in o["beats_ranks"]   # the pile wants a 6 or higher
    text = hints_mod.format_hint(h)
    assert "expected after" in text and "the others hold" in text


def test_holding_odds_are_hypergeometric():
    # bob: 2 unknown cards; unseen: the draw pile is empty, 4 cards unseen (bob's 2 and the
    # 2 face-down), one of them a 2: P(bob has the 2) = 1 - C(3,2)/C(4,2) = 1/2.
    pos = from_text(table("me: 3 / - / 1 ; bob: ?2 / - / 1", "5", "2 K K Q",
                        "to_move 0 | perspective 0"))
    unseen = pos.unseen_counts()
    assert sum(unseen) == 4 and unseen[2] == 1
    (o,) = hints_mod.holding_odds(pos)
    assert o["player"] == "bob" and abs(o["ranks"]["2"] - 0.5) < 1e-12


def test_json_hint_has_tied_flags():
    r = CliRunner().invoke(cli, ["live", "--position", ENDGAME, "--script", "-", "--json",
                                 "--time", "0.5"], input="hint\n")
    assert r.exit_code == 0, r.output
    h = json.loads(r.output.splitlines()[0])["suggestions"]
    assert h["ok"] and all(isinstance(m["tied"], bool) for m in h["moves"])
    # exact values: 7, 7x2 and pickup all lose 0% here, so all are tied with the best
    assert [m["tied"] for m in h["moves"]] == [False, True, True]


# -- the terminal ------------------------------------------------------------------------------

pexpect = pytest.importorskip("pexpect")
PALACE = shutil.which("palace") or str(Path(sys.executable).with_name("palace"))
needs_palace = pytest.mark.skipif(not os.path.exists(PALACE),
                                  reason="the palace command is not installed")


def spawn(args, cwd):
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    return pexpect.spawn(PALACE, args, cwd=str(cwd), env=env, encoding="utf-8", timeout=20,
                         dimensions=(40, 200), preexec_fn=terminal_sigint)


@needs_palace
def test_ctrl_c_during_a_hint_cancels_it_and_keeps_the_game(tmp_path):
    path = tmp_path / "g.json"
    child = spawn(TABLE + ["--first", "bob", "--no-hints", "--time", "60", "--file",
                           str(path)], tmp_path)
    child.expect(r"bob> ")
    child.sendline("bob 5")
    child.expect(r"your turn> ")
    child.sendline("hint")
    child.expect("thinking for up to 60 s")
    child.sendintr()
    child.expect("hint cancelled")
    child.expect(r"your turn> ")
    child.sendline("me 9")
    child.expect("you play 9")
    child.sendline("draw 3")
    child.expect(r"bob> ")
    child.sendintr()                      # at the prompt: save and quit
    child.expect("session saved in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert json.loads(path.read_text())["events"] == ["bob 5", "me 9", "draw 3"]


@needs_palace
def test_help_works_at_every_setup_prompt_and_answers_are_checked_at_once(tmp_path):
    child = spawn(["live", "--file", str(tmp_path / "p.json"), "--no-hints"], tmp_path)
    child.expect("Players in turn order")
    child.sendline("help")
    child.expect("in the order they play")
    child.expect("Players in turn order")
    child.sendline("me bob bob")
    child.expect("two players named 'bob'")
    child.expect("Players in turn order")
    child.sendline("me bob")
    child.expect("Rules")
    child.sendline("help")
    child.expect("Known variants")
    child.expect("Rules")
    child.sendline("")
    child.expect("Your hand")
    child.sendline("help")
    child.expect("as they were dealt")
    child.expect("Your hand")
    child.sendline("9 9 X")
    child.expect("unknown card 'X'")
    child.expect("Your hand")
    child.sendline("9 9 K")
    child.expect("Your face-up cards")
    child.sendline("?")
    child.expect("face-up cards of you")
    child.expect("Your face-up cards")
    child.sendline("2 J Q")
    child.expect("bob's face-up cards")
    child.sendline("help")
    child.expect("face-up cards of bob")
    child.expect("bob's face-up cards")
    child.sendline("3 4 A")
    child.expect("Who plays first")
    child.sendline("help")
    child.expect("let the rule decide")
    child.expect("Who plays first")
    child.sendline("carol")
    child.expect("no player named 'carol'")
    child.expect("Who plays first")
    child.sendline("")
    # Rule 3 counts the face-up cards as dealt; those seen are after the swap, so the
    # first play tells.
    child.expect("who plays first is not known yet")
    child.expect(r"live> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_hint_can_be_cancelled_from_another_thread():
    import threading
    s = two()
    s.apply("bob 5")
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    h = s.hint(60.0, cancel=stop)
    assert not h["ok"] and h["cancelled"] and "cancelled" in h["message"]
    assert s.events == ["bob 5"]


def test_the_continuation_replies_with_the_games_history():
    # bob's best reply to the pickup is the 9; had the position after that 9 come up
    # earlier in the game, playing it again would be a draw, and the 10 is best instead.
    # The hint's own move stays the pickup either way.
    from palace_solver.analysis import analyze
    from palace_solver.game.moves import Move
    burned = ("2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 7 7 7 7 8 8 8 9 9 9 10 10 10 J J J "
              "Q Q Q K K K K A A A")
    pos = from_text(f"standard | me: 6 J / - / 0 ; bob: 9 10 / - / 1 | pile 8 A "
                    f"| burned {burned} | to_move 0")
    after_nine = from_text(f"standard | me: 6 8 J A / - / 0 ; bob: 10 / - / 1 | pile 9 "
                           f"| burned {burned} | to_move 0")
    pickup = Move.parse("pickup")
    assert analyze(pos).best_move == pickup
    assert analyze(pos, history=[after_nine]).best_move == pickup

    def first_reply(history):
        cont = hints_mod.continuation(pos, pickup, deals=2, time_budget=5.0,
                                      history=history)
        assert cont["deals"] == 2
        return [(e["player"], e["move"], e["count"]) for e in cont["plies"][0]]

    assert first_reply(None) == [(1, "9", 2)]
    assert first_reply([after_nine]) == [(1, "10", 2)]

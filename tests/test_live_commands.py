"""`palace live`: commands and cards never collide. A card word is always read as a card at
the play prompt (`Q` plays a queen, `k` a king); commands are whole words that are no card;
quitting is a word (`quit`, `exit`), end of input (Ctrl-D) or Ctrl-C."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from palace_solver.cli.main import cli
from palace_solver.game.cards import RANKS, rank_name
from palace_solver.game.rules import Rules
from palace_solver.live.events import is_card
from palace_solver.live.repl import COMMAND_WORDS, Driver, parse_command
from palace_solver.live.session import Session, Setup

ISSUE = ["live", "--names", "me,bob", "--hand", "3 7 Q", "--up", "me: 2 A K; bob: 5 9 J",
         "--time", "0.2", "--no-hints"]


def test_no_command_word_reads_as_a_card():
    for w in COMMAND_WORDS:
        assert not is_card(w), w
        assert len(w) > 1 or w == "?", w


@pytest.mark.parametrize("word", ["Q", "q", "K", "k", "J", "j", "A", "a", "T", "t", "Qh",
                                  "qx2", "Q Q"])
def test_a_card_word_is_never_a_command(word):
    assert parse_command(word) is None


def test_word_commands_are_commands_and_take_their_arguments():
    assert parse_command("quit") == ("quit", [])
    assert parse_command("EXIT") == ("exit", [])
    assert parse_command("hint 5") == ("hint", ["5"])
    assert parse_command("?") == ("help", [])
    assert parse_command("bob 7x2") is None


def _answers(tmp_path, lines: str, extra=()):
    f = tmp_path / "script.txt"
    f.write_text(lines)
    r = CliRunner().invoke(cli, ISSUE + ["--script", str(f), "--json", *extra])
    assert r.exit_code == 0, r.output
    return [json.loads(x) for x in r.output.splitlines() if x.startswith("{")]


def test_typing_Q_at_the_prompt_plays_a_queen(tmp_path):
    # The issue's reproduction: `Q` used to save the game and quit.
    out = _answers(tmp_path, "first me\nQ\ndraw K\nbob K\nk\n",
                   ["--file", str(tmp_path / "s.json")])
    assert [a["kind"] for a in out] == ["event"] * 5, out
    assert all(a["ok"] for a in out), out
    assert "Q" in out[1]["event"] and "K" in out[4]["event"], out
    assert "session saved" not in json.dumps(out)
    saved = json.loads((tmp_path / "s.json").read_text())
    assert len(saved["events"]) == 5


def test_quit_is_a_word(tmp_path):
    out = _answers(tmp_path, "first me\nQ\nquit\nbob K\n")
    assert [a["kind"] for a in out] == ["event", "event", "command"]
    assert out[1]["ok"] and out[2]["input"] == "quit"


def _session():
    return Session(Setup(["me", "bob"], 0, Rules(), [3, 7, 12], [[2, 14, 13], [5, 9, 11]],
                         first=0))


def test_driver_plays_every_card_word_the_player_holds():
    d = Driver(_session(), 0.1, hints=False, seed=0)
    ans = d.handle("q")
    assert ans["kind"] == "event" and ans["ok"] and not d.done, ans
    ans = d.handle("exit")
    assert d.done and ans["kind"] == "command"


def test_a_card_the_player_lacks_is_refused_as_a_card_not_taken_as_a_command():
    d = Driver(_session(), 0.1, hints=False, seed=0)
    ans = d.handle("k")   # it is me to move and I hold no king in hand
    assert ans["kind"] == "event" and not ans["ok"] and not d.done, ans


def test_commands_can_be_added_by_word():
    d = Driver(_session(), 0.1, hints=False, seed=0)
    d.add_command("ping", lambda args, ans: ans.update(message="pong " + " ".join(args)))
    assert d.handle("ping a b")["message"] == "pong a b"
    with pytest.raises(ValueError):
        d.add_command("k", lambda args, ans: None)
    with pytest.raises(ValueError):
        d.add_command("quit", lambda args, ans: None)


def test_every_rank_name_typed_alone_is_an_event():
    for r in RANKS[:-1]:
        for w in (rank_name(r), rank_name(r).lower()):
            assert parse_command(w) is None, w

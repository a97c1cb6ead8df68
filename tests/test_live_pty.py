"""The real `palace live` prompt in a pseudo-terminal (pexpect): setup, events, help, a
hint, a refusal, undo, quit, then resume from the session file."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from ptyutil import terminal_sigint

pexpect = pytest.importorskip("pexpect")

PALACE = shutil.which("palace") or str(Path(sys.executable).with_name("palace"))

BURNED = ("2 2 2 3 3 3 4 4 5 5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q "
          "K K A A A A")
ENDGAME = (f"standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} "
           f"| to_move 0 | perspective 0")


def spawn(args, cwd):
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    return pexpect.spawn(PALACE, args, cwd=str(cwd), env=env, encoding="utf-8", timeout=20,
                         dimensions=(40, 200), preexec_fn=terminal_sigint)


@pytest.mark.skipif(not os.path.exists(PALACE), reason="the palace command is not installed")
def test_interactive_session(tmp_path):
    path = tmp_path / "game.json"
    child = spawn(["live", "--names", "me,bob", "--hand", "9 9 K", "--up", "me: 2 J Q",
                   "--up", "bob: 4 4 A", "--first", "bob", "--time", "0.3",
                   "--file", str(path)], tmp_path)
    child.expect("you are me")
    child.expect(r"bob> ")
    child.sendline("help")
    child.expect("Events")
    child.expect("undo")
    child.expect(r"bob> ")
    child.sendline("me 9")
    child.expect("refused: it is bob's turn, not yours")
    child.expect(r"bob> ")
    child.sendline("bob 5")
    child.expect("bob plays 5; bob draws 1")
    child.expect(r"your turn> ")
    child.sendline("hint")
    child.expect(r"suggestions for me \((search|exact|depth_limited)")
    child.expect(r"1\. (9x2|9|K|pickup) +\d+\.\d%")  # a real ranking, not "unavailable"
    child.expect(r"your turn> ")
    child.sendline("me 9x2")
    child.expect("you play 9x2; you draw 2")
    child.expect(r"live> ")
    child.sendline("undo")
    child.expect("undone: me 9x2")
    child.expect(r"your turn> ")
    child.sendline("show")
    child.expect(r"pile \(1\): \[5\]")
    child.expect(r"your turn> ")
    child.sendline("quit")
    child.expect("session saved in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert json.loads(path.read_text())["events"] == ["bob 5"]

    # Resume: the same table, and play goes on.
    child = spawn(["live", "--resume", str(path), "--no-hints"], tmp_path)
    child.expect(r"your turn> ")
    child.sendline("me K")
    child.expect("you play K; you draw 1")
    child.sendline("draw 3")
    child.expect("you draw 3")
    child.expect(r"bob> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert json.loads(path.read_text())["events"] == ["bob 5", "me K", "draw 3"]


@pytest.mark.skipif(not os.path.exists(PALACE), reason="the palace command is not installed")
def test_interactive_setup_prompts_and_exact_hint(tmp_path):
    child = spawn(["live", "--position", ENDGAME, "--time", "0.5"], tmp_path)
    child.expect(r"suggestions for me \(exact")
    child.expect(r"your turn> ")
    child.sendline("me 7x2")
    child.expect(r"bob> ")
    child.sendline("bob K")
    child.expect(r"only one legal move: pickup")  # forced: answered without analysis
    child.expect(r"your turn> ")
    child.sendline("undo 2")
    child.expect("undone: bob K, me 7x2")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = list(tmp_path.glob("palace-live-*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["events"] == []

    # Asked for the table when the options are missing.
    child = spawn(["live", "--file", str(tmp_path / "p.json"), "--no-hints"], tmp_path)
    child.expect("Players in turn order")
    child.sendline("me bob")
    child.expect("Rules")
    child.sendline("")
    child.expect("Your hand")
    child.sendline("9 9 K")
    child.expect("Your face-up cards")
    child.sendline("2 J Q")
    child.expect("bob's face-up cards")
    child.sendline("3 4 A")
    child.expect("Who plays first")
    child.sendline("")
    # Rule 3 counts the face-up cards as dealt; those seen are after the swap, so the
    # first play tells.
    child.expect("who plays first is not known yet")
    child.expect(r"live> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)

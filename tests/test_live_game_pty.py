"""A whole 3-player game followed at the real `palace live` prompt (pexpect), from the deal:
the layout hint, choosing the face-up cards, the others' layouts, then every event of a game
played by the engine and bots (burns, pickups, the draw pile running out, flips, the end),
with `hint 0.3` and a hint stopped by Ctrl-C on the way. The session file must hold every
event at the end, and a session replayed beside the terminal says what each answer means."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from ptyutil import terminal_sigint
from livesim import simulate_deal

from palace_solver.game.cards import rank_name
from palace_solver.game.rules import Rules
from palace_solver.live.hints import forced_move
from palace_solver.live.session import Session

pexpect = pytest.importorskip("pexpect")

PALACE = shutil.which("palace") or str(Path(sys.executable).with_name("palace"))
PROMPT = r"(deal|your turn|bob|carol|live|over)> "


def a_full_game():
    """The first seeded 3-player game (user at seat 0) that has burns, pickups, flips, a
    draw pile that runs out and an end."""
    for seed in range(200):
        setup, evs = simulate_deal(Rules(), 3, seed, 0)
        plays = [e for e in evs if e[2] is not None and e[3] is not None]
        final = evs[-1][2]
        if not final.is_terminal():
            continue
        burns = [t for t, b, a, _ in plays if sum(a.burned) > sum(b.burned)]
        pickups = [t for t, *_ in plays if "pickup" in t]
        flips = [t for t, *_ in plays if " flip " in t]
        # the last card of the draw pile drawn by an opponent: "(draw pile 0)" is said
        emptied = [t for t, b, a, _ in plays if b.draw_pile and not a.draw_pile]
        if burns and pickups and flips and emptied and len(evs) < 160:
            return seed, setup, evs
    raise AssertionError("no seeded game has every kind of event")


@pytest.mark.skipif(not os.path.exists(PALACE), reason="the palace command is not installed")
def test_a_whole_game_from_the_deal_at_the_prompt(tmp_path):
    seed, setup, evs = a_full_game()
    path = tmp_path / "game.json"
    deal = " ".join(rank_name(r) for r in setup.deal)
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    child = pexpect.spawn(PALACE, ["live", "--names", ",".join(setup.names), "--deal", deal,
                                   "--time", "0.3", "--no-hints", "--file", str(path)],
                          cwd=str(tmp_path), env=env, encoding="utf-8", timeout=30,
                          dimensions=(50, 200), preexec_fn=terminal_sigint)
    child.delaybeforesend = 0.005
    child.expect("dealt: ")
    child.expect("deal> ")
    child.sendline("hint")                               # the layout hint
    child.expect(r"layouts for me \(swap")
    child.expect(r"1\. up ")
    child.expect("deal> ")

    mirror = Session(setup)       # what the session must say, replayed beside the prompt
    out = []
    hinted = stopped = False
    for text, _before, after, info in evs:
        # Once in the middle of the game, on the user's turn: a hint stopped by Ctrl-C,
        # then `hint 0.3`; neither changes the game.
        if (not stopped and mirror.at_decision() and mirror.state.to_move == 0
                and mirror.state.draw_pile and forced_move(mirror.position()) is None):
            child.sendline("hint 30")
            child.expect("thinking for up to 30 s")
            child.sendintr()
            child.expect("hint cancelled")
            child.expect("your turn> ")
            stopped = True
        elif stopped and not hinted and mirror.at_decision() and mirror.state.to_move == 0 \
                and forced_move(mirror.position()) is None:
            child.sendline("hint 0.3")
            child.expect("thinking for up to 0.3 s")
            child.expect(r"suggestions for me \(")
            child.expect(r"1\. ")
            child.expect("your turn> ")
            hinted = True
        reply = mirror.apply(text)
        child.sendline(text)
        i = child.expect([PROMPT, "refused: "])
        assert i == 0, f"{text!r} refused: {child.before}{child.after}{child.buffer}"
        said = child.before
        assert re.sub(r"\s+", " ", reply.message) in re.sub(r"\s+", " ", said), (text, said)
        out.append((text, said, after))
    assert stopped and hinted

    said = "\n".join(s for _, s, _ in out)
    assert "every face-up card is down" in said
    assert "the pile burns" in said
    assert re.search(r"(bob|carol) takes \d+ cards?|you take \d+ cards?", said)
    assert re.search(r"(bob|carol) draws \d \(draw pile 0\)", said)
    assert re.search(r"flips? \w+", said)
    assert "Game over" in said
    child.sendline("show")
    child.expect(r"draw pile: 0")
    child.expect("the game is over")
    child.expect("over> ")
    child.sendline("quit")
    child.expect("session saved in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = json.loads(path.read_text())["events"]
    assert saved == mirror.events and len(saved) == len(evs)
    again = Session.load(str(path))
    assert again.state.is_terminal() and again.state.loss == evs[-1][2].loss

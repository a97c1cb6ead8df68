"""How soon `palace live` answers `hint`, measured at the real prompt (a pseudo-terminal,
pexpect): the time from sending the line to the first line of the answer, and to the prompt
after it.

    python benchmarks/live_hint_latency.py               # 20 rounds each
    python benchmarks/live_hint_latency.py --rounds 50 --time 2

Three rows:

- ``forced``: a position where the user's only legal move is a pickup: answered at once
  ("only one legal move: pickup"), no analysis;
- ``flip``: the user is at the face-down cards (a flip is the only move, whatever the hidden
  cards): answered at once;
- ``sampled``: an ordinary turn with hidden hands and a draw pile: the first line is the
  "thinking" line (printed before the analysis), the answer comes after ``--time``.

Each row prints the median and the largest of its rounds, in milliseconds. The terminal's
own round trip (a `status` line, no hint) is printed as the floor.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import pexpect

PALACE = shutil.which("palace") or str(Path(sys.executable).with_name("palace"))
BURNED = ("2 2 2 3 3 3 4 4 5 5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q "
          "K K A A A A")
FORCED = (f"standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} "
          f"| to_move 0 | perspective 0")


def spawn(args):
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    c = pexpect.spawn(PALACE, args, env=env, encoding="utf-8", timeout=120,
                      dimensions=(50, 200))
    c.delaybeforesend = None
    return c


def timed(child, line, first, prompt, rounds):
    """Milliseconds to ``first`` and to ``prompt`` after sending ``line``, per round."""
    a, b = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        child.sendline(line)
        child.expect(first)
        a.append(1000 * (time.perf_counter() - t0))
        child.expect(prompt)
        b.append(1000 * (time.perf_counter() - t0))
    return a, b


def row(name, a, b):
    print(f"{name:<8} first line: median {statistics.median(a):7.1f} ms, max {max(a):7.1f} ms"
          f"   answer done: median {statistics.median(b):7.1f} ms, max {max(b):7.1f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--time", type=float, default=1.0, help="hint budget of the sampled row")
    args = ap.parse_args()
    n = args.rounds

    # The forced pickup: me 3 on bob's K (after "me 7x2", "bob K").
    c = spawn(["live", "--position", FORCED, "--no-hints", "--time", "5"])
    c.expect("your turn> ")
    c.sendline("me 7x2")
    c.expect("bob> ")
    c.sendline("bob K")
    c.expect("your turn> ")
    row("floor", *timed(c, "status", "your turn\r\n", "your turn> ", n))
    row("forced", *timed(c, "hint", "only one legal move: pickup", "your turn> ", n))
    c.sendline("quit")
    c.expect(pexpect.EOF)

    # A flip: the user has only face-down cards.
    flip = (f"standard | me: - / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} 3 7 7 "
            f"| to_move 0 | perspective 0")
    c = spawn(["live", "--position", flip, "--no-hints", "--time", "5"])
    c.expect("your turn> ")
    row("flip", *timed(c, "hint", "only one legal move: flip", "your turn> ", n))
    c.sendline("quit")
    c.expect(pexpect.EOF)

    # An ordinary turn with hidden hands: the thinking line, then the answer.
    c = spawn(["live", "--names", "me,bob,ann", "--hand", "9 9 K", "--up",
               "me: 2 J Q; bob: 4 4 A; ann: 5 6 7", "--first", "bob", "--no-hints",
               "--time", str(args.time)])
    c.expect("bob> ")
    c.sendline("bob 5")
    c.expect("ann> ")
    c.sendline("ann 6")
    c.expect("your turn> ")
    row("sampled", *timed(c, "hint", "thinking for up to", "your turn> ", max(3, n // 5)))
    c.sendline("quit")
    c.expect(pexpect.EOF)


if __name__ == "__main__":
    main()

"""Crash safety of live session files: a process writing events is killed with SIGKILL at
random moments, many times over; after every kill the file loads, and holds the events up
to the last one acknowledged or one more (the state before or after the event being
written), never half a file."""
from __future__ import annotations

import os
import random
import signal
import time

from test_live import simulate

from palace_solver.game.rules import Rules
from palace_solver.live.session import Session

KILLS = 200


def _writer(path: str, setup, lines: list[str], start: int, ack: int) -> None:
    """In the child: apply ``lines[start:]`` to the session file, one byte on ``ack`` after
    each event is saved."""
    try:
        s = Session.load(path) if start else Session(setup, path=path)
        if not start:
            s.save()
            os.write(ack, b"s")
        for line in lines[start:]:
            s.apply(line)
            os.write(ack, b".")
    finally:
        os._exit(0)


def test_sigkill_while_events_are_written(tmp_path):
    setup, evs = simulate(Rules(), 2, seed=5, me=0)
    lines = [e[0] for e in evs]
    assert len(lines) > 30
    ref = Session(setup)
    for line in lines:
        ref.apply(line)
    canon = list(ref.events)      # the events as a session keeps them
    path = str(tmp_path / "game.json")
    rng = random.Random(31)
    done = -1          # events in the file (-1: no file yet)
    kills = outcomes_after = 0
    t_end = time.monotonic() + 45
    while kills < KILLS:
        assert time.monotonic() < t_end, f"only {kills} kills in the time allowed"
        if done >= len(lines):
            os.unlink(path)
            done = -1
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _writer(path, setup, lines, max(0, done), w)
        os.close(w)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        acks = b""
        while True:
            chunk = os.read(r, 4096)
            if not chunk:
                break
            acks += chunk
        os.close(r)
        kills += 1
        started = acks.startswith(b"s")
        n_acked = acks.count(b".")
        if done < 0 and not started:
            # Killed before the first save was acknowledged: no file, or the whole empty
            # session.
            if not os.path.exists(path):
                continue
            expect = {0}
        else:
            base = max(0, done) + n_acked
            expect = {base, base + 1}
        s = Session.load(path)                 # the file always loads
        got = len(s.events)
        assert got in expect, (kills, done, acks, got)
        outcomes_after += got == max(expect) and len(expect) == 2
        done = got
        # the events are the game's, in order
        assert list(s.events) == canon[:got]
    print(f"\n{kills} kills, {outcomes_after} of them between a rename and its "
          f"acknowledgement; every file loaded")
    # Temporary files of interrupted writes may stay behind: never a session file.
    for f in os.listdir(tmp_path):
        assert f == "game.json" or (f.startswith(".palace-game.json-") and f.endswith(".tmp")), f


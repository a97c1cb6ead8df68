"""palace_solver.atomic: a write is whole or not at all."""
from __future__ import annotations

import os
import stat

import pytest

from palace_solver.atomic import write_atomic


def test_text_bytes_and_chunks_land_whole(tmp_path):
    p = str(tmp_path / "f.txt")
    assert write_atomic(p, "é\n") == p and open(p, encoding="utf-8").read() == "é\n"
    write_atomic(p, b"ab")
    assert open(p, "rb").read() == b"ab"
    write_atomic(p, iter([b"1", b"2", b"3"]))
    assert open(p, "rb").read() == b"123"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    p = str(tmp_path / "f.txt")
    write_atomic(p, "old")

    def chunks():
        yield b"new, half"
        raise RuntimeError("the disk is gone")

    with pytest.raises(RuntimeError):
        write_atomic(p, chunks())
    assert open(p).read() == "old" and os.listdir(tmp_path) == ["f.txt"]
    with pytest.raises(OSError):
        write_atomic(str(tmp_path / "no" / "such" / "dir.txt"), "x")


def test_the_file_keeps_its_mode_or_takes_a_new_files(tmp_path):
    # mkstemp's 0600 must not reach the file: results are read by others, as open() left them
    p = tmp_path / "f.txt"
    write_atomic(str(p), "a")
    q = tmp_path / "g.txt"
    q.write_text("b")
    assert stat.S_IMODE(p.stat().st_mode) == stat.S_IMODE(q.stat().st_mode)
    os.chmod(p, 0o640)
    write_atomic(str(p), "c")
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    long = tmp_path / ("x" * 240)             # a long name still leaves room for the letters
    write_atomic(str(long), "d")
    assert long.read_text() == "d"

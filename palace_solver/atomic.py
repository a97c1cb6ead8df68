"""Writing a file so that a crash never leaves half of it: the batch layer's result files,
``palace live``'s sessions and the game records all go through :func:`write_atomic`.

Imports nothing of the package (any layer may use it).
"""
from __future__ import annotations

import os
import tempfile
from typing import Iterable

__all__ = ["write_atomic"]


def write_atomic(path: str, data: str | bytes | Iterable[bytes]) -> str:
    """Write ``data`` (text as UTF-8, bytes, or chunks of bytes) to ``path``: into a
    temporary file of the same directory, flushed and fsynced, renamed over ``path``, the
    directory fsynced too (the rename itself durable), so a reader sees the old file or the
    new one, whole. Returns ``path``.

    :raises OSError: when it cannot be written (the old file is then untouched and no
        temporary file is left).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    chunks = [data] if isinstance(data, bytes) else data
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".palace-{os.path.basename(path)}-", suffix=".tmp",
                               dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            for c in chunks:
                f.write(c)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:         # (some file systems cannot fsync a directory)
        pass
    return path

"""Writing a file so that a crash never leaves half of it: the batch layer's result files,
``palace live``'s sessions and the game records all go through :func:`write_atomic`.

Imports nothing of the package (any layer may use it).
"""
from __future__ import annotations

import os
import stat
import tempfile
from typing import Iterable

__all__ = ["write_atomic"]


def write_atomic(path: str, data: str | bytes | Iterable[bytes]) -> str:
    """Write ``data`` (text as UTF-8, bytes, or chunks of bytes) to ``path``: into a
    temporary file of the same directory, flushed and fsynced, renamed over ``path``, the
    directory fsynced too (the rename itself durable), so a reader sees the old file or the
    new one, whole. The file keeps the old one's permissions, or takes those of a new file
    (the umask's). Returns ``path``.

    :raises OSError: when it cannot be written (the old file is then untouched and no
        temporary file is left).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    chunks = [data] if isinstance(data, bytes) else data
    d = os.path.dirname(os.path.abspath(path))
    # (the name cut short: a long file name plus mkstemp's letters must stay a valid name)
    fd, tmp = tempfile.mkstemp(prefix=f".palace-{os.path.basename(path)[:64]}-",
                               suffix=".tmp", dir=d)
    try:
        # mkstemp makes the file 0600: give it the mode open() would, or the old file's
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
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


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (setting it
    to read it back would touch every thread's new files for that moment)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask

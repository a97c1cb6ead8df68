"""Session files: one JSON file per game, written so that a crash never leaves half a file.

A session file is ``{"format": SESSION_FORMAT, "setup": ..., "settings": {...}, "events":
[...]}``: the setup and the accepted events, replayed on load (the record is derived, never
stored). :func:`write` puts the object in a temporary file of the same directory, flushes
and fsyncs it, and renames it over the old file, so a reader sees the old file or the new
one, whole.

Imports :mod:`palace_solver.live.events` only.
"""
from __future__ import annotations

import json
import os
import tempfile

from .events import LiveError

__all__ = ["SESSION_FORMAT", "check", "read", "write"]

#: ``format`` key of a saved session.
SESSION_FORMAT = "palace-live-1"


def write(path: str, obj: dict) -> str:
    """Write ``obj`` to ``path`` atomically (module doc); return ``path``.

    :raises OSError: when the file cannot be written (the old file is then untouched).
    """
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".palace-live-", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def read(path: str) -> dict:
    """The object of a session file.

    :raises LiveError: for an unreadable file or one that is not a session.
    """
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except (OSError, ValueError) as e:
        raise LiveError(f"cannot read session {path!r}: {e}") from None
    return check(obj)


def check(obj) -> dict:
    """``obj`` if it says it is a session object, else

    :raises LiveError: not a session.
    """
    if not isinstance(obj, dict) or obj.get("format") != SESSION_FORMAT:
        raise LiveError("not a palace live session file")
    return obj

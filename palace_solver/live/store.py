"""Session files: one JSON file per game, written so that a crash never leaves half a file.

A session file is ``{"format": SESSION_FORMAT, "setup": ..., "settings": {...}, "events":
[...]}``: the setup and the accepted events, replayed on load (the record is derived, never
stored). :func:`write` puts the object in a temporary file of the same directory, flushes
and fsyncs it, and renames it over the old file, so a reader sees the old file or the new
one, whole.

Imports :mod:`palace_solver.live.events` and :mod:`palace_solver.atomic` only.
"""
from __future__ import annotations

import json

from ..atomic import write_atomic
from .events import LiveError

__all__ = ["SESSION_FORMAT", "check", "read", "write"]

#: ``format`` key of a saved session.
SESSION_FORMAT = "palace-live-1"


def write(path: str, obj: dict) -> str:
    """Write ``obj`` to ``path`` atomically (module doc); return ``path``.

    :raises OSError: when the file cannot be written (the old file is then untouched).
    """
    return write_atomic(path, json.dumps(obj, indent=1) + "\n")


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

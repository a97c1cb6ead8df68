"""What the web page's Review tab needs: a record read and replayed into the frames the
board draws (one per decision, as the mover saw it), and a whole review run in one process
with progress (the server runs it in a child process: :mod:`palace_solver.web.jobs`).

Imports the model and the review.
"""
from __future__ import annotations

from ..game.cards import rank_name
from ..game.position import Position, to_text
from ..game.record import Record, RecordError, parse_record
from .judge import Budget, judge_task
from .plot import svg
from .run import ReviewError, assemble, plan, prefix
from .replay import replay

__all__ = ["MAX_RECORD", "frames", "read", "review_json", "table"]

#: The longest record text the page may send (a long game is a few kB).
MAX_RECORD = 1_000_000


def read(value) -> Record:
    """A record from a request's ``record`` value: the text form, or the JSON form as an
    object or a string.

    :raises RecordError: naming the line at fault.
    """
    if isinstance(value, dict):
        return Record.from_json(value)
    if not isinstance(value, str):
        raise RecordError('"record" must be the text of a record or its JSON object')
    if len(value) > MAX_RECORD:
        raise RecordError(f"a record of {len(value):,} characters: at most {MAX_RECORD:,}")
    return parse_record(value)


def table(pos: Position) -> dict:
    """The table the page's board draws (``renderTable`` of app.js) for a position."""
    view = pos.viewer()
    return {"players": [{"name": p.name, "hand": [rank_name(r) for r in p.hand_known],
                         "unknown": p.hand_unknown,
                         "face_up": [rank_name(r) for r in p.face_up],
                         "face_down": p.face_down, "out": False, "viewer": i == view}
                        for i, p in enumerate(pos.players)],
            "pile": [rank_name(r) for r in pos.pile],
            "burned": [rank_name(r) for r in pos.burned], "draw_pile": pos.draw_pile,
            "to_move": pos.to_move}


def frames(rec: Record, seats=None) -> dict:
    """The record replayed for the page: its canonical text and JSON, the seats, the seats
    reviewed, and per decision of theirs ``ply``, ``player``, ``played``, ``line``,
    ``position`` (text form) and ``table``.

    :raises RecordError: a record that cannot happen.
    :raises ReviewError: an unknown seat, or one whose cards the record does not know.
    """
    rp = replay(rec)
    plans, _ = plan([("record", rec)], seats=seats, budget=Budget(nodes=1))
    chosen = plans[0][2]
    skip = prefix(rec)
    out = []
    for d in rp.decisions:
        if d.player not in chosen or d.ply <= skip or d.views.get(d.player) is None:
            continue
        pos = d.views[d.player]
        out.append({"ply": d.ply, "player": rec.seats[d.player], "played": str(d.move),
                    "line": d.line, "forced": d.forced, "position": to_text(pos),
                    "table": table(pos)})
    return {"text": rec.text(), "record": rec.to_json(), "seats": list(rec.seats),
            "reviewed": [rec.seats[s] for s in chosen], "decisions": out,
            "draw_pile_empty_at": rp.draw_empty_ply, "result": rec.result}


def review_json(record_json: dict, options: dict, progress=None) -> dict:
    """The whole review of a record (JSON form) in this process: ``{"review": report,
    "svg": the graph}``. ``options``: ``nodes``, ``seed``, ``seats``; ``progress(done,
    total)`` after each decision.

    :raises RecordError: / :raises ReviewError: for a record that cannot be reviewed.
    """
    rec = Record.from_json(record_json)
    budget = Budget(nodes=options.get("nodes"), time=options.get("time"))
    plans, tasks = plan([("record", rec)], seats=options.get("seats"), budget=budget,
                        seed=options.get("seed", 0), threads=1)
    results = {}
    for i, t in enumerate(tasks):
        results[t["id"]] = judge_task(t)
        if progress is not None:
            progress(i + 1, len(tasks))
    rep = assemble(plans, results, budget, False)[0]
    return {"review": rep, "svg": svg(rep)}


__all__ += ["ReviewError"]

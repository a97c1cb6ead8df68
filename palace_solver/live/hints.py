"""Hints of ``palace live``: the analysis of a position seen from the user's seat, run in a
child process, and the answer as data (for programs and web pages) or as text.

Why a child process: the analysis is compiled code that cannot be interrupted from Python;
a child can be killed when it overruns its deadline, and the session in the parent never
sees a half-finished computation.

All analysis goes through one call, :func:`palace_solver.analysis.analyze`, so changing
the engine behind hints is one change there.

Imports the model (:mod:`palace_solver.game`), :mod:`palace_solver.analysis` and
:mod:`palace_solver.live.events`; it knows nothing of sessions (the position carries the
names and the user's seat as its perspective).
"""
from __future__ import annotations

import multiprocessing as mp
import time

from ..analysis import analyze, is_exact_mode
from ..game.position import Position

__all__ = ["hint", "format_hint", "run_analysis"]


def hint(pos: Position, time_budget: float = 2.0, seed: int = 0,
         hard_limit: float | None = None, engine: str | None = None) -> dict:
    """Analyze ``pos`` (its perspective is the user) in a child process, killed if it
    overruns ``hard_limit`` (default: the budget plus half of it plus a second).

    Returns a dict: ``ok``, ``message``, ``seconds``, and when ``ok`` ``analysis`` (the
    Analysis JSON), ``mover`` (a name), ``method`` and ``moves``: each ``move``, ``loss``
    (by player name), ``your_loss``, ``mover_loss`` and ``ci95`` (of the mover's loss, or
    None).
    """
    names = [p.name for p in pos.players]
    mine = pos.perspective
    limit = hard_limit if hard_limit is not None else time_budget * 1.5 + 1.0
    res = run_analysis(pos.to_json(), time_budget, seed, limit, engine)
    if not res.get("ok"):
        return res
    a = res["analysis"]
    moves = []
    ci = (a.get("stats") or {}).get("move_ci95") or {}
    for m in a["moves"]:
        lp = m["loss_probability"]
        iv = ci.get(m["move"])
        moves.append({"ci95": iv[a["to_move"]] if iv else None, "move": m["move"],
                      "loss": {names[i]: lp[i] for i in range(len(names))},
                      "your_loss": lp[mine] if mine is not None else None,
                      "mover_loss": lp[a["to_move"]]})
    res.update(mover=names[a["to_move"]], moves=moves, method=a["method"])
    return res


def format_hint(h: dict | None) -> str:
    """A hint (:func:`hint`) as lines of text."""
    if not h:
        return ""
    if not h.get("ok"):
        return h.get("message", "no hint")
    you = h["mover"]
    lines = [f"suggestions for {you} ({h['method']}, {h.get('seconds', 0):.2f} s), "
             f"loss probability of {you}:"]
    for i, m in enumerate(h["moves"][:8]):
        ci = m.get("ci95")
        pm = f"  ({100 * ci[0]:.1f} to {100 * ci[1]:.1f}%)" if ci else ""
        lines.append(f"  {i + 1}. {m['move']:<10} {100 * m['mover_loss']:5.1f}%{pm}")
    if len(h["moves"]) > 8:
        lines.append(f"  ... {len(h['moves']) - 8} more")
    return "\n".join(lines)


# -- analysis in a child process ---------------------------------------------------------------

def _analysis_child(conn, pos_json, time_budget, seed, engine):
    try:
        pos = Position.from_json(pos_json)
        try:
            a = analyze(pos, time_budget=time_budget, seed=seed, engine=engine)
        except ImportError as e:
            missing = getattr(e, "name", None) or str(e)
            if is_exact_mode(pos) and engine is None and missing.endswith((".search", "search")):
                # No compiled solver yet: the reference solver (the parent's deadline holds).
                a = analyze(pos, time_budget=time_budget, seed=seed, engine="python")
            else:
                kind = "exact" if is_exact_mode(pos) else "hidden-card"
                conn.send({"ok": False, "message": f"hint unavailable for this {kind} "
                           f"position: the analysis module {missing} is not installed"})
                return
        conn.send({"ok": True, "message": "", "analysis": a.to_json()})
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        conn.send({"ok": False, "message": f"hint failed: {type(e).__name__}: {e}"})
    finally:
        conn.close()


def run_analysis(pos_json, time_budget, seed, limit, engine) -> dict:
    """:func:`~palace_solver.analysis.analyze` of ``pos_json`` in a forked child: a dict
    with ``ok``, ``message``, ``analysis`` (JSON) when ok, and ``seconds``."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_analysis_child, args=(child, pos_json, time_budget, seed, engine),
                       daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    try:
        if parent.poll(limit):
            try:
                res = parent.recv()
            except EOFError:
                res = {"ok": False, "message": "hint failed: the analysis process died"}
        else:
            res = {"ok": False, "message": f"no answer within {limit:.1f} s "
                   f"(try a larger --time)"}
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(1.0)
        parent.close()
    res["seconds"] = round(time.perf_counter() - t0, 3)
    return res

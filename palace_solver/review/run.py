"""A review: every decision of the reviewed seats of one or more records, judged through
the batch layer, and the report (per seat, per decision, over many games).

One task per decision (:func:`palace_solver.review.judge.judge_task`): the decisions are
independent, so ``jobs`` local processes or a Ray cluster review them side by side, and
with an output file a killed review resumes where it stopped (:mod:`palace_solver.jobs.batch`;
a task's seed is its id's, so the report is the same whatever the workers).

The report of a record (JSON, docs/review.md): ``players`` (per reviewed seat: ``name``,
``accuracy``, ``inaccuracies``, ``mistakes``, ``blunders``, ``loss_added`` the mean added
loss, ``decisions`` judged, ``forced``, ``worst`` the three worst decisions' plies) and
``decisions`` (``ply``, ``player``, ``played``, ``best``, ``loss_played``, ``loss_best``,
``loss_added``, ``mark``, ``method``, ...), ``draw_pile_empty_at`` and the game's end.
"""
from __future__ import annotations

from pathlib import Path

from ..game.position import to_text
from ..game.record import Record, RecordError, read_record
from ..jobs.batch import run_batch, task_seed
from .judge import MARKS, Budget, accuracy, judge_task
from .replay import Replay, replay

__all__ = ["ReviewError", "assemble", "load_records", "plan", "review", "review_tasks",
           "summary"]


class ReviewError(ValueError):
    """A review that cannot run: a bad record (the message names its line), an unknown
    seat, a seat whose cards the record does not know."""


def load_records(path: str) -> list[tuple[str, Record]]:
    """``(name, record)`` of a record file, or of every record in a directory
    (``*.txt``, ``*.json`` and ``*.record``, in name order).

    :raises ReviewError: for a record that cannot be read, naming the file and the line.
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix in (".txt", ".json", ".record")
                       and f.is_file())
        if not files:
            raise ReviewError(f"no records (*.txt, *.json) in {path}")
    else:
        files = [p]
    out = []
    for f in files:
        try:
            out.append((f.name if len(files) > 1 or p.is_dir() else str(f), read_record(str(f))))
        except RecordError as e:
            raise ReviewError(f"{f}: {e}") from None
    return out


def prefix(rec: Record) -> int:
    """Decisions at the start that no seat's player made (tag ``agents from ply: N``: a
    match's late start, played by greedy for every seat): left out of the review."""
    v = rec.tags.get("agents from ply")
    return int(v) - 1 if v is not None and str(v).isdigit() else 0


def _seats(rp: Replay, seats) -> list[int]:
    if not seats:
        return list(rp.visible)
    out = []
    for nm in seats:
        i = rp.record.seat(nm)
        if i is None:
            raise ReviewError(f"no seat {nm!r} (seats: {', '.join(rp.names)})")
        if i not in rp.visible:
            raise ReviewError(f"the record does not know {rp.names[i]}'s cards: only "
                              f"{', '.join(rp.names[v] for v in rp.visible) or 'no seat'}'s")
        out.append(i)
    return out


def review_tasks(key: str, rp: Replay, seats, budget: Budget, seed: int, hindsight: bool,
                 threads: int | None = None) -> list[dict]:
    """One task per decision with a choice of the seats ``seats`` (indexes)."""
    tasks = []
    full = len(rp.visible) == rp.record.n
    skip = prefix(rp.record)
    for d in rp.decisions:
        if d.player not in seats or d.forced or d.views.get(d.player) is None \
                or d.ply <= skip:
            continue
        tid = f"{key}:{d.ply}"
        t = {"id": tid, "played": str(d.move), "budget": budget.to_json(),
             "seed": task_seed(seed, d.ply), "threads": threads,
             "view": {"position": to_text(d.views[d.player]),
                      "history": [to_text(h) for h in d.histories[d.player]]}}
        if hindsight and full:
            t["hindsight"] = {"position": to_text(d.truth),
                              "history": [to_text(h) for h in d.truth_history]}
        tasks.append(t)
    return tasks


def _loss_by_seat(rp: Replay, d, loss) -> dict:
    pos = d.views[d.player]
    out = {nm: 0.0 for nm in rp.names}
    for p, x in zip(pos.players, loss):
        out[p.name] = x
    return out


def report(key: str, rp: Replay, seats: list[int], results: dict, budget: Budget,
           hindsight: bool) -> dict:
    """The report of one record from its tasks' results (``results[ply]``)."""
    decisions = []
    skip = prefix(rp.record)
    for d in rp.decisions:
        if d.player not in seats or d.ply <= skip:
            continue
        row = {"ply": d.ply, "player": rp.names[d.player], "played": str(d.move),
               "line": d.line, "draw_pile": d.draw_pile,
               "position": to_text(d.views[d.player]) if d.views[d.player] else None}
        r = results.get(d.ply)
        if r is None and not d.forced:     # no position can describe it (jokers)
            row.update(best=None, loss_played=None, loss_best=None, loss_added=0.0,
                       mark=None, method="unanalysed", tied=False)
        elif r is None:      # forced: nothing to choose
            row.update(best=str(d.move), loss_played=None, loss_best=None, loss_added=0.0,
                       mark=None, method="forced", tied=False)
        else:
            v = r["view"]
            row.update(best=v["best"], loss_played=v["loss_played"], loss_best=v["loss_best"],
                       loss_added=v["loss_added"], mark=v["mark"], method=v["method"],
                       tied=v["tied"], ci_played=v["ci_played"], ci_best=v["ci_best"],
                       ci_vs_best=v["ci_vs_best"],
                       loss=_loss_by_seat(rp, d, v["loss"]), moves=v["moves"],
                       stats=v["stats"])
            if "hindsight" in r:
                h = r["hindsight"]
                row["hindsight"] = {k: h[k] for k in ("best", "loss_played", "loss_best",
                                                      "loss_added", "mark", "method", "tied")}
        decisions.append(row)
    players = []
    for s in seats:
        nm = rp.names[s]
        players.append(_player(nm, [row for row in decisions if row["player"] == nm],
                               hindsight))
    return {"record": key, "seats": rp.names, "reviewed": [rp.names[s] for s in seats],
            "budget": budget.to_json(), "players": players, "decisions": decisions,
            "draw_pile_empty_at": rp.draw_empty_ply, "over": rp.over,
            "loss": dict(zip(rp.names, rp.loss)) if rp.loss is not None else None,
            "result": rp.record.result}


def _player(name: str, rows: list[dict], hindsight: bool) -> dict:
    judged = [r for r in rows if r["method"] not in ("forced", "unanalysed")]
    mean = sum(r["loss_added"] for r in judged) / len(judged) if judged else 0.0
    worst = sorted((r for r in judged if r["loss_added"] > 0),
                   key=lambda r: (-r["loss_added"], r["ply"]))[:3]
    out = {"name": name, "accuracy": accuracy(mean),
           "inaccuracies": sum(r["mark"] == "inaccuracy" for r in judged),
           "mistakes": sum(r["mark"] == "mistake" for r in judged),
           "blunders": sum(r["mark"] == "blunder" for r in judged),
           "loss_added": round(mean, 6), "decisions": len(judged),
           "forced": sum(r["method"] == "forced" for r in rows),
           "worst": [r["ply"] for r in worst],
           "methods": {m: sum(r["method"] == m for r in judged)
                       for m in sorted({r["method"] for r in judged})}}
    hs = [r["hindsight"] for r in judged if "hindsight" in r]
    if hindsight and hs:
        hm = sum(h["loss_added"] for h in hs) / len(hs)
        out["hindsight"] = {"accuracy": accuracy(hm), "loss_added": round(hm, 6),
                            **{m + "s" if m != "inaccuracy" else "inaccuracies":
                               sum(h["mark"] == m for h in hs) for m in MARKS}}
    return out


def plan(records: list[tuple[str, Record]], *, seats=None, budget: Budget = Budget(),
         seed: int = 0, hindsight: bool = False, threads: int | None = None):
    """Replay every record and list the tasks of its review: ``(plans, tasks)``, a plan
    being ``(key, replay, seats)``; :func:`assemble` turns the tasks' results into reports.

    :raises ReviewError: (module doc of :func:`review`).
    """
    plans, tasks = [], []
    for key, rec in records:
        try:
            rp = replay(rec)
        except RecordError as e:
            raise ReviewError(f"{key}: {e}" if len(records) > 1 else str(e)) from None
        chosen = _seats(rp, seats)
        if not chosen:
            raise ReviewError(f"{key}: the record knows no seat's cards: nothing to review")
        plans.append((key, rp, chosen))
        tasks.extend(review_tasks(key, rp, chosen, budget, seed, hindsight, threads))
    return plans, tasks


def assemble(plans, results: dict, budget: Budget, hindsight: bool) -> list[dict]:
    """The reports of :func:`plan`'s plans from ``results`` (task id -> result)."""
    out = []
    for key, rp, chosen in plans:
        res = {}
        for tid, r in results.items():
            k, _, ply = tid.rpartition(":")
            if k == key:
                res[int(ply)] = r
        out.append(report(key, rp, chosen, res, budget, hindsight))
    return out


def review(records: list[tuple[str, Record]], *, seats=None, budget: Budget = Budget(),
           seed: int = 0, hindsight: bool = False, jobs: int = 1, ray: str | None = None,
           output: str | None = None, progress="auto") -> list[dict]:
    """Review every record (module doc): one report each, in order.

    :raises ReviewError: a record that cannot happen (naming the file, the line and the
        event), a seat not in a record or not known to it.
    :raises BatchError: see :func:`palace_solver.jobs.batch.run_batch`.
    """
    threads = 1 if (jobs > 1 or ray) else None
    plans, tasks = plan(records, seats=seats, budget=budget, seed=seed, hindsight=hindsight,
                        threads=threads)
    results = run_batch(judge_task, tasks, jobs=jobs, ray=ray, output=output,
                        progress=progress, label="decisions") if tasks else []
    return assemble(plans, {t["id"]: r for t, r in zip(tasks, results)}, budget, hindsight)


def summary(reports: list[dict]) -> list[dict]:
    """Per seat name over many reports: games, decisions, the mean added loss over all
    their decisions, its accuracy, the marks, and the mean of the games' accuracies."""
    by: dict = {}
    for rep in reports:
        rows = {p["name"]: p for p in rep["players"]}
        for name, p in rows.items():
            s = by.setdefault(name, {"name": name, "games": 0, "decisions": 0, "added": 0.0,
                                     "inaccuracies": 0, "mistakes": 0, "blunders": 0,
                                     "accuracies": []})
            s["games"] += 1
            s["decisions"] += p["decisions"]
            s["added"] += p["loss_added"] * p["decisions"]
            for k in ("inaccuracies", "mistakes", "blunders"):
                s[k] += p[k]
            s["accuracies"].append(p["accuracy"])
    out = []
    for s in by.values():
        mean = s["added"] / s["decisions"] if s["decisions"] else 0.0
        out.append({"name": s["name"], "games": s["games"], "decisions": s["decisions"],
                    "loss_added": round(mean, 6), "accuracy": accuracy(mean),
                    "mean_game_accuracy": round(sum(s["accuracies"]) / len(s["accuracies"]), 1),
                    "inaccuracies": s["inaccuracies"], "mistakes": s["mistakes"],
                    "blunders": s["blunders"]})
    return sorted(out, key=lambda s: -s["accuracy"])


def format_report(rep: dict, moves: bool = True) -> str:
    """The report as text: the seats' table, each seat's worst decisions, then (with
    ``moves``) one line per decision."""
    lines = [f"review of {rep['record']}: " + ", ".join(rep["seats"])
             + (f"; {rep['result']}" if rep.get("result") else "")]
    lines.append(f"{'seat':<12} {'accuracy':>8} {'inacc.':>6} {'mistakes':>8} "
                 f"{'blunders':>8} {'mean added':>10} {'judged':>6}")
    for p in rep["players"]:
        lines.append(f"{p['name']:<12} {p['accuracy']:>8.1f} {p['inaccuracies']:>6} "
                     f"{p['mistakes']:>8} {p['blunders']:>8} {p['loss_added']:>10.4f} "
                     f"{p['decisions']:>6}")
        if "hindsight" in p:
            h = p["hindsight"]
            lines.append(f"{'  hindsight':<12} {h['accuracy']:>8.1f} {h['inaccuracies']:>6} "
                         f"{h['mistakes']:>8} {h['blunders']:>8} {h['loss_added']:>10.4f}")
    by_ply = {d["ply"]: d for d in rep["decisions"]}
    for p in rep["players"]:
        if p["worst"]:
            lines.append(f"{p['name']}'s worst decisions:")
            for ply in p["worst"]:
                d = by_ply[ply]
                lines.append("  " + _decision_line(d))
    if rep.get("draw_pile_empty_at"):
        lines.append(f"the draw pile ran out before ply {rep['draw_pile_empty_at']}")
    if moves:
        lines.append(f"{'ply':>4} {'player':<12} {'played':<10} {'best':<10} "
                     f"{'loss':>7} {'best':>7} {'added':>7} {'mark':<10} method")
        for d in rep["decisions"]:
            lp = "-" if d["loss_played"] is None else f"{d['loss_played']:.3f}"
            lb = "-" if d["loss_best"] is None else f"{d['loss_best']:.3f}"
            lines.append(f"{d['ply']:>4} {d['player']:<12} {d['played']:<10} {d['best']:<10} "
                         f"{lp:>7} {lb:>7} {d['loss_added']:>7.3f} {d['mark'] or '':<10} "
                         f"{d['method']}" + (" (tie)" if d.get("tied") else ""))
    return "\n".join(lines)


def _decision_line(d: dict) -> str:
    return (f"ply {d['ply']}: played {d['played']}, best {d['best']}: loss "
            f"{d['loss_played']:.3f} against {d['loss_best']:.3f} (+{d['loss_added']:.3f}"
            + (f", {d['mark']}" if d["mark"] else "") + f", {d['method']})")


def format_summary(rows: list[dict]) -> str:
    lines = [f"{'seat':<12} {'games':>5} {'judged':>6} {'accuracy':>8} {'game mean':>9} "
             f"{'inacc.':>6} {'mistakes':>8} {'blunders':>8} {'mean added':>10}"]
    for s in rows:
        lines.append(f"{s['name']:<12} {s['games']:>5} {s['decisions']:>6} "
                     f"{s['accuracy']:>8.1f} {s['mean_game_accuracy']:>9.1f} "
                     f"{s['inaccuracies']:>6} {s['mistakes']:>8} {s['blunders']:>8} "
                     f"{s['loss_added']:>10.4f}")
    return "\n".join(lines)

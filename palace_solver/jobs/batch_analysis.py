"""Analysis of a whole file of positions (``palace analyze --batch``), one task per line.

Input: one position a line, as POSITION.md JSON (on one line) or the one-line text form.
Blank lines and lines starting with ``#`` are skipped. A line is never taken as a file
name (unlike the single-position argument): a batch reads only its own file.

Each position is a task whose id is its line number (from 1), analyzed with the same options
as a single ``palace analyze`` run, including ``--seed``: a line's answer is exactly what
``palace analyze 'LINE' --json --seed S`` prints. (One seed for all lines, not one derived
per line, so that a batch and a single analysis agree; the lines are independent problems,
so sharing a seed correlates nothing that is compared.) Without ``--time`` every answer is
deterministic, so the results are the same whatever the workers; with a time budget the
depth or sample count reached depends on the machine's speed, as for one analysis.

Result of a line, one JSON object::

    {"line": 3, "position": "<text form>", "analysis": {<analysis JSON of POSITION.md>}}
    {"line": 4, "error": "invalid position: ..."}

A position that cannot be analyzed (bad JSON, an impossible position, ``--method exact``
on hidden cards, out of memory) gives an error record for its line; the batch goes on.
Anything else is a bug and stops the batch (finished lines stay in the output file).
"""
from __future__ import annotations

from ..analysis import analyze
from ..game.position import InvalidPositionError, parse_position, to_text
from ..solve.results import NotExactError

__all__ = ["analysis_tasks", "analyze_task"]


def analysis_tasks(lines, *, time_budget=None, depth=None, hash_mb=256, method="auto",
                   samples=None, seed=0, engine=None, nodes=None) -> list[dict]:
    """One task per non-blank, non-comment line; ``id`` is the line number."""
    options = {"time_budget": time_budget, "depth": depth, "hash_mb": hash_mb,
               "method": method, "samples": samples, "seed": seed, "engine": engine}
    if nodes is not None:  # only when given, so that earlier output files still resume
        options["nodes"] = nodes
    tasks = []
    for no, line in enumerate(lines, 1):
        text = line.strip().lstrip("\ufeff")
        if text and not text.startswith("#"):
            tasks.append({"id": no, "position": text, "options": options})
    return tasks


def analyze_task(task: dict) -> dict:
    """The result record of one line (module docstring)."""
    try:
        pos = parse_position(task["position"])
        a = analyze(pos, jobs=1, **task["options"])
    except (InvalidPositionError, NotExactError) as e:
        return {"line": task["id"], "error": str(e)}
    except MemoryError as e:
        return {"line": task["id"], "error": f"out of memory: {e} (try --time or --depth)"}
    return {"line": task["id"], "position": to_text(pos), "analysis": a.to_json()}

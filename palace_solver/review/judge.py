"""Judging decisions: each legal move's loss probability from what the mover knew, the
move played against the best, marks, and an accuracy per seat.

Why the mover's view. A move is good or bad by what its player could know when making it:
their own cards, the table, what the game had revealed, the positions already played (a
repeated position ends the game in a draw). So each decision is analysed at the position
the mover saw (:attr:`Decision.views <palace_solver.review.replay.Decision.views>`), with
that history, by the package's own analysis (:func:`palace_solver.analysis.analyze`): the
review follows the engine as it improves. ``hindsight`` adds the same judgement at the
position with every hand known (double-dummy-like: exact once the draw pile is empty).

The figures. For the mover: the loss probability after each legal move, the best move's
(lowest) and the played move's; the added loss is their difference. A mark needs an added
loss of at least 0.05 (inaccuracy), 0.10 (mistake) or 0.20 (blunder) *and* the two moves
told apart: by the interval of their difference over the same deals where the search
gives it (``stats["vs_best_ci95"]``), else by their 95% intervals not overlapping; a tie
is never a mistake (exact figures have zero-width intervals, so only an equal value ties).

Exact or searched. In exact mode (every hand known, no draw pile) the analysis is exact,
the same figures ``palace analyze`` gives that position with the same history, when the
exact graph fits the decision's budget; a position whose graph is predicted too large for
it goes to the engine's search instead (with intervals), and a graph that runs out of time
falls back to the depth-limited search of :func:`palace_solver.solve.compiled.solve_compiled`
(``depth_limited``). Each figure says which (``method``).

Accuracy: ``100 * exp(-mean added loss / ACCURACY_SCALE)`` over the seat's decisions
that had a choice: 100 for a game without added loss, 37 at a mean added loss of 0.05
(every decision an inaccuracy), 14 at 0.10.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..analysis import analyze, is_exact_mode
from ..game.position import Position, parse_position, to_text
from ..solve.compiled import predict_nodes
from ..solve.results import move_intervals, tied_by_pairs, tied_with_best

__all__ = ["ACCURACY_SCALE", "BLUNDER", "Budget", "INACCURACY", "MISTAKE", "accuracy",
           "judge", "judge_task", "mark_of"]

INACCURACY, MISTAKE, BLUNDER = 0.05, 0.10, 0.20
MARKS = ("inaccuracy", "mistake", "blunder")
#: Mean added loss at which the accuracy is 100/e.
ACCURACY_SCALE = 0.05


@dataclass(frozen=True)
class Budget:
    """The analysis of one decision. ``nodes``: the search's node budget (None: the
    defaults below); ``time``: a time limit in seconds (None: none, and the review is the
    same on any machine). Exact-mode positions whose graph is predicted to hold at most
    ``exact_positions`` positions are solved exactly within ``exact_seconds`` (or
    ``time``)."""

    nodes: int | None = None
    time: float | None = None
    #: the search's default budgets while the draw pile holds cards, and once it is empty
    draw_nodes: int = 1_600_000
    end_nodes: int = 300_000
    exact_positions: int = 2_000_000
    exact_seconds: float = 10.0

    def search_nodes(self, pos: Position) -> int:
        if self.nodes is not None:
            return self.nodes
        return self.draw_nodes if pos.draw_pile > 0 else self.end_nodes

    def to_json(self) -> dict:
        return {"nodes": self.nodes, "time": self.time, "draw_nodes": self.draw_nodes,
                "end_nodes": self.end_nodes, "exact_positions": self.exact_positions,
                "exact_seconds": self.exact_seconds}

    @classmethod
    def from_json(cls, obj: dict) -> "Budget":
        return cls(**obj)


def mark_of(added: float, tied: bool) -> str | None:
    """The mark of a decision that added ``added`` to its player's loss (module doc)."""
    if tied or added < INACCURACY - 1e-12:
        return None
    if added >= BLUNDER - 1e-12:
        return "blunder"
    if added >= MISTAKE - 1e-12:
        return "mistake"
    return "inaccuracy"


def accuracy(mean_added: float) -> float:
    """``100 * exp(-mean_added / ACCURACY_SCALE)``, rounded to 0.1."""
    return round(100.0 * math.exp(-max(0.0, mean_added) / ACCURACY_SCALE), 1)


def _analysis(pos: Position, history, budget: Budget, seed: int, threads: int | None):
    if is_exact_mode(pos) and predict_nodes(pos.to_state()) <= budget.exact_positions:
        t = budget.time if budget.time is not None else budget.exact_seconds
        return analyze(pos, history=history, time_budget=t, threads=threads)
    return analyze(pos, method="search", history=history, nodes=budget.search_nodes(pos),
                   time_budget=budget.time, seed=seed)


def judge(pos: Position, history, played: str, budget: Budget = Budget(), seed: int = 0,
          threads: int | None = None) -> dict:
    """The judgement of one decision: ``pos`` as the mover saw it, ``history`` the earlier
    positions (as :func:`~palace_solver.analysis.analyze` takes them), ``played`` the
    move's text. A dict: ``method``, ``best``, ``loss_best``, ``loss_played``,
    ``loss_added``, ``mark``, ``tied``, ``ci_played`` / ``ci_best`` (95% intervals of the
    mover's loss; equal ends when exact), ``ci_vs_best`` (a search's interval of the
    played move's loss minus the best's over the same deals, else None), ``loss`` (each player's loss after the played
    move, in the position's order), ``moves`` (every legal move, best first: ``move``,
    ``loss``, ``ci``), ``stats`` (seconds, nodes)."""
    t0 = time.process_time()
    a = analyze_for_review = _analysis(pos, history, budget, seed, threads)
    mover = a.to_move
    ivs = move_intervals(analyze_for_review)
    pairs = a.stats.get("vs_best_ci95")
    ties = tied_by_pairs([str(m.move) for m in a.moves], pairs) if pairs else tied_with_best(ivs)
    idx = next((i for i, m in enumerate(a.moves) if str(m.move) == played), None)
    if idx is None:
        raise ValueError(f"the move played, {played!r}, is not among the analysis's moves "
                         f"({', '.join(str(m.move) for m in a.moves)})")
    best = a.moves[0]
    lp, lb = float(a.moves[idx].loss[mover]), float(best.loss[mover])
    added = max(0.0, lp - lb) if idx else 0.0
    tied = bool(ties[idx]) if idx else False
    return {"method": a.method, "best": str(best.move), "loss_best": lb, "loss_played": lp,
            "loss_added": added, "mark": None if idx == 0 else mark_of(added, tied),
            "tied": tied, "ci_played": list(ivs[idx]), "ci_best": list(ivs[0]),
            "ci_vs_best": list(pairs[played]) if pairs else None,
            "loss": [float(x) for x in a.moves[idx].loss],
            "moves": [{"move": str(m.move), "loss": float(m.loss[mover]),
                       "ci": list(iv)} for m, iv in zip(a.moves, ivs)],
            "stats": {"cpu_seconds": round(time.process_time() - t0, 4),
                      "nodes": a.stats.get("nodes"), "samples": a.stats.get("samples"),
                      "depth": a.stats.get("depth")}}


def judge_task(task: dict) -> dict:
    """A batch task (:mod:`palace_solver.jobs.batch`): ``position`` and ``history`` (text
    forms), ``played``, ``budget``, ``seed``, ``threads``; and ``hindsight`` (the same for
    the position with every hand known) when asked."""
    budget = Budget.from_json(task["budget"])
    out = {}
    for key in ("view", "hindsight"):
        part = task.get(key)
        if part is None:
            continue
        pos = parse_position(part["position"])
        hist = [parse_position(h) for h in part["history"]]
        out[key] = judge(pos, hist, task["played"], budget, task["seed"], task.get("threads"))
    return out


def position_text(pos: Position) -> str:
    return to_text(pos)

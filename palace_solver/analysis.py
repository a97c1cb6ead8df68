"""The analyzer's front door: a position in, an :class:`Analysis` out.

Exact mode (every hand known, no draw pile: RULES.md) goes to the exact solver; anything
else to the compiled search with the draw pile (:mod:`palace_solver.sample.drawsearch`:
deals of the hidden hands, refills and flips as chance nodes, a depth-limited search per
deal), the engine's own agent at the hint budget. The older sampled analysis (one ply, then
greedy playouts in Python) and ISMCTS stay available by name.
"""
from __future__ import annotations

from .game.cards import RANKS
from .game.position import Position
from .game.view import repeatable
from .sample.calibration import FALLBACK, load_map
from .sample.drawsearch import FALLBACK_CALIBRATION, analyze_search
from .sample.sampled import analyze_sampled
from .sample.sampler import state_with_hands
from .solve.results import Analysis, NotExactError, rank_moves  # noqa: F401 - re-exported
from .solve.solver import solve_exact


def is_exact_mode(pos: Position) -> bool:
    return pos.draw_pile == 0 and all(p.hand_fully_known for p in pos.players)


def exact_history(pos: Position, history) -> list:
    """The States of the positions in ``history`` that an exact-mode ``pos`` can come back
    to (the same seats, burned cards and table). One seen while a player's hand cards were
    unknown is the same position before that player showed them: its unseen cards beyond
    ``pos``'s are those cards (``pos`` has none but the face-down ones), and it comes back
    with them. One seen while two players held unknown cards does not say whose were which
    and is left out (three or more players only)."""
    now = pos.unseen_counts()
    out = []
    for h in repeatable(pos, history):
        who = [q for q, p in enumerate(h.players) if p.hand_unknown]
        if not who:
            out.append(h.to_state())
            continue
        extra = [a - b for a, b in zip(h.unseen_counts(), now)]
        if len(who) > 1 or min(extra) < 0 or sum(extra) != h.players[who[0]].hand_unknown:
            continue
        deal = [[] for _ in h.players]
        deal[who[0]] = [r for r in RANKS for _ in range(extra[r])]
        out.append(state_with_hands(h, deal))
    return out


def calibrate_fallback(a: Analysis, name: str) -> None:
    """Map a two-player depth-limited fallback's estimates through band :data:`FALLBACK` of
    the calibration map ``name`` in place, as the search's are mapped (the mover's figure,
    the other's one minus it; proved figures stay exact), and rank the moves again. A map
    without that band changes nothing; one with it leaves ``stats["calibration"]``: the
    map, the band and each mapped move's figure before it."""
    cmap = load_map(name)
    if FALLBACK not in cmap.params:
        return
    mover, raw = a.to_move, {}
    for m in a.moves:
        if m.resolved is False:
            raw[str(m.move)] = m.loss[mover]
            x = cmap.apply(m.loss[mover], FALLBACK)
            m.loss = [x, 1.0 - x] if mover == 0 else [1.0 - x, x]
    a.moves = rank_moves(mover, a.moves)
    a.loss = list(a.moves[0].loss) if a.moves else a.loss
    a.stats["calibration"] = {"map": name, "band": FALLBACK, "raw_mover_loss": raw}


def analyze(pos: Position, *, time_budget: float | None = None, depth: int | None = None,
            hash_mb: float | None = None, method: str = "auto", samples: int | None = None,
            seed: int = 0, jobs: int = 1, progress=None, engine: str | None = None,
            threads: int | None = None, nodes: int | None = None,
            history=None, observations=None) -> Analysis:
    """Analyze ``pos`` for the player to move.

    ``method``: ``"auto"`` (exact when the position is in exact mode, else ``"search"``),
    ``"exact"``, ``"search"`` (:func:`~palace_solver.sample.drawsearch.analyze_search`:
    ``samples`` deals, ``nodes`` the node budget, ``time_budget`` a time limit, ``depth``
    the deepest iteration of each deal's search), or a
    sampled method name of :mod:`palace_solver.sample.sampled`.
    ``hash_mb``: the search table (default: sized to the time budget); ``threads``: threads of
    the exact graph solver (default: every core; the answer does not depend on it).
    ``history``: the game's earlier positions seen by the same player; the exact solver and
    the search (not the sampled methods) score reaching one again as a draw, as the game
    does (RULES.md). Without it the values are those of the position itself.
    ``observations``: the others' earlier decisions as the same player saw them
    (:func:`palace_solver.sample.drawsearch.observations_of`); the search deals their
    hidden hands in proportion to how well each deal explains those moves (ignored where
    every hand is known).

    :raises NotExactError: when ``method="exact"`` on a position with hidden hand cards or a
        draw pile.
    """
    if method == "auto":
        method = "exact" if is_exact_mode(pos) else "search"
    if method == "exact":
        if not is_exact_mode(pos):
            raise NotExactError("not an exact-mode position: hidden hand cards or a draw pile "
                                "(use a sampled method)")
        a = solve_exact(pos.to_state(), time_budget=time_budget, depth=depth,
                        hash_mb=hash_mb, engine=engine, threads=threads, progress=progress,
                        history=exact_history(pos, history))
        if a.method == "depth_limited" and len(pos.players) == 2 and FALLBACK_CALIBRATION:
            calibrate_fallback(a, FALLBACK_CALIBRATION)
        return a
    if method == "search" and engine != "python":
        return analyze_search(pos, nodes=nodes, samples=samples, time_budget=time_budget,
                              seed=seed, progress=progress, history=history,
                              observations=observations, max_depth=depth)
    if method == "search":  # the compiled search without the compiled engine: the Python path
        method = "sampled"
    return analyze_sampled(pos, method=method, time_budget=time_budget, depth=depth,
                           samples=samples, seed=seed, jobs=jobs, progress=progress,
                           engine=engine)

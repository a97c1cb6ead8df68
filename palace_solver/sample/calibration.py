"""Calibration of the search's figures to the outcomes of the engine's own games.

RULES.md's loss probability is, for the search, an estimate of what happens when the
engine plays every seat from there (docs/search.md). The search's mean over deals is not
that yet: each deal is searched with every hand known, and the network at its horizon
was fitted to other games, so the raw figure is too sure of itself once the draw pile is
empty and a little optimistic for the mover before. A calibration map corrects this
from outcomes: for two players, the mover's figure ``x`` becomes

    sigmoid(a * logit(x) + b)

with ``(a, b)`` of the draw pile's band (:data:`BANDS`; a map may also hold a band for the
depth-limited fallback of exact mode, :data:`FALLBACK`), fitted by maximum likelihood to
the outcomes (1 loss, 0 win, 1/2 draw) of decisions of the engine's games against itself
(``benchmarks/calibration.py fit`` by :mod:`palace_solver.learn.calibration`, its file
``palace_solver/data/calibration-NAME.json`` with the games it read). ``a > 0``, so the
estimates of a position keep their order and their ties; figures the search calls certain
(:data:`CERTAIN`) stay as they are (so an estimate just under 1/2 can come out above a
certain draw: the analysis ranks the moves again). The other player's figure is one minus
the mover's, so the two still add up to 1. A map is fitted on games of one number of players
(``players`` in its file, 2 when absent) and maps only figures of that many: with three
players the mover's figure goes through the map as above, and the others' figures are
scaled by one factor so that all still add up to 1 (their ratio kept). Without a map of
their number, positions of three or more players keep the search's figures.

Imports nothing of the package: the fit is in ``learn/calibration.py``.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: the draw pile's bands, each fitted on its own: (name, fewest cards, most cards)
BANDS = (("end", 0, 0), ("late", 1, 9), ("draw", 10, 10_000))
#: the band of the depth-limited fallback of exact mode (every hand known, the draw pile
#: empty, the graph too large for the budget): its figures at the horizon, not those it
#: proved, which are exact
FALLBACK = "fallback"
#: The start of the note of every figure of three or more players: the maps are fitted on
#: two-player games (a three-player map was fitted and not taken, docs/learning.md)
NO_MAP = "not calibrated: with three or more players no map corrects these figures"
#: player count -> what its figures are worth without a map, as measured on held-out games
#: of that many players (docs/learning.md, Calibration: Three players, A map of three
#: players' own, Four and five players; on layouts at random: Layouts the engine's games
#: never hold)
MEASURED = {
    3: ("on 3676 decisions of 600 three-player games of the engine (generation 4) against "
        "itself (two seats of it dealing hidden hands uniformly; never trained on) they came "
        "out 0.002 below the outcomes on average [-0.016, +0.010], those from 0.6 up 0.01 "
        "above (448 decisions: 0.71 against 0.70); on 671 decisions of 91 three-player "
        "games of generation 1's engine they came out 0.02 above the outcomes on average "
        "[-0.01, +0.05], those from 0.6 up 0.22 above (73 decisions: 0.72 against 0.50); on "
        "641 decisions of 89 three-player games laid out at random, not as the engine lays "
        "out, 0.009 below the outcomes on average [-0.044, +0.023]"),
    4: ("on 1008 decisions of 202 four-player games of the engine (generation 4) against "
        "itself (never trained on) they came out 0.006 above the outcomes on average "
        "[-0.018, +0.028], those from 0.6 up 0.11 above (90 decisions: 0.71 against 0.60)"),
    5: ("on 687 decisions of 195 five-player games of the engine (generation 4) against "
        "itself (never trained on) they came out 0.002 above the outcomes on average "
        "[-0.026, +0.029], those from 0.6 up 0.11 above (31 decisions: 0.68 against 0.56)"),
}


def many_players_note(n: int) -> str:
    """The note of palace analyze and of the live hints under figures of ``n`` >= 3 players:
    that no map corrects them, and what they were measured to be worth with ``n`` players,
    or that they never were."""
    if n in MEASURED:
        return f"{NO_MAP}; {MEASURED[n]}"
    return (f"{NO_MAP}; with {n} players they were never compared with outcomes, and no "
            f"network learned from a game of more than three players")


#: The note of three players' figures (the tests and docs name it so)
MANY_PLAYERS_NOTE = many_players_note(3)

#: What the two-player figures are worth while the draw pile holds cards on layouts unlike
#: the engine's own, as measured on games laid out at random (docs/learning.md, Layouts the
#: engine's games never hold): the map was fitted on the engine's layouts, and the note of
#: palace analyze says it.
RANDOM_LAYOUTS_NOTE = (
    "on 1270 decisions of 311 games laid out at random, not as the engine lays out, such "
    "figures came out 0.035 below the outcomes on average [-0.057, -0.013] while the draw "
    "pile held cards")
#: figures are clipped this far from 0 and 1 before the logit
EPS = 1e-3
#: figures the map keeps: a mean over deals of exactly 0 or 1 is the same outcome in every
#: deal, and one of exactly 1/2 is, but for a coincidence, a draw in every deal (a move back
#: to a position of the game's history): the search calls them certain, and a map fitted to
#: estimates has nothing to say of them (it would make a certain draw 51%)
CERTAIN = (0.0, 0.5, 1.0)
#: how far from one of CERTAIN a figure is still that figure: the compiled searches value a
#: chance node as a floating-point sum of probabilities times values, so a draw in every
#: outcome can come out 0.49999999999999994 (solve.results.probability brings 0 and 1 back
#: into range, not 1/2)
CERTAIN_TOL = 1e-12


def certain(x: float) -> bool:
    """Whether the map keeps figure ``x`` (:data:`CERTAIN`, to :data:`CERTAIN_TOL`)."""
    return any(abs(float(x) - c) <= CERTAIN_TOL for c in CERTAIN)


def band(draw_pile: int) -> str:
    """The band of :data:`BANDS` holding ``draw_pile`` cards."""
    for name, lo, hi in BANDS:
        if lo <= draw_pile <= hi:
            return name
    raise ValueError(f"a draw pile of {draw_pile} cards")


def row_band(method: str, draw_pile: int, proved: bool = False) -> str | None:
    """The band whose ``(a, b)`` maps a figure given by ``method``: the draw pile's for the
    search, :data:`FALLBACK` for a fallback's figure it did not prove, None for the figures
    no map changes (the exact solver's, a fallback's proved ones)."""
    if method == "search":
        return band(draw_pile)
    if method == "depth_limited" and not proved:
        return FALLBACK
    return None


def logit(x):
    x = np.clip(np.asarray(x, dtype=float), EPS, 1 - EPS)
    return np.log(x / (1 - x))


@dataclass(frozen=True)
class CalibrationMap:
    """A fitted map (module doc): per band ``(a, b)``."""

    name: str
    params: dict
    #: the number of players of the games it was fitted on, the only figures it maps
    players: int = 2

    def mover_loss(self, x: float, draw_pile: int) -> float:
        """The calibrated figure of the mover's raw figure ``x`` (``x`` itself when
        :func:`certain`)."""
        return self.apply(x, band(draw_pile))

    def seat_losses(self, loss, mover: int, draw_pile: int) -> list[float]:
        """Every seat's calibrated figure from the raw ones ``loss`` (one per seat, adding
        up to 1): the mover's through the map (:meth:`mover_loss`), the others' scaled by
        one factor so that the figures still add up to 1 (with two players, one minus the
        mover's)."""
        x = float(loss[mover])
        f = self.mover_loss(x, draw_pile)
        if len(loss) == 2:
            return [f, 1.0 - f] if mover == 0 else [1.0 - f, f]
        k = self.others_scale(x, draw_pile)
        return [f if q == mover else float(v) * k for q, v in enumerate(loss)]

    def others_scale(self, x: float, draw_pile: int) -> float:
        """The factor of the other seats' figures when the mover's raw figure ``x`` goes
        through the map: what keeps the figures' sum at 1 (1 when ``x`` is 1: the others'
        figures are all 0)."""
        return (1.0 - self.mover_loss(x, draw_pile)) / (1.0 - x) if x < 1.0 else 1.0

    def apply(self, x: float, name: str | None) -> float:
        """The figure ``x`` through band ``name``'s ``(a, b)``: ``x`` itself when
        :func:`certain`, for no band, or for a band the map has none of (a map fitted
        before the fallback had a band of its own leaves its figures as they are)."""
        if certain(x) or name not in self.params:
            return float(x)
        a, b = self.params[name]
        return float(1.0 / (1.0 + math.exp(-(a * float(logit(x)) + b))))


def calibration_path(name: str) -> str:
    """The file of map ``name``: a shipped one's, or ``name`` itself when it is a .json path."""
    if name.endswith(".json"):
        return name
    data = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
    return os.path.join(data, f"calibration-{name}.json")


@lru_cache(maxsize=8)
def load_map(name: str) -> CalibrationMap:
    """The map ``name`` (:func:`calibration_path`: ``palace_solver/data/calibration-NAME.json``).

    :raises ValueError: for a name with no file.
    """
    path = calibration_path(name)
    if not os.path.exists(path):
        raise ValueError(f"no calibration map {name!r} (looked for {path})")
    with open(path) as f:
        rec = json.load(f)
    return CalibrationMap(name, {k: tuple(v) for k, v in rec["params"].items()},
                          int(rec.get("players", 2)))

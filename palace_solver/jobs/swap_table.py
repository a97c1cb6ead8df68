"""The swap table: how often a player loses, by the class of the face-up cards laid out at
the swap phase, for each player count, from games played by the engine's bots.

Classes of face-up layout. A layout is the multiset of its cards' *classes*, read from the
rule set (never hard-coded per variant: :class:`palace_solver.game.rules.Rules` answers)::

    R  reset        2 (legal on anything, the next player may play anything)
    B  burn         10; A or K under aces_burn / kings_burn
    T  transparent  joker; 8 or 3 under invisible_8 / invisible_3
    V  low-maker    7 under seven_low, 5 under five_low (the next play must be lower)
    H  high         J Q K A not in a class above
    M  middle       7 8 9 not in a class above
    L  low          3 4 5 6 not in a class above

written best class first, e.g. ``RBH`` (a 2, a 10 and a high card) or ``HML``. Why these
classes: face-up cards are played after the hand is gone, one pile at a time, and what
decides whether one can be played is whether it is legal on anything (R, B, T), changes
what the next player may play (V), or how high it is; the exact rank inside a band matters
far less. Three cards over five classes (standard rules) make 35 classes, a table that fits
a screen and whose rows fill up in a few thousand games; exact rank multisets would make
455 rows, most too rare for a useful interval.

Games. Each game of ``n`` players is dealt from its own seed (:func:`palace_solver.jobs.batch.
task_seed` of the table's seed and ``n:game``) and played by :func:`palace_solver.agents.play.
play_game` with ``bot`` in every seat, under its draw rules (a repeated position or the turn
cap is a draw). ``layout="bot"`` (default): each player lays out as the bot does (greedy:
specials then its highest cards face up), so the table answers "how often do I lose with
this face-up class when everybody plays like the bot"; the bot's layout also reflects its
deal (a greedy player who lays out L cards had no better ones), so a row mixes the layout's
effect with the deal's. ``layout="random"``: every player lays out uniformly at random among
its distinct layouts (then plays as the bot), which fills the rows the bot never chooses.

Figures. Every player of every game is one observation of its class: ``games`` (player-
games), ``losses`` (that player lost: the one left holding cards; under first_out_wins,
not first out; a draw is not a loss and is counted apart), the loss rate and its 95% Wilson
score interval (Wilson 1927: good coverage for rates near 0 or 1 and small counts, where
the normal interval fails). A seat's baseline is 1/n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..agents.play import DEFAULT_TURN_CAP, play_game
from ..game.cards import JOKER, ORDERED_RANKS, TWO, rank_name
from ..game.moves import LAYOUT
from ..game.rules import Rules
from ..sample.policies import Bot, make_bot
from .batch import run_batch, task_seed

__all__ = ["CLASSES", "card_class", "layout_class", "class_legend", "wilson",
           "table_tasks", "table_task", "merge_table", "SwapTable"]

#: Class letters, best first (the order they are written in a class name).
CLASSES = "RBTVHML"
CLASS_NAMES = {"R": "reset", "B": "burn", "T": "transparent", "V": "low-maker",
               "H": "high", "M": "middle", "L": "low"}

#: Games in one batch task: a fixed number (never derived from the workers), a fraction of
#: a second of play, so the per-task cost (hand-off, an fsynced line) stays small.
GAMES_PER_TASK = 100

LAYOUT_MODES = ("bot", "random")


def card_class(rules: Rules, rank: int) -> str:
    """The class letter of ``rank`` under ``rules`` (module docstring)."""
    if rank == TWO:
        return "R"
    if rules.burns(rank):
        return "B"
    if rules.transparent(rank) or rank == JOKER:
        return "T"
    if rules.low_rank(rank):
        return "V"
    i = ORDERED_RANKS.index(rank)  # 3 .. A
    return "L" if i <= 3 else "M" if i <= 6 else "H"


def layout_class(rules: Rules, ranks) -> str:
    """The class of a face-up layout: its cards' letters, best first.

    >>> layout_class(Rules(), [14, 2, 10])
    'RBH'
    """
    return "".join(sorted((card_class(rules, r) for r in ranks), key=CLASSES.index))


def class_legend(rules: Rules) -> dict[str, list[str]]:
    """The ranks of each class under ``rules`` (classes with no rank left out)."""
    ranks = [TWO, *range(3, 15)] + ([JOKER] if rules.jokers else [])
    out: dict[str, list[str]] = {}
    for c in CLASSES:
        rs = [rank_name(r) for r in ranks if card_class(rules, r) == c]
        if rs:
            out[c] = rs
    return out


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (95% by default).

    >>> [round(x, 4) for x in wilson(0, 10)]
    [0.0, 0.2775]
    """
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, mid - half), min(1.0, mid + half)


class _RandomLayout(Bot):
    """Lays out uniformly at random among the distinct layouts, then plays as ``inner``."""

    def __init__(self, inner: Bot):
        self.inner = inner
        self.name = inner.name

    def choose(self, state, rng):
        moves = state.legal_moves()
        if moves and moves[0].kind == LAYOUT:
            return moves[rng.randrange(len(moves))]
        return self.inner.choose(state, rng)


def table_tasks(rules: Rules, players, games: int, seed: int = 0, bot: str = "greedy",
                layout: str = "bot", turn_cap: int | None = None) -> list[dict]:
    """The batch tasks of the table: for each player count, ``games`` games in tasks of
    :data:`GAMES_PER_TASK`; game ``g`` of ``n`` players is seeded by
    ``task_seed(seed, f"{n}:{g}")``, so the split into tasks changes nothing."""
    return [{"id": f"{n}:{g0}", "rules": rules.to_json(), "players": n, "bot": bot,
             "layout": layout, "seed": seed, "first": g0,
             "games": min(GAMES_PER_TASK, games - g0),
             "turn_cap": turn_cap or DEFAULT_TURN_CAP}
            for n in players for g0 in range(0, games, GAMES_PER_TASK)]


def table_task(task: dict) -> dict:
    """One task: per class, ``[player-games, losses, draws]`` over its games."""
    rules = Rules.from_json(task["rules"])
    n = task["players"]
    bot = make_bot(task["bot"])
    seats = [_RandomLayout(bot) if task["layout"] == "random" else bot] * n
    counts: dict[str, list[int]] = {}
    draws = 0
    for g in range(task["first"], task["first"] + task["games"]):
        rec = play_game(rules, n, seats, seed=task_seed(task["seed"], f"{n}:{g}"),
                        turn_cap=task["turn_cap"], record=False)
        draws += rec.draw
        for q in range(n):
            c = counts.setdefault(layout_class(rules, rec.face_up[q]), [0, 0, 0])
            c[0] += 1
            c[1] += (not rec.draw) and rec.loss[q] > 0
            c[2] += rec.draw
    return {"games": task["games"], "draws": int(draws),
            "classes": {k: [int(x) for x in v] for k, v in counts.items()}}


@dataclass
class SwapTable:
    """The merged table: per player count, per class, counts and rates."""

    rules: Rules
    bot: str
    layout: str
    seed: int
    games: int
    turn_cap: int
    counts: dict  # n -> {"games", "draws", "classes": {class: [games, losses, draws]}}

    def rows(self, n: int) -> list[dict]:
        """Classes of ``n`` players, lowest loss rate first (ties: class order)."""
        t = self.counts[n]
        obs = t["games"] * n
        out = []
        for cls, (g, lost, dr) in t["classes"].items():
            lo, hi = wilson(lost, g)
            out.append({"class": cls, "games": g, "share": g / obs if obs else 0.0,
                        "losses": lost, "draws": dr, "loss_rate": lost / g if g else 0.0,
                        "ci95": [lo, hi]})
        return sorted(out, key=lambda r: (r["loss_rate"], [CLASSES.index(c)
                                                             for c in r["class"]]))

    def to_json(self) -> dict:
        return {"rules": self.rules.to_json(), "bot": self.bot, "layout": self.layout,
                "seed": self.seed, "games_per_player_count": self.games,
                "turn_cap": self.turn_cap, "interval": "95% Wilson score",
                "loss": "the player lost (a draw is not a loss)",
                "classes": {c: {"name": CLASS_NAMES[c], "ranks": rs}
                            for c, rs in class_legend(self.rules).items()},
                "tables": [{"players": n, "games": t["games"], "draws": t["draws"],
                            "observations": t["games"] * n, "rows": self.rows(n)}
                           for n, t in self.counts.items()]}

    def text(self, min_layouts: int = 1) -> str:
        """The table; rows seen fewer than ``min_layouts`` times are left out (and counted
        in a closing line), their intervals being too wide to rank them."""
        legend = " · ".join(f"{c} {CLASS_NAMES[c]} ({' '.join(rs)})"
                            for c, rs in class_legend(self.rules).items())
        lay = ("as the bot lays out" if self.layout == "bot"
               else "laid out at random, then played by the bot")
        out = [f"Swap table: rules {self.rules}; every seat played by {self.bot}, face-up "
               f"cards {lay}",
               f"{self.games} games per player count, seed {self.seed}, turn cap "
               f"{self.turn_cap}; loss = the player lost (a draw is not a loss); "
               f"95% Wilson intervals",
               f"classes: {legend}"]
        for n, t in self.counts.items():
            out += ["", f"{n} players: {t['games']} games, {t['games'] * n} layouts, "
                        f"{t['draws']} draws (a seat's baseline loss rate {1 / n:.3f})",
                    f"{'class':<7} {'layouts':>8} {'share':>6} {'losses':>7} "
                    f"{'loss rate':>9}  95% interval"]
            rare = [r for r in self.rows(n) if r["games"] < min_layouts]
            for r in self.rows(n):
                if r["games"] < min_layouts:
                    continue
                out.append(f"{r['class']:<7} {r['games']:>8} {100 * r['share']:>5.1f}% "
                           f"{r['losses']:>7} {r['loss_rate']:>9.3f}  "
                           f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]")
            if rare:
                out.append(f"({len(rare)} classes seen fewer than {min_layouts} times left "
                           f"out: {sum(r['games'] for r in rare)} layouts; --json lists "
                           f"them)")
        return "\n".join(out)


def merge_table(rules: Rules, tasks, results, *, bot: str, layout: str, seed: int,
                games: int) -> SwapTable:
    """Add task results in task order (integer sums: the order cannot change them, but it
    fixes the order of the classes before sorting)."""
    counts: dict = {}
    for t, r in zip(tasks, results):
        c = counts.setdefault(t["players"], {"games": 0, "draws": 0, "classes": {}})
        c["games"] += r["games"]
        c["draws"] += r["draws"]
        for cls, v in r["classes"].items():
            acc = c["classes"].setdefault(cls, [0, 0, 0])
            for i in range(3):
                acc[i] += v[i]
    turn_cap = tasks[0]["turn_cap"] if tasks else 0
    return SwapTable(rules, bot, layout, seed, games, turn_cap, counts)


def swap_table(rules: Rules, players, games: int, seed: int = 0, bot: str = "greedy",
               layout: str = "bot", jobs: int = 1, ray: str | None = None, output=None,
               progress=False) -> SwapTable:
    """Play the games through the batch layer and merge them.

    :raises palace_solver.jobs.batch.BatchError: an ``output`` of another table, Ray missing.
    :raises ValueError: an unknown bot or layout mode.
    """
    if layout not in LAYOUT_MODES:
        raise ValueError(f"unknown layout mode {layout!r} (known: {', '.join(LAYOUT_MODES)})")
    bot = make_bot(bot).name
    tasks = table_tasks(rules, players, games, seed=seed, bot=bot, layout=layout)
    results = run_batch(table_task, tasks, jobs=jobs, ray=ray, output=output,
                        progress=progress, label=f"tasks ({GAMES_PER_TASK} games each)")
    return merge_table(rules, tasks, results, bot=bot, layout=layout, seed=seed, games=games)

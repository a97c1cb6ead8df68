"""The swap phase: which cards to lay face up, judged by games played out from random
completions of the deal.

For a player holding ``2 * zone_size`` cards (hand + face-up, or the hand of six under
``choose_face_up``), every distinct layout (:meth:`State._layout_moves`) is tried in
``games`` games. Game ``g`` deals the cards the player does not know (the other players'
hands and unknown face-up cards; face-down cards and the draw pile stay in the engine's
unseen pool) from its own seed, the same for every layout (common random numbers: the
layouts are compared on the same deals and the same chance events, which makes their
differences far less noisy than their levels). The other players lay out and play with the
``bot`` policy (``greedy`` by default). The player's own seat is played by ``agent``, an
agent of :mod:`palace_solver.agents.registry` that sees only its seat (``palace swap``
defaults to ``engine``, the compiled search), or with ``agent=None`` by ``bot`` too, the
whole game then played to the end by :func:`palace_solver.sample.rollout.playout` (fast,
compiled). A repeated position or a game longer than the cap is scored as a draw.

A layout's figure is the mean loss share of the player over its games, with the interval of
:func:`palace_solver.sample.stats.mean_ci`. The games run as batch tasks (:mod:`palace_solver.jobs.batch`:
local processes or a Ray cluster, resumable from an output file); results do not depend on
the workers.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..agents.method_bots import HandTracker
from ..agents.registry import make_agent
from ..game.cards import NRANK
from ..game.moves import Move
from ..game.rules import Rules
from ..game.state import LAYOUT_PHASE, State
from ..sample.policies import make_bot
from ..sample.rollout import PLAYOUT_CAP, chance_sample, draw_shares, playout
from ..sample.stats import mean_ci
from ..solve.engine import make_state
from .batch import run_batch, task_seed

__all__ = ["LayoutValue", "deal_for", "estimate_seconds", "layouts", "rank_layouts",
           "rank_layouts_timed", "swap_tasks", "swap_task"]


@dataclass
class LayoutValue:
    move: Move
    loss: float
    ci95: tuple
    games: int


def _counts(ranks) -> list[int]:
    c = [0] * NRANK
    for r in ranks:
        c[r] += 1
    return c


def check_cards(rules: Rules, n: int, cards, others_up) -> None:
    """:raises ValueError: for a wrong number of cards or more of a rank than the deck."""
    z = rules.zone_size
    if len(cards) != 2 * z:
        raise ValueError(f"{len(cards)} cards given, the swap phase has {2 * z} "
                         f"({z} in hand and {z} face up)")
    if len(others_up) > n - 1:
        raise ValueError(f"face-up cards of {len(others_up)} other players for {n} players")
    deck = rules.deck_counts(n)
    used = _counts(list(cards) + [r for up in others_up for r in up])
    for up in others_up:
        if len(up) > z:
            raise ValueError(f"{len(up)} face-up cards for one player (at most {z})")
    for r in range(NRANK):
        if used[r] > deck[r]:
            raise ValueError(f"{used[r]} cards of one rank ({r}) but the deck has {deck[r]}")


def layouts(rules: Rules, n: int, cards) -> list[Move]:
    """Every distinct layout of ``cards``."""
    s = State(rules, n)
    s.hands[0] = _counts(cards)
    return s._layout_moves(0)


def deal_for(rules: Rules, n: int, seat: int, cards, others_up, rng: random.Random) -> State:
    """A LAYOUT-phase State: ``cards`` in ``seat``'s hand, the rest dealt at random."""
    z = rules.zone_size
    s = State(rules, n)
    pool = rules.deck_counts(n)
    for r in cards:
        pool[r] -= 1
    others = [p for p in range(n) if p != seat]
    for p, up in zip(others, others_up):
        for r in up:
            pool[r] -= 1
            s.face_up[p][r] += 1
    deck = [r for r in range(NRANK) for _ in range(pool[r])]
    rng.shuffle(deck)
    s.hands[seat] = _counts(cards)
    for p in others:
        need = 2 * z - sum(s.face_up[p])
        for r in deck[:need]:
            (s.hands if sum(s.hands[p]) < z or rules.choose_face_up else s.face_up)[p][r] += 1
        deck = deck[need:]
    s.pool = _counts(deck)
    s.face_down = [z] * n
    s.draw_pile = len(deck) - z * n
    s.phase = LAYOUT_PHASE
    s.to_move = 0
    return s


def play_layout(rules: Rules, n: int, seat: int, cards, others_up, layout: Move, seed: int,
                game: int, bot: str = "greedy", keep_up: bool = False,
                agent: str | None = None) -> float:
    """The player's loss share in game ``game`` with ``layout``. With ``keep_up`` the
    others' given face-up cards are their final layout (already laid), not cards they may
    still swap. ``agent`` (a name of :mod:`palace_solver.agents.registry`): the player's
    seat is played by that agent, seeing only its seat (None: ``bot`` everywhere)."""
    rng = random.Random(f"palace-swap-{seed}-{game}")
    s = deal_for(rules, n, seat, cards, others_up, rng)
    b = make_bot(bot)
    brng = random.Random(f"palace-swap-bots-{seed}-{game}")
    others = [p for p in range(n) if p != seat]
    laid = {p for p, up in zip(others, others_up) if up} if keep_up else set()
    tracker = HandTracker(n)
    while s.phase == LAYOUT_PHASE:
        p = s.to_move
        if p == seat:
            mv = layout
        elif p in laid:
            mv = Move.up(r for r in range(NRANK) for _ in range(s.face_up[p][r]))
        else:
            mv = b.choose(s, brng)
        tracker.apply(s, mv)
    if agent is not None:
        return _play_with_agent(s, seat, make_agent(agent, task_seed(seed, f"swap/{game}")),
                                b, brng, tracker)
    try:
        s = make_state(s, "cython") if not s.is_chance() else s
    except Exception:  # noqa: BLE001 - extension missing: the reference engine
        pass
    return playout(s, brng, bot)[seat]


def _play_with_agent(s: State, seat: int, agent, bot, rng: random.Random,
                     tracker: HandTracker) -> float:
    """The game from the layout on: ``agent`` in ``seat``, ``bot`` elsewhere, chance from
    ``rng``; a repeated decision position or PLAYOUT_CAP decisions are a draw."""
    agent.tracker = tracker
    seen: set = set()
    decisions = 0
    while not s.is_terminal():
        if s.is_chance():
            tracker.apply(s, chance_sample(s.chance_outcomes(), rng))
            continue
        k = s.key()
        if k in seen or decisions >= PLAYOUT_CAP:
            return draw_shares(s)[seat]
        seen.add(k)
        p = s.to_move
        tracker.apply(s, (agent if p == seat else bot).choose(s, rng))
        decisions += 1
    return float(s.result()[seat])


def estimate_seconds(rules: Rules, n: int, cards, others_up=(), seat: int = 0,
                     games: int = 200, seed: int = 0, bot: str = "greedy",
                     agent: str | None = None, jobs: int = 1,
                     probe_seconds: float = 1.0) -> dict:
    """How long :func:`rank_layouts` will take, measured before it starts: the first game
    of the first layout is played for up to ``probe_seconds`` (the agent's decisions
    timed), and its length in decisions is taken from the same game with ``bot`` in the
    player's seat too (fast). Returns ``seconds`` (the whole run over ``jobs`` workers),
    ``per_game``, ``games`` (layouts x games) and ``layouts``. Rough: decisions vary in
    cost along a game and between games.

    :raises ValueError: as :func:`rank_layouts`.
    """
    check_cards(rules, n, cards, others_up)
    moves = layouts(rules, n, cards)
    total = len(moves) * games
    t0 = time.perf_counter()
    if agent is None:
        k = 0
        while k < 20 and time.perf_counter() - t0 < probe_seconds:
            play_layout(rules, n, seat, cards, others_up, moves[0], seed, k, bot)
            k += 1
        per_game = (time.perf_counter() - t0) / max(1, k)
    else:
        per_game = _probe_agent_game(rules, n, seat, cards, others_up, moves[0], seed, bot,
                                     agent, probe_seconds)
    return {"seconds": per_game * total / max(1, jobs), "per_game": per_game,
            "games": total, "layouts": len(moves)}


#: Decisions after the draw pile is gone, over those before it (measured: about 0.3 with
#: the engine against greedy in two players).
LATE_SHARE = 0.3


def _probe_agent_game(rules, n, seat, cards, others_up, layout, seed, bot, agent,
                      probe_seconds) -> float:
    """Seconds of one game with ``agent`` in ``seat``: game 0 played to its end, or for
    ``probe_seconds`` and scaled to the whole game by how much of the draw pile it used
    (plus LATE_SHARE for the decisions after it)."""
    rng = random.Random(f"palace-swap-{seed}-0")
    s = deal_for(rules, n, seat, cards, others_up, rng)
    b = make_bot(bot)
    brng = random.Random(f"palace-swap-bots-{seed}-0")
    tracker = HandTracker(n)
    while s.phase == LAYOUT_PHASE:
        tracker.apply(s, layout if s.to_move == seat else b.choose(s, brng))
    a = make_agent(agent, task_seed(seed, "swap/0"))
    a.tracker = tracker
    draw0, seen, times = s.draw_pile, set(), []
    t0 = time.perf_counter()
    while not s.is_terminal() and len(seen) < PLAYOUT_CAP:
        if s.is_chance():
            tracker.apply(s, chance_sample(s.chance_outcomes(), brng))
            continue
        spent = time.perf_counter() - t0
        if s.key() in seen or (spent > probe_seconds and len(times) >= 3) \
                or spent > 3 * probe_seconds:
            break
        seen.add(s.key())
        if s.to_move == seat:
            t = time.perf_counter()
            tracker.apply(s, a.choose(s, brng))
            times.append(time.perf_counter() - t)
        else:
            tracker.apply(s, b.choose(s, brng))
    spent = time.perf_counter() - t0
    if s.is_terminal() or not times or not draw0:
        return spent
    # The first decision pays for warming up (tables, weights): leave it out of the rate.
    rate = sum(times[1:]) / (len(times) - 1) if len(times) > 1 else times[0]
    used = max(1, draw0 - s.draw_pile)
    seat_decisions = len(times) * max(1.0, draw0 / used) * (1 + LATE_SHARE)
    return rate * seat_decisions + (spent - sum(times))


#: Games of one layout in one batch task: a fixed number (never derived from the workers),
#: large enough that the per-task cost (process hand-off or Ray call, an output line) is
#: small against the games, small enough to spread a few layouts over many workers.
GAMES_PER_TASK = 50
#: The same when an agent plays the seat (its games cost a hundred times more).
AGENT_GAMES_PER_TASK = 5


def swap_tasks(rules: Rules, n: int, cards, others_up=(), seat: int = 0, games: int = 200,
               seed: int = 0, bot: str = "greedy", n_layouts: int | None = None,
               agent: str | None = None) -> list[dict]:
    """The batch tasks of :func:`rank_layouts`: layout ``k`` (its index in :func:`layouts`)
    over games ``first .. first + games - 1``, each game seeded from ``seed`` and its index
    (common to every layout), so splitting games into tasks changes nothing."""
    if n_layouts is None:
        n_layouts = len(layouts(rules, n, cards))
    per_task = GAMES_PER_TASK if agent is None else AGENT_GAMES_PER_TASK
    extra = {} if agent is None else {"agent": agent}  # old output files still resume
    return [{"id": f"{k}:{g0}", "rules": rules.to_json(), "players": n, "seat": seat,
             "cards": list(cards), "others_up": [list(u) for u in others_up], "layout": k,
             "seed": seed, "first": g0, "games": min(per_task, games - g0), "bot": bot,
             **extra}
            for k in range(n_layouts) for g0 in range(0, games, per_task)]


def swap_task(task: dict) -> dict:
    """One task of :func:`swap_tasks`: the player's loss share in each of its games."""
    rules = Rules.from_json(task["rules"])
    n, cards = task["players"], task["cards"]
    move = layouts(rules, n, cards)[task["layout"]]
    return {"loss": [play_layout(rules, n, task["seat"], cards, task["others_up"], move,
                                 task["seed"], g, task["bot"], agent=task.get("agent"))
                     for g in range(task["first"], task["first"] + task["games"])]}


def rank_layouts_timed(rules: Rules, n: int, cards, others_up=(), seat: int = 0,
                       time_budget: float = 1.0, seed: int = 0, bot: str = "greedy",
                       keep_up: bool = False, max_games: int | None = None,
                       stop=None) -> list[LayoutValue]:
    """:func:`rank_layouts` in this process under a time budget (the live hint): game
    ``g`` (the same deal and chance events as in :func:`rank_layouts`) is played with every
    layout in turn, ``g = 0, 1, ...``, until ``time_budget`` seconds are spent (at least one
    game each), ``max_games`` are played, or ``stop()`` says so. Best first, as there.

    :raises ValueError: as :func:`rank_layouts`.
    """
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} out of range (0 to {n - 1})")
    check_cards(rules, n, cards, others_up)
    moves = layouts(rules, n, cards)
    per: list[list[float]] = [[] for _ in moves]
    t0 = time.perf_counter()
    g = 0
    while g == 0 or (time.perf_counter() - t0 < time_budget
                     and (max_games is None or g < max_games)
                     and not (stop is not None and stop())):
        for k, m in enumerate(moves):
            per[k].append(play_layout(rules, n, seat, cards, others_up, m, seed, g, bot,
                                      keep_up))
        g += 1
    out = []
    for k, m in enumerate(moves):
        mean, lo, hi = mean_ci(per[k])
        out.append(LayoutValue(m, mean, (lo, hi), g))
    return sorted(out, key=lambda v: v.loss)


def rank_layouts(rules: Rules, n: int, cards, others_up=(), seat: int = 0, games: int = 200,
                 seed: int = 0, jobs: int = 1, bot: str = "greedy", progress=False,
                 ray: str | None = None, output=None,
                 agent: str | None = None) -> list[LayoutValue]:
    """Layouts best first (lowest estimated loss; ties: layout order), played through the
    batch layer (:func:`palace_solver.jobs.batch.run_batch`): local processes (``jobs``) or Ray
    (``ray``), resumable from ``output``; the ranking does not depend on the workers.

    :param progress: a progress bar on stderr (True, False or ``"auto"``).
    :raises ValueError: for impossible cards (:func:`check_cards`) or a bad seat;
        :class:`palace_solver.jobs.batch.BatchError` (a ValueError) for an ``output`` file of
        another run or Ray missing.
    """
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} out of range (0 to {n - 1})")
    check_cards(rules, n, cards, others_up)
    moves = layouts(rules, n, cards)
    tasks = swap_tasks(rules, n, cards, others_up, seat, games, seed, bot, len(moves), agent)
    results = run_batch(swap_task, tasks, jobs=jobs, ray=ray, output=output,
                        progress=progress, label="swap tasks")
    per = {k: [] for k in range(len(moves))}
    for t, r in zip(tasks, results):  # task order: games in order within each layout
        per[t["layout"]].extend(r["loss"])
    out = []
    for k, m in enumerate(moves):
        mean, lo, hi = mean_ci(per[k])
        out.append(LayoutValue(m, mean, (lo, hi), games))
    return sorted(out, key=lambda v: v.loss)

"""A strength test between two agents: ``palace match A B``.

Starts. Start ``i`` of a match seeded ``seed`` is a seeded deal (every player lays out as
``greedy``; a self-play run may lay out at random, :data:`LAYOUTS`), stopped at
``kind``: ``full`` at the first play decision; ``late`` later, in a ``greedy`` self-play
game, at the first decision with an empty draw pile and at most
``late_cards`` cards in play (a deal whose game ends first is dealt again). The public
knowledge of the prefix (cards picked up, face-up cards swapped into a hand) goes into the
agents' view (:class:`~palace_solver.agents.method_bots.HandTracker`).

Seatings. Agent A plays one seat and B every other one. Each start is played in every
seating (A in seat 0, 1, ..., n-1): one game per batch task
(:mod:`palace_solver.jobs.batch`: ``jobs``, Ray, resumable output). Chance during play comes
from a generator seeded by the start alone, the same in every seating (common random
numbers); each agent's own seed derives from the match seed and the task. A game ends as a
draw (the loss shared by the players still in) at a repeated decision position or after
``cap`` decisions from the start.

Score. A's score is 1 minus A's mean loss share (in two players a draw is half a loss). Its
95% interval is paired: per start, the mean of A's scores over the seatings, then Student t
over the starts (:func:`palace_solver.sample.stats.mean_ci`); the p-value is that of the same
t statistic against the score of an equal agent, ``1 - 1/n`` (Student t on the same degrees
of freedom, so the interval excludes that score exactly when p < 0.05; a sign test when every
start scored the same). The verdict is read from the p-value alone. W/D/L count A's
games: a loss when A is the loser, a draw when the game is drawn with A still in (a player
already out shares no loss), else a win. The summary counts the games that reached the
cap (``capped``) and the text says so when they are most of them. Decisions per second are
each side's decisions over the seconds its ``choose`` calls took.
"""
from __future__ import annotations

import math
import random
import time

from ..agents.method_bots import HandTracker
from ..agents.play import _sample
from ..agents.registry import make_agent, parse_agent
from ..game.moves import Move
from ..game.rules import Rules
from ..game.state import LAYOUT_PHASE, PLAY_PHASE, State
from ..sample.policies import GreedyBot
from ..sample.stats import mean_ci, t_two_sided_p
from .batch import run_batch, task_seed

__all__ = ["CAP", "KINDS", "LAYOUTS", "make_start", "match_tasks", "play_game", "play_task",
           "run_match", "summarize", "p_value", "format_summary"]

#: The p-value below which ``format_summary`` names a better agent.
SIGNIFICANCE = 0.05
#: Decisions from the start after which a game is a draw.
CAP = 400
KINDS = ("full", "late")
#: How the players lay out at a start: as ``greedy`` (high cards, 2s and 10s face up, what
#: every match and self-play game so far holds), or ``random``: each player's face-up three
#: chosen uniformly among the layouts the swap allows, a stand-in for the layouts people
#: choose, which the learned values never met (docs/learning.md, Layouts the engine's
#: games never hold).
LAYOUTS = ("greedy", "random")


def late_cards_default(n: int) -> int:
    return 6 * n


def make_start(kind: str, rules: Rules, n: int, key: str, late_cards: int | None = None,
               layout: str = "greedy"):
    """``(state, tracker, history)`` of the start seeded by the string ``key``: the state at
    its first decision, the public knowledge of the hands so far, and every event from the
    deal (chance ranks as ints, decisions as Moves) for agents that replay the game.
    ``layout``: how the players lay out (:data:`LAYOUTS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of start {kind!r} (full or late)")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r} (greedy or random)")
    late = late_cards_default(n) if late_cards is None else late_cards
    rng = random.Random(key)
    greedy = GreedyBot()
    while True:  # late: a deal whose game ends before the condition is dealt again
        s = State.new_game(rules, n)
        tracker = HandTracker(n)
        history: list = []
        while not s.is_terminal():
            if s.is_chance():
                ev = _sample(s, rng)
            elif s.phase == PLAY_PHASE and (
                    kind == "full" or (s.draw_pile == 0 and
                                       sum(s.cards_left(p) for p in range(n)) <= late)):
                return s, tracker, history
            elif layout == "random" and s.phase == LAYOUT_PHASE:
                ev = rng.choice(s.legal_moves())
            else:
                ev = greedy.choose(s, rng)
            history.append(ev)
            tracker.apply(s, ev)


def start_key(kind: str, n: int, seed: int, start: int) -> str:
    return f"match-{kind}-{n}-{seed}-{start}"


def match_tasks(a: str, b: str, *, players: int = 2, kind: str = "full", starts: int = 100,
                seed: int = 0, rules: Rules | None = None, late_cards: int | None = None,
                cap: int = CAP, record: bool = False) -> list[dict]:
    """One task per game: every start in every seating (A in seat ``seat``); with
    ``record``, each game's result carries its events (``play_game(record=True)``)."""
    rules = rules or Rules()
    tasks = []
    for i in range(starts):
        for seat in range(players):
            tasks.append({"id": f"{i}/{seat}", "a": a, "b": b, "players": players,
                          "kind": kind, "start": i, "seat": seat, "seed": seed,
                          "rules": rules.to_json(), "late_cards": late_cards, "cap": cap,
                          **({"record": True} if record else {})})
    return tasks


def play_task(task: dict) -> dict:
    """One game of a match (a batch task): each seat's loss share, A's loss share and
    outcome, the decisions played, and per side its decisions and seconds thinking."""
    n, seat = task["players"], task["seat"]
    rules = Rules.from_json(task["rules"])
    start, tracker, history = make_start(task["kind"], rules, n,
                                         start_key(task["kind"], n, task["seed"], task["start"]),
                                         task["late_cards"])
    names = [task["a"] if q == seat else task["b"] for q in range(n)]
    agents = [make_agent(nm, task_seed(task["seed"], f"{task['id']}/{q}"))
              for q, nm in enumerate(names)]
    rng = random.Random(f"match-play-{task['seed']}-{task['kind']}-{n}-{task['start']}")
    bot_rng = random.Random(task_seed(task["seed"], f"{task['id']}/bots"))
    record = bool(task.get("record"))
    g = play_game(rules, start, tracker, history, agents, rng, bot_rng, task["cap"],
                  record=record)
    a_loss = g["loss"][seat]
    # a drawn game is a draw for A only if A was still in: a player already out shares no
    # loss (three players or more), and that is a win like any other game A did not lose
    outcome = ("draw" if g["reason"] != "end" and a_loss > 0 else
               "loss" if a_loss == 1.0 else "win")
    b_seats = [q for q in range(n) if q != seat]
    out = {"loss": g["loss"], "a_loss": a_loss, "outcome": outcome, "reason": g["reason"],
           "decisions": g["decisions"], "seconds": g["seconds"],
           "a_decisions": g["made"][seat], "a_seconds": round(g["think"][seat], 6),
           "b_decisions": sum(g["made"][q] for q in b_seats),
           "b_seconds": round(sum(g["think"][q] for q in b_seats), 6)}
    if record:
        out.update(events=g["events"], prefix=g["prefix"], figures=g["figures"])
    return out


def play_game(rules: Rules, start: State, tracker: HandTracker, history: list, agents,
              rng: random.Random, bot_rng: random.Random, cap: int = CAP,
              record: bool = False, seen: set | None = None) -> dict:
    """Play a game from a start of :func:`make_start` to its end: the last event, a
    repeated decision position (a draw) or ``cap`` decisions (a draw).

    Returns ``loss`` (each seat's share), ``reason`` (``end``, ``repetition`` or ``cap``),
    ``decisions``, ``seconds``, and per seat ``made`` (decisions) and ``think`` (seconds in
    ``choose``). With ``record``: ``events``, every event from the deal on (a chance
    outcome as its rank, a decision as its move's text), and ``figures``, per decision of
    the play (from the start) the mover and, when its agent reports one
    (``agent.last_figure``, its estimate of its own loss after the move), that figure.
    ``seen``: the keys of positions already played before ``start`` (a game continued from
    its middle repeats them as a draw too)."""
    n = start.n
    prefix = sum(isinstance(ev, Move) for ev in history)
    for ag in agents:
        if hasattr(ag, "tracker"):
            ag.tracker = None
        if hasattr(ag, "observe"):
            ag.begin(rules, n, prefix + cap)
            for ev in history:
                ag.observe(ev)
    s, tracker = start.clone(), tracker.clone()
    for ag in agents:
        if hasattr(ag, "tracker"):
            ag.tracker = tracker
    watchers = [ag for ag in agents if hasattr(ag, "observe")]
    events = [ev if isinstance(ev, int) else str(ev) for ev in history] if record else None
    figures = [] if record else None
    think = [0.0] * n
    made = [0] * n
    seen = set(seen or ())
    t0 = time.perf_counter()
    reason, loss, decisions = "cap", None, cap
    for d in range(cap + 1):
        while s.is_chance():
            ev = _sample(s, rng)
            tracker.apply(s, ev)
            if record:
                events.append(ev)
            for w in watchers:
                w.observe(ev)
        if s.is_terminal():
            loss, decisions, reason = [float(x) for x in s.result()], d, "end"
            break
        if d == cap:
            break
        k = s.key()
        if k in seen:
            decisions, reason = d, "repetition"
            break
        seen.add(k)
        p = s.to_move
        t = time.perf_counter()
        ag = agents[p]
        if record and hasattr(ag, "last_figure"):
            ag.last_figure = None
        mv = ag.choose(s, bot_rng)
        think[p] += time.perf_counter() - t
        made[p] += 1
        if record:
            events.append(str(mv))
            figures.append([p, getattr(ag, "last_figure", None), s.draw_pile])
        tracker.apply(s, mv)
        for w in watchers:
            w.observe(mv)
    if loss is None:
        active = s.active()
        loss = [1.0 / len(active) if q in active else 0.0 for q in range(n)]
    out = {"loss": loss, "reason": reason, "decisions": decisions,
           "seconds": round(time.perf_counter() - t0, 4), "made": made, "think": think}
    if record:
        out.update(events=events, figures=figures, prefix=len(history))
    return out


def p_value(mean: float, values, null: float = 0.5) -> float:
    """Two-sided p-value of the t statistic of ``values`` against ``null`` (Student t with
    ``len(values) - 1`` degrees of freedom, as the interval of
    :func:`~palace_solver.sample.stats.mean_ci`); the sign test when every value is equal."""
    n = len(values)
    if n < 2:
        return 1.0
    var = math.fsum((x - mean) ** 2 for x in values) / (n - 1)
    if var <= 0:
        return 1.0 if mean == null else min(1.0, 2.0 * 0.5 ** n)
    return t_two_sided_p((mean - null) / math.sqrt(var / n), n - 1)


#: the fields of a game's result that time it: two plays of one game differ in them only
TIMING = ("seconds", "a_seconds", "b_seconds")


def same_result(x: dict, y: dict) -> bool:
    """Whether two results of one game (or one continuation) agree but for their timings."""
    return ({k: v for k, v in x.items() if k not in TIMING}
            == {k: v for k, v in y.items() if k not in TIMING})


def summarize(tasks, results) -> dict:
    """A's score with its paired interval, p-value, W/D/L, decisions per second."""
    per_start: dict = {}
    wdl = {"win": 0, "draw": 0, "loss": 0}
    acc = {"a_decisions": 0, "a_seconds": 0.0, "b_decisions": 0, "b_seconds": 0.0,
           "decisions": 0, "seconds": 0.0}
    capped = 0
    for t, r in zip(tasks, results):
        per_start.setdefault(t["start"], []).append(1.0 - r["a_loss"])
        wdl[r["outcome"]] += 1
        capped += r["reason"] == "cap"
        for k in acc:
            acc[k] += r[k]
    n = tasks[0]["players"] if tasks else 2
    pairs = [sum(v) / len(v) for v in per_start.values()]
    m, lo, hi = mean_ci(pairs)
    games = len(results)
    null = 1.0 - 1.0 / n
    return {"a": tasks[0]["a"] if tasks else None, "b": tasks[0]["b"] if tasks else None,
            "players": n, "kind": tasks[0]["kind"] if tasks else None,
            "starts": len(pairs), "games": games, "score": m, "ci95": [lo, hi],
            "equal_score": null, "p": p_value(m, pairs, null),
            "a_loss_rate": 1.0 - m,
            "wins": wdl["win"], "draws": wdl["draw"], "losses": wdl["loss"],
            "capped": capped,
            "mean_decisions": acc["decisions"] / games if games else 0.0,
            "a_decisions_per_second": acc["a_decisions"] / acc["a_seconds"]
            if acc["a_seconds"] else None,
            "b_decisions_per_second": acc["b_decisions"] / acc["b_seconds"]
            if acc["b_seconds"] else None,
            "a_ms_per_decision": 1000 * acc["a_seconds"] / acc["a_decisions"]
            if acc["a_decisions"] else None,
            "b_ms_per_decision": 1000 * acc["b_seconds"] / acc["b_decisions"]
            if acc["b_decisions"] else None,
            "a_seconds_per_game": acc["a_seconds"] / games if games else 0.0,
            "b_seconds_per_game": acc["b_seconds"] / games if games else 0.0}


def run_match(a: str, b: str, *, players: int = 2, kind: str = "full", starts: int = 100,
              seed: int = 0, rules: Rules | None = None, late_cards: int | None = None,
              cap: int = CAP, jobs: int = 1, ray: str | None = None, output=None,
              progress="auto", on_game=None, record: bool = False) -> dict:
    """Play the match (module doc) and summarize it. ``on_game(task, result)``, when
    given, is called for every game in task order, each result with the game's events
    (``palace match --record``). ``record`` keeps each game's events and figures in its
    result (and ``output``) without ``on_game``.

    :raises AgentError: an unknown agent or option.
    :raises BatchError: see :func:`palace_solver.jobs.batch.run_batch`.
    :raises ValueError: a bad count or kind.
    """
    for spec in (a, b):
        parse_agent(spec)
    if starts < 1:
        raise ValueError("--starts must be at least 1")
    if kind not in KINDS:
        raise ValueError(f"unknown kind of start {kind!r} (full or late)")
    rules = rules or Rules()
    rules.check_players(players)
    tasks = match_tasks(a, b, players=players, kind=kind, starts=starts, seed=seed,
                        rules=rules, late_cards=late_cards, cap=cap,
                        record=record or on_game is not None)
    t0 = time.perf_counter()
    results = run_batch(play_task, tasks, jobs=jobs, ray=ray, output=output, progress=progress,
                        label="games")
    if on_game is not None:
        for t, r in zip(tasks, results):
            on_game(t, r)
    out = summarize(tasks, results)
    out.update(seed=seed, rules=rules.to_json(), wall_seconds=round(time.perf_counter() - t0, 3),
               jobs=jobs, cap=cap)
    return out


def format_summary(r: dict) -> str:
    """The summary as a few lines of text."""
    def rate(x):
        return "-" if x is None else f"{x:,.1f}"
    # One test: the verdict is the p-value's (below 0.05, the side of the score).
    verdict = ("no significant difference" if not r["p"] < SIGNIFICANCE else
               "A better" if r["score"] > r["equal_score"] else
               "B better" if r["score"] < r["equal_score"] else "no significant difference")
    # (a p-value that underflows to 0 is not 0: say how small it is at least)
    p_text = "p < 1e-15" if r["p"] < 1e-15 else f"p = {r['p']:.2g}"
    lines = [
        f"{r['a']} vs {r['b']}: {r['players']} players, {r['kind']} starts, {r['starts']} starts "
        f"x {r['players']} seatings = {r['games']} games (seed {r['seed']})",
        f"score of {r['a']}: {r['score']:.3f}  95% CI [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
        f" (paired over starts; an equal agent scores {r['equal_score']:.3f})  "
        f"{p_text}  {verdict}",
        f"{r['a']} loss rate {r['a_loss_rate']:.3f}; W/D/L {r['wins']}/{r['draws']}/"
        f"{r['losses']}; {r['mean_decisions']:.1f} decisions a game",
        f"decisions/s: {r['a']} {rate(r['a_decisions_per_second'])} "
        f"({rate(r['a_ms_per_decision'])} ms each), {r['b']} "
        f"{rate(r['b_decisions_per_second'])} ({rate(r['b_ms_per_decision'])} ms each); "
        f"wall {r['wall_seconds']:.1f} s on {r['jobs']} job(s)"]
    if r.get("capped", 0) * 2 > r["games"]:
        lines.append(f"note: {r['capped']} of {r['games']} games reached the cap of "
                     f"{r.get('cap', CAP)} decisions and were scored as draws among the "
                     f"players still in: the score measures little (--cap raises it; games "
                     f"with more players run longer)")
    return "\n".join(lines)

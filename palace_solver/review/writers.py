"""Records of the games programs play: ``palace play --record DIR`` and
``palace match --record DIR`` (every game with its full deal, docs/record.md).

Imports the model, the bots' game (:mod:`palace_solver.agents.play`) and the live words.
"""
from __future__ import annotations

import re

from ..game.cards import parse_rank
from ..game.record import Record, record_from_events
from ..game.rules import Rules
from ..live.events import RESERVED, is_card

__all__ = ["game_stream", "record_from_game", "seat_names"]


def seat_names(agents) -> list[str]:
    """Seat names from agent names (``engine:nodes=1000`` -> ``engine-nodes-1000``), one
    word each, never a card or a command word, the second of a name ``NAME2``, ..."""
    out: list[str] = []
    for a in agents:
        nm = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(a)).strip("-") or "bot"
        if nm.lower() in RESERVED or is_card(nm):
            nm += "-bot"
        base, k = nm, 1
        while nm.lower() in (x.lower() for x in out):
            k += 1
            nm = f"{base}{k}"
        out.append(nm)
    return out


def game_stream(events: list[dict], rules: Rules, n: int) -> list:
    """The events of a :class:`~palace_solver.agents.play.GameRecord` (its ``events``
    dicts) as the stream :func:`~palace_solver.game.record.record_from_events` reads:
    chance outcomes as ranks (the deal in its order: face-up rounds, then hand rounds),
    decisions as move text."""
    z = rules.zone_size
    out: list = []
    for e in events:
        t = e["type"]
        if t == "deal":
            ups = [[parse_rank(c) for c in p["face_up"]] for p in e["players"]]
            hands = [[parse_rank(c) for c in p["hand"]] for p in e["players"]]
            for k in range(0 if rules.choose_face_up else z):
                out.extend(ups[p][k] for p in range(n))
            for k in range(2 * z if rules.choose_face_up else z):
                out.extend(hands[p][k] for p in range(n))
        elif t == "layout":
            out.append("up " + " ".join(e["face_up"]))
        elif t == "move":
            out.append(e["move"])
        elif t in ("draw", "flip", "start"):
            out.append(parse_rank(e["card"]))
    return out


def record_from_game(game) -> Record:
    """The full record of a :class:`~palace_solver.agents.play.GameRecord` played with
    ``record=True`` (``palace play``)."""
    names = seat_names(game.bots)
    stream = game_stream(game.events, game.rules, game.n_players)
    if game.draw:
        result = f"draw ({game.reason})"
    elif game.loser is not None:
        result = f"{names[game.loser]} loses"
    else:
        result = f"{names[game.out_order[0]]} wins"
    return record_from_events(game.rules, names, stream, result=result,
                              tags={"source": "palace play", "seed": str(game.seed),
                                    "bots": " ".join(game.bots)},
                              fill_seed=f"play-{game.seed}")


def record_from_match_game(task: dict, result: dict) -> Record:
    """The full record of one game of ``palace match`` (a task of
    :func:`palace_solver.jobs.match.match_tasks` and its result, played with
    ``record=True``: every event from the deal in ``result["events"]``). Seats are named
    after their agents; a ``late`` start's first decisions, the greedy self-play that led to
    it, are tagged (``agents from ply``) so that a review leaves them out."""
    n, seat = task["players"], task["seat"]
    rules = Rules.from_json(task["rules"])
    names = seat_names([task["a"] if q == seat else task["b"] for q in range(n)])
    events = result["events"]
    prefix = events[:result.get("prefix", 0)]
    before = sum(1 for ev in prefix if isinstance(ev, str) and not ev.startswith("up "))
    loss = result["loss"]
    if result.get("reason") != "end":
        res = f"draw ({result.get('reason')})"
    elif any(x == 1 for x in loss):
        res = f"{names[loss.index(1)]} loses" if 1 in loss else None
    else:
        res = f"{names[min(range(n), key=lambda q: loss[q])]} wins"
    tags = {"source": "palace match", "match": f"{task['a']} vs {task['b']}",
            "match start": f"{task['kind']} {task['start']} (seed {task['seed']})",
            "seat of A": str(seat)}
    if before:
        tags["agents from ply"] = str(before + 1)
    return record_from_events(rules, names, events, result=res, tags=tags,
                              fill_seed=f"match-{task['seed']}-{task['id']}")

"""One full game between bots, with every event recorded (a series of games and its tally
is :mod:`palace_solver.jobs.series`).

Everything is deterministic given the seed. Chance (the deal, draws, flips, the start card)
is sampled from one :class:`random.Random` and the bots' own randomness from another, both
seeded from the game seed, so the same seed deals the same cards whatever the bots do.

A game ends when one player is left holding cards (that player loses), or is scored a draw:

- ``repetition``: a decision-node position of the play phase repeats (same
  :meth:`State.key`, so the game could go round the same loop forever). ``repetitions``
  sets how many occurrences make the draw: 2 (the default) is the first repeat. Random
  bots revisit positions often (they pick up at random), so most of their two-player games
  end this way;
- ``turn cap``: more than ``turn_cap`` decisions were made.

A draw is shared by the players still in (RULES.md, "Values the solver reports").
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from fractions import Fraction

from ..game.cards import names, rank_name, ranks_of
from ..game.moves import FLIP, LAYOUT, PICKUP
from ..game.rules import Rules
from ..game.state import DEAL, PLAY_PHASE, State
from ..sample.policies import make_bot

__all__ = ["DEFAULT_TURN_CAP", "GameRecord", "play_game", "seats_for"]

#: Decisions allowed before a game is called a draw; random games average well under 300.
DEFAULT_TURN_CAP = 2000


@dataclass
class GameRecord:
    """What happened in one game.

    ``events`` is a list of dicts, each with a ``type``:
    ``deal`` (every player's dealt hand, face-up cards in the order dealt, face-down count;
    the draw pile),
    ``layout`` (a player's face-up choice), ``start`` (the start card, ``start_card``),
    ``first`` (who plays first), ``move`` (a decision: ``player``, ``move`` in POSITION.md
    notation), ``draw`` (a refill card), ``flip`` (the face-down card turned and whether it
    was legal), ``burn`` (the cards that left the game), ``pickup`` (the cards taken),
    ``out`` (a player going out, with their place), ``end``.
    """

    rules: Rules
    n_players: int
    bots: list[str]
    seed: int
    turn_cap: int
    events: list[dict] = field(default_factory=list)
    loser: int | None = None
    draw: bool = False
    reason: str = ""
    decisions: int = 0
    loss: list[Fraction] = field(default_factory=list)
    out_order: list[int] = field(default_factory=list)
    #: Face-up ranks each player laid out, kept even without ``events`` (the swap table
    #: reads them from fast games); not in :meth:`to_dict`, where the layout events say it.
    face_up: list[tuple] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.to_json(),
            "players": self.n_players,
            "bots": list(self.bots),
            "seed": self.seed,
            "turn_cap": self.turn_cap,
            "loser": self.loser,
            "draw": self.draw,
            "reason": self.reason,
            "decisions": self.decisions,
            "loss": [float(x) for x in self.loss],
            "out_order": list(self.out_order),
            "events": self.events,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def player_name(self, p: int) -> str:
        return f"P{p} ({self.bots[p]})"

    def text(self) -> str:
        """A readable log, one event a line, ending with the loser (or the draw)."""
        lines = [f"Palace: {self.n_players} players, rules {self.rules}, seed {self.seed}",
                 "Players: " + ", ".join(self.player_name(p) for p in range(self.n_players))]
        for e in self.events:
            line = _event_text(self, e)
            if line:
                lines.append(line)
        return "\n".join(lines)


def _cards(ranks) -> str:
    return " ".join(ranks) if ranks else "-"


def _event_text(rec: GameRecord, e: dict) -> str:
    t = e["type"]
    who = f"P{e['player']}" if "player" in e else ""
    if t == "deal":
        parts = [f"  P{p}: hand {_cards(d['hand'])} | up {_cards(d['face_up'])} | "
                 f"down {d['face_down']}" for p, d in enumerate(e["players"])]
        return "Deal:\n" + "\n".join(parts) + f"\n  draw pile {e['draw_pile']}"
    if t == "layout":
        return f"{who} lays up {_cards(e['face_up'])} (hand {_cards(e['hand'])})"
    if t == "start":
        if e.get("burned"):
            return f"Start card {e['card']} burns"
        return f"Start card {e['card']}"
    if t == "first":
        return f"{who} plays first"
    if t == "move":
        if e["move"] == "flip" or e["move"].startswith("pickup"):
            return None  # the flip / pickup events say it with the cards
        return f"{e['turn']:>4}. {who} plays {e['move']}" + (
            f" from {e['source'].replace('_', '-')}" if e.get("source", "hand") != "hand" else "")
    if t == "draw":
        return f"      {who} draws {e['card']}"
    if t == "flip":
        verdict = "plays it" if e["legal"] else "cannot play it"
        return f"{e['turn']:>4}. {who} flips {e['card']} and {verdict}"
    if t == "burn":
        return f"      burn: {_cards(e['cards'])} leave the game"
    if t == "pickup":
        laid = f" (after laying {e['laid']})" if e.get("laid") else ""
        what = "the pile" if e.get("whole", True) else "the top of the pile"
        if e.get("move"):
            return f"{e['turn']:>4}. {who} takes {what}{laid}: {_cards(e['cards'])}"
        return f"      {who} takes {what}: {_cards(e['cards'])}"
    if t == "out":
        return f"      {who} is out ({_ordinal(e['place'])})"
    if t == "end":
        if e["draw"]:
            return f"Draw ({e['reason']}) after {e['decisions']} decisions"
        if e["loser"] is None:
            return (f"Winner: {rec.player_name(rec.out_order[0])} ({e['reason']}), the others "
                    f"share the loss, after {e['decisions']} decisions")
        return f"Loser: {rec.player_name(e['loser'])} after {e['decisions']} decisions"
    return f"{t}: {e}"


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _sample(state: State, rng: random.Random) -> int:
    """One chance outcome, with the pool's probabilities, from ``rng`` (integer draw)."""
    pool = state.pool
    x = rng.randrange(sum(pool))
    for r, c in enumerate(pool):
        if x < c:
            return r
        x -= c
    raise AssertionError("empty pool at a chance node")


def _player_view(state: State, p: int) -> dict:
    """A player's cards just after the deal; the face-up cards in the order dealt (rule 3
    looks for the first face-up 3 in dealing order)."""
    up = [r for q, r in state.dealt_up if q == p] if state.dealt_up else ranks_of(state.face_up[p])
    return {"hand": names(ranks_of(state.hands[p])), "face_up": names(up),
            "face_down": state.face_down[p]}


def play_game(rules: Rules, n_players: int, bots, seed: int = 0,
              turn_cap: int = DEFAULT_TURN_CAP, record: bool = True,
              check: bool = False, repetitions: int = 2) -> GameRecord:
    """Play one game of ``bots`` (one per seat: :class:`Bot` objects or names).

    :param record: keep the event list (off for fast benchmarks; the outcome is the same).
    :param check: call :meth:`State.check_cards` after every event.
    :param repetitions: occurrences of one play-phase decision position that make a draw.
    :raises RulesError: when ``rules`` cannot seat ``n_players``.
    :raises ValueError: for a wrong number of bots or an unknown bot name.
    """
    bots = [make_bot(b) if isinstance(b, str) else b for b in bots]
    if len(bots) != n_players:
        raise ValueError(f"{len(bots)} bots for {n_players} players")
    state = State.new_game(rules, n_players)
    chance_rng = random.Random(f"palace-chance-{seed}")
    bot_rng = random.Random(f"palace-bots-{seed}")
    rec = GameRecord(rules=rules, n_players=n_players, bots=[b.name for b in bots], seed=seed,
                     turn_cap=turn_cap, face_up=[()] * n_players)
    ev = rec.events.append if record else (lambda e: None)
    seen: dict = {}
    first_done = False

    while not state.is_terminal():
        if state.is_chance():
            kind, p, _ = state.pending
            rank = _sample(state, chance_rng)
            if kind == "deal":
                state.apply(rank)
                if state.phase != DEAL and record:
                    ev({"type": "deal", "players": [_player_view(state, q)
                                                    for q in range(n_players)],
                        "draw_pile": state.draw_pile})
            elif kind == "draw":
                state.apply(rank)
                ev({"type": "draw", "player": p, "card": rank_name(rank)})
            elif kind == "flip":
                legal = state.playable(rank)
                before = _snapshot(state)
                state.apply(rank)
                ev({"type": "flip", "player": p, "card": rank_name(rank), "legal": legal,
                    "turn": rec.decisions})
                _after_effects(state, before, p, ev, rec, flipped=None if legal else rank)
            else:  # start card
                burned_before = state.burned[rank]
                state.apply(rank)
                ev({"type": "start", "card": rank_name(rank),
                    "burned": state.burned[rank] > burned_before})
            if check:
                state.check_cards()
            continue

        p = state.current_player()
        if state.phase == PLAY_PHASE:
            if not first_done:
                first_done = True
                ev({"type": "first", "player": p})
            key = state.key()
            seen[key] = times = seen.get(key, 0) + 1
            if times >= repetitions:
                _end_draw(state, rec, "repetition", ev)
                return rec
            if rec.decisions >= turn_cap:
                _end_draw(state, rec, "turn cap", ev)
                return rec
        move = bots[p].choose(state, bot_rng)
        rec.decisions += 1
        if move.kind == LAYOUT:
            state.apply(move)
            rec.face_up[p] = tuple(move.layout)
            ev({"type": "layout", "player": p, "face_up": names(move.layout),
                "hand": names(ranks_of(state.hands[p]))})
        else:
            source = state.source(p)
            before = _snapshot(state)
            state.apply(move)
            ev({"type": "move", "player": p, "move": str(move), "source": source,
                "turn": rec.decisions})
            if move.kind != FLIP:
                _after_effects(state, before, p, ev, rec, move=move)
        if check:
            state.check_cards()

    rec.loss = state.result()
    rec.out_order = list(state.out_order)
    losers = [q for q in range(n_players) if rec.loss[q] == 1]
    rec.loser = losers[0] if losers else None
    if rec.loser is None:  # first_out_wins: shared loss
        rec.reason = "first out wins"
    ev({"type": "end", "draw": False, "loser": rec.loser, "loss": [float(x) for x in rec.loss],
        "decisions": rec.decisions, "reason": rec.reason})
    return rec


def _snapshot(state: State):
    return (list(state.pile), sum(state.burned), list(state.burned), len(state.out_order))


def _after_effects(state: State, before, p: int, ev, rec: GameRecord, move=None,
                   flipped: int | None = None) -> None:
    """Record what a play, pickup or flip did: burns, pickups, players going out.
    ``flipped`` is the card of a failed flip (which takes the pile)."""
    pile0, nburned0, burned0, nout0 = before
    failed_flip = flipped is not None
    if move is not None and move.kind == PICKUP or failed_flip:
        taken = list(pile0) + ([move.rank] if move is not None and move.rank else [])
        if failed_flip:
            taken = list(pile0) + [flipped]
            if state.rules.lenient_blind:
                taken = taken[-3:]
        ev({"type": "pickup", "player": p, "cards": names(taken), "whole": not state.pile,
            "laid": rank_name(move.rank) if move is not None and move.rank else None,
            "move": move is not None, "failed_flip": failed_flip, "turn": rec.decisions})
    elif sum(state.burned) > nburned0:
        cards = ranks_of([b - a for a, b in zip(burned0, state.burned)])
        ev({"type": "burn", "player": p, "cards": names(cards)})
    for q in state.out_order[nout0:]:
        ev({"type": "out", "player": q, "place": state.out_order.index(q) + 1})


def _end_draw(state: State, rec: GameRecord, reason: str, ev) -> None:
    active = state.active()
    share = Fraction(1, len(active))
    rec.loss = [share if q in active else Fraction(0) for q in range(rec.n_players)]
    rec.draw, rec.reason, rec.loser = True, reason, None
    rec.out_order = list(state.out_order)
    ev({"type": "end", "draw": True, "loser": None, "loss": [float(x) for x in rec.loss],
        "decisions": rec.decisions, "reason": reason})


def seats_for(bot_names, n_players: int, game: int) -> list[str]:
    """Seat assignment of game ``game``: the bot list cycled to ``n_players`` seats, then
    rotated by ``game`` seats, so each bot sits in each seat equally often."""
    cycled = [bot_names[i % len(bot_names)] for i in range(n_players)]
    k = game % n_players
    return cycled[k:] + cycled[:k]

"""Game records: a whole game, one event a line, in a text form people write by hand and a
JSON form programs exchange (docs/record.md is the contract).

Why a record of events and not of positions. A game is its deal plus what happened; every
position follows from those by the rules, and a position says nothing of what the seats
knew. So a record is a short header (the rules, the seats in turn order, the dealer, who
started, the cards dealt as far as they are known) and then the events in the words of
``palace live`` (``bob 7x2``, ``bob pickup``, ``bob flip 9``, ``bob draw 7 K``,
``bob up 10 A K``). An unknown card is ``?``. Replaying the events against the deal says
whether the record can happen (:mod:`palace_solver.review.replay`); this module is only the
format: reading, writing, and the checks that need nothing but the header (names, card
counts, the sizes of the deal).

The two forms hold the same things, so ``Record.from_json(r.to_json()) == r`` and
``parse_record(r.text()) == r`` for every record ``r``; :meth:`Record.text` is canonical, so
the text a program writes reads back and writes again byte for byte.

Imports only the model (:mod:`palace_solver.game`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .cards import CardError, counts_of, parse_rank, rank_name
from .position import InvalidPositionError, Position, parse_position, to_text
from .rules import Rules, RulesError

__all__ = ["FORMAT", "TEXT_HEAD", "RecordError", "Record", "SeatDeal", "parse_record",
           "read_record", "load_record", "cards_text", "parse_cards_text",
           "record_from_events", "write_record"]

#: ``format`` of the JSON form; the text form's first line is :data:`TEXT_HEAD`.
FORMAT = "palace-record-1"
TEXT_HEAD = "palace record 1"
#: How a game may start: from the deal (face-up cards laid as events), at the first play
#: (the cards after the swap), or from a position.
STARTS = ("deal", "play", "position")
#: Header keys with a meaning; any other ``key: value`` line is a tag, kept as written.
KEYS = ("rules", "seats", "dealer", "first", "viewer", "start", "draw pile", "position",
        "result")
_NAME = re.compile(r"^[^\s:#/?]+$")


class RecordError(ValueError):
    """A record that cannot be read or cannot happen. ``line`` (1-based, in the text form;
    for the JSON form the index of the event, counted from 1) and ``event`` (the line's
    text) say where; the message is one line: ``line 14 'bob 7x2': bob has no 7``."""

    def __init__(self, problem: str, line: int | None = None, event: str | None = None):
        self.problem, self.line, self.event = problem, line, event
        where = ""
        if line is not None:
            where = f"line {line}" + (f" {event!r}" if event is not None else "") + ": "
        elif event is not None:
            where = f"{event!r}: "
        super().__init__(where + problem)


def cards_text(cards) -> str:
    """``[7, None, None, 13]`` -> ``'7 ?2 K'``; an empty list is ``-``."""
    out, k = [], 0
    for c in list(cards) + [0]:
        if c is None:
            k += 1
            continue
        if k:
            out.append("?" if k == 1 else f"?{k}")
            k = 0
        if c:
            out.append(rank_name(c))
    return " ".join(out) or "-"


def parse_cards_text(text: str) -> list:
    """``'7 ?2 K'`` -> ``[7, None, None, 13]``; ``-`` or nothing is no card.

    :raises ValueError: naming a word that is not a card.
    """
    out: list = []
    for w in text.replace(",", " ").split():
        if w == "-":
            continue
        if w.startswith("?"):
            if w == "?":
                out.append(None)
            elif re.fullmatch(r"\?[0-9]{1,3}", w):
                out.extend([None] * int(w[1:]))
            else:
                raise ValueError(f"bad unknown-card count {w!r}")
            continue
        try:
            out.append(parse_rank(w))
        except CardError:
            raise ValueError(f"unknown card {w!r}") from None
    return out


def _json_cards(cards):
    return None if cards is None else [None if c is None else rank_name(c) for c in cards]


def _from_json_cards(v, where: str):
    if v is None:
        return None
    if not isinstance(v, list):
        raise RecordError(f"{where} must be a list of cards (null for an unknown card)")
    out = []
    for c in v:
        if c is None:
            out.append(None)
            continue
        try:
            out.append(parse_rank(str(c)))
        except CardError:
            raise RecordError(f"{where}: unknown card {c!r}") from None
    return out


@dataclass
class SeatDeal:
    """One seat's cards at the start, ``None`` for an unknown card: ``hand``, ``face_up``
    and ``face_down`` as dealt (``face_up`` in the order dealt), or, at a ``play`` start,
    as they are when play begins. ``together``: the seat's hand and face-up cards as dealt,
    when which were dealt face up is not known (``hand`` and ``face_up`` are then None)."""

    hand: list | None
    face_up: list | None
    face_down: list
    together: list | None = None

    def text(self) -> str:
        if self.together is not None:
            return cards_text(self.together) + (
                "" if all(c is None for c in self.face_down)
                else " // " + cards_text(self.face_down))
        return " / ".join(cards_text(x) for x in (self.hand, self.face_up, self.face_down))

    @classmethod
    def parse(cls, text: str, z: int) -> "SeatDeal":
        """``'5 8 Q / 4 9 J / ?3'`` (hand / face-up / face-down), or ``'5 8 Q 4 9 J'`` (hand
        and face-up together, face-down unknown)."""
        if "//" in text:
            both, down = text.split("//", 1)
            return cls(None, None, parse_cards_text(down), parse_cards_text(both))
        parts = text.split("/")
        if len(parts) == 1:
            return cls(None, None, [None] * z, parse_cards_text(parts[0]))
        if len(parts) == 2:
            parts.append("?%d" % z)
        if len(parts) != 3:
            raise ValueError("expected HAND / FACE-UP / FACE-DOWN")
        hand, up, down = (parse_cards_text(p) for p in parts)
        return cls(hand, up, down)

    def known(self) -> list[int]:
        """Every card of the seat that is known."""
        zones = [self.together] if self.together is not None else [self.hand, self.face_up]
        return [c for z in zones + [self.face_down] for c in z if c is not None]

    def to_json(self) -> dict:
        if self.together is not None:
            return {"hand_and_face_up": _json_cards(self.together),
                    "face_down": _json_cards(self.face_down)}
        return {"hand": _json_cards(self.hand), "face_up": _json_cards(self.face_up),
                "face_down": _json_cards(self.face_down)}

    @classmethod
    def from_json(cls, obj, i: int) -> "SeatDeal":
        if not isinstance(obj, dict):
            raise RecordError(f"deal[{i}] must be an object")
        extra = set(obj) - {"hand", "face_up", "face_down", "hand_and_face_up"}
        if extra:
            raise RecordError(f"deal[{i}]: unknown key {sorted(extra)[0]!r}")
        down = _from_json_cards(obj.get("face_down"), f"deal[{i}].face_down")
        if down is None:
            raise RecordError(f"deal[{i}] needs face_down (null for each unknown card)")
        if "hand_and_face_up" in obj:
            return cls(None, None, down,
                       _from_json_cards(obj["hand_and_face_up"], f"deal[{i}].hand_and_face_up"))
        hand = _from_json_cards(obj.get("hand"), f"deal[{i}].hand")
        up = _from_json_cards(obj.get("face_up"), f"deal[{i}].face_up")
        if hand is None or up is None:
            raise RecordError(f"deal[{i}] needs hand and face_up, or hand_and_face_up")
        return cls(hand, up, down)


@dataclass
class Record:
    """A game record (module doc; docs/record.md). Seats are named; ``dealer``, ``first``
    and ``viewer`` are seat indexes or None. ``events`` are the event lines as written
    (a line starting with ``#`` is a comment kept in place); ``lines`` their line numbers in
    the text read, for messages (not part of the record: equality ignores it)."""

    rules: Rules
    seats: list[str]
    events: list[str] = field(default_factory=list)
    dealer: int | None = None
    first: int | None = None
    viewer: int | None = None
    start: str = "deal"
    deal: list[SeatDeal] = field(default_factory=list)
    draw_pile: list | None = None
    position: Position | None = None
    result: str | None = None
    tags: dict = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)
    lines: list[int] | None = field(default=None, compare=False, repr=False)
    header_lines: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n(self) -> int:
        return len(self.seats)

    def line_of(self, i: int) -> int:
        """The line number of event ``i`` (its index + 1 for a record not read from text)."""
        return self.lines[i] if self.lines is not None and i < len(self.lines) else i + 1

    def seat(self, name: str) -> int | None:
        low = [s.lower() for s in self.seats]
        return low.index(name.lower()) if name.lower() in low else None

    # -- checks of the header alone ---------------------------------------------------------
    def validate(self) -> "Record":
        """The checks that need only the header: names, the start, the deal's sizes, no more
        cards of a rank than the deck holds.

        :raises RecordError: naming the header line at fault.
        """
        def err(msg, key=None):
            ln = self.header_lines.get(key)
            return RecordError(msg, ln[0] if ln else None, ln[1] if ln else None)

        try:
            self.rules.check_players(self.n)
        except RulesError as e:
            raise err(str(e), "seats") from None
        seen = set()
        for nm in self.seats:
            if not _NAME.match(nm):
                raise err(f"bad seat name {nm!r}: one word without : # / or ?", "seats")
            if nm.lower() in seen:
                raise err(f"two seats named {nm!r}", "seats")
            seen.add(nm.lower())
        for key in ("dealer", "first", "viewer"):
            v = getattr(self, key)
            if v is not None and not 0 <= v < self.n:
                raise err(f"{key} out of range", key)
        if self.start not in STARTS:
            raise err(f"start {self.start!r}: one of {', '.join(STARTS)}", "start")
        z, n = self.rules.zone_size, self.n
        deck = self.rules.deck_counts(n)
        if self.start == "position":
            if self.position is None:
                raise err("a record that starts from a position needs 'position: ...'",
                          "start")
            if self.deal or self.draw_pile is not None:
                raise err("a record from a position has no deal or draw pile lines", "position")
            names = [p.name for p in self.position.players]
            if len(names) != n or any(nm is not None and nm.lower() != s.lower()
                                      for nm, s in zip(names, self.seats)):
                raise err("the position's players are not the seats, in order", "position")
            return self
        if self.position is not None:
            raise err("'position:' needs 'start: position'", "position")
        if len(self.deal) != n:
            missing = [self.seats[i] for i in range(len(self.deal), n)]
            raise err(f"no cards line for {', '.join(missing) or 'a seat'} "
                      f"('{(missing or ['NAME'])[0]}: HAND / FACE-UP / FACE-DOWN', '?' for "
                      f"an unknown card)", "seats")
        hand_z, up_z = (2 * z, 0) if self.rules.choose_face_up else (z, z)
        for i, d in enumerate(self.deal):
            key = self.seats[i].lower()
            if d.together is not None:
                if self.start != "deal":
                    raise err(f"{self.seats[i]}: hand and face-up cards together are for a "
                              f"record from the deal", key)
                if len(d.together) != hand_z + up_z:
                    raise err(f"{self.seats[i]} was dealt {hand_z + up_z} cards in hand and "
                              f"face up, not {len(d.together)}", key)
            else:
                if self.start == "play":
                    sizes = (len(d.hand), len(d.face_up))
                    if sizes != (z, z):
                        raise err(f"{self.seats[i]} starts play with {z} cards in hand and "
                                  f"{z} face up, not {sizes[0]} and {sizes[1]}", key)
                elif (len(d.hand), len(d.face_up)) != (hand_z, up_z):
                    raise err(f"{self.seats[i]} was dealt {hand_z} cards in hand and {up_z} "
                              f"face up, not {len(d.hand)} and {len(d.face_up)}", key)
            if len(d.face_down) != z:
                raise err(f"{self.seats[i]} has {z} face-down cards, not {len(d.face_down)}",
                          key)
        stock = self.rules.deck_size(n) - 3 * z * n
        if self.draw_pile is not None:
            if self.start != "deal":
                raise err("the draw pile's order is for a record from the deal", "draw pile")
            if len(self.draw_pile) != stock:
                raise err(f"the draw pile holds {stock} cards, not {len(self.draw_pile)}",
                          "draw pile")
        known = [0] * len(deck)
        parts = [(self.seats[i].lower(), d.known()) for i, d in enumerate(self.deal)]
        parts.append(("draw pile", [c for c in self.draw_pile or () if c is not None]))
        for key, cards in parts:
            for c in cards:
                known[c] += 1
            for r, k in enumerate(known):
                if k > deck[r]:
                    raise err(f"{k} cards of rank {rank_name(r)} in the deal, the deck has "
                              f"{deck[r]}", key)
        return self

    # -- the JSON form ----------------------------------------------------------------------
    def to_json(self) -> dict:
        name = (lambda i: None if i is None else self.seats[i])
        return {"format": FORMAT, "rules": self.rules.to_json(), "seats": list(self.seats),
                "dealer": name(self.dealer), "first": name(self.first),
                "viewer": name(self.viewer), "start": self.start,
                "deal": [d.to_json() for d in self.deal],
                "draw_pile": _json_cards(self.draw_pile),
                "position": self.position.to_json() if self.position is not None else None,
                "result": self.result, "tags": dict(self.tags),
                "comments": list(self.comments), "events": list(self.events)}

    @classmethod
    def from_json(cls, obj) -> "Record":
        """:raises RecordError: for anything that is not a record (the header checked)."""
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise RecordError(f"not a game record (expected \"format\": \"{FORMAT}\")")
        known = {"format", "rules", "seats", "dealer", "first", "viewer", "start", "deal",
                 "draw_pile", "position", "result", "tags", "comments", "events"}
        extra = set(obj) - known
        if extra:
            raise RecordError(f"unknown key {sorted(extra)[0]!r}")
        try:
            rules = Rules.from_json(obj.get("rules", "standard"))
        except RulesError as e:
            raise RecordError(str(e)) from None
        seats = obj.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise RecordError("seats must be a list of names")
        rec = cls(rules, list(seats))

        def seat(key):
            v = obj.get(key)
            if v is None:
                return None
            i = rec.seat(v) if isinstance(v, str) else None
            if i is None:
                raise RecordError(f"{key} {v!r} is not a seat")
            return i

        rec.dealer, rec.first, rec.viewer = seat("dealer"), seat("first"), seat("viewer")
        rec.start = obj.get("start") or "deal"
        deal = obj.get("deal") or []
        if not isinstance(deal, list):
            raise RecordError("deal must be a list, one entry a seat")
        rec.deal = [SeatDeal.from_json(d, i) for i, d in enumerate(deal)]
        rec.draw_pile = _from_json_cards(obj.get("draw_pile"), "draw_pile")
        if obj.get("position") is not None:
            try:
                rec.position = Position.from_json(obj["position"])
            except InvalidPositionError as e:
                raise RecordError(f"position: {e}") from None
        for key in ("result",):
            v = obj.get(key)
            if v is not None and not isinstance(v, str):
                raise RecordError(f"{key} must be a string")
        rec.result = obj.get("result")
        tags = obj.get("tags") or {}
        if not isinstance(tags, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in tags.items()):
            raise RecordError("tags must map names to strings")
        rec.tags = dict(tags)
        for key in ("comments", "events"):
            v = obj.get(key) or []
            if not isinstance(v, list) or not all(isinstance(x, str) and "\n" not in x
                                                  for x in v):
                raise RecordError(f"{key} must be a list of one-line strings")
        rec.comments = list(obj.get("comments") or [])
        rec.events = list(obj.get("events") or [])
        return rec.validate()

    # -- the text form ----------------------------------------------------------------------
    def text(self) -> str:
        """The canonical text form (docs/record.md), ending with a newline."""
        out = [TEXT_HEAD] + [c if c.startswith("#") else "# " + c for c in self.comments]
        out.append(f"rules: {self.rules}")
        out.append("seats: " + " ".join(self.seats))
        for key in ("dealer", "first", "viewer"):
            v = getattr(self, key)
            if v is not None:
                out.append(f"{key}: {self.seats[v]}")
        if self.start != "deal":
            out.append(f"start: {self.start}")
        for nm, d in zip(self.seats, self.deal):
            out.append(f"{nm}: {d.text()}")
        if self.draw_pile is not None:
            out.append("draw pile: " + cards_text(self.draw_pile))
        if self.position is not None:
            out.append("position: " + to_text(self.position))
        if self.result is not None:
            out.append(f"result: {self.result}")
        for k, v in self.tags.items():
            out.append(f"{k}: {v}")
        out.append("")
        out.extend(self.events)
        return "\n".join(out) + "\n"


def _header_line(line: str):
    """``(key, value)`` of a header line, or None for an event line."""
    body = line.split("#", 1)[0]
    if ":" not in body:
        return None
    key, value = line.split(":", 1)
    key = key.strip()
    if not key or not re.fullmatch(r"[^\s:#]+( [^\s:#]+)*", key):
        return None
    return key, value.strip()


def parse_record(text: str) -> Record:
    """Read the text form (or the JSON form: text starting with ``{``).

    :raises RecordError: naming the line at fault.
    """
    t = str(text).lstrip("\ufeff")
    if t.strip().startswith("{"):
        try:
            obj = json.loads(t)
        except RecursionError:
            raise RecordError("bad JSON: nested too deeply") from None
        except ValueError as e:
            raise RecordError(f"bad JSON: {e}") from None
        return Record.from_json(obj)
    lines = t.splitlines()
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines) or lines[i].strip().lower() != TEXT_HEAD:
        raise RecordError(f"not a game record: the first line must be {TEXT_HEAD!r}",
                          i + 1 if i < len(lines) else None,
                          lines[i].strip() if i < len(lines) else None)
    i += 1
    header: list[tuple[int, str, str, str]] = []
    comments: list[str] = []
    while i < len(lines):
        raw = lines[i].strip()
        if not raw:
            i += 1
            continue
        if raw.startswith("#"):
            comments.append(raw)
            i += 1
            continue
        kv = _header_line(raw)
        if kv is None:
            break
        header.append((i + 1, raw, kv[0], kv[1]))
        i += 1
    events, numbers = [], []
    for j in range(i, len(lines)):
        raw = lines[j].strip()
        if not raw:
            continue
        if _header_line(raw) is not None:
            raise RecordError("a header line after the events (the header comes first)",
                              j + 1, raw)
        events.append(raw)
        numbers.append(j + 1)
    # First the rules and the seats: the other lines are read by them.
    by_key = {}
    for ln, raw, key, value in header:
        k = key.lower()
        if k in by_key and k in KEYS:
            raise RecordError(f"'{key}:' given twice", ln, raw)
        by_key.setdefault(k, (ln, raw, key, value))

    def get(k):
        return by_key.get(k)

    try:
        rules = Rules.from_json(get("rules")[3] if get("rules") else "standard")
    except RulesError as e:
        raise RecordError(str(e), get("rules")[0], get("rules")[1]) from None
    if get("seats") is None:
        raise RecordError("no 'seats:' line (the seats' names in turn order)")
    seats = get("seats")[3].replace(",", " ").split()
    rec = Record(rules, seats, events=events, lines=numbers, comments=comments)
    rec.header_lines = {k: (v[0], v[1]) for k, v in by_key.items()}
    low = [s.lower() for s in seats]
    z = rules.zone_size
    deals: dict[int, SeatDeal] = {}
    for ln, raw, key, value in header:
        k = key.lower()
        try:
            if k in ("rules", "seats"):
                continue
            if k in ("dealer", "first", "viewer"):
                if value.lower() not in low:
                    raise ValueError(f"{value!r} is not a seat (seats: {', '.join(seats)})")
                setattr(rec, k, low.index(value.lower()))
            elif k == "start":
                rec.start = value.lower()
            elif k == "draw pile":
                rec.draw_pile = parse_cards_text(value)
            elif k == "position":
                rec.position = parse_position(value)
            elif k == "result":
                rec.result = value
            elif k in low:
                deals[low.index(k)] = SeatDeal.parse(value, z)
            else:
                rec.tags[key] = value
        except (ValueError, InvalidPositionError) as e:
            raise RecordError(str(e), ln, raw) from None
    if rec.start != "position":
        # a seat without a cards line: every card of it unknown
        hand_z, up_z = (2 * z, 0) if rules.choose_face_up else (z, z)
        rec.deal = [deals.get(s) or SeatDeal([None] * hand_z, [None] * up_z, [None] * z)
                    for s in range(len(seats))]
    return rec.validate()


def read_record(path: str) -> Record:
    """The record in the file ``path`` (text or JSON form).

    :raises RecordError: an unreadable file, or as :func:`parse_record`.
    """
    try:
        with open(path, encoding="utf-8") as f:
            data = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read {path!r}: {getattr(e, 'strerror', None) or e}") \
            from None
    return parse_record(data)


def write_record(path: str, rec: Record) -> str:
    """Write ``rec`` to ``path``: the JSON form for ``*.json``, else the text form, through
    a temporary file of the same directory renamed over it (a reader sees the old file or
    the new one, whole).

    :raises OSError: when it cannot be written.
    """
    from ..atomic import write_atomic

    text = json.dumps(rec.to_json(), indent=1) + "\n" if path.lower().endswith(".json") \
        else rec.text()
    return write_atomic(path, text)


def load_record(arg: str) -> Record:
    """A record from a file name, or the text itself when it holds a newline."""
    if "\n" in arg or arg.lstrip().startswith("{"):
        return parse_record(arg)
    return read_record(arg)


# -- a record from a program's game ----------------------------------------------------------

def record_from_events(rules: Rules, names, events, *, result: str | None = None,
                       tags: dict | None = None, fill_seed: str = "") -> Record:
    """The full record of a game a program dealt and played: ``events`` every event from
    :meth:`State.new_game` on, a chance outcome as its rank and a decision as its
    :class:`~palace_solver.game.moves.Move` (or the move's text), as ``palace match``'s
    ``play_game(record=True)`` returns them. Seat 0 is left of the dealer (the dealer is
    the last seat).

    Everything is known: each seat's cards as dealt, and the draw pile in order. Cards the
    game never revealed (face-down cards not turned, the draw pile left when a draw
    stopped the game) are laid in a fixed order shuffled by ``fill_seed``: nobody saw
    them, so any order is the same game.

    :raises ValueError: for events the rules refuse.
    """
    import random

    from .moves import FLIP, LAYOUT, Move
    from .state import DEAL, FACE_UP, State

    names = list(names)
    n = len(names)
    s = State.new_game(rules, n)
    z = rules.zone_size
    hands = [[] for _ in range(n)]
    ups = [[] for _ in range(n)]
    flips = [[] for _ in range(n)]
    stock: list[int] = []
    lines: list[str] = []
    first = None
    draw_line = None          # [seat, cards] of the refill being written
    flip_of = None
    for ev in events:
        if s.is_chance():
            if isinstance(ev, str):
                ev = int(ev)
            kind, p, _ = s.pending
            if kind == "deal":
                who, zone = s.deal_queue[0]
                (ups if zone == FACE_UP else hands)[who].append(ev)
            elif kind == "draw":
                stock.append(ev)
                if draw_line is None or draw_line[0] != p:
                    draw_line = [p, []]
                    lines.append(draw_line)
                draw_line[1].append(ev)
            elif kind == "flip":
                flips[p].append(ev)
                lines.append(f"{names[p]} flip {rank_name(ev)}")
                flip_of = None
            elif kind == "start":
                stock.append(ev)
                lines.append(f"start {rank_name(ev)}")
            s.apply(ev)
            continue
        draw_line = None
        mv = ev if isinstance(ev, Move) else Move.parse(str(ev))
        p = s.to_move
        if s.phase != DEAL and mv.kind != LAYOUT and first is None:
            first = p
        s.apply(mv)
        if mv.kind == FLIP:
            flip_of = p
            continue
        lines.append(f"{names[p]} {mv}")
    if flip_of is not None:
        raise ValueError("the events end inside a flip")
    rest = [r for r in range(len(s.pool)) for _ in range(s.pool[r])]
    if s.phase == DEAL:
        raise ValueError("the events end inside the deal")
    random.Random(f"palace-record-fill-{fill_seed}").shuffle(rest)
    downs = []
    for p in range(n):
        k = z - len(flips[p])
        downs.append(flips[p] + rest[:k])
        rest = rest[k:]
    stock += rest
    events_text = [ln if isinstance(ln, str) else
                   f"{names[ln[0]]} draw " + " ".join(rank_name(r) for r in ln[1])
                   for ln in lines]
    deal = [SeatDeal(sorted(hands[p]), ups[p], downs[p]) for p in range(n)]
    rec = Record(rules, names, events=events_text, dealer=n - 1, first=first, deal=deal,
                 draw_pile=stock, result=result, tags=dict(tags or {}))
    return rec.validate()

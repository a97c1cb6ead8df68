"""What the reinforcement-learning environments share: the game driver, the action ids and
the observation array. Needs only numpy; the PettingZoo and Gymnasium adapters
(:mod:`.pettingzoo`, :mod:`.gymnasium`) are thin layers over :class:`Game`.

Why one driver. A learner, ``palace match`` and the package's own engine must agree on what a
game is, or a policy trained here is measured on another game there. So :class:`Game` plays
the reference engine (:class:`~palace_solver.game.state.State`) and ends a game exactly as
:func:`palace_solver.jobs.match.play_task` does: counting play decisions from the first one,
a game is a draw at its first repeated decision position (same :meth:`State.key`) or after
``cap`` decisions, and the loss of a draw is shared by the players still in. Without the
swap phase every seat lays out its face-up cards as ``greedy`` does, as a match's starts
do. Chance comes from a :class:`random.Random` drawn as ``palace match`` draws it (an integer
in the unseen pool), so a seed string of :func:`~palace_solver.jobs.match.make_start` deals
the same cards here.

Why the reference engine, and a compiled twin. An observation needs every seat's zones rank
by rank and the pile's order, which the compiled :class:`~palace_solver._engine.CState`
keeps in C or not at all (reading a state back, ``to_state()``, costs about 12 us, more than
a reference step), and the agents of ``palace match`` that play the other seats take a
``State``. So the state is the reference engine's; from the first play on a compiled twin
follows it event by event and gives the legal moves (``engine="auto"``, when the extension
is built), which saves one of the two move generations of a step (the reference ``apply``
checks legality itself, so a move the twin allowed and the reference did not would raise).

Actions (``Discrete(NUM_PLAY_ACTIONS)``, or more with the swap phase). The ids are those of
OpenSpiel's ``python_palace`` (:mod:`.openspiel_game`); ``RANK_INDEX`` is a rank's position
in ``2 3 4 5 6 7 8 9 10 J Q K A JK`` (0..13):

=====================  ===================================  ===========
move                   id                                   range
=====================  ===================================  ===========
play ``rank x count``  ``RANK_INDEX * 8 + count - 1``       0 .. 111
``pickup``             112                                  112
``flip``               113                                  113
``pickup <rank>``      ``114 + RANK_INDEX``                 114 .. 127
``up <r1> <r2> ..``    ``128 + i``, the i-th layout (swap)  128 ..
=====================  ===================================  ===========

Observation (``float32[OBS_SIZE]``, the same size for every player count and rule set):
:data:`SEAT_FIELDS` for each of :data:`MAX_SEATS` seats counted from the observer (the
observer first, then the next seat in seat order; seats beyond the player count are zeros),
then :data:`TABLE_FIELDS`. Per-rank fields have 14 entries in ``RANK_INDEX`` order.
:func:`layout` gives every field's slice; docs/rl.md has the table. An observation holds
only what its seat may see: its own hand, the others' publicly known hand cards
(:class:`PublicHands`, the rule of the package's ``HandTracker``: cards taken from the pile
or swapped in from the face-up cards, until played), every face-up card, the counts, the pile, the
burned cards and the public facts of the turn; never the unseen pool.
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np

from ..game.cards import NRANK, RANKS, rank_name
from ..game.moves import FLIP, LAYOUT, PICKUP, PLAY, IllegalMoveError, Move
from ..game.rules import VARIANTS, Rules
from ..game.state import FACE_DOWN, FACE_UP, HAND, LAYOUT_PHASE, PLAY_PHASE, State
from ..sample.policies import GreedyBot
from ..solve.engine import EngineUnavailableError, compiled

__all__ = ["CAP", "FLIP_ACTION", "LAYOUT_BASE", "MAX_COUNT", "MAX_SEATS", "NUM_PLAY_ACTIONS",
           "OBS_SIZE", "PICKUP_ACTION", "PICKUP_RANK_BASE", "RANK_INDEX", "SEAT_FIELDS",
           "SEAT_SIZE", "TABLE_FIELDS", "ActionCodec", "Game", "encode_observation", "layout",
           "make_rules", "observation_high"]

#: Decisions from the first play after which a game is a draw (``palace match``'s cap).
CAP = 400
#: Seats an observation has room for (the most Palace seats: RULES.md).
MAX_SEATS = 6
#: Cards of one rank a play can hold (two decks).
MAX_COUNT = 8
NR = len(RANKS)
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
PICKUP_ACTION = NR * MAX_COUNT                  # 112
FLIP_ACTION = PICKUP_ACTION + 1                 # 113
PICKUP_RANK_BASE = FLIP_ACTION + 1              # 114
LAYOUT_BASE = PICKUP_RANK_BASE + NR             # 128
#: The action space without the swap phase: every move of POSITION.md's play phase.
NUM_PLAY_ACTIONS = LAYOUT_BASE
assert RANKS == tuple(range(2, 16)), "counts[2:16] must be RANK_INDEX order"

#: (name, size, meaning) of one seat's block.
SEAT_FIELDS = (
    ("hand", NR, "the observer's hand (own block); the publicly known hand cards (others)"),
    ("hand_size", 1, "cards in the hand"),
    ("face_up", NR, "face-up cards"),
    ("face_down", 1, "face-down cards"),
    ("out", 1, "1 when the seat is out (safe)"),
    ("seated", 1, "1 for a seat of the game (0: padding beyond the player count)"),
    ("to_move", 1, "1 when the seat is to move"),
)
#: (name, size, meaning) of the table's fields, after the seats.
TABLE_FIELDS = (
    ("pile", NR, "the pile's cards"),
    ("pile_size", 1, "cards in the pile"),
    ("pile_top", 4 * NR, "the top four cards of the pile, one-hot each, top first"),
    ("to_beat", NR, "one-hot: the rank the next play must answer (none: empty pile, or only "
                    "transparent cards)"),
    ("top_run", 1, "cards of the top rank lying together on top of the pile"),
    ("burned", NR, "cards out of the game"),
    ("unseen", NR, "cards the observer has not seen: the deck minus its hand, every face-up "
                   "card, the pile, the burned cards and the others' known hand cards"),
    ("draw_pile", 1, "cards in the draw pile"),
    ("reversed", 1, "1 when play goes against seat order"),
    ("source", 3, "one-hot: the observer plays from its hand, face-up or face-down cards"),
    ("layout", 1, "1 in the swap phase (the observer chooses its face-up cards)"),
    ("last_player", MAX_SEATS, "one-hot, relative seat of who put the last played card on "
                               "the pile (after a burn or a pickup: none)"),
    ("rules", len(VARIANTS), "1 for each variant switch on, in RULES.md's order"),
)
SEAT_SIZE = sum(size for _, size, _ in SEAT_FIELDS)
OBS_SIZE = MAX_SEATS * SEAT_SIZE + sum(size for _, size, _ in TABLE_FIELDS)

# Bounds of the observation's entries, for every player count and rule set.
_RANK_MAX = 2 * 4          # a rank in two decks (jokers: 2)
_CARDS_MAX = 104           # two decks


def layout() -> dict[str, slice]:
    """Every field's slice of the observation: ``"seat0.hand"`` .. ``"seat5.to_move"``,
    then the table's fields by name.

    >>> layout()["seat1.face_up"], layout()["rules"].stop == OBS_SIZE
    (slice(48, 62, None), True)
    """
    out, i = {}, 0
    for k in range(MAX_SEATS):
        for name, size, _ in SEAT_FIELDS:
            out[f"seat{k}.{name}"] = slice(i, i + size)
            i += size
    for name, size, _ in TABLE_FIELDS:
        out[name] = slice(i, i + size)
        i += size
    assert i == OBS_SIZE
    return out


def observation_high() -> np.ndarray:
    """The largest value of each entry (every entry is at least 0)."""
    high = np.ones(OBS_SIZE, dtype=np.float32)
    sizes = {"hand": _RANK_MAX, "hand_size": _CARDS_MAX, "face_up": _RANK_MAX,
             "face_down": 4, "pile": _RANK_MAX, "pile_size": _CARDS_MAX,
             "top_run": _RANK_MAX, "burned": _RANK_MAX, "unseen": _RANK_MAX,
             "draw_pile": _CARDS_MAX}
    for name, sl in layout().items():
        high[sl] = sizes.get(name.rpartition(".")[2], 1)
    return high


def make_rules(variants=()) -> Rules:
    """A rule set from a :class:`Rules`, a list of switch names, or a string of names
    separated by commas or ``+`` (``""`` and ``"standard"``: the standard rules).

    :raises RulesError: for an unknown name.
    """
    if isinstance(variants, Rules):
        return variants
    if isinstance(variants, str):
        variants = variants.replace("+", ",").split(",")
    return Rules.with_variants([v.strip() for v in variants
                                if v.strip() and v.strip() != "standard"])


class ActionCodec:
    """The action ids of one game (module doc): ``encode(move) -> id``, ``decode(id)``.
    ``swap``: the layouts of the deal's swap phase get ids from :data:`LAYOUT_BASE`, every
    multiset of ``zone_size`` ranks the deck allows, in sorted order (OpenSpiel's ids)."""

    def __init__(self, rules: Rules, n: int, swap: bool = False):
        self.layouts: list[tuple] = []
        if swap:
            deck = rules.deck_counts(n)
            ranks = [r for r in RANKS if deck[r]]
            self.layouts = [c for c in itertools.combinations_with_replacement(
                ranks, rules.zone_size) if all(c.count(r) <= deck[r] for r in set(c))]
        self.layout_index = {c: i for i, c in enumerate(self.layouts)}
        self.num_actions = LAYOUT_BASE + len(self.layouts)
        self._moves = [self._decode(a) for a in range(self.num_actions)]
        #: Move -> id, for every move of the space
        self.ids = {m: a for a, m in enumerate(self._moves)}

    def encode(self, move: Move) -> int:
        """:raises ValueError: for a move outside the action space."""
        kind = move.kind
        if kind == PLAY and 1 <= move.count <= MAX_COUNT:
            return RANK_INDEX[move.rank] * MAX_COUNT + move.count - 1
        if kind == PICKUP:
            return PICKUP_RANK_BASE + RANK_INDEX[move.rank] if move.rank else PICKUP_ACTION
        if kind == FLIP:
            return FLIP_ACTION
        if kind == LAYOUT and move.layout in self.layout_index:
            return LAYOUT_BASE + self.layout_index[move.layout]
        raise ValueError(f"move {str(move)!r} has no action id")

    def decode(self, action) -> Move:
        """:raises ValueError: for an id outside ``[0, num_actions)``."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {action!r} is not a Palace action "
                             f"(0..{self.num_actions - 1})")
        return self._moves[a]

    def _decode(self, a: int) -> Move:
        if a < PICKUP_ACTION:
            return Move.play(RANKS[a // MAX_COUNT], a % MAX_COUNT + 1)
        if a == PICKUP_ACTION:
            return Move.pickup()
        if a == FLIP_ACTION:
            return Move.flip()
        if a < LAYOUT_BASE:
            return Move.pickup(RANKS[a - PICKUP_RANK_BASE])
        return Move.up(self.layouts[a - LAYOUT_BASE])


# -- the observation --------------------------------------------------------------------------
_ONE_HOT = [[0] * NR for _ in range(16)]
for _r in RANKS:
    _ONE_HOT[_r][RANK_INDEX[_r]] = 1
_NONE = [0] * NR
_EMPTY_SEAT = [0] * SEAT_SIZE
_SEAT_HOT = [[int(i == k) for i in range(MAX_SEATS)] for k in range(MAX_SEATS)]
_NO_SEAT = [0] * MAX_SEATS
_SOURCE = {HAND: [1, 0, 0], FACE_UP: [0, 1, 0], FACE_DOWN: [0, 0, 1], None: [0, 0, 0]}
_RULE_BITS: dict = {}


def _rule_bits(rules: Rules) -> list[int]:
    bits = _RULE_BITS.get(rules)
    if bits is None:
        bits = _RULE_BITS[rules] = [int(getattr(rules, v)) for v in VARIANTS]
    return bits


def _seen_index() -> np.ndarray:
    """Indices of the per-rank fields whose cards the observer has seen, one row each."""
    lay = layout()
    rows = [lay[f"seat{k}.{f}"] for k in range(MAX_SEATS) for f in ("hand", "face_up")]
    rows += [lay["pile"], lay["burned"]]
    return np.array([np.arange(sl.start, sl.stop) for sl in rows])


_SEEN = _seen_index()
_UNSEEN = layout()["unseen"]
_DECKS: dict = {}


def encode_observation(state: State, seat: int, known) -> np.ndarray:
    """The observation of ``seat`` (module doc). ``known[q]``: counts per rank of the
    publicly known cards of q's hand (``known`` of :class:`PublicHands` or ``HandTracker``).
    Reads nothing that ``seat`` has not seen: never another seat's hand beyond ``known``, nor the unseen pool
    (``unseen`` is the deck minus the fields above it)."""
    n = state.n
    hands, ups, downs, outs = state.hands, state.face_up, state.face_down, state.out
    to_move = state.to_move
    v: list = []
    add, put = v.extend, v.append
    for k in range(MAX_SEATS):
        if k >= n:
            add(_EMPTY_SEAT)
            continue
        q = (seat + k) % n
        add(hands[q][2:] if k == 0 else known[q][2:])
        put(sum(hands[q]))
        add(ups[q][2:])
        put(downs[q])
        put(outs[q])
        put(1)
        put(to_move == q)
    pile = state.pile
    pc = [0] * 16
    for r in pile:
        pc[r] += 1
    add(pc[2:])
    put(len(pile))
    for i in range(1, 5):
        add(_ONE_HOT[pile[-i]] if len(pile) >= i else _NONE)
    beat = state.effective_top()
    add(_NONE if beat is None else _ONE_HOT[beat])
    put(state.top_run())
    add(state.burned[2:])
    add(_NONE)                                   # unseen, filled below
    put(state.draw_pile)
    put(state.direction < 0)
    play = state.phase == PLAY_PHASE
    add(_SOURCE[state.source(seat) if play and not outs[seat] else None])
    put(state.phase == LAYOUT_PHASE)
    last = state.last_player
    add(_NO_SEAT if last is None else _SEAT_HOT[(last - seat) % n])
    add(_rule_bits(state.rules))
    obs = np.frombuffer(bytearray(v), dtype=np.uint8).astype(np.float32)
    deck = _DECKS.get((state.rules, n))
    if deck is None:
        deck = _DECKS[(state.rules, n)] = np.array(state.rules.deck_counts(n)[2:],
                                                    dtype=np.float32)
    obs[_UNSEEN] = deck - obs[_SEEN].sum(axis=0)
    return obs


# -- the game ---------------------------------------------------------------------------------
class PublicHands:
    """The publicly known cards of each hand, counts per rank, by the rule of the package's
    :class:`~palace_solver.agents.method_bots.HandTracker` (which sits above this layer):
    cards that enter a hand by a deal or a refill draw are seen by their owner only; every
    other card that enters a hand (a pickup, a failed flip, a face-up card swapped in at the
    layout) is public; playing ``k`` cards of a rank lowers its known count by ``k``, never
    below zero. Tests check that both agree at every event of random games.

    What it leaves out is HandTracker's record of the positions played (a copy of the state
    per decision, which searching agents read): the driver keeps what its end rules need.
    """

    def __init__(self, n: int):
        self.known = [[0] * NRANK for _ in range(n)]

    def apply(self, state: State, event) -> None:
        """``state.apply(event)`` with the bookkeeping around it."""
        private = state.is_chance() and state.pending is not None \
            and state.pending[0] in ("deal", "draw")
        old = [h[:] for h in state.hands]
        state.apply(event)
        for was, now, kn in zip(old, state.hands, self.known):
            if was == now:
                continue
            for r in RANKS:
                d = now[r] - was[r]
                if d > 0 and not private:
                    kn[r] += d
                elif d < 0 and kn[r]:
                    kn[r] = max(0, kn[r] + d)


def draw_rank(state: State, rng: random.Random) -> int:
    """One chance outcome with the pool's probabilities, drawn as ``palace match`` draws it
    (an integer below the pool's size)."""
    x = rng.randrange(sum(state.pool))
    for r, c in enumerate(state.pool):
        if x < c:
            return r
        x -= c
    raise AssertionError("empty pool at a chance node")


class Game:
    """One game as the environments play it (module doc).

    After :meth:`reset` and after every :meth:`play`, the game waits at a decision of
    :attr:`to_move` or is over (:attr:`over`; :attr:`reason` ``"end"``, ``"repetition"``
    or ``"cap"``; :attr:`loss` each seat's loss share). Listeners (objects with
    ``observe(event)``) are fed every event from the deal on, chance ranks as ints and
    decisions as Moves, as ``palace match`` feeds its agents.

    ``tracker``: the class that keeps the public knowledge of the hands (:class:`PublicHands`,
    or the package's ``HandTracker`` for agents that read the positions played).

    Attributes kept for the caller: ``state`` (do not mutate), ``tracker`` (the public
    knowledge of the hands, ``tracker.known``), ``events`` (every event, for a replay), ``history`` (the public
    record: ``(seat, move, card)`` per decision, ``card`` the face-down card a flip turned
    over, else None; a start card is ``(None, "start", card)``), ``decisions`` (play
    decisions so far), ``engine`` (``"cython"`` with the compiled twin, else ``"python"``).

    :raises RulesError: rules that cannot seat ``n`` players.
    :raises ValueError: more than :data:`MAX_SEATS` players, a bad cap or engine.
    :raises EngineUnavailableError: ``engine="cython"`` without the compiled extension.
    """

    def __init__(self, rules: Rules, n: int, *, swap: bool = False, cap: int = CAP,
                 engine: str = "auto", tracker=PublicHands):
        rules.check_players(n)
        if n > MAX_SEATS:
            raise ValueError(f"{n} players: the environments seat at most {MAX_SEATS}")
        if cap < 1:
            raise ValueError(f"cap must be positive, not {cap}")
        self.rules, self.n, self.swap, self.cap = rules, n, swap, cap
        self._tracker = tracker
        self.codec = ActionCodec(rules, n, swap)
        self.state: State | None = None
        if engine not in ("auto", "cython", "python"):
            raise ValueError(f"engine {engine!r}: auto, cython or python")
        self._compiled = None
        if engine != "python":
            try:
                self._compiled = compiled().CState
            except EngineUnavailableError:
                if engine == "cython":
                    raise
        self.engine = "python" if self._compiled is None else "cython"
        self._twin = None

    def reset(self, rng: random.Random, listeners=()) -> None:
        """Deal a new game with chance from ``rng`` and go to the first decision."""
        self.rng = rng
        self.listeners = list(listeners)
        self.state = State.new_game(self.rules, self.n)
        self.tracker = self._tracker(self.n)
        self.events: list = []
        self.history: list = []
        self.decisions = 0
        self.seen: set = set()
        self.over = False
        self.reason: str | None = None
        self.loss: list[Fraction] | None = None
        self._moves: list[Move] = []
        self._actions: list[int] = []
        self._legal: dict = {}
        self._twin = None
        self._advance()

    @property
    def to_move(self) -> int | None:
        """The seat to decide, None once the game is over."""
        return None if self.over else self.state.to_move

    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move, in the engine's order (none once over)."""
        return list(self._moves)

    def legal_actions(self) -> list[int]:
        """Their action ids, in the same order."""
        return list(self._actions)

    def is_legal(self, action) -> bool:
        """Whether ``action`` (an id) is legal for the seat to move."""
        return action in self._legal

    def action_mask(self) -> np.ndarray:
        """int8[num_actions]: 1 for the legal actions of the seat to move."""
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        mask[self._actions] = 1
        return mask

    def observation(self, seat: int) -> np.ndarray:
        return encode_observation(self.state, seat, self.tracker.known)

    def play(self, move) -> None:
        """The decision of the seat to move (a Move, its text or an action id), then the
        chance events it leads to and the end rules.

        :raises IllegalMoveError: for a move that is not legal here (nothing changes).
        """
        if self.over:
            raise IllegalMoveError("the game is over")
        s = self.state
        if isinstance(move, str):
            move = Move.parse(move)
        if isinstance(move, Move):
            action = self.codec.ids.get(move)
        else:
            try:
                action = int(move)
            except (TypeError, ValueError):
                action = None
        found = self._legal.get(action)
        if found is None:
            raise IllegalMoveError(f"illegal move {move!r} in {s.describe()}")
        move = found
        p = s.to_move
        if s.phase == PLAY_PHASE:
            self.decisions += 1
        self._event(move)
        self.history.append((p, str(move), None))
        if move.kind == FLIP:
            rank = draw_rank(s, self.rng)
            self.history[-1] = (p, "flip", rank_name(rank))
            self._event(rank)
        self._advance()

    # -- internals --------------------------------------------------------------------------
    def _event(self, ev) -> None:
        self.tracker.apply(self.state, ev)
        if self._twin is not None:
            self._twin.apply(ev)
        self.events.append(ev)
        for w in self.listeners:
            w.observe(ev)

    def _advance(self) -> None:
        """Chance events, greedy layouts (no swap), then the end rules of palace match."""
        s = self.state
        while True:
            if s.is_chance():
                start = s.pending[0] == "start"
                rank = draw_rank(s, self.rng)
                self._event(rank)
                if start:
                    self.history.append((None, "start", rank_name(rank)))
                continue
            if s.phase == LAYOUT_PHASE and not self.swap:
                p = s.to_move
                move = GreedyBot().choose(s, self.rng)
                self._event(move)
                self.history.append((p, str(move), None))
                continue
            break
        if s.is_terminal():
            self._finish("end", list(s.result()))
        elif s.phase == PLAY_PHASE:
            if self.decisions >= self.cap:
                self._draw("cap")
                return
            key = s.key()
            if key in self.seen:
                self._draw("repetition")
                return
            self.seen.add(key)
        if not self.over:
            if self._twin is None and self._compiled is not None and s.phase == PLAY_PHASE:
                self._twin = self._compiled.from_state(s)
            self._moves = (self._twin or s).legal_moves()
            ids = self.codec.ids
            self._actions = [ids[m] for m in self._moves]
            self._legal = dict(zip(self._actions, self._moves))

    def _draw(self, reason: str) -> None:
        active = self.state.active()
        share = Fraction(1, len(active))
        self._finish(reason, [share if q in active else Fraction(0) for q in range(self.n)])

    def _finish(self, reason: str, loss) -> None:
        self.over, self.reason, self.loss = True, reason, loss
        self._moves, self._actions, self._legal = [], [], {}

    def rewards(self) -> list[float]:
        """1 - each seat's loss share once the game is over, else zeros."""
        if not self.over:
            return [0.0] * self.n
        return [1.0 - float(x) for x in self.loss]

    def render(self, viewer: int | None = None) -> str:
        """The table as text: every hand (``viewer`` None) or as ``viewer`` sees it."""
        s = self.state
        lines = [f"Palace {self.n}p, rules {self.rules}: decision {self.decisions}/{self.cap}"
                 + (f", over ({self.reason}), loss "
                    + " ".join(str(x) for x in self.loss) if self.over
                    else f", P{s.to_move} to move")]
        for q in range(self.n):
            if viewer is None or viewer == q:
                hand = _names(s.hands[q])
            else:
                hand = f"{sum(s.hands[q])} cards, known: {_names(self.tracker.known[q])}"
            lines.append(f"  P{q}{' (out)' if s.out[q] else ''}: hand {hand} | up "
                         f"{_names(s.face_up[q])} | down {s.face_down[q]}")
        lines.append(f"  pile {' '.join(rank_name(r) for r in s.pile) or '-'} | burned "
                     f"{sum(s.burned)} | draw pile {s.draw_pile}")
        if not self.over:
            lines.append("  legal: " + ", ".join(str(m) for m in self._moves))
        return "\n".join(lines)


def render_as(game: Game, mode: str | None) -> str | None:
    """What an environment's ``render()`` gives in ``mode``: the table's text ("ansi"),
    printed ("human"), or a warning without a mode, as Gymnasium's environments do."""
    if mode is None:
        import gymnasium
        gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi' "
                              "or 'human' to the environment")
        return None
    text = game.render()
    if mode == "ansi":
        return text
    print(text)
    return None


def _names(counts) -> str:
    return " ".join(rank_name(r) for r in RANKS for _ in range(counts[r])) or "-"

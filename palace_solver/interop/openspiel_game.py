"""Palace as an OpenSpiel game: ``pyspiel.load_game("python_palace(players=3,variants=seven_low)")``.

Importing this module registers the game ``python_palace`` with OpenSpiel. It wraps the
reference engine (:mod:`palace_solver.game.state`) step for step: the same decisions, the same
chance events (one card revealed from the unseen pool per deal, refill draw, flip or start
card), the same results. The core package never imports ``pyspiel``; only this module does.

Parameters
----------
``players``   2 to 6 (default 2).
``variants``  switch names of RULES.md separated by commas (or ``+``, the form the game
              string uses, since OpenSpiel splits game strings at commas:
              ``python_palace(players=3,variants=seven_low+invisible_8)``); ``""`` or
              ``"standard"`` for none.
``max_turns`` turn cap (default 1000): the game ends after this many player decisions.
              A game still running then is a draw: the players still in share the loss
              equally, as RULES.md scores a game that would go on forever.

Game type: sequential, imperfect information, explicit stochastic chance, constant-sum
utilities. ``returns()`` is ``1 - loss share`` for each player, so the returns always sum to
``players - 1`` and lie in [0, 1].

Action encoding (player actions; identical ids for every rule set except the layout block)
------------------------------------------------------------------------------------------
``RANK_INDEX`` is the position of a rank in ``cards.RANKS`` (2 3 4 5 6 7 8 9 10 J Q K A JK
are 0..13). ``MAX_COUNT = 8`` (two decks hold 8 of a rank).

=====================  ==========================================  =============
move                   id                                          range
=====================  ==========================================  =============
play ``rank x count``  ``RANK_INDEX * 8 + count - 1``                0 .. 111
``pickup``             112                                          112
``flip``               113                                          113
``pickup <rank>``      ``114 + RANK_INDEX`` (face-up stage)        114 .. 127
``up <r1> <r2> ..``    ``128 + i``: i-th multiset of ``zone_size``  128 ..
                       ranks of the game's deck (no rank more
                       often than the deck holds), in sorted order
=====================  ==========================================  =============

``num_distinct_actions`` is 128 + the number of layouts: 455 layouts for the standard deck
(583 actions), 1820 with ``four_cards``, 559 with ``jokers``. Chance outcomes are ranks: the
chance action id is the rank itself (2..15, ``max_chance_outcomes = 16``).

What a player sees
------------------
The observation string of player ``p`` is the current table from ``p``'s seat: ``p``'s own
hand; for every other player the hand size and the cards of it that are publicly known
(cards taken from the pile, face-up cards swapped into the hand at the layout; a known
count drops by the cards of that rank the player plays, never below zero); everyone's
face-up cards and face-down counts; the pile; the burned cards; the draw pile size. The
information state string (perfect recall) is that observation plus the whole action
history, in which a chance outcome shows as ``?`` unless ``p`` saw it: deals of face-up
cards, flips and start cards are public; deals to a hand and refill draws are seen by that
hand's owner only.

Resampling for ISMCTS
---------------------
:meth:`PalaceState.resample_from_infostate` keeps everything ``player_id`` knows and
redraws the rest: the opponents' hand cards that are not publicly known are exchangeable
with the unseen pool (draw pile and face-down cards), so they are pooled, shuffled with the
given sampler, and dealt back into the history slots (hidden deals and draws) that those
cards came from. The new history is then replayed on a fresh state, so the sample is a
genuine state of the game with the same information state for ``player_id``. The sampler
is uniform over the exchangeable cards, which ignores two things the history can reveal
about hidden cards: who started (rule 3 looks at hands when no face-up card decides) and,
under ``must_play``, that a pickup from the hand was forced. A draw that contradicts the
history on those points fails the replay and is redrawn (rejection); after
``RESAMPLE_TRIES`` failures the true state itself is returned (it is always consistent)
and ``PalaceState.resample_fallbacks`` counts it. Opponents' strategies are not modelled.
The method is a Python method: OpenSpiel's Python ISMCTS (``open_spiel.python.algorithms.
ismcts``) calls it; C++ algorithms running on this Python game do not see it.

Observers: ``make_py_observer`` gives strings only (no tensors). Private info
``SINGLE_PLAYER`` is the view above, ``NONE`` the public view (no hand shown), ``ALL_PLAYERS``
every hand; ``perfect_recall`` adds the history.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - exercised only without open_spiel
    raise ImportError("palace_solver.interop.openspiel_game needs OpenSpiel (the open_spiel package); "
                      "install it with `pip install .[openspiel]`") from e

from ..game.cards import NRANK, RANKS, names, rank_name
from ..game.moves import FLIP, LAYOUT, PICKUP, PLAY, Move
from ..game.rules import Rules, RulesError
from ..game.state import HAND, State

SHORT_NAME = "python_palace"
DEFAULT_MAX_TURNS = 1000
RESAMPLE_TRIES = 200
ALL = -2   # the viewer of a perfect-information observer (private_info ALL_PLAYERS)

MAX_COUNT = 8
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
PICKUP_ACTION = len(RANKS) * MAX_COUNT          # 112
FLIP_ACTION = PICKUP_ACTION + 1                 # 113
PICKUP_RANK_BASE = FLIP_ACTION + 1              # 114
LAYOUT_BASE = PICKUP_RANK_BASE + len(RANKS)     # 128
assert LAYOUT_BASE == 128

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Palace (Shithead)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification={"players": 2, "variants": "", "max_turns": DEFAULT_MAX_TURNS})


def parse_variants(text: str) -> Rules:
    """``"seven_low,invisible_8"`` (``+`` also separates; ``""``/``"standard"``: none).

    :raises RulesError: for an unknown name.
    """
    parts = [p.strip() for p in str(text).replace("+", ",").split(",") if p.strip()]
    return Rules.with_variants([p for p in parts if p != "standard"])


class ActionCodec:
    """The action ids of one game (see the module docstring)."""

    def __init__(self, rules: Rules, n: int):
        deck = rules.deck_counts(n)
        ranks = [r for r in RANKS if deck[r]]
        z = rules.zone_size
        self.layouts = [c for c in itertools.combinations_with_replacement(ranks, z)
                        if all(c.count(r) <= deck[r] for r in set(c))]
        self.layout_index = {c: i for i, c in enumerate(self.layouts)}
        self.num_actions = LAYOUT_BASE + len(self.layouts)

    def encode(self, move: Move) -> int:
        """:raises ValueError: for a move outside the action space."""
        if move.kind == PLAY and 1 <= move.count <= MAX_COUNT:
            return RANK_INDEX[move.rank] * MAX_COUNT + move.count - 1
        if move.kind == PICKUP:
            return PICKUP_RANK_BASE + RANK_INDEX[move.rank] if move.rank else PICKUP_ACTION
        if move.kind == FLIP:
            return FLIP_ACTION
        if move.kind == LAYOUT and move.layout in self.layout_index:
            return LAYOUT_BASE + self.layout_index[move.layout]
        raise ValueError(f"move {str(move)!r} has no action id")

    def decode(self, action: int) -> Move:
        """:raises ValueError: for an id outside ``[0, num_actions)``."""
        a = int(action)
        if 0 <= a < PICKUP_ACTION:
            return Move.play(RANKS[a // MAX_COUNT], a % MAX_COUNT + 1)
        if a == PICKUP_ACTION:
            return Move.pickup()
        if a == FLIP_ACTION:
            return Move.flip()
        if PICKUP_RANK_BASE <= a < LAYOUT_BASE:
            return Move.pickup(RANKS[a - PICKUP_RANK_BASE])
        if LAYOUT_BASE <= a < self.num_actions:
            return Move.up(self.layouts[a - LAYOUT_BASE])
        raise ValueError(f"action {action!r} is not a Palace action (0..{self.num_actions - 1})")


class PalaceGame(pyspiel.Game):
    """Palace for one rule set and player count."""

    def __init__(self, params=None):
        params = dict(params or {})
        n = int(params.get("players", 2))
        rules = parse_variants(params.get("variants", ""))
        max_turns = int(params.get("max_turns", DEFAULT_MAX_TURNS))
        if not 2 <= n <= 6:
            raise RulesError(f"{SHORT_NAME}: players must be 2..6, not {n}")
        if max_turns < 1:
            raise ValueError(f"{SHORT_NAME}: max_turns must be positive, not {max_turns}")
        rules.check_players(n)
        codec = ActionCodec(rules, n)
        # OpenSpiel's game strings split parameters at commas: keep the variants in the
        # canonical '+'-separated form so that str(game) loads the same game again.
        params["variants"] = "+".join(rules.variants())
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.num_actions,
            max_chance_outcomes=NRANK,
            num_players=n,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=float(n - 1),
            max_game_length=max_turns)
        super().__init__(_GAME_TYPE, info, params)
        self.rules, self.n, self.max_turns, self.codec = rules, n, max_turns, codec

    def new_initial_state(self):
        return PalaceState(self)

    def max_chance_nodes_in_history(self):
        # Every chance event reveals one card of the deck.
        return self.rules.deck_size(self.n)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        return PalaceObserver(iig_obs_type)


class _Data:
    """Everything a state holds, in one object that OpenSpiel's ``clone`` (a ``deepcopy`` of
    the Python attributes) copies quickly."""

    __slots__ = ("s", "hist", "turns", "capped", "loss", "known", "slots")

    def __init__(self, s: State):
        n = s.n
        self.s = s                 # the reference engine's state
        self.hist = []             # (player, action, seer): seer None = public chance outcome
        self.turns = 0             # player decisions so far
        self.capped = False        # ended by the turn cap
        self.loss = None           # loss shares once ended by the cap
        self.known = [[0] * NRANK for _ in range(n)]   # publicly known hand cards
        self.slots = [[[] for _ in range(NRANK)] for _ in range(n)]  # hidden hand cards:
        # slots[q][r] lists the history indices of q's hidden deals/draws still held as r

    def __deepcopy__(self, memo):
        d = _Data.__new__(_Data)
        d.s = self.s.clone()
        d.hist = self.hist[:]
        d.turns, d.capped = self.turns, self.capped
        d.loss = None if self.loss is None else self.loss[:]
        d.known = [k[:] for k in self.known]
        d.slots = [[sl[:] for sl in q] for q in self.slots]
        return d

    # Pickling (OpenSpiel's serialization) goes through the same fields.
    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, st):
        for k, v in st.items():
            setattr(self, k, v)


class PalaceState(pyspiel.State):
    """A Palace game in progress, as an OpenSpiel state."""

    #: How many times resample_from_infostate fell back to the true state (see module doc).
    resample_fallbacks = 0

    def __init__(self, game: PalaceGame):
        super().__init__(game)
        self._d = _Data(State.new_game(game.rules, game.n))

    # -- accessors ------------------------------------------------------------------------
    @property
    def engine(self) -> State:
        """The reference engine's state (do not mutate)."""
        return self._d.s

    @property
    def turns(self) -> int:
        """Player decisions so far (what ``max_turns`` caps)."""
        return self._d.turns

    def move_of(self, action: int) -> Move:
        return self.get_game().codec.decode(action)

    def action_of(self, move) -> int:
        if isinstance(move, str):
            move = Move.parse(move)
        return self.get_game().codec.encode(move)

    # -- OpenSpiel API --------------------------------------------------------------------
    def current_player(self):
        d = self._d
        if d.capped or d.s.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if d.s.is_chance():
            return pyspiel.PlayerId.CHANCE
        return d.s.current_player()

    def is_terminal(self):
        return self._d.capped or self._d.s.is_terminal()

    def _legal_actions(self, player):
        assert player >= 0
        codec = self.get_game().codec
        return sorted(codec.encode(m) for m in self._d.s.legal_moves())

    def chance_outcomes(self):
        assert self.is_chance_node()
        return [(r, float(p)) for r, p in self._d.s.chance_outcomes()]

    def _apply_action(self, action):
        d = self._d
        s = d.s
        before = [h[:] for h in s.hands]
        if s.is_chance():
            kind, who, _ = s.pending
            if kind == "deal":
                who, zone = s.deal_queue[0]
                seer = who if zone == HAND else None
            else:
                seer = who if kind == "draw" else None
            s.apply(int(action))
            player = pyspiel.PlayerId.CHANCE
        else:
            seer = None
            player = s.current_player()
            s.apply(self.get_game().codec.decode(action))
            d.turns += 1
        idx = len(d.hist)
        d.hist.append((player, int(action), seer))
        self._track_hands(before, idx, action if seer is not None else None, seer)
        if not s.is_terminal() and d.turns >= self.get_game().max_turns:
            active = s.active()
            share = Fraction(1, len(active))
            d.loss = [share if q in active else Fraction(0) for q in range(s.n)]
            d.capped = True

    def _track_hands(self, before, idx, hidden_rank, seer) -> None:
        """Keep ``known`` and ``slots`` in step with the hands (see :class:`_Data`)."""
        d = self._d
        for q, (old, new) in enumerate(zip(before, d.s.hands)):
            if old == new:
                continue
            known, slots = d.known[q], d.slots[q]
            for r in RANKS:
                diff = new[r] - old[r]
                if diff > 0:
                    if q == seer and r == hidden_rank and diff == 1:
                        slots[r].append(idx)
                    else:
                        known[r] += diff
                elif diff < 0:
                    take = min(-diff, known[r])
                    known[r] -= take
                    for _ in range(-diff - take):
                        slots[r].pop()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance:{rank_name(int(action))}"
        return str(self.get_game().codec.decode(action))

    def returns(self):
        d = self._d
        if d.capped:
            return [1.0 - float(x) for x in d.loss]
        if d.s.is_terminal():
            return d.s.returns()
        return [0.0] * d.s.n

    def loss_shares(self) -> list[Fraction]:
        """Each player's loss share (exact); only for terminal states."""
        d = self._d
        return d.loss[:] if d.capped else d.s.result()

    def __str__(self):
        d = self._d
        s = d.s
        lines = [f"phase {s.phase} to_move {self.current_player()} turns {d.turns}"
                 f"{' capped' if d.capped else ''} direction {s.direction} pending {s.pending}"
                 f" last {s.last_player}"]
        for q in range(s.n):
            lines.append(f"P{q}{' out' if s.out[q] else ''}: hand {_cards(s.hands[q])} "
                         f"up {_cards(s.face_up[q])} down {s.face_down[q]}")
        lines.append(f"pile {' '.join(names(s.pile)) or '-'} | burned {_cards(s.burned)}"
                     f" | draw {s.draw_pile} | unseen {_cards(s.pool)}")
        return "\n".join(lines)

    # -- views --------------------------------------------------------------------------
    def view_string(self, player: int) -> str:
        """The table as ``player`` sees it now (-1: public view only; ``ALL``: every hand)."""
        d = self._d
        s = d.s
        lines = [f"me {player} phase {s.phase} to_move {self.current_player()} "
                 f"turns {d.turns}/{self.get_game().max_turns} direction {s.direction} "
                 f"last {s.last_player} pending {s.pending}"]
        for q in range(s.n):
            if q == player or player == ALL:
                hand = _cards(s.hands[q])
            else:
                hand = f"{sum(s.hands[q])} known {_cards(d.known[q])}"
            lines.append(f"P{q}{' out' if s.out[q] else ''}: hand {hand} "
                         f"up {_cards(s.face_up[q])} down {s.face_down[q]}")
        lines.append(f"pile {' '.join(names(s.pile)) or '-'} | burned {_cards(s.burned)}"
                     f" | draw {s.draw_pile}")
        return "\n".join(lines)

    def history_string(self, player: int) -> str:
        """The action history with the chance outcomes ``player`` did not see as ``?``."""
        codec = self.get_game().codec
        out = []
        for pl, a, seer in self._d.hist:
            if pl == pyspiel.PlayerId.CHANCE:
                shown = seer is None or seer == player or player == ALL
                out.append("c:" + (rank_name(a) if shown else "?"))
            else:
                out.append(f"{pl}:{codec.decode(a)}")
        return " ".join(out)

    # -- ISMCTS ---------------------------------------------------------------------------
    def resample_from_infostate(self, player_id, probability_sampler):
        """A state with ``player_id``'s information state, the hidden cards redrawn.

        ``probability_sampler()`` must return uniform floats in [0, 1) (as
        ``pyspiel.UniformProbabilitySampler`` does). See the module docstring.
        """
        d = self._d
        slot_idx = [i for q in range(d.s.n) if q != player_id
                    for r in RANKS for i in d.slots[q][r]]
        if not slot_idx:
            return self.clone()
        cards = [d.hist[i][1] for i in slot_idx]
        for r in RANKS:
            cards.extend([r] * d.s.pool[r])
        game = self.get_game()
        for _ in range(RESAMPLE_TRIES):
            _shuffle(cards, probability_sampler)
            actions = [(pl, a) for pl, a, _ in d.hist]
            for i, r in zip(slot_idx, cards):
                actions[i] = (actions[i][0], r)
            st = _replay(game, actions)
            # The last check catches the first player (rule 3) decided by a redrawn hand.
            if st is not None and st.current_player() == self.current_player():
                return st
        PalaceState.resample_fallbacks += 1
        return self.clone()


def _replay(game: PalaceGame, actions):
    """The state reached by ``actions`` [(player, action)], or None if they do not play."""
    st = game.new_initial_state()
    for pl, a in actions:
        s = st._d.s
        if st.current_player() != pl:
            return None
        if pl == pyspiel.PlayerId.CHANCE:
            if not s.pool[a]:
                return None
        else:
            try:
                move = game.codec.decode(a)
            except ValueError:
                return None
            if move not in s.legal_moves():
                return None
        st.apply_action(a)
    return st


def _shuffle(items: list, sampler) -> None:
    """Fisher-Yates with an OpenSpiel probability sampler."""
    for i in range(len(items) - 1, 0, -1):
        j = min(int(sampler() * (i + 1)), i)
        items[i], items[j] = items[j], items[i]


def _cards(counts) -> str:
    return "[" + " ".join(rank_name(r) for r in RANKS for _ in range(counts[r])) + "]"


class PalaceObserver:
    """Observation strings (no tensors) following OpenSpiel's PyObserver interface."""

    def __init__(self, iig_obs_type=None):
        self.tensor = None
        self.dict = {}
        t = iig_obs_type
        self.perfect_recall = bool(t is not None and t.perfect_recall)
        self.private = t is None or t.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.all_private = t is not None and t.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
        self.public = t is None or t.public_info

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        viewer = player if self.private else -1
        if self.all_private:
            viewer = ALL
        if not self.public:
            s = state.engine
            if self.all_private:
                return " | ".join(f"P{q} hand {_cards(h)}" for q, h in enumerate(s.hands))
            return f"me {player} hand {_cards(s.hands[player])}" if self.private else ""
        text = state.view_string(viewer)
        if self.perfect_recall:
            text += "\nhistory " + state.history_string(viewer)
        return text


pyspiel.register_game(_GAME_TYPE, PalaceGame)

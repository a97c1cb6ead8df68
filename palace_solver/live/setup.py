"""The setup of a live game: what the user sees at the start (the seats, their own cards,
the face-up cards or the deal, or a position mid-game), checked at once, and what follows
from it: the record at the start and who plays first (rule 3, from what the user can know).

Imports the model (:mod:`palace_solver.game`) and :mod:`palace_solver.live.events`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..game.cards import JOKER, NRANK, ORDERED_RANKS, RANKS, counts_of, parse_rank, rank_name
from ..game.position import Position
from ..game.rules import Rules, RulesError
from ..game.state import LAYOUT_PHASE, PLAY_PHASE, State
from ..game.view import UNKNOWN, seat_state
from .events import RESERVED, LiveError, is_card
from .phrasing import plural

__all__ = ["Setup", "check_deck", "check_names"]


@dataclass
class Setup:
    """What the user sees once the cards are dealt and the face-up cards laid (after any
    swap): seats in turn order, starting left of the dealer unless ``dealer`` says otherwise.

    Or, with ``deal``, what the user sees before the swap: their own cards as dealt (hand
    and face-up together, ``2 * zone_size`` of them; ``hand`` and ``face_up`` empty); the
    session then starts at the layout phase, where each player's face-up cards are entered
    as they are laid (``me up 10 A K``, ``bob up 5 9 J``). ``deal_up`` optionally says
    which of the user's cards were dealt face up, in the order dealt (rule 3 counts the
    face-up cards as dealt).

    ``first`` is the seat that plays first, or None to let rule 3 decide from what the user
    sees (the first face-up 3 in dealing order, else the first 3 in hand, else 4, ...); when
    the unseen hands may decide it, the first play tells.
    """

    names: list[str]
    me: int
    rules: Rules
    hand: list[int]
    face_up: list[list[int]]
    dealer: int | None = None
    first: int | None = None
    position: Position | None = None     # start mid-game from this position instead
    deal: list[int] | None = None        # the user's cards as dealt: start at the layout
    deal_up: list[int] | None = None     # which of them were dealt face up, in order

    @classmethod
    def from_position(cls, pos: Position, me: int | None = None) -> "Setup":
        """Start following a game mid-way: ``pos`` as the user sees it (the user's hand
        fully known; ``me`` defaults to the perspective, else the player to move)."""
        me = me if me is not None else pos.viewer()
        names = [p.name or ("me" if i == me else f"p{i}") for i, p in enumerate(pos.players)]
        return cls(names=names, me=me, rules=pos.rules, hand=list(pos.players[me].hand_known),
                   face_up=[list(p.face_up) for p in pos.players], position=pos).validate()

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def dealer_seat(self) -> int:
        """The dealer: ``dealer``, else the last seat (play starts on the first)."""
        return self.dealer if self.dealer is not None else self.n - 1

    def left_of_dealer(self) -> int:
        return (self.dealer_seat + 1) % self.n

    def dealing_order(self) -> list[int]:
        return [(self.left_of_dealer() + i) % self.n for i in range(self.n)]

    # -- the state at the start ----------------------------------------------------------
    def initial_state(self) -> tuple[State, bool]:
        """The record at the start, seen from the user's seat
        (:mod:`palace_solver.game.view`), and ``first_open``: whether who plays first is
        still unknown (the first play tells)."""
        rules, n, z, me = self.rules, self.n, self.rules.zone_size, self.me
        if self.position is not None:
            return seat_state(self.position), False
        if self.deal is not None:
            return self._dealt(), False
        s = State(rules, n)
        for r in self.hand:
            s.hands[me][r] += 1
        for p in range(n):
            if p != me:
                s.hands[p][UNKNOWN] = z
            for r in self.face_up[p]:
                s.face_up[p][r] += 1
                s.pool[r] -= 1
            s.face_down[p] = z
        for r in self.hand:
            s.pool[r] -= 1
        s.pool[UNKNOWN] = 0
        s.draw_pile = rules.deck_size(n) - 3 * z * n
        return s, self.open_play(s) == "open"

    def open_play(self, s: State) -> str:
        """Every face-up card is down in ``s``: play starts. Returns ``"start"`` (a start
        card is awaited), ``"open"`` (who plays first is not known yet: the first play
        tells; the player left of the dealer stands in) or ``"known"``."""
        s.phase = PLAY_PHASE
        if self.rules.start_card and s.draw_pile:
            s.pending = ("start", 0, 1)
            s.to_move = -1
            return "start"
        if self.first is not None:
            s.to_move = self.first
        elif self.rules.start_card:
            s.to_move = self.left_of_dealer()
        else:
            f = self.first_player(s)
            s.to_move = self.left_of_dealer() if f is None else f
            if f is None:
                return "open"
        return "known"

    def _dealt(self) -> State:
        """The layout phase: the user's cards as dealt in hand, everyone else's unseen."""
        rules, n, z = self.rules, self.n, self.rules.zone_size
        s = State(rules, n)
        for r in self.deal:
            s.hands[self.me][r] += 1
            s.pool[r] -= 1
        s.pool[UNKNOWN] = 0
        s.face_down = [z] * n
        s.draw_pile = rules.deck_size(n) - 3 * z * n
        s.phase = LAYOUT_PHASE
        s.to_move = self.me
        return s

    def first_player(self, s: State) -> int | None:
        """Rule 3 from what the user knows in ``s`` (the record once every face-up card is
        down), or None when cards the user has not seen could decide it (then the first
        play tells, or ``first NAME``).

        The rule: the player *dealt* the first face-up card of the lowest rank (3, then 4,
        ...) in dealing order from the dealer's left, else the first player holding that
        rank in hand after the swap. Under ``choose_face_up`` nobody is dealt face-up cards
        and those laid, in seat order, stand for them: the user sees them all. Otherwise
        the face-up cards on the table are those after the swap and say nothing of what
        was dealt; the user knows their own deal (``--deal``; with ``deal_up`` which cards
        were dealt face up, in order). So a rank decides when no one else can hold it
        (every copy is the user's), or when the user was dealt it face up as the very first
        card of the deal.
        """
        order = self.dealing_order()
        me = self.me
        if self.rules.choose_face_up:
            for r in ORDERED_RANKS:
                for p in order:
                    if s.face_up[p][r]:
                        return p
                for p in order:
                    if p == me and s.hands[p][r]:
                        return p
                    if p != me and s.pool[r]:
                        return None
            return None
        mine = counts_of(self.deal) if self.deal is not None else \
            [a + b for a, b in zip(s.hands[me], s.face_up[me])]
        up = self.deal_up if self.deal is not None else None
        deck = self.rules.deck_counts(self.n)
        for r in ORDERED_RANKS:
            if up and up[0] == r and order[0] == me:
                return me               # the first card dealt: nobody was dealt one before
            if deck[r] > mine[r]:
                return None             # someone else may have been dealt one face up
            if not mine[r]:
                continue                # nobody has one
            if up is not None and r in up:
                return me               # dealt face up to the user: the only copies
            if s.hands[me][r]:
                return me               # dealt face up or not, the user has one in hand
            if up is None:
                return None             # laid face up: dealt so, or swapped? unknown
        return None

    def validate(self) -> "Setup":
        """:raises LiveError: naming the problem."""
        n = self.n
        try:
            self.rules.check_players(n)
        except RulesError as e:
            raise LiveError(str(e)) from None
        check_names(self.names, self.me)
        for key, v in (("me", self.me), ("dealer", self.dealer), ("first", self.first)):
            if v is not None and not 0 <= v < n:
                raise LiveError(f"{key} {v} is out of range (seats 0 to {n - 1})")
        if self.position is not None:
            if self.position.n != n:
                raise LiveError("the names do not match the position's players")
            if not self.position.players[self.me].hand_fully_known:
                raise LiveError("your own hand must be fully known in the position")
            return self
        z = self.rules.zone_size
        for r in (self.hand + [r for up in self.face_up for r in up] + list(self.deal or [])
                  + list(self.deal_up or [])):
            if r == JOKER and not self.rules.jokers:
                raise LiveError("a joker (JK) is not a card under these rules "
                                "(the jokers variant has them)")
        if self.deal is not None:
            return self._validate_deal()
        if len(self.hand) != z:
            raise LiveError(f"your hand has {len(self.hand)} cards; it should have {z}")
        if len(self.face_up) != n:
            raise LiveError(f"face-up cards for {len(self.face_up)} players, not {n}")
        for i, up in enumerate(self.face_up):
            if len(up) != z:
                raise LiveError(f"{self.names[i]} has {len(up)} face-up cards; "
                                f"each player has {z}")
        deck = self.rules.deck_counts(n)
        seen_c = [0] * NRANK
        for r in self.hand + [r for up in self.face_up for r in up]:
            seen_c[r] += 1
        check_deck(seen_c, deck)
        return self

    def _validate_deal(self) -> "Setup":
        z, n = self.rules.zone_size, self.n
        if self.hand or any(self.face_up):
            raise LiveError("with your cards as dealt, the face-up cards are entered as "
                            "they are laid: 'me up 10 A K', 'bob up 5 9 J'")
        if len(self.deal) != 2 * z:
            raise LiveError(f"you were dealt {2 * z} cards ({z} in hand and {z} face up), "
                            f"not {len(self.deal)}")
        if self.deal_up is not None:
            if len(self.deal_up) != z:
                raise LiveError(f"{len(self.deal_up)} cards dealt face up; there are {z}")
            left = counts_of(self.deal)
            for r in self.deal_up:
                if not left[r]:
                    raise LiveError(f"the face-up {rank_name(r)} is not among your cards")
                left[r] -= 1
        self.face_up = [[] for _ in range(n)]
        check_deck(counts_of(self.deal), self.rules.deck_counts(n))
        return self

    def to_json(self) -> dict:
        return {"names": list(self.names), "me": self.me, "rules": self.rules.to_json(),
                "hand": [rank_name(r) for r in self.hand],
                "face_up": [[rank_name(r) for r in up] for up in self.face_up],
                "dealer": self.dealer, "first": self.first,
                **({"position": self.position.to_json()} if self.position is not None else {}),
                **({"deal": [rank_name(r) for r in self.deal]} if self.deal is not None
                   else {}),
                **({"deal_up": [rank_name(r) for r in self.deal_up]}
                   if self.deal_up is not None else {})}

    @classmethod
    def from_json(cls, obj: dict) -> "Setup":
        """:raises LiveError: for a malformed setup."""
        try:
            return cls(names=[str(x) for x in obj["names"]], me=int(obj["me"]),
                       rules=Rules.from_json(obj.get("rules", "standard")),
                       hand=[parse_rank(c) for c in obj["hand"]],
                       face_up=[[parse_rank(c) for c in up] for up in obj["face_up"]],
                       dealer=obj.get("dealer"), first=obj.get("first"),
                       position=Position.from_json(obj["position"]) if obj.get("position")
                       else None,
                       deal=[parse_rank(c) for c in obj["deal"]] if "deal" in obj else None,
                       deal_up=[parse_rank(c) for c in obj["deal_up"]] if "deal_up" in obj
                       else None).validate()
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, LiveError):
                raise
            raise LiveError(f"bad session setup: {e}") from None


def check_names(names: list[str], me: int | None = None) -> None:
    """Player names: one word each, no two alike (any case), none a command word or a card.

    :raises LiveError: naming the first problem.
    """
    seen = set()
    for i, nm in enumerate(names):
        key = nm.lower()
        if not nm or any(c.isspace() for c in nm):
            raise LiveError(f"bad player name {nm!r}: one word, please")
        if key in RESERVED and not (key == "me" and (me is None or i == me)):
            raise LiveError(f"{nm!r} cannot be a player name (it is a command word)")
        if key in seen:
            raise LiveError(f"two players named {nm!r}: each name must be different")
        if is_card(nm):
            raise LiveError(f"{nm!r} cannot be a player name (it reads as a card)")
        seen.add(key)


def check_deck(seen: list[int], deck: list[int]) -> None:
    """:raises LiveError: when more cards of a rank are seen than the deck holds."""
    for r in RANKS:
        if seen[r] > deck[r]:
            raise LiveError(f"{plural(seen[r], 'card')} of rank {rank_name(r)} seen, but "
                            f"the deck has only {deck[r]}")

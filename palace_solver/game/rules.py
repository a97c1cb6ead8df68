"""The rule set: the standard rules plus named variant switches (RULES.md).

Rules are data. Both engines read every switch from a :class:`Rules`; nothing about a
variant is hard-coded elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .cards import (
    ACE,
    DECK_RANKS,
    EIGHT,
    FIVE,
    JACK,
    JOKER,
    KING,
    NRANK,
    SEVEN,
    TEN,
    THREE,
)

#: Every variant switch of RULES.md, in the order of its table.
VARIANTS = (
    "must_play", "easy_table_pickup", "no_four_burn", "restricted_tens", "aces_burn",
    "kings_burn", "seven_low", "five_low", "invisible_8", "invisible_3", "eight_reverses",
    "eight_skips", "jack_reverses", "jokers", "two_decks", "four_cards", "choose_face_up",
    "back_to_last_player", "start_card", "first_out_wins", "lenient_blind",
)


class RulesError(ValueError):
    """An unknown variant name or a rule set that cannot be played."""


@dataclass(frozen=True)
class Rules:
    """One rule set. Every field is a variant switch, off in the standard rules."""

    must_play: bool = False
    easy_table_pickup: bool = False
    no_four_burn: bool = False
    restricted_tens: bool = False
    aces_burn: bool = False
    kings_burn: bool = False
    seven_low: bool = False
    five_low: bool = False
    invisible_8: bool = False
    invisible_3: bool = False
    eight_reverses: bool = False
    eight_skips: bool = False
    jack_reverses: bool = False
    jokers: bool = False
    two_decks: bool = False
    four_cards: bool = False
    choose_face_up: bool = False
    back_to_last_player: bool = False
    start_card: bool = False
    first_out_wins: bool = False
    lenient_blind: bool = False

    def __post_init__(self):
        if self.jokers and self.two_decks:
            # The jokers variant is one deck plus two jokers, all dealt; a second deck would
            # leave it undefined (how many jokers, a draw pile or not).
            raise RulesError("the jokers variant (one deck plus two jokers) cannot be "
                             "combined with two_decks")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def standard(cls) -> "Rules":
        return cls()

    @classmethod
    def with_variants(cls, variants) -> "Rules":
        """``Rules.with_variants(['seven_low'])``.

        :raises RulesError: for an unknown name.
        """
        kw = {}
        for v in variants:
            if v not in VARIANTS:
                raise RulesError(f"unknown variant {v!r}")
            kw[v] = True
        return cls(**kw)

    @classmethod
    def from_json(cls, obj) -> "Rules":
        """Read the ``rules`` value of a position: ``"standard"`` or
        ``{"base": "standard", "variants": [...]}``.

        :raises RulesError: for anything else.
        """
        if obj is None or obj == "standard":
            return cls()
        if isinstance(obj, str):
            # A bare variant list "seven_low,invisible_8" is accepted as a convenience.
            parts = [p.strip() for p in obj.replace("+", ",").split(",") if p.strip()]
            if parts and parts[0] == "standard":
                parts = parts[1:]
            if not parts:
                raise RulesError(f"unknown rules {obj!r}")
            return cls.with_variants(parts)
        if isinstance(obj, dict):
            base = obj.get("base", "standard")
            if base != "standard":
                raise RulesError(f"unknown rules base {base!r}")
            extra = set(obj) - {"base", "variants"}
            if extra:
                raise RulesError(f"unknown rules key {sorted(extra)[0]!r}")
            vs = obj.get("variants", [])
            if not isinstance(vs, list) or not all(isinstance(v, str) for v in vs):
                raise RulesError("rules variants must be a list of names")
            return cls.with_variants(vs)
        raise RulesError(f"unknown rules {obj!r}")

    def to_json(self):
        vs = self.variants()
        return "standard" if not vs else {"base": "standard", "variants": list(vs)}

    def variants(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(self) if getattr(self, f.name))

    def __str__(self) -> str:
        return "standard" + "".join("+" + v for v in self.variants())

    def without(self, *names) -> "Rules":
        return replace(self, **{n: False for n in names})

    # -- derived facts --------------------------------------------------------------------
    def check_players(self, n: int) -> None:
        """:raises RulesError: when this rule set cannot seat ``n`` players."""
        if n < 2:
            raise RulesError(f"{n} players: Palace needs at least 2")
        if self.jokers and n != 6:
            raise RulesError(f"the jokers variant is for exactly 6 players, not {n}")
        if n * 3 * self.zone_size > self.deck_size(n):
            raise RulesError(f"{n} players need {n * 3 * self.zone_size} cards, "
                             f"the deck has {self.deck_size(n)}")

    def player_counts(self, up_to: int = 6) -> list[int]:
        """The player counts from 2 to ``up_to`` that this rule set can seat."""
        out = []
        for n in range(2, up_to + 1):
            try:
                self.check_players(n)
            except RulesError:
                continue
            out.append(n)
        return out

    @property
    def zone_size(self) -> int:
        """Cards dealt to each of face-down, face-up and hand (also the refill target)."""
        return 4 if self.four_cards else 3

    def decks(self, n_players: int) -> int:
        """Two decks with the switch, or by default for 6+ players (not with jokers)."""
        if self.jokers:
            return 1
        return 2 if (self.two_decks or n_players >= 6) else 1

    def deck_counts(self, n_players: int) -> list[int]:
        """How many cards of each rank the game uses."""
        c = [0] * NRANK
        d = self.decks(n_players)
        for r in DECK_RANKS:
            c[r] = 4 * d
        if self.jokers:
            c[JOKER] = 2
        return c

    def deck_size(self, n_players: int) -> int:
        return sum(self.deck_counts(n_players))

    def burns(self, rank: int) -> bool:
        """Whether playing this rank burns the pile by itself."""
        return rank == TEN or (self.aces_burn and rank == ACE) or (self.kings_burn and rank == KING)

    def transparent(self, rank: int) -> bool:
        """Ranks that are legal on anything and leave the rank to beat unchanged."""
        return (rank == JOKER or (self.invisible_8 and rank == EIGHT)
                or (self.invisible_3 and rank == THREE))

    def reverses(self, rank: int) -> bool:
        return (rank == JOKER or (self.eight_reverses and rank == EIGHT)
                or (self.jack_reverses and rank == JACK))

    def skips(self, rank: int) -> bool:
        return self.eight_skips and rank == EIGHT

    def low_rank(self, rank: int) -> bool:
        """After this rank the next play must be equal or lower."""
        return (self.seven_low and rank == SEVEN) or (self.five_low and rank == FIVE)

"""The English of ``palace live``: cards, counts and the sentences the session answers with
that depend only on the table (whose turn, what the pile asks for, the game's end).

Every message is in the second person for the user (``you play``, ``your turn``) and the
third for the others (``bob plays``).

Imports only the model (:mod:`palace_solver.game`).
"""
from __future__ import annotations

from ..game.cards import rank_name
from ..game.state import LAYOUT_PHASE, State

__all__ = ["a_card", "card_list", "count_of", "number", "ordinal", "pile_note", "plural",
           "turn_note"]

_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
            8: "eight", 9: "nine", 10: "ten"}


def card_list(ranks) -> str:
    """``3 7 K``, or ``-`` for none."""
    return " ".join(rank_name(r) for r in ranks) or "-"


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def a_card(r: int) -> str:
    """``a 7``, ``an 8``, ``an A``."""
    return ("an " if r in (8, 14) else "a ") + rank_name(r)


def number(k: int) -> str:
    """``one`` .. ``ten``, then digits."""
    return _NUMBERS.get(k, str(k))


def count_of(k: int, r: int) -> str:
    """``a 3``, ``an 8``, ``two 3s``: the card and the count."""
    return a_card(r) if k == 1 else f"{number(k)} {rank_name(r)}s"


def ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def pile_note(s: State) -> str:
    """What the pile asks for: ``top 7; a 7 or higher, a 2 or a 10 is needed``."""
    eff = s.effective_top()
    if eff is None:
        return "the pile is empty"
    low = " or lower" if s.rules.low_rank(eff) else " or higher"
    return f"top {rank_name(s.pile[-1])}; a {rank_name(eff)}{low}, a 2 or a 10 is needed"


def turn_note(s: State, names: list[str], me: int, first_open: bool = False) -> str:
    """The end of a reply: whose turn it is now, or that the game is over (empty at the
    layout phase and at a chance event)."""
    if first_open:
        return ". Who plays first is not known yet: the first play tells (or 'first NAME')"
    if s.phase == LAYOUT_PHASE:
        return ""
    if s.is_terminal():
        losers = [q for q in range(s.n) if s.loss[q] == 1]
        if losers:
            who = "you" if losers[0] == me else names[losers[0]]
            return f". Game over: {who} lose" + ("" if losers[0] == me else "s")
        return ". Game over"
    if s.is_chance():
        return ""
    return f". {'Your' if s.to_move == me else names[s.to_move] + chr(39) + 's'} turn"

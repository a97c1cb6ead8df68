"""The table picture of ``palace live``: a session drawn as text for the terminal.

Cards are ``[7]``, face-down cards ``▒``, unknown hand cards ``?``; with ``color`` the
special cards (2, 10, burning and transparent ranks) are yellow and court cards cyan. The
same facts as data are :meth:`palace_solver.live.session.Session.summary`.

Imports the model (:mod:`palace_solver.game`) and :mod:`palace_solver.live.session`.
"""
from __future__ import annotations

from ..game.cards import RANKS, rank_name, ranks_of
from ..game.view import UNKNOWN
from .phrasing import ordinal
from .session import Session

__all__ = ["picture", "status_line"]


def status_line(session: Session) -> str:
    """Whose turn it is, or what the session waits for."""
    s = session.state
    if not session.at_decision():
        return session.waiting_for()
    return "your turn" if s.to_move == session.me else f"{session.names[s.to_move]}'s turn"


def picture(session: Session, color: bool = False) -> str:
    """A readable picture of the table."""
    s = session.state
    names, me = session.names, session.me

    def card(r: int) -> str:
        t = f"[{rank_name(r)}]"
        if color and (r in (2, 10) or s.rules.burns(r) or s.rules.transparent(r)):
            return f"\x1b[1;33m{t}\x1b[0m"
        if color and r in (11, 12, 13, 14):
            return f"\x1b[1;36m{t}\x1b[0m"
        return t

    def cards(rs) -> str:
        return " ".join(card(r) for r in rs) or "-"

    lines = [f"Palace live: {s.rules}; {s.n} players; you are {names[me]}"]
    w = max(len(nm) for nm in names) + 6
    for p in range(s.n):
        mark = "▶" if session.at_decision() and s.to_move == p else " "
        label = names[p] + (" (you)" if p == me else "")
        if s.out[p]:
            lines.append(f" {mark} {label:<{w}} out ({ordinal(s.out_order.index(p) + 1)})")
            continue
        if not session.laid_out(p):
            z = s.rules.zone_size
            if p == me:
                lines.append(f" {mark} {label:<{w}} dealt: {cards(ranks_of(s.hands[p]))}")
                lines.append(f"   {'':<{w}} to lay {z} face up ('up ...')   "
                             f"down: {'▒ ' * s.face_down[p]}")
            else:
                lines.append(f" {mark} {label:<{w}} dealt {2 * z}, laying out")
                lines.append(f"   {'':<{w}} up: ?   down: {'▒ ' * s.face_down[p]}")
            continue
        hand = cards(ranks_of(s.hands[p]))
        unk = s.hands[p][UNKNOWN]
        if unk:
            hand = (hand + " " if ranks_of(s.hands[p]) else "") + " ".join(["?"] * unk) \
                if unk <= 8 else (hand + f" +{unk}?")
            hand = hand.replace("- ", "")
        lines.append(f" {mark} {label:<{w}} hand {sum(s.hands[p]):>2}: {hand}")
        lines.append(f"   {'':<{w}} up: {cards(ranks_of(s.face_up[p]))}   "
                     f"down: {'▒ ' * s.face_down[p] or '-'}")
    if s.pile:
        lines.append(f"pile ({len(s.pile)}): {cards(s.pile)}   [{session.pile_note(s)}]")
    else:
        lines.append("pile: empty")
    unseen = session.unseen()
    lines.append(f"draw pile: {s.draw_pile}   burned: {sum(s.burned)}   unseen: "
                 + (" ".join(rank_name(r) + (f"x{unseen[r]}" if unseen[r] > 1 else "")
                             for r in RANKS if unseen[r]) or "none"))
    if s.n > 2 and s.direction == -1:
        lines.append("direction of play: reversed")
    lines.append(status_line(session))
    return "\n".join(lines)

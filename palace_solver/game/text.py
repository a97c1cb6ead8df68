"""The one-line text form, written: canonical for a :class:`~palace_solver.game.position.Position`
(read back by :func:`palace_solver.game.position.from_text`), and as close as the form
allows for any :class:`~palace_solver.game.state.State`, for error messages.

It sits below both so that a state can describe itself without importing positions (a
position is built from states). Imports only :mod:`palace_solver.game.cards`.
"""
from __future__ import annotations

import json
import re

from .cards import rank_name, ranks_of

#: A player name written without quotes.
BARE_NAME = re.compile(r'[^\s,|;/:"]+')


def text_name(name: str) -> str:
    if BARE_NAME.fullmatch(name) and name.isprintable():
        return name
    # Readable quotes; unprintable characters (line separators, controls) as escapes.
    return json.dumps(name, ensure_ascii=not name.isprintable())


def _cards(rs) -> str:
    return " ".join(rank_name(r) for r in rs) or "-"


def format_text(rules, players, pile, burned, draw_pile: int, to_move: int,
                perspective=None, direction: int = 1, last_player=None) -> str:
    """The text form of the parts of a position. ``players``: one
    ``(name, known hand ranks, unknown hand cards, face-up ranks, face-down count)`` each."""
    rows = []
    for name, hand_known, unknown, face_up, face_down in players:
        hand = [rank_name(r) for r in hand_known]
        if unknown:
            hand.append(f"?{unknown}")
        s = f"{' '.join(hand) or '-'} / {_cards(face_up)} / {face_down}"
        rows.append(s if name is None else f"{text_name(name)}: {s}")
    parts = [str(rules), " ; ".join(rows), f"pile {_cards(pile)}"]
    if burned:
        parts.append(f"burned {_cards(burned)}")
    parts += [f"draw {draw_pile}", f"to_move {to_move}"]
    if perspective is not None:
        parts.append(f"perspective {perspective}")
    if direction != 1:
        parts.append(f"direction {direction}")
    if last_player is not None:
        parts.append(f"last_player {last_player}")
    return " | ".join(parts)


def state_text(s) -> str:
    """The text form of a state. One that is not a play-phase decision node (a chance node,
    the deal, a player out) gets trailing notes that the reader does not accept: that is
    for error messages only."""
    players = [(None, ranks_of(s.hands[i]), 0, ranks_of(s.face_up[i]), s.face_down[i])
               for i in range(s.n)]
    text = format_text(s.rules, players, s.pile, ranks_of(s.burned), s.draw_pile, s.to_move,
                       direction=s.direction,
                       last_player=s.last_player if s.rules.back_to_last_player else None)
    notes = []
    if s.phase != "play":
        notes.append(f"phase {s.phase}")
    if s.pending is not None:
        kind, p, k = s.pending
        notes.append(f"chance {kind} player {p} x{k}")
    out = [i for i in range(s.n) if s.out[i]]
    if out:
        notes.append("out " + " ".join(map(str, out)))
    return text + "".join(f" | {x}" for x in notes)

"""A live session as a game record (docs/record.md): only what the user's seat saw.

The record's header is the session's setup (the user's cards as dealt, or after the swap,
or the position the session started from), the others' cards unknown (``?``) but for the
face-up cards; its events are the session's own lines, which are already the record's words
(``bob 7x2``, ``draw 7 K`` for the user's refills, ``bob flip 9``, ``bob up 5 9 J``). The
record's ``viewer`` is the user, so ``palace review`` judges the user's decisions from the
user's view.

Imports the model (:mod:`palace_solver.game`) and the session.
"""
from __future__ import annotations

from ..game.record import Record, SeatDeal, write_record
from .session import Session

__all__ = ["session_record", "write_record"]  # write_record: re-exported


def session_record(session: Session) -> Record:
    """The record of ``session`` (module doc)."""
    st = session.setup
    n, z, me = session.n, session.rules.zone_size, session.me
    rec = Record(session.rules, list(session.names), viewer=me, dealer=st.dealer_seat,
                 tags={"source": "palace live"})
    if st.position is not None:
        rec.start = "position"
        rec.position = st.position
    elif st.deal is not None:
        rec.start = "deal"
        hand_z = 2 * z if session.rules.choose_face_up else z
        up_z = 0 if session.rules.choose_face_up else z
        for p in range(n):
            if p != me:
                rec.deal.append(SeatDeal([None] * hand_z, [None] * up_z, [None] * z))
            elif session.rules.choose_face_up:
                rec.deal.append(SeatDeal(sorted(st.deal), [], [None] * z))
            elif st.deal_up is not None:
                left = list(st.deal)
                for r in st.deal_up:
                    left.remove(r)
                rec.deal.append(SeatDeal(sorted(left), list(st.deal_up), [None] * z))
            else:
                rec.deal.append(SeatDeal(None, None, [None] * z, together=sorted(st.deal)))
    else:
        rec.start = "play"
        for p in range(n):
            hand = sorted(st.hand) if p == me else [None] * z
            rec.deal.append(SeatDeal(hand, sorted(st.face_up[p]), [None] * z))
    events = []
    first = st.first
    for ev in session.events:
        words = ev.split()
        if words and words[0].lower() == "first" and len(words) == 2:
            first = session.player(words[1])
            continue
        events.append(ev)
    if first is None and not session.in_layout() and st.position is None:
        first = _first_mover(session)
    rec.first = first if st.position is None else None
    rec.events = events
    if session.state.is_terminal():
        loss = session.state.result()
        losers = [p for p in range(n) if loss[p] == 1]
        rec.result = f"{session.names[losers[0]]} loses" if losers else \
            f"{session.names[session.state.out_order[0]]} wins"
    return rec.validate()


def _first_mover(session: Session) -> int | None:
    """The seat that made (or makes) the first play: the first move event's player, else
    the player to move."""
    for ev in session.events:
        words = ev.split()
        if not words or words[0].lower() in ("draw", "start", "first"):
            continue
        if len(words) >= 2 and words[1].lower() == "up":
            continue
        p = session.player(words[0])
        if p is not None:
            return p
    s = session.state
    return s.to_move if s.to_move >= 0 else None

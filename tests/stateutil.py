"""Hand-built play-phase States for rule tests (independent of palace_solver.game.position).

``build(hands=[["3", "7"], ["K"]], face_up=[["A"], []], face_down=[0, 2], pile=["5"])``
gives a State with the player to move at a decision node. Cards are rank names or ints.

Unseen cards: the engine keeps every card nobody has seen (face-down cards and draw pile)
in one pool. By default the pool is the deck minus every known card (hands, face-up, pile,
burned) and the draw pile is whatever of it the face-down cards do not account for. To
control what a flip or a draw turns up, pass ``unseen=[...]``: exactly those ranks form the
pool (face-down cards + draw pile), and the rest of the deck counts as burned. Either way
:meth:`State.check_cards` passes.
"""
from __future__ import annotations

from palace_solver.game.cards import NRANK, parse_rank
from palace_solver.game.rules import Rules
from palace_solver.game.state import PLAY_PHASE, State


def rank(card) -> int:
    return card if isinstance(card, int) else parse_rank(card)


def counts(cards) -> list[int]:
    c = [0] * NRANK
    for card in cards:
        c[rank(card)] += 1
    return c


def build(hands, face_up=None, face_down=None, pile=(), burned=(), to_move=0, rules=None,
          unseen=None, draw_pile=None, direction=1, last_player=None, out=None) -> State:
    """A play-phase State; see the module docstring.

    :param draw_pile: with ``unseen``, how many of the unseen cards are the draw pile
        (default: those not face down); without it, must match the rest of the deck if given.
    :param out: which players are out (default: those holding no card at all).
    """
    rules = rules or Rules()
    n = len(hands)
    face_up = face_up or [[] for _ in range(n)]
    face_down = list(face_down or [0] * n)
    s = State(rules, n)
    s.phase = PLAY_PHASE
    s.hands = [counts(h) for h in hands]
    s.face_up = [counts(f) for f in face_up]
    s.face_down = face_down
    s.pile = [rank(c) for c in pile]
    deck = rules.deck_counts(n)
    known = counts(list(pile) + list(burned))
    for zone in s.hands + s.face_up:
        known = [a + b for a, b in zip(known, zone)]
    rest = [d - k for d, k in zip(deck, known)]
    if min(rest) < 0:
        bad = min(range(NRANK), key=lambda r: rest[r])
        raise ValueError(f"too many cards of rank {bad}: {known[bad]} > {deck[bad]}")
    if unseen is None:
        s.pool = rest
        s.burned = counts(burned)
        hidden = sum(rest) - sum(face_down)
        if draw_pile is not None and draw_pile != hidden:
            raise ValueError(f"draw pile {draw_pile} but {hidden} unseen cards not face down "
                             "(pass unseen=[...] to choose the unseen cards)")
        s.draw_pile = hidden
    else:
        s.pool = counts(unseen)
        extra = [r - u for r, u in zip(rest, s.pool)]
        if min(extra) < 0:
            raise ValueError("unseen cards that the deck does not have left")
        s.burned = [b + e for b, e in zip(counts(burned), extra)]
        s.draw_pile = len(unseen) - sum(face_down) if draw_pile is None else draw_pile
    if s.draw_pile < 0 or s.draw_pile + sum(face_down) != sum(s.pool):
        raise ValueError("unseen cards do not match face-down cards + draw pile")
    s.to_move = to_move
    s.direction = direction
    s.last_player = last_player if last_player is not None else (
        (to_move - direction) % n if s.pile else None)
    s.out = list(out) if out is not None else [s.cards_left(p) == 0 for p in range(n)]
    s.out_order = [p for p in range(n) if s.out[p]]
    s.check_cards()
    return s


def play(state: State, move: str, *chance) -> State:
    """Apply ``move`` (notation text), then the given chance ranks in order; returns state."""
    state.apply(move)
    for c in chance:
        assert state.is_chance(), f"no chance node for {c!r}"
        state.apply(rank(c))
    return state


def moves(state: State) -> list[str]:
    return [str(m) for m in state.legal_moves()]


def hand(state: State, p: int) -> list[str]:
    from palace_solver.game.cards import names, ranks_of
    return names(ranks_of(state.hands[p]))


def up(state: State, p: int) -> list[str]:
    from palace_solver.game.cards import names, ranks_of
    return names(ranks_of(state.face_up[p]))


def pile(state: State) -> list[str]:
    from palace_solver.game.cards import rank_name
    return [rank_name(r) for r in state.pile]

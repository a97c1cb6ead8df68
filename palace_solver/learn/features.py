"""The learned evaluation's features in numpy: the readable mirror of ``ext/evaluate.pxi``.

The layout (which value sits where, and why the features are per player in the order of
play from the player to move) is written once, above the compiled code in
``ext/evaluate.pxi``; this module computes the same integers from a game
:class:`~palace_solver.game.state.State` with the reference engine's own rule methods, so
that a test can compare the two on random states. Training reads the compiled blocks
(:func:`palace_solver._engine.eval_blocks`, much faster) and turns them into network rows
with :func:`rows`, the one function both paths share.

A position is two arrays: ``pb`` (a x 37), one block per player still in, in the order of
play from the reference seat (place 0 = the player to move), and ``pub`` (90), the public
block. Each player's input row is ``[own | next player's | sum of the others' | seat | pub]``.
"""
from __future__ import annotations

import numpy as np

from ..game.cards import RANKS, TWO
from ..game.rules import VARIANTS
from ..game.state import CHANCE, State

__all__ = ["IN", "PB", "PUB", "SEAT", "blocks", "order_of_play", "reference_seat", "rows",
           "state_rows"]

PB, SEAT, PUB = 37, 6, 90
IN = 3 * PB + SEAT + PUB


def reference_seat(s: State) -> int:
    """The player at place 0: the mover; at a pending draw the player who moves after it,
    at a pending flip its player."""
    if s.to_move >= 0:
        return s.to_move
    if s.pending is not None and s.pending[0] == "draw":
        return s.next_after
    if s.pending is not None and s.pending[0] == "flip":
        return s.pending[1]
    return 0


def order_of_play(s: State) -> list[int]:
    """The players still in, in the order of play from the reference seat."""
    m = reference_seat(s)
    if s.out[m]:
        m = s._next_active(m, 1)
    order, q = [], m
    while True:
        order.append(q)
        q = s._next_active(q, 1)
        if q == m or len(order) >= s.n:
            return order


def player_block(s: State, p: int) -> np.ndarray:
    """The 37 values of player ``p`` (layout in ext/evaluate.pxi)."""
    rules = s.rules
    x = np.zeros(PB, dtype=np.int64)
    hand, up = s.hands[p], s.face_up[p]
    for r in RANKS:
        x[r - 2] = hand[r]
        x[14 + r - 2] = up[r]
    hn, un, fd = sum(hand), sum(up), s.face_down[p]
    x[28], x[29], x[30], x[31] = fd, hn, un, hn + un + fd
    x[32] = hn > 0
    x[33] = hn == 0 and un > 0
    x[34] = hn == 0 and un == 0 and fd > 0
    src = hand if hn else up
    if hn or un:
        x[35] = sum(src[r] for r in RANKS if s.playable(r))
    x[36] = sum(hand[r] + up[r] for r in RANKS
                if r == TWO or rules.burns(r) or rules.transparent(r))
    return x


def public_block(s: State, active: int) -> np.ndarray:
    """The 90 public values (layout in ext/evaluate.pxi)."""
    x = np.zeros(PUB, dtype=np.int64)
    for r in s.pile:
        x[r - 2] += 1
    x[14] = len(s.pile)
    top = s.pile[-1] if s.pile else 0
    beat = s.effective_top() or 0
    x[15 + (top - 1 if top else 0)] = 1
    x[30 + (beat - 1 if beat else 0)] = 1
    x[45] = min(s.top_run(), 3)
    for r in RANKS:
        x[46 + r - 2] = s.pool[r]
    x[60] = sum(s.pool)
    x[61] = s.draw_pile
    x[62 + min(active, 6) - 2] = 1
    x[67] = s.n
    for i, name in enumerate(VARIANTS):
        x[68 + i] = bool(getattr(s.rules, name))
    x[89] = s.is_chance()
    return x


def blocks(s: State) -> tuple[list[int], np.ndarray, np.ndarray]:
    """(seats in order of play, player blocks a x 37, public block 90) of a PLAY-phase state
    that is not over (the mirror of ``_engine.eval_blocks``)."""
    if s.is_terminal() or (s.to_move == CHANCE and s.pending is None):
        raise ValueError("features of a finished game or a deal")
    order = order_of_play(s)
    pb = np.stack([player_block(s, p) for p in order])
    return order, pb, public_block(s, len(order))


def rows(pb: np.ndarray, pub: np.ndarray) -> np.ndarray:
    """The network's input rows of positions with the same number of players still in.

    ``pb``: (..., a, 37) blocks in order of play; ``pub``: (..., 90). Returns (..., a, 207)
    float32: row k is [own block k | block k+1 (mod a) | sum of the other blocks | seat k
    one-hot (places past 5 as 5) | pub]."""
    pb = np.asarray(pb, dtype=np.float32)
    pub = np.asarray(pub, dtype=np.float32)
    a = pb.shape[-2]
    nxt = np.roll(pb, -1, axis=-2)
    others = pb.sum(axis=-2, keepdims=True) - pb
    seat = np.zeros(pb.shape[:-1] + (SEAT,), dtype=np.float32)
    seat[..., np.arange(a), np.minimum(np.arange(a), SEAT - 1)] = 1.0
    pubs = np.broadcast_to(pub[..., None, :], pb.shape[:-1] + (PUB,))
    return np.concatenate([pb, nxt, others, seat, pubs], axis=-1)


def state_rows(s: State) -> tuple[list[int], np.ndarray]:
    """(seats in order of play, input rows a x 207) of a state, computed in Python."""
    order, pb, pub = blocks(s)
    return order, rows(pb, pub)

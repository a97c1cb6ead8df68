"""Random small exact-mode positions and an independent brute-force definition of their
values, for checking the solvers. The generator of random positions itself is the
package's (:mod:`palace_solver.game.generate`), shared with the benchmarks."""
from __future__ import annotations

import random
from fractions import Fraction

from palace_solver.game.cards import DECK_RANKS, NRANK
from palace_solver.game.generate import PLAY_VARIANTS, random_exact_state, random_rules
from palace_solver.game.rules import Rules
from palace_solver.game.state import State

__all__ = ["PLAY_VARIANTS", "TooBig", "brute_force", "brute_force_moves", "one_way_counts",
           "random_exact_state", "random_rules", "random_table_state", "table_case",
           "walk_against_reference"]

def random_table_state(rng: random.Random, n: int, rules: Rules | None = None) -> State:
    """A random exact-mode decision for 3-4 players built to have choices: the mover holds
    2-3 hand cards (maybe a face-up and a face-down card) over a pile of 1-2 cards, every
    other player 0-1 hand card, 0-1 face-up card and one face-down card. Cards not dealt
    are burned, except the face-down ones which stay unseen."""
    rules = rules or Rules()
    s = State(rules, n)
    deck = [r for r in DECK_RANKS for _ in range(s.pool[r])]
    rng.shuffle(deck)
    mover = rng.randrange(n)
    for p in range(n):
        if p == mover:
            h, u, d = rng.randint(2, 3), rng.randint(0, 1), rng.randint(0, 1)
        else:
            h, u, d = rng.randint(0, 1), rng.randint(0, 1), 1
        for _ in range(h):
            s.hands[p][deck.pop()] += 1
        for _ in range(u):
            s.face_up[p][deck.pop()] += 1
        s.face_down[p] = d
    k = rng.randint(1, 2)
    while len(s.pile) < k:
        r = deck.pop()
        if rules.burns(r):
            deck.insert(0, r)
            continue
        s.pile.append(r)
    unseen = sum(s.face_down)
    s.pool = [0] * NRANK
    for r in deck[:unseen]:
        s.pool[r] += 1
    for r in deck[unseen:]:
        s.burned[r] += 1
    s.to_move = mover
    s.check_cards()
    return s


def table_case(n: int, i: int) -> State:
    """Draw ``i`` of :func:`random_table_state` for ``n`` players (seeded ``table-N-I``; the
    rules are standard or a random pair of variants)."""
    rng = random.Random(f"table-{n}-{i}")
    rules = random_rules(rng) if rng.random() < 0.5 else Rules()
    return random_table_state(rng, n, rules)


class TooBig(Exception):
    """The brute force went past its call budget (the caller picks another position)."""


def one_way_counts(s: State) -> tuple:
    """What only moves one way: face-down, face-up and burned counts, and who is out. A
    line that changes any of them never comes back, so every repetition is of a position
    with the same counts."""
    return (sum(s.face_down), sum(map(sum, s.face_up)), sum(s.burned), tuple(s.out))


def brute_force(s: State, path=None, budget=None, memo=None, scc=None) -> list[Fraction]:
    """Expectiminimax by definition: exact fractions, and the first repetition of a decision
    position on the line of play is a draw (the players still in share the loss). Each mover
    minimises their own loss; ties keep the first move.

    ``path``: the decision positions on the line above, as (key, one-way counts) pairs.
    ``budget``: a one-item list holding the calls still allowed, shared by the whole search
    and decremented by every call; :class:`TooBig` when it runs out.

    ``memo`` (a dict, or None for none) keeps the value of a position together with the
    positions above it on the line that share its one-way counts. That is sound: the value
    below a position depends only on which of the positions it can reach lie on the line,
    and a position above it that it can reach is one it can also come back to, so it has
    the same one-way counts; those form the tail of the line.
    """
    if budget is not None:
        budget[0] -= 1
        if budget[0] < 0:
            raise TooBig("the brute force went past its call budget")
    if s.is_terminal():
        return s.result()
    if s.is_chance():
        total = [Fraction(0)] * s.n
        for r, p in s.chance_outcomes():
            c = s.clone()
            c.apply(r)
            v = brute_force(c, path, budget, memo, scc)
            total = [a + p * b for a, b in zip(total, v)]
        return total
    path = () if path is None else path
    k, here = s.key(), one_way_counts(s)
    tail = []
    for pk, pc in reversed(path):
        if pc != here:
            break
        tail.append(pk)
    if k in tail:
        act = s.active()
        return [Fraction(1, len(act)) if not s.out[p] else Fraction(0) for p in range(s.n)]
    if scc is not None:
        tail = [pk for pk in tail if scc[pk] == scc[k]]
    mk = (k, frozenset(tail))
    if memo is not None and mk in memo:
        return memo[mk]
    line = path + ((k, here),)
    best = None
    for m in s.legal_moves():
        c = s.clone()
        c.apply(m)
        v = brute_force(c, line, budget, memo, scc)
        if best is None or v[s.to_move] < best[s.to_move]:
            best = v
    if memo is not None:
        memo[mk] = best
    return best


def brute_force_moves(s: State, budget=None, memo=None, scc=None) -> dict[str, list[Fraction]]:
    """The brute-force value after each legal move of the root."""
    out = {}
    line = ((s.key(), one_way_counts(s)),)
    for m in s.legal_moves():
        c = s.clone()
        c.apply(m)
        out[str(m)] = brute_force(c, line, budget, memo, scc)
    return out


def walk_against_reference(g, s: State, ref) -> int:
    """Walk every position below the root of the solved compiled graph ``g`` (through
    ``node_edges``) and check that each has, in the solved Python reference solver ``ref``,
    the value of the node it is met at, and the legal moves and chance outcomes the node's
    edges say. Returns how many positions it met."""
    from palace_solver import _engine as eng

    root = eng.CState.from_state(s)
    seen = {root.packed()}
    todo = [(0, root)]
    while todo:
        u, here = todo.pop()
        want = ref.value[ref.ids[here.to_state().key()]]
        assert g.node_value(u) == tuple(float(x) for x in want) or all(
            abs(float(x) - y) <= 1e-12 for x, y in zip(want, g.node_value(u))), (
            here.to_state().describe(), u)
        edges = g.node_edges(u, here)
        assert [str(m) for m, _ in edges] == [str(m) for m in here.legal_moves()]
        for m, outs in edges:
            after = here.clone()
            after.apply(m)
            kids = [after]
            if after.is_chance():
                kids = []
                for rank, _ in after.chance_outcomes():
                    c = after.clone()
                    c.apply(rank)
                    kids.append(c)
            assert len(kids) == len(outs)
            for (_, t), c in zip(outs, kids):
                if isinstance(t, tuple):
                    assert c.is_terminal() and tuple(float(x) for x in c.result()) == t
                    continue
                k = c.packed()
                if k not in seen:
                    seen.add(k)
                    todo.append((t, c))
    return len(seen)

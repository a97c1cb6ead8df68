"""Simulated games in the event language of `palace live`, and the checks of a seat's record
against the truth, shared by the live tests: a game is played with the reference engine and
bots (seeded), its events written as the user at one seat would enter them, and after every
event a session's record (or the web board's line) is compared with the true state."""
from __future__ import annotations

import random

from palace_solver.game.cards import RANKS, rank_name, ranks_of
from palace_solver.game.moves import FLIP, PICKUP, PLAY
from palace_solver.game.state import DEAL, LAYOUT_PHASE, State
from palace_solver.live.session import Session, Setup
from palace_solver.sample.policies import make_bot
from palace_solver.web.board import replay

BOTS = ["greedy", "random", "lowest", "greedy", "random", "lowest"]


def sample_card(state, rng):
    """A card of the unseen pool, every card equally likely."""
    x = rng.randrange(sum(state.pool))
    for r, c in enumerate(state.pool):
        if x < c:
            return r
        x -= c
    raise AssertionError


def simulate(rules, n, seed, me, cap=300):
    """(setup, events): events are (text, truth before, truth after, (player, move, source))
    with ``None`` as the last item for the user's draws and start cards."""
    others = iter(["bob", "carol", "dave", "eve", "fay"])
    names = ["me" if i == me else next(others) for i in range(n)]
    state = State.new_game(rules, n)
    rng = random.Random(f"live-chance-{seed}")
    brng = random.Random(f"live-bots-{seed}")
    bots = [make_bot(BOTS[(i + seed) % len(BOTS)]) for i in range(n)]
    while state.phase == DEAL:
        state.apply(sample_card(state, rng))
    dealt = [ranks_of(f) for f in state.face_up]
    while state.phase == LAYOUT_PHASE:
        state.apply(bots[state.to_move].choose(state, brng))
    laid = [ranks_of(f) for f in state.face_up]
    # Rule 3 counts the face-up cards as dealt; the session sees them after the swap, so
    # when a swap changed them the user says who starts (the engine's first player).
    first = state.to_move if laid != dealt and not state.is_chance() else None
    setup = Setup(names, me, rules, ranks_of(state.hands[me]), laid, first=first)
    return setup, play_events(state, names, bots, me, rng, brng, cap)


def play_events(state, names, bots, me, rng, brng, cap=300):
    """Play a game from the end of the layout to its end (or its first repeated position,
    or ``cap`` decisions), each event as the user at seat ``me`` would enter it: the start
    cards, every play, pickup and flip (with the card turned up), the user's own draws; the
    others' draws are not entered. Events are (text, truth before, truth after,
    (player, move, source)), with None as the last item for draws and start cards."""
    evs = []
    while state.is_chance() and state.pending[0] == "start":
        before = state.clone()
        r = sample_card(state, rng)
        state.apply(r)
        evs.append((f"start {rank_name(r)}", before, state.clone(), None))
    seen = set()
    while not state.is_terminal() and len(seen) < cap:
        if state.key() in seen:
            break  # a repetition: the game would be scored a draw
        seen.add(state.key())
        before = state.clone()
        p = state.to_move
        m = bots[p].choose(state, brng)
        src = state.source(p)
        state.apply(m)
        if m.kind == FLIP:
            r = sample_card(state, rng)
            state.apply(r)
            text = f"{names[p]} flip {rank_name(r)}"
        else:
            text = f"{names[p]} {m}"
        while state.is_chance() and state.pending[1] != me:
            state.apply(sample_card(state, rng))  # the others' draws: not entered
        evs.append((text, before, state.clone(), (p, m, src)))
        if state.is_chance():
            before = state.clone()
            drawn = []
            while state.is_chance():
                drawn.append(sample_card(state, rng))
                state.apply(drawn[-1])
            evs.append(("draw " + " ".join(map(rank_name, drawn)), before, state.clone(), None))
    return evs


class Knowledge:
    """What the user can know of each opponent's hand, from the true events alone: the
    cards seen going in (pickups), less the copies of a rank played from the hand."""

    def __init__(self, n, me):
        self.me = me
        self.known = [[0] * 16 for _ in range(n)]

    def update(self, before, after, info):
        if info is None:
            return
        p, m, src = info
        if p == self.me:
            return
        k = self.known[p]
        if m.kind == PLAY and src == "hand":
            k[m.rank] -= min(k[m.rank], m.count)
        if m.kind == PICKUP or (m.kind == FLIP and sum(after.hands[p]) > sum(before.hands[p])):
            for r in RANKS:
                k[r] += after.hands[p][r] - before.hands[p][r]


def check_against_truth(s: Session, truth: State, know: Knowledge):
    if not truth.is_terminal() and not truth.is_chance():
        assert s.at_decision()
    check_view(s.state, s.me, s.position, truth, know)


def check_view(st: State, me: int, position, truth: State, know: Knowledge):
    """The seat's record ``st`` (and ``position()`` at a decision) against the truth: the
    user's hand exact, the others' known cards what the user can know, the unseen cards
    exactly the true hidden ones, the position's counts the true counts."""
    n = st.n
    assert st.hands[me] == truth.hands[me]
    for q in range(n):
        assert st.face_up[q] == truth.face_up[q]
        assert st.face_down[q] == truth.face_down[q]
        assert sum(st.hands[q]) == sum(truth.hands[q])
        if q != me:
            for r in RANKS:
                assert st.hands[q][r] == know.known[q][r], (q, rank_name(r))
                assert st.hands[q][r] <= truth.hands[q][r], (q, rank_name(r))
    assert st.pile == truth.pile and st.burned == truth.burned
    assert st.draw_pile == truth.draw_pile and st.out == truth.out
    hidden = truth.pool[:]
    for q in range(n):
        if q != me:
            for r in RANKS:
                hidden[r] += truth.hands[q][r] - know.known[q][r]
    assert st.pool[1:] == hidden[1:]
    if truth.is_terminal():
        assert st.is_terminal() and st.loss == truth.loss
        return
    if truth.is_chance():
        assert st.pending == truth.pending
        return
    assert st.to_move == truth.to_move
    if st.rules.jokers and any(st.out):
        return
    pos = position()
    seats = [q for q in range(n) if not truth.out[q]]
    assert pos.draw_pile == truth.draw_pile and pos.to_move == seats.index(truth.to_move)
    assert pos.perspective == (seats.index(me) if me in seats else None)
    for i, q in enumerate(seats):
        pp = pos.players[i]
        assert pp.hand_count == sum(truth.hands[q]) and pp.face_down == truth.face_down[q]
        assert pp.face_up == ranks_of(truth.face_up[q])
        assert sorted(pp.hand_known) == sorted(ranks_of(st.hands[q]))
    assert sum(pos.unseen_counts()) == sum(hidden)


class BoardFollower:
    """The web board's line (palace_solver/web/board.py) fed the same game from the user's
    seat: it starts at the session's first decision, from the session's position, and
    takes each later event as board steps (a move; a flip and the card; the user's draws,
    card by card). The others' refills it settles itself."""

    def __init__(self):
        self.line = None

    def follow(self, s: Session, text: str, info, truth: State, know: Knowledge):
        if self.line is None:
            if s.at_decision():
                self.line = replay(s.position(), [])
            else:
                return
        else:
            for step in self._steps(text, info):
                self.line.play(step)
        line = self.line
        check_view(line.state, line.viewer, line.position, truth, know)
        if s.at_decision() and not (s.rules.jokers and any(s.state.out)):
            assert line.position().to_json() == s.position().to_json()

    @staticmethod
    def _steps(text: str, info) -> list[str]:
        if info is None:            # the user's draws: "draw 7 K"
            assert text.startswith("draw ")
            return text.split()[1:]
        _, m, _ = info
        if m.kind == FLIP:          # "bob flip 9": the flip, then the card
            return ["flip", text.split()[-1]]
        return [str(m)]


def signature(s: Session):
    st = s.state
    return (tuple(map(tuple, st.hands)), tuple(map(tuple, st.face_up)), tuple(st.face_down),
            tuple(st.pile), tuple(st.burned), tuple(st.pool), st.draw_pile, st.to_move,
            st.direction, tuple(st.out), tuple(st.out_order), st.phase, st.pending,
            st.next_after, st.last_player, st.loss, s.first_open, tuple(s.events))


def simulate_deal(rules, n, seed, me, cap=300, first_card=None):
    """(setup, events) of a game from the deal: the user's cards as dealt, every player's
    layout (in a shuffled order), then the play (play_events).
    ``first_card``: the rank of the first card dealt (face up, left of the dealer)."""
    others = iter(["bob", "carol", "dave", "eve", "fay"])
    names = ["me" if i == me else next(others) for i in range(n)]
    state = State.new_game(rules, n)
    rng = random.Random(f"live-deal-chance-{seed}")
    brng = random.Random(f"live-deal-bots-{seed}")
    bots = [make_bot(BOTS[(i + seed) % len(BOTS)]) for i in range(n)]
    if first_card is not None:
        state.apply(first_card)
    while state.phase == DEAL:
        state.apply(sample_card(state, rng))
    dealt = ranks_of([a + b for a, b in zip(state.hands[me], state.face_up[me])])
    # Odd seeds also say which cards were dealt face up, in order (rule 3 looks there).
    up = [r for q, r in state.dealt_up if q == me] if seed % 2 and not rules.choose_face_up \
        else None
    setup = Setup(names, me, rules, [], [[] for _ in range(n)], deal=dealt, deal_up=up)
    lay = []
    while state.phase == LAYOUT_PHASE:
        p = state.to_move
        m = bots[p].choose(state, brng)
        state.apply(m)
        lay.append(f"{names[p]} {m}")
    random.Random(seed).shuffle(lay)
    evs = [(t, None, None, None) for t in lay]
    evs[-1] = (lay[-1], None, state.clone(), None)
    return setup, evs + play_events(state, names, bots, me, rng, brng, cap)

# cython: language_level=3
"""Compiled core of palace-solver: the PLAY-phase rules engine, packed keys and the table.

Python entry points: :class:`CState` (the OpenSpiel-shaped state, built from and converted
back to a :class:`palace_solver.game.state.State`), :func:`rules_flags`, :class:`TranspositionTable`.
The C-level API used by the solver is listed in ``_engine.pxd``.
"""
from fractions import Fraction

from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t
# The module is palace_solver._engine, built from ext/: Cython looks for its own .pxd under
# palace_solver/, so the declarations in ext/_engine.pxd are cimported explicitly.
from _engine cimport *
from libc.string cimport memcpy, memset

from palace_solver.game.moves import PLAY, PICKUP, FLIP, IllegalMoveError, Move
from palace_solver.game.rules import VARIANTS
from palace_solver.game.state import CHANCE, OVER, PLAY_PHASE, TERMINAL, State
from palace_solver.game.cards import RANKS

include "core.pxi"
include "tt.pxi"
include "exact_keys.pxi"
include "exact_parallel.pxi"
include "exact_merge.pxi"
include "exact_build.pxi"
include "exact_solve.pxi"
include "exact.pxi"
include "evaluate.pxi"
include "chance.pxi"
include "policy.pxi"
include "deepen.pxi"
include "decide.pxi"
include "peers.pxi"

assert sizeof(TTEntry) == 16
assert sizeof(CMove) == 3
assert EV_IN == 3 * EV_PB + EV_SEAT + EV_PUB

_KIND_CODE = {PLAY: MK_PLAY, PICKUP: MK_PICKUP, FLIP: MK_FLIP}
_PEND_CODE = {"draw": PEND_DRAW, "flip": PEND_FLIP, "start": PEND_START}
_PEND_NAME = {PEND_DRAW: "draw", PEND_FLIP: "flip", PEND_START: "start"}


# -- rules ------------------------------------------------------------------------------------

cdef dict _RULES_CACHE = {}


cdef void _fill_rules(object rules, PRules* out) except *:
    cdef bytes cached = _RULES_CACHE.get(rules)
    if cached is not None:
        memcpy(out, <char*>cached, sizeof(PRules))
        return
    _build_rules(rules, out)
    _RULES_CACHE[rules] = (<char*>out)[:sizeof(PRules)]


cdef void _build_rules(object rules, PRules* out) except *:
    cdef int i, r, b
    memset(out, 0, sizeof(PRules))
    for i, name in enumerate(VARIANTS):
        if getattr(rules, name):
            out.flags |= <uint32_t>1 << i
    for r in RANKS:
        if rules.burns(r):
            out.burn_mask |= 1 << r
        if rules.transparent(r):
            out.transp_mask |= 1 << r
        if rules.reverses(r):
            out.rev_mask |= 1 << r
        if rules.skips(r):
            out.skip_mask |= 1 << r
    # play_mask[beat] asks the reference engine itself: State.playable on a one-card pile.
    probe = State.__new__(State)
    probe.rules = rules
    for b in range(16):
        probe.pile = [b] if b >= 2 else []
        for r in RANKS:
            if probe.playable(r):
                out.play_mask[b] |= 1 << r
    out.zone = rules.zone_size
    out.nranks = 14 if rules.jokers else 13


def rules_flags(rules):
    """The compiled view of a Rules object, as a dict (for tests and debugging)."""
    cdef PRules pr
    _fill_rules(rules, &pr)
    return {"flags": pr.flags, "burn_mask": pr.burn_mask, "transp_mask": pr.transp_mask,
            "rev_mask": pr.rev_mask, "skip_mask": pr.skip_mask,
            "play_mask": [pr.play_mask[b] for b in range(16)], "zone": pr.zone,
            "nranks": pr.nranks}


cdef dict _MOVE_CACHE = {}


cdef object _move_obj(CMove m):
    """The Move of m; Moves are frozen, so one object per move is shared (the search
    returns a move list per deal, thousands per decision)."""
    cdef long key = (<long>m.kind << 16) | (<long>m.rank << 8) | <long>m.count
    mv = _MOVE_CACHE.get(key)
    if mv is not None:
        return mv
    if m.kind == MK_PLAY:
        mv = Move.play(m.rank, m.count)
    elif m.kind == MK_PICKUP:
        mv = Move.pickup(m.rank)
    else:
        mv = Move.flip()
    _MOVE_CACHE[key] = mv
    return mv


# -- the state --------------------------------------------------------------------------------

cdef class CState:
    """A PLAY-phase position in the compiled engine (decision, pending chance or terminal).

    ``to_state()`` rebuilds a State. Every field of State.key() round-trips exactly, and so
    do out_order, last_player, next_after, the loss and the burned cards (deck minus the
    rest). Under rules other than lenient_blind the pile order is not stored: the pile comes
    back as its other cards (rank order), then the rank to beat when the top is transparent,
    then the top run, which gives the same multiset, top rank, top run (capped at 3) and
    rank to beat, hence the same key.
    """
    cdef PState s
    cdef object rules

    @classmethod
    def from_state(cls, state):
        """:raises ValueError: for a state not in the PLAY phase (deal, layout)."""
        cdef CState c = cls.__new__(cls)
        cdef PState* s = &c.s
        cdef int p, r, i
        if state.phase not in (PLAY_PHASE, OVER):
            raise ValueError(f"the compiled engine starts after the deal, not in phase "
                             f"{state.phase!r}")
        if state.n > MAXP:
            raise ValueError(f"{state.n} players: the compiled engine seats at most {MAXP}")
        memset(s, 0, sizeof(PState))
        _fill_rules(state.rules, &s.r)
        c.rules = state.rules
        s.n = state.n
        for p in range(state.n):
            for r in range(2, 16):
                s.pl[p].hand[r] = state.hands[p][r]
                s.pl[p].up[r] = state.face_up[p][r]
            s.pl[p].hand_n = sum(state.hands[p])
            s.pl[p].up_n = sum(state.face_up[p])
            s.pl[p].face_down = state.face_down[p]
        for r in range(2, 16):
            s.pool[r] = state.pool[r]
        s.draw_pile = state.draw_pile
        for r in state.pile:
            pile_push(s, r, 1)
        s.to_move = state.to_move
        s.direction = state.direction
        s.last_player = -1 if state.last_player is None else state.last_player
        for p in range(state.n):
            if state.out[p]:
                s.out_mask |= 1 << p
        s.n_out = len(state.out_order)
        for i, p in enumerate(state.out_order):
            s.out_order[i] = p
        if state.pending is not None:
            s.pend_kind = _PEND_CODE[state.pending[0]]
            s.pend_player = state.pending[1]
            s.pend_count = state.pending[2]
        s.next_after = state.next_after
        s.loser = -1
        s.winner = -1
        if state.phase == OVER:
            s.to_move = TM_TERMINAL
            if state.rules.first_out_wins:
                s.winner = [q for q in range(state.n) if state.loss[q] == 0][0]
            else:
                s.loser = [q for q in range(state.n) if state.loss[q] == 1][0]
        return c

    def pile_list(self):
        """The pile bottom first: exact under lenient_blind, else rebuilt (see the class)."""
        cdef PState* s = &self.s
        cdef int r, t = s.top
        if s.r.flags & RF_LENIENT_BLIND:
            return [s.seq[i] for i in range(s.pile_n)]
        rest = [s.pile[r] for r in range(16)]
        top_first = []
        if t:
            top_first += [t] * s.run
            rest[t] -= s.run
            if (s.r.transp_mask >> t) & 1 and s.beat:
                top_first.append(s.beat)
                rest[s.beat] -= 1
        top_first += [r for r in RANKS if r != t for _ in range(rest[r])]
        if t:
            top_first += [t] * rest[t]
        return top_first[::-1]

    def to_state(self):
        cdef PState* s = &self.s
        cdef int p, r, n = s.n
        st = State(self.rules, n)
        st.hands = [[s.pl[p].hand[r] for r in range(16)] for p in range(n)]
        st.face_up = [[s.pl[p].up[r] for r in range(16)] for p in range(n)]
        st.face_down = [s.pl[p].face_down for p in range(n)]
        st.pile = self.pile_list()
        st.pool = [s.pool[r] for r in range(16)]
        st.draw_pile = s.draw_pile
        deck = self.rules.deck_counts(n)
        st.burned = [deck[r] - sum(h[r] for h in st.hands) - sum(f[r] for f in st.face_up)
                     - s.pile[r] - s.pool[r] for r in range(16)]
        st.direction = s.direction
        st.out = [bool((s.out_mask >> p) & 1) for p in range(n)]
        st.out_order = [s.out_order[i] for i in range(s.n_out)]
        st.last_player = None if s.last_player < 0 else s.last_player
        st.next_after = s.next_after
        st.pending = None
        if s.pend_kind != PEND_NONE:
            st.pending = (_PEND_NAME[s.pend_kind], s.pend_player, s.pend_count)
        if s.to_move == TM_TERMINAL:
            st.phase = OVER
            st.to_move = TERMINAL
            st.loss = self.result()
        else:
            st.phase = PLAY_PHASE
            st.to_move = s.to_move
        return st

    def clone(self):
        cdef CState c = CState.__new__(CState)
        c.s = self.s
        c.rules = self.rules
        return c

    @property
    def n(self):
        return self.s.n

    @property
    def rules(self):
        return self.rules

    def current_player(self):
        return self.s.to_move

    def is_chance(self):
        return ps_is_chance(&self.s)

    def is_terminal(self):
        return ps_is_terminal(&self.s)

    def legal_moves(self):
        cdef CMove moves[MAX_MOVES]
        cdef int i, nm = gen_moves(&self.s, moves)
        return [_move_obj(moves[i]) for i in range(nm)]

    def moves_by_index(self):
        """legal_moves() again, each found alone by its index (nth_move, what the random
        rollouts draw): the parity tests hold the two to the same list."""
        cdef MovePlan mp
        cdef int i
        move_plan(&self.s, &mp)
        return [_move_obj(nth_move(&mp, i)) for i in range(mp.n)]

    def chance_outcomes(self):
        cdef int ranks[16]
        cdef int weights[16]
        cdef int i, total = 0, k = chance_outcomes(&self.s, ranks, weights)
        for i in range(k):
            total += weights[i]
        return [(ranks[i], Fraction(weights[i], total)) for i in range(k)]

    def result(self):
        """Each player's loss share (Fractions), for a terminal state.

        :raises ValueError: when the game is not over.
        """
        cdef int q, n = self.s.n
        if not ps_is_terminal(&self.s):
            raise ValueError("result() of a game that is not over")
        if self.s.r.flags & RF_FIRST_OUT_WINS:
            return [Fraction(0) if q == self.s.winner else Fraction(1, n - 1)
                    for q in range(n)]
        return [Fraction(int(q == self.s.loser)) for q in range(n)]

    def apply(self, move):
        """Apply a Move (or its text) of the player to move, or a rank at a chance node.

        :raises IllegalMoveError: for anything not legal here.
        """
        cdef CMove moves[MAX_MOVES]
        cdef int i, nm, r
        if ps_is_chance(&self.s):
            if (not isinstance(move, int) or isinstance(move, bool) or not 2 <= move < 16
                    or not self.s.pool[move]):
                raise IllegalMoveError(f"illegal chance outcome {move!r}")
            apply_chance(&self.s, move)
            return
        if isinstance(move, str):
            move = Move.parse(move)
        if isinstance(move, Move):
            nm = gen_moves(&self.s, moves)
            kind = _KIND_CODE.get(move.kind, -1)
            for i in range(nm):
                if (moves[i].kind == kind and moves[i].rank == move.rank
                        and moves[i].count == move.count):
                    apply_move(&self.s, moves[i])
                    return
        raise IllegalMoveError(f"illegal move {str(move)!r}")

    def packed(self):
        """The position identity as bytes (little-endian words of pack_state)."""
        cdef uint64_t words[MAX_WORDS]
        cdef int nw = pack_state(&self.s, words)
        return (<char*>words)[:nw * 8]

    def nwords(self):
        return pack_nwords(&self.s)

    def key(self):
        """64-bit hash of the packed words."""
        cdef uint64_t words[MAX_WORDS]
        cdef int nw = pack_state(&self.s, words)
        return hash_words(words, nw)

    @classmethod
    def from_packed(cls, CState template, bytes data):
        """Decode packed bytes with the rules and player count of `template`."""
        cdef CState c = CState.__new__(CState)
        cdef uint64_t words[MAX_WORDS]
        cdef int nw = pack_nwords(&template.s)
        if len(data) != nw * 8:
            raise ValueError(f"packed state of {len(data)} bytes, expected {nw * 8}")
        memcpy(words, <char*>data, nw * 8)
        c.s = template.s
        c.rules = template.rules
        unpack_state(words, nw, &c.s)
        return c

    def perft(self, int depth):
        """Leaves of the game tree `depth` plies deep (chance outcomes expanded per rank)."""
        return self.perft_count(depth)[0]

    def perft_count(self, int depth):
        """(leaves, successors made) of perft(depth), at C speed without the GIL."""
        cdef uint64_t applies = 0, leaves
        with nogil:
            leaves = perft_rec(&self.s, depth, &applies)
        return leaves, applies


# -- transposition table ----------------------------------------------------------------------

cdef class TranspositionTable:
    """The table of tt.pxi for Python tests and tools. Keys are CStates or packed bytes (then
    `key` may force the 64-bit hash, to provoke collisions)."""
    cdef TT t

    def __cinit__(self, double mb=16.0, int nwords=1):
        if nwords < 1 or nwords > MAX_WORDS:
            raise ValueError(f"nwords {nwords} out of 1..{MAX_WORDS}")
        if tt_init(&self.t, mb, nwords, MAXV) != 0:
            raise MemoryError(f"transposition table of {mb} MB")

    def __dealloc__(self):
        tt_free(&self.t)

    @property
    def nwords(self):
        return self.t.nwords

    @property
    def nbuckets(self):
        return self.t.nbuckets

    @property
    def bytes(self):
        """Bytes of the slots (headers, values and key words): at most the size asked."""
        return tt_bytes(&self.t)

    @property
    def capacity(self):
        return self.t.nbuckets * TT_BUCKET

    cdef uint64_t _words(self, obj, uint64_t* words) except? 0:
        cdef CState c
        cdef int nw
        if isinstance(obj, CState):
            c = obj
            nw = pack_state(&c.s, words)
        else:
            data = bytes(obj)
            nw = len(data) // 8
            if len(data) % 8:
                raise ValueError("packed key must be whole 64-bit words")
            memcpy(words, <char*>data, nw * 8)
        if nw != self.t.nwords:
            raise ValueError(f"key of {nw} words in a table of {self.t.nwords}-word keys")
        return hash_words(words, nw)

    def probe(self, obj, key=None):
        """None, or (values, depth, bound, best Move or None) for this position."""
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t h = self._words(obj, words)
        cdef TTEntry* e
        if key is not None:
            h = key
        e = tt_probe(&self.t, h, words)
        if e == NULL:
            return None
        best = None if e.best.kind == 255 else _move_obj(e.best)
        return [tt_values(&self.t, e)[i] for i in range(MAXV)], e.depth, e.bound, best

    def store(self, obj, values, int depth, int bound=TT_EXACT, best=None, key=None):
        """Store; returns False when the replacement rule kept a deeper entry."""
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t h = self._words(obj, words)
        cdef double vals[MAXV]
        cdef CMove m
        cdef int i, nv = len(values)
        if key is not None:
            h = key
        if nv > MAXV:
            raise ValueError(f"{nv} values: a table entry holds {MAXV}")
        if bound not in (TT_EXACT, TT_LOWER, TT_UPPER):
            raise ValueError(f"bound {bound}")
        for i in range(nv):
            vals[i] = values[i]
        m.kind, m.rank, m.count = 255, 0, 0
        if best is not None:
            m.kind, m.rank, m.count = _KIND_CODE[best.kind], best.rank, best.count
        return tt_store(&self.t, h, words, vals, nv, depth, bound, m) != NULL

    def new_search(self):
        tt_new_search(&self.t)

    def clear(self):
        tt_clear(&self.t)

    def stats(self):
        return {"probes": self.t.probes, "hits": self.t.hits, "collisions": self.t.collisions,
                "stores": self.t.stores, "replacements": self.t.replacements,
                "occupied": self.t.occupied, "capacity": self.t.nbuckets * TT_BUCKET,
                "occupancy": <double>self.t.occupied / <double>(self.t.nbuckets * TT_BUCKET),
                "generation": self.t.generation}


TT_BOUND_EXACT = TT_EXACT
TT_BOUND_LOWER = TT_LOWER
TT_BOUND_UPPER = TT_UPPER

# The learned evaluation: features of a PState and a small network over them, compiled and
# nogil, called by horizon_eval (deepen.pxi) at the search's horizon.
# May use: core.pxi (next_active, the state) and the EV_* sizes of _engine.pxd.
#
# Why this shape. A position's loss probabilities must not depend on how the seats are
# numbered, only on who sits where relative to the player to move. So the features are
# built per player, in the order of play from the player to move (out players skipped),
# and one network scores every player alike from
#
#   [ own block | block of the next player | sum of the other players' blocks | seat | public ]
#      EV_PB        EV_PB                     EV_PB                              EV_SEAT EV_PUB
#
# The loss estimate is the softmax of the scores over the players still in (two players: a
# logistic of the difference). Loss shares always sum to 1 (a draw is shared, under
# first_out_wins the non-winners share), so the softmax fits every rule set.
#
# Player block (EV_PB = 37 values, all small integers), for player p:
#   0..13  hand counts of ranks 2..15        14..27  face-up counts of ranks 2..15
#   28 face-down cards   29 hand cards   30 face-up cards   31 cards left in all
#   32 / 33 / 34  the source: hand / face-up / face-down (one of them 1, or none)
#   35 cards of the source legal on the pile now (0 at the face-down stage)
#   36 specials in hand and face-up: 2s and the ranks that burn or are transparent
#
# Seat (EV_SEAT = 6): one-hot of the player's place in the order of play from the player to
# move (0 = the mover), places past 5 counted as 5.
#
# Public block (EV_PUB = 90):
#   0..13 pile counts of ranks 2..15   14 pile size
#   15..29 top rank one-hot (15 = empty pile, 15 + r - 1 for rank r)
#   30..44 rank to beat one-hot (30 = none), same layout   45 cards of the top rank on top (<= 3)
#   46..59 unseen pool counts of ranks 2..15   60 pool size   61 draw pile
#   62..66 players still in: 2, 3, 4, 5, 6 or more   67 players at the table
#   68..88 the rule switches (bit i of PRules.flags)   89 a chance event is pending
#
# The reference seat (place 0) is the player to move; at a pending draw the player who moves
# after it, at a pending flip its player. palace_solver/learn/features.py computes the same
# numbers from a game State in numpy (tests compare them on random states of both engines).
#
# Network (weights from palace_solver/data/eval_weights.npz, float32, input scaling folded
# into the first layer): h1 = relu(W1 x + b1), h2 = relu(W2 h1 + b2), score = w3 . h2.
# The first layer is linear, so it is computed per block once: W_own pb_q, W_next pb_q and
# W_other pb_q for every player q, the public part once, and each player's pre-activation
# is a sum of those (the others' part is the total minus the player's own).

from libc.stdlib cimport malloc, free
from libc.math cimport exp

cdef int EVAL_MODE = EV_AUTO          # see set_eval_mode
cdef int EV_H1 = 0                     # hidden sizes of the loaded network (0 = none)
cdef int EV_H2 = 0
cdef float* EV_W1 = NULL               # EV_IN x H1, input-major (row i = input i)
cdef float* EV_B1 = NULL               # H1
cdef float* EV_W2 = NULL               # H1 x H2, input-major
cdef float* EV_B2 = NULL               # H2
cdef float* EV_W3 = NULL               # H2
cdef float* EV_PW = NULL               # EV_PB x 3*H1: row i = W1 rows i, EV_PB + i and
                                       #   2*EV_PB + i side by side (own, next, others)
# Changes whenever horizon_eval's values may change (weights, mode, parameters): the
# searches' leaf caches (deepen.pxi) hold values of one version only.
cdef uint32_t EVAL_VERSION = 1


cdef inline int ev_ref_seat(const PState* s) noexcept nogil:
    """The player whose place is 0: the mover, or who moves after a pending event."""
    if s.to_move >= 0:
        return s.to_move
    if s.pend_kind == PEND_DRAW:
        return s.next_after
    if s.pend_kind == PEND_FLIP:
        return s.pend_player
    return 0


cdef inline int ev_order(const PState* s, int* order) noexcept nogil:
    """Players still in, in the order of play from the reference seat; returns how many."""
    cdef int m = ev_ref_seat(s), q, k = 0, n = s.n
    if (s.out_mask >> m) & 1:
        m = next_active(s, m, 1)
    q = m
    while True:
        order[k] = q
        k += 1
        q = next_active(s, q, 1)
        if q == m or k >= n:
            break
    return k


cdef inline void ev_player_block(const PState* s, int p, float* x) noexcept nogil:
    """The EV_PB values of player p (layout above)."""
    cdef const PPlayer* pl = &s.pl[p]
    cdef const uint8_t* cnt
    cdef int r, legal = 0, spec = 0
    cdef uint16_t mask = s.r.play_mask[s.beat]
    cdef uint16_t special = s.r.burn_mask | s.r.transp_mask | (1 << 2)
    for r in range(2, 16):
        x[r - 2] = pl.hand[r]
        x[14 + r - 2] = pl.up[r]
        if (special >> r) & 1:
            spec += pl.hand[r] + pl.up[r]
    x[28] = pl.face_down
    x[29] = pl.hand_n
    x[30] = pl.up_n
    x[31] = pl.hand_n + pl.up_n + pl.face_down
    x[32] = 1 if pl.hand_n else 0
    x[33] = 1 if (pl.hand_n == 0 and pl.up_n) else 0
    x[34] = 1 if (pl.hand_n == 0 and pl.up_n == 0 and pl.face_down) else 0
    if pl.hand_n:
        cnt = &pl.hand[0]
    else:
        cnt = &pl.up[0]
    if pl.hand_n or pl.up_n:
        for r in range(2, 16):
            if (mask >> r) & 1:
                legal += cnt[r]
    x[35] = legal
    x[36] = spec


cdef inline void ev_public_block(const PState* s, int active, float* x) noexcept nogil:
    """The EV_PUB values (layout above); `active` players are still in."""
    cdef int r, i, tot = 0
    for i in range(EV_PUB):
        x[i] = 0.0
    for r in range(2, 16):
        x[r - 2] = s.pile[r]
        x[46 + r - 2] = s.pool[r]
        tot += s.pool[r]
    x[14] = s.pile_n
    x[15 + (s.top - 1 if s.top else 0)] = 1.0
    x[30 + (s.beat - 1 if s.beat else 0)] = 1.0
    x[45] = s.run
    x[60] = tot
    x[61] = s.draw_pile
    x[62 + (active - 2 if active < 6 else 4)] = 1.0
    x[67] = s.n
    for i in range(21):
        x[68 + i] = (s.r.flags >> i) & 1
    x[89] = 1 if s.to_move == TM_CHANCE else 0


cdef int ev_features(const PState* s, float* x, int* order) noexcept nogil:
    """Every player's full input row (EV_IN values each, in the order of play from the
    reference seat, players still in only), into x; their seats into order. Returns the
    number of rows. For tests and data; the evaluation itself works block by block."""
    cdef float pb[MAXP][EV_PB]
    cdef float pub[EV_PUB]
    cdef int a = ev_order(s, order), k, i, j
    for k in range(a):
        ev_player_block(s, order[k], pb[k])
    ev_public_block(s, a, pub)
    for k in range(a):
        for i in range(EV_PB):
            x[k * EV_IN + i] = pb[k][i]
            x[k * EV_IN + EV_PB + i] = pb[(k + 1) % a][i]
            x[k * EV_IN + 2 * EV_PB + i] = 0.0
            for j in range(a):
                if j != k:
                    x[k * EV_IN + 2 * EV_PB + i] += pb[j][i]
        for i in range(EV_SEAT):
            x[k * EV_IN + 3 * EV_PB + i] = 0.0
        x[k * EV_IN + 3 * EV_PB + (k if k < EV_SEAT else EV_SEAT - 1)] = 1.0
        for i in range(EV_PUB):
            x[k * EV_IN + 3 * EV_PB + EV_SEAT + i] = pub[i]
    return a


cdef extern from *:
    """
    #include <stdlib.h>   /* defines __GLIBC__ where it is glibc, whose ifunc clones need */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
    #define PALACE_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define PALACE_VECTOR_CLONES
    #endif
    /* acc[j] += x[i] * w[i * width + j] for each i with x[i] != 0, i in order. Each element
       is one product and one sum, rounded apart, so a wider vector unit computes the same
       floats as a narrow one: the AVX2 clone, which the loader picks where the processor
       has it (GCC's function multi-versioning, glibc's ifunc), plays the same games as the
       SSE2 default. No clone may enable FMA: a fused multiply-add rounds once and would
       change them. */
    PALACE_VECTOR_CLONES
    static void palace_ev_rows(float* __restrict acc, const float* __restrict w,
                               const float* __restrict x, int nin, int width) {
        int i, j;
        for (i = 0; i < nin; i++) {
            const float v = x[i];
            const float* __restrict row = w + (long)i * width;
            if (v == 0.0f) continue;
            for (j = 0; j < width; j++) acc[j] += v * row[j];
        }
    }
    /* A player's first hidden layer: relu of the public part, its own block, the next
       player's, the others' (the total minus its own) and its seat's row, added in that
       order (the order of the plain loop it replaces: the same floats). */
    PALACE_VECTOR_CLONES
    static void palace_ev_hidden(float* __restrict h1, const float* __restrict pub,
                                 const float* __restrict own, const float* __restrict next,
                                 const float* __restrict others,
                                 const float* __restrict own_other,
                                 const float* __restrict seat, int width) {
        int j;
        for (j = 0; j < width; j++) {
            const float v = pub[j] + own[j] + next[j] + others[j] - own_other[j] + seat[j];
            h1[j] = v > 0.0f ? v : 0.0f;
        }
    }
    """
    void ev_rows "palace_ev_rows" (float* acc, const float* w, const float* x, int nin,
                                   int width) noexcept nogil
    void ev_hidden "palace_ev_hidden" (float* h1, const float* pub, const float* own,
                                       const float* next, const float* others,
                                       const float* own_other, const float* seat,
                                       int width) noexcept nogil


cdef void learned_eval(const PState* s, double* out) noexcept nogil:
    """Loss estimate of each player from the loaded network (softmax of the scores)."""
    cdef int order[MAXP]
    cdef float pb[EV_PB]
    cdef float pub[EV_PUB]
    cdef float acc[MAXP][3 * EV_HMAX]  # per player: W_own pb | W_next pb | W_other pb
    cdef float othsum[EV_HMAX]
    cdef float pubh[EV_HMAX]
    cdef float h1[EV_HMAX]
    cdef float h2[EV_HMAX]
    cdef double score[MAXP]
    cdef int a, k, i, j, q, H1 = EV_H1, H2 = EV_H2
    cdef double mx, z
    a = ev_order(s, order)
    memcpy(pubh, EV_B1, H1 * sizeof(float))
    memset(othsum, 0, H1 * sizeof(float))
    ev_public_block(s, a, pub)
    ev_rows(pubh, &EV_W1[(3 * EV_PB + EV_SEAT) * H1], pub, EV_PUB, H1)
    for k in range(a):
        ev_player_block(s, order[k], pb)
        memset(acc[k], 0, 3 * H1 * sizeof(float))
        ev_rows(acc[k], EV_PW, pb, EV_PB, 3 * H1)
        for j in range(H1):
            othsum[j] += acc[k][2 * H1 + j]
    mx = -1e300
    for k in range(a):
        q = (k + 1) % a
        i = 3 * EV_PB + (k if k < EV_SEAT else EV_SEAT - 1)
        ev_hidden(h1, pubh, acc[k], &acc[q][H1], othsum, &acc[k][2 * H1], &EV_W1[i * H1], H1)
        memcpy(h2, EV_B2, H2 * sizeof(float))
        ev_rows(h2, EV_W2, h1, H1, H2)
        z = 0.0
        for j in range(H2):
            if h2[j] > 0.0:
                z += h2[j] * EV_W3[j]
        score[k] = z
        if z > mx:
            mx = z
    for i in range(s.n):
        out[i] = 0.0
    z = 0.0
    for k in range(a):
        score[k] = exp(score[k] - mx)
        z += score[k]
    for k in range(a):
        out[order[k]] = score[k] / z


# -- Python side: features for tests and data, weights, the mode ----------------------------

EVAL_CARDCOUNT = EV_CARDCOUNT
EVAL_LEARNED = EV_LEARNED
EVAL_AUTO = EV_AUTO
_MODE_NAMES = {EV_CARDCOUNT: "cardcount", EV_LEARNED: "learned", EV_AUTO: "auto"}
_MODE_CODES = {v: k for k, v in _MODE_NAMES.items()}
EVAL_INPUTS = EV_IN
EVAL_PLAYER_BLOCK = EV_PB
EVAL_SEATS = EV_SEAT
EVAL_PUBLIC_BLOCK = EV_PUB
_weights_source = None


def eval_features(CState c):
    """(seats, rows): the players still in, in the order of play from the reference seat,
    and each one's EV_IN input values (lists of floats, all integers)."""
    cdef float x[MAXP * EV_IN]
    cdef int order[MAXP]
    cdef int a = ev_features(&c.s, x, order), k, i
    return ([order[k] for k in range(a)],
            [[x[k * EV_IN + i] for i in range(EV_IN)] for k in range(a)])


def eval_blocks(CState c):
    """(seats, player blocks, public block): the players still in, in the order of play from
    the reference seat; their EV_PB values each, as bytes (a * EV_PB); the EV_PUB public
    values as bytes. Every value fits a byte. The compact form of the training data."""
    cdef float pb[EV_PB]
    cdef float pub[EV_PUB]
    cdef int order[MAXP]
    cdef uint8_t buf[MAXP * EV_PB]
    cdef uint8_t pbuf[EV_PUB]
    cdef int a = ev_order(&c.s, order), k, i
    for k in range(a):
        ev_player_block(&c.s, order[k], pb)
        for i in range(EV_PB):
            buf[k * EV_PB + i] = <uint8_t>pb[i]
    ev_public_block(&c.s, a, pub)
    for i in range(EV_PUB):
        pbuf[i] = <uint8_t>pub[i]
    return [order[k] for k in range(a)], (<char*>buf)[:a * EV_PB], (<char*>pbuf)[:EV_PUB]


cdef void _free_weights() noexcept:
    global EV_W1, EV_B1, EV_W2, EV_B2, EV_W3, EV_H1, EV_H2, EV_PW, EVAL_VERSION
    free(EV_PW)
    free(EV_W1)
    free(EV_B1)
    free(EV_W2)
    free(EV_B2)
    free(EV_W3)
    EV_W1 = EV_B1 = EV_W2 = EV_B2 = EV_W3 = EV_PW = NULL
    EV_H1 = EV_H2 = 0
    EVAL_VERSION += 1


cdef float* _float_copy(object arr, int count) except NULL:
    cdef bytes data = bytes(arr)
    cdef float* p
    if len(data) != 4 * count:
        raise ValueError(f"weights: {len(data)} bytes where {4 * count} were expected")
    p = <float*>malloc(4 * count)
    if p == NULL:
        raise MemoryError()
    memcpy(p, <char*>data, 4 * count)
    return p


def load_eval_weights(w1, b1, w2, b2, w3, source="arrays"):
    """Load the network: w1 (EV_IN x H1), b1 (H1), w2 (H1 x H2), b2 (H2), w3 (H2), as
    float32 arrays in C order (anything with the buffer protocol, e.g. numpy arrays).

    :raises ValueError: for shapes that do not fit.
    """
    global EV_W1, EV_B1, EV_W2, EV_B2, EV_W3, EV_H1, EV_H2, EV_PW, _weights_source
    cdef float* pw = NULL
    cdef int i, b
    cdef float* n1 = NULL
    cdef float* n2 = NULL
    cdef float* n3 = NULL
    cdef float* n4 = NULL
    cdef float* n5 = NULL
    cdef int h1 = len(b1), h2 = len(b2)
    if not (0 < h1 <= EV_HMAX and 0 < h2 <= EV_HMAX):
        raise ValueError(f"hidden sizes {h1}, {h2}: at most {EV_HMAX} each")
    try:
        n1 = _float_copy(memoryview(w1).cast("B"), EV_IN * h1)
        n2 = _float_copy(memoryview(b1).cast("B"), h1)
        n3 = _float_copy(memoryview(w2).cast("B"), h1 * h2)
        n4 = _float_copy(memoryview(b2).cast("B"), h2)
        n5 = _float_copy(memoryview(w3).cast("B"), h2)
        pw = <float*>malloc(EV_PB * 3 * h1 * sizeof(float))
        if pw == NULL:
            raise MemoryError()
    except BaseException:
        free(n1)
        free(n2)
        free(n3)
        free(n4)
        free(n5)
        free(pw)
        raise
    for i in range(EV_PB):
        for b in range(3):
            memcpy(&pw[(3 * i + b) * h1], &n1[(b * EV_PB + i) * h1], h1 * sizeof(float))
    _free_weights()
    EV_W1, EV_B1, EV_W2, EV_B2, EV_W3, EV_PW = n1, n2, n3, n4, n5, pw
    EV_H1, EV_H2 = h1, h2
    _weights_source = source


def eval_weights_loaded():
    """The source of the loaded network (a path or "arrays"), or None."""
    return _weights_source if EV_H1 else None


def _default_weights_path():
    """The shipped weights: palace_solver/data/eval_weights.npz."""
    import os
    return os.path.join(os.path.dirname(__file__), "data", "eval_weights.npz")


def _load_default_weights():
    import numpy as np
    path = _default_weights_path()
    with np.load(path) as f:
        load_eval_weights(*(np.ascontiguousarray(f[k], dtype=np.float32)
                            for k in ("w1", "b1", "w2", "b2", "w3")), source=path)


cdef int ensure_eval_ready() except -1:
    """Load the shipped weights if the mode needs them and none are loaded (first use)."""
    if EVAL_MODE != EV_CARDCOUNT and EV_H1 == 0:
        _load_default_weights()
    return 0


def set_eval_mode(mode):
    """The horizon evaluation of every compiled search: "cardcount" (the softmax of cards
    left), "learned" (the network), or "auto" (the default: the network while the draw
    pile holds cards, the card count once it is empty). Returns the previous mode. Loads the shipped
    weights at the first switch to a mode that needs them.

    :raises ValueError: for another name.
    """
    global EVAL_MODE, EVAL_VERSION
    if mode not in _MODE_CODES:
        raise ValueError(f"unknown evaluation mode {mode!r} (known: {', '.join(_MODE_CODES)})")
    old = _MODE_NAMES[EVAL_MODE]
    if EVAL_MODE != _MODE_CODES[mode]:
        EVAL_MODE = _MODE_CODES[mode]
        EVAL_VERSION += 1
    try:
        ensure_eval_ready()
    except BaseException:
        EVAL_MODE = _MODE_CODES[old]
        EVAL_VERSION += 1
        raise
    return old


def get_eval_mode():
    """The name of the horizon evaluation's mode (see set_eval_mode)."""
    return _MODE_NAMES[EVAL_MODE]


def learned_eval_position(CState c):
    """The learned evaluation of a position, whatever the mode (loads the weights)."""
    cdef double out[MAXP]
    if EV_H1 == 0:
        _load_default_weights()
    if ps_is_terminal(&c.s):
        terminal_loss(&c.s, out)
    else:
        learned_eval(&c.s, out)
    return [out[i] for i in range(c.s.n)]

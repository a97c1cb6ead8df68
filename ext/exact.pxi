# Exact solver, compiled: the same method as palace_solver/solve/exact.py (read its module doc).
# May use: core.pxi (moves, apply, chance, pack, hash); not the table or the search.
#
# 1. build: breadth-first enumeration of every decision position reachable from the root.
#    A position is identified during the build by its *compact key*: the packed words of
#    pack_state with every bit that cannot vary below this root squeezed out (see
#    "Compact keys"), kept in an open-addressing map of 8-byte slots (32-bit hash tag, id).
#    The build runs in chunks of parents: their expansion (unpack, moves, apply, pack) is
#    split between the threads, then the children are looked up in the map in the order a
#    one-thread build meets them, so the ids, hence the whole graph, are the same bytes for
#    any thread count.
# 2. keys and map are freed once the build is done; what the solve needs stays (below).
# 3. solve: nodes are sorted by `progress` (monotone: see solve/exact.py); a layer is solved
#    once every exit from it is known. Two players: the two Dijkstra-like sweeps (exact
#    values, independent of node order); three or more: Jacobi iteration from the draw
#    value (its sweeps split between the threads), with the cycle detection below.
#
# Graph layout after the build (bytes per position for two players, measured by stats()):
#   info[u]    uint32: (progress + PROG_BIAS) << 16 | out mask << 4 | mover       4
#   estart[u]  uint32: first edge of u (CSR; estart[N] = E)                        4
#   etgt[e]    int32 per move: a node id >= 0; a terminal -1 - code (code = loser,
#              or n + winner under first_out_wins, or 2n: a position of the game's
#              history, a draw); a flip -FLIP_BASE - f                             4 x moves
#   fstart[f]  uint32 per flip, into otgt / ow (the outcomes, in rank order)      small
#   otgt[o]    int32 target per outcome (as etgt, never a flip); ow[o] uint8 weight
#   val        loss values: one double per node for two players (player 0's loss), else
#              n doubles                                                          8
# Moves are not stored: a node's edges are in gen_moves order, so the root's moves come from
# the root state, and node_state / node_edges rebuild the states of the nodes they reach
# from the root (--line and --tree walk the graph from the root).
#
# Compact keys. pack_state writes every field in a fixed place with room for any deck; below
# one root most of those bits stay zero: a count can never exceed the cards of its rank
# still in play at the root (cards are never unburned), a face-up or unseen count never
# exceeds the root's own (they only shrink), the draw pile and the pending event are empty at
# every decision node of exact mode. key_mask_of packs a synthetic state whose every field
# holds the all-ones value of that bound's width: the result is a mask covering every bit a
# reachable position can set. The compact key is pext(words, mask) word by word,
# concatenated (pdep restores it); a position setting a bit outside the mask would be a bug,
# and the build checks for it on every key (an error, never a silent merge).
#
# Merged positions. Every rule reads a rank through the rule masks (play_mask, burn, transparent,
# reverse, skip), never through its value. rank_segments splits the ranks into classes that
# no mask tells apart except by their order: plain ranks that play on one another by order
# and stand alike towards every other rank and the empty pile (a burning rank is never the
# rank to beat, so its row of play_mask does not count: under the standard rules 3-9 and J-A
# are one class, the 10 between them). Cards are burned, never made, so below a root some
# ranks of a class die out; canon_map then moves the ranks still in play (in any zone, the
# pool or the pile) onto the lowest ranks of their class, in order. Two positions that differ
# only by which ranks of a class were burned get one key: the relabelling maps legal moves
# to legal moves and chance outcomes to outcomes of the same weight, so the game from both
# is the same game and their values are equal (but for rounding: a flip's outcomes are summed
# in the order of the canonical ranks). A node's edges are in the legal-move order of its
# canonical position (its flip outcomes in the order of the canonical ranks), which is not
# always that of a position it stands for: root_moves and node_edges map each move of the
# real position to its edge (_real_edges). With three players in or more, a mover's tie is
# broken in legal-move order and the choice changes the others' losses, so there the classes
# are runs of consecutive ranks (3-9 and J-A apart), whose relabelling keeps every order. canon_map also counts a run on the pile that can
# no longer reach four (too few cards of its rank left to play on it, or no four-burn) as a
# run of one: it burns nothing either way. Off with a game history: a position like a
# history position is not a repetition.

from libc.stdlib cimport malloc, calloc, realloc, free
from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t

cdef double SNAP = 1e-12
cdef int64_t NOMEM = -(<int64_t>1 << 40)   # _resolve's answer when a node cannot be added

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #include <pthread.h>
    #if defined(__x86_64__) && defined(__GNUC__)
    #include <immintrin.h>
    #define PALACE_X86 1
    #endif

    static uint64_t palace_pext_sw(uint64_t x, uint64_t m) {
        uint64_t r = 0; int k = 0;
        while (m) {
            int s = __builtin_ctzll(m);
            uint64_t t = m >> s;
            int len = (~t == 0) ? 64 - s : __builtin_ctzll(~t);
            uint64_t ones = len >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << len) - 1);
            r |= ((x >> s) & ones) << k;
            k += len;
            m &= ~(ones << s);
        }
        return r;
    }
    static uint64_t palace_pdep_sw(uint64_t x, uint64_t m) {
        uint64_t r = 0; int k = 0;
        while (m) {
            int s = __builtin_ctzll(m);
            uint64_t t = m >> s;
            int len = (~t == 0) ? 64 - s : __builtin_ctzll(~t);
            uint64_t ones = len >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << len) - 1);
            r |= ((x >> k) & ones) << s;
            k += len;
            m &= ~(ones << s);
        }
        return r;
    }
    /* compress nin packed words to the compact key (nout words); returns nonzero when a
       word has a bit outside its mask */
    #define PALACE_COMPRESS_BODY(PEXT)                                          \\
        int i, pos = 0; uint64_t bad = 0;                                       \\
        memset(out, 0, (size_t)nout * 8);                                       \\
        for (i = 0; i < nin; i++) {                                             \\
            uint64_t m = mask[i], v; int c, wi, off;                            \\
            bad |= in[i] & ~m;                                                  \\
            if (!m) continue;                                                   \\
            v = PEXT(in[i], m); c = __builtin_popcountll(m);                    \\
            wi = pos >> 6; off = pos & 63;                                      \\
            out[wi] |= v << off;                                                \\
            if (off + c > 64) out[wi + 1] |= v >> (64 - off);                   \\
            pos += c;                                                           \\
        }                                                                       \\
        return bad != 0;
    #define PALACE_EXPAND_BODY(PDEP)                                            \\
        int i, pos = 0;                                                         \\
        for (i = 0; i < nin; i++) {                                             \\
            uint64_t m = mask[i], v; int c, wi, off;                            \\
            if (!m) { words[i] = 0; continue; }                                 \\
            c = __builtin_popcountll(m); wi = pos >> 6; off = pos & 63;         \\
            v = key[wi] >> off;                                                 \\
            if (off + c > 64) v |= key[wi + 1] << (64 - off);                   \\
            words[i] = PDEP(v, m);                                              \\
            pos += c;                                                           \\
        }
    static int palace_compress_sw(const uint64_t* in, const uint64_t* mask, int nin,
                                  uint64_t* out, int nout) { PALACE_COMPRESS_BODY(palace_pext_sw) }
    static void palace_expand_sw(const uint64_t* key, const uint64_t* mask, int nin,
                                 uint64_t* words) { PALACE_EXPAND_BODY(palace_pdep_sw) }
    #ifdef PALACE_X86
    __attribute__((target("bmi2,popcnt")))
    static int palace_compress_hw(const uint64_t* in, const uint64_t* mask, int nin,
                                  uint64_t* out, int nout) { PALACE_COMPRESS_BODY(_pext_u64) }
    __attribute__((target("bmi2,popcnt")))
    static void palace_expand_hw(const uint64_t* key, const uint64_t* mask, int nin,
                                 uint64_t* words) { PALACE_EXPAND_BODY(_pdep_u64) }
    static int palace_has_bmi2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") ? 1 : 0;
    }
    #else
    #define palace_compress_hw palace_compress_sw
    #define palace_expand_hw palace_expand_sw
    static int palace_has_bmi2(void) { return 0; }
    #endif

    /* Run fn(ctx, t, nthreads) for t = 0 .. nthreads - 1, t = 0 on the calling thread, the
       others on fresh POSIX threads (no pool survives the call, so fork stays safe);
       returns when all are done. A thread that cannot start runs on the caller. */
    typedef void (*palace_task_fn)(void* ctx, int t, int nthreads);
    typedef struct { palace_task_fn fn; void* ctx; int t, n; } palace_task;
    static void* palace_task_main(void* a) {
        palace_task* k = (palace_task*)a; k->fn(k->ctx, k->t, k->n); return NULL;
    }
    static void palace_parallel(int nthreads, palace_task_fn fn, void* ctx) {
        pthread_t th[64]; palace_task tk[64]; int ok[64]; int t;
        if (nthreads > 64) nthreads = 64;
        for (t = 1; t < nthreads; t++) {
            tk[t].fn = fn; tk[t].ctx = ctx; tk[t].t = t; tk[t].n = nthreads;
            ok[t] = pthread_create(&th[t], NULL, palace_task_main, &tk[t]) == 0;
        }
        fn(ctx, 0, nthreads);
        for (t = 1; t < nthreads; t++) {
            if (ok[t]) pthread_join(th[t], NULL); else fn(ctx, t, nthreads);
        }
    }
    """
    int palace_compress_sw(const uint64_t* inp, const uint64_t* mask, int nin, uint64_t* out,
                           int nout) noexcept nogil
    int palace_compress_hw(const uint64_t* inp, const uint64_t* mask, int nin, uint64_t* out,
                           int nout) noexcept nogil
    void palace_expand_sw(const uint64_t* key, const uint64_t* mask, int nin,
                          uint64_t* words) noexcept nogil
    void palace_expand_hw(const uint64_t* key, const uint64_t* mask, int nin,
                          uint64_t* words) noexcept nogil
    int palace_has_bmi2() noexcept nogil
    ctypedef void (*palace_task_fn)(void* ctx, int t, int nthreads) noexcept nogil
    void palace_parallel(int nthreads, palace_task_fn fn, void* ctx) noexcept nogil

    int __builtin_popcountll(unsigned long long) noexcept nogil
    void __builtin_prefetch(const void*) noexcept nogil

cdef int HAVE_BMI2 = palace_has_bmi2()


cdef inline int popcount64(uint64_t x) noexcept nogil:
    return __builtin_popcountll(x)

cdef enum:
    PROG_BIAS = 1024       # progress + PROG_BIAS is stored in 16 bits
    FLIP_BASE = 64         # etgt <= -FLIP_BASE: a flip; -1 .. -(2n): a terminal
    CHUNK = 8192           # parents expanded per build step
    MAX_SWEEPS = 1000      # Jacobi sweeps of a 3+ player layer (solve/exact.py's max_sweeps)
    PAR_MIN = 4096         # smallest layer whose work is split between threads
    PAR_MIN_BUILD = 2048   # fewest parents of a build step split between threads


cdef inline int progress_of(const PState* s) noexcept nogil:
    """exact.progress up to a constant: face_down + face_up - burned - out, with
    burned = deck - (hands + face-up + pile + pool)."""
    cdef int p, t = s.pile_n - s.n_out
    for p in range(s.n):
        t += s.pl[p].face_down + 2 * s.pl[p].up_n + s.pl[p].hand_n
    for p in range(2, 16):
        t += s.pool[p]
    return t


cdef inline int popcount16(uint16_t x) noexcept nogil:
    cdef int c = 0
    while x:
        x &= x - 1
        c += 1
    return c


cdef inline int bitlen(int v) noexcept nogil:
    cdef int b = 0
    while v > 0:
        b += 1
        v >>= 1
    return b


cdef inline uint8_t ones_of(int v) noexcept nogil:
    """The all-ones value with the bit length of v (0 for 0)."""
    return <uint8_t>((1 << bitlen(v)) - 1)


cdef inline bint _bit(uint16_t m, int r) noexcept nogil:
    return (m >> r) & 1


cdef bint _class_ok(const PRules* R, uint16_t cls, int hi) noexcept nogil:
    """The ranks of bit set `cls` are interchangeable but for their order: no special mask,
    played on one another by order, and alike towards every other rank and the empty pile."""
    cdef uint16_t special = R.burn_mask | R.transp_mask | R.rev_mask | R.skip_mask
    cdef int x, y, c, a = -1
    for x in range(2, hi):
        if not _bit(cls, x):
            continue
        if a < 0:
            a = x
        if _bit(special, x):
            return False
        for y in range(2, hi):
            if _bit(cls, y) and _bit(R.play_mask[y], x) != (x >= y):
                return False
    for c in range(hi):
        if c == 1 or _bit(cls, c):
            continue
        for x in range(a + 1, hi):
            if not _bit(cls, x):
                continue
            # a burning rank is never the rank to beat: the pile goes with it
            if not _bit(R.burn_mask, c) and _bit(R.play_mask[c], x) != _bit(R.play_mask[c], a):
                return False
            if c and _bit(R.play_mask[x], c) != _bit(R.play_mask[a], c):
                return False
    return True


cdef void rank_segments(const PRules* R, uint8_t* seg, bint runs) noexcept nogil:
    """The classes of interchangeable ranks (see "Merged positions"): seg[r] is the lowest
    rank of r's class, seg[16 + r] the next rank of the class after r (0: none). ``runs``:
    classes of consecutive ranks only, so that relabelling keeps the legal-move order."""
    cdef int r, c, last, hi = 2 + R.nranks
    cdef uint16_t cls
    memset(seg, 0, 32)
    for r in range(2, 16):
        if seg[r]:
            continue
        seg[r] = <uint8_t>r
        if r >= hi:
            continue
        cls = <uint16_t>(1 << r)
        last = r
        for c in range(r + 1, hi):
            if runs and c != last + 1:
                break
            if seg[c] == 0 and _class_ok(R, cls | <uint16_t>(1 << c), hi):
                cls |= <uint16_t>(1 << c)
                seg[c] = <uint8_t>r
                seg[16 + last] = <uint8_t>c
                last = c


cdef inline void _slide(uint8_t* a, const uint8_t* mp) noexcept nogil:
    # mp[r] <= r, and a target slot is dead or already moved on (ascending order)
    cdef int r
    for r in range(2, 16):
        if mp[r] != r:
            a[mp[r]] = a[r]
            a[r] = 0


cdef inline void canon_ranks(PState* s, const uint8_t* seg) noexcept nogil:
    cdef uint8_t mp[16]
    canon_map(s, seg, mp)


cdef inline void canon_map(PState* s, const uint8_t* seg, uint8_t* mp) noexcept nogil:
    """The ranks in play slid onto the lowest ranks of their classes, and a pile run that
    cannot reach four counted as one (see "Merged positions"); mp[r]: where rank r went.
    seg NULL: nothing changes (mp the identity)."""
    cdef uint8_t liv[16]
    cdef uint64_t w[2]
    cdef uint64_t t[2]
    cdef int r, p, i, slot, m
    cdef bint moved = False
    cdef uint8_t live
    for r in range(16):
        mp[r] = <uint8_t>r
    if seg == NULL:
        return
    # which ranks are in play: the count arrays OR-ed eight bytes at a time
    memcpy(w, s.pile, 16)
    memcpy(t, s.pool, 16)
    w[0] |= t[0]
    w[1] |= t[1]
    for p in range(s.n):
        memcpy(t, s.pl[p].hand, 16)
        w[0] |= t[0]
        w[1] |= t[1]
        memcpy(t, s.pl[p].up, 16)
        w[0] |= t[0]
        w[1] |= t[1]
    memcpy(liv, w, 16)
    for r in range(2, 16):
        if seg[r] != r:
            continue
        slot = m = r                # a class, by its lowest rank: its ranks in play onto
        while m:                    # its lowest ranks, in order
            if liv[m]:
                if slot != m:
                    mp[m] = <uint8_t>slot
                    moved = True
                slot = seg[16 + slot]
            m = seg[16 + m]
    if s.run > 1 and not (s.r.flags & RF_LENIENT_BLIND):
        live = s.pool[s.top]
        for p in range(s.n):
            live += s.pl[p].hand[s.top] + s.pl[p].up[s.top]
        if (s.r.flags & RF_NO_FOUR_BURN) or s.run + live < 4:
            s.run = 1
    if not moved:
        return
    _slide(s.pile, mp)
    _slide(s.pool, mp)
    for p in range(s.n):
        _slide(s.pl[p].hand, mp)
        _slide(s.pl[p].up, mp)
    if s.top:
        s.top = mp[s.top]
    if s.beat:
        s.beat = mp[s.beat]
    if s.r.flags & RF_LENIENT_BLIND:
        for i in range(s.pile_n):
            s.seq[i] = mp[s.seq[i]]


cdef int key_mask_of(const PState* root, uint64_t* mask, const uint8_t* seg) noexcept nogil:
    """The mask of every packed bit a position below `root` can set (see "Compact keys");
    returns the words of pack_state. With seg (merged positions) the bounds are those of
    canonical keys: canon_map moves a rank in play onto a slot of its class no higher than
    its own place among the class's ranks in play at the root."""
    cdef PState m
    cdef int p, r, i, nr = root.r.nranks, alive_total = 0
    cdef bint free_slot
    cdef int alive[16]
    cdef int upb[MAXP][16]
    cdef int poolb[16]
    cdef int lv[16]
    cdef int pv[16]
    cdef int uv[MAXP][16]
    for r in range(16):
        alive[r] = root.pile[r] + root.pool[r]
        poolb[r] = root.pool[r]
        for p in range(root.n):
            alive[r] += root.pl[p].hand[r] + root.pl[p].up[r]
            upb[p][r] = root.pl[p].up[r]
        alive_total += alive[r]
    if seg != NULL:
        # The keys are canonical (the root's too): the i-th slot of a class holds its i-th
        # rank in play or a later one, never a slot past the root's ranks in play
        for r in range(2, 16):
            lv[r] = alive[r]
            pv[r] = poolb[r]
            for p in range(root.n):
                uv[p][r] = upb[p][r]
        for r in range(2, 16):
            alive[r] = poolb[r] = 0
            for p in range(root.n):
                upb[p][r] = 0
        for r in range(2, 16):
            if not lv[r]:
                continue
            # r may land on any slot of its class up to the first one free so far
            i = seg[r]
            while True:
                free_slot = alive[i] == 0
                alive[i] = alive[i] if alive[i] > lv[r] else lv[r]
                poolb[i] = poolb[i] if poolb[i] > pv[r] else pv[r]
                for p in range(root.n):
                    upb[p][i] = upb[p][i] if upb[p][i] > uv[p][r] else uv[p][r]
                if free_slot:
                    break
                i = seg[16 + i]
    memset(&m, 0, sizeof(PState))
    m.r = root.r
    m.n = root.n
    for p in range(root.n):
        for r in range(2, 2 + nr):
            m.pl[p].hand[r] = ones_of(alive[r])
            m.pl[p].up[r] = ones_of(upb[p][r])
        m.pl[p].face_down = ones_of(root.pl[p].face_down)
    for r in range(2, 2 + nr):
        m.pile[r] = ones_of(alive[r])
        m.pool[r] = ones_of(poolb[r])
    if root.r.flags & RF_LENIENT_BLIND:
        m.pile_n = ones_of(alive_total)
        if m.pile_n > 108:
            m.pile_n = 108
        memset(m.seq, 15, m.pile_n)
    m.top = 15
    m.run = 3
    m.beat = 15
    m.draw_pile = 0
    m.to_move = ones_of(root.n - 1)
    m.direction = -1
    m.out_mask = <uint16_t>((1 << root.n) - 1)
    m.last_player = -1          # packs as 15: all ones
    m.pend_kind = PEND_NONE
    return pack_state(&m, mask)


# A binary max-heap of (score, node) for the sweeps.
ctypedef struct MaxHeap:
    double* key
    int32_t* node
    int64_t n
    int64_t cap


cdef int heap_push(MaxHeap* h, double k, int32_t u) noexcept nogil:
    cdef int64_t i, j
    cdef double* nk
    cdef int32_t* nn
    if h.n == h.cap:
        h.cap = h.cap * 2 if h.cap else 1024
        nk = <double*>realloc(h.key, h.cap * sizeof(double))
        if nk == NULL:
            return -1
        h.key = nk
        nn = <int32_t*>realloc(h.node, h.cap * sizeof(int32_t))
        if nn == NULL:
            return -1
        h.node = nn
    i = h.n
    h.n += 1
    # Ties pop the smaller node id first: a fixed order (values do not depend on it).
    while i > 0:
        j = (i - 1) >> 1
        if h.key[j] > k or (h.key[j] == k and h.node[j] < u):
            break
        h.key[i] = h.key[j]
        h.node[i] = h.node[j]
        i = j
    h.key[i] = k
    h.node[i] = u
    return 0


cdef void heap_pop(MaxHeap* h, double* k, int32_t* u) noexcept nogil:
    cdef int64_t i = 0, c
    cdef double lk
    cdef int32_t lu
    k[0] = h.key[0]
    u[0] = h.node[0]
    h.n -= 1
    lk = h.key[h.n]
    lu = h.node[h.n]
    while True:
        c = 2 * i + 1
        if c >= h.n:
            break
        if c + 1 < h.n and (h.key[c + 1] > h.key[c]
                            or (h.key[c + 1] == h.key[c] and h.node[c + 1] < h.node[c])):
            c += 1
        if lk > h.key[c] or (lk == h.key[c] and lu < h.node[c]):
            break
        h.key[i] = h.key[c]
        h.node[i] = h.node[c]
        i = c
    h.key[i] = lk
    h.node[i] = lu


# -- the build: expansion of a chunk of parents (threads) -------------------------------------

# What one thread found for its parents: per parent its number of moves; per move 0 (a
# deterministic move: one child) or k (a flip: k children); per child its compact key, hash,
# info and weight, or a terminal code.
ctypedef struct ExpandBuf:
    int16_t* pmoves            # per parent
    int16_t* ekind             # per move
    uint64_t* ckey             # per child: K words
    uint64_t* chash
    uint32_t* cinfo
    int32_t* cterm             # -1: a decision node; else the terminal code
    uint8_t* cw
    int64_t np, ne, nc         # used
    int64_t cap_p, cap_e, cap_c
    int err                    # 1 out of memory, 2 chance after a flip, 3 key outside mask


ctypedef struct ExpandCtx:
    PState* root
    const uint64_t* keys       # the graph's compact keys so far
    const uint64_t* mask
    int K, nw, n, hw
    const uint64_t* hkeys      # compact keys of the game's history (set_history), nhk of them
    const uint64_t* hhash
    const uint64_t* hbits      # 4096-bit filter of hhash: most children skip the scan
    int nhk
    const uint8_t* seg         # rank classes for canon_ranks, NULL: positions are not merged
    int64_t a, b               # parents [a, b) of this chunk
    ExpandBuf* bufs            # one per thread


cdef int _buf_reserve(ExpandBuf* b, int64_t moves, int64_t kids, int K) noexcept nogil:
    cdef int64_t c
    cdef void* p
    if b.np + 1 > b.cap_p:
        c = b.cap_p * 2 if b.cap_p else 4096
        p = realloc(b.pmoves, c * 2)
        if p == NULL:
            return -1
        b.pmoves = <int16_t*>p
        b.cap_p = c
    if b.ne + moves > b.cap_e:
        c = b.cap_e * 2 if b.cap_e else 16384
        while c < b.ne + moves:
            c *= 2
        p = realloc(b.ekind, c * 2)
        if p == NULL:
            return -1
        b.ekind = <int16_t*>p
        b.cap_e = c
    if b.nc + kids > b.cap_c:
        c = b.cap_c * 2 if b.cap_c else 16384
        while c < b.nc + kids:
            c *= 2
        p = realloc(b.ckey, c * K * 8)
        if p == NULL:
            return -1
        b.ckey = <uint64_t*>p
        p = realloc(b.chash, c * 8)
        if p == NULL:
            return -1
        b.chash = <uint64_t*>p
        p = realloc(b.cinfo, c * 4)
        if p == NULL:
            return -1
        b.cinfo = <uint32_t*>p
        p = realloc(b.cterm, c * 4)
        if p == NULL:
            return -1
        b.cterm = <int32_t*>p
        p = realloc(b.cw, c)
        if p == NULL:
            return -1
        b.cw = <uint8_t*>p
        b.cap_c = c
    return 0


cdef inline uint32_t node_info(const PState* s) noexcept nogil:
    return ((<uint32_t>(progress_of(s) + PROG_BIAS) << 16) | (<uint32_t>s.out_mask << 4)
            | <uint32_t>s.to_move)


cdef inline void _child(ExpandCtx* x, ExpandBuf* b, PState* d, int w) noexcept nogil:
    cdef uint64_t words[MAX_WORDS]
    cdef int64_t c = b.nc
    cdef int code
    b.cw[c] = <uint8_t>w
    if ps_is_terminal(d):
        code = terminal_loser(d)
        if code < 0:
            code = x.n + d.winner
        b.cterm[c] = code
    else:
        b.cterm[c] = -1
        if x.seg != NULL:
            canon_ranks(d, x.seg)
        pack_state(d, words)
        if x.hw:
            if palace_compress_hw(words, x.mask, x.nw, &b.ckey[c * x.K], x.K):
                b.err = 3
        elif palace_compress_sw(words, x.mask, x.nw, &b.ckey[c * x.K], x.K):
            b.err = 3
        b.chash[c] = hash_words(&b.ckey[c * x.K], x.K)
        b.cinfo[c] = node_info(d)
        if x.nhk and _in_history(x, &b.ckey[c * x.K], b.chash[c]):
            b.cterm[c] = 2 * x.n
    b.nc = c + 1


cdef inline bint _in_history(const ExpandCtx* x, const uint64_t* key, uint64_t h) noexcept nogil:
    cdef int i, w
    if not (x.hbits[(h >> 6) & 63] >> (h & 63)) & 1:
        return False
    for i in range(x.nhk):
        if x.hhash[i] != h:
            continue
        w = 0
        while w < x.K and x.hkeys[i * x.K + w] == key[w]:
            w += 1
        if w == x.K:
            return True
    return False


cdef void _expand_task(void* ctx, int t, int nthreads) noexcept nogil:
    """Thread t's share of a chunk: a contiguous run of parents, so that reading the buffers
    in thread order gives the one-thread order."""
    cdef ExpandCtx* x = <ExpandCtx*>ctx
    cdef ExpandBuf* b = &x.bufs[t]
    cdef int64_t span = x.b - x.a
    cdef int64_t lo = x.a + span * t // nthreads, hi = x.a + span * (t + 1) // nthreads, i
    cdef PState s, c, d
    cdef CMove moves[MAX_MOVES]
    cdef uint64_t words[MAX_WORDS]
    cdef int ranks[16]
    cdef int weights[16]
    cdef int nm, j, k, o
    b.np = b.ne = b.nc = 0
    b.err = 0
    copy_state(&s, x.root)          # unpack_state keeps the rules and n, rebuilds the rest
    for i in range(lo, hi):
        if x.hw:
            palace_expand_hw(&x.keys[i * x.K], x.mask, x.nw, words)
        else:
            palace_expand_sw(&x.keys[i * x.K], x.mask, x.nw, words)
        unpack_state(words, x.nw, &s)
        nm = gen_moves(&s, moves)
        if _buf_reserve(b, nm, <int64_t>nm * 14, x.K) != 0:
            b.err = 1
            return
        b.pmoves[b.np] = <int16_t>nm
        b.np += 1
        for j in range(nm):
            copy_state(&c, &s)
            apply_move(&c, moves[j])
            if ps_is_chance(&c):
                k = chance_outcomes(&c, ranks, weights)
                b.ekind[b.ne] = <int16_t>k
                for o in range(k):
                    copy_state(&d, &c)
                    apply_chance(&d, ranks[o])
                    if ps_is_chance(&d):
                        b.err = 2
                        return
                    _child(x, b, &d, weights[o])
            else:
                b.ekind[b.ne] = 0
                _child(x, b, &c, 1)
            b.ne += 1
        if b.err:
            return


# The arrays the solve reads (see the layout above), shared with the threads' tasks.
ctypedef struct GraphView:
    int n, nv
    double draw_share          # a history position reached again: each player in gets this
    uint16_t draw_out          # (the players out at the root, as at every history position)
    uint32_t* info
    uint32_t* estart
    int32_t* etgt
    uint32_t* fstart
    int32_t* otgt
    uint8_t* ow
    double* val


# -- node fields ----------------------------------------------------------------------
cdef inline int gv_prog(const GraphView* g, int64_t u) noexcept nogil:
    return <int>(g.info[u] >> 16)

cdef inline int gv_mover(const GraphView* g, int64_t u) noexcept nogil:
    return <int>(g.info[u] & 15)

cdef inline uint16_t gv_outm(const GraphView* g, int64_t u) noexcept nogil:
    return <uint16_t>((g.info[u] >> 4) & 0xFFF)

cdef inline int gv_pa(const GraphView* g, int64_t u) noexcept nogil:
    cdef uint16_t om = gv_outm(g, u)
    cdef int a = 0
    while (om >> a) & 1:
        a += 1
    return a

cdef inline int gv_pb(const GraphView* g, int64_t u) noexcept nogil:
    cdef uint16_t om = gv_outm(g, u)
    cdef int b = gv_pa(g, u) + 1
    while b < g.n and (om >> b) & 1:
        b += 1
    return b

# -- values -------------------------------------------------------------------------
cdef inline double gv_tgt_loss(const GraphView* g, int32_t t, int a) noexcept nogil:
    """Player a's loss at a target: a node (solved) or a terminal."""
    cdef int code
    if t >= 0:
        return g.val[t] if g.nv == 1 else g.val[<int64_t>t * g.n + a]
    code = -1 - t
    if code < g.n:
        return 1.0 if code == a else 0.0
    if code == 2 * g.n:
        return 0.0 if (g.draw_out >> a) & 1 else g.draw_share
    return 0.0 if code - g.n == a else 1.0 / (g.n - 1)

cdef double gv_edge_loss(const GraphView* g, int32_t t, int a) noexcept nogil:
    """Player a's loss after a move (etgt value t), as _edge_value's component a."""
    cdef int64_t f, o
    cdef int32_t gt
    cdef int code, tot = 0
    cdef double acc = 0.0, w
    if t > -FLIP_BASE:
        return gv_tgt_loss(g, t, a)
    f = -FLIP_BASE - t
    for o in range(g.fstart[f], g.fstart[f + 1]):
        tot += g.ow[o]
    for o in range(g.fstart[f], g.fstart[f + 1]):
        gt = g.otgt[o]
        w = g.ow[o]
        if gt >= 0:
            acc += w * (g.val[gt] if g.nv == 1 else g.val[<int64_t>gt * g.n + a])
        else:
            code = -1 - gt
            if code < g.n:
                if code == a:
                    acc += w
            elif code == 2 * g.n:
                if not (g.draw_out >> a) & 1:
                    acc += w * g.draw_share
            elif code - g.n != a:
                acc += w / (g.n - 1)
    return acc / tot

cdef void gv_node_vec(const GraphView* g, int32_t t, double* out) noexcept nogil:
    cdef int i
    if g.nv == 1:
        out[0] = g.val[t]
        out[1] = 1.0 - g.val[t]
    else:
        for i in range(g.n):
            out[i] = g.val[<int64_t>t * g.n + i]

cdef void gv_edge_value(const GraphView* g, int32_t t, double* out) noexcept nogil:
    """Every player's loss after a move (etgt value t)."""
    cdef int n = g.n, i, code
    cdef int64_t f, o
    cdef int32_t gt
    cdef int tot = 0
    cdef double w
    cdef double v[MAXP]
    if t >= 0:
        gv_node_vec(g, t, out)
        return
    if t > -FLIP_BASE:
        for i in range(n):
            out[i] = gv_tgt_loss(g, t, i)
        return
    f = -FLIP_BASE - t
    for i in range(n):
        out[i] = 0.0
    for o in range(g.fstart[f], g.fstart[f + 1]):
        tot += g.ow[o]
    for o in range(g.fstart[f], g.fstart[f + 1]):
        gt = g.otgt[o]
        w = g.ow[o]
        if gt >= 0:
            gv_node_vec(g, gt, v)
            for i in range(n):
                out[i] += w * v[i]
        else:
            code = -1 - gt
            if code < n:
                out[code] += w
            elif code == 2 * n:
                for i in range(n):
                    if not (g.draw_out >> i) & 1:
                        out[i] += w * g.draw_share
            else:
                for i in range(n):
                    if i != code - n:
                        out[i] += w / (n - 1)
    for i in range(n):
        out[i] /= tot

cdef inline bint gv_inner(const GraphView* g, int32_t t, int prog, int8_t* solved) noexcept nogil:
    """Whether a move (etgt value t) is a deterministic move to an unsolved node of the
    same layer."""
    return t >= 0 and gv_prog(g, t) == prog and not solved[t]



# -- parallel parts of the solve ---------------------------------------------------------------

ctypedef struct ExitCtx:
    GraphView* g
    int32_t* nodes
    int64_t m
    int32_t prog
    int8_t* solved
    int32_t* loc               # a node's index in the layer
    int64_t* istart            # per node of the layer: where its inner targets go
    int32_t* inner             # inner targets (layer indices)
    int32_t* inner_cnt         # per node of the layer: inner moves
    double* exmin              # per node: lowest / highest exit value for player a
    double* exmax


cdef class ExactGraph:
    """The reachable graph of one exact-mode position and its exact values.

    ``ExactGraph(root, threads=1)``; ``build(max_nodes, seconds, max_bytes)`` returns False
    when the graph outgrows a budget; ``solve()`` then fills the values; ``root_moves()`` and
    ``stats()`` report. The values and every array are the same for any thread count.
    """
    cdef PState root
    cdef GraphView g
    cdef int nw, K, threads, hw
    cdef uint64_t mask[MAX_WORDS]
    cdef int64_t N, cap_n, E, cap_e, F, cap_f, O, cap_o
    cdef int64_t P              # parents merged so far (estart entries written)
    cdef uint64_t* keys         # compact keys (build only)
    cdef uint64_t* slots        # map: tag << 32 | (id + 1); 0 = empty (build only)
    cdef uint64_t mapcap
    cdef int32_t* loc
    cdef ExpandBuf bufs[64]
    cdef public int layers, np_layers, np_cycling, np_max_period, np_max_sweeps
    # Smallest layer (solve) and build step (parents) whose work is split between the
    # threads; below it one thread works alone. Tests lower them to split tiny graphs.
    cdef public int64_t par_min, par_min_build
    cdef public double build_seconds, solve_seconds
    cdef public bint complete
    cdef public str stop_reason
    cdef int64_t peak_bytes
    cdef int64_t mem_cap        # build(max_bytes): no array grows past it (0: no cap)
    cdef bint over_mem          # a growth was refused by mem_cap
    cdef object _rules
    cdef dict _known            # node id -> CState, for the nodes node_edges has reached
    cdef uint64_t* hkeys        # set_history: compact keys and hashes of the game's history
    cdef uint64_t* hhash
    cdef uint64_t hbits[64]
    cdef int nhk
    cdef uint8_t seg[32]        # rank_segments of the rules (merged positions)
    cdef public bint merge      # merge positions that differ by burned ranks only
    cdef bint canon             # the keys are canonical (merge, and no game history)

    def __cinit__(self):
        self.keys = NULL
        self.slots = NULL
        self.hkeys = NULL
        self.hhash = NULL
        self.nhk = 0
        memset(&self.g, 0, sizeof(GraphView))
        self.loc = NULL
        memset(self.bufs, 0, sizeof(self.bufs))

    def __dealloc__(self):
        self._free_build()
        free(self.hkeys); free(self.hhash)
        free(self.g.info); free(self.g.estart); free(self.g.etgt); free(self.g.fstart)
        free(self.g.otgt); free(self.g.ow); free(self.g.val); free(self.loc)

    cdef void _free_build(self) noexcept nogil:
        cdef int t
        free(self.keys)
        free(self.slots)
        self.keys = NULL
        self.slots = NULL
        for t in range(64):
            free(self.bufs[t].pmoves); free(self.bufs[t].ekind); free(self.bufs[t].ckey)
            free(self.bufs[t].chash); free(self.bufs[t].cinfo); free(self.bufs[t].cterm)
            free(self.bufs[t].cw)
        memset(self.bufs, 0, sizeof(self.bufs))

    def __init__(self, CState root, int threads=1, bint bmi2=True, bint merge=True):
        cdef int i, bits = 0
        if root.s.to_move < 0:
            raise ValueError("the exact solver starts at a decision node")
        if root.s.draw_pile:
            raise ValueError("not an exact-mode position: the draw pile is not empty")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        copy_state(&self.root, &root.s)
        self._rules = root.rules
        self.g.n = root.s.n
        self.g.draw_out = root.s.out_mask
        self.g.draw_share = 1.0 / (root.s.n - popcount16(root.s.out_mask))
        self.g.nv = 1 if self.g.n == 2 else self.g.n
        self.threads = threads if threads < 64 else 64
        self.par_min = PAR_MIN
        self.par_min_build = PAR_MIN_BUILD
        self.hw = HAVE_BMI2 and bmi2
        self.merge = merge
        # Three players in or more: a mover's tie between moves is broken in legal-move
        # order and decides the others' losses, so the relabelling must keep that order.
        rank_segments(&self.root.r, self.seg,
                      root.s.n - popcount16(root.s.out_mask) > 2)
        self._set_mask(merge)
        self.mapcap = 1 << 12
        self.slots = <uint64_t*>calloc(self.mapcap, 8)
        if self.slots == NULL:
            raise MemoryError()
        self.stop_reason = ""
        self._known = None

    cdef void _set_mask(self, bint canon):
        """The compact-key mask (and key words): of canonical keys when positions merge."""
        cdef int i, bits = 0
        self.canon = canon
        self.nw = key_mask_of(&self.root, self.mask, self.seg if canon else NULL)
        for i in range(self.nw):
            bits += popcount64(self.mask[i])
        self.K = (bits + 63) >> 6 if bits else 1

    def set_history(self, list history):
        """The game's earlier positions (CStates, the root among them or not): reaching one
        again is a draw, as in the game (the players still in share the loss). Positions
        that cannot occur below the root (a decision node setting a key bit outside its
        mask) are left out. Returns how many are kept. Before build()."""
        cdef CState h
        cdef uint64_t words[MAX_WORDS]
        cdef int k = 0
        if self.N:
            raise ValueError("set_history comes before build()")
        free(self.hkeys)
        free(self.hhash)
        self.hkeys = NULL
        self.hhash = NULL
        self.nhk = 0
        memset(self.hbits, 0, sizeof(self.hbits))
        self._set_mask(self.merge and not history)
        if not history:
            return 0
        self.hkeys = <uint64_t*>malloc(len(history) * self.K * 8)
        self.hhash = <uint64_t*>malloc(len(history) * 8)
        if self.hkeys == NULL or self.hhash == NULL:
            raise MemoryError()
        for h in history:
            if h.s.n != self.root.n or h.s.to_move < 0 or h.s.draw_pile \
                    or ps_is_terminal(&h.s):
                continue
            pack_state(&h.s, words)
            if palace_compress_sw(words, self.mask, self.nw, &self.hkeys[k * self.K], self.K):
                continue
            self.hhash[k] = hash_words(&self.hkeys[k * self.K], self.K)
            self.hbits[(self.hhash[k] >> 6) & 63] |= (<uint64_t>1) << (self.hhash[k] & 63)
            k += 1
        self.nhk = k
        return k

    # -- the node map -------------------------------------------------------------------
    cdef int64_t _cap_bytes(self) noexcept nogil:
        """Bytes of the build's arrays at their capacities (what they hold once filled)."""
        return (self.cap_n * (self.K * 8 + 8) + <int64_t>self.mapcap * 8 + self.cap_e * 4
                + self.cap_f * 4 + self.cap_o * 5)

    cdef bint _room(self, int64_t grow) noexcept nogil:
        """Whether `grow` more bytes keep the build within mem_cap (else over_mem is set).
        Capacities, not bytes touched, and the old map counted while the new one fills:
        a growth is refused before it happens, so the cap holds at the peak."""
        if self.mem_cap <= 0 or self._cap_bytes() + grow <= self.mem_cap:
            return True
        self.over_mem = True
        return False

    cdef int _rehash(self) noexcept nogil:
        cdef uint64_t cap = self.mapcap * 2, mask = cap - 1, i, h
        cdef int64_t u
        cdef uint64_t* s
        if not self._room(<int64_t>cap * 8):
            return -1
        s = <uint64_t*>calloc(cap, 8)
        if s == NULL:
            return -1
        for u in range(self.N):
            h = hash_words(&self.keys[u * self.K], self.K)
            i = h & mask
            while s[i] != 0:
                i = (i + 1) & mask
            s[i] = ((h >> 32) << 32) | <uint64_t>(u + 1)
        free(self.slots)
        self.slots = s
        self.mapcap = cap
        return 0

    cdef int _grow_nodes(self, int64_t need) noexcept nogil:
        cdef int64_t c = self.cap_n if self.cap_n else 4096
        cdef void* p
        while c < need + 1:
            c *= 2
        if not self._room((c - self.cap_n) * (self.K * 8 + 8)):
            return -1
        p = realloc(self.keys, c * self.K * 8)
        if p == NULL:
            return -1
        self.keys = <uint64_t*>p
        p = realloc(self.g.info, c * 4)
        if p == NULL:
            return -1
        self.g.info = <uint32_t*>p
        p = realloc(self.g.estart, (c + 1) * 4)
        if p == NULL:
            return -1
        self.g.estart = <uint32_t*>p
        self.cap_n = c
        return 0

    cdef inline int64_t _lookup(self, const uint64_t* key, uint64_t h,
                                uint32_t inf) noexcept nogil:
        """The id of a compact key, added when new; -1 when out of memory."""
        cdef uint64_t mask = self.mapcap - 1, i = h & mask, sl, tag = (h >> 32) << 32
        cdef int64_t v
        cdef int K = self.K
        while True:
            sl = self.slots[i]
            if sl == 0:
                break
            if (sl & <uint64_t>0xFFFFFFFF00000000ULL) == tag:
                v = <int64_t>(sl & 0xFFFFFFFFULL) - 1
                if memcmp(&self.keys[v * K], key, K * 8) == 0:
                    return v
            i = (i + 1) & mask
        v = self.N
        if v + 1 >= self.cap_n and self._grow_nodes(v + 1) != 0:
            return -1
        memcpy(&self.keys[v * K], key, K * 8)
        self.g.info[v] = inf
        self.slots[i] = tag | <uint64_t>(v + 1)
        self.N = v + 1
        if <uint64_t>self.N * 4 > self.mapcap * 3:
            if self._rehash() != 0:
                return -1
        return v

    cdef inline void _prefetch(self, uint64_t h) noexcept nogil:
        __builtin_prefetch(&self.slots[h & (self.mapcap - 1)])

    cdef int _reserve_edges(self, int64_t moves, int64_t kids) noexcept nogil:
        cdef int64_t c
        cdef void* p
        if self.E + moves + 1 > self.cap_e:
            c = self.cap_e * 2 if self.cap_e else 16384
            while c < self.E + moves + 1:
                c *= 2
            if not self._room((c - self.cap_e) * 4):
                return -1
            p = realloc(self.g.etgt, c * 4)
            if p == NULL:
                return -1
            self.g.etgt = <int32_t*>p
            self.cap_e = c
        if self.F + moves + 1 > self.cap_f:
            c = self.cap_f * 2 if self.cap_f else 4096
            while c < self.F + moves + 1:
                c *= 2
            if not self._room((c - self.cap_f) * 4):
                return -1
            p = realloc(self.g.fstart, c * 4)
            if p == NULL:
                return -1
            self.g.fstart = <uint32_t*>p
            self.cap_f = c
        if self.O + kids + 1 > self.cap_o:
            c = self.cap_o * 2 if self.cap_o else 16384
            while c < self.O + kids + 1:
                c *= 2
            if not self._room((c - self.cap_o) * 5):
                return -1
            p = realloc(self.g.otgt, c * 4)
            if p == NULL:
                return -1
            self.g.otgt = <int32_t*>p
            p = realloc(self.g.ow, c)
            if p == NULL:
                return -1
            self.g.ow = <uint8_t*>p
            self.cap_o = c
        return 0

    cdef int _merge_buf(self, ExpandBuf* b) noexcept nogil:
        """Adds one thread's children in order: ids, edges, flips. -1 when out of memory."""
        cdef int64_t p, e = 0, c = 0, j, k, o, la, t
        cdef int nm, kind
        cdef int K = self.K
        cdef int64_t ahead = 16
        if self._reserve_edges(b.ne, b.nc) != 0:
            return -1
        # prefetch the map slots of the first children
        for la in range(ahead if ahead < b.nc else b.nc):
            if b.cterm[la] < 0:
                self._prefetch(b.chash[la])
        la = ahead
        for p in range(b.np):
            self.g.estart[self.P] = <uint32_t>self.E
            self.P += 1
            nm = b.pmoves[p]
            for j in range(nm):
                kind = b.ekind[e]
                e += 1
                if kind == 0:
                    if la < b.nc:
                        if b.cterm[la] < 0:
                            self._prefetch(b.chash[la])
                        la += 1
                    t = self._resolve(b, c)
                    if t == NOMEM:
                        return -1
                    self.g.etgt[self.E] = <int32_t>t
                    c += 1
                else:
                    self.g.fstart[self.F] = <uint32_t>self.O
                    self.g.etgt[self.E] = <int32_t>(-FLIP_BASE - self.F)
                    self.F += 1
                    for k in range(kind):
                        if la < b.nc:
                            if b.cterm[la] < 0:
                                self._prefetch(b.chash[la])
                            la += 1
                        t = self._resolve(b, c)
                        if t == NOMEM:
                            return -1
                        self.g.otgt[self.O] = <int32_t>t
                        self.g.ow[self.O] = b.cw[c]
                        self.O += 1
                        c += 1
                self.E += 1
        return 0

    cdef inline int64_t _resolve(self, ExpandBuf* b, int64_t c) noexcept nogil:
        cdef int64_t v
        if b.cterm[c] >= 0:
            return -1 - b.cterm[c]
        v = self._lookup(&b.ckey[c * self.K], b.chash[c], b.cinfo[c])
        return NOMEM if v < 0 else v

    # -- build --------------------------------------------------------------------------
    def build(self, int64_t max_nodes=50_000_000, double seconds=0.0, progress=None,
              int64_t max_bytes=0, double solve_seconds_per_node=0.0,
              int64_t expected_nodes=0):
        """Enumerate the graph. False when it has more than ``max_nodes`` positions, takes
        longer than ``seconds`` (0: no limit) or would hold more than ``max_bytes`` (0: no
        limit; an array that would grow past it does not grow); ``stop_reason`` says which.
        With ``seconds``, the build also gives up as soon as the positions found but not
        expanded yet (at the rate so far) and the solve of those found
        (``solve_seconds_per_node`` each) cannot be done in time: a lower bound on the work
        left ("time predicted"). ``progress(nodes)`` is called now and
        then. ``expected_nodes`` sizes the map at the start (fewer rehashes)."""
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t key[MAX_WORDS]
        cdef uint64_t h
        cdef PState croot
        cdef int64_t i = 0, end, t, nthr
        cdef uint64_t cap
        cdef int err = 0, tt
        cdef ExpandCtx x
        import time
        t0 = time.perf_counter()
        self.mem_cap = max_bytes
        self.over_mem = False
        if expected_nodes > 0 and self.N == 0:
            if max_nodes > 0 and expected_nodes > max_nodes:
                expected_nodes = max_nodes
            cap = self.mapcap
            while cap * 3 < <uint64_t>expected_nodes * 4 and cap < (<uint64_t>1 << 33):
                cap *= 2
            if max_bytes > 0:
                while cap > (<uint64_t>1 << 12) and cap * 8 > <uint64_t>max_bytes // 4:
                    cap //= 2
            if cap != self.mapcap:
                free(self.slots)
                self.slots = <uint64_t*>calloc(cap, 8)
                self.mapcap = cap
                if self.slots == NULL:
                    raise MemoryError()
        x.seg = self.seg if self.canon else NULL
        copy_state(&croot, &self.root)
        if x.seg != NULL:
            canon_ranks(&croot, x.seg)
        pack_state(&croot, words)
        if palace_compress_sw(words, self.mask, self.nw, key, self.K):
            raise ValueError("compact key: the root sets a bit outside its own mask")
        h = hash_words(key, self.K)
        if self._lookup(key, h, node_info(&self.root)) < 0:
            raise MemoryError()
        x.root = &self.root
        x.mask = self.mask
        x.K = self.K
        x.nw = self.nw
        x.n = self.g.n
        x.hw = self.hw
        x.hkeys = self.hkeys
        x.hhash = self.hhash
        x.hbits = self.hbits
        x.nhk = self.nhk
        x.bufs = self.bufs
        self.P = 0
        while i < self.N:
            end = i + CHUNK
            if end > self.N:
                end = self.N
            with nogil:
                x.keys = self.keys
                x.a = i
                x.b = end
                nthr = self.threads
                if end - i < self.par_min_build:
                    nthr = 1
                palace_parallel(<int>nthr, _expand_task, &x)
                for tt in range(nthr):
                    if self.bufs[tt].err:
                        err = self.bufs[tt].err
                if err == 0:
                    for tt in range(nthr):
                        if self._merge_buf(&self.bufs[tt]) != 0:
                            err = 1
                            break
            i = end
            if err == 1 and self.over_mem:
                self.stop_reason = "memory"
            elif err == 1:
                raise MemoryError("exact solver: out of memory")
            if err == 2:
                raise ValueError("not an exact-mode position: a chance event follows a flip")
            if err == 3:
                raise AssertionError("compact key: a position sets a bit outside the root's "
                                     "mask (a bug: please report the position)")
            if self.E >= 0x7FFFFFF0 or self.O >= 0x7FFFFFF0 or self.N >= 0x7FFFFFF0:
                raise MemoryError("exact solver: more than 2^31 positions or moves")
            if progress is not None and not self.stop_reason:
                progress(self.N)
            if self.stop_reason:
                pass
            elif self.N > max_nodes:
                self.stop_reason = "nodes"
            elif seconds > 0:
                el = time.perf_counter() - t0
                if el > seconds:
                    self.stop_reason = "time"
                elif (i < self.N and i >= 20000 and el + (self.N - i) * el / i
                      + self.N * solve_seconds_per_node > seconds):
                    self.stop_reason = "time predicted"
            if self.stop_reason:
                self.build_seconds = time.perf_counter() - t0
                self.peak_bytes = self._build_bytes()
                self.complete = False
                return False
        self.g.estart[self.N] = <uint32_t>self.E
        self.g.fstart[self.F] = <uint32_t>self.O
        self.peak_bytes = self._build_bytes()
        self._free_build()
        self.build_seconds = time.perf_counter() - t0
        self.complete = True
        return True

    cdef int64_t _build_bytes(self):
        """Bytes in use during the build (keys, map, graph arrays; capacities not touched
        yet are not counted)."""
        return (self.N * (self.K * 8 + 4 + 4) + <int64_t>self.mapcap * 8
                + self.E * 4 + self.F * 4 + self.O * 5)

    cdef int64_t _graph_bytes(self):
        """Bytes of what the solve keeps: the graph and one value per node and player."""
        return (self.N * (4 + 4) + self.E * 4 + self.F * 4 + self.O * 5
                + (self.N * self.g.nv * 8 if self.g.val != NULL else 0))

    def solve(self):
        """Values of every node, layer by layer from the lowest progress up."""
        cdef int64_t u, a, b, N = self.N
        cdef int32_t pmin, pmax, p
        cdef int64_t* cnt
        cdef int32_t* order
        cdef int8_t* solved
        cdef int rc = 0
        import time
        if not self.complete:
            raise ValueError("solve() needs a complete graph")
        t0 = time.perf_counter()
        free(self.g.val)
        self.g.val = <double*>calloc(N * self.g.nv, sizeof(double))
        solved = <int8_t*>calloc(N, 1)
        order = <int32_t*>malloc(N * sizeof(int32_t))
        self.loc = <int32_t*>malloc(N * sizeof(int32_t))
        pmin = pmax = gv_prog(&self.g, 0)
        for u in range(N):
            if gv_prog(&self.g, u) < pmin:
                pmin = gv_prog(&self.g, u)
            if gv_prog(&self.g, u) > pmax:
                pmax = gv_prog(&self.g, u)
        cnt = <int64_t*>calloc(pmax - pmin + 2, sizeof(int64_t))
        if (self.g.val == NULL or solved == NULL or order == NULL or cnt == NULL
                or self.loc == NULL):
            free(solved); free(order); free(cnt); free(self.loc); self.loc = NULL
            raise MemoryError("exact solver: out of memory")
        self.layers = self.np_layers = self.np_cycling = self.np_max_period = 0
        self.np_max_sweeps = 0
        with nogil:
            # counting sort by progress (stable: node order inside a layer)
            for u in range(N):
                cnt[gv_prog(&self.g, u) - pmin + 1] += 1
            for p in range(pmax - pmin + 1):
                cnt[p + 1] += cnt[p]
            for u in range(N):
                order[cnt[gv_prog(&self.g, u) - pmin]] = <int32_t>u
                cnt[gv_prog(&self.g, u) - pmin] += 1
            a = 0
            while a < N and rc == 0:
                b = a
                while b < N and gv_prog(&self.g, order[b]) == gv_prog(&self.g, order[a]):
                    b += 1
                self.layers += 1
                rc = self._solve_layer(order + a, b - a, solved)
                a = b
        free(cnt); free(order); free(solved); free(self.loc)
        self.loc = NULL
        if rc != 0:
            raise MemoryError("exact solver: out of memory")
        self.solve_seconds = time.perf_counter() - t0

    cdef int _solve_layer(self, int32_t* nodes, int64_t m, int8_t* solved) noexcept nogil:
        """One progress value. Nodes with two players left use the exact two-player sweeps;
        the others (3+ players, no edge between the two groups) the Jacobi fixed point."""
        cdef int64_t i, k2 = 0, kn = 0
        cdef int32_t* two
        cdef int32_t* many
        cdef int rc = 0
        if self.g.n == 2:
            return self._layer_2p(nodes, m, solved)
        two = <int32_t*>malloc(m * sizeof(int32_t))
        many = <int32_t*>malloc(m * sizeof(int32_t))
        if two == NULL or many == NULL:
            free(two); free(many)
            return -1
        for i in range(m):
            if self.g.n - popcount16(gv_outm(&self.g, nodes[i])) == 2:
                two[k2] = nodes[i]
                k2 += 1
            else:
                many[kn] = nodes[i]
                kn += 1
        if k2:
            rc = self._layer_2p(two, k2, solved)
        if kn and rc == 0:
            rc = self._layer_np(many, kn, solved)
        free(two); free(many)
        return rc

    cdef int _layer_2p(self, int32_t* nodes, int64_t m, int8_t* solved) noexcept nogil:
        """exact._solve_layer_2p. With a < b the two players still in and v = a's loss:
        sweep 1 (values above 1/2, b's nodes resolve first), sweep 2 (below 1/2, a's
        nodes first), the rest is 1/2. Each node's exits are read once, as their lowest
        and highest value for a (all either sweep asks of them), and its inner moves once,
        as a list of layer indices.

        The two sweeps run side by side (one thread each when there are two). The reference
        runs the second after the first and counts the first's nodes (values above 1/2) as
        exits; here the second sees them as unsolved children. Either way such a child
        keeps its parent out of the second sweep: a node of b waits for it (here) or is
        blocked by it (there), and a node of a only takes children below 1/2. And the
        second sweep never reaches a node of the first (a node cannot be forced both above
        and below 1/2), so both give the same values (tests/test_exact_graph.py)."""
        cdef int32_t prog = gv_prog(&self.g, nodes[0])
        cdef int64_t i, q, k, npred = 0, total = 0
        cdef int32_t u
        cdef int a, two = self.g.n == 2, rc = 0
        cdef double v
        cdef ExitCtx x
        cdef SweepCtx sw
        cdef int64_t* istart = <int64_t*>malloc((m + 1) * sizeof(int64_t))
        cdef int32_t* inner = NULL
        cdef int64_t* pstart = <int64_t*>calloc(m + 2, sizeof(int64_t))
        cdef int32_t* preds = NULL
        cdef int32_t* innc = <int32_t*>malloc(m * sizeof(int32_t))
        cdef double* exmin = <double*>malloc(m * sizeof(double))
        cdef double* exmax = <double*>malloc(m * sizeof(double))
        cdef int8_t* first_b = <int8_t*>malloc(m)  # the mover is b (resolves first in sweep 1)
        memset(&sw, 0, sizeof(SweepCtx))
        if (istart == NULL or pstart == NULL or innc == NULL or exmin == NULL
                or exmax == NULL or first_b == NULL):
            free(istart); free(pstart); free(innc); free(exmin); free(exmax); free(first_b)
            return -1
        for i in range(m):
            u = nodes[i]
            self.loc[u] = <int32_t>i
            istart[i] = total
            total += self.g.estart[u + 1] - self.g.estart[u]
            a = 0 if two else gv_pa(&self.g, u)
            first_b[i] = gv_mover(&self.g, u) != a
        istart[m] = total
        inner = <int32_t*>malloc((total + 1) * sizeof(int32_t))
        if inner == NULL:
            free(istart); free(pstart); free(innc); free(exmin); free(exmax); free(first_b)
            return -1
        x.g = &self.g
        x.nodes = nodes
        x.m = m
        x.prog = prog
        x.solved = solved
        x.loc = self.loc
        x.istart = istart
        x.inner = inner
        x.inner_cnt = innc
        x.exmin = exmin
        x.exmax = exmax
        if self.threads > 1 and m >= self.par_min:
            palace_parallel(self.threads, _exits_task, &x)
        else:
            _exits_range(&x, 0, m)
        # predecessor lists (CSR) over the inner moves
        for i in range(m):
            for k in range(istart[i], istart[i] + innc[i]):
                pstart[inner[k] + 2] += 1
                npred += 1
        for i in range(m):
            pstart[i + 2] += pstart[i + 1]
        preds = <int32_t*>malloc((npred + 1) * sizeof(int32_t))
        if preds == NULL:
            free(istart); free(pstart); free(innc); free(exmin); free(exmax); free(first_b)
            free(inner)
            return -1
        for i in range(m):
            for k in range(istart[i], istart[i] + innc[i]):
                q = inner[k]
                preds[pstart[q + 1]] = <int32_t>i
                pstart[q + 1] += 1
        free(inner)
        free(istart)
        sw.m = m
        sw.pstart = pstart
        sw.preds = preds
        sw.innc = innc
        sw.exmin = exmin
        sw.exmax = exmax
        sw.first_b = first_b
        sw.npred = npred
        if self.threads > 1 and m >= self.par_min:
            palace_parallel(2, _sweep_task, &sw)
        else:
            _sweep_task(&sw, 0, 2)
            _sweep_task(&sw, 1, 2)
        if sw.err[0] or sw.err[1]:
            rc = -1
        else:
            for i in range(m):
                u = nodes[i]
                if sw.state[0][i] == 2:
                    v = sw.val[0][i]
                elif sw.state[1][i] == 2:
                    v = sw.val[1][i]
                else:
                    v = 0.5
                solved[u] = 1
                self._set_pair(u, v)
        for k in range(2):
            free(sw.state[k]); free(sw.val[k])
        free(pstart); free(innc); free(exmin); free(exmax); free(first_b); free(preds)
        return rc

    cdef void _set_pair(self, int32_t u, double v) noexcept nogil:
        """Value of a two-player node: v for the lower player still in, 1 - v for the
        other, 0 for the players out."""
        cdef int n = self.g.n, j
        if self.g.nv == 1:
            self.g.val[u] = v
            return
        for j in range(n):
            self.g.val[<int64_t>u * n + j] = 0.0
        self.g.val[<int64_t>u * n + gv_pa(&self.g, u)] = v
        self.g.val[<int64_t>u * n + gv_pb(&self.g, u)] = 1.0 - v

    cdef int _layer_np(self, int32_t* nodes, int64_t m, int8_t* solved) noexcept nogil:
        """exact._solve_layer_np: Jacobi sweeps from the draw value until nothing changes or
        MAX_SWEEPS sweeps have run: every node takes, from the previous sweep's values, the
        option with the mover's lowest loss (ties: first in move order).

        The sweep is a map on a finite set (every value is a copy of an exit or of the draw
        value), so when it does not settle it cycles. Brent's method finds the cycle (one
        saved copy, compared exactly): the layer is flagged (np_cycling, np_max_period) and,
        the values after MAX_SWEEPS sweeps being those of a known point of the cycle, only
        the sweeps up to that point are run."""
        cdef int n = self.g.n, j
        cdef int32_t prog = gv_prog(&self.g, nodes[0])
        cdef int64_t i, e, k, nopt = 0, nex = 0, sweep, lam = 1, power = 1, extra, period
        cdef int32_t u, t
        cdef double* cur = <double*>malloc(m * n * sizeof(double))
        cdef double* nxt = <double*>malloc(m * n * sizeof(double))
        cdef double* saved = <double*>malloc(m * n * sizeof(double))
        cdef double* tmpd
        cdef int64_t* ostart_l = <int64_t*>malloc((m + 1) * sizeof(int64_t))
        cdef int64_t total = 0
        cdef int64_t* opt
        cdef double* exitv
        cdef JacobiCtx jc
        cdef bint changed, converged
        cdef int om
        for i in range(m):
            total += self.g.estart[nodes[i] + 1] - self.g.estart[nodes[i]]
        opt = <int64_t*>malloc((total + 1) * sizeof(int64_t))
        exitv = <double*>malloc((total + 1) * n * sizeof(double))
        if (cur == NULL or nxt == NULL or saved == NULL or ostart_l == NULL or opt == NULL
                or exitv == NULL):
            free(cur); free(nxt); free(saved); free(ostart_l); free(opt); free(exitv)
            return -1
        for i in range(m):
            self.loc[nodes[i]] = <int32_t>i
        for i in range(m):
            u = nodes[i]
            ostart_l[i] = nopt
            for e in range(self.g.estart[u], self.g.estart[u + 1]):
                t = self.g.etgt[e]
                if gv_inner(&self.g, t, prog, solved):
                    opt[nopt] = self.loc[t]
                else:
                    opt[nopt] = -1 - nex
                    gv_edge_value(&self.g, t, &exitv[nex * n])
                    nex += 1
                nopt += 1
        ostart_l[m] = nopt
        for i in range(m):
            # the draw value: the players still in share the loss
            om = gv_outm(&self.g, nodes[i])
            for j in range(n):
                cur[i * n + j] = 0.0 if (om >> j) & 1 else 1.0 / (n - popcount16(<uint16_t>om))
        memcpy(saved, cur, m * n * sizeof(double))
        jc.g = &self.g
        jc.nodes = nodes
        jc.m = m
        jc.opt = opt
        jc.ostart = ostart_l
        jc.exitv = exitv
        jc.nthreads = self.threads if (self.threads > 1 and m >= self.par_min) else 1
        self.np_layers += 1
        sweep = 0
        extra = -1
        period = 0
        converged = False
        while sweep < MAX_SWEEPS:
            jc.cur = cur
            jc.nxt = nxt
            if jc.nthreads > 1:
                palace_parallel(jc.nthreads, _jacobi_task, &jc)
            else:
                _jacobi_range(&jc, 0, m)
            changed = memcmp(cur, nxt, m * n * sizeof(double)) != 0
            tmpd = cur
            cur = nxt
            nxt = tmpd
            sweep += 1
            if not changed:
                converged = True
                break
            if extra >= 0:
                extra -= 1
                if extra == 0:
                    break
                continue
            if memcmp(cur, saved, m * n * sizeof(double)) == 0:
                # the values after `sweep` sweeps repeat those lam sweeps earlier: a cycle
                # of period lam; the values after MAX_SWEEPS are those after
                # sweep + (MAX_SWEEPS - sweep) % lam sweeps
                period = lam
                extra = (MAX_SWEEPS - sweep) % lam
                if extra == 0:
                    break
                continue
            if lam == power:
                memcpy(saved, cur, m * n * sizeof(double))
                power *= 2
                lam = 0
            lam += 1
        if not converged:
            self.np_cycling += 1
            if period > self.np_max_period:
                self.np_max_period = <int>period
        if sweep > self.np_max_sweeps:
            self.np_max_sweeps = <int>sweep
        for i in range(m):
            u = nodes[i]
            solved[u] = 1
            for j in range(n):
                self.g.val[<int64_t>u * n + j] = cur[i * n + j]
        free(cur); free(nxt); free(saved); free(ostart_l); free(opt); free(exitv)
        return 0

    # -- results ------------------------------------------------------------------------
    def root_value(self):
        cdef double vec[MAXP]
        gv_node_vec(&self.g, 0, vec)
        return [vec[j] for j in range(self.g.n)]

    cdef int _real_edges(self, const PState* s, int64_t u, CMove* moves, int* eidx,
                         uint8_t* mp) except -1:
        """The moves of s, a position node u stands for, in its legal-move order, and for
        each the offset of its edge: the node's edges are in the legal-move order of its
        canonical position, whose ranks are s's mapped by mp (filled here)."""
        cdef PState c
        cdef CMove cm[MAX_MOVES]
        cdef int nm = gen_moves(s, moves), j, e, r
        copy_state(&c, s)
        canon_map(&c, self.seg if self.canon else NULL, mp)
        if gen_moves(&c, cm) != nm or nm != self.g.estart[u + 1] - self.g.estart[u]:
            raise AssertionError(f"node {u}: {nm} moves, "
                                 f"{self.g.estart[u + 1] - self.g.estart[u]} edges")
        for j in range(nm):
            r = mp[moves[j].rank] if moves[j].rank else 0
            e = 0
            while e < nm and not (cm[e].kind == moves[j].kind and cm[e].rank == r
                                  and cm[e].count == moves[j].count):
                e += 1
            if e == nm:
                raise AssertionError(f"node {u}: move {_move_obj(moves[j])} has no edge")
            eidx[j] = e
        return nm

    def root_moves(self):
        """[(Move, [loss per player])] in the legal-move order of the root."""
        cdef CMove moves[MAX_MOVES]
        cdef int eidx[MAX_MOVES]
        cdef uint8_t mp[16]
        cdef int nm = self._real_edges(&self.root, 0, moves, eidx, mp), j
        cdef int64_t e
        cdef double vec[MAXP]
        out = []
        for j in range(nm):
            e = self.g.estart[0] + eidx[j]
            gv_edge_value(&self.g, self.g.etgt[e], vec)
            out.append((_move_obj(moves[j]), [vec[i] for i in range(self.g.n)]))
        return out

    def stats(self):
        built = self.peak_bytes if self.peak_bytes else self._build_bytes()
        nodes = max(self.N, 1)
        return {"nodes": self.N, "expanded": self.P, "moves": self.E, "flips": self.F,
                "outcomes": self.O,
                "layers": self.layers,
                "build_seconds": round(self.build_seconds, 6),
                "solve_seconds": round(self.solve_seconds, 6),
                "memory_mb": round(self._graph_bytes() / 1048576.0, 2),
                "bytes_per_position": round(self._graph_bytes() / <double>nodes, 1),
                "build_peak_mb": round(built / 1048576.0, 2),
                "build_bytes_per_position": round(built / <double>nodes, 1),
                "key_words": self.K, "packed_words": self.nw, "threads": self.threads,
                "history": self.nhk, "merged": bool(self.canon)}

    def graph_digest(self):
        """SHA-256 of the graph arrays (info, estart, etgt, fstart, otgt, ow) and the values:
        the same bytes for any thread count."""
        import hashlib
        h = hashlib.sha256()
        h.update((<char*>self.g.info)[:self.N * 4])
        h.update((<char*>self.g.estart)[:(self.N + 1) * 4])
        h.update((<char*>self.g.etgt)[:self.E * 4])
        h.update((<char*>self.g.fstart)[:(self.F + 1) * 4])
        h.update((<char*>self.g.otgt)[:self.O * 4])
        h.update((<char*>self.g.ow)[:self.O])
        if self.g.val != NULL:
            h.update((<char*>self.g.val)[:self.N * self.g.nv * 8])
        return h.hexdigest()

    def fixed_point(self):
        """The 3+ player layers: how many, how many cycled instead of converging, the
        longest period, the most sweeps one needed."""
        return {"layers": self.np_layers, "cycling": self.np_cycling,
                "max_period": self.np_max_period, "max_sweeps": self.np_max_sweeps}

    # -- graph access for --line and --tree --------------------------------------------------
    def node_count(self):
        return self.N

    def node_value(self, int64_t u):
        cdef double vec[MAXP]
        gv_node_vec(&self.g, <int32_t>u, vec)
        return [vec[j] for j in range(self.g.n)]

    def node_mover(self, int64_t u):
        return gv_mover(&self.g, u)

    cdef CState _state_of(self, int64_t u):
        cdef CState c
        if u == 0:
            c = CState.__new__(CState)
            copy_state(&c.s, &self.root)
            c.rules = self._rules
            return c
        if self._known is None or u not in self._known:
            raise KeyError(f"node {u}: its state is known once node_edges has reached it "
                           f"from the root")
        return self._known[u]

    def node_state(self, int64_t u):
        """The position of node u, as a reference State (u = 0, or a node that node_edges
        has listed as a target: the keys are gone after the build). With merged positions
        a node stands for several: this is the one node_edges reached it by."""
        return self._state_of(u).to_state()

    def node_cstate(self, int64_t u):
        """node_state's position as a compiled CState (a copy)."""
        return self._state_of(u).clone()

    def node_edges(self, int64_t u, CState state=None):
        """[(Move, [(probability, target)])] where a target is a node id or a tuple of
        terminal losses. The targets' states become known (node_state).

        ``state``: the position node u stands for on the caller's line (merged positions):
        the moves are its moves, and the targets' states are the positions they lead to
        from it, replacing those known before."""
        cdef CState src = self._state_of(u) if state is None else state, c
        cdef CMove moves[MAX_MOVES]
        cdef int eidx[MAX_MOVES]
        cdef uint8_t mp[16]
        cdef PState d, after
        cdef int nm, j, k, o, oc, code, i, n = self.g.n
        cdef int ranks[16]
        cdef int weights[16]
        cdef int cranks[16]
        cdef int64_t e, f, oo
        cdef int32_t t, g
        if self._known is None:
            self._known = {}
        nm = self._real_edges(&src.s, u, moves, eidx, mp)
        out = []
        for j in range(nm):
            e = self.g.estart[u] + eidx[j]
            t = self.g.etgt[e]
            copy_state(&after, &src.s)
            apply_move(&after, moves[j])
            outs = []
            if t > -FLIP_BASE:
                outs.append((1.0, self._target_obj(t, &after, state is not None)))
            else:
                f = -FLIP_BASE - t
                k = chance_outcomes(&after, ranks, weights)
                if k != self.g.fstart[f + 1] - self.g.fstart[f]:
                    raise AssertionError(f"node {u}: {k} outcomes of a flip, "
                                         f"{self.g.fstart[f + 1] - self.g.fstart[f]} stored")
                tot = sum(self.g.ow[oo] for oo in range(self.g.fstart[f], self.g.fstart[f + 1]))
                # the stored outcomes are in the order of the canonical ranks (mp)
                for o in range(k):
                    cranks[o] = mp[ranks[o]]
                for o in range(k):
                    oc = 0
                    for i in range(k):
                        if cranks[i] < cranks[o]:
                            oc += 1
                    g = self.g.otgt[self.g.fstart[f] + oc]
                    copy_state(&d, &after)
                    apply_chance(&d, ranks[o])
                    outs.append((self.g.ow[self.g.fstart[f] + oc] / <double>tot,
                                 self._target_obj(g, &d, state is not None)))
            out.append((_move_obj(moves[j]), outs))
        return out

    cdef object _target_obj(self, int32_t t, PState* s, bint replace):
        cdef CState c
        cdef int code, j, n = self.g.n
        if t >= 0:
            if (replace or t not in self._known) and t != 0:
                c = CState.__new__(CState)
                copy_state(&c.s, s)
                c.rules = self._rules
                self._known[t] = c
            return t
        code = -1 - t
        if code < n:
            return tuple(1.0 if j == code else 0.0 for j in range(n))
        if code == 2 * n:
            return tuple(0.0 if (self.g.draw_out >> j) & 1 else self.g.draw_share
                         for j in range(n))
        return tuple(0.0 if j == code - n else 1.0 / (n - 1) for j in range(n))


cdef void _exits_range(ExitCtx* x, int64_t lo, int64_t hi) noexcept nogil:
    """For nodes [lo, hi) of a two-player layer: the layer indices of the inner moves'
    targets (at x.inner[x.istart[i]...], x.inner_cnt[i] of them) and the lowest and highest
    loss of player a over the other moves (the exits; 2.0 and -2.0 when there are none)."""
    cdef int64_t i, e, k
    cdef int32_t u, t
    cdef int a
    cdef double v, mn, mx
    for i in range(lo, hi):
        u = x.nodes[i]
        a = 0 if x.g.n == 2 else gv_pa(x.g, u)
        k = x.istart[i]
        mn = 2.0
        mx = -2.0
        for e in range(x.g.estart[u], x.g.estart[u + 1]):
            t = x.g.etgt[e]
            if gv_inner(x.g, t, x.prog, x.solved):
                x.inner[k] = x.loc[t]
                k += 1
                continue
            v = gv_edge_loss(x.g, t, a)
            if fabs(v - 0.5) < SNAP:
                v = 0.5
            if v < mn:
                mn = v
            if v > mx:
                mx = v
        x.inner_cnt[i] = <int32_t>(k - x.istart[i])
        x.exmin[i] = mn
        x.exmax[i] = mx



# The two sweeps of a two-player layer (see ExactGraph._layer_2p), one task each.
ctypedef struct SweepCtx:
    int64_t m, npred
    int64_t* pstart            # predecessors of layer node q: preds[pstart[q] .. pstart[q+1])
    int32_t* preds
    int32_t* innc              # inner moves per node
    double* exmin              # lowest / highest exit value for a per node (2.0 / -2.0: none)
    double* exmax
    int8_t* first_b            # the mover is b
    int8_t* state[2]           # per sweep and node: 0 open, 1 blocked, 2 done
    double* val[2]             # per sweep: the value of a node done (a's loss)
    int err[2]


cdef void _sweep_task(void* ctx, int t, int nthreads) noexcept nogil:
    """Sweep t of a two-player layer. t = 0: scores v (a's loss) above 1/2, b's nodes take
    the first value reaching them, a's nodes wait for all their options; t = 1: scores -v,
    values below 1/2, roles swapped. Pops the highest score first; every push after the
    first pop is at most the score last popped and most equal it (a value spreading back
    through the movers who take it): those go on a stack popped before the heap, in any
    order (values do not depend on it)."""
    cdef SweepCtx* sw = <SweepCtx*>ctx
    cdef int64_t m = sw.m, i, q, nsame = 0
    cdef int32_t pu, c
    cdef double sign = 1.0 if t == 0 else -1.0, sc = 0.0, best = 0.0
    cdef bint have, blk, firstres
    cdef int8_t* state = <int8_t*>malloc(m + 1)
    cdef double* val = <double*>malloc((m + 1) * sizeof(double))
    cdef int32_t* remaining = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    cdef double* worst = <double*>malloc((m + 1) * sizeof(double))
    cdef int32_t* same = <int32_t*>malloc((sw.npred + 1) * sizeof(int32_t))
    cdef MaxHeap h
    h.key = NULL; h.node = NULL; h.n = 0; h.cap = 0
    sw.state[t] = state
    sw.val[t] = val
    sw.err[t] = 0
    if state == NULL or val == NULL or remaining == NULL or worst == NULL or same == NULL:
        sw.err[t] = 1
        free(remaining); free(worst); free(same)
        return
    for i in range(m):
        firstres = sw.first_b[i] == (t == 0)
        state[i] = 0
        remaining[i] = sw.innc[i]
        have = blk = False
        if t == 0:
            # b (first) takes the highest exit above 1/2; a is blocked by an exit at or
            # below 1/2, else waits for its lowest
            if firstres:
                have = sw.exmax[i] > 0.5
                best = sw.exmax[i]
            else:
                blk = sw.exmin[i] <= 0.5
                worst[i] = sw.exmin[i]
        else:
            # a (first) takes the lowest exit below 1/2; b is blocked by an exit at or
            # above 1/2, else waits for its highest
            if firstres:
                have = sw.exmin[i] < 0.5
                best = -sw.exmin[i]
            else:
                blk = sw.exmax[i] >= 0.5
                worst[i] = -sw.exmax[i] if sw.exmax[i] > -2.0 else 2.0
        if firstres:
            if have and heap_push(&h, best, <int32_t>i) != 0:
                sw.err[t] = 1
                break
        elif blk:
            state[i] = 1
        elif remaining[i] == 0:
            if heap_push(&h, worst[i], <int32_t>i) != 0:
                sw.err[t] = 1
                break
    while sw.err[t] == 0 and (h.n > 0 or nsame > 0):
        if nsame > 0:
            nsame -= 1
            pu = same[nsame]
        else:
            heap_pop(&h, &sc, &pu)
        if state[pu] == 2:
            continue
        state[pu] = 2
        val[pu] = sign * sc
        for q in range(sw.pstart[pu], sw.pstart[pu + 1]):
            c = sw.preds[q]
            if state[c] != 0:
                continue
            if sw.first_b[c] == (t == 0):
                same[nsame] = c
                nsame += 1
            else:
                remaining[c] -= 1
                if sc < worst[c]:
                    worst[c] = sc
                if remaining[c] == 0:
                    if worst[c] == sc:
                        same[nsame] = c
                        nsame += 1
                    elif heap_push(&h, worst[c], c) != 0:
                        sw.err[t] = 1
                        break
    free(h.key); free(h.node); free(remaining); free(worst); free(same)

cdef void _exits_task(void* ctx, int t, int nthreads) noexcept nogil:
    cdef ExitCtx* x = <ExitCtx*>ctx
    _exits_range(x, x.m * t // nthreads, x.m * (t + 1) // nthreads)


ctypedef struct JacobiCtx:
    GraphView* g
    int32_t* nodes
    int64_t m
    int64_t* opt               # per option: the layer index of an inner target, or -1 - exit
    int64_t* ostart
    double* exitv
    double* cur
    double* nxt
    int nthreads


cdef void _jacobi_range(JacobiCtx* jc, int64_t lo, int64_t hi) noexcept nogil:
    """One Jacobi sweep over nodes [lo, hi): nxt from cur."""
    cdef GraphView* g = jc.g
    cdef int n = g.n, p, j
    cdef int64_t i, k
    cdef double* best
    cdef double* v
    for i in range(lo, hi):
        p = gv_mover(g, jc.nodes[i])
        best = NULL
        for k in range(jc.ostart[i], jc.ostart[i + 1]):
            v = &jc.cur[jc.opt[k] * n] if jc.opt[k] >= 0 else &jc.exitv[(-1 - jc.opt[k]) * n]
            if best == NULL or v[p] < best[p]:
                best = v
        for j in range(n):
            jc.nxt[i * n + j] = best[j]


cdef void _jacobi_task(void* ctx, int t, int nthreads) noexcept nogil:
    cdef JacobiCtx* jc = <JacobiCtx*>ctx
    _jacobi_range(jc, jc.m * t // nthreads, jc.m * (t + 1) // nthreads)

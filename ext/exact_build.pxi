# The exact solver, part 4 of 6: the build. May use: core.pxi, exact_keys.pxi,
# exact_parallel.pxi, exact_merge.pxi.
#
# 1. build: breadth-first enumeration of every decision position reachable from the root.
#    A position is identified during the build by its *compact key*: the packed words of
#    pack_state with every bit that cannot vary below this root squeezed out (see
#    "Compact keys"), kept in an open-addressing map of 8-byte slots (32-bit hash tag, id).
#    The build runs in chunks of parents: their expansion (unpack, moves, apply, pack) is
#    split between the threads, then the children are looked up in the map in the order a
#    one-thread build meets them, so the ids, hence the whole graph, are the same bytes for
#    any thread count.
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

cdef enum:
    PROG_BIAS = 1024       # progress + PROG_BIAS is stored in 16 bits
    FLIP_BASE = 64         # etgt <= -FLIP_BASE: a flip; -1 .. -(2n): a terminal
    CHUNK = 8192           # parents expanded per build step
    PAR_MIN_BUILD = 2048   # fewest parents of a build step split between threads
    NO_NODE = -1           # gb_lookup's answer when a node cannot be added (no memory)

# What stops a build or a solve, in its functions' answers and in ExpandBuf.err.
cdef enum ExactErr:
    EX_OK = 0
    EX_NOMEM = 1               # an allocation failed, or mem_cap refused it (over_mem says)
    EX_CHANCE_AFTER_FLIP = 2   # a chance event follows a flip: not an exact-mode position
    EX_KEY_OUTSIDE_MASK = 3    # a position sets a key bit outside the root's mask: a bug

cdef int64_t NOMEM = -(<int64_t>1 << 40)   # gb_resolve's answer when a node cannot be added


cdef inline int progress_of(const PState* s) noexcept nogil:
    """exact.progress up to a constant: face_down + face_up - burned - out, with
    burned = deck - (hands + face-up + pile + pool)."""
    cdef int p, t = s.pile_n - s.n_out
    for p in range(s.n):
        t += s.pl[p].face_down + 2 * s.pl[p].up_n + s.pl[p].hand_n
    for p in range(2, 16):
        t += s.pool[p]
    return t


cdef inline uint32_t node_info(const PState* s) noexcept nogil:
    return ((<uint32_t>(progress_of(s) + PROG_BIAS) << 16) | (<uint32_t>s.out_mask << 4)
            | <uint32_t>s.to_move)


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


# -- expansion of a chunk of parents (threads) ------------------------------------------------

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
    ExactErr err               # what stopped this thread (EX_OK: nothing)


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


cdef ExactErr _buf_reserve(ExpandBuf* b, int64_t moves, int64_t kids, int K) noexcept nogil:
    cdef int64_t c
    cdef void* p
    if b.np + 1 > b.cap_p:
        c = b.cap_p * 2 if b.cap_p else 4096
        p = realloc(b.pmoves, c * 2)
        if p == NULL:
            return EX_NOMEM
        b.pmoves = <int16_t*>p
        b.cap_p = c
    if b.ne + moves > b.cap_e:
        c = b.cap_e * 2 if b.cap_e else 16384
        while c < b.ne + moves:
            c *= 2
        p = realloc(b.ekind, c * 2)
        if p == NULL:
            return EX_NOMEM
        b.ekind = <int16_t*>p
        b.cap_e = c
    if b.nc + kids > b.cap_c:
        c = b.cap_c * 2 if b.cap_c else 16384
        while c < b.nc + kids:
            c *= 2
        p = realloc(b.ckey, c * K * 8)
        if p == NULL:
            return EX_NOMEM
        b.ckey = <uint64_t*>p
        p = realloc(b.chash, c * 8)
        if p == NULL:
            return EX_NOMEM
        b.chash = <uint64_t*>p
        p = realloc(b.cinfo, c * 4)
        if p == NULL:
            return EX_NOMEM
        b.cinfo = <uint32_t*>p
        p = realloc(b.cterm, c * 4)
        if p == NULL:
            return EX_NOMEM
        b.cterm = <int32_t*>p
        p = realloc(b.cw, c)
        if p == NULL:
            return EX_NOMEM
        b.cw = <uint8_t*>p
        b.cap_c = c
    return EX_OK


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
                b.err = EX_KEY_OUTSIDE_MASK
        elif palace_compress_sw(words, x.mask, x.nw, &b.ckey[c * x.K], x.K):
            b.err = EX_KEY_OUTSIDE_MASK
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
    b.err = EX_OK
    copy_state(&s, x.root)          # unpack_state keeps the rules and n, rebuilds the rest
    for i in range(lo, hi):
        if x.hw:
            palace_expand_hw(&x.keys[i * x.K], x.mask, x.nw, words)
        else:
            palace_expand_sw(&x.keys[i * x.K], x.mask, x.nw, words)
        unpack_state(words, x.nw, &s)
        nm = gen_moves(&s, moves)
        if _buf_reserve(b, nm, <int64_t>nm * 14, x.K) != EX_OK:
            b.err = EX_NOMEM
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
                        b.err = EX_CHANCE_AFTER_FLIP
                        return
                    _child(x, b, &d, weights[o])
            else:
                b.ekind[b.ne] = 0
                _child(x, b, &c, 1)
            b.ne += 1
        if b.err:
            return


# -- the node map and the graph's arrays while they grow -----------------------------------

# The build's state: the compact keys and the map (freed once the graph is complete) and the
# counts and capacities of the graph arrays of g. Every growth passes gb_room first, so the
# memory cap holds at the peak.
ctypedef struct GraphBuild:
    GraphView* g               # the arrays filled: info, estart, etgt, fstart, otgt, ow
    uint64_t* keys             # compact keys, K words a node
    uint64_t* slots            # map: tag << 32 | (id + 1); 0 = empty
    uint64_t mapcap
    int K
    int64_t N, cap_n           # nodes
    int64_t E, cap_e           # moves (etgt)
    int64_t F, cap_f           # flips (fstart)
    int64_t O, cap_o           # flip outcomes (otgt, ow)
    int64_t P                  # parents merged so far (estart entries written)
    int64_t mem_cap            # build(max_bytes): no array grows past it (0: no cap)
    bint over_mem              # a growth was refused by mem_cap


cdef void gb_free_map(GraphBuild* gb) noexcept nogil:
    """Free what only the build needs: the keys and the map."""
    free(gb.keys)
    free(gb.slots)
    gb.keys = NULL
    gb.slots = NULL


cdef int64_t gb_cap_bytes(const GraphBuild* gb) noexcept nogil:
    """Bytes of the build's arrays at their capacities (what they hold once filled)."""
    return (gb.cap_n * (gb.K * 8 + 8) + <int64_t>gb.mapcap * 8 + gb.cap_e * 4
            + gb.cap_f * 4 + gb.cap_o * 5)


cdef bint gb_room(GraphBuild* gb, int64_t grow) noexcept nogil:
    """Whether `grow` more bytes keep the build within mem_cap (else over_mem is set).
    Capacities, not bytes touched, and the old map counted while the new one fills:
    a growth is refused before it happens, so the cap holds at the peak."""
    if gb.mem_cap <= 0 or gb_cap_bytes(gb) + grow <= gb.mem_cap:
        return True
    gb.over_mem = True
    return False


cdef ExactErr gb_rehash(GraphBuild* gb) noexcept nogil:
    cdef uint64_t cap = gb.mapcap * 2, mask = cap - 1, i, h
    cdef int64_t u
    cdef uint64_t* s
    if not gb_room(gb, <int64_t>cap * 8):
        return EX_NOMEM
    s = <uint64_t*>calloc(cap, 8)
    if s == NULL:
        return EX_NOMEM
    for u in range(gb.N):
        h = hash_words(&gb.keys[u * gb.K], gb.K)
        i = h & mask
        while s[i] != 0:
            i = (i + 1) & mask
        s[i] = ((h >> 32) << 32) | <uint64_t>(u + 1)
    free(gb.slots)
    gb.slots = s
    gb.mapcap = cap
    return EX_OK



cdef ExactErr gb_grow_nodes(GraphBuild* gb, int64_t need) noexcept nogil:
    cdef int64_t c = gb.cap_n if gb.cap_n else 4096
    cdef void* p
    while c < need + 1:
        c *= 2
    if not gb_room(gb, (c - gb.cap_n) * (gb.K * 8 + 8)):
        return EX_NOMEM
    p = realloc(gb.keys, c * gb.K * 8)
    if p == NULL:
        return EX_NOMEM
    gb.keys = <uint64_t*>p
    p = realloc(gb.g.info, c * 4)
    if p == NULL:
        return EX_NOMEM
    gb.g.info = <uint32_t*>p
    p = realloc(gb.g.estart, (c + 1) * 4)
    if p == NULL:
        return EX_NOMEM
    gb.g.estart = <uint32_t*>p
    gb.cap_n = c
    return EX_OK



cdef inline int64_t gb_lookup(GraphBuild* gb, const uint64_t* key, uint64_t h,
                            uint32_t inf) noexcept nogil:
    """The id of a compact key, added when new; NO_NODE when out of memory."""
    cdef uint64_t mask = gb.mapcap - 1, i = h & mask, sl, tag = (h >> 32) << 32
    cdef int64_t v
    cdef int K = gb.K
    while True:
        sl = gb.slots[i]
        if sl == 0:
            break
        if (sl & <uint64_t>0xFFFFFFFF00000000ULL) == tag:
            v = <int64_t>(sl & 0xFFFFFFFFULL) - 1
            if memcmp(&gb.keys[v * K], key, K * 8) == 0:
                return v
        i = (i + 1) & mask
    v = gb.N
    if v + 1 >= gb.cap_n and gb_grow_nodes(gb, v + 1) != EX_OK:
        return NO_NODE
    memcpy(&gb.keys[v * K], key, K * 8)
    gb.g.info[v] = inf
    gb.slots[i] = tag | <uint64_t>(v + 1)
    gb.N = v + 1
    if <uint64_t>gb.N * 4 > gb.mapcap * 3:
        if gb_rehash(gb) != EX_OK:
            return NO_NODE
    return v


cdef inline void gb_prefetch(const GraphBuild* gb, uint64_t h) noexcept nogil:
    __builtin_prefetch(&gb.slots[h & (gb.mapcap - 1)])


cdef ExactErr gb_reserve_edges(GraphBuild* gb, int64_t moves, int64_t kids) noexcept nogil:
    cdef int64_t c
    cdef void* p
    if gb.E + moves + 1 > gb.cap_e:
        c = gb.cap_e * 2 if gb.cap_e else 16384
        while c < gb.E + moves + 1:
            c *= 2
        if not gb_room(gb, (c - gb.cap_e) * 4):
            return EX_NOMEM
        p = realloc(gb.g.etgt, c * 4)
        if p == NULL:
            return EX_NOMEM
        gb.g.etgt = <int32_t*>p
        gb.cap_e = c
    if gb.F + moves + 1 > gb.cap_f:
        c = gb.cap_f * 2 if gb.cap_f else 4096
        while c < gb.F + moves + 1:
            c *= 2
        if not gb_room(gb, (c - gb.cap_f) * 4):
            return EX_NOMEM
        p = realloc(gb.g.fstart, c * 4)
        if p == NULL:
            return EX_NOMEM
        gb.g.fstart = <uint32_t*>p
        gb.cap_f = c
    if gb.O + kids + 1 > gb.cap_o:
        c = gb.cap_o * 2 if gb.cap_o else 16384
        while c < gb.O + kids + 1:
            c *= 2
        if not gb_room(gb, (c - gb.cap_o) * 5):
            return EX_NOMEM
        p = realloc(gb.g.otgt, c * 4)
        if p == NULL:
            return EX_NOMEM
        gb.g.otgt = <int32_t*>p
        p = realloc(gb.g.ow, c)
        if p == NULL:
            return EX_NOMEM
        gb.g.ow = <uint8_t*>p
        gb.cap_o = c
    return EX_OK



cdef ExactErr gb_merge_buf(GraphBuild* gb, ExpandBuf* b) noexcept nogil:
    """Adds one thread's children in order: ids, edges, flips."""
    cdef int64_t p, e = 0, c = 0, j, k, o, la, t
    cdef int nm, kind
    cdef int K = gb.K
    cdef int64_t ahead = 16
    if gb_reserve_edges(gb, b.ne, b.nc) != EX_OK:
        return EX_NOMEM
    # prefetch the map slots of the first children
    for la in range(ahead if ahead < b.nc else b.nc):
        if b.cterm[la] < 0:
            gb_prefetch(gb, b.chash[la])
    la = ahead
    for p in range(b.np):
        gb.g.estart[gb.P] = <uint32_t>gb.E
        gb.P += 1
        nm = b.pmoves[p]
        for j in range(nm):
            kind = b.ekind[e]
            e += 1
            if kind == 0:
                if la < b.nc:
                    if b.cterm[la] < 0:
                        gb_prefetch(gb, b.chash[la])
                    la += 1
                t = gb_resolve(gb, b, c)
                if t == NOMEM:
                    return EX_NOMEM
                gb.g.etgt[gb.E] = <int32_t>t
                c += 1
            else:
                gb.g.fstart[gb.F] = <uint32_t>gb.O
                gb.g.etgt[gb.E] = <int32_t>(-FLIP_BASE - gb.F)
                gb.F += 1
                for k in range(kind):
                    if la < b.nc:
                        if b.cterm[la] < 0:
                            gb_prefetch(gb, b.chash[la])
                        la += 1
                    t = gb_resolve(gb, b, c)
                    if t == NOMEM:
                        return EX_NOMEM
                    gb.g.otgt[gb.O] = <int32_t>t
                    gb.g.ow[gb.O] = b.cw[c]
                    gb.O += 1
                    c += 1
            gb.E += 1
    return EX_OK



cdef inline int64_t gb_resolve(GraphBuild* gb, ExpandBuf* b, int64_t c) noexcept nogil:
    cdef int64_t v
    if b.cterm[c] >= 0:
        return -1 - b.cterm[c]
    v = gb_lookup(gb, &b.ckey[c * gb.K], b.chash[c], b.cinfo[c])
    return NOMEM if v == NO_NODE else v


cdef int64_t gb_build_bytes(const GraphBuild* gb) noexcept nogil:
    """Bytes in use during the build (keys, map, graph arrays; capacities not touched
    yet are not counted)."""
    return (gb.N * (gb.K * 8 + 4 + 4) + <int64_t>gb.mapcap * 8
            + gb.E * 4 + gb.F * 4 + gb.O * 5)


cdef int64_t gb_graph_bytes(const GraphBuild* gb) noexcept nogil:
    """Bytes of what the solve keeps: the graph and one value per node and player."""
    return (gb.N * (4 + 4) + gb.E * 4 + gb.F * 4 + gb.O * 5
            + (gb.N * gb.g.nv * 8 if gb.g.val != NULL else 0))

# Randomness inside the compiled search: a seeded generator, sparse sampling of chance
# outcomes, the greedy policy and greedy playouts (deepen.pxi and decide.pxi use them).
# May use: core.pxi (moves, apply, chance).
#
# Why here. A refill after a play with a draw pile is up to three chance events of up to
# thirteen outcomes each: expanding all of them (13^3 = 2,197 leaves under one move) leaves
# no budget for looking ahead. Sparse sampling (Kearns, Mansour & Ng 2002) keeps `width`
# outcomes drawn with their probabilities (with replacement, each weighted by how often it
# was drawn, so the weights still sum to one and the average stays unbiased); with at most
# `width` outcomes every one is kept with its exact probability. The draw is seeded by the
# node's own key, so a node met again (a later iteration, a transposition) samples the same
# outcomes and the search stays deterministic.

cdef enum:
    PLAYOUT_CAP = 400        # decisions after which a playout is a draw (sample/rollout.py)


# -- generator: splitmix64 ----------------------------------------------------------------------

cdef inline uint64_t rng_next(uint64_t* st) noexcept nogil:
    st[0] += <uint64_t>0x9e3779b97f4a7c15ULL
    return _mix64(st[0])


cdef inline int rng_below(uint64_t* st, int n) noexcept nogil:
    """Uniform in 0..n-1 (n < 2^31): the high 32 bits scaled, bias below 2^-31 * n."""
    return <int>(((rng_next(st) >> 32) * <uint64_t>n) >> 32)


cdef inline uint64_t seed_mix(uint64_t a, uint64_t b) noexcept nogil:
    return _mix64(a ^ _mix64(b + <uint64_t>0x632be59bd9b4e019ULL))


# -- sparse chance ------------------------------------------------------------------------------

cdef inline int pool_pick(const PState* s, uint64_t* st) noexcept nogil:
    """One rank of the unseen pool, with probability proportional to its count."""
    cdef int r, total = 0, x
    for r in range(2, 16):
        total += s.pool[r]
    x = rng_below(st, total)
    for r in range(2, 16):
        if x < s.pool[r]:
            return r
        x -= s.pool[r]
    return 0


cdef inline int sparse_outcomes(const PState* s, int width, uint64_t seed, int* ranks,
                                double* prob) noexcept nogil:
    """The outcomes of chance node s kept by the search and their weights (summing to 1),
    ranks ascending. All of them with their probabilities when there are at most `width`
    (or width <= 0); else `width` draws from the pool, each distinct rank weighted by its
    share of the draws. Returns how many; -(count) when sampled (the caller marks the
    value as an estimate)."""
    cdef int weights[16]
    cdef int hits[16]
    cdef int k, i, j, r, total = 0
    cdef uint64_t st = seed
    k = chance_outcomes(s, ranks, weights)
    for i in range(k):
        total += weights[i]
    if width <= 0 or k <= width:
        for i in range(k):
            prob[i] = weights[i] / <double>total
        return k
    memset(hits, 0, sizeof(hits))
    for i in range(width):
        hits[pool_pick(s, &st)] += 1
    j = 0
    for r in range(2, 16):
        if hits[r]:
            ranks[j] = r
            prob[j] = hits[r] / <double>width
            j += 1
    return -j


# -- the greedy policy --------------------------------------------------------------------------
# A mirror of palace_solver.sample.policies.GreedyBot for PLAY-phase decisions (tests compare
# them move for move).

cdef inline bint greedy_special(const PState* s, int r) noexcept nogil:
    return r == 2 or r == 10 or ((s.r.burn_mask >> r) & 1) or ((s.r.transp_mask >> r) & 1)


cdef inline int greedy_special_order(const PState* s, int r) noexcept nogil:
    if (s.r.transp_mask >> r) & 1:
        return 0
    if r == 2:
        return 1
    return 2


cdef inline int greedy_value(const PState* s, int r) noexcept nogil:
    """GreedyBot.value: normal ranks by their order (3 lowest), specials above the ace."""
    if greedy_special(s, r):
        return 100 - greedy_special_order(s, r)
    if 3 <= r <= 9:
        return r - 3
    if 11 <= r <= 14:
        return r - 4
    return 50


cdef inline CMove greedy_move(const PState* s, const CMove* moves, int nm) noexcept nogil:
    """GreedyBot.choose among the legal moves (in gen_moves order)."""
    cdef int i, best = -1, bv = 1 << 30, v
    if nm == 1:
        return moves[0]
    # the lowest normal rank, every copy (moves of one rank come by count ascending)
    for i in range(nm):
        if moves[i].kind == MK_PLAY and not greedy_special(s, moves[i].rank):
            v = greedy_value(s, moves[i].rank)
            if v < bv or (v == bv and moves[i].count > moves[best].count):
                bv = v
                best = i
    if best >= 0:
        return moves[best]
    # else a special, one card: transparent, then 2, then a burner (first by rank on ties)
    for i in range(nm):
        if moves[i].kind == MK_PLAY and moves[i].count == 1:
            v = greedy_special_order(s, moves[i].rank)
            if v < bv:
                bv = v
                best = i
    if best >= 0:
        return moves[best]
    # else a pickup: the plain one, or (face-up stage) laying the least valuable card
    for i in range(nm):
        if moves[i].kind == MK_PICKUP:
            v = greedy_value(s, moves[i].rank) if moves[i].rank else -1
            if v < bv:
                bv = v
                best = i
    return moves[best if best >= 0 else 0]


cdef inline void draw_loss(const PState* s, double* out) noexcept nogil:
    """Endless play: the players still in share the loss."""
    cdef int q, left = 0
    for q in range(s.n):
        if not ((s.out_mask >> q) & 1):
            left += 1
    for q in range(s.n):
        out[q] = 0.0 if (s.out_mask >> q) & 1 else 1.0 / left


cdef inline int ordered_draw(const PState* s, const uint8_t* order, int order_n) noexcept nogil:
    """The next card of a determinized draw pile (order[i] is the i-th card drawn from a
    pile of order_n cards), or 0 when s is not at a refill draw that the order covers."""
    cdef int i
    if order == NULL or s.pend_kind != PEND_DRAW:
        return 0
    i = order_n - s.draw_pile
    if i < 0 or i >= order_n or not s.pool[order[i]]:
        return 0
    return order[i]


cdef int greedy_playout(PState* s, uint64_t* st, double* out, const uint8_t* order,
                        int order_n) noexcept nogil:
    """Play s (modified) to the end by the greedy policy, chance drawn from the pool with the
    generator (refills from `order` when given: ordered_draw); each player's loss share in
    out. Returns the decisions played (a playout past PLAYOUT_CAP decisions is a draw)."""
    cdef CMove moves[MAX_MOVES]
    cdef int nm, steps = 0, r
    while not ps_is_terminal(s):
        if ps_is_chance(s):
            r = ordered_draw(s, order, order_n)
            apply_chance(s, r if r else pool_pick(s, st))
            continue
        if steps >= PLAYOUT_CAP:
            draw_loss(s, out)
            return steps
        nm = gen_moves(s, moves)
        apply_move(s, greedy_move(s, moves, nm))
        steps += 1
    terminal_loss(s, out)
    return steps


def greedy_choice(CState s):
    """The compiled greedy policy's move at a decision node (tests: parity with GreedyBot)."""
    cdef CMove moves[MAX_MOVES]
    cdef int nm = gen_moves(&s.s, moves)
    if nm == 0:
        raise ValueError("greedy_choice at a node without moves")
    return _move_obj(greedy_move(&s.s, moves, nm))


def greedy_playout_loss(CState s, uint64_t seed):
    """One compiled greedy playout from s (s is not modified): (loss shares, decisions)."""
    cdef PState c
    cdef double out[MAXP]
    cdef uint64_t st = seed
    cdef int steps
    copy_state(&c, &s.s)
    with nogil:
        steps = greedy_playout(&c, &st, out, NULL, 0)
    return [out[i] for i in range(s.s.n)], steps


def sparse_chance(CState s, int width, uint64_t seed):
    """The outcomes sparse sampling keeps at chance node s: ([(rank, weight)], sampled)."""
    cdef int ranks[16]
    cdef double prob[16]
    cdef int k = sparse_outcomes(&s.s, width, seed, ranks, prob)
    sampled = k < 0
    if k < 0:
        k = -k
    return [(ranks[i], prob[i]) for i in range(k)], sampled

# The exact solver, part 3 of 6: merged positions. May use: exact_keys.pxi.
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
# are runs of consecutive ranks (3-9 and J-A apart), whose relabelling keeps every order.
# canon_map also counts a run on the pile that can no longer reach four (too few cards of its
# rank left to play on it, or no four-burn) as a run of one: it burns nothing either way. Off with a game history: a position like a
# history position is not a repetition.


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

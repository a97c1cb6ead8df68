# Transposition table: buckets of TT_BUCKET entries, power-of-two bucket count, full-key check.
#
# Layout: TT.entries[b * TT_BUCKET + i] (TTEntry, 64 bytes) and, in a parallel array,
# TT.words[(b * TT_BUCKET + i) * nwords ...] the packed position (pack_state). The bucket is
# hash & mask; a slot matches only when its 64-bit hash AND its packed words are equal, so a
# hash collision can never return another position's value (it is counted in `collisions`).
#
# Replacement rule (tt_store):
#   1. a slot already holding the same position is overwritten when the new result is at
#      least as deep, or is EXACT, or the old one is from an earlier search (generation);
#      otherwise the deeper current entry is kept;
#   2. else the first empty slot is used;
#   3. else the slot with the lowest worth = depth - 8 * age is evicted, where age is how many
#      generations (tt_new_search calls) ago it was stored: depth-preferred, ageing out stale
#      entries. Ties go to the first slot of the bucket.

from libc.stdlib cimport calloc, free


cdef inline int tt_init(TT* t, double mb, int nwords) noexcept nogil:
    """Allocate about `mb` megabytes. Returns 0, or -1 when out of memory."""
    cdef uint64_t per = sizeof(TTEntry) + 8 * <uint64_t>nwords
    cdef uint64_t want = <uint64_t>(mb * 1048576.0) // (per * TT_BUCKET)
    cdef uint64_t nb = 1
    while nb * 2 <= want:
        nb *= 2
    memset(t, 0, sizeof(TT))
    t.nbuckets = nb
    t.mask = nb - 1
    t.nwords = nwords
    t.entries = <TTEntry*>calloc(nb * TT_BUCKET, sizeof(TTEntry))
    t.words = <uint64_t*>calloc(nb * TT_BUCKET * nwords, 8)
    if t.entries == NULL or t.words == NULL:
        free(t.entries)
        free(t.words)
        t.entries = NULL
        t.words = NULL
        return -1
    # Touch every page now: calloc maps zero pages lazily, and a page fault on the first
    # store into each page would otherwise land inside the search (measured: 4-5x slower
    # searches of a few thousand nodes in a 64 MB table).
    memset(t.entries, 0, nb * TT_BUCKET * sizeof(TTEntry))
    memset(t.words, 0, nb * TT_BUCKET * nwords * 8)
    return 0


cdef inline void tt_free(TT* t) noexcept nogil:
    free(t.entries)
    free(t.words)
    t.entries = NULL
    t.words = NULL


cdef inline void tt_clear(TT* t) noexcept nogil:
    """Empty every slot and zero the counters (the size is kept)."""
    memset(t.entries, 0, t.nbuckets * TT_BUCKET * sizeof(TTEntry))
    memset(t.words, 0, t.nbuckets * TT_BUCKET * t.nwords * 8)
    t.generation = 0
    t.probes = t.hits = t.collisions = t.stores = t.replacements = t.occupied = 0


cdef inline void tt_new_search(TT* t) noexcept nogil:
    t.generation = <uint8_t>(t.generation + 1)


cdef inline TTEntry* tt_probe(TT* t, uint64_t key, const uint64_t* words) noexcept nogil:
    """The entry of this position, or NULL."""
    cdef uint64_t base = (key & t.mask) * TT_BUCKET
    cdef int i
    cdef TTEntry* e
    t.probes += 1
    for i in range(TT_BUCKET):
        e = &t.entries[base + i]
        if e.bound != TT_EMPTY and e.key == key:
            if memcmp(&t.words[(base + i) * t.nwords], words, t.nwords * 8) == 0:
                t.hits += 1
                return e
            t.collisions += 1
    return NULL


cdef inline TTEntry* tt_store(TT* t, uint64_t key, const uint64_t* words, const double* values,
                              int nv, int depth, int bound, CMove best) noexcept nogil:
    """Store a result under the replacement rule above; returns the slot written, or NULL
    when a deeper current entry of the same position was kept."""
    cdef uint64_t base = (key & t.mask) * TT_BUCKET
    cdef int i, j, victim = -1, worth, best_worth = 1 << 30
    cdef TTEntry* e
    t.stores += 1
    for i in range(TT_BUCKET):
        e = &t.entries[base + i]
        if (e.bound != TT_EMPTY and e.key == key
                and memcmp(&t.words[(base + i) * t.nwords], words, t.nwords * 8) == 0):
            if depth >= e.depth or bound == TT_EXACT or e.age != t.generation:
                victim = i
                break
            return NULL
    if victim < 0:
        for i in range(TT_BUCKET):
            if t.entries[base + i].bound == TT_EMPTY:
                victim = i
                t.occupied += 1
                break
    if victim < 0:
        for i in range(TT_BUCKET):
            e = &t.entries[base + i]
            worth = e.depth - 8 * <int>(<uint8_t>(t.generation - e.age))
            if worth < best_worth:
                best_worth = worth
                victim = i
        t.replacements += 1
    e = &t.entries[base + victim]
    e.key = key
    memcpy(&t.words[(base + victim) * t.nwords], words, t.nwords * 8)
    for j in range(MAXV):
        e.value[j] = values[j] if j < nv else 0.0
    e.depth = <int16_t>depth
    e.bound = <uint8_t>bound
    e.age = t.generation
    e.best = best
    return e

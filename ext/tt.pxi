# Transposition table: buckets of TT_BUCKET entries, power-of-two bucket count, full-key check.
# May use: core.pxi (pack_state, the hash) and _engine.pxd.
#
# Layout: TT.entries[b * TT_BUCKET + i] (TTEntry, 16 bytes: hash, depth, bound, age, best
# move), so a bucket's four headers share one 64-byte cache line; and, in a parallel array,
# TT.payload[(b * TT_BUCKET + i) * stride ...] the slot's nvalues loss values followed by its
# nwords packed position (pack_state); stride = nvalues + nwords (8 words, one cache line,
# for two players). A probe that misses reads one line, a hit two, and a slot takes 80 bytes
# instead of 112, so a table of the same size holds 40% more positions (search speed on the
# bench suite measured the same as the first layout's). The bucket is hash & mask; a slot matches only when its
# 64-bit hash AND its packed words are equal, so a hash collision can never return another
# position's value (it is counted in `collisions`).
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

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* A zeroed block, 2 MB aligned and (on Linux) advised to use transparent huge pages:
       table probes land on random pages, and with 4 KB pages nearly every probe of a large
       table also misses the TLB (Stockfish allocates its table the same way). */
    static void* palace_alloc_table(size_t bytes) {
        void* p = NULL;
        size_t align = (size_t)1 << 21;
        size_t size = (bytes + align - 1) & ~(align - 1);
        if (size == 0) size = align;
        if (posix_memalign(&p, align, size) != 0) return NULL;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, size, MADV_HUGEPAGE);
    #endif
        memset(p, 0, size);
        return p;
    }
    """
    void* palace_alloc_table(size_t bytes) noexcept nogil


cdef inline int tt_init(TT* t, double mb, int nwords, int nvalues) noexcept nogil:
    """Allocate about `mb` megabytes for keys of `nwords` words and `nvalues` values per slot.
    Returns 0, or -1 when out of memory."""
    cdef uint64_t per = sizeof(TTEntry) + 8 * <uint64_t>(nwords + nvalues)
    cdef uint64_t want = <uint64_t>(mb * 1048576.0) // (per * TT_BUCKET)
    cdef uint64_t nb = 1
    while nb * 2 <= want:
        nb *= 2
    memset(t, 0, sizeof(TT))
    t.nbuckets = nb
    t.mask = nb - 1
    t.nwords = nwords
    t.nvalues = nvalues
    t.stride = nwords + nvalues
    # palace_alloc_table touches every page: a lazily mapped zero page faulting on its first
    # store would otherwise land inside the search (measured: 4-5x slower searches of a few
    # thousand nodes in a 64 MB table).
    t.entries = <TTEntry*>palace_alloc_table(nb * TT_BUCKET * sizeof(TTEntry))
    t.payload = <uint64_t*>palace_alloc_table(nb * TT_BUCKET * t.stride * 8)
    if t.entries == NULL or t.payload == NULL:
        free(t.entries)
        free(t.payload)
        t.entries = NULL
        t.payload = NULL
        return -1
    return 0


cdef inline double tt_bytes(const TT* t) noexcept nogil:
    return <double>(t.nbuckets * TT_BUCKET) * (sizeof(TTEntry) + 8.0 * t.stride)


cdef inline void tt_free(TT* t) noexcept nogil:
    free(t.entries)
    free(t.payload)
    t.entries = NULL
    t.payload = NULL


cdef inline void tt_clear(TT* t) noexcept nogil:
    """Empty every slot and zero the counters (the size is kept)."""
    memset(t.entries, 0, t.nbuckets * TT_BUCKET * sizeof(TTEntry))
    memset(t.payload, 0, t.nbuckets * TT_BUCKET * t.stride * 8)
    t.generation = 0
    t.probes = t.hits = t.collisions = t.stores = t.replacements = t.occupied = 0


cdef inline void tt_new_search(TT* t) noexcept nogil:
    t.generation = <uint8_t>(t.generation + 1)


cdef inline double* tt_values(TT* t, const TTEntry* e) noexcept nogil:
    """The loss values of a slot (nvalues of them)."""
    return <double*>&t.payload[<uint64_t>(e - t.entries) * t.stride]


cdef inline uint64_t* _tt_words(TT* t, uint64_t slot) noexcept nogil:
    return &t.payload[slot * t.stride + t.nvalues]


cdef inline TTEntry* tt_probe(TT* t, uint64_t key, const uint64_t* words) noexcept nogil:
    """The entry of this position, or NULL."""
    cdef uint64_t base = (key & t.mask) * TT_BUCKET
    cdef int i
    cdef TTEntry* e
    t.probes += 1
    for i in range(TT_BUCKET):
        e = &t.entries[base + i]
        if e.bound != TT_EMPTY and e.key == key:
            if memcmp(_tt_words(t, base + i), words, t.nwords * 8) == 0:
                t.hits += 1
                return e
            t.collisions += 1
    return NULL


cdef inline TTEntry* tt_store(TT* t, uint64_t key, const uint64_t* words, const double* values,
                              int nv, int depth, int bound, CMove best) noexcept nogil:
    """Store a result under the replacement rule above (values past nv, up to the table's
    nvalues, are zero); returns the slot written, or NULL when a deeper current entry of the
    same position was kept."""
    cdef uint64_t base = (key & t.mask) * TT_BUCKET
    cdef int i, j, victim = -1, worth, best_worth = 1 << 30
    cdef TTEntry* e
    cdef double* v
    t.stores += 1
    for i in range(TT_BUCKET):
        e = &t.entries[base + i]
        if (e.bound != TT_EMPTY and e.key == key
                and memcmp(_tt_words(t, base + i), words, t.nwords * 8) == 0):
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
    memcpy(_tt_words(t, base + victim), words, t.nwords * 8)
    v = tt_values(t, e)
    for j in range(t.nvalues):
        v[j] = values[j] if j < nv else 0.0
    e.depth = <int16_t>depth
    e.bound = <uint8_t>bound
    e.age = t.generation
    e.best = best
    return e

# The exact solver, part 1 of 6: bit tricks and compact keys (the parts: exact.pxi's
# comment). May use: core.pxi.
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

from libc.stdlib cimport malloc, calloc, realloc, free
from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
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

    int __builtin_popcountll(unsigned long long) noexcept nogil
    void __builtin_prefetch(const void*) noexcept nogil

cdef int HAVE_BMI2 = palace_has_bmi2()


cdef inline int popcount64(uint64_t x) noexcept nogil:
    return __builtin_popcountll(x)

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

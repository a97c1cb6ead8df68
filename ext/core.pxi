# Compiled rules core: a line-by-line mirror of palace_solver/game/state.py for the PLAY phase.
# Holds the state helpers, move generation, apply, chance outcomes, pack/unpack and the hash.
# May use: the declarations of _engine.pxd only (it is included first).
#
# Every rule switch is read from s.r (PRules), built from a Rules object by rules_to_flags in
# _engine.pyx; nothing here names a variant except through an RF_* flag or a rank mask.
# Functions are static C (one compilation unit): gcc inlines them into the hot loops.

from libc.string cimport memcpy, memset, memcmp


# -- small helpers ---------------------------------------------------------------------------

cdef inline int ps_player(const PState* s) noexcept nogil:
    return s.to_move


cdef inline bint ps_is_chance(const PState* s) noexcept nogil:
    return s.to_move == TM_CHANCE


cdef inline bint ps_is_terminal(const PState* s) noexcept nogil:
    return s.to_move == TM_TERMINAL


cdef inline void copy_state(PState* dst, const PState* src) noexcept nogil:
    """Copy the used part of a state: everything before pl[] plus n players."""
    memcpy(dst, src, <size_t>(<char*>&src.pl[src.n] - <char*>src))


cdef inline int next_active(const PState* s, int p, int steps) noexcept nogil:
    """state._next_active: `steps` seats along the direction, skipping players out."""
    cdef int q = p, i
    cdef int n = s.n
    cdef int d = s.direction
    for i in range(steps):
        q = (q + d + n) % n
        while (s.out_mask >> q) & 1:
            q = (q + d + n) % n
    return q


# -- the pile ---------------------------------------------------------------------------------

cdef inline void pile_push(PState* s, int r, int k) noexcept nogil:
    """k cards of rank r on top: counts, top, run (capped at 3), rank to beat, sequence."""
    cdef int run
    s.pile[r] += k
    if s.r.flags & RF_LENIENT_BLIND:
        memset(&s.seq[s.pile_n], r, k)
    s.pile_n += k
    run = s.run + k if s.top == r else k
    s.run = 3 if run > 3 else run
    s.top = r
    if not ((s.r.transp_mask >> r) & 1):
        s.beat = r


cdef inline void pile_clear(PState* s) noexcept nogil:
    memset(s.pile, 0, 16)
    s.pile_n = 0
    s.top = 0
    s.run = 0
    s.beat = 0


cdef inline void pile_from_seq(PState* s) noexcept nogil:
    """Top, run and rank to beat from the sequence (lenient_blind after a partial take)."""
    cdef int i, t, run = 0
    s.top = 0
    s.run = 0
    s.beat = 0
    if s.pile_n == 0:
        return
    t = s.seq[s.pile_n - 1]
    s.top = t
    i = s.pile_n - 1
    while i >= 0 and s.seq[i] == t:
        run += 1
        i -= 1
    s.run = 3 if run > 3 else run
    i = s.pile_n - 1
    while i >= 0:
        if not ((s.r.transp_mask >> s.seq[i]) & 1):
            s.beat = s.seq[i]
            break
        i -= 1


# -- end of game ------------------------------------------------------------------------------

cdef inline void finish(PState* s) noexcept nogil:
    s.to_move = TM_TERMINAL
    s.pend_kind = PEND_NONE
    s.pend_player = 0
    s.pend_count = 0


cdef inline void go_out(PState* s, int p) noexcept nogil:
    """state._go_out: p is out; the game ends at the first out (first_out_wins) or when one
    player is left (the loser)."""
    cdef int q, left = 0, last = -1
    s.out_mask |= <uint16_t>(1 << p)
    s.out_order[s.n_out] = p
    s.n_out += 1
    if s.r.flags & RF_FIRST_OUT_WINS:
        s.winner = p
        s.loser = -1
        finish(s)
        return
    for q in range(s.n):
        if not ((s.out_mask >> q) & 1):
            left += 1
            last = q
    if left == 1:
        s.loser = last
        s.winner = -1
        finish(s)


cdef inline int terminal_loser(const PState* s) noexcept nogil:
    return s.loser


cdef inline void terminal_loss(const PState* s, double* loss) noexcept nogil:
    cdef int q
    for q in range(s.n):
        if s.r.flags & RF_FIRST_OUT_WINS:
            loss[q] = 0.0 if q == s.winner else 1.0 / (s.n - 1)
        else:
            loss[q] = 1.0 if q == s.loser else 0.0


# -- moves ------------------------------------------------------------------------------------

cdef extern from *:
    """
    /* Bit r set where byte r of the 16 counts is not zero: in each word of eight counts
       a byte's high bit is set where the byte is not zero, then one multiply gathers the
       eight high bits into the top byte (no two partial products meet, so no carry). */
    static inline unsigned int ps_nonzero16(const unsigned char* c) {
        unsigned long long w[2], lo = 0x7f7f7f7f7f7f7f7fULL, hi = 0x8080808080808080ULL;
        unsigned int out = 0;
        int i;
        memcpy(w, c, 16);
        for (i = 0; i < 2; i++) {
            unsigned long long x = (w[i] | ((w[i] & lo) + lo)) & hi;
            out |= (unsigned int)((x * 0x0002040810204081ULL) >> 56) << (8 * i);
        }
        return out;
    }
    """
    unsigned int ps_nonzero16(const uint8_t* c) nogil
    int __builtin_ctz(unsigned int x) nogil
    int __builtin_popcount(unsigned int x) nogil


cdef struct MovePlan:
    # The legal moves of a decision, as state._play_moves orders them: the plays, by rank
    # (bits of `plays`) then count (1..cnt[rank]); then the pickups: the plain one when
    # `pickup`, or one a rank of `picks` (the face-up stage lays that card first). `flip`:
    # the one move is the face-down flip. `n`: how many moves in all.
    const uint8_t* cnt
    unsigned int plays
    unsigned int picks
    int n_plays
    int n
    bint pickup
    bint flip


cdef inline void move_plan(const PState* s, MovePlan* mp) noexcept nogil:
    """The rules of state._play_moves, once: gen_moves writes the plan's moves, nth_move
    finds one of them without writing the others (the random rollouts' step)."""
    cdef int p = s.to_move
    cdef bint from_hand
    cdef unsigned int held, bits
    mp.plays = 0
    mp.picks = 0
    mp.n_plays = 0
    mp.n = 0
    mp.pickup = False
    mp.flip = False
    if p < 0:
        return
    if s.pl[p].hand_n:
        mp.cnt = s.pl[p].hand
        from_hand = True
    elif s.pl[p].up_n:
        mp.cnt = s.pl[p].up
        from_hand = False
    elif s.pl[p].face_down:
        mp.flip = True
        mp.n = 1
        return
    else:
        return
    # the ranks held, as bits (2..15): the scan over fourteen counts was the rollouts' cost
    held = ps_nonzero16(mp.cnt) & 0xfffc
    mp.plays = held & s.r.play_mask[s.beat]
    bits = mp.plays
    while bits:
        mp.n_plays += mp.cnt[__builtin_ctz(bits)]
        bits &= bits - 1
    mp.n = mp.n_plays
    if s.pile_n and not ((s.r.flags & RF_MUST_PLAY) and mp.n_plays):
        if from_hand or (s.r.flags & RF_EASY_TABLE_PICKUP):
            mp.pickup = True
            mp.n += 1
        else:
            mp.picks = held
            mp.n += __builtin_popcount(held)


cdef inline void set_move(CMove* m, int kind, int rank, int count) noexcept nogil:
    m.kind = kind
    m.rank = rank
    m.count = count


cdef inline int gen_moves(const PState* s, CMove* out) noexcept nogil:
    """state._play_moves, same order: plays by rank then count, then pickup(s)."""
    cdef MovePlan mp
    cdef int r, k, nm = 0
    cdef unsigned int bits
    move_plan(s, &mp)
    if mp.flip:
        set_move(&out[0], MK_FLIP, 0, 0)
        return 1
    bits = mp.plays
    while bits:
        r = __builtin_ctz(bits)
        bits &= bits - 1
        for k in range(1, mp.cnt[r] + 1):
            set_move(&out[nm], MK_PLAY, r, k)
            nm += 1
    if mp.pickup:
        set_move(&out[nm], MK_PICKUP, 0, 0)
        nm += 1
    bits = mp.picks
    while bits:
        r = __builtin_ctz(bits)
        bits &= bits - 1
        set_move(&out[nm], MK_PICKUP, r, 0)
        nm += 1
    return nm


cdef inline CMove nth_move(const MovePlan* mp, int i) noexcept nogil:
    """The move gen_moves writes at index i (0 <= i < mp.n) of the plan."""
    cdef CMove m
    cdef int r
    cdef unsigned int bits
    if mp.flip:
        set_move(&m, MK_FLIP, 0, 0)
        return m
    if i < mp.n_plays:
        bits = mp.plays
        while True:
            r = __builtin_ctz(bits)
            bits &= bits - 1
            if i < mp.cnt[r]:
                set_move(&m, MK_PLAY, r, i + 1)
                return m
            i -= mp.cnt[r]
    i -= mp.n_plays
    if mp.pickup:
        set_move(&m, MK_PICKUP, 0, 0)
        return m
    bits = mp.picks
    while i:
        bits &= bits - 1
        i -= 1
    set_move(&m, MK_PICKUP, __builtin_ctz(bits), 0)
    return m


cdef inline void take_pile(PState* s, int p) noexcept nogil:
    """state._take_pile: the whole pile into p's hand; back_to_last_player picks who is next."""
    cdef int r, last
    cdef PPlayer* pl = &s.pl[p]
    for r in range(2, 16):
        pl.hand[r] += s.pile[r]
    pl.hand_n += s.pile_n
    pile_clear(s)
    last = s.last_player
    s.last_player = -1
    if (s.r.flags & RF_BACK_TO_LAST_PLAYER) and last >= 0 and not ((s.out_mask >> last) & 1):
        s.to_move = last
    else:
        s.to_move = next_active(s, p, 1)


cdef inline void put_on_pile(PState* s, int p, int r, int k) noexcept nogil:
    """state._put_on_pile: a legal play of k cards r by p (already out of p's zones)."""
    cdef bint four, burn, out
    cdef int need, draws, nxt
    cdef PPlayer* pl = &s.pl[p]
    four = (not (s.r.flags & RF_NO_FOUR_BURN)) and (k >= 4 or (s.top == r and s.run + k >= 4))
    pile_push(s, r, k)
    s.last_player = p
    burn = ((s.r.burn_mask >> r) & 1) or four
    if burn:
        pile_clear(s)
        s.last_player = -1
    need = s.r.zone - pl.hand_n
    draws = 0
    if need > 0:
        draws = need if need < s.draw_pile else s.draw_pile
    out = draws == 0 and pl.hand_n + pl.up_n + pl.face_down == 0
    if out:
        go_out(s, p)
        if s.to_move == TM_TERMINAL:
            return
    if burn:
        # Rule 12: a burn on the last card hands the empty pile to the next player.
        nxt = next_active(s, p, 1) if out else p
    else:
        # A reversing or skipping card has its effect even as the player's last card.
        if (s.r.rev_mask >> r) & 1:
            s.direction = -s.direction
        nxt = next_active(s, p, 1 + (k if (s.r.skip_mask >> r) & 1 else 0))
    if draws:
        s.pend_kind = PEND_DRAW
        s.pend_player = p
        s.pend_count = draws
        s.next_after = nxt
        s.to_move = TM_CHANCE
    else:
        s.to_move = nxt


cdef inline void apply_move(PState* s, CMove m) noexcept nogil:
    """state._apply_play for a legal move of the player to move (not checked)."""
    cdef int p = s.to_move
    cdef PPlayer* pl = &s.pl[p]
    if m.kind == MK_FLIP:
        s.pend_kind = PEND_FLIP
        s.pend_player = p
        s.pend_count = 1
        s.to_move = TM_CHANCE
        return
    if m.kind == MK_PICKUP:
        if m.rank:
            # Face-up stage: the chosen face-up card goes on the pile (never a play, no burn).
            pl.up[m.rank] -= 1
            pl.up_n -= 1
            pile_push(s, m.rank, 1)
        take_pile(s, p)
        return
    if pl.hand_n:
        pl.hand[m.rank] -= m.count
        pl.hand_n -= m.count
    else:
        pl.up[m.rank] -= m.count
        pl.up_n -= m.count
    put_on_pile(s, p, m.rank, m.count)


# -- chance -----------------------------------------------------------------------------------

cdef inline int chance_outcomes(const PState* s, int* ranks, int* weights) noexcept nogil:
    cdef int r, k = 0
    if s.to_move != TM_CHANCE:
        return 0
    for r in range(2, 16):
        if s.pool[r]:
            ranks[k] = r
            weights[k] = s.pool[r]
            k += 1
    return k


cdef inline void flip_card(PState* s, int p, int r) noexcept nogil:
    """state._flip: a legal face-down card is a play; otherwise the pile (or under
    lenient_blind its top three, the failed card included) goes to the hand."""
    cdef int t, i, c
    cdef PPlayer* pl = &s.pl[p]
    pl.face_down -= 1
    if (s.r.play_mask[s.beat] >> r) & 1:
        put_on_pile(s, p, r, 1)
        return
    pile_push(s, r, 1)
    if s.r.flags & RF_LENIENT_BLIND:
        t = 3 if s.pile_n > 3 else s.pile_n
        for i in range(s.pile_n - t, s.pile_n):
            c = s.seq[i]
            pl.hand[c] += 1
            s.pile[c] -= 1
        pl.hand_n += t
        s.pile_n -= t
        pile_from_seq(s)
        s.to_move = next_active(s, p, 1)
    else:
        take_pile(s, p)


cdef inline void apply_chance(PState* s, int rank) noexcept nogil:
    """state._apply_chance for the PLAY-phase events: draw, flip, start."""
    cdef int kind = s.pend_kind, p = s.pend_player
    s.pool[rank] -= 1
    if kind == PEND_DRAW:
        s.draw_pile -= 1
        s.pl[p].hand[rank] += 1
        s.pl[p].hand_n += 1
        if s.pend_count > 1:
            s.pend_count -= 1
        else:
            s.pend_kind = PEND_NONE
            s.pend_player = 0
            s.pend_count = 0
            s.to_move = s.next_after
    elif kind == PEND_FLIP:
        s.pend_kind = PEND_NONE
        s.pend_player = 0
        s.pend_count = 0
        flip_card(s, p, rank)
    elif kind == PEND_START:
        s.draw_pile -= 1
        s.pend_kind = PEND_NONE
        s.pend_player = 0
        s.pend_count = 0
        if (s.r.burn_mask >> rank) & 1:
            # A burning start card leaves the game; the next card starts the pile.
            if s.draw_pile:
                s.pend_kind = PEND_START
                s.pend_count = 1
                return
        else:
            pile_push(s, rank, 1)
        s.to_move = 0


# -- packed layout ----------------------------------------------------------------------------
#
# The position identity: a bit string, LSB first in words[0], then words[1], ... Fields in
# order (nr = s.r.nranks counts per vector: ranks 2..14, plus 15 under jokers; 4 bits each):
#
#   per player p = 0..n-1:  hand counts  4*nr | face-up counts 4*nr | face_down 7
#   pile, lenient_blind:    pile_n 7 | pile_n ranks bottom first, 4 bits each (rest zero up
#                           to MAXPILE-sized capacity: 7 + 4*108 bits reserved)
#   pile, otherwise:        counts 4*nr | top 4 | run min(run,3) 2 | rank to beat 4
#   pool counts 4*nr | draw_pile 7
#   to_move 4 (player, 14 = chance, 15 = terminal)
#   direction 1 (only with n > 2; 1 = -1)
#   out mask n
#   last_player 4 (only under back_to_last_player; 15 = None)
#   pending kind 2 | player 4 | count 3 | next_after 4 (all zero without a pending event)
#
# Exactly the fields of State.key() (phase is implied by to_move), so two states pack equal
# iff their keys are equal. Unused bits of the last word are zero.

cdef inline int pack_bits(const PState* s) noexcept nogil:
    cdef int n = s.n, nr = s.r.nranks, bits
    bits = n * (8 * nr + 7)
    if s.r.flags & RF_LENIENT_BLIND:
        bits += 7 + 4 * 108
    else:
        bits += 4 * nr + 10
    bits += 4 * nr + 7 + 4 + n + 13
    if n > 2:
        bits += 1
    if s.r.flags & RF_BACK_TO_LAST_PLAYER:
        bits += 4
    return bits


cdef inline int pack_nwords(const PState* s) noexcept nogil:
    return (pack_bits(s) + 63) >> 6


cdef inline void _put(uint64_t* w, int* pos, uint64_t v, int bits) noexcept nogil:
    cdef int i = pos[0] >> 6, off = pos[0] & 63
    w[i] |= v << off
    if off + bits > 64:
        w[i + 1] |= v >> (64 - off)
    pos[0] += bits


cdef inline uint64_t _get(const uint64_t* w, int* pos, int bits) noexcept nogil:
    cdef int i = pos[0] >> 6, off = pos[0] & 63
    cdef uint64_t v = w[i] >> off
    if off + bits > 64:
        v |= w[i + 1] << (64 - off)
    pos[0] += bits
    return v & ((<uint64_t>1 << bits) - 1)


cdef inline uint64_t _squeeze8(uint64_t x) noexcept nogil:
    # eight bytes, each below 16, to eight nibbles (byte i -> bits 4i..4i+3)
    x = (x | (x >> 4)) & <uint64_t>0x00FF00FF00FF00FFULL
    x = (x | (x >> 8)) & <uint64_t>0x0000FFFF0000FFFFULL
    return (x | (x >> 16)) & <uint64_t>0x00000000FFFFFFFFULL


cdef inline uint64_t _spread8(uint64_t x) noexcept nogil:
    # the inverse of _squeeze8: eight nibbles (low 32 bits) to eight bytes
    x = (x | (x << 16)) & <uint64_t>0x0000FFFF0000FFFFULL
    x = (x | (x << 8)) & <uint64_t>0x00FF00FF00FF00FFULL
    return (x | (x << 4)) & <uint64_t>0x0F0F0F0F0F0F0F0FULL


cdef inline void _put_counts(uint64_t* w, int* pos, const uint8_t* c, int nr) noexcept nogil:
    """The counts of ranks 2 .. 2+nr-1, 4 bits each in rank order: the same bits as nr
    calls of _put(c[r], 4), in one. Pack and unpack run at every search node, so the
    per-rank loop was a third of the search's time (perf, benchmarks suite)."""
    cdef uint64_t lo, hi, v
    memcpy(&lo, c, 8)
    memcpy(&hi, c + 8, 8)
    v = (_squeeze8(lo) | (_squeeze8(hi) << 32)) >> 8
    if nr < 14:
        v &= (<uint64_t>1 << (4 * nr)) - 1
    _put(w, pos, v, 4 * nr)


cdef inline int _get_counts(const uint64_t* w, int* pos, uint8_t* c, int nr) noexcept nogil:
    """The inverse of _put_counts: fills c[2 .. 2+nr-1], returns their sum."""
    cdef uint64_t v = _get(w, pos, 4 * nr) << 8, lo, hi
    cdef int r
    lo = _spread8(v & <uint64_t>0xFFFFFFFFULL)
    hi = _spread8(v >> 32)
    memcpy(c, &lo, 8)
    memcpy(c + 8, &hi, 8)
    # the byte sum in one multiply: every byte is below 16, the total below 256
    return <int>(((lo + hi) * <uint64_t>0x0101010101010101ULL) >> 56)


cdef inline int pack_state(const PState* s, uint64_t* words) noexcept nogil:
    cdef int nw = pack_nwords(s), pos = 0, p, r, i
    cdef int nr = s.r.nranks, tm
    cdef const PPlayer* pl
    memset(words, 0, nw * 8)
    for p in range(s.n):
        pl = &s.pl[p]
        _put_counts(words, &pos, pl.hand, nr)
        _put_counts(words, &pos, pl.up, nr)
        _put(words, &pos, pl.face_down, 7)
    if s.r.flags & RF_LENIENT_BLIND:
        _put(words, &pos, s.pile_n, 7)
        for i in range(s.pile_n):
            _put(words, &pos, s.seq[i], 4)
        pos += 4 * (108 - s.pile_n)
    else:
        _put_counts(words, &pos, s.pile, nr)
        _put(words, &pos, s.top, 4)
        _put(words, &pos, s.run, 2)
        _put(words, &pos, s.beat, 4)
    _put_counts(words, &pos, s.pool, nr)
    _put(words, &pos, s.draw_pile, 7)
    tm = s.to_move
    if tm == TM_CHANCE:
        tm = 14
    elif tm == TM_TERMINAL:
        tm = 15
    _put(words, &pos, tm, 4)
    if s.n > 2:
        _put(words, &pos, 1 if s.direction < 0 else 0, 1)
    _put(words, &pos, s.out_mask, s.n)
    if s.r.flags & RF_BACK_TO_LAST_PLAYER:
        _put(words, &pos, 15 if s.last_player < 0 else s.last_player, 4)
    if s.pend_kind != PEND_NONE:
        _put(words, &pos, s.pend_kind, 2)
        _put(words, &pos, s.pend_player, 4)
        _put(words, &pos, s.pend_count, 3)
        # next_after only means something while draws are pending (State.key does the same)
        _put(words, &pos, s.next_after if s.pend_kind == PEND_DRAW else 0, 4)
    return nw


cdef inline void unpack_state(const uint64_t* words, int nwords, PState* s) noexcept nogil:
    cdef int pos = 0, p, r, i, v
    cdef int nr = s.r.nranks
    cdef PPlayer* pl
    cdef PRules rules = s.r
    cdef int8_t n = s.n
    # only the used part, as copy_state (the exact solver's build unpacks every position)
    memset(s, 0, <size_t>(<char*>&s.pl[n] - <char*>s))
    s.r = rules
    s.n = n
    for p in range(s.n):
        pl = &s.pl[p]
        pl.hand_n = <uint8_t>_get_counts(words, &pos, pl.hand, nr)
        pl.up_n = <uint8_t>_get_counts(words, &pos, pl.up, nr)
        pl.face_down = <uint8_t>_get(words, &pos, 7)
    if s.r.flags & RF_LENIENT_BLIND:
        s.pile_n = <uint8_t>_get(words, &pos, 7)
        for i in range(s.pile_n):
            s.seq[i] = <uint8_t>_get(words, &pos, 4)
            s.pile[s.seq[i]] += 1
        pos += 4 * (108 - s.pile_n)
        pile_from_seq(s)
    else:
        s.pile_n = <uint8_t>_get_counts(words, &pos, s.pile, nr)
        s.top = <uint8_t>_get(words, &pos, 4)
        s.run = <uint8_t>_get(words, &pos, 2)
        s.beat = <uint8_t>_get(words, &pos, 4)
    _get_counts(words, &pos, s.pool, nr)
    s.draw_pile = <uint8_t>_get(words, &pos, 7)
    v = <int>_get(words, &pos, 4)
    s.to_move = TM_CHANCE if v == 14 else (TM_TERMINAL if v == 15 else v)
    s.direction = 1
    if s.n > 2 and _get(words, &pos, 1):
        s.direction = -1
    s.out_mask = <uint16_t>_get(words, &pos, s.n)
    s.n_out = 0
    for p in range(s.n):
        if (s.out_mask >> p) & 1:
            s.out_order[s.n_out] = p
            s.n_out += 1
    s.last_player = -1
    if s.r.flags & RF_BACK_TO_LAST_PLAYER:
        v = <int>_get(words, &pos, 4)
        s.last_player = -1 if v == 15 else v
    s.pend_kind = <int8_t>_get(words, &pos, 2)
    s.pend_player = <int8_t>_get(words, &pos, 4)
    s.pend_count = <int8_t>_get(words, &pos, 3)
    s.next_after = <int8_t>_get(words, &pos, 4)
    s.loser = -1
    s.winner = -1
    if s.to_move == TM_TERMINAL:
        for p in range(s.n):
            if s.r.flags & RF_FIRST_OUT_WINS:
                if (s.out_mask >> p) & 1:
                    s.winner = p
            elif not ((s.out_mask >> p) & 1):
                s.loser = p


cdef inline uint64_t _mix64(uint64_t z) noexcept nogil:
    # splitmix64 finaliser
    z = (z ^ (z >> 30)) * <uint64_t>0xbf58476d1ce4e5b9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94d049bb133111ebULL
    return z ^ (z >> 31)


cdef inline uint64_t hash_words(const uint64_t* words, int n) noexcept nogil:
    """64-bit hash of packed words: each word mixed with its index, chained through a
    multiply-xorshift, finalised with splitmix64."""
    cdef uint64_t h = <uint64_t>0x9e3779b97f4a7c15ULL * <uint64_t>(n + 1)
    cdef int i
    for i in range(n):
        h = _mix64(h ^ (words[i] + <uint64_t>0x632be59bd9b4e019ULL * <uint64_t>(i + 1)))
    return _mix64(h)


# -- perft ------------------------------------------------------------------------------------

cdef uint64_t perft_rec(const PState* s, int depth, uint64_t* applies) noexcept nogil:
    """Leaves of the tree `depth` plies deep (chance events are plies, expanded over every
    outcome rank once); terminal nodes count as leaves. `applies` counts successors made."""
    cdef PState c
    cdef CMove moves[MAX_MOVES]
    cdef int ranks[16]
    cdef int weights[16]
    cdef int i, nm
    cdef uint64_t total = 0
    if depth == 0 or s.to_move == TM_TERMINAL:
        return 1
    if s.to_move == TM_CHANCE:
        nm = chance_outcomes(s, ranks, weights)
        for i in range(nm):
            copy_state(&c, s)
            apply_chance(&c, ranks[i])
            applies[0] += 1
            total += perft_rec(&c, depth - 1, applies) if depth > 1 else 1
        return total
    nm = gen_moves(s, moves)
    for i in range(nm):
        copy_state(&c, s)
        apply_move(&c, moves[i])
        applies[0] += 1
        total += perft_rec(&c, depth - 1, applies) if depth > 1 else 1
    return total

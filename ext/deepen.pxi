# Depth-limited search with iterative deepening, for exact-mode positions whose whole graph
# is too large for the budget (palace_solver/solve/deepening.py drives it).
# May use: core.pxi (moves, apply, chance, pack) and tt.pxi (the table).
#
# Two players: alpha-beta on v = player 0's loss (player 0 minimises, player 1 maximises),
# Ballard's Star1 and Star2 at chance nodes (values lie in [0, 1], so each outcome gets a
# window that already accounts for the outcomes still to come; Star2 first probes one move of
# every outcome for a bound from the mover's side), the transposition table for bounds and
# move ordering (the table's best move is tried first). Three or more players: max-n
# expectimax (each mover minimises their own loss), no pruning; or, with `paranoid`, the
# two-player search on the root mover's loss, the root mover minimising it and every other
# player maximising it (Sturtevant and Korf's paranoid search: a coalition of the others,
# pessimistic, but alpha-beta prunes it, so a budget searches deeper than max-n's).
#
# A decision position that repeats one on the current line scores as a draw. Such a value
# depends on the line, so a result that used a repetition of a position above the node is
# never stored (the graph-history interaction); see `minrep`. The game's own history can be
# given too (`hkeys`, set_history): a position the game already went through is a draw as
# well (a game ends at its first repeated position), with minrep -1, so nothing that used
# one is stored either. (A draw-averse agent can count a repetition as worse than a draw
# for the root's mover: `contempt`, _draw_vec; 0 everywhere but in its match play.)
#
# At depth 0 the horizon evaluation estimates the loss (see horizon_eval). An iteration
# that never needed it saw every line end in a terminal or a repetition: its values are the
# repetition-is-a-draw values of the whole tree, which equal the exact graph values.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from libc.math cimport exp
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memcmp, memcpy, memset

cdef enum:
    LEAF_SLOTS = 1 << 15     # the leaf cache's entries (a power of two)
    MAXPLY = 512
    HISTMAX = 1024           # positions of the game's history a search can hold
    DEPTH_EXACT = 30000      # table depth of a value whose subtree met no horizon

cdef double PVS_EPS = 1e-9      # width of the minimal window of principal variation search
cdef double EVAL_SCALE = 0.35    # see horizon_eval; fitted by benchmarks/calibrate_eval.py
cdef double EVAL_TEMPO = 0.0
cdef double EVAL_BLIND = 1.5


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline double player_burden(const PState* s, int p) noexcept nogil:
    return s.pl[p].hand_n + s.pl[p].up_n + EVAL_BLIND * s.pl[p].face_down


cdef void cardcount_eval(const PState* s, double* out) noexcept nogil:
    """Estimated loss of each player: a softmax of their remaining cards (face-down cards
    weighted by EVAL_BLIND), with a tempo bonus for the player to move. With two players it
    is the logistic curve 1 / (1 + exp(-(SCALE * (c0 - c1) - TEMPO * m))), m = +1 when
    player 0 moves, -1 otherwise. Fitted to exact values by benchmarks/calibrate_eval.py
    (150 positions, seed 0: mean squared error 0.164 against 0.2125 for a constant 1/2; the
    fit puts no weight on the tempo and 1.5 on a face-down card)."""
    cdef int p, n = s.n
    cdef double z = 0.0, w
    cdef double e[MAXP]
    for p in range(n):
        if (s.out_mask >> p) & 1:
            e[p] = 0.0
            continue
        w = EVAL_SCALE * player_burden(s, p)
        if p == s.to_move:
            w -= EVAL_TEMPO
        e[p] = exp(w)
        z += e[p]
    for p in range(n):
        out[p] = e[p] / z


cdef void horizon_eval(const PState* s, double* out) noexcept nogil:
    """The estimated loss of each player at the search's horizon: the one entry point of
    every compiled search. EVAL_MODE (evaluate.pxi, set_eval_mode) picks the card count
    above or the learned network (LEARNED; AUTO uses it while the draw pile holds cards).
    Without loaded weights the card count answers (ensure_eval_ready loads them first)."""
    if EVAL_MODE != EV_CARDCOUNT and EV_H1 != 0 and (EVAL_MODE == EV_LEARNED
                                                     or s.draw_pile > 0):
        learned_eval(s, out)
    else:
        cardcount_eval(s, out)


cdef class DeepSearch:
    """One iterative-deepening search over a root position (see palace_solver/solve/deepening.py)."""
    cdef PState root
    cdef TT tt
    cdef int n, nw
    cdef uint64_t path[MAXPLY]
    cdef uint64_t evals0         # horizon evaluations before this iteration
    cdef public uint64_t nodes, evals, reps, star_cuts, star2_cuts, probes, ab_cuts
    cdef public int star2      # Star2 probing at chance nodes (on by default)
    cdef public bint use_table  # off: pruning without the table (tests compare with plain)
    cdef public bint history    # order moves after the table's by their past cutoffs
    cdef public bint pvs        # principal variation search (minimal windows after the first move)
    cdef public bint killers    # try the two moves that last cut off at this ply next
    cdef CMove killer[MAXPLY][2]
    cdef uint32_t hist[2][3][16][9]
    cdef int minrep
    cdef uint64_t hkeys[HISTMAX]   # hashes of the game's earlier positions (set_history)
    cdef int nhist
    cdef bint cut, aborted
    cdef bint open_moves[MAX_MOVES]   # per root move of the last iterate: met a horizon
    cdef int n_open                   # root moves of the last completed iterate
    cdef double deadline
    cdef bint tt_ok
    cdef public bint plain      # plain expectiminimax: no table, no pruning (benchmarks)
    # Games with a draw pile (decide.pxi): sparse chance nodes, playout leaves, node limit.
    cdef public int chance_width     # outcomes kept per chance node (0: all; chance.pxi)
    cdef public uint64_t chance_seed  # mixed with a node's key to seed its sample
    cdef public int rollouts         # > 0: a leaf is worth the mean of this many greedy playouts
    cdef public uint64_t node_limit  # > 0: abort the iteration once nodes reach it
    cdef public uint64_t sampled, playout_steps   # sparse chance nodes, playout decisions
    # > 0: the root's mover counts a repetition as this much worse than a draw (_draw_vec)
    cdef public double contempt
    cdef public bint paranoid        # three or more players: the paranoid search (above)
    # Seats (a bit each) that play the greedy bot's move in this search: a seat decide.pxi's
    # inference took for the greedy style in this deal (Decider.model_styles); their
    # decisions have that one move, so the search answers what beats them as they play
    cdef public int greedy_seats
    cdef int side                    # whose loss the two-player search is on (0, or the
                                     # root mover when paranoid)
    cdef uint8_t order[128]          # a determinized draw pile: order[i] is the i-th card drawn
    cdef int order_n                 # its size at the root (0: refills are chance nodes)
    # The leaf cache: horizon_eval's values of positions met at the horizon, by their packed
    # words (the whole key is compared, so a hit is the value itself). About a fifth of a
    # draw-phase decision's horizon positions repeat one it met already, in another line or
    # deal. Kept across _reset and reroot (which keep the players and the key size) while
    # the rules stay the same; emptied when they change or EVAL_VERSION moves.
    cdef uint64_t* leaf_keys         # LEAF_SLOTS hashes, 0 = empty
    cdef uint64_t* leaf_words        # LEAF_SLOTS x nw
    cdef double* leaf_vals           # LEAF_SLOTS x n
    cdef uint32_t leaf_version
    cdef PRules leaf_rules
    cdef public uint64_t eval_hits   # horizon evaluations answered by the leaf cache
    cdef public bint leaf_cache      # on by default; off: every leaf evaluated (tests)

    def __cinit__(self, CState root, double hash_mb=64.0):
        ensure_eval_ready()
        copy_state(&self.root, &root.s)
        self.n = root.s.n
        self.nw = pack_nwords(&root.s)
        self.star2 = 1          # STAR2_TABLE of palace_solver/solve/deepening.py
        self.use_table = True
        self.history = True
        self.pvs = True
        memset(&self.hist[0][0][0][0], 0, sizeof(self.hist))
        self.killers = True
        memset(&self.killer[0][0], 255, sizeof(self.killer))
        self.order_n = 0
        self.contempt = 0.0
        self.paranoid = False
        self.greedy_seats = 0
        self.side = 0
        self.tt_ok = tt_init(&self.tt, hash_mb, self.nw, self.n if self.n < MAXV else MAXV) == 0
        if not self.tt_ok:
            raise MemoryError(f"cannot allocate a {hash_mb} MB table")
        self.leaf_keys = <uint64_t*>calloc(LEAF_SLOTS, sizeof(uint64_t))
        self.leaf_words = <uint64_t*>malloc(LEAF_SLOTS * self.nw * sizeof(uint64_t))
        self.leaf_vals = <double*>malloc(LEAF_SLOTS * self.n * sizeof(double))
        if self.leaf_keys == NULL or self.leaf_words == NULL or self.leaf_vals == NULL:
            raise MemoryError("cannot allocate the leaf cache")
        self.leaf_version = EVAL_VERSION
        memcpy(&self.leaf_rules, &root.s.r, sizeof(PRules))
        self.leaf_cache = True

    cdef inline int _moves(self, const PState* s, CMove* moves) noexcept nogil:
        """The moves searched at decision s: every legal move, or the greedy bot's alone for
        a seat of greedy_seats."""
        cdef int nm = gen_moves(s, moves)
        cdef CMove g
        if self.greedy_seats and nm > 1 and (self.greedy_seats >> s.to_move) & 1:
            g = greedy_move(s, moves, nm)
            moves[0] = g
            return 1
        return nm

    cdef void _reset(self, const PState* root) noexcept nogil:
        """Search another root of the same rules and players: the table, history, killers
        and counters start afresh (the options are kept)."""
        self._leaf_rules(root)
        copy_state(&self.root, root)
        tt_clear(&self.tt)
        self.nhist = 0
        memset(&self.hist[0][0][0][0], 0, sizeof(self.hist))
        memset(&self.killer[0][0], 255, sizeof(self.killer))
        self.nodes = self.evals = self.reps = self.star_cuts = self.star2_cuts = 0
        self.eval_hits = 0
        self.probes = self.ab_cuts = self.sampled = self.playout_steps = 0
        self.order_n = 0

    cdef void _order_draws(self, uint64_t* st) noexcept nogil:
        """Determinize the draw pile of the root: its cards, drawn from the pool in a random
        order, become the refills of every line (see decide.pxi)."""
        cdef uint8_t pool[16]
        cdef int i, r, x, total = 0
        memcpy(pool, self.root.pool, 16)
        for r in range(2, 16):
            total += pool[r]
        self.order_n = self.root.draw_pile
        for i in range(self.order_n):
            x = rng_below(st, total)
            for r in range(2, 16):
                if x < pool[r]:
                    break
                x -= pool[r]
            self.order[i] = r
            pool[r] -= 1
            total -= 1

    def reset(self, CState root):
        """A new root (same rules and player count), everything learned forgotten."""
        if root.s.n != self.n or pack_nwords(&root.s) != self.nw:
            raise ValueError("reset: another player count or rule set than the search's")
        self._reset(&root.s)

    cdef void _leaf(self, const PState* s, uint64_t h, const uint64_t* words,
                    double* out) noexcept nogil:
        """The estimate at the horizon: horizon_eval (through the leaf cache), or the mean
        of `rollouts` greedy playouts seeded by the position's key (the same position, the
        same playouts). ``words``: the position packed, ``h`` their hash."""
        cdef PState c
        cdef double v[MAXP]
        cdef uint64_t st
        cdef int i, j
        self.evals += 1
        if self.rollouts <= 0:
            if self.leaf_cache:
                self._leaf_eval(s, h, words, out)
            else:
                horizon_eval(s, out)
            return
        # With a determinized draw pile every leaf of the deal plays out with the same
        # generator (common random numbers: leaves differ by their position only).
        st = seed_mix(0 if self.order_n else h, self.chance_seed ^ <uint64_t>0x5bd1e995)
        for j in range(self.n):
            out[j] = 0.0
        for i in range(self.rollouts):
            copy_state(&c, s)
            self.playout_steps += greedy_playout(&c, &st, v,
                                                 self.order if self.order_n else NULL,
                                                 self.order_n)
            for j in range(self.n):
                out[j] += v[j]
        for j in range(self.n):
            out[j] /= self.rollouts

    cdef void _leaf_rules(self, const PState* root) noexcept nogil:
        """Empty the leaf cache when the next root's rules are not those of its values."""
        if memcmp(&self.leaf_rules, &root.r, sizeof(PRules)) != 0:
            memset(self.leaf_keys, 0, LEAF_SLOTS * sizeof(uint64_t))
            memcpy(&self.leaf_rules, &root.r, sizeof(PRules))

    cdef void _leaf_eval(self, const PState* s, uint64_t h, const uint64_t* words,
                         double* out) noexcept nogil:
        """horizon_eval's values of s, from the leaf cache when it holds s (hash 0 is
        never cached: it marks an empty slot)."""
        cdef size_t slot = <size_t>(h & <uint64_t>(LEAF_SLOTS - 1))
        cdef size_t nbytes = <size_t>self.nw * sizeof(uint64_t)
        if self.leaf_version != EVAL_VERSION:
            memset(self.leaf_keys, 0, LEAF_SLOTS * sizeof(uint64_t))
            self.leaf_version = EVAL_VERSION
        if h != 0 and self.leaf_keys[slot] == h and \
                memcmp(&self.leaf_words[slot * self.nw], words, nbytes) == 0:
            memcpy(out, &self.leaf_vals[slot * self.n], self.n * sizeof(double))
            self.eval_hits += 1
            return
        horizon_eval(s, out)
        if h != 0:
            self.leaf_keys[slot] = h
            memcpy(&self.leaf_words[slot * self.nw], words, nbytes)
            memcpy(&self.leaf_vals[slot * self.n], out, self.n * sizeof(double))

    cdef void _draw_vec(self, const PState* s, double* out) noexcept nogil:
        """The loss vector of a repetition at s: a draw, the players still in sharing the
        loss (RULES.md). With `contempt` c the root's mover counts it c worse and the others
        c / (active - 1) better each: a draw-averse agent in match play, which plays on
        where a draw gives away what a weaker side would lose (never an analysis: its
        figures are RULES.md's). Only repetitions carry it, and a value that used one is
        never stored (minrep), so the table holds no contempt."""
        cdef int i, n = self.n, me = self.root.to_move
        cdef int active = n - popcount16(s.out_mask)
        for i in range(n):
            out[i] = 0.0 if (s.out_mask >> i) & 1 else 1.0 / active
        if self.contempt > 0.0 and active >= 2 and me < n and not (s.out_mask >> me) & 1:
            for i in range(n):
                if i != me and not (s.out_mask >> i) & 1:
                    out[i] -= self.contempt / (active - 1)
            out[me] += self.contempt

    cdef void _leaf_draw(self, const PState* s, int ply, double* out) noexcept nogil:
        """With the game's history given: a mover at the horizon who has a move back to a
        position of the history or of the line can take that draw, and does when the
        estimate is worse for them (the horizon would otherwise hide a draw one ply away,
        which is how an agent walks into repetitions). Such a value depends on the line:
        minrep marks it."""
        cdef CMove moves[MAX_MOVES]
        cdef PState c
        cdef uint64_t words[MAX_WORDS]
        cdef double dv[MAXP]
        cdef int nm, j, i, n = self.n, k, active
        cdef int mover = s.to_move
        if mover >= n:
            return
        active = n - popcount16(s.out_mask)
        if active < 2:
            return
        self._draw_vec(s, dv)
        if out[mover] <= dv[mover]:
            return
        nm = self._moves(s, moves)
        for j in range(nm):
            copy_state(&c, s)
            apply_move(&c, moves[j])
            if ps_is_terminal(&c) or ps_is_chance(&c):
                continue
            pack_state(&c, words)
            # (path[ply] is not this leaf's: a leaf returns before its ply is set)
            k = self._repeat_at(hash_words(words, self.nw), ply)
            if k < MAXPLY:
                if k < self.minrep:
                    self.minrep = k
                for i in range(n):
                    out[i] = dv[i]
                return

    cdef int _outcomes(self, const PState* c, int* ranks, double* prob) noexcept nogil:
        """The outcomes searched at chance node c (sparse_outcomes with this search's
        width, seeded by c's key); a sampled node makes the value an estimate."""
        cdef uint64_t words[MAX_WORDS]
        cdef int k
        k = ordered_draw(c, self.order, self.order_n) if self.order_n else 0
        if k:
            ranks[0] = k
            prob[0] = 1.0
            return 1
        if self.chance_width <= 0:
            return sparse_outcomes(c, 0, 0, ranks, prob)
        pack_state(c, words)
        k = sparse_outcomes(c, self.chance_width,
                            seed_mix(hash_words(words, self.nw), self.chance_seed), ranks, prob)
        if k < 0:
            self.sampled += 1
            self.cut = True
            k = -k
        return k

    def __dealloc__(self):
        if self.tt_ok:
            tt_free(&self.tt)
        free(self.leaf_keys)
        free(self.leaf_words)
        free(self.leaf_vals)

    def reroot(self, CState root):
        """Search from another position with this table (emptied) and these settings, as a
        new DeepSearch would: allocating and first touching a large table costs more than a
        short search, so callers running many searches (solve/deepening.py) keep one.

        :raises ValueError: for another player count or key size (that needs a new table).
        """
        if root.s.n != self.n or pack_nwords(&root.s) != self.nw:
            raise ValueError("reroot: another player count or key size needs a new table")
        self._leaf_rules(&root.s)
        copy_state(&self.root, &root.s)
        tt_clear(&self.tt)
        self.nhist = 0
        memset(&self.hist[0][0][0][0], 0, sizeof(self.hist))
        memset(&self.killer[0][0], 255, sizeof(self.killer))
        self.nodes = self.evals = self.reps = self.star_cuts = 0
        self.star2_cuts = self.probes = self.ab_cuts = self.eval_hits = 0

    cdef inline int _repeat_at(self, uint64_t h, int ply) noexcept nogil:
        """The ply of the current line where h was met, -1 when it is in the game's history,
        MAXPLY when it is new."""
        cdef int i
        for i in range(ply):
            if self.path[i] == h:
                return i
        for i in range(self.nhist):
            if self.hkeys[i] == h:
                return -1
        return MAXPLY

    cdef int _add_history(self, const PState* s) noexcept nogil:
        """One earlier position of the game (0, or -1 when the history is full)."""
        cdef uint64_t words[MAX_WORDS]
        if self.nhist >= HISTMAX:
            return -1
        pack_state(s, words)
        self.hkeys[self.nhist] = hash_words(words, self.nw)
        self.nhist += 1
        return 0

    def set_history(self, states):
        """The game's earlier decision positions (CStates of this search's rules): reaching
        one of them is a draw, as reaching a position of the current line is. Replaces the
        previous history; reset and reroot clear it."""
        cdef CState c
        states = list(states)
        if len(states) > HISTMAX:
            raise ValueError(f"a history of {len(states)} positions (at most {HISTMAX})")
        tt_clear(&self.tt)      # a new history: start from an empty table
        self.nhist = 0
        for c in states:
            if c.s.n != self.n or pack_nwords(&c.s) != self.nw:
                raise ValueError("set_history: another player count or rule set")
            self._add_history(&c.s)

    def table_stats(self):
        return {"probes": self.tt.probes, "hits": self.tt.hits,
                "collisions": self.tt.collisions, "stores": self.tt.stores,
                "replacements": self.tt.replacements,
                "occupancy": self.tt.occupied / <double>(self.tt.nbuckets * TT_BUCKET),
                "mb": tt_bytes(&self.tt) / 1048576.0}

    def iterate(self, int depth, double seconds):
        """Search every root move to ``depth``; returns (complete, [(Move, loss vector)])
        or None when the time ran out first (seconds <= 0: no limit)."""
        cdef CMove moves[MAX_MOVES]
        cdef double vals[MAX_MOVES * MAXP]
        cdef int nm, j, i
        with nogil:
            nm = self._iterate(depth, seconds, moves, vals)
        if nm < 0:
            return None
        return (not self.cut, [(_move_obj(moves[j]), [vals[j * self.n + i] for i in range(self.n)])
                               for j in range(nm)])

    cdef int _iterate(self, int depth, double seconds, CMove* moves,
                      double* vals) noexcept nogil:
        """iterate in C: the root moves into `moves` and their loss vectors into `vals`
        (n per move); returns the number of moves, or -1 when the time ran out first.
        `self.cut` tells whether a horizon or a sampled chance node was met, and
        `open_moves` which root moves met one (see unresolved)."""
        cdef PState c
        cdef int nm, j, i
        cdef bint was_cut
        cdef double vec[MAXP]
        cdef uint64_t words[MAX_WORDS]
        self.cut = False
        self.aborted = False
        self.evals0 = self.evals
        self.deadline = now_seconds() + seconds if seconds > 0 else 0.0
        tt_new_search(&self.tt)
        pack_state(&self.root, words)
        self.path[0] = hash_words(words, self.nw)
        self.side = self.root.to_move if self.paranoid and self.n > 2 else 0
        nm = gen_moves(&self.root, moves)
        for j in range(nm):
            was_cut = self.cut
            self.cut = False
            copy_state(&c, &self.root)
            apply_move(&c, moves[j])
            self.minrep = MAXPLY
            if self.n == 2:
                vec[0] = self._after_move(&c, depth - 1, 0.0, 1.0, 1)
                vec[1] = 1.0 - vec[0]
            elif self.paranoid:
                self._paranoid_vec(&c, self._after_move(&c, depth - 1, 0.0, 1.0, 1), vec)
            else:
                self._after_move_n(&c, depth - 1, 1, vec)
            if self.aborted:
                return -1
            # A value that used a repetition of the root itself (minrep 0) is the value
            # with the root on the line, not the move's own: not resolved either.
            self.open_moves[j] = self.cut or self.minrep == 0
            self.cut = self.cut or was_cut
            for i in range(self.n):
                vals[j * self.n + i] = vec[i]
        self.n_open = nm
        return nm

    cdef void _paranoid_vec(self, const PState* c, double v, double* vec) noexcept nogil:
        """A root move's loss vector from the paranoid search's value v (the root mover's
        loss): the rest shared equally by the others still in after the move (the search
        says nothing of how they split it)."""
        cdef int i, others = 0
        for i in range(self.n):
            if i != self.side and not (c.out_mask >> i) & 1:
                others += 1
        for i in range(self.n):
            if i == self.side:
                vec[i] = v
            elif others and not (c.out_mask >> i) & 1:
                vec[i] = (1.0 - v) / others
            else:
                vec[i] = 0.0

    def unresolved(self):
        """Per root move of the last completed iterate, in its order: True where the move's
        search met a horizon (or a sampled chance node), or came back to the root (a value
        that depends on the line), so its value is an estimate; False where every line
        under it ended, so its value is exact (a move is resolved on its own, before the
        whole iteration is)."""
        return [bool(self.open_moves[j]) for j in range(self.n_open)]

    # -- two players ------------------------------------------------------------------------
    cdef inline double _loss0(self, const PState* s) noexcept nogil:
        cdef double loss[MAXP]
        terminal_loss(s, loss)
        return loss[self.side]

    cdef double _after_move(self, PState* c, int depth, double alpha, double beta,
                            int ply) noexcept nogil:
        """Value of the state a move led to: terminal, chance (Star1/Star2) or decision."""
        cdef int ranks[16]
        cdef double prob[16]
        cdef double lower[16]
        cdef double upper[16]
        cdef bint inexact[16]     # the bound came from a search that met the horizon
        cdef int k, i, j
        cdef double acc = 0.0, lo, hi, v, rest_lo, rest_hi, sum_lo = 0.0, sum_hi = 0.0
        cdef bint saved_cut, any_inexact = False
        cdef PState d
        if ps_is_terminal(c):
            return self._loss0(c)
        if self.paranoid and self.n > 2 and (c.out_mask >> self.side) & 1:
            return 0.0      # (paranoid: the root mover is out, so cannot lose)
        if not ps_is_chance(c):
            return self._ab(c, depth, alpha, beta, ply)
        k = self._outcomes(c, ranks, prob)
        for i in range(k):
            lower[i] = 0.0
            upper[i] = 1.0
            inexact[i] = False
            sum_hi += prob[i]
        if self.star2 and not self.plain and k > 1:
            # Star2 probing: the table's bounds on each outcome (star2 == 1), or one move of
            # each (star2 == 2, the table's best first), which bounds the outcome from the
            # mover's side. Enough bounds decide the node before any outcome is searched.
            for i in range(k):
                copy_state(&d, c)
                apply_chance(&d, ranks[i])
                rest_lo = sum_lo - prob[i] * lower[i]
                rest_hi = sum_hi - prob[i] * upper[i]
                if ps_is_terminal(&d):
                    v = self._loss0(&d)
                    lower[i] = v
                    upper[i] = v
                elif not ps_is_chance(&d):  # (a refill's next card: no probe, no bound)
                    lo = (alpha - rest_hi) / prob[i]
                    hi = (beta - rest_lo) / prob[i]
                    if lo < 0.0:
                        lo = 0.0
                    if hi > 1.0:
                        hi = 1.0
                    saved_cut = self.cut
                    self.cut = False
                    self._probe(&d, depth, lo, hi, ply, &lower[i], &upper[i])
                    inexact[i] = self.cut
                    any_inexact = any_inexact or self.cut
                    self.cut = saved_cut
                    if self.aborted:
                        return 0.5
                sum_lo = rest_lo + prob[i] * lower[i]
                sum_hi = rest_hi + prob[i] * upper[i]
                if sum_lo >= beta or sum_hi <= alpha:
                    self.star2_cuts += 1
                    if any_inexact:
                        self.cut = True
                    return sum_lo if sum_lo >= beta else sum_hi
        # Star1 with the bounds: each outcome gets the window that still lets the average
        # leave [alpha, beta] given what the later outcomes can score at most / at least.
        # Only bounds free of the horizon narrow a window, so that an exact search stays
        # exact; a cutoff that relied on an estimated bound marks the result as estimated.
        rest_lo = sum_lo
        rest_hi = sum_hi
        for i in range(k):
            rest_lo -= prob[i] * lower[i]
            rest_hi -= prob[i] * upper[i]
            if lower[i] == upper[i] and not inexact[i]:
                v = lower[i]
            else:
                lo = (alpha - acc - rest_hi) / prob[i]
                hi = (beta - acc - rest_lo) / prob[i]
                if not inexact[i]:
                    if lo < lower[i]:
                        lo = lower[i]
                    if hi > upper[i]:
                        hi = upper[i]
                if lo < 0.0:
                    lo = 0.0
                if hi > 1.0:
                    hi = 1.0
                copy_state(&d, c)
                apply_chance(&d, ranks[i])
                if ps_is_terminal(&d):
                    v = self._loss0(&d)
                elif ps_is_chance(&d):
                    # a refill of several cards is one chance event per card
                    v = self._after_move(&d, depth, lo, hi, ply)
                else:
                    v = self._ab(&d, depth, lo, hi, ply)
            acc += prob[i] * v
            if self.plain:
                continue
            if acc + rest_hi <= alpha or acc + rest_lo >= beta:
                self.star_cuts += 1
                for j in range(i + 1, k):
                    if inexact[j]:
                        self.cut = True
                return acc + rest_hi if acc + rest_hi <= alpha else acc + rest_lo
        return acc

    cdef void _probe(self, PState* s, int depth, double alpha, double beta, int ply,
                     double* lower, double* upper) noexcept nogil:
        """Star2 probe of a decision node: the table's bounds, or the value of its first
        move (the table's best). A maximiser's move bounds the node from below, a
        minimiser's from above; a fail-soft value on the wrong side of the window bounds
        only the move, so it is dropped."""
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t h
        cdef CMove moves[MAX_MOVES]
        cdef CMove bestm
        cdef PState c
        cdef TTEntry* e
        cdef int nm, j, i
        cdef double v
        cdef double store[MAXP]
        pack_state(s, words)
        h = hash_words(words, self.nw)
        if self._repeat_at(h, ply) < MAXPLY:
            return          # a repetition: the full search scores it, no bound needed
        if depth <= 0 or ply >= MAXPLY - 1:
            return
        bestm.kind = 255
        e = tt_probe(&self.tt, h, words) if self.use_table else NULL
        if e != NULL:
            bestm = e.best
            if e.depth >= depth and (e.depth == DEPTH_EXACT or self.evals > self.evals0):
                # A bound from a search that met the horizon makes this node's value an
                # estimate too. Such bounds are used only once this iteration has met the
                # horizon itself (it cannot be exact any more), so that they never keep an
                # iteration that could end exact from ending exact.
                if e.bound == TT_EXACT or e.bound == TT_LOWER:
                    if tt_values(&self.tt, e)[0] > lower[0]:
                        lower[0] = tt_values(&self.tt, e)[0]
                        if e.depth < DEPTH_EXACT:
                            self.cut = True
                if e.bound == TT_EXACT or e.bound == TT_UPPER:
                    if tt_values(&self.tt, e)[0] < upper[0]:
                        upper[0] = tt_values(&self.tt, e)[0]
                        if e.depth < DEPTH_EXACT:
                            self.cut = True
                return
        if self.star2 == 1:
            return
        self.nodes += 1
        self.probes += 1
        nm = self._moves(s, moves)
        j = 0
        if bestm.kind != 255:
            for i in range(nm):
                if (moves[i].kind == bestm.kind and moves[i].rank == bestm.rank
                        and moves[i].count == bestm.count):
                    j = i
                    break
        self.path[ply] = h
        copy_state(&c, s)
        apply_move(&c, moves[j])
        v = self._after_move(&c, depth - 1, alpha, beta, ply + 1)
        if self.aborted:
            return
        if s.to_move != self.side:
            if v > alpha and v > lower[0]:
                lower[0] = v
            if nm == 1 and v < beta and v < upper[0]:
                upper[0] = v
        else:
            if v < beta and v < upper[0]:
                upper[0] = v
            if nm == 1 and v > alpha and v > lower[0]:
                lower[0] = v

    cdef inline void _to_front(self, CMove* moves, int nm, CMove m) noexcept nogil:
        """Move m, when it is among the moves, to the front (the rest keep their order)."""
        cdef int i, j
        cdef CMove tmp
        if m.kind == 255:
            return
        for j in range(nm):
            if moves[j].kind == m.kind and moves[j].rank == m.rank and moves[j].count == m.count:
                tmp = moves[j]
                for i in range(j, 0, -1):
                    moves[i] = moves[i - 1]
                moves[0] = tmp
                return

    cdef inline uint32_t _hscore(self, CMove m, int mover) noexcept nogil:
        if m.count >= 9:
            return 0
        return self.hist[mover != self.side][m.kind][m.rank][m.count]

    cdef void _order(self, CMove* moves, int nm, int mover) noexcept nogil:
        """Stable insertion sort by history score, highest first (ties keep the
        generator's order, so the search stays deterministic)."""
        cdef int i, j
        cdef CMove m
        cdef uint32_t sc
        for i in range(1, nm):
            m = moves[i]
            sc = self._hscore(m, mover)
            j = i
            while j > 0 and self._hscore(moves[j - 1], mover) < sc:
                moves[j] = moves[j - 1]
                j -= 1
            moves[j] = m

    cdef double _ab(self, PState* s, int depth, double alpha, double beta,
                    int ply) noexcept nogil:
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t h
        cdef CMove moves[MAX_MOVES]
        cdef CMove bestm, tmp
        cdef PState c
        cdef TTEntry* e
        cdef int nm, j, i, bound, mover = s.to_move, saved_minrep, here
        cdef double best, v, a0 = alpha, b0 = beta
        cdef bint saved_cut, here_cut
        cdef double store[MAXP]
        if self.paranoid and self.n > 2 and (s.out_mask >> self.side) & 1:
            return 0.0
        self.nodes += 1
        if (self.nodes & 4095) == 0 and self.deadline > 0 and now_seconds() > self.deadline:
            self.aborted = True
        if self.node_limit and self.nodes + self.playout_steps >= self.node_limit:
            self.aborted = True
        if self.aborted:
            return 0.5
        pack_state(s, words)
        h = hash_words(words, self.nw)
        i = self._repeat_at(h, ply)
        if i < MAXPLY:
            # a repetition of the position at ply i (-1: of the game's history): a draw
            self.reps += 1
            if i < self.minrep:
                self.minrep = i
            self._draw_vec(s, store)
            return store[self.side]
        if depth <= 0 or ply >= MAXPLY - 1:
            self.cut = True
            self._leaf(s, h, words, store)
            if self.nhist:
                self._leaf_draw(s, ply, store)
            return store[self.side]
        bestm.kind = 255
        e = NULL if self.plain or not self.use_table else tt_probe(&self.tt, h, words)
        if e != NULL:
            bestm = e.best
            if e.depth >= depth:
                if e.depth < DEPTH_EXACT:
                    self.cut = True
                if e.bound == TT_EXACT:
                    return tt_values(&self.tt, e)[0]
                if e.bound == TT_LOWER and tt_values(&self.tt, e)[0] > alpha:
                    alpha = tt_values(&self.tt, e)[0]
                elif e.bound == TT_UPPER and tt_values(&self.tt, e)[0] < beta:
                    beta = tt_values(&self.tt, e)[0]
                if alpha >= beta:
                    return tt_values(&self.tt, e)[0]
        nm = self._moves(s, moves)
        if self.history and not self.plain and nm > 1:
            self._order(moves, nm, mover)
        if self.killers and not self.plain and nm > 1:
            # Killer moves: a move that refuted a sibling often refutes this position too.
            # In 2p-h2u2d2-1 a third of the cutoffs came after a first move that failed,
            # mostly a pickup that history had put first (pickups cut often elsewhere).
            self._to_front(moves, nm, self.killer[ply][1])
            self._to_front(moves, nm, self.killer[ply][0])
        self._to_front(moves, nm, bestm)
        self.path[ply] = h
        saved_minrep = self.minrep
        self.minrep = MAXPLY
        saved_cut = self.cut
        self.cut = False
        best = 2.0 if mover == self.side else -1.0
        bestm = moves[0]
        for j in range(nm):
            copy_state(&c, s)
            apply_move(&c, moves[j])
            if j == 0 or not self.pvs or self.plain or beta - alpha <= 2 * PVS_EPS:
                v = self._after_move(&c, depth - 1, alpha, beta, ply + 1)
            elif mover == self.side:
                # Principal variation search: a later move only has to show that it does
                # not beat the best so far, which a minimal window (and Star1 inside it)
                # decides cheaply; only a move that does beat it is searched again in full.
                v = self._after_move(&c, depth - 1, beta - PVS_EPS, beta, ply + 1)
                if v <= beta - PVS_EPS and not self.aborted:
                    v = self._after_move(&c, depth - 1, alpha, beta, ply + 1)
            else:
                v = self._after_move(&c, depth - 1, alpha, alpha + PVS_EPS, ply + 1)
                if v >= alpha + PVS_EPS and not self.aborted:
                    v = self._after_move(&c, depth - 1, alpha, beta, ply + 1)
            if self.aborted:
                break
            if mover == self.side:
                if v < best:
                    best = v
                    bestm = moves[j]
                if v < beta:
                    beta = v
            else:
                if v > best:
                    best = v
                    bestm = moves[j]
                if v > alpha:
                    alpha = v
            if alpha >= beta and not self.plain:
                self.ab_cuts += 1
                if self.killers:
                    tmp = self.killer[ply][0]
                    if not (tmp.kind == moves[j].kind and tmp.rank == moves[j].rank
                            and tmp.count == moves[j].count):
                        self.killer[ply][1] = tmp
                        self.killer[ply][0] = moves[j]
                if self.history and moves[j].count < 9:
                    self.hist[mover != self.side][moves[j].kind][moves[j].rank][moves[j].count] += (
                        <uint32_t>(depth * depth))
                break
        here = self.minrep
        self.minrep = saved_minrep if saved_minrep < here else here
        here_cut = self.cut
        self.cut = saved_cut or here_cut
        if not self.aborted and here >= ply and not self.plain and self.use_table:
            if best <= a0:
                bound = TT_UPPER
            elif best >= b0:
                bound = TT_LOWER
            else:
                bound = TT_EXACT
            store[0] = best
            store[1] = 1.0 - best
            tt_store(&self.tt, h, words, store, 2, depth if here_cut else DEPTH_EXACT,
                     bound, bestm)
        return best

    # -- three or more players ----------------------------------------------------------------
    cdef void _after_move_n(self, PState* c, int depth, int ply, double* out) noexcept nogil:
        cdef int ranks[16]
        cdef double prob[16]
        cdef int k, i, j
        cdef double p
        cdef double v[MAXP]
        cdef PState d
        if ps_is_terminal(c):
            terminal_loss(c, out)
            return
        if not ps_is_chance(c):
            self._maxn(c, depth, ply, out)
            return
        k = self._outcomes(c, ranks, prob)
        for j in range(self.n):
            out[j] = 0.0
        for i in range(k):
            p = prob[i]
            copy_state(&d, c)
            apply_chance(&d, ranks[i])
            if ps_is_terminal(&d):
                terminal_loss(&d, v)
            elif ps_is_chance(&d):
                self._after_move_n(&d, depth, ply, v)
            else:
                self._maxn(&d, depth, ply, v)
            for j in range(self.n):
                out[j] += p * v[j]

    cdef void _maxn(self, PState* s, int depth, int ply, double* out) noexcept nogil:
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t h
        cdef CMove moves[MAX_MOVES]
        cdef CMove bestm
        cdef PState c
        cdef TTEntry* e
        cdef int nm, j, i, mover = s.to_move, saved_minrep, here, n = self.n
        cdef double v[MAXP]
        cdef bint have = False
        cdef bint saved_cut, here_cut
        self.nodes += 1
        if (self.nodes & 4095) == 0 and self.deadline > 0 and now_seconds() > self.deadline:
            self.aborted = True
        if self.node_limit and self.nodes + self.playout_steps >= self.node_limit:
            self.aborted = True
        if self.aborted:
            horizon_eval(s, out)
            return
        pack_state(s, words)
        h = hash_words(words, self.nw)
        i = self._repeat_at(h, ply)
        if i < MAXPLY:
            self.reps += 1
            if i < self.minrep:
                self.minrep = i
            self._draw_vec(s, out)
            return
        if depth <= 0 or ply >= MAXPLY - 1:
            self.cut = True
            self._leaf(s, h, words, out)
            if self.nhist:
                self._leaf_draw(s, ply, out)
            return
        e = NULL if self.plain or not self.use_table else tt_probe(&self.tt, h, words)
        if e != NULL and e.depth >= depth and n <= MAXV:
            if e.depth < DEPTH_EXACT:
                self.cut = True
            for j in range(n):
                out[j] = tt_values(&self.tt, e)[j]
            return
        self.path[ply] = h
        saved_minrep = self.minrep
        self.minrep = MAXPLY
        saved_cut = self.cut
        self.cut = False
        nm = self._moves(s, moves)
        bestm = moves[0]
        for j in range(nm):
            copy_state(&c, s)
            apply_move(&c, moves[j])
            self._after_move_n(&c, depth - 1, ply + 1, v)
            if self.aborted:
                break
            if not have or v[mover] < out[mover]:
                have = True
                bestm = moves[j]
                for i in range(n):
                    out[i] = v[i]
        if not have:
            horizon_eval(s, out)
        here = self.minrep
        self.minrep = saved_minrep if saved_minrep < here else here
        here_cut = self.cut
        self.cut = saved_cut or here_cut
        if not self.aborted and here >= ply and n <= MAXV and self.use_table and not self.plain:
            tt_store(&self.tt, h, words, out, n, depth if here_cut else DEPTH_EXACT,
                     TT_EXACT, bestm)


def eval_position(CState s):
    """The horizon evaluation of a position in the current mode (for calibration and
    tests); a terminal position gets its result."""
    cdef double out[MAXP]
    ensure_eval_ready()
    if ps_is_terminal(&s.s):
        terminal_loss(&s.s, out)
    else:
        horizon_eval(&s.s, out)
    return [out[i] for i in range(s.s.n)]


def set_eval_params(double scale, double tempo, double blind):
    """Change the horizon evaluation's parameters (calibration only)."""
    global EVAL_SCALE, EVAL_TEMPO, EVAL_BLIND, EVAL_VERSION
    EVAL_SCALE = scale
    EVAL_TEMPO = tempo
    EVAL_BLIND = blind
    EVAL_VERSION += 1


cdef extern from "<time.h>" nogil:
    enum: CLOCK_THREAD_CPUTIME_ID


cdef inline double cpu_seconds() noexcept nogil:
    """This thread's CPU time (benchmarks on a shared machine: waiting does not count)."""
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def eval_cost(states, int reps=1000):
    """Nanoseconds per call of the card-count and of the learned evaluation, each timed
    over ``reps`` passes through ``states`` (CStates, decision nodes) without the GIL, in
    this thread's CPU time (benchmarks/eval_cost.py). Loads the shipped weights if none are loaded."""
    cdef int k = len(states), i, j
    cdef PState* buf
    cdef double out[MAXP]
    cdef double t0, t_card, t_learned, sink = 0.0
    if EV_H1 == 0:
        _load_default_weights()
    buf = <PState*>malloc(k * sizeof(PState))
    if buf == NULL:
        raise MemoryError()
    try:
        for i in range(k):
            copy_state(&buf[i], &(<CState>states[i]).s)
        with nogil:
            t0 = cpu_seconds()
            for j in range(reps):
                for i in range(k):
                    cardcount_eval(&buf[i], out)
                    sink += out[0]
            t_card = cpu_seconds() - t0
            t0 = cpu_seconds()
            for j in range(reps):
                for i in range(k):
                    learned_eval(&buf[i], out)
                    sink += out[0]
            t_learned = cpu_seconds() - t0
    finally:
        free(buf)
    return {"cardcount_ns": t_card / (k * reps) * 1e9,
            "learned_ns": t_learned / (k * reps) * 1e9, "checksum": sink}

# Exact solver, compiled: the same method as palace_solver/solve/exact.py (read its module doc).
# May use: core.pxi (moves, apply, chance, pack, hash); not the table or the search.
#
# In six parts, included in this order by _engine.pyx, each using only those before it:
#   exact_keys.pxi      bit tricks and compact keys (pext/pdep, the key mask)
#   exact_parallel.pxi  a task run on n threads
#   exact_merge.pxi     merged positions: rank classes and the relabelling to them
#   exact_build.pxi     the graph layout, the error codes, the expansion of a chunk of
#                       parents (threads), the node map and the growth of the arrays
#   exact_solve.pxi     values of moves, the two-player sweeps, the Jacobi fixed point, the
#                       layers in order
#   exact.pxi           ExactGraph: the Python API (build and solve drivers, results, the
#                       game's history, the graph walk of --line and --tree)
#
# 1. build (exact_build.pxi): breadth-first enumeration of every decision position
#    reachable from the root, by compact keys (exact_keys.pxi), the same bytes for any
#    thread count.
# 2. keys and map are freed once the build is done; what the solve needs stays.
# 3. solve (exact_solve.pxi): nodes sorted by `progress`, layer by layer, each once every
#    exit from it is known.
#
# Errors inside the compiled parts are ExactErr codes (exact_build.pxi); the drivers here
# turn them into Python exceptions. Each function that allocates scratch memory frees it in
# one place, at its end.

from cython.view cimport array as cvarray


cdef class ExactGraph:
    """The reachable graph of one exact-mode position and its exact values.

    ``ExactGraph(root, threads=1)``; ``build(max_nodes, seconds, max_bytes)`` returns False
    when the graph outgrows a budget; ``solve()`` then fills the values; ``root_moves()`` and
    ``stats()`` report. The values and every array are the same for any thread count.
    """
    cdef PState root
    cdef GraphView g            # the graph (exact_build.pxi's layout) and its values
    cdef GraphBuild bd          # the build's state: keys, map, counts and capacities of g
    cdef int nw, threads, hw
    cdef uint64_t mask[MAX_WORDS]
    cdef ExpandBuf bufs[64]
    cdef public int layers, np_layers, np_cycling, np_max_period, np_max_sweeps
    # Smallest layer (solve) and build step (parents) whose work is split between the
    # threads; below it one thread works alone. Tests lower them to split tiny graphs.
    cdef public int64_t par_min, par_min_build
    cdef public double build_seconds, solve_seconds
    cdef public bint complete
    cdef public str stop_reason
    cdef int64_t peak_bytes
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
        memset(&self.bd, 0, sizeof(GraphBuild))
        self.bd.g = &self.g
        self.hkeys = NULL
        self.hhash = NULL
        self.nhk = 0
        memset(&self.g, 0, sizeof(GraphView))
        memset(self.bufs, 0, sizeof(self.bufs))

    def __dealloc__(self):
        self._free_build()
        free(self.hkeys); free(self.hhash)
        free(self.g.info); free(self.g.estart); free(self.g.etgt); free(self.g.fstart)
        free(self.g.otgt); free(self.g.ow); free(self.g.val)

    cdef void _free_build(self) noexcept nogil:
        cdef int t
        gb_free_map(&self.bd)
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
        self.bd.mapcap = 1 << 12
        self.bd.slots = <uint64_t*>calloc(self.bd.mapcap, 8)
        if self.bd.slots == NULL:
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
        self.bd.K = (bits + 63) >> 6 if bits else 1

    def set_history(self, list history):
        """The game's earlier positions (CStates, the root among them or not): reaching one
        again is a draw, as in the game (the players still in share the loss). Positions
        that cannot occur below the root (a decision node setting a key bit outside its
        mask) are left out. Returns how many are kept. Before build()."""
        cdef CState h
        cdef uint64_t words[MAX_WORDS]
        cdef int k = 0
        if self.bd.N:
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
        self.hkeys = <uint64_t*>malloc(len(history) * self.bd.K * 8)
        self.hhash = <uint64_t*>malloc(len(history) * 8)
        if self.hkeys == NULL or self.hhash == NULL:
            raise MemoryError()
        for h in history:
            if h.s.n != self.root.n or h.s.to_move < 0 or h.s.draw_pile \
                    or ps_is_terminal(&h.s):
                continue
            pack_state(&h.s, words)
            if palace_compress_sw(words, self.mask, self.nw, &self.hkeys[k * self.bd.K], self.bd.K):
                continue
            self.hhash[k] = hash_words(&self.hkeys[k * self.bd.K], self.bd.K)
            self.hbits[(self.hhash[k] >> 6) & 63] |= (<uint64_t>1) << (self.hhash[k] & 63)
            k += 1
        self.nhk = k
        return k

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
        cdef ExactErr err = EX_OK
        cdef int tt
        cdef ExpandCtx x
        import time
        t0 = time.perf_counter()
        self.bd.mem_cap = max_bytes
        self.bd.over_mem = False
        if expected_nodes > 0 and self.bd.N == 0:
            if max_nodes > 0 and expected_nodes > max_nodes:
                expected_nodes = max_nodes
            cap = self.bd.mapcap
            while cap * 3 < <uint64_t>expected_nodes * 4 and cap < (<uint64_t>1 << 33):
                cap *= 2
            if max_bytes > 0:
                while cap > (<uint64_t>1 << 12) and cap * 8 > <uint64_t>max_bytes // 4:
                    cap //= 2
            if cap != self.bd.mapcap:
                free(self.bd.slots)
                self.bd.slots = <uint64_t*>calloc(cap, 8)
                self.bd.mapcap = cap
                if self.bd.slots == NULL:
                    raise MemoryError()
        x.seg = self.seg if self.canon else NULL
        copy_state(&croot, &self.root)
        if x.seg != NULL:
            canon_ranks(&croot, x.seg)
        pack_state(&croot, words)
        if palace_compress_sw(words, self.mask, self.nw, key, self.bd.K):
            raise ValueError("compact key: the root sets a bit outside its own mask")
        h = hash_words(key, self.bd.K)
        if gb_lookup(&self.bd, key, h, node_info(&self.root)) == NO_NODE:
            raise MemoryError()
        x.root = &self.root
        x.mask = self.mask
        x.K = self.bd.K
        x.nw = self.nw
        x.n = self.g.n
        x.hw = self.hw
        x.hkeys = self.hkeys
        x.hhash = self.hhash
        x.hbits = self.hbits
        x.nhk = self.nhk
        x.bufs = self.bufs
        self.bd.P = 0
        while i < self.bd.N:
            end = i + CHUNK
            if end > self.bd.N:
                end = self.bd.N
            with nogil:
                x.keys = self.bd.keys
                x.a = i
                x.b = end
                nthr = self.threads
                if end - i < self.par_min_build:
                    nthr = 1
                palace_parallel(<int>nthr, _expand_task, &x)
                for tt in range(nthr):
                    if self.bufs[tt].err != EX_OK:
                        err = self.bufs[tt].err
                if err == EX_OK:
                    for tt in range(nthr):
                        err = gb_merge_buf(&self.bd, &self.bufs[tt])
                        if err != EX_OK:
                            break
            i = end
            if err == EX_NOMEM and self.bd.over_mem:
                self.stop_reason = "memory"
            elif err == EX_NOMEM:
                raise MemoryError("exact solver: out of memory")
            elif err == EX_CHANCE_AFTER_FLIP:
                raise ValueError("not an exact-mode position: a chance event follows a flip")
            elif err == EX_KEY_OUTSIDE_MASK:
                raise AssertionError("compact key: a position sets a bit outside the root's "
                                     "mask (a bug: please report the position)")
            if self.bd.E >= 0x7FFFFFF0 or self.bd.O >= 0x7FFFFFF0 or self.bd.N >= 0x7FFFFFF0:
                raise MemoryError("exact solver: more than 2^31 positions or moves")
            if progress is not None and not self.stop_reason:
                progress(self.bd.N)
            if self.stop_reason:
                pass
            elif self.bd.N > max_nodes:
                self.stop_reason = "nodes"
            elif seconds > 0:
                el = time.perf_counter() - t0
                if el > seconds:
                    self.stop_reason = "time"
                elif (i < self.bd.N and i >= 20000 and el + (self.bd.N - i) * el / i
                      + self.bd.N * solve_seconds_per_node > seconds):
                    self.stop_reason = "time predicted"
            if self.stop_reason:
                self.build_seconds = time.perf_counter() - t0
                self.peak_bytes = gb_build_bytes(&self.bd)
                self.complete = False
                return False
        self.g.estart[self.bd.N] = <uint32_t>self.bd.E
        self.g.fstart[self.bd.F] = <uint32_t>self.bd.O
        self.peak_bytes = gb_build_bytes(&self.bd)
        self._free_build()
        self.build_seconds = time.perf_counter() - t0
        self.complete = True
        return True

    # -- solve --------------------------------------------------------------------------
    def solve(self):
        """Values of every node, layer by layer from the lowest progress up
        (exact_solve.pxi)."""
        cdef LayerSolve ls
        cdef ExactErr rc
        cdef int64_t N = self.bd.N
        import time
        if not self.complete:
            raise ValueError("solve() needs a complete graph")
        t0 = time.perf_counter()
        free(self.g.val)
        self.g.val = <double*>calloc(N * self.g.nv, sizeof(double))
        if self.g.val == NULL:
            raise MemoryError("exact solver: out of memory")
        memset(&ls, 0, sizeof(LayerSolve))
        ls.g = &self.g
        ls.threads = self.threads
        ls.par_min = self.par_min
        with nogil:
            rc = solve_graph(&ls, N)
        self.layers, self.np_layers, self.np_cycling = ls.layers, ls.np_layers, ls.np_cycling
        self.np_max_period, self.np_max_sweeps = ls.np_max_period, ls.np_max_sweeps
        if rc != EX_OK:
            raise MemoryError("exact solver: out of memory")
        self.solve_seconds = time.perf_counter() - t0

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
        built = self.peak_bytes if self.peak_bytes else gb_build_bytes(&self.bd)
        nodes = max(self.bd.N, 1)
        return {"nodes": self.bd.N, "expanded": self.bd.P, "moves": self.bd.E, "flips": self.bd.F,
                "outcomes": self.bd.O,
                "layers": self.layers,
                "build_seconds": round(self.build_seconds, 6),
                "solve_seconds": round(self.solve_seconds, 6),
                "memory_mb": round(gb_graph_bytes(&self.bd) / 1048576.0, 2),
                "bytes_per_position": round(gb_graph_bytes(&self.bd) / <double>nodes, 1),
                "build_peak_mb": round(built / 1048576.0, 2),
                "build_bytes_per_position": round(built / <double>nodes, 1),
                "key_words": self.bd.K, "packed_words": self.nw, "threads": self.threads,
                "history": self.nhk, "merged": bool(self.canon)}

    def graph_digest(self):
        """SHA-256 of the graph arrays (info, estart, etgt, fstart, otgt, ow) and the values:
        the same bytes for any thread count."""
        import hashlib
        h = hashlib.sha256()
        h.update((<char*>self.g.info)[:self.bd.N * 4])
        h.update((<char*>self.g.estart)[:(self.bd.N + 1) * 4])
        h.update((<char*>self.g.etgt)[:self.bd.E * 4])
        h.update((<char*>self.g.fstart)[:(self.bd.F + 1) * 4])
        h.update((<char*>self.g.otgt)[:self.bd.O * 4])
        h.update((<char*>self.g.ow)[:self.bd.O])
        if self.g.val != NULL:
            h.update((<char*>self.g.val)[:self.bd.N * self.g.nv * 8])
        return h.hexdigest()

    def fixed_point(self):
        """The 3+ player layers: how many, how many cycled instead of converging, the
        longest period, the most sweeps one needed."""
        return {"layers": self.np_layers, "cycling": self.np_cycling,
                "max_period": self.np_max_period, "max_sweeps": self.np_max_sweeps}

    # -- graph access for --line and --tree --------------------------------------------------
    def node_count(self):
        return self.bd.N

    def values(self, double[:, ::1] out=None):
        """Every node's loss vector at once, one row a node in node order (``node_value``
        of each): written into ``out`` (``node_count()`` rows, one column a player, C
        order) or a new array. A PALACE_DEBUG build checks every index."""
        cdef int64_t u, N = self.bd.N
        cdef int j, n = self.g.n
        cdef double vec[MAXP]
        if self.g.val == NULL:
            raise ValueError("values() needs a solved graph")
        if out is None:
            out = cvarray(shape=(N if N else 1, n), itemsize=sizeof(double), format="d")
        if out.shape[0] < N or out.shape[1] != n:
            raise ValueError(f"values(): an array of {N} x {n}, not "
                             f"{out.shape[0]} x {out.shape[1]}")
        for u in range(N):
            gv_node_vec(&self.g, <int32_t>u, vec)
            for j in range(n):
                out[u, j] = vec[j]
        return out

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

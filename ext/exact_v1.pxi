# The first compiled graph solver, kept only as the "before" column of `palace bench`
# (solve/bench.py): full packed keys and hashes kept for the whole solve, 64-bit offsets,
# move records per edge, one thread. Same method and values as ExactGraph (exact.pxi), whose
# helpers (progress_of, the heap) it shares.

cdef class ExactGraphV1:
    """The first compiled graph solver (before issue 14), kept for `palace bench`'s before/after
    columns: full packed keys, 64-bit offsets, one thread. Same values as ExactGraph.

    ``build(max_nodes, seconds)`` returns False when the graph outgrows either budget;
    ``solve()`` then fills the values; ``root_moves()`` and ``stats()`` report.
    """
    cdef PState root
    cdef int n, nw
    cdef int64_t N, cap_n, E, cap_e, O, cap_o
    cdef uint64_t* words
    cdef uint64_t* hashes
    cdef int8_t* mover
    cdef int8_t* nact
    cdef int8_t* pa             # lowest player still in (two-player layers: values are its loss)
    cdef int8_t* pb             # the next player still in
    cdef int32_t* loc           # a node's index inside the layer being solved
    cdef int32_t* prog
    cdef int64_t* estart
    cdef CMove* emove
    cdef int64_t* ostart
    cdef int32_t* etotal
    cdef int32_t* otgt
    cdef int32_t* ow
    cdef int32_t* slots
    cdef uint64_t mapcap
    cdef double* val
    cdef public int layers
    cdef public double build_seconds, solve_seconds
    cdef public bint complete
    cdef object _rules

    def __cinit__(self):
        self.words = NULL
        self.slots = NULL
        self.val = NULL

    def __dealloc__(self):
        free(self.words); free(self.hashes); free(self.mover); free(self.nact); free(self.pa); free(self.pb)
        free(self.prog); free(self.estart); free(self.emove); free(self.ostart)
        free(self.etotal); free(self.otgt); free(self.ow); free(self.slots); free(self.val)

    def __init__(self, CState root):
        cdef int nwords
        if root.s.to_move < 0:
            raise ValueError("the exact solver starts at a decision node")
        if root.s.draw_pile:
            raise ValueError("not an exact-mode position: the draw pile is not empty")
        copy_state(&self.root, &root.s)
        self._rules = root.rules
        self.n = root.s.n
        self.nw = pack_nwords(&root.s)
        self.mapcap = 1 << 12
        self.slots = <int32_t*>malloc(self.mapcap * sizeof(int32_t))
        if self.slots == NULL:
            raise MemoryError()
        memset(self.slots, 0xff, self.mapcap * sizeof(int32_t))

    # -- the node map -------------------------------------------------------------------
    cdef int _rehash(self) noexcept nogil:
        cdef uint64_t cap = self.mapcap * 2, mask = cap - 1, i
        cdef int64_t u
        cdef int32_t* s = <int32_t*>malloc(cap * sizeof(int32_t))
        if s == NULL:
            return -1
        memset(s, 0xff, cap * sizeof(int32_t))
        for u in range(self.N):
            i = self.hashes[u] & mask
            while s[i] != -1:
                i = (i + 1) & mask
            s[i] = <int32_t>u
        free(self.slots)
        self.slots = s
        self.mapcap = cap
        return 0

    cdef int64_t _node(self, const PState* s, uint64_t* tmp) noexcept nogil:
        """The id of a decision position, added when new; NOMEM when out of memory."""
        cdef int nw = self.nw
        cdef uint64_t h, mask = self.mapcap - 1, i
        cdef int32_t u
        cdef int64_t v
        pack_state(s, tmp)
        h = hash_words(tmp, nw)
        i = h & mask
        while True:
            u = self.slots[i]
            if u == -1:
                break
            if self.hashes[u] == h and memcmp(&self.words[<int64_t>u * nw], tmp, nw * 8) == 0:
                return u
            i = (i + 1) & mask
        v = self.N
        if v + 1 >= self.cap_n:
            # one capacity for all per-node arrays: they grow together
            if self._grow_nodes(v + 1) != 0:
                return NOMEM
        memcpy(&self.words[v * nw], tmp, nw * 8)
        self.hashes[v] = h
        self.mover[v] = s.to_move
        self.nact[v] = <int8_t>(s.n - popcount16(s.out_mask))
        self.pa[v] = 0
        while (s.out_mask >> self.pa[v]) & 1:
            self.pa[v] += 1
        self.pb[v] = self.pa[v] + 1
        while self.pb[v] < s.n and (s.out_mask >> self.pb[v]) & 1:
            self.pb[v] += 1
        self.prog[v] = progress_of(s)
        self.slots[i] = <int32_t>v
        self.N = v + 1
        if <uint64_t>self.N * 2 > self.mapcap:
            if self._rehash() != 0:
                return NOMEM
        return v

    cdef int _grow_nodes(self, int64_t need) noexcept nogil:
        cdef int64_t c = 1024
        while c < need + 1:
            c *= 2
        self.words = <uint64_t*>realloc(self.words, c * self.nw * 8)
        self.hashes = <uint64_t*>realloc(self.hashes, c * 8)
        self.mover = <int8_t*>realloc(self.mover, c)
        self.nact = <int8_t*>realloc(self.nact, c)
        self.pa = <int8_t*>realloc(self.pa, c)
        self.pb = <int8_t*>realloc(self.pb, c)
        self.prog = <int32_t*>realloc(self.prog, c * 4)
        self.estart = <int64_t*>realloc(self.estart, (c + 1) * 8)
        if (self.words == NULL or self.hashes == NULL or self.mover == NULL
                or self.nact == NULL or self.pa == NULL or self.pb == NULL or self.prog == NULL or self.estart == NULL):
            return -1
        self.cap_n = c
        return 0

    cdef int64_t _target(self, const PState* s, uint64_t* tmp) noexcept nogil:
        cdef int code
        if ps_is_terminal(s):
            code = terminal_loser(s)
            if code < 0:
                code = self.n + s.winner
            return -1 - code
        return self._node(s, tmp)

    cdef int _add_out(self, int64_t tgt, int w) noexcept nogil:
        cdef int64_t c
        if self.O >= self.cap_o:
            c = self.cap_o * 2 if self.cap_o else 4096
            self.otgt = <int32_t*>realloc(self.otgt, c * 4)
            self.ow = <int32_t*>realloc(self.ow, c * 4)
            if self.otgt == NULL or self.ow == NULL:
                return -1
            self.cap_o = c
        self.otgt[self.O] = <int32_t>tgt
        self.ow[self.O] = w
        self.O += 1
        return 0

    cdef int _add_edge(self, CMove m) noexcept nogil:
        cdef int64_t c
        if self.E + 2 >= self.cap_e:
            c = self.cap_e * 2 if self.cap_e else 4096
            self.emove = <CMove*>realloc(self.emove, c * sizeof(CMove))
            self.etotal = <int32_t*>realloc(self.etotal, c * 4)
            self.ostart = <int64_t*>realloc(self.ostart, c * 8)
            if self.emove == NULL or self.etotal == NULL or self.ostart == NULL:
                return -1
            self.cap_e = c
        self.emove[self.E] = m
        self.ostart[self.E] = self.O
        return 0

    # -- build --------------------------------------------------------------------------
    def build(self, int64_t max_nodes=50_000_000, double seconds=0.0, progress=None):
        """Enumerate the graph. False when it has more than ``max_nodes`` positions or
        takes longer than ``seconds`` (0: no limit). ``progress(nodes)`` is called now
        and then with the GIL held."""
        cdef PState s, c, d
        cdef CMove moves[MAX_MOVES]
        cdef int ranks[16]
        cdef int weights[16]
        cdef uint64_t tmp[MAX_WORDS]
        cdef int nm, j, k, tot, err = 0
        cdef int64_t i = 0, t, chunk_end, tgt
        import time
        t0 = time.perf_counter()
        copy_state(&s, &self.root)
        if self._node(&self.root, tmp) < 0:
            raise MemoryError()
        while i < self.N:
            chunk_end = i + 65536
            with nogil:
                while i < self.N and i < chunk_end and err == 0:
                    copy_state(&s, &self.root)
                    unpack_state(&self.words[i * self.nw], self.nw, &s)
                    nm = gen_moves(&s, moves)
                    self.estart[i] = self.E
                    for j in range(nm):
                        copy_state(&c, &s)
                        apply_move(&c, moves[j])
                        if self._add_edge(moves[j]) != 0:
                            err = 1
                            break
                        if ps_is_chance(&c):
                            k = chance_outcomes(&c, ranks, weights)
                            tot = 0
                            for t in range(k):
                                copy_state(&d, &c)
                                apply_chance(&d, ranks[t])
                                if ps_is_chance(&d):
                                    err = 2
                                    break
                                tgt = self._target(&d, tmp)
                                if tgt == NOMEM or self._add_out(tgt, weights[t]) != 0:
                                    err = 1
                                    break
                                tot += weights[t]
                            self.etotal[self.E] = tot
                        else:
                            tgt = self._target(&c, tmp)
                            if tgt == NOMEM or self._add_out(tgt, 1) != 0:
                                err = 1
                            self.etotal[self.E] = 1
                        if err:
                            break
                        self.E += 1
                    i += 1
            if err == 1:
                raise MemoryError("exact solver: out of memory")
            if err == 2:
                raise ValueError("not an exact-mode position: a chance event follows a flip")
            if progress is not None:
                progress(self.N)
            if self.N > max_nodes or (seconds > 0 and time.perf_counter() - t0 > seconds):
                self.build_seconds = time.perf_counter() - t0
                self.complete = False
                return False
        self.estart[self.N] = self.E
        self.ostart[self.E] = self.O
        self.build_seconds = time.perf_counter() - t0
        self.complete = True
        return True

    # -- values -------------------------------------------------------------------------
    cdef void _edge_value(self, int64_t e, double* out) noexcept nogil:
        cdef int n = self.n, i, code
        cdef int64_t o
        cdef int32_t t
        cdef double w, tot = self.etotal[e]
        for i in range(n):
            out[i] = 0.0
        for o in range(self.ostart[e], self.ostart[e + 1]):
            t = self.otgt[o]
            w = self.ow[o]
            if t >= 0:
                for i in range(n):
                    out[i] += w * self.val[<int64_t>t * n + i]
            else:
                code = -1 - t
                if code < n:
                    out[code] += w
                else:
                    for i in range(n):
                        if i != code - n:
                            out[i] += w / (n - 1)
        for i in range(n):
            out[i] /= tot

    cdef inline bint _inner(self, int64_t e, int32_t prog, int8_t* solved) noexcept nogil:
        """Whether move e is a deterministic move to an unsolved node of the same layer."""
        cdef int32_t t
        if self.ostart[e + 1] - self.ostart[e] != 1:
            return False
        t = self.otgt[self.ostart[e]]
        return t >= 0 and self.prog[t] == prog and not solved[t]

    def solve(self):
        """Values of every node, layer by layer from the lowest progress up."""
        cdef int64_t u, i, a, b, N = self.N
        cdef int32_t pmin, pmax, p
        cdef int64_t* cnt
        cdef int32_t* order
        cdef int8_t* solved
        cdef int rc = 0
        import time
        if not self.complete:
            raise ValueError("solve() needs a complete graph")
        t0 = time.perf_counter()
        self.val = <double*>calloc(N * self.n, sizeof(double))
        solved = <int8_t*>calloc(N, 1)
        order = <int32_t*>malloc(N * sizeof(int32_t))
        self.loc = <int32_t*>malloc(N * sizeof(int32_t))
        pmin = pmax = self.prog[0]
        for u in range(N):
            if self.prog[u] < pmin:
                pmin = self.prog[u]
            if self.prog[u] > pmax:
                pmax = self.prog[u]
        cnt = <int64_t*>calloc(pmax - pmin + 2, sizeof(int64_t))
        if (self.val == NULL or solved == NULL or order == NULL or cnt == NULL
                or self.loc == NULL):
            free(solved); free(order); free(cnt); free(self.loc); self.loc = NULL
            raise MemoryError()
        with nogil:
            # counting sort by progress, then by active players inside a progress value
            for u in range(N):
                cnt[self.prog[u] - pmin + 1] += 1
            for p in range(pmax - pmin + 1):
                cnt[p + 1] += cnt[p]
            for u in range(N):
                order[cnt[self.prog[u] - pmin]] = <int32_t>u
                cnt[self.prog[u] - pmin] += 1
            a = 0
            self.layers = 0
            while a < N and rc == 0:
                b = a
                while b < N and self.prog[order[b]] == self.prog[order[a]]:
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
        cdef int32_t* two = <int32_t*>malloc(m * sizeof(int32_t))
        cdef int32_t* many = <int32_t*>malloc(m * sizeof(int32_t))
        cdef int rc = 0
        if two == NULL or many == NULL:
            free(two); free(many)
            return -1
        for i in range(m):
            if self.nact[nodes[i]] == 2:
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
        nodes first), the rest is 1/2."""
        cdef int n = self.n
        cdef int32_t prog = self.prog[nodes[0]]
        cdef int64_t i, e, q, npred = 0
        cdef int32_t u, t, pu
        cdef int sweep, a
        cdef double sign, half, sc, best, v
        cdef double vec[MAXP]
        cdef bint have, blk, firstres
        cdef int64_t* pstart = <int64_t*>calloc(m + 1, sizeof(int64_t))
        cdef int64_t* fill = <int64_t*>malloc((m + 1) * sizeof(int64_t))
        cdef int32_t* preds = NULL
        cdef int32_t* remaining = <int32_t*>malloc(m * sizeof(int32_t))
        cdef double* worst = <double*>malloc(m * sizeof(double))
        cdef int8_t* state = <int8_t*>malloc(m)   # 0 open, 1 blocked, 2 done
        cdef MaxHeap h
        h.key = NULL; h.node = NULL; h.n = 0; h.cap = 0
        if (pstart == NULL or fill == NULL or remaining == NULL or worst == NULL
                or state == NULL):
            free(pstart); free(fill); free(remaining); free(worst); free(state)
            return -1
        for i in range(m):
            self.loc[nodes[i]] = <int32_t>i
        # predecessor lists (CSR) over the inner moves
        for i in range(m):
            u = nodes[i]
            for e in range(self.estart[u], self.estart[u + 1]):
                if self._inner(e, prog, solved):
                    pstart[self.loc[self.otgt[self.ostart[e]]] + 1] += 1
                    npred += 1
        for i in range(m):
            pstart[i + 1] += pstart[i]
        preds = <int32_t*>malloc((npred + 1) * sizeof(int32_t))
        if preds == NULL:
            free(pstart); free(fill); free(remaining); free(worst); free(state)
            return -1
        for i in range(m):
            fill[i] = pstart[i]
        for i in range(m):
            u = nodes[i]
            for e in range(self.estart[u], self.estart[u + 1]):
                if self._inner(e, prog, solved):
                    q = self.loc[self.otgt[self.ostart[e]]]
                    preds[fill[q]] = <int32_t>i
                    fill[q] += 1
        for sweep in range(2):
            sign = 1.0 if sweep == 0 else -1.0
            half = 0.5 * sign
            h.n = 0
            for i in range(m):
                u = nodes[i]
                if solved[u]:
                    state[i] = 2
                    continue
                a = self.pa[u]
                firstres = (self.mover[u] == a) == (sweep == 1)
                state[i] = 0
                remaining[i] = 0
                have = False
                blk = False
                best = -2.0
                worst[i] = 2.0
                for e in range(self.estart[u], self.estart[u + 1]):
                    if self._inner(e, prog, solved):
                        remaining[i] += 1
                        continue
                    self._edge_value(e, vec)
                    v = vec[a]
                    if fabs(v - 0.5) < SNAP:
                        v = 0.5
                    sc = sign * v
                    if firstres:
                        if sc > half and sc > best:
                            best = sc
                            have = True
                    else:
                        if sc <= half:
                            blk = True
                        if sc < worst[i]:
                            worst[i] = sc
                if firstres:
                    if have and heap_push(&h, best, <int32_t>i) != 0:
                        return -1
                elif blk:
                    state[i] = 1
                elif remaining[i] == 0:
                    if heap_push(&h, worst[i], <int32_t>i) != 0:
                        return -1
            while h.n > 0:
                heap_pop(&h, &sc, &pu)
                if state[pu] == 2:
                    continue
                state[pu] = 2
                u = nodes[pu]
                solved[u] = 1
                self._set_pair(u, sign * sc)
                for q in range(pstart[pu], pstart[pu + 1]):
                    i = preds[q]
                    if state[i] != 0:
                        continue
                    if (self.mover[nodes[i]] == self.pa[nodes[i]]) == (sweep == 1):
                        if heap_push(&h, sc, <int32_t>i) != 0:
                            return -1
                    else:
                        remaining[i] -= 1
                        if sc < worst[i]:
                            worst[i] = sc
                        if remaining[i] == 0:
                            if heap_push(&h, worst[i], <int32_t>i) != 0:
                                return -1
        for i in range(m):
            u = nodes[i]
            if not solved[u]:
                solved[u] = 1
                self._set_pair(u, 0.5)
        free(h.key); free(h.node)
        free(pstart); free(fill); free(remaining); free(worst); free(state); free(preds)
        return 0

    cdef void _set_pair(self, int32_t u, double v) noexcept nogil:
        """Value of a two-player node: v for the lower player still in, 1 - v for the
        other, 0 for the players out."""
        cdef int n = self.n, j
        for j in range(n):
            self.val[<int64_t>u * n + j] = 0.0
        self.val[<int64_t>u * n + self.pa[u]] = v
        self.val[<int64_t>u * n + self.pb[u]] = 1.0 - v

    cdef int _layer_np(self, int32_t* nodes, int64_t m, int8_t* solved) noexcept nogil:
        """exact._solve_layer_np: Jacobi sweeps from the draw value until nothing changes
        (at most 1000): every node takes, from the previous sweep's values, the option with
        the mover's lowest loss (ties: first in move order)."""
        cdef int n = self.n, j, p
        cdef int32_t prog = self.prog[nodes[0]]
        cdef int64_t i, e, k, nopt = 0, sweep
        cdef int32_t u, t
        cdef bint changed
        cdef double* cur = <double*>malloc(m * n * sizeof(double))
        cdef double* nxt = <double*>malloc(m * n * sizeof(double))
        cdef double* tmpd
        cdef int64_t* ostart_l = <int64_t*>malloc((m + 1) * sizeof(int64_t))
        cdef int64_t total = 0
        cdef int64_t* opt
        cdef double* exitv
        cdef double* best
        for i in range(m):
            total += self.estart[nodes[i] + 1] - self.estart[nodes[i]]
        opt = <int64_t*>malloc((total + 1) * sizeof(int64_t))
        exitv = <double*>malloc((total + 1) * n * sizeof(double))
        if cur == NULL or nxt == NULL or ostart_l == NULL or opt == NULL or exitv == NULL:
            free(cur); free(nxt); free(ostart_l); free(opt); free(exitv)
            return -1
        for i in range(m):
            self.loc[nodes[i]] = <int32_t>i
        for i in range(m):
            u = nodes[i]
            ostart_l[i] = nopt
            for e in range(self.estart[u], self.estart[u + 1]):
                if self._inner(e, prog, solved):
                    opt[nopt] = self.loc[self.otgt[self.ostart[e]]]
                else:
                    opt[nopt] = -1
                    self._edge_value(e, &exitv[nopt * n])
                nopt += 1
        ostart_l[m] = nopt
        for i in range(m):
            # the draw value: the players still in share the loss
            self._draw_value(nodes[i], &cur[i * n])
        for sweep in range(1000):
            changed = False
            for i in range(m):
                p = self.mover[nodes[i]]
                best = NULL
                for k in range(ostart_l[i], ostart_l[i + 1]):
                    tmpd = &cur[opt[k] * n] if opt[k] >= 0 else &exitv[k * n]
                    if best == NULL or tmpd[p] < best[p]:
                        best = tmpd
                for j in range(n):
                    nxt[i * n + j] = best[j]
                    if best[j] != cur[i * n + j]:
                        changed = True
            tmpd = cur
            cur = nxt
            nxt = tmpd
            if not changed:
                break
        for i in range(m):
            u = nodes[i]
            solved[u] = 1
            for j in range(n):
                self.val[<int64_t>u * n + j] = cur[i * n + j]
        free(cur); free(nxt); free(ostart_l); free(opt); free(exitv)
        return 0

    cdef void _draw_value(self, int32_t u, double* out) noexcept nogil:
        cdef PState s
        cdef int j
        copy_state(&s, &self.root)
        unpack_state(&self.words[<int64_t>u * self.nw], self.nw, &s)
        for j in range(self.n):
            out[j] = 0.0 if (s.out_mask >> j) & 1 else 1.0 / self.nact[u]

    # -- results ------------------------------------------------------------------------
    def root_value(self):
        return [self.val[j] for j in range(self.n)]

    def root_moves(self):
        """[(Move, [loss per player])] in the legal-move order of the root."""
        cdef int64_t e
        cdef double vec[MAXP]
        out = []
        for e in range(self.estart[0], self.estart[1]):
            self._edge_value(e, vec)
            out.append((_move_obj(self.emove[e]), [vec[j] for j in range(self.n)]))
        return out

    def stats(self):
        mem = (self.cap_n * (self.nw * 8 + 8 + 2 + 4 + 8) + self.mapcap * 4
               + self.cap_e * (sizeof(CMove) + 4 + 8) + self.cap_o * 8
               + (self.N * self.n * 8 if self.val != NULL else 0))
        return {"nodes": self.N, "moves": self.E, "outcomes": self.O, "layers": self.layers,
                "build_seconds": round(self.build_seconds, 6),
                "solve_seconds": round(self.solve_seconds, 6),
                "memory_mb": round(mem / 1048576.0, 2), "key_words": self.nw,
                "map_load": round(self.N / <double>self.mapcap, 3)}

    # -- graph access for --line and --tree --------------------------------------------------
    def node_count(self):
        return self.N

    def node_value(self, int64_t u):
        return [self.val[u * self.n + j] for j in range(self.n)]

    def node_mover(self, int64_t u):
        return self.mover[u]

    def node_state(self, int64_t u):
        """The position of node u, as a reference State."""
        cdef CState c = CState.__new__(CState)
        copy_state(&c.s, &self.root)
        unpack_state(&self.words[u * self.nw], self.nw, &c.s)
        c.rules = self._rules
        return c.to_state()

    def node_edges(self, int64_t u):
        """[(Move, [(probability, target)])] where a target is a node id or a tuple of
        terminal losses."""
        cdef int64_t e, o
        cdef int32_t t
        cdef int code, j, n = self.n
        out = []
        for e in range(self.estart[u], self.estart[u + 1]):
            outs = []
            for o in range(self.ostart[e], self.ostart[e + 1]):
                t = self.otgt[o]
                if t >= 0:
                    tgt = t
                else:
                    code = -1 - t
                    if code < n:
                        tgt = tuple(1.0 if j == code else 0.0 for j in range(n))
                    else:
                        tgt = tuple(0.0 if j == code - n else 1.0 / (n - 1) for j in range(n))
                outs.append((self.ow[o] / <double>self.etotal[e], tgt))
            out.append((_move_obj(self.emove[e]), outs))
        return out

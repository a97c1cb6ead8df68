# The exact solver, part 5 of 6: the solve. May use: exact_keys.pxi, exact_parallel.pxi,
# exact_build.pxi (the graph layout).
#
# 3. solve: nodes are sorted by `progress` (monotone: see solve/exact.py); a layer is solved
#    once every exit from it is known. Two players: the two Dijkstra-like sweeps (exact
#    values, independent of node order); three or more: Jacobi iteration from the draw
#    value (its sweeps split between the threads), with the cycle detection below.
#

cdef double SNAP = 1e-12       # an exit value this close to 1/2 is 1/2

cdef enum:
    MAX_SWEEPS = 1000      # Jacobi sweeps of a 3+ player layer (solve/exact.py's max_sweeps)
    PAR_MIN = 4096         # smallest layer whose work is split between threads


# -- values -------------------------------------------------------------------------
cdef inline double gv_tgt_loss(const GraphView* g, int32_t t, int a) noexcept nogil:
    """Player a's loss at a target: a node (solved) or a terminal."""
    cdef int code
    if t >= 0:
        return g.val[t] if g.nv == 1 else g.val[<int64_t>t * g.n + a]
    code = -1 - t
    if code < g.n:
        return 1.0 if code == a else 0.0
    if code == 2 * g.n:
        return 0.0 if (g.draw_out >> a) & 1 else g.draw_share
    return 0.0 if code - g.n == a else 1.0 / (g.n - 1)

cdef double gv_edge_loss(const GraphView* g, int32_t t, int a) noexcept nogil:
    """Player a's loss after a move (etgt value t), as _edge_value's component a."""
    cdef int64_t f, o
    cdef int32_t gt
    cdef int code, tot = 0
    cdef double acc = 0.0, w
    if t > -FLIP_BASE:
        return gv_tgt_loss(g, t, a)
    f = -FLIP_BASE - t
    for o in range(g.fstart[f], g.fstart[f + 1]):
        tot += g.ow[o]
    for o in range(g.fstart[f], g.fstart[f + 1]):
        gt = g.otgt[o]
        w = g.ow[o]
        if gt >= 0:
            acc += w * (g.val[gt] if g.nv == 1 else g.val[<int64_t>gt * g.n + a])
        else:
            code = -1 - gt
            if code < g.n:
                if code == a:
                    acc += w
            elif code == 2 * g.n:
                if not (g.draw_out >> a) & 1:
                    acc += w * g.draw_share
            elif code - g.n != a:
                acc += w / (g.n - 1)
    return acc / tot

cdef void gv_node_vec(const GraphView* g, int32_t t, double* out) noexcept nogil:
    cdef int i
    if g.nv == 1:
        out[0] = g.val[t]
        out[1] = 1.0 - g.val[t]
    else:
        for i in range(g.n):
            out[i] = g.val[<int64_t>t * g.n + i]

cdef void gv_edge_value(const GraphView* g, int32_t t, double* out) noexcept nogil:
    """Every player's loss after a move (etgt value t)."""
    cdef int n = g.n, i, code
    cdef int64_t f, o
    cdef int32_t gt
    cdef int tot = 0
    cdef double w
    cdef double v[MAXP]
    if t >= 0:
        gv_node_vec(g, t, out)
        return
    if t > -FLIP_BASE:
        for i in range(n):
            out[i] = gv_tgt_loss(g, t, i)
        return
    f = -FLIP_BASE - t
    for i in range(n):
        out[i] = 0.0
    for o in range(g.fstart[f], g.fstart[f + 1]):
        tot += g.ow[o]
    for o in range(g.fstart[f], g.fstart[f + 1]):
        gt = g.otgt[o]
        w = g.ow[o]
        if gt >= 0:
            gv_node_vec(g, gt, v)
            for i in range(n):
                out[i] += w * v[i]
        else:
            code = -1 - gt
            if code < n:
                out[code] += w
            elif code == 2 * n:
                for i in range(n):
                    if not (g.draw_out >> i) & 1:
                        out[i] += w * g.draw_share
            else:
                for i in range(n):
                    if i != code - n:
                        out[i] += w / (n - 1)
    for i in range(n):
        out[i] /= tot

cdef inline bint gv_inner(const GraphView* g, int32_t t, int prog, int8_t* solved) noexcept nogil:
    """Whether a move (etgt value t) is a deterministic move to an unsolved node of the
    same layer."""
    return t >= 0 and gv_prog(g, t) == prog and not solved[t]


# A binary max-heap of (score, node) for the sweeps.
ctypedef struct MaxHeap:
    double* key
    int32_t* node
    int64_t n
    int64_t cap


cdef ExactErr heap_push(MaxHeap* h, double k, int32_t u) noexcept nogil:
    cdef int64_t i, j
    cdef double* nk
    cdef int32_t* nn
    if h.n == h.cap:
        h.cap = h.cap * 2 if h.cap else 1024
        nk = <double*>realloc(h.key, h.cap * sizeof(double))
        if nk == NULL:
            return EX_NOMEM
        h.key = nk
        nn = <int32_t*>realloc(h.node, h.cap * sizeof(int32_t))
        if nn == NULL:
            return EX_NOMEM
        h.node = nn
    i = h.n
    h.n += 1
    # Ties pop the smaller node id first: a fixed order (values do not depend on it).
    while i > 0:
        j = (i - 1) >> 1
        if h.key[j] > k or (h.key[j] == k and h.node[j] < u):
            break
        h.key[i] = h.key[j]
        h.node[i] = h.node[j]
        i = j
    h.key[i] = k
    h.node[i] = u
    return EX_OK


cdef void heap_pop(MaxHeap* h, double* k, int32_t* u) noexcept nogil:
    cdef int64_t i = 0, c
    cdef double lk
    cdef int32_t lu
    k[0] = h.key[0]
    u[0] = h.node[0]
    h.n -= 1
    lk = h.key[h.n]
    lu = h.node[h.n]
    while True:
        c = 2 * i + 1
        if c >= h.n:
            break
        if c + 1 < h.n and (h.key[c + 1] > h.key[c]
                            or (h.key[c + 1] == h.key[c] and h.node[c + 1] < h.node[c])):
            c += 1
        if lk > h.key[c] or (lk == h.key[c] and lu < h.node[c]):
            break
        h.key[i] = h.key[c]
        h.node[i] = h.node[c]
        i = c
    h.key[i] = lk
    h.node[i] = lu


# -- parallel parts of the solve ---------------------------------------------------------------

ctypedef struct ExitCtx:
    GraphView* g
    int32_t* nodes
    int64_t m
    int32_t prog
    int8_t* solved
    int32_t* loc               # a node's index in the layer
    int64_t* istart            # per node of the layer: where its inner targets go
    int32_t* inner             # inner targets (layer indices)
    int32_t* inner_cnt         # per node of the layer: inner moves
    double* exmin              # per node: lowest / highest exit value for player a
    double* exmax


cdef void _exits_range(ExitCtx* x, int64_t lo, int64_t hi) noexcept nogil:
    """For nodes [lo, hi) of a two-player layer: the layer indices of the inner moves'
    targets (at x.inner[x.istart[i]...], x.inner_cnt[i] of them) and the lowest and highest
    loss of player a over the other moves (the exits; 2.0 and -2.0 when there are none)."""
    cdef int64_t i, e, k
    cdef int32_t u, t
    cdef int a
    cdef double v, mn, mx
    for i in range(lo, hi):
        u = x.nodes[i]
        a = 0 if x.g.n == 2 else gv_pa(x.g, u)
        k = x.istart[i]
        mn = 2.0
        mx = -2.0
        for e in range(x.g.estart[u], x.g.estart[u + 1]):
            t = x.g.etgt[e]
            if gv_inner(x.g, t, x.prog, x.solved):
                x.inner[k] = x.loc[t]
                k += 1
                continue
            v = gv_edge_loss(x.g, t, a)
            if fabs(v - 0.5) < SNAP:
                v = 0.5
            if v < mn:
                mn = v
            if v > mx:
                mx = v
        x.inner_cnt[i] = <int32_t>(k - x.istart[i])
        x.exmin[i] = mn
        x.exmax[i] = mx


# The two sweeps of a two-player layer (see layer_2p), one task each.
ctypedef struct SweepCtx:
    int64_t m, npred
    int64_t* pstart            # predecessors of layer node q: preds[pstart[q] .. pstart[q+1])
    int32_t* preds
    int32_t* innc              # inner moves per node
    double* exmin              # lowest / highest exit value for a per node (2.0 / -2.0: none)
    double* exmax
    int8_t* first_b            # the mover is b
    int8_t* state[2]           # per sweep and node: 0 open, 1 blocked, 2 done
    double* val[2]             # per sweep: the value of a node done (a's loss)
    ExactErr err[2]            # per sweep: EX_OK, or EX_NOMEM


cdef void _sweep_task(void* ctx, int t, int nthreads) noexcept nogil:
    """Sweep t of a two-player layer. t = 0: scores v (a's loss) above 1/2, b's nodes take
    the first value reaching them, a's nodes wait for all their options; t = 1: scores -v,
    values below 1/2, roles swapped. Pops the highest score first; every push after the
    first pop is at most the score last popped and most equal it (a value spreading back
    through the movers who take it): those go on a stack popped before the heap, in any
    order (values do not depend on it)."""
    cdef SweepCtx* sw = <SweepCtx*>ctx
    cdef int64_t m = sw.m, i, q, nsame = 0
    cdef int32_t pu, c
    cdef double sign = 1.0 if t == 0 else -1.0, sc = 0.0, best = 0.0
    cdef bint have, blk, firstres
    cdef int8_t* state = <int8_t*>malloc(m + 1)
    cdef double* val = <double*>malloc((m + 1) * sizeof(double))
    cdef int32_t* remaining = <int32_t*>malloc((m + 1) * sizeof(int32_t))
    cdef double* worst = <double*>malloc((m + 1) * sizeof(double))
    cdef int32_t* same = <int32_t*>malloc((sw.npred + 1) * sizeof(int32_t))
    cdef MaxHeap h
    h.key = NULL; h.node = NULL; h.n = 0; h.cap = 0
    sw.state[t] = state
    sw.val[t] = val
    sw.err[t] = EX_OK
    if state == NULL or val == NULL or remaining == NULL or worst == NULL or same == NULL:
        sw.err[t] = EX_NOMEM
    else:
        for i in range(m):
            firstres = sw.first_b[i] == (t == 0)
            state[i] = 0
            remaining[i] = sw.innc[i]
            have = blk = False
            if t == 0:
                # b (first) takes the highest exit above 1/2; a is blocked by an exit at or
                # below 1/2, else waits for its lowest
                if firstres:
                    have = sw.exmax[i] > 0.5
                    best = sw.exmax[i]
                else:
                    blk = sw.exmin[i] <= 0.5
                    worst[i] = sw.exmin[i]
            else:
                # a (first) takes the lowest exit below 1/2; b is blocked by an exit at or
                # above 1/2, else waits for its highest
                if firstres:
                    have = sw.exmin[i] < 0.5
                    best = -sw.exmin[i]
                else:
                    blk = sw.exmax[i] >= 0.5
                    worst[i] = -sw.exmax[i] if sw.exmax[i] > -2.0 else 2.0
            if firstres:
                if have and heap_push(&h, best, <int32_t>i) != EX_OK:
                    sw.err[t] = EX_NOMEM
                    break
            elif blk:
                state[i] = 1
            elif remaining[i] == 0:
                if heap_push(&h, worst[i], <int32_t>i) != EX_OK:
                    sw.err[t] = EX_NOMEM
                    break
        while sw.err[t] == EX_OK and (h.n > 0 or nsame > 0):
            if nsame > 0:
                nsame -= 1
                pu = same[nsame]
            else:
                heap_pop(&h, &sc, &pu)
            if state[pu] == 2:
                continue
            state[pu] = 2
            val[pu] = sign * sc
            for q in range(sw.pstart[pu], sw.pstart[pu + 1]):
                c = sw.preds[q]
                if state[c] != 0:
                    continue
                if sw.first_b[c] == (t == 0):
                    same[nsame] = c
                    nsame += 1
                else:
                    remaining[c] -= 1
                    if sc < worst[c]:
                        worst[c] = sc
                    if remaining[c] == 0:
                        if worst[c] == sc:
                            same[nsame] = c
                            nsame += 1
                        elif heap_push(&h, worst[c], c) != EX_OK:
                            sw.err[t] = EX_NOMEM
                            break
    free(h.key); free(h.node); free(remaining); free(worst); free(same)

cdef void _exits_task(void* ctx, int t, int nthreads) noexcept nogil:
    cdef ExitCtx* x = <ExitCtx*>ctx
    _exits_range(x, x.m * t // nthreads, x.m * (t + 1) // nthreads)


ctypedef struct JacobiCtx:
    GraphView* g
    int32_t* nodes
    int64_t m
    int64_t* opt               # per option: the layer index of an inner target, or -1 - exit
    int64_t* ostart
    double* exitv
    double* cur
    double* nxt
    int nthreads


cdef void _jacobi_range(JacobiCtx* jc, int64_t lo, int64_t hi) noexcept nogil:
    """One Jacobi sweep over nodes [lo, hi): nxt from cur."""
    cdef GraphView* g = jc.g
    cdef int n = g.n, p, j
    cdef int64_t i, k
    cdef double* best
    cdef double* v
    for i in range(lo, hi):
        p = gv_mover(g, jc.nodes[i])
        best = NULL
        for k in range(jc.ostart[i], jc.ostart[i + 1]):
            v = &jc.cur[jc.opt[k] * n] if jc.opt[k] >= 0 else &jc.exitv[(-1 - jc.opt[k]) * n]
            if best == NULL or v[p] < best[p]:
                best = v
        for j in range(n):
            jc.nxt[i * n + j] = best[j]


cdef void _jacobi_task(void* ctx, int t, int nthreads) noexcept nogil:
    cdef JacobiCtx* jc = <JacobiCtx*>ctx
    _jacobi_range(jc, jc.m * t // nthreads, jc.m * (t + 1) // nthreads)


# -- the layers -------------------------------------------------------------------------------

# What the layer solvers share: the graph, scratch space for layer indices, the threads, and
# the fixed point's counters (ExactGraph.fixed_point).
ctypedef struct LayerSolve:
    GraphView* g
    int32_t* loc               # a node's index in the layer being solved (N entries)
    int threads
    int64_t par_min            # smallest layer whose work is split between the threads
    int layers                 # layers solved
    int np_layers, np_cycling, np_max_period, np_max_sweeps   # 3+ player layers


cdef ExactErr solve_graph(LayerSolve* ls, int64_t N) noexcept nogil:
    """Values of every node of a complete graph (ls.g.val allocated, zeroed), layer by
    layer from the lowest progress up."""
    cdef GraphView* g = ls.g
    cdef int64_t u, a, b
    cdef int32_t pmin, pmax, p
    cdef ExactErr rc = EX_OK
    cdef int8_t* solved = <int8_t*>calloc(N, 1)
    cdef int32_t* order = <int32_t*>malloc(N * sizeof(int32_t))
    cdef int64_t* cnt = NULL
    ls.loc = <int32_t*>malloc(N * sizeof(int32_t))
    ls.layers = ls.np_layers = ls.np_cycling = ls.np_max_period = ls.np_max_sweeps = 0
    pmin = pmax = gv_prog(g, 0)
    for u in range(N):
        if gv_prog(g, u) < pmin:
            pmin = gv_prog(g, u)
        if gv_prog(g, u) > pmax:
            pmax = gv_prog(g, u)
    cnt = <int64_t*>calloc(pmax - pmin + 2, sizeof(int64_t))
    if solved == NULL or order == NULL or cnt == NULL or ls.loc == NULL:
        rc = EX_NOMEM
    else:
        # counting sort by progress (stable: node order inside a layer)
        for u in range(N):
            cnt[gv_prog(g, u) - pmin + 1] += 1
        for p in range(pmax - pmin + 1):
            cnt[p + 1] += cnt[p]
        for u in range(N):
            order[cnt[gv_prog(g, u) - pmin]] = <int32_t>u
            cnt[gv_prog(g, u) - pmin] += 1
        a = 0
        while a < N and rc == EX_OK:
            b = a
            while b < N and gv_prog(g, order[b]) == gv_prog(g, order[a]):
                b += 1
            ls.layers += 1
            rc = solve_layer(ls, order + a, b - a, solved)
            a = b
    free(cnt); free(order); free(solved); free(ls.loc)
    ls.loc = NULL
    return rc


cdef ExactErr solve_layer(LayerSolve* ls, int32_t* nodes, int64_t m,
                          int8_t* solved) noexcept nogil:
    """One progress value. Nodes with two players left use the exact two-player sweeps;
    the others (3+ players, no edge between the two groups) the Jacobi fixed point."""
    cdef int64_t i, k2 = 0, kn = 0
    cdef int32_t* two = NULL
    cdef int32_t* many = NULL
    cdef ExactErr rc = EX_OK
    if ls.g.n == 2:
        return layer_2p(ls, nodes, m, solved)
    two = <int32_t*>malloc(m * sizeof(int32_t))
    many = <int32_t*>malloc(m * sizeof(int32_t))
    if two == NULL or many == NULL:
        rc = EX_NOMEM
    else:
        for i in range(m):
            if ls.g.n - popcount16(gv_outm(ls.g, nodes[i])) == 2:
                two[k2] = nodes[i]
                k2 += 1
            else:
                many[kn] = nodes[i]
                kn += 1
        if k2:
            rc = layer_2p(ls, two, k2, solved)
        if kn and rc == EX_OK:
            rc = layer_np(ls, many, kn, solved)
    free(two); free(many)
    return rc


cdef ExactErr layer_2p(LayerSolve* ls, int32_t* nodes, int64_t m,
                       int8_t* solved) noexcept nogil:
    """exact._solve_layer_2p. With a < b the two players still in and v = a's loss:
    sweep 1 (values above 1/2, b's nodes resolve first), sweep 2 (below 1/2, a's
    nodes first), the rest is 1/2. Each node's exits are read once, as their lowest
    and highest value for a (all either sweep asks of them), and its inner moves once,
    as a list of layer indices.

    The two sweeps run side by side (one thread each when there are two). The reference
    runs the second after the first and counts the first's nodes (values above 1/2) as
    exits; here the second sees them as unsolved children. Either way such a child
    keeps its parent out of the second sweep: a node of b waits for it (here) or is
    blocked by it (there), and a node of a only takes children below 1/2. And the
    second sweep never reaches a node of the first (a node cannot be forced both above
    and below 1/2), so both give the same values (tests/test_exact_graph.py)."""
    cdef GraphView* g = ls.g
    cdef int32_t prog = gv_prog(g, nodes[0])
    cdef int64_t i, q, k, npred = 0, total = 0
    cdef int32_t u
    cdef int a, two = g.n == 2
    cdef ExactErr rc = EX_OK
    cdef double v
    cdef ExitCtx x
    cdef SweepCtx sw
    cdef int64_t* istart = <int64_t*>malloc((m + 1) * sizeof(int64_t))
    cdef int32_t* inner = NULL
    cdef int64_t* pstart = <int64_t*>calloc(m + 2, sizeof(int64_t))
    cdef int32_t* preds = NULL
    cdef int32_t* innc = <int32_t*>malloc(m * sizeof(int32_t))
    cdef double* exmin = <double*>malloc(m * sizeof(double))
    cdef double* exmax = <double*>malloc(m * sizeof(double))
    cdef int8_t* first_b = <int8_t*>malloc(m)  # the mover is b (resolves first in sweep 1)
    memset(&sw, 0, sizeof(SweepCtx))
    if (istart == NULL or pstart == NULL or innc == NULL or exmin == NULL
            or exmax == NULL or first_b == NULL):
        rc = EX_NOMEM
    if rc == EX_OK:
        for i in range(m):
            u = nodes[i]
            ls.loc[u] = <int32_t>i
            istart[i] = total
            total += g.estart[u + 1] - g.estart[u]
            a = 0 if two else gv_pa(g, u)
            first_b[i] = gv_mover(g, u) != a
        istart[m] = total
        inner = <int32_t*>malloc((total + 1) * sizeof(int32_t))
        if inner == NULL:
            rc = EX_NOMEM
    if rc == EX_OK:
        # each node's exits (lowest and highest value for a) and inner moves
        x.g = g
        x.nodes = nodes
        x.m = m
        x.prog = prog
        x.solved = solved
        x.loc = ls.loc
        x.istart = istart
        x.inner = inner
        x.inner_cnt = innc
        x.exmin = exmin
        x.exmax = exmax
        if ls.threads > 1 and m >= ls.par_min:
            palace_parallel(ls.threads, _exits_task, &x)
        else:
            _exits_range(&x, 0, m)
        # predecessor lists (CSR) over the inner moves
        for i in range(m):
            for k in range(istart[i], istart[i] + innc[i]):
                pstart[inner[k] + 2] += 1
                npred += 1
        for i in range(m):
            pstart[i + 2] += pstart[i + 1]
        preds = <int32_t*>malloc((npred + 1) * sizeof(int32_t))
        if preds == NULL:
            rc = EX_NOMEM
    if rc == EX_OK:
        for i in range(m):
            for k in range(istart[i], istart[i] + innc[i]):
                q = inner[k]
                preds[pstart[q + 1]] = <int32_t>i
                pstart[q + 1] += 1
        free(inner)                 # before the sweeps allocate theirs
        free(istart)
        inner = NULL
        istart = NULL
        sw.m = m
        sw.pstart = pstart
        sw.preds = preds
        sw.innc = innc
        sw.exmin = exmin
        sw.exmax = exmax
        sw.first_b = first_b
        sw.npred = npred
        if ls.threads > 1 and m >= ls.par_min:
            palace_parallel(2, _sweep_task, &sw)
        else:
            _sweep_task(&sw, 0, 2)
            _sweep_task(&sw, 1, 2)
        if sw.err[0] != EX_OK or sw.err[1] != EX_OK:
            rc = EX_NOMEM
    if rc == EX_OK:
        for i in range(m):
            u = nodes[i]
            if sw.state[0][i] == 2:
                v = sw.val[0][i]
            elif sw.state[1][i] == 2:
                v = sw.val[1][i]
            else:
                v = 0.5
            solved[u] = 1
            set_pair(g, u, v)
    for k in range(2):
        free(sw.state[k]); free(sw.val[k])
    free(istart); free(inner); free(pstart); free(preds); free(innc); free(exmin)
    free(exmax); free(first_b)
    return rc


cdef void set_pair(GraphView* g, int32_t u, double v) noexcept nogil:
    """Value of a two-player node: v for the lower player still in, 1 - v for the
    other, 0 for the players out."""
    cdef int n = g.n, j
    if g.nv == 1:
        g.val[u] = v
        return
    for j in range(n):
        g.val[<int64_t>u * n + j] = 0.0
    g.val[<int64_t>u * n + gv_pa(g, u)] = v
    g.val[<int64_t>u * n + gv_pb(g, u)] = 1.0 - v


cdef ExactErr layer_np(LayerSolve* ls, int32_t* nodes, int64_t m,
                       int8_t* solved) noexcept nogil:
    """exact._solve_layer_np: Jacobi sweeps from the draw value until nothing changes or
    MAX_SWEEPS sweeps have run: every node takes, from the previous sweep's values, the
    option with the mover's lowest loss (ties: first in move order).

    The sweep is a map on a finite set (every value is a copy of an exit or of the draw
    value), so when it does not settle it cycles. Brent's method finds the cycle (one
    saved copy, compared exactly): the layer is flagged (np_cycling, np_max_period) and,
    the values after MAX_SWEEPS sweeps being those of a known point of the cycle, only
    the sweeps up to that point are run."""
    cdef GraphView* g = ls.g
    cdef int n = g.n, j
    cdef int32_t prog = gv_prog(g, nodes[0])
    cdef int64_t i, e, nopt = 0, nex = 0, sweep = 0, lam = 1, power = 1, extra = -1
    cdef int64_t period = 0, total = 0
    cdef int32_t u, t
    cdef double* cur = <double*>malloc(m * n * sizeof(double))
    cdef double* nxt = <double*>malloc(m * n * sizeof(double))
    cdef double* saved = <double*>malloc(m * n * sizeof(double))
    cdef double* tmpd
    cdef int64_t* ostart_l = <int64_t*>malloc((m + 1) * sizeof(int64_t))
    cdef int64_t* opt = NULL
    cdef double* exitv = NULL
    cdef JacobiCtx jc
    cdef bint changed, converged = False
    cdef int om
    cdef ExactErr rc = EX_OK
    for i in range(m):
        total += g.estart[nodes[i] + 1] - g.estart[nodes[i]]
    opt = <int64_t*>malloc((total + 1) * sizeof(int64_t))
    exitv = <double*>malloc((total + 1) * n * sizeof(double))
    if (cur == NULL or nxt == NULL or saved == NULL or ostart_l == NULL or opt == NULL
            or exitv == NULL):
        rc = EX_NOMEM
    else:
        # the options: a layer index for an inner move, the value of an exit
        for i in range(m):
            ls.loc[nodes[i]] = <int32_t>i
        for i in range(m):
            u = nodes[i]
            ostart_l[i] = nopt
            for e in range(g.estart[u], g.estart[u + 1]):
                t = g.etgt[e]
                if gv_inner(g, t, prog, solved):
                    opt[nopt] = ls.loc[t]
                else:
                    opt[nopt] = -1 - nex
                    gv_edge_value(g, t, &exitv[nex * n])
                    nex += 1
                nopt += 1
        ostart_l[m] = nopt
        for i in range(m):
            # the draw value: the players still in share the loss
            om = gv_outm(g, nodes[i])
            for j in range(n):
                cur[i * n + j] = 0.0 if (om >> j) & 1 else 1.0 / (n - popcount16(<uint16_t>om))
        memcpy(saved, cur, m * n * sizeof(double))
        jc.g = g
        jc.nodes = nodes
        jc.m = m
        jc.opt = opt
        jc.ostart = ostart_l
        jc.exitv = exitv
        jc.nthreads = ls.threads if (ls.threads > 1 and m >= ls.par_min) else 1
        ls.np_layers += 1
        while sweep < MAX_SWEEPS:
            jc.cur = cur
            jc.nxt = nxt
            if jc.nthreads > 1:
                palace_parallel(jc.nthreads, _jacobi_task, &jc)
            else:
                _jacobi_range(&jc, 0, m)
            changed = memcmp(cur, nxt, m * n * sizeof(double)) != 0
            tmpd = cur
            cur = nxt
            nxt = tmpd
            sweep += 1
            if not changed:
                converged = True
                break
            if extra >= 0:
                extra -= 1
                if extra == 0:
                    break
                continue
            if memcmp(cur, saved, m * n * sizeof(double)) == 0:
                # the values after `sweep` sweeps repeat those lam sweeps earlier: a cycle
                # of period lam; the values after MAX_SWEEPS are those after
                # sweep + (MAX_SWEEPS - sweep) % lam sweeps
                period = lam
                extra = (MAX_SWEEPS - sweep) % lam
                if extra == 0:
                    break
                continue
            if lam == power:
                memcpy(saved, cur, m * n * sizeof(double))
                power *= 2
                lam = 0
            lam += 1
        if not converged:
            ls.np_cycling += 1
            if period > ls.np_max_period:
                ls.np_max_period = <int>period
        if sweep > ls.np_max_sweeps:
            ls.np_max_sweeps = <int>sweep
        for i in range(m):
            u = nodes[i]
            solved[u] = 1
            for j in range(n):
                g.val[<int64_t>u * n + j] = cur[i * n + j]
    free(cur); free(nxt); free(saved); free(ostart_l); free(opt); free(exitv)
    return rc

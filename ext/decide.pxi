# One decision with hidden cards and a draw pile: determinization in C, then the
# depth-limited search of deepen.pxi on each deal (palace_solver/sample/drawsearch.py drives it).
# May use: core.pxi, tt.pxi, chance.pxi, deepen.pxi.
#
# The view. A seat knows its own hand, every face-up card, the pile, the burned cards and
# the hand cards of the others that are public (taken from the pile, ...). The view state
# holds exactly that: each other hand holds its known cards only, and the pool holds every
# card the seat has not seen (face-down cards, the draw pile and the others' unknown hand
# cards); `hidden[q]` says how many hand cards of q are unknown.
#
# A determinization deals hidden[q] cards to each q from that pool, uniformly over the
# physical cards (each draw picks a rank with probability count / cards left), seeded by
# (seed, i). What is left is the pool of face-down cards and the draw pile, as in the real
# state: refills and flips stay chance events of the search (all outcomes when few, sparse
# sampling otherwise: chance.pxi).
#
# The search of a deal: iterative deepening (1, 2, ... decision plies) of DeepSearch, each
# root move with a full window, within an equal share of the node budget (nodes of the
# search plus decisions of its playouts, so the answer is the same on any machine): the next
# iteration starts only when it is predicted to fit (the last one times its growth), and one
# that reaches the share is dropped (the previous one answers). The first iteration always
# completes. An iteration that met neither the horizon nor a sampled chance node is exact;
# deepening stops there.


cdef inline void determinize_view(PState* s, const int* hidden, uint64_t* st) noexcept nogil:
    """Deal hidden[q] cards of the pool to each player q (see the file's comment)."""
    cdef int q, j, r
    for q in range(s.n):
        for j in range(hidden[q]):
            r = pool_pick(s, st)
            s.pool[r] -= 1
            s.pl[q].hand[r] += 1
            s.pl[q].hand_n += 1


def determinize(CState view, hidden, uint64_t seed):
    """One determinization of a view (tests): a CState with hidden[q] cards dealt to q."""
    cdef CState c = view.clone()
    cdef int hid[MAXP]
    cdef uint64_t st = seed
    _hidden_array(view, hidden, hid)
    determinize_view(&c.s, hid, &st)
    return c


def deal_seed(uint64_t seed, int i):
    """The generator seed of deal i of a decision seeded `seed` (tests rebuild the deals)."""
    return seed_mix(seed, <uint64_t>i)


cdef void _hidden_array(CState view, hidden, int* hid) except *:
    cdef int q, total = 0, pool = 0, r
    if len(hidden) != view.s.n:
        raise ValueError(f"{len(hidden)} hidden counts for {view.s.n} players")
    for q in range(view.s.n):
        hid[q] = hidden[q]
        if hid[q] < 0:
            raise ValueError("a negative hidden count")
        total += hid[q]
    for r in range(2, 16):
        pool += view.s.pool[r]
    if total > pool:
        raise ValueError(f"{total} hidden hand cards but only {pool} unseen cards")
    for q in range(view.s.n):
        if view.s.pl[q].hand_n + hid[q] > 255:
            raise ValueError("a hand of more than 255 cards")


cdef class Decider:
    """Determinized depth-limited search for one decision (the file's comment).

    Options (attributes): ``determinizations`` deals per decision, ``nodes`` the node budget
    of the decision (shared equally by the deals), ``chance_width`` outcomes kept per chance
    node (0: all), ``rollouts`` greedy playouts per leaf (0: the horizon evaluation),
    ``max_depth`` deepest iteration, ``hash_mb`` the table of each deal's search.
    """
    cdef DeepSearch search
    cdef public int determinizations, chance_width, rollouts, max_depth
    cdef public bint ordered
    cdef public uint64_t exact_nodes
    cdef public bint stop_at_budget
    cdef public uint64_t nodes
    cdef public double hash_mb

    def __init__(self, int determinizations=8, uint64_t nodes=100_000, int chance_width=3,
                 int rollouts=0, int max_depth=64, double hash_mb=2.0, bint ordered=False,
                 uint64_t exact_nodes=0, bint stop_at_budget=False):
        if determinizations < 1:
            raise ValueError("determinizations must be at least 1")
        self.determinizations = determinizations
        self.nodes = nodes
        self.chance_width = chance_width
        self.rollouts = rollouts
        self.max_depth = max_depth
        self.hash_mb = hash_mb
        self.ordered = ordered
        self.exact_nodes = exact_nodes
        self.stop_at_budget = stop_at_budget
        self.search = None

    cdef object _deepen(self, DeepSearch sr, uint64_t share, int max_depth,
                        double deadline, int* depth_out, bint* exact_out):
        """Iterative deepening of sr within `share` nodes (the file's comment): the last
        finished iteration's [(Move, vector)], or None when even the first could not
        finish (only with a deadline)."""
        cdef int d
        cdef uint64_t used, prev = 0, start, base = sr.nodes + sr.playout_steps
        cdef double growth, left
        last = None
        exact = False
        depth_out[0] = 0
        for d in range(1, max_depth + 1):
            start = sr.nodes + sr.playout_steps
            if last is None:
                sr.node_limit = 0
                res = sr.iterate(d, 0.0)
            else:
                sr.node_limit = base + share
                left = deadline - now_seconds() if deadline > 0 else 0.0
                if deadline > 0 and left <= 0:
                    break
                res = sr.iterate(d, left)
            if res is None:
                break
            exact, last = res
            depth_out[0] = d
            if exact:
                break
            used = sr.nodes + sr.playout_steps - start
            growth = used / <double>prev if prev else 4.0
            if growth < 2.0:
                growth = 2.0
            if sr.nodes + sr.playout_steps - base + used * growth > share:
                break
            prev = used
        sr.node_limit = 0
        exact_out[0] = exact
        return last

    def decide(self, CState view, hidden, uint64_t seed, double seconds=0.0, progress=None):
        """Every legal move's loss vector in each deal of ``view``.

        Returns ``{"deals": [[(Move, [loss per player]), ...] per deal], "depth": [...],
        "exact": [...], "nodes": total, "playout_steps": total, "sampled": chance nodes
        sampled, "evals": leaves}``. ``seconds`` > 0 also stops at that time (then the
        answer depends on the machine): no new deal starts after it, and the deal being
        searched keeps its last finished iteration. ``progress(deals done)`` is called
        every 64 deals.
        """
        cdef int hid[MAXP]
        cdef int i, depth
        cdef bint exact
        cdef CState det = CState.__new__(CState)
        cdef DeepSearch sr
        cdef uint64_t st, share, total_nodes = 0, total_steps = 0
        cdef uint64_t total_sampled = 0, total_evals = 0
        cdef double deadline = now_seconds() + seconds if seconds > 0 else 0.0
        _hidden_array(view, hidden, hid)
        det.rules = view.rules
        if self.search is None or self.search.n != view.s.n or \
                self.search.nw != pack_nwords(&view.s):
            self.search = DeepSearch(view, self.hash_mb)
        sr = self.search
        share = self.nodes // self.determinizations
        if share < 1:
            share = 1
        deals, depths, exacts = [], [], []
        for i in range(self.determinizations):
            if i and progress is not None and i % 64 == 0:
                progress(i)
            if i and deadline > 0 and now_seconds() >= deadline:
                break
            if i and self.stop_at_budget and total_nodes + total_steps >= self.nodes:
                break
            copy_state(&det.s, &view.s)
            st = seed_mix(seed, <uint64_t>i)
            determinize_view(&det.s, hid, &st)
            last = None
            exact = False
            if self.exact_nodes and det.s.draw_pile == 0 and (i == 0 or exacts[0]):
                # Endgame: the deal's whole tree may fit (every chance outcome, the horizon
                # never met): then its values are exact and the main search is skipped. The
                # other deals try only when the first one fitted.
                sr._reset(&det.s)
                sr.chance_width = 0
                sr.rollouts = 0
                sr.chance_seed = seed_mix(seed ^ <uint64_t>0xa5a5a5a5a5a5a5a5ULL, <uint64_t>i)
                last = self._deepen(sr, self.exact_nodes, 200, deadline, &depth, &exact)
                total_nodes += sr.nodes
                total_evals += sr.evals
                if not exact:
                    last = None
            if last is None:
                sr._reset(&det.s)
                sr.chance_width = self.chance_width
                sr.rollouts = self.rollouts
                if self.ordered:
                    sr._order_draws(&st)
                sr.chance_seed = seed_mix(seed ^ <uint64_t>0xa5a5a5a5a5a5a5a5ULL, <uint64_t>i)
                last = self._deepen(sr, share, self.max_depth, deadline, &depth, &exact)
                total_nodes += sr.nodes
                total_steps += sr.playout_steps
                total_sampled += sr.sampled
                total_evals += sr.evals
            deals.append(last)
            depths.append(depth)
            exacts.append(bool(exact))
        return {"deals": deals, "depth": depths, "exact": exacts, "nodes": total_nodes,
                "playout_steps": total_steps, "sampled": total_sampled, "evals": total_evals}

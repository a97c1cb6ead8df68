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
#
# The game's history. A game ends in a draw at its first repeated decision position, and a
# search that does not know the positions already played walks into that draw (or misses
# it when losing). The caller gives the earlier positions as views with their hidden counts
# (the seat's knowledge at the time). Only positions of the same stretch without a refill can
# come back, and in such a stretch a hand's unknown cards only leave it, by plays that show
# them: a view whose hidden counts equal the current ones had the very unknown cards this
# deal gives the players now. So each deal gives those views the same cards, and the search
# scores reaching one as a draw (DeepSearch.set_history). A view with more hidden cards of a
# player is the same position before that player showed some of them (an unknown 3 played,
# picked up, played back and picked up again returns the position with the 3 known): its
# extra unknown cards are those shown since, its pool less the current one, and it gets
# them first. Two players having shown cards since leave that split unknown: such a view
# (three or more players only) is not matched, and a view with fewer hidden cards of a
# player cannot come back.
#
# Inference of the hidden hands. The others' moves say something of their hands: a player
# who picks the pile up rarely held a card to beat it, one who plays a 9 on a 5 rarely held a
# 6. With `infer` > 0 and observations given, infer * determinizations candidate deals are
# dealt uniformly as above, each is weighed by the likelihood of the moves the others made
# under the policy model of policy.pxi (tempered by `infer_temp`), and the deals searched
# are drawn from the candidates in proportion to their weights (systematic resampling), so
# the search's budget goes to the hands that explain the play. The likelihood needs each
# observed player's hand at each observed decision, rebuilt backwards from the hand the
# candidate gives them now: between one of their decisions and the next, their unknown
# cards change only by the unknown cards they played there (known once played: `up`) and
# by the cards they drew after it (unknown: `drawn` of them). So going back over a decision
# adds the cards played and takes away `drawn` cards chosen uniformly among the unknown
# ones (the draws are exchangeable with the cards held before them), which makes each
# weight a random but unbiased estimate of the likelihood. Without observations every
# weight is 1 and the deals are the uniform ones of before, dealt the same way.
#
# Styles. The policy model is fitted on the engine's own play, and a seat may play
# otherwise: the greedy bot, or a person who plays their lowest card and keeps the
# specials, as the bot does. With `infer_greedy` g > 0, each other seat is of the greedy
# style (policy.pxi's pol_greedy_logprob: the bot's move but for a rare slip) with prior
# probability g, else of the model's, the seats independently; a deal's weight is then the
# product over the seats of g L_greedy + (1 - g) L_model, each likelihood tempered. A seat
# whose moves the bot would have made, where the model found them less likely, shifts
# toward the greedy style within a few moves, and the deals consistent with those moves
# take the weight; a seat that strays from the bot's moves keeps the model's weights.
# With `model_styles` (play only), a seat's style is dealt with its hand: in each deal
# searched, a seat is of the greedy style with its share of the chosen candidate's mixed
# likelihood (g L_greedy over the sum), and the deal's search then gives that seat the bot's
# move alone at each of its decisions (DeepSearch.greedy_seats): what beats the seats as
# they play, where the model's seats are searched as minimising their own loss. A seat whose
# hand is known has its style dealt too (its moves still say how it plays), and so the
# deals are dealt even where no card is hidden; the mover's own moves are all searched.


from libc.stdlib cimport calloc, malloc, realloc, free
from libc.math cimport fabs, log1p

cdef uint64_t INFER_SALT = <uint64_t>0x1f83d9abfb41bd6bULL   # candidates' generators
cdef uint64_t STYLE_SALT = <uint64_t>0x5be0cd19137e2179ULL   # the deals' styles


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


def candidate_seed(uint64_t seed, int c):
    """The generator seed of candidate deal c of the inference in a decision seeded
    `seed` (tests rebuild the candidates with determinize)."""
    return seed_mix(seed ^ INFER_SALT, <uint64_t>c)


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


cdef void deal_history(DeepSearch sr, const PState* det, const PState* view,
                       const int* hid, const PState* hist, const int* hhid,
                       int nh, bint revealed) noexcept:
    """The history of one deal (the file's comment): each view in `hist` that can come
    back gets the cards `det` deals on top of `view`, and first, when one other player has
    revealed cards since it (and `revealed` is set), those cards: its pool less the current
    one's."""
    cdef PState c
    cdef int k, q, r, n = view.n, d, more, extra
    cdef bint ok
    sr.nhist = 0
    for k in range(nh):
        ok = True
        more = -1
        for q in range(n):
            d = hhid[k * n + q] - hid[q]
            if d < 0 or (d > 0 and (more >= 0 or not revealed)):
                ok = False        # a hand gained unknown cards, or two revealed some
            elif d > 0:
                more = q
        if not ok:
            continue
        copy_state(&c, &hist[k])
        if more >= 0:
            extra = 0
            for r in range(2, 16):
                d = hist[k].pool[r] - view.pool[r]
                if d < 0:
                    ok = False
                    break
                extra += d
                c.pool[r] -= d
                c.pl[more].hand[r] += d
                c.pl[more].hand_n += d
            if not ok or extra != hhid[k * n + more] - hid[more]:
                continue
        for q in range(n):
            if hid[q] == 0:
                continue
            for r in range(2, 16):
                d = det.pl[q].hand[r] - view.pl[q].hand[r]
                if d <= 0:
                    continue
                if c.pool[r] < d:
                    ok = False
                    break
                c.pool[r] -= d
                c.pl[q].hand[r] += d
                c.pl[q].hand_n += d
        if ok and sr._add_history(&c) < 0:
            return


# The values of a decision, deal by deal, kept in C until the end: `moves` is the union of
# the root moves met (in the order first met), and deal i's values are entries
# start[i] .. start[i+1]-1, each a move's index in `moves` and its n loss values. decide
# turns them into one array (deals x moves x players, NaN where a deal lacks a move).
ctypedef struct DealValues:
    int n                     # players
    int nu                    # moves in `moves`
    CMove moves[MAX_MOVES]
    int nd                    # deals stored
    int ne                    # entries stored
    int cap                   # entries allocated
    int* start                # per deal its first entry (nd + 1 values)
    int* idx                  # per entry the move's index in `moves`
    double* vals              # per entry n values


cdef int dv_init(DealValues* dv, int n, int ndeals) noexcept nogil:
    dv.n = n
    dv.nu = dv.nd = dv.ne = 0
    dv.cap = 16 * ndeals if ndeals > 0 else 16
    dv.start = <int*>malloc((ndeals + 1) * sizeof(int))
    dv.idx = <int*>malloc(dv.cap * sizeof(int))
    dv.vals = <double*>malloc(dv.cap * n * sizeof(double))
    if dv.start == NULL or dv.idx == NULL or dv.vals == NULL:
        return -1
    dv.start[0] = 0
    return 0


cdef void dv_free(DealValues* dv) noexcept nogil:
    free(dv.start)
    free(dv.idx)
    free(dv.vals)
    dv.start = dv.idx = NULL
    dv.vals = NULL


cdef int dv_add(DealValues* dv, const CMove* moves, const double* vals, int nm) noexcept nogil:
    """Store one deal's root moves and values (0, or -1 out of memory)."""
    cdef int j, u, i
    cdef int* ni
    cdef double* nv
    if dv.ne + nm > dv.cap:
        ni = <int*>realloc(dv.idx, 2 * (dv.ne + nm) * sizeof(int))
        if ni == NULL:
            return -1
        dv.idx = ni
        nv = <double*>realloc(dv.vals, 2 * (dv.ne + nm) * dv.n * sizeof(double))
        if nv == NULL:
            return -1
        dv.vals = nv
        dv.cap = 2 * (dv.ne + nm)
    for j in range(nm):
        for u in range(dv.nu):
            if dv.moves[u].kind == moves[j].kind and dv.moves[u].rank == moves[j].rank \
                    and dv.moves[u].count == moves[j].count:
                break
        else:
            u = dv.nu
            dv.moves[u] = moves[j]
            dv.nu += 1
        dv.idx[dv.ne] = u
        for i in range(dv.n):
            dv.vals[dv.ne * dv.n + i] = vals[j * dv.n + i]
        dv.ne += 1
    dv.nd += 1
    dv.start[dv.nd] = dv.ne
    return 0


cdef int dv_copy_deal(DealValues* dv, int k) noexcept nogil:
    """Store deal k's values again as the next deal (a deal met twice)."""
    cdef CMove moves[MAX_MOVES]
    cdef double vals[MAX_MOVES * MAXP]
    cdef int j, e, i, nm = dv.start[k + 1] - dv.start[k]
    for j in range(nm):
        e = dv.start[k] + j
        moves[j] = dv.moves[dv.idx[e]]
        for i in range(dv.n):
            vals[j * dv.n + i] = dv.vals[e * dv.n + i]
    return dv_add(dv, moves, vals, nm)


cdef object dv_array(const DealValues* dv):
    """(moves, values): the Moves and the deals x moves x players array (NaN: the deal had
    no such move, which happens only when the mover's own hand is dealt)."""
    import numpy as np
    arr = np.full((dv.nd, dv.nu, dv.n), np.nan)
    cdef double[:, :, ::1] a = arr
    cdef int d, e, i
    for d in range(dv.nd):
        for e in range(dv.start[d], dv.start[d + 1]):
            for i in range(dv.n):
                a[d, dv.idx[e], i] = dv.vals[e * dv.n + i]
    return [_move_obj(dv.moves[i]) for i in range(dv.nu)], arr


cdef double infer_logw(const PState* det, const PState* view, const int* hid,
                       const PState* obs, const int* ohid, const int* oq, const CMove* om,
                       const uint8_t* oup, const int* odrawn, int nobs,
                       uint64_t* st, double temp, double greedy,
                       double* share) noexcept nogil:
    """The tempered log-likelihood of the observed moves given the hands of `det` (the
    file's comment): obs[j] is the view before observation j (oldest first), ohid its
    hidden counts (n per observation), oq its player, om the move, oup the unknown cards it
    played (16 per observation), odrawn the cards drawn after it. With `greedy` > 0, each
    player is of the greedy style with that probability, else of the model's, and their
    likelihood is the mixture of the two styles' (each tempered); `share` (n entries, or
    NULL) then gets each player's greedy share of their mixed likelihood, the players whose
    hand is known included (their likelihood is the same for every candidate, their style
    is not known); 0 for the mover."""
    cdef int q, j, r, k, total, x, n = view.n
    cdef int u[16]
    cdef double lw = 0.0, lm, lg, glp, a, b
    cdef bint known
    cdef PState c
    for q in range(n):
        if share != NULL:
            share[q] = 0.0
        known = hid[q] == 0
        if known and (share == NULL or greedy <= 0.0 or q == view.to_move):
            continue
        lm = 0.0
        lg = 0.0
        total = 0
        for r in range(16):
            u[r] = det.pl[q].hand[r] - view.pl[q].hand[r]
            total += u[r]
        for j in range(nobs - 1, -1, -1):
            if oq[j] != q:
                continue
            for r in range(2, 16):
                u[r] += oup[j * 16 + r]
                total += oup[j * 16 + r]
            for k in range(odrawn[j]):
                if total <= 0:
                    break
                x = rng_below(st, total)
                for r in range(2, 16):
                    if x < u[r]:
                        u[r] -= 1
                        total -= 1
                        break
                    x -= u[r]
            if total != ohid[j * n + q]:
                break          # not this player's chain of decisions: stop here
            copy_state(&c, &obs[j])
            for r in range(2, 16):
                if c.pool[r] < u[r]:
                    total = -1
                    break
                c.pool[r] -= u[r]
                c.pl[q].hand[r] += u[r]
                c.pl[q].hand_n += u[r]
            if total < 0 or c.to_move != q:
                break
            if greedy > 0.0:
                lm += pol_both_logprob(&c, om[j], &glp)
                lg += glp
            else:
                lw += pol_logprob(&c, om[j])     # (as before the styles, to the last bit)
        if greedy > 0.0:
            a = log(1.0 - greedy) + temp * lm
            b = log(greedy) + temp * lg
            if not known:
                lw += (a if a > b else b) + log1p(exp(-fabs(a - b)))
            if share != NULL:
                share[q] = 1.0 / (1.0 + exp(a - b))
    return lw if greedy > 0.0 else temp * lw


cdef class Decider:
    """Determinized depth-limited search for one decision (the file's comment).

    Options (attributes): ``determinizations`` deals per decision, ``nodes`` the node budget
    of the decision (shared equally by the deals), ``chance_width`` outcomes kept per chance
    node (0: all), ``rollouts`` greedy playouts per leaf (0: the horizon evaluation),
    ``max_depth`` deepest iteration, ``hash_mb`` the table of each deal's search,
    ``contempt`` how much worse than a draw the mover counts a repetition (DeepSearch),
    ``revealed`` match a history view with more hidden cards of one player than now
    (deal_history; off: only views with the current hidden counts), ``paranoid`` (three
    or more players) the paranoid search of each deal (deepen.pxi), ``infer_greedy`` the
    prior that another seat plays the greedy style (the file's comment; 0: the model only),
    ``model_styles`` each deal's seats of that style searched as the bot plays (play only).
    """
    cdef DeepSearch search
    cdef public int determinizations, chance_width, rollouts, max_depth
    cdef public bint ordered
    cdef public uint64_t exact_nodes
    cdef public bint stop_at_budget
    cdef public uint64_t nodes
    cdef public double hash_mb
    cdef public int infer
    cdef public double infer_temp
    cdef public double infer_greedy   # the prior that another seat plays the greedy style
    cdef public bint model_styles     # search a seat dealt the greedy style as the bot plays
    cdef public double contempt
    cdef public bint revealed
    cdef public bint paranoid        # three or more players: DeepSearch's paranoid search
    cdef public bint leaf_cache      # the searches' leaf cache (deepen.pxi); off: tests only

    def __init__(self, int determinizations=8, uint64_t nodes=100_000, int chance_width=3,
                 int rollouts=0, int max_depth=64, double hash_mb=2.0, bint ordered=False,
                 uint64_t exact_nodes=0, bint stop_at_budget=False, int infer=0,
                 double infer_temp=1.0, double contempt=0.0, bint revealed=False,
                 bint paranoid=False, double infer_greedy=0.0, bint model_styles=False):
        if determinizations < 1:
            raise ValueError("determinizations must be at least 1")
        if not 0.0 <= infer_greedy < 1.0:
            raise ValueError(f"infer_greedy {infer_greedy} is outside [0, 1)")
        if not 0.0 <= contempt <= 0.25:
            raise ValueError(f"contempt {contempt} is outside [0, 0.25]")
        self.determinizations = determinizations
        self.nodes = nodes
        self.chance_width = chance_width
        self.rollouts = rollouts
        self.max_depth = max_depth
        self.hash_mb = hash_mb
        self.ordered = ordered
        self.exact_nodes = exact_nodes
        self.stop_at_budget = stop_at_budget
        self.infer = infer
        self.infer_temp = infer_temp
        self.infer_greedy = infer_greedy
        self.model_styles = model_styles
        self.contempt = contempt
        self.revealed = revealed
        self.paranoid = paranoid
        self.leaf_cache = True
        self.search = None

    cdef int _deepen(self, DeepSearch sr, uint64_t share, int max_depth, double deadline,
                     int* depth_out, bint* exact_out, CMove* moves,
                     double* vals) noexcept nogil:
        """Iterative deepening of sr within `share` nodes (the file's comment): the last
        finished iteration's root moves into `moves` and their loss vectors into `vals`;
        returns how many, or -1 when even the first could not finish (only with a
        deadline)."""
        cdef int d, nm, last = -1
        cdef uint64_t used, prev = 0, start, base = sr.nodes + sr.playout_steps
        cdef double growth, left
        cdef CMove cur_moves[MAX_MOVES]
        cdef double cur_vals[MAX_MOVES * MAXP]
        cdef bint exact = False
        depth_out[0] = 0
        for d in range(1, max_depth + 1):
            start = sr.nodes + sr.playout_steps
            if last < 0:
                sr.node_limit = 0
                nm = sr._iterate(d, 0.0, cur_moves, cur_vals)
            else:
                sr.node_limit = base + share
                left = deadline - now_seconds() if deadline > 0 else 0.0
                if deadline > 0 and left <= 0:
                    break
                nm = sr._iterate(d, left, cur_moves, cur_vals)
            if nm < 0:
                break
            exact = not sr.cut
            last = nm
            memcpy(moves, cur_moves, nm * sizeof(CMove))
            memcpy(vals, cur_vals, nm * sr.n * sizeof(double))
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

    def decide(self, CState view, hidden, uint64_t seed, double seconds=0.0, progress=None,
               history=None, observations=None):
        """Every legal move's loss vector in each deal of ``view``.

        Returns ``{"moves": [Move, ...], "values": array (deals x moves x players; NaN
        where a deal has no such move, possible only when the mover's own hand is dealt),
        "depth": [...],
        "exact": [...], "nodes": total, "playout_steps": total, "sampled": chance nodes
        sampled, "evals": leaves, "eval_hits": leaves answered by the leaf cache
        (deepen.pxi), "searched": deals searched (a deal met again reuses its values)}``.
        ``seconds`` > 0 also stops at that time (then the
        answer depends on the machine): no new deal starts after it, and the deal being
        searched keeps its last finished iteration. ``progress(deals done)`` is called
        every 64 deals. ``history``: the game's earlier decision positions as ``(view,
        hidden)`` pairs like the arguments (the file's comment); reaching one is a draw.
        With nothing hidden, no draw pile, every chance outcome kept and no playouts every
        deal is the same: one deal is searched, with the whole budget.
        ``observations``: the others' earlier decisions for the inference of their hands
        (the file's comment), oldest first, each ``(view, hidden, player, move, up,
        drawn)``: the view before it with its hidden counts, the move, the unknown cards it
        played (counts by rank, 16) and the cards the player drew after it; used when
        ``infer`` > 0. The result then has ``"weights"`` (the candidates' normalised
        weights), ``"chosen"`` (the candidate of each deal) and ``"ess"``.
        """
        cdef int hid[MAXP]
        cdef CState det = CState.__new__(CState)
        cdef uint64_t share
        cdef uint64_t totals[6]
        cdef double deadline = now_seconds() + seconds if seconds > 0 else 0.0
        cdef PState* hist = NULL
        cdef int* hhid = NULL
        cdef PState* obs = NULL
        cdef int* ohid = NULL
        cdef int* oq = NULL
        cdef CMove* om = NULL
        cdef uint8_t* oup = NULL
        cdef int* odrawn = NULL
        cdef int nobs = 0, r
        cdef CState ov
        cdef DealValues dv
        cdef int nh = 0, ndeals = self.determinizations, q, total_hidden = 0
        cdef CState hv
        # the seats' styles are dealt even where every hand is known (model_styles), when
        # there are moves to read them from
        cdef bint styled = self.model_styles and self.infer_greedy > 0.0 and self.infer > 0 \
            and bool(observations)
        _hidden_array(view, hidden, hid)
        det.rules = view.rules
        for q in range(view.s.n):
            total_hidden += hid[q]
        if total_hidden == 0 and view.s.draw_pile == 0 and self.rollouts == 0 \
                and self.chance_width == 0 and not styled:
            ndeals = 1
        if self.search is None or self.search.n != view.s.n or \
                self.search.nw != pack_nwords(&view.s):
            self.search = DeepSearch(view, self.hash_mb)
        self.search.contempt = self.contempt
        self.search.paranoid = self.paranoid
        self.search.leaf_cache = self.leaf_cache
        share = self.nodes // ndeals
        if share < 1:
            share = 1
        depths, exacts = [], []
        history = list(history or ())[-HISTMAX:]
        dv.start = dv.idx = NULL
        dv.vals = NULL
        observations = list(observations or ()) if self.infer > 0 and (total_hidden or styled) \
            else []
        infer_out = {}
        try:
            if dv_init(&dv, view.s.n, ndeals) < 0:
                raise MemoryError("decide: no memory for the values")
            if observations:
                k = len(observations)
                obs = <PState*>malloc(k * sizeof(PState))
                ohid = <int*>malloc(k * view.s.n * sizeof(int))
                oq = <int*>malloc(k * sizeof(int))
                om = <CMove*>malloc(k * sizeof(CMove))
                oup = <uint8_t*>malloc(k * 16)
                odrawn = <int*>malloc(k * sizeof(int))
                if not (obs and ohid and oq and om and oup and odrawn):
                    raise MemoryError("decide: no memory for the observations")
                for ov, oh, q, mv, up, dr in observations:
                    if ov.s.n != view.s.n or pack_nwords(&ov.s) != pack_nwords(&view.s):
                        raise ValueError("decide: an observation of another game")
                    _hidden_array(ov, oh, &ohid[nobs * view.s.n])
                    copy_state(&obs[nobs], &ov.s)
                    oq[nobs] = q
                    om[nobs].kind = _KIND_CODE[mv.kind]
                    om[nobs].rank = mv.rank
                    om[nobs].count = mv.count
                    if len(up) != 16:
                        raise ValueError("decide: an observation's played cards are 16 counts")
                    for r in range(16):
                        oup[nobs * 16 + r] = up[r]
                    odrawn[nobs] = dr
                    nobs += 1
            if history:
                hist = <PState*>malloc(len(history) * sizeof(PState))
                hhid = <int*>malloc(len(history) * view.s.n * sizeof(int))
                if hist == NULL or hhid == NULL:
                    raise MemoryError("decide: no memory for the history")
                for hv, hh in history:
                    if hv.s.n != view.s.n or pack_nwords(&hv.s) != pack_nwords(&view.s):
                        raise ValueError("decide: a history position of another game")
                    _hidden_array(hv, hh, &hhid[nh * view.s.n])
                    copy_state(&hist[nh], &hv.s)
                    nh += 1
            self._deals(view, hid, seed, deadline, progress, ndeals, share, det,
                        hist, hhid, nh, &dv, depths, exacts, totals,
                        obs, ohid, oq, om, oup, odrawn, nobs, infer_out)
            moves, values = dv_array(&dv)
        finally:
            dv_free(&dv)
            free(hist)
            free(hhid)
            free(obs)
            free(ohid)
            free(oq)
            free(om)
            free(oup)
            free(odrawn)
        out = {"moves": moves, "values": values, "depth": depths, "exact": exacts,
               "nodes": totals[0],
               "playout_steps": totals[1], "sampled": totals[2], "evals": totals[3],
               "eval_hits": totals[5], "searched": len(depths) - totals[4]}
        out.update(infer_out)
        return out

    cdef _deals(self, CState view, int* hid, uint64_t seed, double deadline, progress,
                int ndeals, uint64_t share, CState det, const PState* hist, const int* hhid,
                int nh, DealValues* dv, list depths, list exacts, uint64_t* totals,
                const PState* obs, const int* ohid, const int* oq, const CMove* om,
                const uint8_t* oup, const int* odrawn, int nobs, dict infer_out):
        """The loop of decide over the deals, after choosing them by inference when
        observations are given; totals: nodes, playout steps, sampled chance nodes,
        leaves."""
        # With every chance outcome kept and no playouts a deal's search is a function of
        # the deal: a deal met before (few unknown cards) reuses its answer.
        cdef bint same_search = self.chance_width == 0 and self.rollouts == 0 \
            and not self.ordered
        cdef PState* cand = NULL
        cdef int* chosen = NULL
        cdef int* styles = NULL
        cdef int ncand = 0
        met = {}
        try:
            if nobs:
                ncand = ndeals * self.infer
                cand = <PState*>malloc(ncand * sizeof(PState))
                chosen = <int*>malloc(ndeals * sizeof(int))
                if cand == NULL or chosen == NULL:
                    raise MemoryError("decide: no memory for the candidate deals")
                if self.infer_greedy > 0.0:
                    styles = <int*>calloc(ndeals, sizeof(int))
                    if styles == NULL:
                        raise MemoryError("decide: no memory for the deals' styles")
                self._infer(view, hid, seed, cand, ncand, chosen, ndeals, obs, ohid, oq, om,
                            oup, odrawn, nobs, infer_out, styles)
                if self.model_styles and same_search and view.s.draw_pile == 0 \
                        and not any(hid[q] for q in range(view.s.n)):
                    # every hand known: the deals differ by their styles alone, and a deal
                    # met before is a copy, so the budget is shared by the distinct ones
                    share = max(1, self.nodes // len({styles[i] for i in range(ndeals)}))
            self._deal_loop(view, hid, seed, deadline, progress, ndeals, share, det, hist,
                            hhid, nh, dv, depths, exacts, totals, cand, chosen,
                            same_search, met, styles if self.model_styles else NULL)
        finally:
            free(cand)
            free(chosen)
            free(styles)

    cdef void _infer(self, CState view, const int* hid, uint64_t seed, PState* cand,
                     int ncand, int* chosen, int ndeals, const PState* obs, const int* ohid,
                     const int* oq, const CMove* om, const uint8_t* oup, const int* odrawn,
                     int nobs, dict infer_out, int* styles) except *:
        """Deal the candidates, weigh them, and choose the deals by systematic resampling
        (the file's comment); with `styles` (ndeals entries), deal each chosen deal's
        seats their styles too (a bit a seat of the greedy style)."""
        cdef int c, i, q, n = view.s.n
        cdef uint64_t st
        cdef double mx = -1e300, tot = 0.0, tot2 = 0.0, u, acc
        cdef double* lw = <double*>malloc(ncand * sizeof(double))
        cdef double* shares = NULL
        if lw == NULL:
            raise MemoryError("decide: no memory for the weights")
        if styles != NULL:
            shares = <double*>calloc(ncand * n, sizeof(double))
            if shares == NULL:
                free(lw)
                raise MemoryError("decide: no memory for the styles' shares")
        try:
            for c in range(ncand):
                copy_state(&cand[c], &view.s)
                st = seed_mix(seed ^ INFER_SALT, <uint64_t>c)
                determinize_view(&cand[c], hid, &st)
                lw[c] = infer_logw(&cand[c], &view.s, hid, obs, ohid, oq, om, oup, odrawn,
                                   nobs, &st, self.infer_temp, self.infer_greedy,
                                   &shares[c * n] if shares != NULL else NULL)
                if lw[c] > mx:
                    mx = lw[c]
            for c in range(ncand):
                lw[c] = exp(lw[c] - mx)
                tot += lw[c]
                tot2 += lw[c] * lw[c]
            st = seed_mix(seed, <uint64_t>0x2545f4914f6cdd1dULL)
            u = (rng_next(&st) >> 11) * (1.0 / 9007199254740992.0) / ndeals
            acc = 0.0
            c = 0
            for i in range(ndeals):
                while c < ncand - 1 and acc + lw[c] / tot <= u + i / <double>ndeals:
                    acc += lw[c] / tot
                    c += 1
                chosen[i] = c
            infer_out["weights"] = [lw[c] / tot for c in range(ncand)]
            infer_out["chosen"] = [chosen[i] for i in range(ndeals)]
            infer_out["ess"] = tot * tot / tot2
            infer_out["observations"] = nobs
            if shares != NULL:
                # each seat's posterior of the greedy style, and each deal's styles
                infer_out["styles"] = [None if q == view.s.to_move
                                       else sum(lw[c] / tot * shares[c * n + q]
                                                for c in range(ncand))
                                       for q in range(n)]
                for i in range(ndeals):
                    st = seed_mix(seed ^ STYLE_SALT, <uint64_t>i)
                    styles[i] = 0
                    for q in range(n):
                        u = (rng_next(&st) >> 11) * (1.0 / 9007199254740992.0)
                        if u < shares[chosen[i] * n + q]:
                            styles[i] |= 1 << q
                infer_out["greedy_seats"] = [styles[i] for i in range(ndeals)]
        finally:
            free(lw)
            free(shares)

    cdef _deal_loop(self, CState view, int* hid, uint64_t seed, double deadline, progress,
                    int ndeals, uint64_t share, CState det, const PState* hist,
                    const int* hhid, int nh, DealValues* dv, list depths, list exacts,
                    uint64_t* totals, const PState* cand, const int* chosen,
                    bint same_search, dict met, const int* styles):
        cdef int i, depth, nm
        cdef CMove moves[MAX_MOVES]
        cdef double vals[MAX_MOVES * MAXP]
        cdef bint exact
        cdef DeepSearch sr = self.search
        cdef uint64_t st
        cdef uint64_t total_nodes = 0, total_steps = 0, total_sampled = 0, total_evals = 0
        cdef uint64_t total_hits = 0
        cdef uint64_t copies = 0
        cdef uint64_t words[MAX_WORDS]
        cdef uint64_t h
        cdef int nw = pack_nwords(&view.s)
        for i in range(ndeals):
            if i and progress is not None and i % 64 == 0:
                progress(i)
            if i and deadline > 0 and now_seconds() >= deadline:
                break
            if i and self.stop_at_budget and total_nodes + total_steps >= self.nodes:
                break
            st = seed_mix(seed, <uint64_t>i)
            if cand != NULL:
                # an inferred deal: the chosen candidate's hands; the draw pile's order (when
                # ordered) from this deal's own generator, so copies of one candidate differ
                copy_state(&det.s, &cand[chosen[i]])
            else:
                copy_state(&det.s, &view.s)
                determinize_view(&det.s, hid, &st)
            sr.greedy_seats = styles[i] if styles != NULL else 0
            if same_search:
                pack_state(&det.s, words)
                # (a deal met before with other styles is searched again)
                h = hash_words(words, nw) ^ (<uint64_t>sr.greedy_seats * STYLE_SALT)
                j = met.get(h)
                if j is not None:
                    if dv_copy_deal(dv, j) < 0:
                        raise MemoryError("decide: no memory for the values")
                    copies += 1
                    depths.append(depths[j])
                    exacts.append(exacts[j])
                    continue
                met[h] = i
            nm = -1
            exact = False
            if self.exact_nodes and det.s.draw_pile == 0 and (i == 0 or exacts[0]):
                # Endgame: the deal's whole tree may fit (every chance outcome, the horizon
                # never met): then its values are exact and the main search is skipped. The
                # other deals try only when the first one fitted.
                sr._reset(&det.s)
                deal_history(sr, &det.s, &view.s, hid, hist, hhid, nh, self.revealed)
                sr.chance_width = 0
                sr.rollouts = 0
                sr.chance_seed = seed_mix(seed ^ <uint64_t>0xa5a5a5a5a5a5a5a5ULL, <uint64_t>i)
                nm = self._deepen(sr, self.exact_nodes, 200, deadline, &depth, &exact,
                                  moves, vals)
                total_nodes += sr.nodes
                total_evals += sr.evals
                total_hits += sr.eval_hits
                if not exact:
                    nm = -1
            if nm < 0:
                sr._reset(&det.s)
                deal_history(sr, &det.s, &view.s, hid, hist, hhid, nh, self.revealed)
                sr.chance_width = self.chance_width
                sr.rollouts = self.rollouts
                if self.ordered:
                    sr._order_draws(&st)
                sr.chance_seed = seed_mix(seed ^ <uint64_t>0xa5a5a5a5a5a5a5a5ULL, <uint64_t>i)
                nm = self._deepen(sr, share, self.max_depth, deadline, &depth, &exact,
                                  moves, vals)
                total_nodes += sr.nodes
                total_steps += sr.playout_steps
                total_sampled += sr.sampled
                total_evals += sr.evals
                total_hits += sr.eval_hits
            if dv_add(dv, moves, vals, nm if nm > 0 else 0) < 0:
                raise MemoryError("decide: no memory for the values")
            depths.append(depth)
            exacts.append(bool(exact))
        totals[0] = total_nodes
        totals[1] = total_steps
        totals[2] = total_sampled
        totals[3] = total_evals
        totals[4] = copies
        totals[5] = total_hits

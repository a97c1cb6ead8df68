# Other Palace programs' AI algorithms, played under this project's rules, so that the
# strength table has anchors that nobody here designed (palace_solver/agents/peers.py drives
# them). Their code was read, not copied; what follows is what it does, and where our rules or
# engine made us choose, what we chose.
# May use: core.pxi (moves, apply, chance), chance.pxi (the generator, pool_pick),
# decide.pxi (determinize_view).
#
# Both agents take the seat's view (the compiled state where every card the seat has not
# seen is in the pool, hidden[q] unknown hand cards of each q: drawsearch.state_view) and
# deal the unknown hand cards with determinize_view. Neither knows the game's history:
# their programs have no repetition rule and keep no list of positions, so the repetition
# draw and the 400-decision cap of a real game (RULES.md, palace match) are met only by the
# game itself, never foreseen. A move is this engine's move (rank and count, a pickup, a
# flip), never a card with a suit: suits do not exist here.
#
# -- server_ismcts: the ISMCTS of brick-codes/palace-server ------------------------------
# Read at e315eeb19087943e35254b4bf7276ae97a0f2afc: palace_server/src/ai/monty/ai.rs
# (`ismcts`, `InformationSet::determine`, `all_moves`, `ucb1`, MontyAi's info-set updates),
# palace_server/src/monte_game.rs (the game the search plays), palace_server/src/game.rs,
# palace_server/src/ai/mod.rs, src/ai_tournament.rs (Monty(0.7, 1000) is the strong entry).
#
#   Tree. One tree per decision over the searcher's information sets: node 0 is the root, a
#     node is keyed by the move sequence from the root (a child by its move among its
#     parent's children), and stores the move, the player who made it, its parent, visits
#     and wins. Chance (in their game, which has no draw pile, only the face-down card
#     flipped; here also refills) does not branch the tree.
#   Determinization. Every iteration shuffles the unseen cards (the deck minus the seat's
#     own hand, every face-up card, every card played, the cards it saw picked up, which it
#     keeps as known in the taker's hand) and fills, in order, every unknown hand slot of
#     every player, then every player's face-down cards (the searcher's own included); the
#     rest is unused. Here: determinize_view deals the hidden hand cards, and the face-down
#     cards and the draw pile stay in the pool, each flip or refill drawing from it as it
#     happens. Along one iteration's single line that is the same distribution as shuffling
#     them all up front (the cards are exchangeable), and it needs no shuffle.
#   One iteration. Descend while the current node has been visited: the legal moves of the
#     determinized state in generation order; the first of them that is not yet a child
#     becomes one (expansion in move order, not at random) and the descent stops there;
#     otherwise, among the children whose move is legal in this determinization, the one of
#     largest UCB1 = wins/visits + c * sqrt(ln(parent visits) / visits), c = 0.7, with the
#     parent's total visits (not the availability count of SO-ISMCTS); ties go to the last
#     child in insertion order (Rust's max_by_key). Then: if that child has no children
#     yet, stop. Rollout: uniformly random legal moves to the end of the game (their move
#     list holds every same-rank group of the zone, legal or not: an illegal one is laid
#     and the pile taken, which is how their game picks up; here it is this engine's legal
#     moves, pickups included). The winner is the player who made the last move (the
#     player whose move ended the game; for a node reached already at the end, the player
#     who moved into it). Backup: every node from the leaf to the root gets a visit, and a
#     win when its mover is the winner (reward 1 or 0).
#   The stop above ("no children yet") fires on every child that has been visited but not
#     expanded, so no node below the root ever gets children: the tree is one level deep,
#     and the search is UCB1 over the root's moves with a fresh deal and a random rollout
#     per simulation. We reproduce that (it is what their program plays); `grow = True`
#     drops the stop, for the many-level ISMCTS their loop was evidently meant to be.
#   Decision. The root child with the most visits (ties to the last one). 1,000
#     simulations a play (2,000 for the face-up choice at the deal, which this project's
#     compiled core does not search: the layout is greedy's, as for every agent here).
#   With three or more players the winner is still the last mover, the player who went out
#     last before one was left: the first player out gets no credit in that simulation. We
#     keep it. Under first_out_wins the game ends at the first out, whose mover wins.
#   Their rollouts have no cap. Random games here are long (about 700 decisions from a full
#     deal, the longest seen under 5,000) but end (tests/test_peers.py checks that none is
#     cut); a rollout is still cut at ROLLOUT_SAFETY decisions, and then nobody wins.
#
# -- mos_uct: the MCTS of trachwo/masters-of-shithead ("DeeperShit") ---------------------
# Read at 56b143d6ae5074d863438bf1996f2e8e2635d747: src/shithead/monte_carlo.py
# (MonteCarlo: make_node, select, expand, simulate, backpropagate, run_search, best_play,
# play_end_game), src/shithead/monte_carlo_node.py (MonteCarloNode, get_ucb1),
# src/shithead/player.py (DeeperShit, SelectMctsThread), src/shithead/state.py (hash,
# simulation_state, get_legal_plays), src/shithead/gui.py (create_players: the GUI's
# "DeepShit" is DeeperShit, the strongest AI offered).
#
#   Tree. A fresh tree per decision (SelectMctsThread builds a new MonteCarlo) over ONE
#     determinized state: a node is keyed by the whole play history leading to it and
#     keeps its own copy of the state, the play into it, visits (n_plays), wins (n_wins),
#     the player to move at its parent (the root: its own player) and one slot per legal
#     play (unexpanded until expanded). The root starts with one visit.
#   Determinization. State.simulation_state: the searcher's hand is known; the others'
#     never-seen hand cards, every face-down card and the burnt cards go back to the
#     talon, which is shuffled and dealt back in the same numbers. In the game itself the
#     GUI gives DeeperShit the true state (it searches the real cards, face-down ones
#     too); play_end_game, their evaluation, gives each player such an assumed state. We
#     take one deal per decision: determinize_view for the hands, then the remaining
#     unseen cards shuffled into a fixed world, the draw pile's order and the order in
#     which each player's face-down cards will come up (their player picks a face-down
#     card by its position; here a flip is random, so the world fixes which comes next).
#     Every flip and refill in the tree and in the rollouts takes its card from that world,
#     so a node's state is a function of its history, as in their tree.
#   One iteration (run_search). Selection from the root while the node is fully expanded
#     and not a leaf: the child of largest UCB1 = wins/visits + sqrt(c * ln(parent
#     visits) / visits), c = 2 INSIDE the root (so it is the textbook sqrt(2 ln N / n)),
#     ties to the first child in legal-move order (strict >). If the selected node's state
#     has a loser (game over), back that up. Otherwise expand one unexpanded play chosen
#     uniformly at random; if that play was the node's only one, the child copies the
#     node's visits and wins and nothing is simulated (their shortcut for forced plays);
#     else a random rollout from the child: uniformly random legal plays until a loser or
#     MOS_ROLLOUT_CAP (1,000) plays (their MAX_SIMULATION_TURNS counts single-card
#     actions; here a move is a whole play, so 1,000 of ours are longer games; from a full
#     deal about one rollout in ten still reaches it). Backup from
#     the node to the root: a visit each, and a win where the player to move at the
#     node's parent is not the loser; an aborted rollout adds visits only.
#   Budget. Their search runs for `timeout` seconds (1.0 for DeeperShit), and at least
#     until every root play is expanded. Here it is a count, so that every machine plays
#     the same game: passes until the tree holds `budget` nodes (and every root play is
#     expanded). benchmarks/peers_speed.py measured how many nodes their Python builds in
#     one CPU second on this machine, which sets the default (palace_solver/agents/
#     peers.py). Nodes, not passes: a pass that selects a finished game expands nothing and
#     costs no rollout, so late in an end game their second held up to 27 times more
#     passes than nodes (21,002 passes, 790 nodes), while the nodes (one rollout each)
#     track the work. When the tree cannot grow to the budget (every line ends soon; rare
#     here, where a voluntary pickup can usually make a line go on), passes stop at
#     `max_passes`, by default 40 x budget: at the default budget about the most passes one
#     of their seconds held.
#   Decision. DeeperShit's default policy 'max': the root child with the highest
#     wins/visits (ties to the first); 'robust' (most visits) is the option.
#   Where it is used. DeeperShit searches only in the end game (talon empty, two players
#     left) and plays TakeShit's hand-written rules before it; those rules are for their
#     game (refill and end-of-turn actions, transparent 3s, 8s that skip) and have no
#     counterpart here, so mos_uct searches every decision (the strength table plays
#     whole games).
#     Forced moves are played without search, as run_search does.

from libc.math cimport log, sqrt
from libc.stdint cimport int16_t, int32_t
from libc.stdlib cimport malloc, realloc, free

cdef enum:
    ROLLOUT_SAFETY = 100000  # server_ismcts: decisions after which a rollout has no winner
    MOS_ROLLOUT_CAP = 1000   # mos_uct: MAX_SIMULATION_TURNS of monte_carlo.py
    FD_MAX = 16              # face-down cards of one player a world can order


cdef inline bint same_move(CMove a, CMove b) noexcept nogil:
    return a.kind == b.kind and a.rank == b.rank and a.count == b.count


cdef void _peer_hidden(CState view, hidden, int* hid) except *:
    """hidden -> hid[], checked against the view (the same checks as decide's)."""
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
    if ps_is_chance(&view.s) or ps_is_terminal(&view.s):
        raise ValueError("a peer searches decision positions only")


# -- server_ismcts ------------------------------------------------------------------------------

ctypedef struct SNode:
    int32_t parent            # -1 at the root
    int32_t first_child       # -1: none (children in insertion order through next_sibling)
    int32_t next_sibling      # -1: the last child
    int32_t last_child        # -1: none (appending in O(1))
    uint32_t sims             # simulations through the node
    uint32_t wins             # of them won by `player`
    CMove move                # the move into the node
    int8_t player             # who made it (-1 at the root)


cdef inline void sample_chance(PState* g, uint64_t* st) noexcept nogil:
    """Resolve pending chance events from the pool (the iteration's deal: file comment)."""
    while ps_is_chance(g):
        apply_chance(g, pool_pick(g, st))


cdef class ServerIsmcts:
    """The ISMCTS of palace-server (file comment): ``sims`` simulations a decision, UCB1
    constant ``c``, ``grow`` drops their one-level stop. After :meth:`choose`: ``nodes`` in
    the tree, ``rollout_steps`` (decisions in rollouts), ``capped`` rollouts cut at
    ROLLOUT_SAFETY, ``longest`` rollout, ``depth`` of the deepest node."""
    cdef SNode* t
    cdef int cap_nodes
    cdef public int sims
    cdef public double c
    cdef public bint grow
    cdef public int nodes, depth, longest
    cdef public uint64_t rollout_steps, capped

    def __init__(self, int sims=1000, double c=0.7, bint grow=False):
        if sims < 1:
            raise ValueError("sims must be at least 1")
        self.sims, self.c, self.grow = sims, c, grow

    def __dealloc__(self):
        free(self.t)

    cdef int _add(self, int parent, CMove m, int player) noexcept nogil:
        cdef int i = self.nodes
        cdef SNode* nd = &self.t[i]
        nd.parent = parent
        nd.first_child = -1
        nd.next_sibling = -1
        nd.last_child = -1
        nd.sims = 0
        nd.wins = 0
        nd.move = m
        nd.player = player
        if parent >= 0:
            if self.t[parent].last_child < 0:
                self.t[parent].first_child = i
            else:
                self.t[self.t[parent].last_child].next_sibling = i
            self.t[parent].last_child = i
        self.nodes += 1
        return i

    cdef int _child(self, int node, CMove m) noexcept nogil:
        cdef int k = self.t[node].first_child
        while k >= 0:
            if same_move(self.t[k].move, m):
                return k
            k = self.t[k].next_sibling
        return -1

    cdef void _iterate(self, const PState* view, const int* hid, uint64_t* st) noexcept nogil:
        cdef PState g
        cdef CMove moves[MAX_MOVES]
        cdef MovePlan mp
        cdef int nm, i, k, cur = 0, best, winner, steps, d = 0
        cdef bint expanded, legal
        cdef double u, bu, lnp
        copy_state(&g, view)
        determinize_view(&g, hid, st)
        while self.t[cur].sims > 0:
            if ps_is_terminal(&g):
                break
            nm = gen_moves(&g, moves)
            expanded = False
            for i in range(nm):
                if self._child(cur, moves[i]) < 0:
                    cur = self._add(cur, moves[i], g.to_move)
                    apply_move(&g, moves[i])
                    sample_chance(&g, st)
                    expanded = True
                    d += 1
                    break
            if expanded:
                break
            best = -1
            bu = 0.0
            lnp = log(<double>self.t[cur].sims)
            k = self.t[cur].first_child
            while k >= 0:
                legal = False
                for i in range(nm):
                    if same_move(self.t[k].move, moves[i]):
                        legal = True
                        break
                if legal:
                    u = self.t[k].wins / <double>self.t[k].sims \
                        + self.c * sqrt(lnp / self.t[k].sims)
                    if best < 0 or u >= bu:
                        best = k
                        bu = u
                k = self.t[k].next_sibling
            cur = best
            apply_move(&g, self.t[cur].move)
            sample_chance(&g, st)
            d += 1
            if not self.grow and self.t[cur].first_child < 0:
                break
        if d > self.depth:
            self.depth = d
        winner = self.t[cur].player
        steps = 0
        while not ps_is_terminal(&g):
            if steps >= ROLLOUT_SAFETY:
                winner = -1
                self.capped += 1
                break
            move_plan(&g, &mp)
            winner = g.to_move
            apply_move(&g, nth_move(&mp, rng_below(st, mp.n)))
            sample_chance(&g, st)
            steps += 1
        self.rollout_steps += steps
        if steps > self.longest:
            self.longest = steps
        while True:
            if winner >= 0 and self.t[cur].player == winner:
                self.t[cur].wins += 1
            self.t[cur].sims += 1
            if cur == 0:
                break
            cur = self.t[cur].parent

    def choose(self, CState view, hidden, uint64_t seed):
        """The move of the search at the view's decision, and the root's
        ``[(Move, visits, wins)]`` in insertion order.

        :raises ValueError: hidden counts that do not fit the view, a chance or end node.
        """
        cdef int hid[MAXP]
        cdef uint64_t st = seed
        cdef int i, k, best
        cdef CMove none
        _peer_hidden(view, hidden, hid)
        free(self.t)
        self.t = <SNode*>malloc((<size_t>self.sims + 1) * sizeof(SNode))
        if self.t == NULL:
            raise MemoryError("server_ismcts: no memory for the tree")
        self.nodes = 0
        self.depth = 0
        self.longest = 0
        self.rollout_steps = 0
        self.capped = 0
        none.kind, none.rank, none.count = 255, 0, 0
        self._add(-1, none, -1)
        with nogil:
            for i in range(self.sims):
                self._iterate(&view.s, hid, &st)
        best = -1
        k = self.t[0].first_child
        root = []
        while k >= 0:
            root.append((_move_obj(self.t[k].move), self.t[k].sims, self.t[k].wins))
            if best < 0 or self.t[k].sims >= self.t[best].sims:
                best = k
            k = self.t[k].next_sibling
        if best < 0:
            raise ValueError("server_ismcts: the root has no move")
        return _move_obj(self.t[best].move), root


# -- mos_uct ------------------------------------------------------------------------------------

ctypedef struct World:
    uint8_t draw[MAXPILE]     # draw[i]: the i-th card drawn from the draw pile of the root
    int draw_n                # the root's draw pile
    uint8_t fd[MAXP][FD_MAX]  # fd[p][i]: the i-th face-down card p turns over
    int fd_n[MAXP]            # p's face-down cards at the root


cdef int world_deal(World* w, const PState* s, uint64_t* st) noexcept nogil:
    """Shuffle the pool of s (a determinized root: the draw pile and the face-down cards)
    into a world. -1 when the pool does not hold exactly those cards."""
    cdef uint8_t cards[MAXPILE]
    cdef int r, k, n = 0, i, j, p, total
    cdef uint8_t tmp
    for r in range(2, 16):
        for k in range(s.pool[r]):
            if n >= MAXPILE:
                return -1
            cards[n] = r
            n += 1
    total = s.draw_pile
    for p in range(s.n):
        if s.pl[p].face_down > FD_MAX:
            return -1
        total += s.pl[p].face_down
    if total != n:
        return -1
    for i in range(n - 1, 0, -1):
        j = rng_below(st, i + 1)
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    k = 0
    w.draw_n = s.draw_pile
    for i in range(s.draw_pile):
        w.draw[i] = cards[k]
        k += 1
    for p in range(s.n):
        w.fd_n[p] = s.pl[p].face_down
        for i in range(s.pl[p].face_down):
            w.fd[p][i] = cards[k]
            k += 1
    return 0


cdef inline void world_chance(PState* g, const World* w) noexcept nogil:
    """Resolve pending chance events from the world (flips and refills are its cards)."""
    cdef int r, p, i
    while ps_is_chance(g):
        r = 0
        if g.pend_kind == PEND_FLIP:
            p = g.pend_player
            i = w.fd_n[p] - g.pl[p].face_down
            if 0 <= i < w.fd_n[p]:
                r = w.fd[p][i]
        else:
            i = w.draw_n - g.draw_pile
            if 0 <= i < w.draw_n:
                r = w.draw[i]
        # (a world deals the pool exactly, so r is always there; the guard keeps a bad world
        # from corrupting the pool)
        if r == 0 or not g.pool[r]:
            r = 0
            for i in range(2, 16):
                if g.pool[i]:
                    r = i
                    break
        apply_chance(g, r)


ctypedef struct MNode:
    int32_t parent            # -1 at the root
    int32_t slots             # first of nm child slots in MosUct.slot (-1 = unexpanded)
    uint32_t n_plays          # visits
    uint32_t n_wins           # wins of parent_player through this node
    int16_t nm                # legal moves at the node (0: the game is over)
    int16_t nexp              # children expanded so far
    int8_t parent_player      # player to move at the parent (the root: its own)
    CMove move                # the move into the node


cdef class MosUct:
    """The MCTS of masters-of-shithead's DeeperShit (file comment): passes of run_search's
    loop until the tree holds ``budget`` nodes (at most ``max_passes``, 0: 40 x budget),
    UCB1 constant ``c`` (inside the root), rollouts capped at ``rollout_cap`` moves,
    ``robust`` picks the most visited root child instead of the best mean. After
    :meth:`choose`: ``nodes``, ``passes``, ``rollout_steps``, ``aborted`` rollouts,
    ``terminal`` passes that ended at a finished game."""
    cdef MNode* t
    cdef PState* states
    cdef int32_t* slot
    cdef int cap_nodes, nslots, cap_slots
    cdef World w
    cdef public int budget, max_passes, rollout_cap
    cdef public double c
    cdef public bint robust
    cdef public int nodes, passes
    cdef public uint64_t rollout_steps, aborted, terminal

    def __init__(self, int budget=513, double c=2.0, int rollout_cap=MOS_ROLLOUT_CAP,
                 bint robust=False, int max_passes=0):
        if budget < 1:
            raise ValueError("the node budget must be at least 1")
        if rollout_cap < 1:
            raise ValueError("rollout_cap must be at least 1")
        if max_passes < 0:
            raise ValueError("max_passes must be at least 0")
        self.budget, self.c = budget, c
        self.rollout_cap, self.robust = rollout_cap, robust
        self.max_passes = max_passes

    def __dealloc__(self):
        free(self.t)
        free(self.states)
        free(self.slot)

    cdef int _add(self, int parent, CMove m, int parent_player) noexcept nogil:
        """A node for self.states[self.nodes] (already written); -1 without memory."""
        cdef int i = self.nodes, k
        cdef CMove moves[MAX_MOVES]
        cdef MNode* nd = &self.t[i]
        cdef int32_t* grown
        nd.parent = parent
        nd.n_plays = 0
        nd.n_wins = 0
        nd.nexp = 0
        nd.parent_player = parent_player
        nd.move = m
        nd.nm = gen_moves(&self.states[i], moves)
        nd.slots = -1
        if nd.nm:
            if self.nslots + nd.nm > self.cap_slots:
                k = 2 * self.cap_slots + nd.nm
                grown = <int32_t*>realloc(self.slot, k * sizeof(int32_t))
                if grown == NULL:
                    return -1
                self.slot = grown
                self.cap_slots = k
            nd.slots = self.nslots
            for k in range(nd.nm):
                self.slot[self.nslots + k] = -1
            self.nslots += nd.nm
        self.nodes += 1
        return i

    cdef double _ucb1(self, int k, double ln_parent) noexcept nogil:
        cdef MNode* nd = &self.t[k]
        if nd.n_plays == 0:
            return 0.0
        return nd.n_wins / <double>nd.n_plays + sqrt(self.c * ln_parent / nd.n_plays)

    cdef void _backup(self, int node, const double* loss, bint ok) noexcept nogil:
        while node >= 0:
            self.t[node].n_plays += 1
            if ok and loss[self.t[node].parent_player] == 0.0:
                self.t[node].n_wins += 1
            node = self.t[node].parent

    cdef int _iterate(self, uint64_t* st) noexcept nogil:
        """One pass of run_search's loop; -1 without memory."""
        cdef int node = 0, i, k, best, j, child
        cdef double u, bu, lnp
        cdef double loss[MAXP]
        cdef CMove moves[MAX_MOVES]
        cdef MovePlan mp
        cdef PState g
        cdef MNode* nd
        cdef bint ok
        cdef int steps, nm
        # selection: while fully expanded and not a leaf
        while self.t[node].nm and self.t[node].nexp == self.t[node].nm:
            nd = &self.t[node]
            lnp = log(<double>nd.n_plays)
            best = -1
            bu = 0.0
            for i in range(nd.nm):
                k = self.slot[nd.slots + i]
                u = self._ucb1(k, lnp)
                if best < 0 or u > bu:
                    best = k
                    bu = u
            node = best
        nd = &self.t[node]
        if nd.nm == 0:
            # the game is over at this node: back its loser up, nothing expanded
            terminal_loss(&self.states[node], loss)
            self._backup(node, loss, True)
            self.terminal += 1
            return 0
        # expansion: an unexpanded play chosen uniformly at random
        j = rng_below(st, nd.nm - nd.nexp)
        for i in range(nd.nm):
            if self.slot[nd.slots + i] < 0:
                if j == 0:
                    break
                j -= 1
        gen_moves(&self.states[node], moves)
        copy_state(&self.states[self.nodes], &self.states[node])
        apply_move(&self.states[self.nodes], moves[i])
        world_chance(&self.states[self.nodes], &self.w)
        child = self._add(node, moves[i], self.states[node].to_move)
        if child < 0:
            return -1
        nd = &self.t[node]  # (still valid: the node array does not move)
        self.slot[nd.slots + i] = child
        nd.nexp += 1
        if nd.nm == 1:
            # the node's only play: the child takes the node's statistics, no rollout
            self.t[child].n_plays = nd.n_plays
            self.t[child].n_wins = nd.n_wins
            return 0
        # simulation: uniformly random plays until the game ends or the cap
        copy_state(&g, &self.states[child])
        steps = 0
        while not ps_is_terminal(&g) and steps < self.rollout_cap:
            move_plan(&g, &mp)
            apply_move(&g, nth_move(&mp, rng_below(st, mp.n)))
            world_chance(&g, &self.w)
            steps += 1
        self.rollout_steps += steps
        ok = ps_is_terminal(&g)
        if ok:
            terminal_loss(&g, loss)
        else:
            self.aborted += 1
        self._backup(child, loss, ok)
        return 0

    def choose(self, CState view, hidden, uint64_t seed):
        """The move of the search at the view's decision, and the root's
        ``[(Move, visits, wins)]`` in legal-move order.

        :raises ValueError: hidden counts that do not fit the view, a chance or end node.
        """
        cdef int hid[MAXP]
        cdef uint64_t st = seed
        cdef int i, k, best, cap, bad = 0
        cdef long passes_cap = self.max_passes if self.max_passes else 40 * <long>self.budget
        cdef double v, bv
        cdef CMove none
        _peer_hidden(view, hidden, hid)
        cap = self.budget + MAX_MOVES + 2
        free(self.t)
        free(self.states)
        free(self.slot)
        self.t = <MNode*>malloc(<size_t>cap * sizeof(MNode))
        self.states = <PState*>malloc(<size_t>cap * sizeof(PState))
        self.cap_slots = 4 * cap
        self.slot = <int32_t*>malloc(<size_t>self.cap_slots * sizeof(int32_t))
        if self.t == NULL or self.states == NULL or self.slot == NULL:
            raise MemoryError("mos_uct: no memory for the tree")
        self.nodes = 0
        self.nslots = 0
        self.passes = 0
        self.rollout_steps = 0
        self.aborted = 0
        self.terminal = 0
        copy_state(&self.states[0], &view.s)
        determinize_view(&self.states[0], hid, &st)
        if world_deal(&self.w, &self.states[0], &st) < 0:
            raise ValueError("mos_uct: the unseen cards are not the draw pile and the "
                             "face-down cards")
        none.kind, none.rank, none.count = 255, 0, 0
        if self._add(-1, none, self.states[0].to_move) < 0:
            raise MemoryError("mos_uct: no memory for the tree")
        self.t[0].n_plays = 1
        with nogil:
            # (each pass adds at most one node, and the root is expanded in its first
            # passes, so the tree stays within cap)
            while (self.nodes < self.budget and self.passes < passes_cap
                   or self.t[0].nexp < self.t[0].nm) and self.nodes < cap:
                if self._iterate(&st) < 0:
                    bad = 1
                    break
                self.passes += 1
        if bad:
            raise MemoryError("mos_uct: no memory for the tree")
        best = -1
        bv = 0.0
        root = []
        for i in range(self.t[0].nm):
            k = self.slot[self.t[0].slots + i]
            if k < 0:
                continue
            root.append((_move_obj(self.t[k].move), self.t[k].n_plays, self.t[k].n_wins))
            v = self.t[k].n_plays if self.robust else \
                self.t[k].n_wins / <double>self.t[k].n_plays
            if best < 0 or v > bv:
                best = k
                bv = v
        if best < 0:
            raise ValueError("mos_uct: the root has no move")
        return _move_obj(self.t[best].move), root

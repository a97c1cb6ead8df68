# A policy model of the other seats: how likely a player was to make each legal move, for the
# inference of hidden hands (decide.pxi weighs each deal by how well it explains the moves
# the others made). palace_solver/learn/policy.py fits it on the engine's own games.
# May use: core.pxi (moves, the state), chance.pxi (the greedy bot's move).
# Beside the model, the greedy style (pol_greedy_logprob): the greedy bot's move but for a
# rare slip, the other style decide.pxi's inference can take a seat for (`infer_greedy`).
#
# Why this shape. Inference needs the probability of a move a player made, given what that
# player knew: their own hand, the table and the public counts, never the other hands. So
# the model reads only those, and it must be cheap, because it is evaluated for every
# observed decision of every candidate deal. A conditional logit over move features does:
# P(m | s) = exp(theta . phi(s, m)) / sum over legal m' of exp(theta . phi(s, m')), with
# phi(s, m) a few dozen numbers about the move relative to the mover's own cards and the
# pile (features that do not depend on the move cancel in the softmax, so every feature
# is a move feature or a move feature times a fact of the position).
#
# phi (POL_NF values), for the mover p, its source (the hand if it holds cards, else the
# face-up cards), the rank to beat and the legal moves:
#   0 pickup            1 pickup laying a face-up card first      2 flip
#   3..16 a play of rank 2..15 (one-hot)    17 cards played    18 the play empties that rank
#   19 the play burns (a burning rank, or four of a rank with the top run)
#   20 the lowest legal rank that is not special   21 the highest legal rank not special
#   22 a special rank (burns, transparent, or resets: anything can follow it)
#   23 (rank - rank to beat) / 13 for a play of a rank that is not special
#   24 pickup x draw pile holds cards   25 pickup x pile size / 10   26 pickup x hand / 10
#   27 pickup while a play is legal     28 special x draw pile holds cards
#   29 a play from the face-up cards    30 the play empties the source
#   31 pickup x fewest cards left among the others / 10
#   32 cards played x draw pile holds cards   33 a play that leaves the player out
#   34 the greedy bot's move

from libc.math cimport exp, log

cdef enum:
    POL_NF = 35

cdef double POL_W[POL_NF]
cdef bint POL_READY = False


cdef inline bint pol_special(const PState* s, int r) noexcept nogil:
    return ((s.r.burn_mask >> r) & 1) or ((s.r.transp_mask >> r) & 1) \
        or s.r.play_mask[r] == s.r.play_mask[0]


cdef void pol_features(const PState* s, const CMove* moves, int nm, float* x) noexcept nogil:
    """phi of each legal move (nm x POL_NF, row i for moves[i]); s is a decision."""
    cdef int p = s.to_move, i, r, k, lo = 0, hi = 0, left = 0, q, fewest = 255, c
    cdef const PPlayer* pl = &s.pl[p]
    cdef const uint8_t* cnt
    cdef int src_n
    cdef bint any_play = False, drawing = s.draw_pile > 0
    cdef float* row
    cdef CMove g = greedy_move(s, moves, nm)
    if pl.hand_n:
        cnt = pl.hand
        src_n = pl.hand_n
    else:
        cnt = pl.up
        src_n = pl.up_n
    for i in range(nm):
        if moves[i].kind == MK_PLAY:
            any_play = True
            r = moves[i].rank
            if not pol_special(s, r):
                if lo == 0 or r < lo:
                    lo = r
                if r > hi:
                    hi = r
    for q in range(s.n):
        if q != p and not ((s.out_mask >> q) & 1):
            c = s.pl[q].hand_n + s.pl[q].up_n + s.pl[q].face_down
            if c < fewest:
                fewest = c
    if fewest == 255:
        fewest = 0
    for i in range(nm):
        row = &x[i * POL_NF]
        memset(row, 0, POL_NF * sizeof(float))
        r, k = moves[i].rank, moves[i].count
        if moves[i].kind == g.kind and r == g.rank and k == g.count:
            row[34] = 1.0
        if moves[i].kind == MK_FLIP:
            row[2] = 1.0
        elif moves[i].kind == MK_PICKUP:
            row[0] = 1.0
            row[1] = 1.0 if r else 0.0
            row[24] = 1.0 if drawing else 0.0
            row[25] = s.pile_n / 10.0
            row[26] = pl.hand_n / 10.0
            row[27] = 1.0 if any_play else 0.0
            row[31] = fewest / 10.0
        else:
            row[3 + r - 2] = 1.0
            row[17] = k
            row[18] = 1.0 if k == cnt[r] else 0.0
            row[19] = 1.0 if ((s.r.burn_mask >> r) & 1) or (
                not (s.r.flags & RF_NO_FOUR_BURN)
                and (k >= 4 or (s.top == r and s.run + k >= 4))) else 0.0
            if pol_special(s, r):
                row[22] = 1.0
                row[28] = 1.0 if drawing else 0.0
            else:
                row[20] = 1.0 if r == lo else 0.0
                row[21] = 1.0 if r == hi else 0.0
                row[23] = (r - s.beat) / 13.0
            row[29] = 0.0 if pl.hand_n else 1.0
            row[30] = 1.0 if k == src_n else 0.0
            row[32] = k if drawing else 0.0
            left = pl.hand_n + pl.up_n + pl.face_down - k
            row[33] = 1.0 if left == 0 and not drawing else 0.0


cdef int pol_find(const CMove* moves, int nm, CMove m) noexcept nogil:
    """The index of m among the legal moves, -1 when it is not one of them."""
    cdef int i, hit = -1
    for i in range(nm):
        if moves[i].kind == m.kind and moves[i].rank == m.rank and moves[i].count == m.count:
            hit = i
    return hit


cdef double pol_model_lp(const PState* s, CMove* moves, int nm, int hit) noexcept nogil:
    """log P(moves[hit] | s) under the loaded model, the legal moves already generated."""
    cdef float x[MAX_MOVES * POL_NF]
    cdef double z[MAX_MOVES]
    cdef double mx = -1e300, tot = 0.0
    cdef int i, j
    pol_features(s, moves, nm, x)
    for i in range(nm):
        z[i] = 0.0
        for j in range(POL_NF):
            z[i] += POL_W[j] * x[i * POL_NF + j]
        if z[i] > mx:
            mx = z[i]
    for i in range(nm):
        tot += exp(z[i] - mx)
    return z[hit] - mx - log(tot)


cdef double pol_logprob(const PState* s, CMove m) noexcept nogil:
    """log P(m | s) under the loaded model (0 when the move is forced or not legal here:
    a move that could not be made explains nothing, and the caller checks legality)."""
    cdef CMove moves[MAX_MOVES]
    cdef int nm = gen_moves(s, moves), hit
    if nm < 2:
        return 0.0
    hit = pol_find(moves, nm, m)
    if hit < 0:
        return 0.0
    return pol_model_lp(s, moves, nm, hit)


#: A seat that plays like the greedy bot (decide.pxi's mixture of styles, `infer_greedy`):
#: the bot's move but for a slip this likely, spread over every legal move, so that a deal
#: one observed move of theirs contradicts keeps a little weight.
cdef double GREEDY_SLIP = 0.02


cdef double pol_greedy_lp(const PState* s, CMove* moves, int nm, CMove m) noexcept nogil:
    """log P(m | s) for the greedy style, m legal and the legal moves already generated."""
    cdef CMove g = greedy_move(s, moves, nm)
    if g.kind == m.kind and g.rank == m.rank and g.count == m.count:
        return log(1.0 - GREEDY_SLIP + GREEDY_SLIP / nm)
    return log(GREEDY_SLIP / nm)


cdef double pol_greedy_logprob(const PState* s, CMove m) noexcept nogil:
    """log P(m | s) for a player of the greedy style: (1 - GREEDY_SLIP) on the greedy bot's
    move, GREEDY_SLIP shared equally by every legal move (0 when the move is forced or not
    legal here, as pol_logprob)."""
    cdef CMove moves[MAX_MOVES]
    cdef int nm = gen_moves(s, moves)
    if nm < 2 or pol_find(moves, nm, m) < 0:
        return 0.0
    return pol_greedy_lp(s, moves, nm, m)


cdef double pol_both_logprob(const PState* s, CMove m, double* greedy_lp) noexcept nogil:
    """pol_logprob(s, m), and pol_greedy_logprob(s, m) into *greedy_lp, from one generation
    of the legal moves (the inference reads both for every observed move of every deal)."""
    cdef CMove moves[MAX_MOVES]
    cdef int nm = gen_moves(s, moves), hit
    greedy_lp[0] = 0.0
    if nm < 2:
        return 0.0
    hit = pol_find(moves, nm, m)
    if hit < 0:
        return 0.0
    greedy_lp[0] = pol_greedy_lp(s, moves, nm, m)
    return pol_model_lp(s, moves, nm, hit)


POLICY_FEATURES = POL_NF
GREEDY_STYLE_SLIP = GREEDY_SLIP


def policy_features(CState c):
    """``(moves, features)`` of a decision position: its legal moves and phi of each, a
    list of POLICY_FEATURES floats per move (the module comment), for the fit."""
    cdef CMove moves[MAX_MOVES]
    cdef float x[MAX_MOVES * POL_NF]
    cdef int nm = gen_moves(&c.s, moves), i, j
    pol_features(&c.s, moves, nm, x)
    return ([_move_obj(moves[i]) for i in range(nm)],
            [[x[i * POL_NF + j] for j in range(POL_NF)] for i in range(nm)])


def load_policy_weights(theta):
    """Load the model's POLICY_FEATURES coefficients (a sequence of floats)."""
    global POL_READY
    theta = [float(t) for t in theta]
    if len(theta) != POL_NF:
        raise ValueError(f"policy: {len(theta)} coefficients, {POL_NF} expected")
    for j in range(POL_NF):
        POL_W[j] = theta[j]
    POL_READY = True


def unload_policy_weights():
    """No model: the inference is off until one is loaded (a network without one)."""
    global POL_READY
    POL_READY = False


def policy_loaded():
    return bool(POL_READY)


def policy_logprob(CState c, move):
    """log P(move | c) under the loaded model (0 for a forced move)."""
    cdef CMove m
    m.kind = _KIND_CODE[move.kind]
    m.rank = move.rank
    m.count = move.count
    return pol_logprob(&c.s, m)


def greedy_style_logprob(CState c, move):
    """log P(move | c) for a player of the greedy style (0 for a forced move)."""
    cdef CMove m
    m.kind = _KIND_CODE[move.kind]
    m.rank = move.rank
    m.count = move.count
    return pol_greedy_logprob(&c.s, m)

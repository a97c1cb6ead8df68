# cython: language_level=3
# Declarations of the compiled core: rule flags, the packed state, moves, the table.
#
# One compilation unit: _engine.pyx includes core.pxi (state, move generator, chance,
# pack/unpack, hash), tt.pxi (transposition table) and, later, exact.pxi (the solver),
# which calls the C-level API below directly.
#
# C-level API (stable; all functions are `noexcept nogil`, defined in core.pxi / tt.pxi):
#
#   int  gen_moves(const PState* s, CMove* out)
#        Legal moves of the player to move, at most MAX_MOVES, in the order of
#        State.legal_moves: plays by rank value (2..15) then count ascending, then the
#        pickup(s). 0 at chance and terminal nodes.
#   void apply_move(PState* s, CMove m)
#        Applies a legal move (unchecked). A flip, and a play that refills from a non-empty
#        draw pile, leave the state at a pending chance event (to_move == TM_CHANCE).
#   int  chance_outcomes(const PState* s, int* ranks, int* weights)
#        Number of outcomes (at most 14); ranks ascending, weights = unseen-pool counts;
#        P(rank) = weight / sum(weights).
#   void apply_chance(PState* s, int rank)
#   bint ps_is_chance(const PState* s), ps_is_terminal(const PState* s)
#   int  ps_player(const PState* s)          player to move, TM_CHANCE or TM_TERMINAL
#   int  terminal_loser(const PState* s)     loser index; -1 under first_out_wins, where
#        s.winner went out first and every other player has loss 1/(n-1)
#   void terminal_loss(const PState* s, double* loss)   n loss shares (terminal only)
#   int  pack_nwords(const PState* s)        words of a packed state (fixed per rules and n)
#   int  pack_state(const PState* s, uint64_t* words)   -> nwords; words equal iff the
#        Python State.key() of the two states are equal (see "Packed layout" in core.pxi)
#   void unpack_state(const uint64_t* words, int nwords, PState* s)
#        s must already carry the rules (s.r) and s.n (e.g. a copy of the root); every other
#        field is rebuilt. Fields the key ignores come back canonical: out_order lists the
#        out players by index, last_player is -1 unless back_to_last_player, next_after is 0
#        without a pending event, direction is +1 with two players.
#   uint64_t hash_words(const uint64_t* words, int n)   64-bit mix of packed words
#   void copy_state(PState* dst, const PState* src)     copies only the n used players
#   TT: tt_init / tt_free / tt_clear / tt_new_search / tt_probe / tt_store (see tt.pxi)

from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    MAXP = 12            # players (two decks seat at most 11)
    NR = 16              # counts indexed by rank 2..15 (0, 1 unused), as cards.NRANK
    MAXPILE = 112        # pile sequence capacity (108 cards at most in any deck)
    MAX_MOVES = 160      # gen_moves output capacity (sum of counts + one pickup per rank)
    MAX_WORDS = 48       # pack_state output capacity (12 players + lenient pile fit)
    MAXV = 6             # loss values per TT entry (players)

# The learned evaluation (evaluate.pxi): input sizes and the horizon evaluation's modes.
cdef enum:
    EV_PB = 37           # values of one player's block
    EV_SEAT = 6          # seat one-hot (places 0..5 from the player to move)
    EV_PUB = 90          # values of the public block
    EV_IN = 207          # one player's input row: 3 * EV_PB + EV_SEAT + EV_PUB
    EV_HMAX = 128        # largest hidden layer the compiled network takes
    EV_CARDCOUNT = 0     # horizon_eval: softmax of the cards left (deepen.pxi)
    EV_LEARNED = 1       #   the network of evaluate.pxi
    EV_AUTO = 2          #   the network while the draw pile holds cards, else the card count

# Rule switches, bit i of PRules.flags = palace_solver.game.rules.VARIANTS[i].
cdef enum:
    RF_MUST_PLAY = 1 << 0
    RF_EASY_TABLE_PICKUP = 1 << 1
    RF_NO_FOUR_BURN = 1 << 2
    RF_RESTRICTED_TENS = 1 << 3
    RF_ACES_BURN = 1 << 4
    RF_KINGS_BURN = 1 << 5
    RF_SEVEN_LOW = 1 << 6
    RF_FIVE_LOW = 1 << 7
    RF_INVISIBLE_8 = 1 << 8
    RF_INVISIBLE_3 = 1 << 9
    RF_EIGHT_REVERSES = 1 << 10
    RF_EIGHT_SKIPS = 1 << 11
    RF_JACK_REVERSES = 1 << 12
    RF_JOKERS = 1 << 13
    RF_TWO_DECKS = 1 << 14
    RF_FOUR_CARDS = 1 << 15
    RF_CHOOSE_FACE_UP = 1 << 16
    RF_BACK_TO_LAST_PLAYER = 1 << 17
    RF_START_CARD = 1 << 18
    RF_FIRST_OUT_WINS = 1 << 19
    RF_LENIENT_BLIND = 1 << 20

# to_move codes (same values as palace_solver.game.state.CHANCE / TERMINAL).
cdef enum:
    TM_CHANCE = -1
    TM_TERMINAL = -4

# Pending chance event kinds (game/state.py `pending[0]`).
cdef enum:
    PEND_NONE = 0
    PEND_DRAW = 1        # ("draw", player, count): refill after a play
    PEND_FLIP = 2        # ("flip", player, 1): a face-down card turned over
    PEND_START = 3       # ("start", 0, 1): start_card, first card of the pile

# Move kinds.
cdef enum:
    MK_PLAY = 0
    MK_PICKUP = 1
    MK_FLIP = 2


# The rule set after the deal, built from a palace_solver.game.rules.Rules by rules_to_flags()
# in _engine.pyx: every per-rank mask is computed by calling the Rules methods themselves.
ctypedef struct PRules:
    uint32_t flags            # RF_* bits, one per variant switch
    uint16_t burn_mask        # bit r: rank r burns the pile by itself (Rules.burns)
    uint16_t transp_mask      # bit r: rank r is transparent (Rules.transparent)
    uint16_t rev_mask         # bit r: rank r reverses the direction (Rules.reverses)
    uint16_t skip_mask        # bit r: rank r skips the next player(s) (Rules.skips)
    uint16_t play_mask[16]    # [beat]: bit r set when one card r is legal with rank to beat
                              #   `beat` (0 = empty pile / only transparent cards)
    uint8_t zone              # refill target = Rules.zone_size (3, 4 with four_cards)
    uint8_t nranks            # ranks packed per count vector: 13, 14 with jokers


# A move. kind MK_PLAY: `count` cards of `rank` from the source; MK_PICKUP: rank 0 takes the
# pile, rank r > 0 first lays the face-up r (face-up stage); MK_FLIP: rank = count = 0.
ctypedef struct CMove:
    uint8_t kind              # MK_PLAY / MK_PICKUP / MK_FLIP
    uint8_t rank              # 2..15, or 0
    uint8_t count             # cards played (MK_PLAY), else 0


# One player's zones. hand/up are counts per rank (index 2..15); *_n cache their sums.
ctypedef struct PPlayer:
    uint8_t hand[16]          # hand counts by rank
    uint8_t up[16]            # face-up counts by rank
    uint8_t hand_n            # sum(hand)
    uint8_t up_n              # sum(up)
    uint8_t face_down         # face-down cards (ranks unknown: they are in the pool)
    uint8_t _pad


# A PLAY-phase position (decision, pending chance or terminal). Players sit last so that
# copy_state copies only offsetof(pl) + n * sizeof(PPlayer) bytes.
ctypedef struct PState:
    PRules r                  # the rule set (copied with the state; never changes)
    int8_t n                  # players
    int8_t to_move            # player 0..n-1, TM_CHANCE or TM_TERMINAL
    int8_t direction          # +1 / -1
    int8_t last_player        # who laid the last played card on the pile, -1 = None
    int8_t pend_kind          # PEND_* of the pending chance event
    int8_t pend_player        # its player (0 when none)
    int8_t pend_count         # cards still to draw (1 for flip/start, 0 when none)
    int8_t next_after         # who moves once the pending draws are done (game/state.py keeps a
                              #   stale value after them; the key reads it while pending)
    int8_t loser              # terminal: loser index; -1 under first_out_wins or in play
    int8_t winner             # terminal under first_out_wins: the player out; else -1
    int8_t n_out              # players out so far
    int8_t out_order[MAXP]    # the order they went out in
    uint16_t out_mask         # bit p: player p is out
    uint8_t draw_pile         # cards in the draw pile (their ranks are in the pool)
    uint8_t pile_n            # cards on the pile
    uint8_t top               # top rank of the pile, 0 = empty
    uint8_t run               # cards of the top rank together on top, capped at 3
    uint8_t beat              # rank to beat: top non-transparent card, 0 = none
    uint8_t pile[16]          # pile counts by rank
    uint8_t pool[16]          # unseen counts by rank (draw pile + every face-down card)
    uint8_t seq[MAXPILE]      # pile bottom first, kept only under lenient_blind
    PPlayer pl[MAXP]          # per player zones (only the first n are meaningful)


# Transposition table slot header (tt.pxi), 16 bytes so that a bucket's four share a cache
# line. The slot's values and packed words live in TT.payload (see tt.pxi): the 64-bit hash
# selects the bucket, the words verify.
ctypedef struct TTEntry:
    uint64_t key              # hash_words of the position
    int16_t depth             # search depth the value holds for (-1 ... exact = high)
    uint8_t bound             # 0 = empty slot, TT_EXACT / TT_LOWER / TT_UPPER
    uint8_t age               # TT.generation when stored
    CMove best                # best move found (kind 255 = none)
    uint8_t _pad


cdef enum:
    TT_EMPTY = 0
    TT_EXACT = 1
    TT_LOWER = 2
    TT_UPPER = 3
    TT_BUCKET = 4             # entries per bucket


ctypedef struct TT:
    TTEntry* entries          # nbuckets * TT_BUCKET slot headers
    uint64_t* payload         # per slot: nvalues doubles, then nwords packed key words
    uint64_t nbuckets         # power of two
    uint64_t mask             # nbuckets - 1
    int nwords                # words per key (fixed for one table)
    int nvalues               # loss values per slot (players, at most MAXV)
    uint64_t stride           # nvalues + nwords: payload words per slot
    uint8_t generation        # bumped by tt_new_search, ages entries
    uint64_t probes           # counters: tt_probe calls
    uint64_t hits             #   probes that found the position (words verified)
    uint64_t collisions       #   slots with the same 64-bit hash but different words
    uint64_t stores           #   tt_store calls
    uint64_t replacements     #   stores that evicted another position
    uint64_t occupied         #   non-empty slots

"""Search with hidden hands and the draw pile, compiled: the engine's own agent and the
default analysis of positions outside exact mode.

Why. With a draw pile most of a game is hidden: the others' hands, the refills and the
face-down cards. Three things are needed per decision, and all of them run in the compiled
core (``ext/decide.pxi``, ``ext/chance.pxi``, ``ext/deepen.pxi``); this module only builds
the seat's view and averages:

1. **Determinization.** The unknown hand cards of the others are dealt from the cards the
   seat has not seen (uniform over the physical cards), ``determinizations`` times, each
   deal seeded by ``(seed, i)``. The rest stays unseen: face-down cards and the draw pile.
2. **Chance in the search.** Refills and flips are chance nodes of the search. With few
   outcomes all are expanded with their probabilities; with more than ``chance_width`` the
   node keeps ``chance_width`` outcomes drawn with their probabilities (sparse sampling,
   weights renormalised to the draws), seeded by the node's key so that a node met twice
   is sampled the same way.
3. **Depth-limited search per deal.** Iterative deepening of the compiled alpha-beta (two
   players; Star1/Star2 at chance nodes, the transposition table, history and killers) or
   max-n (three or more), each root move with a full window, within an equal share of the
   ``nodes`` budget. At the horizon, the horizon evaluation of ``deepen.pxi`` or the mean
   of ``rollouts`` compiled greedy playouts.

A move's figure is its mean loss vector over the deals (the mover cannot choose differently
per deal, so the per-deal best is not used); the intervals are Student t over the deals,
as :mod:`palace_solver.sample.sampled` reports them.

Budgets are node counts (search nodes plus playout decisions), so the answer is the same on
any machine; a time limit (``time_budget``) can cut a search short, and then it is not.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from ..game.cards import NRANK, RANKS
from ..game.position import Position, to_text
from ..game.state import State
from ..game.view import repeatable
from ..solve.engine import compiled, use_eval_weights
from ..solve.results import Analysis, MoveValue, rank_moves
from .sampler import sample_deal, sample_rng, state_with_hands
from .calibration import band, load_map
from .stats import diff_ci, mean_ci

__all__ = ["ENGINE", "ENGINE1", "ENGINE1_END", "ENGINE_END", "FALLBACK_CALIBRATION", "HINT",
           "HINT1", "HINT1_END", "HINT_END", "SearchConfig", "analyze_search",
           "deal_lists", "decide", "history_of", "move_means", "observations_of",
           "observed_in_history", "position_view", "state_view"]


#: the horizon evaluations of the compiled core (``set_eval_mode``)
EVAL_MODES = ("cardcount", "learned", "auto")
#: SearchConfig's whole-number fields that 0 would make meaningless
_AT_LEAST_ONE = ("determinizations", "max_depth")


@dataclass(frozen=True)
class SearchConfig:
    """The options of one decision's search (module doc)."""

    #: deals of the hidden hand cards
    determinizations: int = 8
    #: node budget of the whole decision (search nodes plus playout decisions)
    nodes: int = 40_000
    #: outcomes kept at a chance node (0: all of them)
    chance_width: int = 3
    #: greedy playouts per leaf; 0: the horizon evaluation
    rollouts: int = 0
    #: the deepest iteration
    max_depth: int = 64
    #: table of each deal's search, MB
    hash_mb: float = 2.0
    #: determinize the draw pile's order too (refills are then known in each deal)
    ordered: bool = False
    #: with an empty draw pile, first try to solve each deal's whole tree within this many
    #: nodes (every outcome, the horizon evaluation's leaves); exact values are kept
    exact_nodes: int = 0
    #: no new deal once the decision has used ``nodes`` (then ``determinizations`` is the
    #: most deals; the deals' searches are one ply with playouts, whose cost varies)
    stop_at_budget: bool = False
    #: the horizon evaluation (``set_eval_mode`` of the compiled core): "cardcount",
    #: "learned" or "auto" (learned while the draw pile holds cards)
    eval: str = "cardcount"
    #: the network of the learned evaluation (``solve.engine.weights_path``): "" the
    #: shipped default, else a generation's name ("gen0", ...) or a file
    weights: str = ""
    #: inference of the others' hands: candidate deals per deal searched (0: off, the
    #: deals are uniform); ``infer_temp`` tempers the policy model's log-likelihoods
    infer: int = 0
    infer_temp: float = 1.0
    #: the prior probability that another seat plays the greedy style (the greedy bot's
    #: move but for a rare slip; ext/decide.pxi, Styles) rather than the policy model's: 0
    #: the model only
    infer_greedy: float = 0.0
    #: play only: in each deal, a seat dealt the greedy style (its share of the deal's mixed
    #: likelihood) is searched as the greedy bot plays, not as minimising its loss
    #: (ext/decide.pxi, Styles); nothing without ``infer_greedy``. Analyses refuse it.
    model_styles: bool = False
    #: the file of the policy model the inference weighs with, named as ``weights``: ""
    #: the one in ``weights``' file, else another generation's (its network unused)
    policy: str = ""
    #: the calibration map of the reported figures (``sample/calibration.py``): "" none,
    #: else a shipped map's name; two players only, and never used by the agents' play
    calibration: str = ""
    #: the same for three players' figures (a map fitted on three-player games)
    calibration3: str = ""
    #: how much worse than a draw the mover counts a repetition (0 to 0.25; the search's
    #: ``contempt``): a draw-averse agent's own seat in match play. Never in an analysis,
    #: whose figures are RULES.md's loss probabilities with a repetition a draw.
    contempt: float = 0.0
    #: a position of the game's history seen before another player showed some of their
    #: unknown cards can still come back (an unknown 3 played, picked up, played back and
    #: picked up again): match it too (``ext/decide.pxi``, deal_history). Off, such a
    #: repetition is missed. On in the analyses and in ``engine`` (since its r1-engine row,
    #: benchmarks/RESULTS-strength.md, Revealed cards), off in ``engine1``.
    revealed: bool = False
    #: three or more players: search each deal on the mover's own loss against the others
    #: as one side (the paranoid search of ``ext/deepen.pxi``) instead of max-n, each
    #: player minimising their own; alpha-beta then prunes, so the budget searches deeper.
    #: An agent's play only: the figures of the others are then the rest shared equally.
    #: Off in ``engine``: the n1 rows did not take it (benchmarks/RESULTS-strength.md,
    #: Three players: the paranoid search; +0.012 [-0.009, +0.033] against two greedy).
    paranoid: bool = False
    #: the searches' cache of horizon values (``ext/deepen.pxi``): the same values and
    #: games either way, about a fifth of the draw phase's evaluations saved; off only to
    #: measure it (benchmarks/engine_cost.py --a engine:leaf_cache=0 --b engine)
    leaf_cache: bool = True

    def __post_init__(self):
        # An agent's options arrive as text (palace match engine:nodes=...): a wrong type or
        # sign is refused here, with the field's name, not deep in the compiled search.
        for f in fields(self):
            v, least = getattr(self, f.name), int(f.name in _AT_LEAST_ONE)
            if f.type == "int" and (not isinstance(v, int) or isinstance(v, bool) or v < least):
                raise ValueError(f"{f.name} {v!r} is not a whole number of at least {least}")
            if f.type == "float" and (not isinstance(v, (int, float)) or isinstance(v, bool)
                                      or not v >= 0):
                raise ValueError(f"{f.name} {v!r} is not a number of at least 0")
            if f.type == "str" and not isinstance(v, str):
                raise ValueError(f"{f.name} {v!r} is not a name")
            if f.type == "bool" and v not in (0, 1):
                raise ValueError(f"{f.name} {v!r} is not 0 or 1")
        if self.eval not in EVAL_MODES:
            raise ValueError(f"eval {self.eval!r}: one of {', '.join(EVAL_MODES)}")
        if not 0.0 <= self.contempt <= 0.25:
            raise ValueError(f"contempt {self.contempt} is outside [0, 0.25]")
        if not 0.0 <= self.infer_greedy < 1.0:
            raise ValueError(f"infer_greedy {self.infer_greedy} is outside [0, 1)")
        object.__setattr__(self, "revealed", bool(self.revealed))
        object.__setattr__(self, "leaf_cache", bool(self.leaf_cache))
        object.__setattr__(self, "paranoid", bool(self.paranoid))
        object.__setattr__(self, "model_styles", bool(self.model_styles))

    def with_(self, **kw) -> "SearchConfig":
        return replace(self, **{k: v for k, v in kw.items() if v is not None})

    def to_json(self) -> dict:
        """The fields; ``contempt``, ``revealed``, ``policy``, ``paranoid``,
        ``infer_greedy``, ``model_styles`` and ``calibration3`` only when set and
        ``leaf_cache`` only when off, so that the records of what played before they existed
        (benchmarks/results/strength/*.agents.json) stay the same."""
        d = asdict(self)
        for k in ("contempt", "revealed", "policy", "paranoid", "infer_greedy",
                  "model_styles", "calibration3"):
            if not d[k]:
                del d[k]
        if d["leaf_cache"]:
            del d["leaf_cache"]
        return d


#: The ``engine`` agent while the draw pile holds cards: 24 deals, the others' hands drawn
#: in proportion to how likely their observed plays were (``infer``: 4 candidate deals
#: weighed by the policy model per deal searched), the draw pile's order fixed per deal,
#: each deal searched by iterative deepening (alpha-beta over the deal, the repetitions of
#: the game's history, the network of generation 4 at the horizon) within an equal share
#: of 120,000 nodes: a larger budget searches deeper (depth 6.9 on average). 0.60x the CPU
#: of engine1's decision in the draw phase, 1.10x after (benchmarks/engine_cost.py, on
#: 2026-12-06); its strength is benchmarks/RESULTS-strength.md's g1 rows. The others'
#: hands are dealt in proportion to the policy model's likelihood of their plays tempered
#: to the power 0.5 (the t1-engine row's rule adopted it: 0.512 against the untempered),
#: the model of generation 4 too. Generation 4's network and model replaced generation 1's
#: by the g4-engine row's rule (0.572 [0.547, 0.596] against generation 1).
ENGINE = SearchConfig(determinizations=24, nodes=120_000, chance_width=0, rollouts=0,
                      max_depth=64, ordered=True, eval="learned", weights="gen4", infer=4,
                      infer_temp=0.5, revealed=True)
#: The ``engine`` agent once the draw pile is empty: each deal searched by iterative deepening
#: (every chance outcome, the learned evaluation at the horizon) within an equal share of
#: 150,000 nodes, so that it sees the other side's replies, the repetitions among them.
ENGINE_END = SearchConfig(determinizations=16, nodes=150_000, chance_width=0, rollouts=0,
                          max_depth=64, eval="learned", weights="gen4", infer=4,
                          infer_temp=0.5, revealed=True)
#: ``engine1``: the engine as it stood before the learned values of its own games (flat
#: Monte Carlo in the draw phase: each root move, then one compiled greedy playout, up to
#: 2,048 deals or 800,000 nodes; the endgame as above with the network learned from greedy
#: games), frozen as the baseline of the strength table. Never change these.
ENGINE1 = SearchConfig(determinizations=2048, nodes=800_000, chance_width=1, rollouts=1,
                       max_depth=1, ordered=True, exact_nodes=20_000, stop_at_budget=True,
                       weights="gen0")
ENGINE1_END = SearchConfig(determinizations=16, nodes=150_000, chance_width=0, rollouts=0,
                           max_depth=64, eval="learned", weights="gen0")
#: ``palace analyze`` on hidden cards or a draw pile, and ``palace live`` hints: the same
#: search with twice the deals and 5.3 times the nodes (4 times once the draw pile is
#: empty; each deal searched deeper), with ``engine``'s network and model (generation
#: 4's), its two-player figures through the calibration map ``gen4``
#: (``sample/calibration.py``, fitted on the outcomes of 310 games of the engine against
#: itself, as these analyses see them), taken by the rule written before it was measured
#: (docs/learning.md, Calibration: Brier skill +0.018 [-0.031, +0.064] over generation 1's
#: analyses on 273 other games, paired by decision).
HINT = ENGINE.with_(determinizations=48, nodes=640_000, calibration="gen4")
#: The same once the draw pile is empty.
HINT_END = ENGINE_END.with_(determinizations=32, nodes=600_000, calibration="gen4")
#: The map of exact mode's depth-limited fallback (its band ``fallback``), which
#: ``analysis.analyze`` applies to the fallback's estimates: fitted on the figures of the
#: fallback's own horizon (``solve.deepening.HORIZON``, generation 4's network), whatever
#: network the search uses (benchmarks/fallback_horizon.py --save-map; map ``tempered``'s
#: band served generation 1's horizon).
FALLBACK_CALIBRATION = "fallback-gen4"
#: ``palace analyze`` and the hints before the values learned from the engine's games
#: (four times ENGINE1's budget), frozen: the "before" of the calibration benchmark.
HINT1 = ENGINE1.with_(determinizations=8192, nodes=3_200_000)
HINT1_END = ENGINE1_END.with_(determinizations=64, nodes=600_000)
#: The depth-limited expectimax with the horizon evaluation at the leaves (sparse chance
#: nodes, iterative deepening), measured against the above (agent ``engine_ab``).
EXPECTIMAX = SearchConfig(determinizations=8, nodes=16_000, chance_width=3, eval="learned")

_deciders: dict = {}


def _decider(cfg: SearchConfig):
    d = _deciders.get(cfg)
    if d is None:
        if len(_deciders) > 8:
            _deciders.clear()
        d = _deciders[cfg] = compiled().Decider(
            cfg.determinizations, cfg.nodes, cfg.chance_width, cfg.rollouts, cfg.max_depth,
            cfg.hash_mb, cfg.ordered, cfg.exact_nodes, cfg.stop_at_budget, cfg.infer,
            cfg.infer_temp, cfg.contempt, cfg.revealed, cfg.paranoid, cfg.infer_greedy,
            cfg.model_styles)
        d.leaf_cache = cfg.leaf_cache
    return d


def state_view(state: State, me: int, known=None):
    """``(view, hidden)`` for seat ``me`` of a PLAY-phase state: the compiled view (the
    other hands hold their publicly known cards only, everything ``me`` has not seen is in
    the pool) and the number of unknown hand cards of each player. ``known[q]``: counts by
    rank known of q's hand (None: nothing known)."""
    s = state.clone()
    hidden = [0] * s.n
    pool = s.pool[:]
    for q in range(s.n):
        if q == me:
            continue
        kn = known[q] if known is not None else [0] * NRANK
        hand = s.hands[q]
        for r in RANKS:
            u = hand[r] - min(kn[r], hand[r])
            pool[r] += u
            hidden[q] += u
            hand[r] -= u
    s.pool = pool
    return compiled().CState.from_state(s), hidden


def position_view(pos: Position):
    """``(view, hidden)`` of a position from its analyzing player's knowledge (any player's
    unknown hand cards are hidden, known ones kept)."""
    deal = sample_deal(pos, sample_rng(0, 0))
    s = state_with_hands(pos, deal)
    hidden = [len(d) for d in deal]
    for q, d in enumerate(deal):
        for r in d:
            s.hands[q][r] -= 1
            s.pool[r] += 1
    return compiled().CState.from_state(s), hidden


def history_of(pos: Position, history) -> list:
    """``(view, hidden)`` of the earlier positions in ``history`` (positions from the same
    player's knowledge of then, as :func:`position_view` reads them) that ``pos`` can still
    come back to; the others cannot repeat and are left out."""
    return [position_view(h) for h in repeatable(pos, history)]


def observations_of(pos: Position, observed) -> list:
    """The compiled observations of ``decide`` from position-level ones: each a dict with
    ``position`` (a Position or its JSON: the table before the move, seen by the same
    player as ``pos``), ``player`` (its seat there), ``move`` (a Move or its text), ``up``
    (16 counts: the unknown cards the move played) and ``drawn`` (the cards the player
    drew after it). Observations of another table (other seats in play) are left out."""
    from ..game.moves import Move
    out = []
    for o in observed or ():
        p = o["position"]
        p = p if isinstance(p, Position) else Position.from_json(p)
        if p.n != pos.n or [q.name for q in p.players] != [q.name for q in pos.players]:
            continue
        mv = o["move"] if isinstance(o["move"], Move) else Move.parse(o["move"])
        view, hidden = position_view(p)
        out.append((view, hidden, o["player"], mv, list(o["up"]), o["drawn"]))
    return out


def observed_in_history(pos: Position, history) -> list[dict]:
    """The others' decisions that a list of positions shows (``palace analyze --history``):
    wherever two consecutive positions of ``history`` + ``[pos]``, seen by the same player,
    differ by one move of another player (its refill included), that move, with what
    :func:`observations_of` needs. Positions further apart (several moves between them)
    show nothing certain and are skipped."""
    from ..game.view import (NoPositionError, is_decision, possible_moves, reveal,
                             seat_position, seat_state, settle_refills)
    seq = list(history or ()) + [pos]
    out = []
    for a, b in zip(seq, seq[1:]):
        if a.perspective is None or a.to_move == a.perspective or a.n != b.n:
            continue
        s = seat_state(a)
        q, me = s.to_move, a.perspective
        names = [p.name for p in a.players]
        want = to_text(b)
        found = []
        for mv in possible_moves(s):
            t = s.clone()
            up = [0] * 16
            try:
                if mv.kind == "play" and sum(t.hands[q]):
                    up[mv.rank] = reveal(t, q, mv.rank, mv.count)
                t.apply(mv)
            except ValueError:
                continue
            draw = t.draw_pile
            settle_refills(t, me)
            if not is_decision(t):
                continue
            try:
                got = seat_position(t, names, me)
            except (NoPositionError, ValueError):
                continue
            if to_text(got) == want:
                found.append({"position": a, "player": q, "move": mv, "up": up,
                              "drawn": draw - t.draw_pile})
        if len(found) == 1:
            out.append(found[0])
    return out


def decide(view, hidden, cfg: SearchConfig = ENGINE, seed: int = 0,
           seconds: float | None = None, progress=None, history=None,
           observations=None) -> dict:
    """The compiled search of one decision (``Decider.decide``): per-deal move values.
    ``progress(deals done)`` is called every 64 deals. ``history``: the game's earlier
    positions as ``(view, hidden)`` pairs (:func:`state_view` of each); the search scores
    reaching one as a draw, as the game does. ``observations``: the others' earlier
    decisions (:func:`palace_solver.agents.method_bots.observations`), used with
    ``cfg.infer`` to deal their hands in proportion to how well they explain the play."""
    eng = compiled()
    if cfg.eval != "cardcount" or (cfg.infer and observations):
        use_eval_weights(cfg.weights, cfg.policy)
    if observations and not eng.policy_loaded():
        observations = None   # a network without a policy model: no inference
    old = eng.set_eval_mode(cfg.eval)
    try:
        return _decider(cfg).decide(view, hidden, seed & (2 ** 64 - 1), seconds or 0.0,
                                    progress, history, observations)
    finally:
        eng.set_eval_mode(old)


def move_means(raw: dict, n: int) -> list[tuple]:
    """``[(move, mean loss vector, per-deal values)]`` in the first deal's move order, the
    per-deal values an array (deals x players) of the deals that have the move (a move
    can be missing from some deals when the mover's own hand is hidden)."""
    out = []
    for j, m in enumerate(raw["moves"]):
        v = raw["values"][:, j, :]
        v = v[~np.isnan(v[:, 0])]
        out.append((m, [float(x) for x in v.mean(axis=0)], v))
    return out


def calibrate_moves(moves: list, mover: int, draw_pile: int, name: str) -> dict:
    """Map each move's figures through the calibration map ``name`` in place
    (``sample/calibration.py``, ``CalibrationMap.seat_losses``: the mover's mean and
    interval ends through the map, the others' scaled so that the figures add up to 1);
    returns what the JSON keeps of it (``stats["calibration"]``): the map, the band and each
    move's raw figure.

    :raises ValueError: a map fitted on games of another number of players."""
    cmap = load_map(name)
    n = len(moves[0].loss) if moves else cmap.players
    if cmap.players != n:
        raise ValueError(f"calibration map {name!r} was fitted on {cmap.players}-player games, "
                         f"not {n}")
    raw = {}
    for m in moves:
        x, (lo, hi) = m.loss[mover], m.ci95[mover]
        raw[str(m.move)] = x
        m.loss = cmap.seat_losses(m.loss, mover, draw_pile)
        f_lo, f_hi = cmap.mover_loss(lo, draw_pile), cmap.mover_loss(hi, draw_pile)
        if n == 2:
            m.ci95[mover], m.ci95[1 - mover] = (f_lo, f_hi), (1.0 - f_hi, 1.0 - f_lo)
            continue
        k = cmap.others_scale(x, draw_pile)
        m.ci95 = [(f_lo, f_hi) if q == mover else (lo_q * k, min(1.0, hi_q * k))
                  for q, (lo_q, hi_q) in enumerate(m.ci95)]
    return {"map": name, "band": band(draw_pile), "raw_mover_loss": raw}


def vs_best(raw: dict, mover: int, best: str) -> dict:
    """Per move, the 95% interval of its loss for the mover minus the ``best`` move's, over
    the deals that have both (:func:`~palace_solver.sample.stats.diff_ci`): whether the
    search tells a move from the best by these deals (``stats["vs_best_ci95"]``)."""
    names = [str(m) for m in raw["moves"]]
    b = raw["values"][:, names.index(best), mover]
    out = {}
    for j, name in enumerate(names):
        d = raw["values"][:, j, mover] - b
        _, lo, hi = diff_ci(d[~np.isnan(d)].tolist())
        out[name] = [0.0, 0.0] if name == best else [lo, hi]
    return out


def deal_lists(raw: dict) -> list[list[tuple]]:
    """Per deal its ``[(Move, [loss per player])]`` in the deal's move order (the order of
    ``raw["moves"]`` restricted to the deal's moves, which is the search's legal-move
    order): the values one deal at a time."""
    out = []
    for d in raw["values"]:
        out.append([(m, [float(x) for x in d[j]]) for j, m in enumerate(raw["moves"])
                    if not np.isnan(d[j, 0])])
    return out


def analyze_search(pos: Position, *, nodes: int | None = None, samples: int | None = None,
                   time_budget: float | None = None, seed: int = 0,
                   config: SearchConfig | None = None, progress=None,
                   history=None, observations=None, **options) -> Analysis:
    """The analysis of ``pos`` by the compiled search (module doc): every legal move with
    its mean loss vector over the deals and 95% intervals, best first.

    ``samples`` sets the deals (``determinizations``), ``nodes`` the node budget (without
    it, ``samples`` scales the configuration's budget: the same nodes per deal);
    ``time_budget`` (seconds) stops early, making the answer depend on the machine.
    ``progress(deals done, deals asked)`` is called as deals finish.
    ``options``: other :class:`SearchConfig` fields. ``config``: by default :data:`HINT`
    while the draw pile holds cards, :data:`HINT_END` once it is empty (as the ``engine``
    agent switches). ``history``: the game's earlier positions, seen by the same player
    (the current one may be among them); the search scores reaching one as a draw, as the
    game does (RULES.md), instead of valuing ``pos`` as if the game started there.
    ``observations``: the others' earlier decisions (:func:`observations_of`); with
    ``config.infer`` the deals follow how well they explain them. Without them, those the
    ``history`` shows (:func:`observed_in_history`).
    """
    if config is None:
        config = HINT if pos.draw_pile > 0 else HINT_END
    if samples is not None and nodes is None:
        nodes = max(1, samples * (config.nodes // config.determinizations))
    cfg = config.with_(determinizations=samples, nodes=nodes, **options)
    if cfg.contempt:
        raise ValueError("an analysis reports RULES.md's loss probabilities, a repetition "
                         "a draw: contempt is for an agent's play only")
    if cfg.paranoid:
        raise ValueError("an analysis reports every player's loss probability: the "
                         "paranoid search is for an agent's play only")
    if cfg.model_styles:
        raise ValueError("an analysis reports the loss probabilities of players who each "
                         "minimise their own: searching seats as the greedy bot plays is "
                         "for an agent's play only")
    t0 = time.perf_counter()
    view, hidden = position_view(pos)
    each = None if progress is None else (lambda done: progress(done, cfg.determinizations))
    past = history_of(pos, history) if history else None
    if cfg.infer and observations is None and history:
        observations = observed_in_history(pos, history)   # analyze --history
    obs = observations_of(pos, observations) if observations and cfg.infer else None
    raw = decide(view, hidden, cfg, seed, time_budget, each, history=past, observations=obs)
    seconds = time.perf_counter() - t0
    # each deal's figures into [0, 1] (results.probability: a certain loss can come out an
    # ulp past 1), before their means, intervals and the map read them; NaN (a move some
    # deals lack) stays NaN
    raw["values"] = np.clip(raw["values"], 0.0, 1.0)
    k = raw["values"].shape[0]
    if progress is not None:
        progress(k, cfg.determinizations)
    n, mover = pos.n, pos.to_move
    moves, cis, partial = [], {}, {}
    for m, mean, vs in move_means(raw, n):
        est = [mean_ci(vs[:, p].tolist()) for p in range(n)]
        moves.append(MoveValue(m, [e[0] for e in est], [(e[1], e[2]) for e in est]))
        if len(vs) != k:    # the mover's hand hidden from this seat: legal in some deals only
            partial[str(m)] = len(vs)
    moves = rank_moves(mover, moves)
    calibration = None
    cal_name = {2: cfg.calibration, 3: cfg.calibration3}.get(n)
    if cal_name:
        calibration = calibrate_moves(moves, mover, pos.draw_pile, cal_name)
        # the map is increasing, but keeps certain figures (a draw by repetition) as they
        # are, so an estimate just under 1/2 can come out above a certain draw
        moves = rank_moves(mover, moves)
    paired = vs_best(raw, mover, str(moves[0].move)) if moves else {}
    cis = {str(m.move): [list(iv) for iv in m.ci95] for m in moves}
    stats = {"seconds": round(seconds, 6), "samples": k, "search": "determinized expectimax",
             "nodes": raw["nodes"] + raw["playout_steps"],
             "depth": max(raw["depth"]) if raw["depth"] else 0,
             "depths": sorted(set(raw["depth"])),
             "exact_samples": sum(raw["exact"]), "sampled_chance_nodes": raw["sampled"],
             "config": cfg.to_json(), "seed": seed, "history": len(past or ()),
             "inference": {"observations": raw.get("observations", 0),
                           "effective_deals": round(raw["ess"], 1) if "ess" in raw else None},
             "nodes_per_second": round((raw["nodes"] + raw["playout_steps"]) / seconds)
             if seconds > 0 else None,
             "interval": "student-t on per-deal values; rule of three when all equal",
             "move_ci95": cis, "vs_best_ci95": paired, "calibration": calibration}
    if partial:
        stats["move_samples"] = partial
    best = moves[0]
    return Analysis("search", mover, list(best.loss), moves, stats,
                    ci95=[tuple(x) for x in cis[str(best.move)]], samples=k)

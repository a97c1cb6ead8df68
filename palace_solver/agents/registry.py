"""Agents by name: what ``palace match`` and the benchmarks play.

| name        | what it plays                                                                |
|-------------|------------------------------------------------------------------------------|
| engine      | the compiled determinized search (``drawsearch.ENGINE`` while the draw pile  |
|             | holds cards, ``drawsearch.ENGINE_END`` once it is empty), from the first     |
|             | play, with the game's history (a repeated position is a draw)                |
| engine1     | ``engine`` as it stood before the values learned from its own games, frozen |
|             | (``drawsearch.ENGINE1``, ``ENGINE1_END``, network ``gen0``): the baseline    |
| engine_gd   | the same, but greedy while the draw pile holds cards (the ablation)          |
| engine_ab   | the other search measured: depth-limited expectimax (alpha-beta, sparse      |
|             | chance nodes) with the learned evaluation at the horizon                     |
| engine_det  | ``engine`` while the draw pile holds cards, ``det``'s search once it is      |
|             | empty (a candidate measured in benchmarks/RESULTS-strength.md)               |
| hint        | what ``palace live`` suggests: ``analyze`` of the seat's view at the live    |
|             | default budget (:data:`HINT_SECONDS`), with the game's history, best move    |
| rollout     | the sampled analysis before the compiled search (one ply, then greedy        |
|             | playouts in Python) at 0.5 s a decision, kept as a baseline                  |
| det         | the determinization bot over the compiled deepening search, greedy while     |
|             | the draw pile holds cards, kept as a baseline                                |
| ismcts      | SO-ISMCTS with greedy playouts, 100 iterations, greedy while the draw pile   |
|             | holds cards, kept as a baseline                                              |
| greedy, lowest, random | the simple bots of :mod:`palace_solver.sample.policies`          |
| os_ismcts   | OpenSpiel's ISMCTS, 1,000 simulations, random rollouts on the compiled       |
|             | engine (only with the ``openspiel`` extra)                                   |
| server_ismcts | palace-server's ISMCTS (:mod:`~palace_solver.agents.peers`): a new deal  |
|             | per simulation, UCB1 c = 0.7 over the root's moves, random rollouts, 1,000   |
|             | simulations, the most visited move                                           |
| mos_uct     | masters-of-shithead's MCTS: one deal a decision, UCB1 sqrt(2 ln N / n),      |
|             | random rollouts capped at 1,000 moves, the nodes its Python builds in 1 s    |
| policy      | a policy trained in the RL environments, ``policy:path=FILE.npz``            |
|             | (:mod:`palace_solver.interop.policy`; docs/rl.md)                            |

A name may carry options, ``NAME:key=value:key=value``: ``engine:nodes=100000``,
``engine:rollouts=0`` (any :class:`~palace_solver.sample.drawsearch.SearchConfig` field of the
draw phase; ``end_`` before a field sets the endgame's, ``engine:end_nodes=400000``;
``end=flat`` keeps the draw phase's search once the draw pile is empty, ``history=0``
searches without the game's history, ``draw_limit``; ``budget=4`` multiplies the node
budgets of both phases, ``engine:budget=0.25`` divides them;
``engine`` counts a repetition 0.1 worse than a draw for its own seat, in both phases
(contempt, since the c2 rows; ``engine:contempt=0:end_contempt=0`` as before them);
``engine:revealed=0:end_revealed=0`` no longer meets the history's
positions from before another player showed cards, as before the r1 rows;
``engine`` plays its best play rather than a pickup that is at most 0.05 better, in both
phases, where the pickup's loss is at most 0.33 (``engine:pickup_margin=0:pickup_below=1``
plays the best move everywhere, as before the p2 rows); from the game's 200th decision on
that bound is 0.5 (since the l1 rows; ``late_from`` another decision,
``engine:late_below=none`` keeps 0.33 throughout, as before them);
the bound is 1 while no other player has taken the pile by choice in the game (since the
w1 rows; ``engine:nopick_below=none`` as before them); ``engine:sees_hands=1`` searches
with the others' hands as they are, a measuring agent no player can be),
``os_ismcts:sims=100``,
``det:samples=16``, ``ismcts:iterations=400``, ``rollout:seconds=2``, ``hint:seconds=1``,
``server_ismcts:sims=1000:c=0.7:grow=1``, ``mos_uct:nodes=513:c=2:cap=1000:policy=robust``.

Every agent sees only what its seat sees: its own hand, the table, the public counts and
the publicly known hand cards of the others (the driver's
:class:`~palace_solver.agents.method_bots.HandTracker`, set as the agent's ``tracker``).
An agent is an object with ``name``, ``choose(state, rng) -> Move``, and optionally
``tracker``, ``stats``, ``begin(rules, n, max_turns)`` and ``observe(event)`` (it is then fed
every event from the deal on: :class:`~palace_solver.interop.openspiel_agent.OsIsmctsAgent`).
"""
from __future__ import annotations

import re
import time

from ..analysis import analyze
from ..game.state import State
from ..sample.drawsearch import ENGINE, ENGINE1, ENGINE1_END, ENGINE_END, EXPECTIMAX
from ..sample.policies import BOTS, make_bot
from ..sample.sampled import analyze_sampled
from .method_bots import (DetBot, IsmctsBot, SearchBot, history_positions, trivial_move,
                          view_position)
from .peers import MosUctAgent, ServerIsmctsAgent

__all__ = ["AGENTS", "HINT_SECONDS", "AgentError", "agent_names", "make_agent",
           "openspiel_available", "parse_agent"]

#: The budget of a ``palace live`` hint (its ``hint()`` default), seconds.
HINT_SECONDS = 2.0
#: The ``rollout`` baseline's time per decision, seconds.
ROLLOUT_SECONDS = 0.5


class AgentError(ValueError):
    """An unknown agent name or option (one line)."""


class _Timed:
    """Shared bookkeeping: decisions, searched decisions and seconds in ``stats``."""

    name = "timed"

    def __init__(self):
        self.tracker = None
        self.stats = {"decisions": 0, "searched": 0, "seconds": 0.0}

    def _trivial(self, state: State, rng):
        return trivial_move(state, rng, self.stats)


class HintAgent(_Timed):
    """The best move of :func:`palace_solver.analysis.analyze` on the seat's view, with the
    budget, seed and game history of a ``palace live`` hint."""

    name = "hint"

    def __init__(self, seed: int = 0, seconds: float = HINT_SECONDS):
        super().__init__()
        self.seconds = seconds

    def choose(self, state, rng):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        me = state.to_move
        pos = view_position(state, me, self.tracker).validate()
        a = analyze(pos, time_budget=self.seconds, seed=0,
                    history=history_positions(state, me, self.tracker))
        self.stats["searched"] += 1
        self.stats["seconds"] += time.perf_counter() - t0
        return a.best_move


class RolloutAgent(_Timed):
    """The sampled analysis (one ply, then greedy playouts in Python) within ``seconds``."""

    name = "rollout"

    def __init__(self, seed: int = 0, seconds: float = ROLLOUT_SECONDS):
        super().__init__()
        self.seed, self.seconds = seed, seconds

    def choose(self, state, rng):
        m = self._trivial(state, rng)
        if m is not None:
            return m
        t0 = time.perf_counter()
        pos = view_position(state, state.to_move, self.tracker).validate()
        a = analyze_sampled(pos, method="sampled", time_budget=self.seconds,
                            seed=self.seed * 1_000_003 + self.stats["decisions"])
        self.stats["searched"] += 1
        self.stats["seconds"] += time.perf_counter() - t0
        return a.best_move


def openspiel_available() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


#: Where ``engine`` gives up a near pickup for its best play: a pickup at most this much better
#: than that play, where the pickup's own loss is at most ``PICKUP_BELOW``. Adopted by the
#: p2 rows' rule (benchmarks/RESULTS-strength.md, Progress where the engine leads);
#: ``engine:pickup_margin=0:pickup_below=1`` is the engine before them.
PICKUP_MARGIN, PICKUP_BELOW = 0.05, 0.33
#: How much worse than a draw ``engine`` counts a repetition for its own seat, in both phases
#: (``SearchConfig.contempt``; never in an analysis). Adopted by the c2 rows' rule
#: (benchmarks/RESULTS-strength.md, Contempt again); ``engine:contempt=0:end_contempt=0`` is
#: the engine before them.
CONTEMPT = 0.1
#: From the game's ``LATE_FROM``-th decision on, ``engine``'s bound for giving up a near pickup
#: is ``LATE_BELOW`` (None: ``PICKUP_BELOW`` throughout). Adopted by the l1 rows' rule
#: (benchmarks/RESULTS-strength.md, Late progress); ``engine:late_below=none`` is the engine
#: before them.
LATE_FROM, LATE_BELOW = 200, 0.5
#: ``engine``'s bound for giving up a near pickup while no other player has taken the pile by
#: choice in the game (None: the bounds above from the start). Adopted by the w1 rows' rule
#: (benchmarks/RESULTS-strength.md, Progress against sides that never pick up by choice);
#: ``engine:nopick_below=none`` is the engine before them.
NOPICK_BELOW = 1.0


def _number(name: str, v, integer: bool = False):
    """An engine option's value as an int (``integer``) or a float, refusing text
    (``budget=abc``) by name."""
    ok = (int,) if integer else (int, float)
    if isinstance(v, bool) or not isinstance(v, ok):
        raise TypeError(f"{name}={v!r}: {'a whole number' if integer else 'a number'}")
    return v if integer else float(v)


def _scaled(cfg, budget):
    return cfg if budget == 1 else cfg.with_(nodes=max(1, round(cfg.nodes * budget)))


def _engine(seed, draw_limit=None, seconds=None, end="deep", history=1, budget=1,
            pickup_margin=PICKUP_MARGIN, pickup_below=PICKUP_BELOW, late_from=LATE_FROM,
            late_below=LATE_BELOW, nopick_below=NOPICK_BELOW, sees_hands=0, **kw):
    if end not in ("deep", "flat"):
        raise TypeError(f"end={end!r}: deep or flat")
    if history not in (0, 1, None):           # (None: "history=off")
        raise TypeError(f"history={history!r}: 0, 1 or off")
    budget, pickup_margin, pickup_below = (_number(k, v) for k, v in (
        ("budget", budget), ("pickup_margin", pickup_margin), ("pickup_below", pickup_below)))
    if budget <= 0:
        raise ValueError(f"budget={budget:g}: above 0")
    late_from = _number("late_from", late_from, integer=True)
    if late_below is not None:
        late_below = _number("late_below", late_below)
    if nopick_below is not None:
        nopick_below = _number("nopick_below", nopick_below)
    if sees_hands not in (0, 1):
        raise TypeError(f"sees_hands={sees_hands!r}: 0 or 1")
    endgame = ENGINE_END if end == "deep" else None
    end_kw = {k[4:]: kw.pop(k) for k in list(kw) if k.startswith("end_")}
    if end_kw and endgame is None:
        raise TypeError("end_* options need end=deep")
    if endgame is not None:
        endgame = endgame.with_(**{"contempt": CONTEMPT, **end_kw})
    kw.setdefault("contempt", CONTEMPT)
    return SearchBot(seed, _scaled(ENGINE.with_(**kw), budget), draw_limit=draw_limit,
                     seconds=seconds, endgame=endgame and _scaled(endgame, budget),
                     use_history=bool(history), pickup_margin=pickup_margin,
                     pickup_below=pickup_below, late_from=late_from, late_below=late_below,
                     nopick_below=nopick_below, sees_hands=bool(sees_hands))


def _engine1(seed, draw_limit=None, seconds=None, **kw):
    end_kw = {k[4:]: kw.pop(k) for k in list(kw) if k.startswith("end_")}
    b = SearchBot(seed, ENGINE1.with_(**kw), draw_limit=draw_limit, seconds=seconds,
                  endgame=ENGINE1_END.with_(**end_kw))
    b.name = "engine1"
    return b


def _engine_ab(seed, draw_limit=None, seconds=None, **kw):
    b = SearchBot(seed, EXPECTIMAX.with_(**kw), draw_limit=draw_limit, seconds=seconds)
    b.name = "engine_ab"
    return b


def _engine_gd(seed, **kw):
    kw.setdefault("draw_limit", 0)
    b = _engine(seed, **kw)
    b.name = "engine_gd"
    return b


def _det(seed, samples=8, nodes=10_000, exact_nodes=100_000, draw_limit=0):
    return DetBot(seed, samples=samples, deal_nodes=nodes, exact_mode_nodes=exact_nodes,
                  draw_limit=draw_limit)


class EngineDet:
    """``engine`` while the draw pile holds cards, ``det`` (the depth-limited search with
    the learned evaluation, over deals) once it is empty. Why: ``det``, which plays greedy
    in the draw phase, beat ``engine`` (benchmarks/RESULTS-strength.md), so the endgame is
    where ``engine``'s one-ply playouts lose."""

    name = "engine_det"

    def __init__(self, seed: int = 0, **engine_options):
        self.parts = (_engine(seed, **engine_options), _det(seed))
        self.stats = self.parts[0].stats

    @property
    def tracker(self):
        return self.parts[0].tracker

    @tracker.setter
    def tracker(self, t):
        for b in self.parts:
            b.tracker = t

    def choose(self, state, rng):
        return self.parts[0 if state.draw_pile > 0 else 1].choose(state, rng)


def _ismcts(seed, iterations=100, draw_limit=0):
    return IsmctsBot(seed, iterations=iterations, draw_limit=draw_limit)


def _os_ismcts(seed, sims=1000, uct=1.4, rollout="compiled"):
    from ..interop.openspiel_agent import OsIsmctsAgent
    return OsIsmctsAgent(seed, sims=sims, uct=uct, rollout=rollout)


def _policy(seed, path=None, sample=0):
    from ..interop.policy import PolicyAgent
    return PolicyAgent(seed, path=path, sample=sample)


def _simple(name):
    def make(seed):
        return make_bot(name)
    return make


#: name -> (factory(seed, **options), one-line description)
AGENTS = {
    "engine": (_engine, "compiled determinized search with the draw pile"),
    "engine1": (_engine1, "the engine before learning from its own games, frozen"),
    "engine_gd": (_engine_gd, "engine, but greedy while the draw pile holds cards"),
    "engine_ab": (_engine_ab, "depth-limited expectimax, learned evaluation at the leaves"),
    "engine_det": (EngineDet, "engine in the draw phase, then det's search"),
    "hint": (HintAgent, f"what palace live suggests ({HINT_SECONDS:g} s analysis)"),
    "rollout": (RolloutAgent, "sampled analysis, greedy playouts in Python, 0.5 s"),
    "det": (_det, "determinization + compiled deepening, greedy in the draw phase"),
    "ismcts": (_ismcts, "SO-ISMCTS, greedy playouts, greedy in the draw phase"),
    **{name: (_simple(name), f"the {name} bot") for name in BOTS},
    "os_ismcts": (_os_ismcts, "OpenSpiel ISMCTS, 1,000 simulations, compiled rollouts"),
    "server_ismcts": (ServerIsmctsAgent, "palace-server's ISMCTS, c = 0.7, 1,000 simulations"),
    "mos_uct": (MosUctAgent, "masters-of-shithead's UCB1 MCTS, one deal, 1 s of its search"),
    "policy": (_policy, "a policy trained in the RL environments (path=FILE.npz)"),
}


def agent_names() -> list[str]:
    """The agents available here (``os_ismcts`` only with OpenSpiel installed)."""
    return [n for n in AGENTS if n != "os_ismcts" or openspiel_available()]


def _value(text: str):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("none", "off"):
        return None
    return text


def parse_agent(spec: str) -> tuple[str, dict]:
    """``"engine:nodes=1000"`` -> ``("engine", {"nodes": 1000})``.

    :raises AgentError: an unknown name, a malformed option, or os_ismcts without OpenSpiel.
    """
    name, *opts = spec.strip().split(":")
    name = name.strip().lower()
    if name not in AGENTS:
        raise AgentError(f"unknown agent {name!r} (known: {', '.join(agent_names())})")
    if name == "os_ismcts" and not openspiel_available():
        raise AgentError("agent os_ismcts needs OpenSpiel: pip install '.[openspiel]'")
    options = {}
    for o in opts:
        k, eq, v = o.partition("=")
        if not eq or not k.strip():
            raise AgentError(f"agent option {o!r} of {spec!r} is not key=value")
        options[k.strip()] = _value(v.strip())
    return name, options


def make_agent(spec: str, seed: int = 0):
    """A new agent for one game: ``make_agent("engine", seed=3)``.

    :raises AgentError: see :func:`parse_agent`; an option the agent does not take.
    """
    name, options = parse_agent(spec)
    factory = AGENTS[name][0]
    try:
        agent = factory(seed, **options)
    except (TypeError, ValueError) as e:
        unknown = re.search(r"unexpected keyword argument '(\w+)'", str(e))
        if unknown:
            bad = unknown[1]
            if bad not in options and f"end_{bad}" in options:   # (an endgame field's name)
                bad = f"end_{bad}"
            raise AgentError(f"agent {spec!r}: {name} has no option {bad!r} (its "
                             f"options: palace_solver/agents/registry.py, module doc)") from None
        raise AgentError(f"agent {spec!r}: {e}") from None
    if options:
        agent.name = spec
    return agent

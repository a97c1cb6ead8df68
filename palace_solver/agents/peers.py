"""Other Palace programs' AI algorithms as agents: ``server_ismcts`` and ``mos_uct``.

Why. The strength table measured the engine against bots designed here. These two are
what other Palace programs play, rewritten from a reading of their code for this project's
rules and run in the compiled core (``ext/peers.pxi``, whose comment is the specification:
what each program does, the files read, and where our rules made us choose):

- ``server_ismcts``: brick-codes/palace-server's "Monty" ISMCTS: a fresh deal of the unseen
  cards every simulation, UCB1 with c = 0.7 over one tree, random rollouts, the most
  visited move after 1,000 simulations. Their loop stops at every visited child that has
  no children yet, so the tree never grows below the root: in effect UCB1 over the root's
  moves with a new deal per simulation. The agent plays that (``grow=1``: the many-level
  tree instead).
- ``mos_uct``: trachwo/masters-of-shithead's "DeeperShit" MCTS: one deal a decision, a
  tree on that fixed world, UCB1 with sqrt(2 ln N / n) (c = 2 inside the root), a random
  unexpanded play expanded per pass, random rollouts capped at 1,000 moves, the move of
  best win rate. Their search runs 1 s; here it grows its tree to :data:`MOS_NODES`
  nodes, what their own Python search built in one CPU second on this machine (below).

Both see only their seat's view (:func:`palace_solver.sample.drawsearch.state_view` with the
driver's :class:`~palace_solver.agents.method_bots.HandTracker`): their own hand, the
table, the pile, and the others' hand cards that are public. Forced moves are played
without search; the face-up layout at the deal is ``greedy``'s (their programs choose it by
a 2,000-simulation search and by a lookup table; the compiled core starts after the deal).
Neither knows the game's history: a repeated position is a draw and a game stops at 400
decisions in ``palace match``, but their programs have neither rule, so they never foresee
them. Each decision is seeded by the agent's seed and the decision's number: the same seed
plays the same game on any machine (budgets are counts).

How the budget of ``mos_uct`` was set. ``benchmarks/peers_speed.py --mos-src PATH`` runs
masters-of-shithead's own ``MonteCarlo.run_search`` (from a checkout given by path; nothing of
theirs is in this repository) for one second of CPU time on end-game positions of their
game (two players, talon empty: the only positions where DeeperShit searches), dealt by
seeds 0-19 and played by their ``TakeShit`` bot, and counts the nodes of its tree (a pass of
its loop expands one node and runs one rollout, unless it selects a finished game): median
513 nodes (quartiles 246-887, 60 positions; 512 passes), against 217 at draw-phase positions
of their game, where DeeperShit does not search. The end-game median is the default;
``benchmarks/results/peers-mos-budget.json`` holds the run, with the load of the shared
machine (one CPU second took 1.48 s of wall time at the median). A first run an hour
earlier gave 462: on this shared machine the count moves by about a tenth between runs.
"""
from __future__ import annotations

import time

from ..game.state import State
from ..solve.engine import compiled
from .method_bots import seat_view, trivial_move

__all__ = ["MOS_NODES", "MosUctAgent", "PeerAgent", "SERVER_SIMS", "ServerIsmctsAgent"]

#: palace-server's Monty: simulations a play (MontyAi::new, src/ai_tournament.rs).
SERVER_SIMS = 1000
#: palace-server's exploration constant.
SERVER_C = 0.7
#: masters-of-shithead's MonteCarlo: nodes its run_search builds in one CPU second of their
#: Python on this machine, the median over 60 end-game positions
#: (benchmarks/results/peers-speed.json).
MOS_NODES = 513
#: masters-of-shithead's ucb1_explore_param (inside the root: sqrt(c ln N / n)).
MOS_C = 2.0
#: their MAX_SIMULATION_TURNS.
MOS_ROLLOUT_CAP = 1000


class PeerAgent:
    """Shared driver: the seat's view, the decision's seed, forced moves and layouts, and
    ``stats`` (decisions, searched, seconds, nodes, rollout decisions)."""

    name = "peer"

    def __init__(self, seed: int, search):
        self.seed = seed
        self.search = search
        self.tracker = None
        self.stats = {"decisions": 0, "searched": 0, "seconds": 0.0, "nodes": 0,
                      "rollout_steps": 0}
        #: the root's [(Move, visits, wins)] of the last searched decision
        self.last_root = None

    def choose(self, state: State, rng):
        m = trivial_move(state, rng, self.stats)
        if m is not None:
            return m
        t0 = time.perf_counter()
        _, view, hidden = seat_view(state, self.tracker)
        seed = (self.seed * 1_000_003 + self.stats["decisions"]) % 2 ** 64
        move, self.last_root = self.search.choose(view, hidden, seed)
        self.stats["searched"] += 1
        self.stats["nodes"] += self.search.nodes
        self.stats["rollout_steps"] += self.search.rollout_steps
        self.stats["seconds"] += time.perf_counter() - t0
        return move


class ServerIsmctsAgent(PeerAgent):
    """palace-server's ISMCTS (module doc): ``sims`` simulations, UCB1 constant ``c``,
    ``grow``: let the tree grow below the root (their loop does not)."""

    name = "server_ismcts"

    def __init__(self, seed: int = 0, sims: int = SERVER_SIMS, c: float = SERVER_C,
                 grow: int = 0):
        super().__init__(seed, compiled().ServerIsmcts(sims, c, bool(grow)))


class MosUctAgent(PeerAgent):
    """masters-of-shithead's MCTS (module doc): a tree of ``nodes`` nodes (at most
    ``passes`` passes, 0: forty per node), UCB1 constant ``c``, rollouts of at most ``cap``
    moves, ``policy`` ``max`` (best win rate, DeeperShit's default) or ``robust`` (most
    visits)."""

    name = "mos_uct"

    def __init__(self, seed: int = 0, nodes: int = MOS_NODES, c: float = MOS_C,
                 cap: int = MOS_ROLLOUT_CAP, policy: str = "max", passes: int = 0):
        if policy not in ("max", "robust"):
            raise ValueError(f"mos_uct policy {policy!r}: max or robust")
        super().__init__(seed, compiled().MosUct(nodes, c, cap, policy == "robust", passes))

"""Tournament: bots driven by the sampled analyses against each other and the simple bots.

    python benchmarks/tournament.py --quick
    python benchmarks/tournament.py --starts 1000 --kind late --samples 32 --iterations 400

Agents: ``det`` (determinization, :func:`palace_solver.sampled.analyze_sampled` with
``--samples`` deals per decision), ``ismcts`` (SO-ISMCTS, ``--iterations`` per decision),
``random``, ``lowest``, ``greedy`` (bots.py) and ``os_ismcts`` (OpenSpiel's ISMCTS bot on
``python_palace``, only when open_spiel is installed; full deals only, since OpenSpiel games
start at the deal). A method agent sees only what its seat sees: its own hand, the face-up
cards, the pile, the burned cards and the counts (it forgets which cards the opponent picked
up, a conservative information model); it lays out its face-up cards like ``greedy``.

Starts: ``late`` (a greedy self-play game from a seeded deal, stopped at the first decision
with an empty draw pile and at most ``--late-cards`` cards in play) or ``full`` (the first
play decision after a seeded deal and greedy layouts). Each start is played twice, seats
swapped. Chance events come from a generator seeded by the start and the seat order. A game
ends as a draw (half a loss each) at a repeated position or after 400 decisions.

Prints per pairing the score of the first agent (1 - its mean loss share) with a 95%
interval (Student t over games), and determinizations per second of each method.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from palace_solver.bots import GreedyBot, make_bot  # noqa: E402
from palace_solver.game import _sample  # noqa: E402
from palace_solver.position import Position  # noqa: E402
from palace_solver.rules import Rules  # noqa: E402
from palace_solver.sampled import analyze_sampled, mean_ci  # noqa: E402
from palace_solver.state import PLAY_PHASE, State  # noqa: E402

CAP = 400
SPEED: dict = {}


class MethodAgent:
    """A seat played by a sampled analysis of its own view of the table."""

    def __init__(self, method: str, samples: int, seed: int, **options):
        self.name = "det" if method == "sampled" else method
        self.method, self.samples, self.seed, self.options = method, samples, seed, options
        self.calls = 0

    def choose(self, state: State, rng: random.Random):
        moves = state.legal_moves()
        if len(moves) == 1 or state.phase != PLAY_PHASE:
            return GreedyBot().choose(state, rng) if len(moves) > 1 else moves[0]
        me = state.to_move
        pos = Position.from_state(state, perspective=me)
        for i, p in enumerate(pos.players):
            if i != me:
                p.hand_known = []
        self.calls += 1
        a = analyze_sampled(pos.validate(), method=self.method, samples=self.samples,
                            seed=self.seed * 1_000_003 + self.calls, **self.options)
        sp = SPEED.setdefault(self.name, [0, 0.0])
        sp[0] += a.samples
        sp[1] += a.stats["seconds"]
        return a.best_move


def agent(name: str, args, seed: int):
    if name == "det":
        return MethodAgent("sampled", args.samples, seed)
    if name == "ismcts":
        return MethodAgent("ismcts", args.iterations, seed)
    return make_bot(name)


def late_start(seed: int, max_cards: int) -> State:
    rng = random.Random(f"late-{seed}")
    while True:
        s = State.new_game(Rules(), 2)
        g = GreedyBot()
        while not s.is_terminal():
            if s.is_chance():
                s.apply(_sample(s, rng))
                continue
            if (s.phase == PLAY_PHASE and s.draw_pile == 0
                    and sum(s.cards_left(p) for p in range(2)) <= max_cards):
                return s
            s.apply(g.choose(s, rng))


def full_start(seed: int) -> State:
    rng = random.Random(f"full-{seed}")
    s = State.new_game(Rules(), 2)
    while s.phase != PLAY_PHASE or s.is_chance():
        s.apply(_sample(s, rng) if s.is_chance() else GreedyBot().choose(s, rng))
    return s


def play(start: State, agents, seed: int) -> list[float]:
    s = start.clone()
    rng = random.Random(f"play-{seed}")
    seen: set = set()
    for _ in range(CAP):
        while s.is_chance():
            s.apply(_sample(s, rng))
        if s.is_terminal():
            return [float(x) for x in s.result()]
        k = s.key()
        if k in seen:
            break
        seen.add(k)
        s.apply(agents[s.to_move].choose(s, rng))
    return [0.5, 0.5]


def play_openspiel(seed: int, ours, args) -> list[float]:
    """A full game on python_palace: seat 0 ours, seat 1 OpenSpiel's ISMCTS bot."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import palace_solver.openspiel_game  # noqa: F401 - registers python_palace
    game = pyspiel.load_game("python_palace", {"players": 2, "max_turns": CAP})
    rs = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=1.4,
                           max_simulations=args.os_sims, random_state=rs)
    rng = random.Random(f"os-{seed}")
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            actions, probs = zip(*st.chance_outcomes())
            st.apply_action(rs.choice(actions, p=probs))
        elif st.current_player() == 0:
            st.apply_action(st.action_of(ours.choose(st.engine, rng)))
        else:
            st.apply_action(bot.step(st))
    return [float(x) for x in st.loss_shares()]


def run_pairing(a: str, b: str, args) -> None:
    t0 = time.perf_counter()
    scores = []
    for i in range(args.starts):
        if b == "os_ismcts":
            v = play_openspiel(args.seed * 100_000 + i, agent(a, args, i), args)
            scores.append(1.0 - v[0])
            continue
        start = late_start(args.seed * 100_000 + i, args.late_cards) if args.kind == "late" \
            else full_start(args.seed * 100_000 + i)
        for swap in (False, True):
            ag = [agent(a, args, 2 * i), agent(b, args, 2 * i + 1)]
            if swap:
                ag.reverse()
            loss = play(start, ag, 2 * i + swap)
            scores.append(1.0 - loss[1 if swap else 0])
    m, lo, hi = mean_ci(scores)
    kind = "full" if b == "os_ismcts" else args.kind
    print(f"{a:>7} vs {b:<9} {kind:<4} games {len(scores):>5}  score {m:.3f} "
          f"[{lo:.3f}, {hi:.3f}]  {time.perf_counter() - t0:7.1f}s", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=1000, help="starts per pairing (x2 seats)")
    ap.add_argument("--kind", choices=("late", "full"), default="late", help="kind of start")
    ap.add_argument("--late-cards", type=int, default=12,
                    help="late starts: at most this many cards in play")
    ap.add_argument("--samples", type=int, default=32, help="det: deals per decision")
    ap.add_argument("--iterations", type=int, default=400, help="ismcts: iterations per decision")
    ap.add_argument("--os-sims", type=int, default=100, help="OpenSpiel ISMCTS simulations")
    ap.add_argument("--pairings", default="det:greedy,ismcts:greedy,det:ismcts,det:random,"
                    "ismcts:random,det:lowest,greedy:random,det:os_ismcts",
                    help="comma-separated a:b pairings")
    ap.add_argument("--seed", type=int, default=0, help="seed of the starts")
    ap.add_argument("--quick", action="store_true",
                    help="a small run for the suite: 10 starts, 8 samples, 100 iterations")
    args = ap.parse_args(argv)
    if args.quick:
        args.starts, args.samples, args.iterations, args.os_sims = 10, 8, 100, 50
    try:
        import open_spiel  # noqa: F401
        has_os = True
    except ImportError:
        has_os = False
    print(f"starts {args.starts} ({args.kind}, seats swapped), det {args.samples} samples, "
          f"ismcts {args.iterations} iterations, seed {args.seed}")
    for pair in args.pairings.split(","):
        a, b = pair.split(":")
        if "os_ismcts" in (a, b) and not has_os:
            print(f"{a} vs {b}: skipped (open_spiel is not installed)")
            continue
        run_pairing(a, b, args)
    for name, (n, sec) in SPEED.items():
        print(f"{name}: {n} determinizations in {sec:.1f}s = {n / sec:.0f}/s")


if __name__ == "__main__":
    main()

"""Tournament: the method bots against each other, the simple bots and OpenSpiel's ISMCTS.

    python benchmarks/tournament.py --quick
    python benchmarks/tournament.py --starts 1000 --kinds late,full --output t.jsonl \\
        --report benchmarks/RESULTS-tournament.md

Agents (budgets per decision in ``--help``; bots in palace_solver/method_bots.py and bots.py):

- ``det``: determinization over the compiled engine (DetBot): ``--det-samples`` deals of
  the hidden hand cards, each valued by iterative deepening (alpha-beta, Star pruning, the
  fitted horizon evaluation) within ``--det-nodes`` nodes, or ``--det-exact-nodes`` when no
  hand card is hidden (exact mode: only face-down cards unknown); lowest mean loss wins.
- ``ismcts``: SO-ISMCTS (palace_solver/ismcts.py), ``--ismcts-iterations`` per decision.
- ``random``, ``lowest``, ``greedy``: the simple bots.
- ``os_ismcts``: OpenSpiel's ISMCTSBot (open_spiel.python.algorithms.ismcts) with its
  random-rollout evaluator on the ``python_palace`` adapter, ``--os-sims`` simulations per
  decision (``--os-rollout compiled``: the same random rollouts on the compiled engine,
  palace_solver/openspiel_rollout.py). OpenSpiel games start at the deal: the game is the same start replayed action
  by action (deal, layouts, and for late starts the greedy prefix) into python_palace, so
  the bot's information state and its resampling cover the whole history.

Both method bots play ``greedy`` while more than ``--draw-limit`` cards are in the draw
pile (default 0: they search only once it is empty). Measured before choosing this: with
the draw pile in play the depth-limited search (its horizon evaluation is fitted on
positions without a draw pile) and ISMCTS with greedy playouts both lost to greedy itself
(full deals, 40 and 10 starts: 0.41-0.46 and 0.30). Forced moves are never searched.

Starts, seeded by ``--seed`` and the start index only (the same starts for every pairing):
``late``: a greedy self-play game from a seeded deal, stopped at the first decision with
an empty draw pile and at most ``--late-cards`` cards in play; ``full``: the first play
decision after a seeded deal and greedy layouts. The public knowledge of the prefix (cards
picked up, face-up cards swapped into the hand) is replayed into the method bots' view.

Each start is played twice, seats swapped: one game per batch task
(palace_solver/batch.py: ``--jobs``, ``--ray``, ``--output`` resumes), seeded from
``(--seed, task id)``. Chance during play comes from a generator seeded by the start alone,
the same for both seatings (common random numbers). A game ends as a draw (half a loss
each) at a repeated decision position or after 400 decisions from the start.

Score of agent A against B: 1 - A's mean loss share (a draw is half a loss). Its 95%
interval is paired: per start, the mean of A's two scores (one per seat); Student t over
the starts. The verdict is significant when the interval excludes 0.5, with the two-sided
p-value of the same paired t statistic (normal approximation) and a Bonferroni check over
all the pairings in the table.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from palace_solver.agents.method_bots import DetBot, HandTracker, IsmctsBot  # noqa: E402
from palace_solver.agents.play import _sample  # noqa: E402
from palace_solver.game.moves import Move  # noqa: E402
from palace_solver.game.rules import Rules  # noqa: E402
from palace_solver.game.state import State  # noqa: E402
from palace_solver.jobs.batch import run_batch, task_seed  # noqa: E402
from palace_solver.jobs.match import make_start as _make_start  # noqa: E402
from palace_solver.jobs.match import p_value  # noqa: E402
from palace_solver.sample.policies import make_bot  # noqa: E402
from palace_solver.sample.stats import mean_ci  # noqa: E402

#: Decisions after which a game is a draw.
CAP = 400
AGENTS = ("det", "ismcts", "random", "lowest", "greedy", "os_ismcts")
#: The required tournament: the strongest method (det) against every other agent, the other
#: method against the simple bots, both against OpenSpiel's ISMCTS (ismcts only on late
#: starts: on full deals OpenSpiel's random rollouts make a game cost ~3 s), the costliest
#: last.
DEFAULT_PAIRINGS = ("det:ismcts,det:greedy,det:lowest,det:random,ismcts:greedy,ismcts:lowest,"
                    "ismcts:random,ismcts:os_ismcts@late,det:os_ismcts")
METHODS = ("det", "ismcts", "os_ismcts")


# -- starts ----------------------------------------------------------------------------------

def make_start(kind: str, seed: int, late_cards: int = 12):
    """``(state, tracker, history)`` of start ``seed`` (two players, standard rules): the
    starts of ``palace match`` (palace_solver/jobs/match.py) under this tournament's seeds."""
    return _make_start(kind, Rules(), 2, f"tournament-{kind}-{seed}", late_cards)


# -- agents ----------------------------------------------------------------------------------

def make_agent(name: str, budget: dict, seed: int):
    """A bot for one game. ``os_ismcts`` is built by the OpenSpiel driver instead."""
    if name == "det":
        return DetBot(seed, samples=budget["det_samples"], deal_nodes=budget["det_nodes"],
                      exact_mode_nodes=budget["det_exact_nodes"],
                      draw_limit=budget["draw_limit"])
    if name == "ismcts":
        return IsmctsBot(seed, iterations=budget["ismcts_iterations"],
                         draw_limit=budget["draw_limit"])
    return make_bot(name)


def _agent_stats(agent) -> dict:
    st = getattr(agent, "stats", None)
    return {} if st is None else {k: (round(v, 6) if isinstance(v, float) else v)
                                  for k, v in st.items()}


# -- one game --------------------------------------------------------------------------------

def play_one(task: dict) -> dict:
    """One game of a tournament (a batch task): ``{"a", "b", "kind", "start", "swap",
    "seed", "late_cards", "budget"}``. Seat 0 is ``a`` unless ``swap``.

    Returns the loss share of each seat, A's score, the outcome (``win``/``loss``/``draw``
    for A), the decisions played and each method's search statistics.
    """
    a, b, swap = task["a"], task["b"], bool(task["swap"])
    names = [b, a] if swap else [a, b]
    start, tracker, history = make_start(task["kind"], task["start"], task["late_cards"])
    t0 = time.perf_counter()
    if "os_ismcts" in names:
        loss, decisions, reason, stats = _play_openspiel(task, names, start, tracker, history)
    else:
        bots = [make_agent(nm, task["budget"], task_seed(task["seed"], f"{task['id']}/{i}"))
                for i, nm in enumerate(names)]
        loss, decisions, reason = _play(start, tracker, bots, task)
        stats = {nm: _agent_stats(bt) for nm, bt in zip(names, bots) if nm in METHODS}
    sa = 1 if swap else 0
    score = 1.0 - loss[sa]
    return {"loss": loss, "score": score, "seats": names, "decisions": decisions,
            "reason": reason, "outcome": "win" if score == 1 else "loss" if score == 0
            else "draw", "seconds": round(time.perf_counter() - t0, 4), "stats": stats}


def _chance_rng(task) -> random.Random:
    # The same for both seatings of a start (common random numbers).
    return random.Random(f"tournament-play-{task['seed']}-{task['kind']}-{task['start']}")


def _play(start: State, tracker: HandTracker, bots, task):
    s, tracker = start.clone(), tracker.clone()
    for bt in bots:
        bt.tracker = tracker
    rng = _chance_rng(task)
    bot_rng = random.Random(task_seed(task["seed"], f"{task['id']}/bots"))
    seen: set = set()
    for decisions in range(CAP + 1):
        while s.is_chance():
            tracker.apply(s, _sample(s, rng))
        if s.is_terminal():
            return [float(x) for x in s.result()], decisions, "end"
        if decisions == CAP:
            break
        k = s.key()
        if k in seen:
            return [0.5, 0.5], decisions, "repetition"
        seen.add(k)
        tracker.apply(s, bots[s.to_move].choose(s, bot_rng))
    return [0.5, 0.5], CAP, "cap"


def _play_openspiel(task, names, start, tracker, history):
    """The game on python_palace: the start replayed, then OpenSpiel's ISMCTS bot and ours.
    Same chance generator, repetition rule and cap as :func:`_play`."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import palace_solver.interop.openspiel_game  # noqa: F401 - registers python_palace

    prefix = sum(isinstance(ev, Move) for ev in history)
    game = pyspiel.load_game("python_palace", {"players": 2, "max_turns": prefix + CAP})
    st = game.new_initial_state()
    for ev in history:
        st.apply_action(ev if isinstance(ev, int) else st.action_of(ev))
    assert st.engine.key() == start.key()
    budget = task["budget"]
    os_seat = names.index("os_ismcts")
    ours_name = names[1 - os_seat]
    ours = make_agent(ours_name, budget, task_seed(task["seed"], f"{task['id']}/{1 - os_seat}"))
    tracker = tracker.clone()
    ours.tracker = tracker
    rs = np.random.RandomState(task_seed(task["seed"], f"{task['id']}/os") % 2 ** 32)
    if budget.get("os_rollout", "openspiel") == "compiled":
        from palace_solver.interop.openspiel_rollout import CompiledRollouts
        evaluator = CompiledRollouts(rs)
    else:
        evaluator = mcts.RandomRolloutEvaluator(1, rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=budget["os_uct"],
                           max_simulations=budget["os_sims"], random_state=rs)
    rng = _chance_rng(task)
    bot_rng = random.Random(task_seed(task["seed"], f"{task['id']}/bots"))
    seen: set = set()
    os_stats = {"decisions": 0, "searched": 0, "samples": 0, "seconds": 0.0}
    reason, loss, decisions = "cap", [0.5, 0.5], CAP
    for d in range(CAP + 1):
        while st.is_chance_node():
            tracker.before(st.engine)
            st.apply_action(_sample(st.engine, rng))
            tracker.after(st.engine)
        if st.is_terminal():
            loss, decisions, reason = [float(x) for x in st.loss_shares()], d, "end"
            break
        if d == CAP:
            break
        k = st.engine.key()
        if k in seen:
            loss, decisions, reason = [0.5, 0.5], d, "repetition"
            break
        seen.add(k)
        tracker.before(st.engine)
        if st.current_player() == os_seat:
            os_stats["decisions"] += 1
            if len(st.legal_actions()) == 1:
                action = st.legal_actions()[0]
            else:
                t = time.perf_counter()
                action = bot.step(st)
                os_stats["seconds"] += time.perf_counter() - t
                os_stats["searched"] += 1
                os_stats["samples"] += budget["os_sims"]
            st.apply_action(action)
        else:
            st.apply_action(st.action_of(ours.choose(st.engine, bot_rng)))
        tracker.after(st.engine)
    stats = {"os_ismcts": {k: (round(v, 6) if isinstance(v, float) else v)
                           for k, v in os_stats.items()}}
    if ours_name in METHODS:
        stats[ours_name] = _agent_stats(ours)
    return loss, decisions, reason, stats


# -- the batch -------------------------------------------------------------------------------

def make_tasks(pairings, kinds, starts: int, seed: int, late_cards: int, budget: dict):
    """One task per game: every pairing, kind (a pairing's own kinds when it has them:
    ``(a, b, kinds)``), start and seating."""
    tasks = []
    for pairing in pairings:
        a, b = pairing[:2]
        for kind in (pairing[2] if len(pairing) > 2 else kinds):
            for i in range(starts):
                for swap in (0, 1):
                    tasks.append({"id": f"{a}:{b}/{kind}/{i}/{swap}", "a": a, "b": b,
                                  "kind": kind, "start": i, "swap": swap, "seed": seed,
                                  "late_cards": late_cards, "budget": budget})
    return tasks


def summarize(tasks, results) -> list[dict]:
    """Per pairing and kind: games, A's score with its paired 95% interval, p-value,
    wins/draws/losses of A, mean decisions."""
    groups: dict = {}
    for t, r in zip(tasks, results):
        g = groups.setdefault((t["a"], t["b"], t["kind"]),
                              {"pairs": {}, "w": 0, "d": 0, "l": 0, "dec": 0, "n": 0,
                               "seat0": 0.0})
        g["pairs"].setdefault(t["start"], []).append(r["score"])
        g[r["outcome"][0]] += 1
        g["dec"] += r["decisions"]
        g["n"] += 1
        g["seat0"] += 1.0 - r["loss"][0]
    rows = []
    for (a, b, kind), g in groups.items():
        pairs = [sum(v) / len(v) for v in g["pairs"].values()]
        m, lo, hi = mean_ci(pairs)
        rows.append({"a": a, "b": b, "kind": kind, "starts": len(pairs), "games": g["n"],
                     "score": m, "lo": lo, "hi": hi, "p": p_value(m, pairs),
                     "wins": g["w"], "draws": g["d"], "losses": g["l"],
                     "mean_decisions": g["dec"] / g["n"], "seat0_score": g["seat0"] / g["n"]})
    return rows


def speeds(results) -> dict:
    """Per method: searched decisions, determinizations (or iterations, or simulations) and
    search seconds, summed over the games."""
    out: dict = {}
    for r in results:
        for name, st in r["stats"].items():
            acc = out.setdefault(name, {"decisions": 0, "searched": 0, "samples": 0,
                                        "solves": 0, "nodes": 0, "safety_stops": 0,
                                        "seconds": 0.0})
            for k in acc:
                acc[k] += st.get(k, 0)
    return out


UNITS = {"det": "determinizations", "ismcts": "iterations (one determinization each)",
         "os_ismcts": "simulations (one resampled world each)"}


def git_commit() -> str:
    """The checkout's commit, marked when the code that plays differs from it."""
    here = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=here).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "-uno", "--", "benchmarks",
                                "palace_solver", "ext"], capture_output=True, text=True,
                               cwd=here).stdout.strip()
    except OSError:
        return "unknown"
    import hashlib

    import palace_solver._engine as eng
    # The extension is rebuilt in place by whoever works on ext/: name the build loaded.
    build = hashlib.sha256(Path(eng.__file__).read_bytes()).hexdigest()[:12]
    return (commit + (" (with uncommitted changes)" if dirty else "")
            + f", compiled engine build sha256 {build}")


def _p_text(p: float) -> str:
    return f"{p:.1e}" if p > 0 else "< 1e-300"  # erfc underflows past ~37 standard errors


def report(args, budget, rows, speed, wall: float, argv, commit: str = "") -> str:
    """The results as markdown: command, commit, budgets, the table, the speeds."""
    alpha = 0.05 / max(1, len(rows))
    lines = [f"command: `python benchmarks/tournament.py {' '.join(argv)}`",
             f"commit at start: {commit or git_commit()}",
             f"budgets: {json.dumps(budget, sort_keys=True)}",
             f"wall time: {wall:.0f} s, jobs {args.jobs}"
             + (" (this report only read the output file)" if args.summary_only else ""), "",
             "| A | B | starts | games | A score | 95% CI (paired) | p | verdict | "
             "A W/D/L | decisions/game |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["lo"] > 0.5:
            verdict = "A better" + ("" if r["p"] < alpha else " (not after Bonferroni)")
        elif r["hi"] < 0.5:
            verdict = "B better" + ("" if r["p"] < alpha else " (not after Bonferroni)")
        else:
            verdict = "not significant"
        lines.append(f"| {r['a']} | {r['b']} {r['kind']} | {r['starts']} | {r['games']} | "
                     f"{r['score']:.3f} | [{r['lo']:.3f}, {r['hi']:.3f}] | {_p_text(r['p'])} | "
                     f"{verdict} | {r['wins']}/{r['draws']}/{r['losses']} | "
                     f"{r['mean_decisions']:.1f} |")
    lines += ["", f"Bonferroni level over {len(rows)} rows: p < {alpha:.1e}.", "",
              "| method | searched decisions | units | per decision | units/s | "
              "ms per searched decision |", "|---|---|---|---|---|---|"]
    for name, sp in speed.items():
        per = sp["samples"] / sp["searched"] if sp["searched"] else 0.0
        rate = sp["samples"] / sp["seconds"] if sp["seconds"] else 0.0
        ms = 1000 * sp["seconds"] / sp["searched"] if sp["searched"] else 0.0
        lines.append(f"| {name} | {sp['searched']} of {sp['decisions']} | {UNITS[name]} | "
                     f"{per:.1f} | {rate:.0f} | {ms:.1f} |")
    if "det" in speed and speed["det"]["seconds"]:
        d = speed["det"]
        lines.append("")
        lines.append(f"det: {d['solves']} distinct deals solved, {d['nodes']} search nodes "
                     f"({d['nodes'] / d['seconds']:.0f} nodes/s over its search time), "
                     f"{d['safety_stops']} searches cut by the safety time limit.")
    return "\n".join(lines)


def finished_games(tasks, output):
    """The tasks of ``tasks`` already in the batch output file, and their results (a
    partial report of a run still going or interrupted)."""
    if not output:
        raise SystemExit("--summary-only needs --output")
    done = {}
    with open(output) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line being written
            if "result" in rec:
                done[rec["id"]] = rec["result"]
    kept = [t for t in tasks if t["id"] in done]
    return kept, [done[t["id"]] for t in kept]


def parse_pairings(text: str):
    """``a:b`` or ``a:b@kind`` (that pairing on that kind of start only), comma-separated."""
    out = []
    for pair in text.split(","):
        spec, _, kind = pair.strip().partition("@")
        a, _, b = spec.partition(":")
        if a not in AGENTS or b not in AGENTS or a == b:
            raise SystemExit(f"bad pairing {pair!r}: agents are {', '.join(AGENTS)}")
        if a == "os_ismcts":
            raise SystemExit(f"bad pairing {pair!r}: put os_ismcts second")
        if kind and kind not in ("late", "full"):
            raise SystemExit(f"bad pairing {pair!r}: the kind after @ is late or full")
        out.append((a, b, [kind]) if kind else (a, b))
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=1000, help="starts per pairing and kind "
                    "(each played twice, seats swapped)")
    ap.add_argument("--kinds", default="late,full", help="late, full or both")
    ap.add_argument("--late-cards", type=int, default=12,
                    help="late starts: at most this many cards in play")
    ap.add_argument("--pairings", default=DEFAULT_PAIRINGS,
                    help="comma-separated a:b, or a:b@late / a:b@full for one kind only")
    ap.add_argument("--det-samples", type=int, default=8, help="det: deals per decision")
    ap.add_argument("--det-nodes", type=int, default=10_000,
                    help="det: search nodes per deal")
    ap.add_argument("--det-exact-nodes", type=int, default=100_000,
                    help="det: search nodes when no hand card is hidden (one deal)")
    ap.add_argument("--ismcts-iterations", type=int, default=100,
                    help="ismcts: iterations per decision")
    ap.add_argument("--draw-limit", type=int, default=0, help="det and ismcts play greedy "
                    "while the draw pile holds more cards than this")
    ap.add_argument("--os-sims", type=int, default=5,
                    help="OpenSpiel ISMCTS: simulations per decision")
    ap.add_argument("--os-rollout", choices=("openspiel", "compiled"), default="openspiel",
                    help="OpenSpiel ISMCTS leaf evaluation: OpenSpiel's RandomRolloutEvaluator "
                         "on python_palace, or the same random rollouts on the compiled "
                         "engine (palace_solver/openspiel_rollout.py; a full-deal game at 5 "
                         "simulations: 3.2 s -> 1.4 s)")
    ap.add_argument("--os-uct", type=float, default=1.4, help="OpenSpiel ISMCTS: uct_c")
    ap.add_argument("--seed", type=int, default=0, help="seed of the starts and the games")
    ap.add_argument("--jobs", type=int, default=1, help="local worker processes")
    ap.add_argument("--ray", default=None, help="Ray cluster address (batch.py)")
    ap.add_argument("--output", default=None, help="resumable JSONL of finished games")
    ap.add_argument("--report", default=None, help="also write the markdown report here")
    ap.add_argument("--progress", action="store_true", help="progress bar on stderr")
    ap.add_argument("--summary-only", action="store_true",
                    help="play nothing: report the games already in --output")
    ap.add_argument("--quick", action="store_true",
                    help="a small run: 5 starts, 4 deals, 50 iterations, 5 simulations")
    args = ap.parse_args(argv)
    if args.quick:
        args.starts, args.det_samples, args.ismcts_iterations, args.os_sims = 5, 4, 50, 5
    pairings = parse_pairings(args.pairings)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not kinds or any(k not in ("late", "full") for k in kinds):
        raise SystemExit(f"bad --kinds {args.kinds!r}: late, full or both")
    try:
        import open_spiel  # noqa: F401
    except ImportError:
        skipped = [p for p in pairings if "os_ismcts" in p[:2]]
        if skipped:
            print(f"skipped (open_spiel is not installed): "
                  f"{', '.join(p[0] + ':' + p[1] for p in skipped)}")
        pairings = [p for p in pairings if "os_ismcts" not in p[:2]]
    budget = {"det_samples": args.det_samples, "det_nodes": args.det_nodes,
              "det_exact_nodes": args.det_exact_nodes,
              "ismcts_iterations": args.ismcts_iterations, "draw_limit": args.draw_limit,
              "os_sims": args.os_sims, "os_uct": args.os_uct}
    if args.os_rollout != "openspiel":
        # only when not the default, so that files of earlier runs still resume
        budget["os_rollout"] = args.os_rollout
    tasks = make_tasks(pairings, kinds, args.starts, args.seed, args.late_cards, budget)
    commit = git_commit()
    t0 = time.perf_counter()
    if args.summary_only:
        tasks, results = finished_games(tasks, args.output)
    else:
        results = run_batch(play_one, tasks, jobs=args.jobs, ray=args.ray,
                            output=args.output, progress=args.progress, label="games")
    text = report(args, budget, summarize(tasks, results), speeds(results),
                  time.perf_counter() - t0, argv, commit)
    print(text)
    if args.report:
        Path(args.report).write_text(text + "\n")


if __name__ == "__main__":
    main()

"""Speed of the peers' agents, and the measurement that sets ``mos_uct``'s budget.

    python benchmarks/peers_speed.py [--games 4] [--mos-src PATH [--mos-games 20]]

writes ``results/peers-speed.json`` (the peers; ``--games 0`` skips them) and, with
``--mos-src``, ``results/peers-mos-budget.json`` (their search), with their provenance.

Peers: CPU ms per searched decision of ``server_ismcts`` and ``mos_uct`` at their defaults
(palace_solver/agents/peers.py), in ``--games`` full-deal starts of ``palace match`` (two
players) against ``greedy``, each start in both seatings, played as the match plays them (a
repeated position or 400 decisions is a draw); split by phase (the draw pile holds cards,
or is empty), with tree nodes and rollout decisions per searched decision, and their sum
over all of it as the run's signature (the same on every machine).

masters-of-shithead (``--mos-src``: the ``src`` directory of a checkout of
trachwo/masters-of-shithead; nothing of theirs is in this repository, and this script only
imports it from that path): their own ``MonteCarlo.run_search`` (monte_carlo.py) with
DeeperShit's one-second timeout, on the positions where DeeperShit searches: end-game
decisions (two players, talon empty, more than one legal play) of games dealt by Python's
``random.seed(k)``, k < ``--mos-games``, played by their ``TakeShit`` bot; three positions a
game (the end game's first decision and those a third and two thirds of the way through),
and for reference two draw-phase decisions a game (the first play and the middle of the
talon phase), where DeeperShit does not search. The timeout is read from CPU time
(``time.process_time`` given to their module in place of ``time``): this machine's two
cores are shared, and one wall-clock second gave their search about half a second of CPU.
Each search counts the passes of its loop (a subclass counts ``select`` calls) and the
nodes of its tree. The median nodes over the end-game positions is ``MOS_NODES``.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import types

import provenance

from palace_solver.agents.peers import MOS_NODES
from palace_solver.agents.play import _sample
from palace_solver.agents.registry import make_agent
from palace_solver.game.rules import Rules
from palace_solver.jobs.batch import task_seed
from palace_solver.jobs.match import CAP, make_start, start_key

PEERS = ("server_ismcts", "mos_uct")


def _quartiles(xs):
    xs = sorted(xs)
    if not xs:
        return None
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return {"n": len(xs), "min": xs[0], "q1": q[0], "median": statistics.median(xs),
            "q3": q[2], "max": xs[-1], "mean": round(statistics.mean(xs), 3)}


def _game(start, tracker, agents, rng, bot_rng, cap=CAP):
    """A game from a match start, as ``palace match`` plays it: chance from ``rng``, a
    draw at a repeated decision position or after ``cap`` decisions."""
    s, tracker = start.clone(), tracker.clone()
    for ag in agents:
        if hasattr(ag, "tracker"):
            ag.tracker = tracker
    seen = set()
    for _ in range(cap):
        while s.is_chance():
            tracker.apply(s, _sample(s, rng))
        if s.is_terminal() or s.key() in seen:
            return
        seen.add(s.key())
        tracker.apply(s, agents[s.to_move].choose(s, bot_rng))


def peer_speed(name: str, games: int) -> dict:
    """CPU ms per searched decision of agent ``name`` against greedy, by phase."""
    rules = Rules()
    per = {"draw": [], "end": []}
    nodes = {"draw": 0, "end": 0}
    steps = {"draw": 0, "end": 0}
    for i in range(games):
        for seat in (0, 1):
            start, tracker, _ = make_start("full", rules, 2, start_key("full", 2, 0, i))
            agent = make_agent(name, task_seed(0, f"peers-speed/{i}/{seat}"))
            choose = agent.choose

            def timed(s, rng, choose=choose, agent=agent):
                searched, n0, r0 = (agent.stats["searched"], agent.stats["nodes"],
                                    agent.stats["rollout_steps"])
                t = time.process_time()
                mv = choose(s, rng)
                if agent.stats["searched"] > searched:
                    phase = "draw" if s.draw_pile > 0 else "end"
                    per[phase].append(1000 * (time.process_time() - t))
                    nodes[phase] += agent.stats["nodes"] - n0
                    steps[phase] += agent.stats["rollout_steps"] - r0
                return mv

            agent.choose = timed
            other = make_agent("greedy")
            _game(start, tracker, [agent, other] if seat == 0 else [other, agent],
                  random.Random(f"peers-speed-{i}"), random.Random(f"peers-bots-{i}-{seat}"))
    out = {"agent": name, "games": 2 * games}
    for phase in ("draw", "end"):
        k = len(per[phase])
        out[phase] = {"decisions": k,
                      "ms_per_decision": _quartiles([round(x, 2) for x in per[phase]]),
                      "nodes_per_decision": round(nodes[phase] / k, 1) if k else None,
                      "rollout_decisions_per_decision": round(steps[phase] / k, 1)
                      if k else None,
                      "nodes": nodes[phase], "rollout_decisions": steps[phase]}
    allms = per["draw"] + per["end"]
    out["ms_per_decision"] = _quartiles([round(x, 2) for x in allms])
    return out


def mos_positions(mod, seed: int):
    """(end-game positions, draw-phase positions) of one TakeShit game of theirs."""
    Game, State, Play, plr = mod["Game"], mod["State"], mod["Play"], mod["plr"]
    random.seed(seed)
    fup = mod["FupTable"]()
    fup.load(mod["FUP_TABLE_FILE"], True)
    st = State([plr.TakeShit("A", fup), plr.TakeShit("B", fup)], -1, Game.calc_nof_decks(2),
               ("One Line", False, False, ""))
    for action in ("SHUFFLE", "BURN", "DEAL"):
        st = Game.next_state(st, Play(action), None, None)
    end, draw = [], []
    while len(st.players) > 1:
        if st.game_phase == 2 and len(st.get_legal_plays()) > 1:
            (end if len(st.talon) == 0 and len(st.players) == 2 else draw).append(st.copy())
        play = st.players[st.player].play(st)
        if play.action == "ABORT":
            break
        st = Game.next_state(st, play, None, None)
    pick_end = sorted({0, len(end) // 3, 2 * len(end) // 3}) if end else []
    pick_draw = sorted({0, len(draw) // 2}) if draw else []
    return [end[i] for i in pick_end], [draw[i] for i in pick_draw]


def mos_rate(src: str, games: int, seconds: float) -> dict:
    """Their run_search on their positions (module doc): passes and nodes per search."""
    sys.path.insert(0, src)
    import shithead.monte_carlo as mc
    from shithead import player as plr
    from shithead.fup_table import FUP_TABLE_FILE, FupTable
    from shithead.game import Game
    from shithead.play import Play
    from shithead.state import State

    mc.time = types.SimpleNamespace(time=time.process_time)   # their timeout in CPU seconds

    class Counting(mc.MonteCarlo):
        passes = 0

        def select(self, state, verbose=False):
            self.passes += 1
            return super().select(state, verbose)

    mod = {"Game": Game, "State": State, "Play": Play, "plr": plr, "FupTable": FupTable,
           "FUP_TABLE_FILE": FUP_TABLE_FILE}
    rows = []
    for seed in range(games):
        end, draw = mos_positions(mod, seed)
        for kind, states in (("end", end), ("draw", draw)):
            for k, st in enumerate(states):
                random.seed(f"mos-search-{seed}-{kind}-{k}")
                m = Counting(Game)
                c0, w0 = time.process_time(), time.perf_counter()
                m.run_search(st.copy(), seconds)
                rows.append({"game": seed, "kind": kind, "position": k, "passes": m.passes,
                             "nodes": len(m.nodes), "simulations": m.simulations,
                             "aborted": m.aborts,
                             "turns_per_simulation": round(m.simulation_turns
                                                           / max(1, m.simulations), 1),
                             "cpu_seconds": round(time.process_time() - c0, 3),
                             "wall_seconds": round(time.perf_counter() - w0, 3)})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    out = {"rows": rows}
    for kind in ("end", "draw"):
        sel = [r for r in rows if r["kind"] == kind]
        out[kind] = {"positions": len(sel),
                     "passes": _quartiles([r["passes"] for r in sel]),
                     "nodes": _quartiles([r["nodes"] for r in sel]),
                     "wall_seconds": _quartiles([r["wall_seconds"] for r in sel])}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="full-deal starts per peer (0: none)")
    ap.add_argument("--mos-src", default=None,
                    help="src/ of a masters-of-shithead checkout: measure their search")
    ap.add_argument("--mos-commit", default=None, help="that checkout's commit (recorded)")
    ap.add_argument("--mos-games", type=int, default=20, help="their games to take positions from")
    ap.add_argument("--mos-seconds", type=float, default=1.0, help="their search's timeout")
    args = ap.parse_args(argv)
    if args.mos_src:
        rec = provenance.record()
        res = {"masters_of_shithead": {"commit": args.mos_commit, "seconds": args.mos_seconds,
                                       **mos_rate(args.mos_src, args.mos_games,
                                                  args.mos_seconds)}}
        for what in ("nodes", "passes"):
            e = res["masters_of_shithead"]["end"][what]
            print(f"masters-of-shithead run_search, {args.mos_seconds:g} CPU s, end game: "
                  f"{what} median {e['median']} (quartiles {e['q1']}-{e['q3']}, "
                  f"{e['n']} positions)")
        print(provenance.write("peers-mos-budget.json", res, rec))
    if args.games:
        rec = provenance.record()
        peers = [peer_speed(name, args.games) for name in PEERS]
        for p in peers:
            ms = p["ms_per_decision"]
            by = {ph: (p[ph]["ms_per_decision"] or {}).get("median") for ph in ("draw", "end")}
            print(f"{p['agent']}: {ms['median']} ms a searched decision (mean {ms['mean']}, "
                  f"{ms['n']} decisions); draw phase {by['draw']} ms, end game {by['end']} ms")
        signature = {p["agent"]: sum(p[ph]["nodes"] + p[ph]["rollout_decisions"]
                                     for ph in ("draw", "end")) for p in peers}
        print("signature", signature)
        print(provenance.write("peers-speed.json", {"signature": signature, "mos_nodes": MOS_NODES,
                                                    "peers": peers}, rec))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

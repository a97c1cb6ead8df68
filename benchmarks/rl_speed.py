"""Steps per second of the PettingZoo environment against OpenSpiel's ``python_palace`` on
the same random games, side by side in one run.

    python benchmarks/rl_speed.py                       # 2, 3 and 6 players, 40 games each
    python benchmarks/rl_speed.py --games 10 --rounds 1 --out -    # a quick look

Games: for each player count, ``--games`` random games through the PettingZoo environment
(seeds 0, 1, ...: the deal and every chance event from the seed; each decision uniform over
the legal actions from a generator of the same seed), recorded event by event. Every
runner then plays exactly those games, decision for decision:

- ``pettingzoo env()``: the wrapped environment a user gets (PettingZoo's classic wrappers:
  order enforcing, bounds, illegal moves), the AEC loop ``agent_iter``/``last``/``step``
  with the recorded action; ``last`` builds the observation array and the action mask.
- ``pettingzoo raw_env``: the same loop without the wrappers.
- ``driver + observation`` and ``driver``: where the time goes, the game driver both
  environments share (``palace_solver.interop.rl.Game``: the reference engine with its
  compiled twin, the public knowledge of the hands, the repetition and cap rules) with and
  without the mover's observation array and action mask.
- ``open_spiel``: ``python_palace`` replaying the game's events with ``apply_action``
  (the deal card by card, the layouts, the chance draws and flips), asking
  ``legal_actions`` at each decision as an agent would, and ``+ observation``: also
  ``observation_string`` of the player to move (its observations are strings; no tensor).

A step is one decision of a player in the play phase, the same count for every runner
(OpenSpiel's chance events and layouts are part of the game it replays, not steps).
Runners alternate, ``--rounds`` times, and each reports its best round (the machine is
shared: the provenance records the load at the start and the end). Times are CPU seconds of
this process (``time.process_time``). Results: ``benchmarks/results/rl-speed.json``, with
the provenance of :mod:`provenance` and the versions of PettingZoo and Gymnasium.
"""
from __future__ import annotations

import argparse
import random
import time
from importlib import metadata

import numpy as np
import provenance

from palace_solver.game.moves import Move
from palace_solver.interop.pettingzoo import env as pz_env
from palace_solver.interop.pettingzoo import raw_env
from palace_solver.interop.rl import Game, make_rules

OUT = "rl-speed.json"


def record(n: int, seed: int) -> dict:
    """One random game through the environment: its seed, actions and events."""
    e = raw_env(num_players=n)
    e.reset(seed=seed)
    chance = random.Random(seed).getrandbits(64)    # the game's chance seed (raw_env.reset)
    rng = np.random.default_rng(seed)
    actions = []
    while not e.game.over:
        a = int(rng.choice(e.game.legal_actions()))
        actions.append(a)
        e.step(a)
    return {"seed": seed, "chance": chance, "actions": actions, "events": list(e.game.events),
            "reason": e.game.reason, "decisions": e.game.decisions}


def run_pettingzoo(make, n: int, games) -> float:
    t0 = time.process_time()
    for g in games:
        e = make(num_players=n)
        e.reset(seed=g["seed"])
        acts = iter(g["actions"])
        for _ in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            e.step(None if terminated or truncated else next(acts))
    return time.process_time() - t0


def run_driver(n: int, games, observe: bool, check: bool = False) -> float:
    """The game driver alone (palace_solver.interop.rl.Game): the decisions, with the
    public knowledge and the end rules; ``observe``: also the mover's array and mask."""
    g = Game(make_rules(), n)
    t0 = time.process_time()
    for rec in games:
        g.reset(random.Random(rec["chance"]))
        for a in rec["actions"]:
            if observe:
                g.observation(g.to_move)
                g.action_mask()
            g.play(a)
        if check:
            assert g.events == rec["events"] and g.over, rec["seed"]
    return time.process_time() - t0


def os_actions(game, g) -> list:
    """The game's events as python_palace actions: (is a decision, action id)."""
    codec = game.codec
    return [(isinstance(ev, Move), codec.encode(ev) if isinstance(ev, Move) else ev)
            for ev in g["events"]]


def run_open_spiel(game, games, observe: bool) -> float:
    scripts = [os_actions(game, g) for g in games]
    t0 = time.process_time()
    for script in scripts:
        st = game.new_initial_state()
        for decision, a in script:
            if decision:
                st.legal_actions()
                if observe:
                    st.observation_string(st.current_player())
            st.apply_action(a)
    return time.process_time() - t0


def check_open_spiel(game, games) -> None:
    """The replayed games are legal in python_palace, decision for decision."""
    for g in games:
        st = game.new_initial_state()
        for decision, a in os_actions(game, g):
            if decision:
                assert a in st.legal_actions(), (g["seed"], a)
            else:
                assert a in [r for r, _ in st.chance_outcomes()], (g["seed"], a)
            st.apply_action(a)


def versions() -> dict:
    """The RL libraries' versions (provenance.py records the others)."""
    out = {}
    for dist in ("pettingzoo", "gymnasium"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default="2,3,6", help="player counts (default 2,3,6)")
    ap.add_argument("--games", type=int, default=40, help="games per player count")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (best kept)")
    ap.add_argument("--out", default=OUT,
                    help=f"results file, a bare name under benchmarks/results/ ('-': none; "
                         f"default {OUT})")
    args = ap.parse_args(argv)
    import pyspiel

    import palace_solver.interop.openspiel_game  # noqa: F401 - registers python_palace
    rec = provenance.record()
    rows = []
    for n in (int(x) for x in args.players.split(",")):
        games = [record(n, seed) for seed in range(args.games)]
        # python_palace's own cap is only a bound here: the games stop where they stopped
        game = pyspiel.load_game("python_palace", {"players": n, "max_turns": 100_000})
        check_open_spiel(game, games)
        run_driver(n, games, False, check=True)
        steps = sum(g["decisions"] for g in games)
        runners = {"pettingzoo env()": lambda: run_pettingzoo(pz_env, n, games),
                   "pettingzoo raw_env": lambda: run_pettingzoo(raw_env, n, games),
                   "driver + observation": lambda: run_driver(n, games, True),
                   "driver": lambda: run_driver(n, games, False),
                   "open_spiel": lambda: run_open_spiel(game, games, False),
                   "open_spiel + observation": lambda: run_open_spiel(game, games, True)}
        best = {k: float("inf") for k in runners}
        for _ in range(args.rounds):
            for k, fn in runners.items():
                best[k] = min(best[k], fn())
        row = {"players": n, "games": len(games), "steps": steps,
               "ends": {r: sum(g["reason"] == r for g in games)
                        for r in ("end", "repetition", "cap")},
               "seconds": {k: round(v, 4) for k, v in best.items()},
               "steps_per_second": {k: round(steps / v) for k, v in best.items()}}
        rows.append(row)
        print(f"{n} players: {len(games)} games, {steps:,} steps "
              f"(ends {row['ends']})")
        for k, v in row["steps_per_second"].items():
            print(f"  {k:26s} {v:>9,} steps/s")
    if args.out != "-":
        path = provenance.write(args.out, {
            "versions": versions(), "engine": Game(make_rules(), 2).engine,
            "timing": "CPU seconds of the process, best of the rounds",
            "rounds": args.rounds, "rows": rows}, rec)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""OpenSpiel's ISMCTS bot on python_palace: seat 0 is the bot, the others play at random.

    python benchmarks/openspiel_ismcts.py --players 2 --games 4 --sims 20 --max-turns 200

Prints one line per game (loss shares, turns, whether the turn cap ended it, bot decisions,
seconds) and a summary: the bot's mean loss share against the random seats' mean, time per
simulation, and how often resampling fell back to the true state. Needs open_spiel
(`pip install .[openspiel]`).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from palace_solver.interop.openspiel_game import PalaceState


def play(game, bot, rs):
    st = game.new_initial_state()
    decisions = 0
    while not st.is_terminal():
        if st.is_chance_node():
            actions, probs = zip(*st.chance_outcomes())
            st.apply_action(rs.choice(actions, p=probs))
        elif st.current_player() == 0:
            st.apply_action(bot.step(st))
            decisions += 1
        else:
            st.apply_action(rs.choice(st.legal_actions()))
    return st, decisions


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2, help="2 to 6")
    ap.add_argument("--variants", default="", help="comma-separated variant switches")
    ap.add_argument("--games", type=int, default=4, help="games to play")
    ap.add_argument("--sims", type=int, default=20, help="ISMCTS simulations per decision")
    ap.add_argument("--max-turns", type=int, default=300, help="turn cap (draw beyond it)")
    ap.add_argument("--seed", type=int, default=0, help="random seed")
    a = ap.parse_args(argv)
    game = pyspiel.load_game("python_palace", {"players": a.players, "variants": a.variants,
                                               "max_turns": a.max_turns})
    rs = np.random.RandomState(a.seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=1.4,
                           max_simulations=a.sims, random_state=rs)
    bot_loss, other_loss, total_dec, t0 = 0.0, 0.0, 0, time.perf_counter()
    print(f"game {game}  sims {a.sims}")
    for g in range(a.games):
        t = time.perf_counter()
        st, dec = play(game, bot, rs)
        loss = [float(x) for x in st.loss_shares()]
        bot_loss += loss[0]
        other_loss += sum(loss[1:]) / (a.players - 1)
        total_dec += dec
        print(f"game {g}: loss {['%.3f' % x for x in loss]} turns {st._d.turns}"
              f"{' (capped)' if st._d.capped else ''} bot decisions {dec}"
              f" {time.perf_counter() - t:.1f}s")
    secs = time.perf_counter() - t0
    print(f"bot mean loss {bot_loss / a.games:.3f}, random seats {other_loss / a.games:.3f}; "
          f"{secs:.1f}s, {1000 * secs / max(1, total_dec * a.sims):.2f} ms per simulation; "
          f"resample fallbacks {PalaceState.resample_fallbacks}")


if __name__ == "__main__":
    main()

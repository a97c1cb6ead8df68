"""benchmarks/engine_cost.py: two agents timed side by side on the same positions, from a
run's games or from fresh self-play games of an agent (``--play``)."""
from __future__ import annotations

import json

from scripts import load_script

from palace_solver.learn.engine_games import game_tasks, play_selfplay_game, replay_tracked

CHEAP = "engine:nodes=2000:determinizations=2:end_nodes=2000:end_determinizations=2"


def test_played_positions_are_the_games_choices_with_the_seats_moves_on_record(tmp_path):
    bench = load_script("benchmarks/engine_cost.py")
    tasks = game_tasks(3, seed=7, agent="greedy", players={3: 1.0})
    games = [(t["id"], play_selfplay_game(t)) for t in tasks]
    pos = bench.positions(6, every=5, games=iter(games))
    assert len(pos) == 6
    # every fifth decision with a choice, in game order, each with the record up to it
    want = [(s.key(), len(tr.history))
            for g, game in games for s, _, _, k, tr in replay_tracked(game)
            if k % 5 == 0 and len(s.legal_moves()) > 1][:6]
    assert [(s.key(), len(tr.history)) for s, tr in pos] == want
    assert all(s.n == 3 for s, _ in pos)

    out = tmp_path / "cost.json"
    assert bench.main(["--play", "greedy", "--players", "3", "--seed", "7", "--positions", "6",
                       "--a", CHEAP, "--b", CHEAP + ":model_styles=1:infer_greedy=0.1", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["run"] == "play:greedy:3p:seed7" and res["positions"] == 6
    counted = [res["phases"][ph][side]["decisions"] for ph in ("draw", "end")
               for side in ("a", "b") if res["phases"][ph][side]]
    assert sum(counted) == 2 * 6

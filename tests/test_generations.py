"""Each shipped generation rebuilds from what the repository holds: its recipe
(palace_solver/learn/generation.py), the self-play games its recipe names
(benchmarks/results/games/) and the trainer. The games' digest must equal the one the
weights were fitted on, and the fit must give the shipped weights again."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from palace_solver.learn.engine_games import (
    _game_config,
    first_games,
    game_tasks,
    play_selfplay_game,
)
from palace_solver.learn.generation import (
    REBUILD_ATOL,
    RECIPES,
    SWEEPS,
    fit_generation,
    games_digest,
    sweep,
)
from palace_solver.solve.engine import weights_path
from scripts import load_script

GAMES = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "games"


def _meta(gen):
    return _meta_of(weights_path(f"gen{gen}"))


def _meta_of(path):
    with np.load(path) as f:
        return json.loads(str(f["meta"])), {k: f[k] for k in f.files if k != "meta"}


def _runs(recipe):
    # a recipe may read a recorded strength row (``row:ROW``): the script reads those
    gens = _generations_script()
    return {run: gens.finished_games(run) if run.startswith(gens.ROW_RUN)
            else first_games(GAMES / f"{run}.jsonl") for run, _ in recipe["runs"]}


@pytest.mark.parametrize("gen", sorted(RECIPES))
def test_a_shipped_generation_says_its_recipe_and_games(gen):
    meta, _ = _meta(gen)
    assert meta["generation"] == gen
    assert json.loads(json.dumps(RECIPES[gen])) == meta["recipe"]
    runs = _runs(RECIPES[gen])
    for (run, count), digest in zip(RECIPES[gen]["runs"], meta["games_digest"], strict=True):
        assert len(runs[run]) >= count, f"{run}: the repository holds too few games"
        assert games_digest(runs[run][:count]) == digest


#: generations rebuilt by benchmarks/generations.py (REBUILT_HERE), too large for a test
HEAVY = {4, 5, 6}


#: The fit in a process of its own with OpenBLAS held to one kernel and one thread, as
#: benchmarks/generations.py fits (generation.REBUILD_ATOL says why and how far).
_REFIT = """
import sys
sys.path[:0] = [{tests!r}]
from palace_solver.learn.generation import RECIPES, fit_generation, save_generation
from test_generations import _runs
save_generation(fit_generation({gen}, RECIPES[{gen}], _runs(RECIPES[{gen}])), {out!r})
"""


def _refit(gen: int, out: Path) -> None:
    import os
    import subprocess
    import sys
    env = {**os.environ, **_generations_script().HELD_BLAS}
    code = _REFIT.format(tests=str(Path(__file__).resolve().parent), gen=gen, out=str(out))
    # (run from the output's folder: from the checkout, ``-c`` would import the uncompiled
    # source tree before the installed package)
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=out.parent)


@pytest.mark.parametrize("gen", sorted(set(RECIPES) - HEAVY))
def test_a_shipped_generation_rebuilds_from_its_recipe(gen, tmp_path):
    meta, shipped = _meta(gen)
    out = tmp_path / "again.npz"
    _refit(gen, out)
    again_meta, again = _meta_of(out)
    assert again.keys() == shipped.keys()
    for k, v in shipped.items():
        np.testing.assert_allclose(again[k], v, rtol=0, atol=REBUILD_ATOL, err_msg=k)
    assert again_meta["policy"]["held"]["decisions"] == meta["policy"]["held"]["decisions"]
    assert again_meta["train_positions"] == meta["train_positions"]


def test_the_generations_too_large_to_rebuild_here_were_rebuilt_as_shipped():
    # the rebuild of these runs in benchmarks/generations.py (rebuild GEN); its file must
    # name the weights shipped today and say they came out equal
    import hashlib
    assert set(_generations_script().REBUILT_HERE) == HEAVY <= set(RECIPES)
    for gen in sorted(HEAVY):
        out = GAMES.parent / f"generation{gen}-rebuild.json"
        assert out.exists(), f"run: python benchmarks/generations.py rebuild {gen}"
        res = json.loads(out.read_text())
        shipped = Path(weights_path(f"gen{gen}"))
        assert res["generation"] == gen and res["equal"] is True
        assert res["shipped_sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
        assert res["provenance"]["dirty"] is False


def test_a_recipe_that_needs_more_games_than_a_run_holds_is_refused():
    games = [(t["id"], play_selfplay_game(t)) for t in game_tasks(2, seed=9, agent="greedy")]
    with pytest.raises(ValueError, match="2 finished games, the recipe needs 3"):
        fit_generation(9, {"runs": [["r", 3]], "train": {"epochs": 1}}, {"r": games})


def test_the_fit_is_deterministic():
    games = [(t["id"], play_selfplay_game(t)) for t in game_tasks(12, seed=4, agent="greedy")]
    recipe = {"runs": [["r", 12]], "init": "gen0", "train": {"epochs": 2, "seed": 3}}
    a = fit_generation(1, recipe, {"r": games})
    b = fit_generation(1, recipe, {"r": games})
    for k in a["weights"]:
        assert np.array_equal(a["weights"][k], b["weights"][k])
    assert np.array_equal(a["policy"], b["policy"])
    # and the games matter: another set gives other weights
    c = fit_generation(1, recipe, {"r": games[:11] + games[:1]})
    assert not np.array_equal(a["weights"]["w1"], c["weights"]["w1"])


def test_a_sweep_fits_every_variant_and_chooses_the_lowest_held_out_log_loss():
    games = [(t["id"], play_selfplay_game(t)) for t in game_tasks(20, seed=6, agent="greedy")]
    grid = {"runs": [["r", 20]], "init": ["gen0", "gen1"],
            "train": {"epochs": [1, 2], "lr": [5e-4], "seed": [0]}}
    res = sweep(grid, {"r": games})
    assert [(f["recipe"]["init"], f["recipe"]["train"]["epochs"]) for f in res["fits"]] == [
        ("gen0", 1), ("gen0", 2), ("gen1", 1), ("gen1", 2)]
    lls = [f["held_logloss"] for f in res["fits"]]
    assert len(set(lls)) == 4
    assert res["chosen"] == res["fits"][lls.index(min(lls))]["recipe"]
    # the chosen recipe, fitted as a generation, has the log loss the sweep reported
    from palace_solver.learn.train import errors
    again = fit_generation(3, res["chosen"], {"r": games})
    assert errors(again["weights"], again["held"])["logloss"] == min(lls)


def test_each_planned_sweep_names_runs_the_repository_can_hold():
    gens = _generations_script()
    for gen, grid in SWEEPS.items():
        assert gen not in RECIPES or RECIPES[gen]["runs"] == grid["runs"]
        for run, count in grid["runs"]:
            assert count > 0
            if run.startswith(gens.ROW_RUN):
                from strength import RECORDED, ROWS  # benchmarks/strength.py
                row = run[len(gens.ROW_RUN):]
                assert row in RECORDED
                players, starts = ROWS[row][2], ROWS[row][4]
                # whole starts (every seating: a start's games share its deal and chance)
                assert count <= starts * players and count % players == 0
            else:
                assert run in gens.RUNS
        # a generation chosen by its sweep is the sweep's choice, as the sweep wrote it
        out = Path(gens.__file__).parent / "results" / f"generation{gen}-sweep.json"
        if gen in RECIPES:
            chosen = json.loads(out.read_text())["chosen"]
            assert chosen == json.loads(json.dumps(RECIPES[gen]))


def test_the_test_scores_a_run_or_a_recorded_row_and_nothing_else():
    import argparse
    gens = _generations_script()
    assert gens._test_run("gen1-calib") == "gen1-calib"
    assert gens._test_run("row:t3-noinfer-3p") == "row:t3-noinfer-3p"
    for bad in ("row:f1-greedy", "row:nope", "nope"):     # f1-greedy kept no events
        with pytest.raises(argparse.ArgumentTypeError, match="not a run"):
            gens._test_run(bad)


def test_generation_6_leaves_the_last_hundred_starts_of_its_three_player_row_to_its_test():
    _generations_script()       # puts benchmarks/ on the path
    from strength import ROWS   # benchmarks/strength.py
    (count,) = [c for run, c in SWEEPS[6]["runs"] if run == "row:t3-noinfer-3p"]
    assert ROWS["t3-noinfer-3p"][2:] == (3, "full", 500) and count == 400 * 3
    assert not any(run.startswith("row:t3-") for run, _ in SWEEPS[5]["runs"])


def _generations_script():
    return load_script("benchmarks/generations.py")


def test_networks_are_scored_against_the_outcomes_of_their_positions():
    gens = _generations_script()
    games = [(t["id"], play_selfplay_game(t))
             for t in game_tasks(6, seed=5, agent="greedy", players={2: 1.0})]
    res = gens.score_networks(games, ["gen1", "gen1", "gen0"], boot=50)
    from palace_solver.learn.engine_games import to_dataset
    v = gens._mover_values(to_dataset(games), ["gen0"])
    y, p = v["y"], v["gen0"]
    row = res["phases"]["all"]
    assert row["positions"] == len(y) > 0
    # the skill is 1 - Brier / Brier of a constant 1/2, over every position
    assert row["gen0"]["brier_skill"] == pytest.approx(
        1 - ((p - y) ** 2).mean() / ((0.5 - y) ** 2).mean(), abs=1e-4)
    lo, hi = row["gen0"]["ci95"]
    assert lo <= row["gen0"]["brier_skill"] <= hi
    # a network paired with itself differs by nothing, on every resample
    assert row["gen1"]["minus_gen1"] == 0 and row["gen1"]["minus_gen1_ci95"] == [0, 0]
    parts = [res["phases"][k]["positions"] for k in ("draw pile not empty", "draw pile empty")]
    assert sum(parts) == row["positions"]


def test_three_player_positions_are_scored_against_an_equal_share_of_a_third():
    import numpy as np
    from palace_solver.learn.engine_games import to_dataset
    gens = _generations_script()
    games = [(t["id"], play_selfplay_game(t))
             for t in game_tasks(4, seed=6, agent="greedy", players={3: 1.0})]
    data = to_dataset(games)
    res = gens.score_networks(games, ["gen0"], boot=50, players=3)
    v = gens._mover_values(data, ["gen0"], players=3)
    y, p = v["y"], v["gen0"]
    row = res["phases"]["all"]
    # every decision with three players still in, none of those after one went out
    assert row["positions"] == len(y) == int((data["nact"] == 3).sum()) > 0
    assert res["players"] == 3 and res["baseline"] == pytest.approx(1 / 3)
    # the mover's outcome is a loss share of three players, and each position's value is the
    # mover's entry of the network's loss estimates for the three players
    assert set(np.round(y, 6)) <= {0.0, 1.0, round(1 / 3, 6)}
    assert ((p > 0) & (p < 1)).all()
    assert row["gen0"]["brier_skill"] == pytest.approx(
        1 - ((p - y) ** 2).mean() / ((1 / 3 - y) ** 2).mean(), abs=1e-4)
    with pytest.raises(ValueError, match="no position with 4 players"):
        gens.score_networks(games, ["gen0"], boot=10, players=4)


def test_a_recorded_strength_row_reads_as_self_play_games(tmp_path):
    from palace_solver.jobs.match import run_match
    from palace_solver.learn.engine_games import to_dataset
    gens = load_script("benchmarks/generations.py")
    cheap = "engine:nodes=3000:determinizations=4:end_nodes=3000:end_determinizations=2"
    path = tmp_path / "row.jsonl"
    run_match(cheap, "greedy", starts=2, seed=3, output=path, progress=False, record=True)
    games = gens.row_games(path, 2)
    # task order; both seatings of a start share its number mod 10 (held out together)
    assert [g for g, _ in games] == [0, gens.SEAT_STRIDE, 1, gens.SEAT_STRIDE + 1]
    data = to_dataset(games)
    assert len(data["nact"]) == sum(len(rec["figures"]) for _, rec in games)
    assert {int(g) % 10 for g in data["game"]} == {0, 1}
    # a three-player row (t3-noinfer-3p): each start in its three seatings
    three = tmp_path / "three.jsonl"
    run_match(cheap, "greedy", players=3, starts=1, seed=5, output=three, progress=False,
              record=True)
    games = gens.row_games(three, 3)
    assert [g for g, _ in games] == [gens.SEAT_STRIDE * s for s in range(3)]
    assert all(rec["n"] == 3 and sorted(rec["loss"]) in ([0, 0, 1], [0, 0.5, 0.5])
               for _, rec in games)
    data = to_dataset(games)
    assert len(data["nact"]) == sum(len(rec["figures"]) for _, rec in games)
    plain = tmp_path / "plain.jsonl"
    run_match(cheap, "greedy", starts=1, seed=3, output=plain, progress=False)
    with pytest.raises(ValueError, match="without its events"):
        gens.row_games(plain, 2)


def test_a_run_whose_agent_has_changed_since_its_games_takes_no_more():
    gens = load_script("benchmarks/generations.py")
    assert {"gen0-train", "gen1-calib"} <= set(gens.CLOSED) <= set(gens.RUNS)
    for run in gens.CLOSED:
        assert gens.games_file(run).exists()     # closed on the games it holds
        with pytest.raises(SystemExit, match="takes no more games"):
            gens.main(["games", run])


def test_the_run_laid_out_at_random_to_learn_from_deals_apart_from_its_test():
    # layouts-train: engine as it is today, with the options the rows being played may
    # change pinned, on other deals than layouts-calib's (which no recipe reads)
    from palace_solver.agents.registry import make_agent
    gens = load_script("benchmarks/generations.py")
    (agent, seed, _), (_, test_seed, _) = gens.RUNS["layouts-train"], gens.RUNS["layouts-calib"]
    assert seed != test_seed and seed not in {s for r, (_, s, _) in gens.RUNS.items()
                                              if r != "layouts-train"}
    assert gens.LAYOUT["layouts-train"] == gens.LAYOUT["layouts-calib"] == "random"
    assert all(t["layout"] == "random" for t in gens.run_tasks("layouts-train", 4))
    player, engine = make_agent(agent), make_agent("engine")
    assert player.config == engine.config.with_(nodes=120_000, infer_greedy=0.0)
    assert player.endgame == engine.endgame.with_(infer_greedy=0.0)
    assert not any(run == "layouts-calib" for recipe in [*gens.RECIPES.values(),
                                                         *SWEEPS.values()]
                   for run, _ in recipe["runs"])


def test_the_run_of_four_and_five_players_is_dealt_so_and_read_by_no_recipe():
    gens = _generations_script()
    agent, seed, _ = gens.RUNS["many-calib"]
    assert agent == gens.RUNS["layouts-train"][0]
    assert seed not in {s for r, (_, s, _) in gens.RUNS.items() if r != "many-calib"}
    tasks = gens.run_tasks("many-calib", 40)
    counts = [_game_config(seed, t["id"], t["players"], t["standard"])[0] for t in tasks]
    assert set(counts) == {4, 5}
    # the other runs keep their tasks: two players three times in four, three once
    assert gens.run_tasks("layouts-train", 2)[0]["players"] == {"2": 3, "3": 1}
    assert not any(run == "many-calib" for recipe in [*gens.RECIPES.values(),
                                                      *SWEEPS.values()]
                   for run, _ in recipe["runs"])


def test_generation_7_learns_from_the_games_laid_out_at_random_and_leaves_its_tests_out():
    # the whole run, the recorded games since generation 6 and generation 6's data; its
    # tests (layouts-calib, gen1-calib's games 400 on, t3-noinfer-3p's last 100 starts)
    # are read by no fit
    gens = _generations_script()
    runs = dict(SWEEPS[7]["runs"])
    assert SWEEPS[7]["runs"][:len(SWEEPS[6]["runs"])] == SWEEPS[6]["runs"]
    assert runs["layouts-train"] == gens.RUNS["layouts-train"][2]
    assert runs["row:g6-engine"] == 1000 and runs["gen1-calib"] == 400
    assert runs["row:t3-noinfer-3p"] == 1200 and "layouts-calib" not in runs
    assert SWEEPS[7]["init"] == ["gen0", "gen6"]

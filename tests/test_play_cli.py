"""`palace play` through click's CliRunner."""
from __future__ import annotations

import json

from click.testing import CliRunner
from palace_solver.cli.main import cli
from palace_solver.cli.play_cmd import play


def run(*args):
    return CliRunner().invoke(cli, ["play", *args])


def test_play_is_registered():
    assert "play" in cli.commands and cli.commands["play"] is play


def test_single_game_prints_a_log_ending_with_the_loser():
    r = run("--players", "3", "--bots", "greedy,random,lowest", "--seed", "3")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[0].startswith("Palace: 3 players, rules standard, seed 3")
    assert "Deal:" in r.output and "plays first" in r.output
    assert lines[-1].startswith(("Loser: P", "Draw ("))
    # Same seed, same game.
    assert run("--players", "3", "--bots", "greedy,random,lowest", "--seed", "3").output == \
        r.output


def test_single_game_with_a_loser():
    for seed in range(20):
        r = run("--bots", "greedy,random", "--seed", str(seed))
        assert r.exit_code == 0, r.output
        if "Loser:" in r.output:
            assert r.output.strip().splitlines()[-1].startswith("Loser: P")
            return
    raise AssertionError("no game of greedy against random had a loser")


def test_single_game_json_is_the_full_record():
    r = run("-n", "4", "--bots", "lowest", "--variant", "seven_low", "--variant",
            "invisible_8", "--seed", "11", "--json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    assert rec["players"] == 4 and rec["bots"] == ["lowest"] * 4
    assert rec["rules"] == {"base": "standard", "variants": ["seven_low", "invisible_8"]}
    types = {e["type"] for e in rec["events"]}
    assert {"deal", "layout", "first", "move", "end"} <= types
    assert abs(sum(rec["loss"]) - 1) < 1e-9
    assert rec["events"][-1]["type"] == "end"


def test_jokers_game_with_six_players():
    r = run("-n", "6", "--variant", "jokers", "--bots", "greedy,random", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["players"] == 6


def test_series_prints_a_tally_per_bot():
    r = run("--bots", "greedy,random", "--games", "10", "--seed", "1")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "10 games, 2 players" in out and "loss rate" in out
    assert any(line.startswith("greedy ") for line in out.splitlines())
    assert any(line.startswith("random ") for line in out.splitlines())


def test_series_json_tally():
    r = run("-n", "3", "--bots", "greedy,random,lowest", "--games", "9", "--json",
            "--no-progress")
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert res["games"] == 9 and set(res["bots"]) == {"greedy", "random", "lowest"}
    assert all(t["games"] == 9 for t in res["bots"].values())
    assert sum(t["losses"] for t in res["bots"].values()) + res["draws"] == 9
    assert abs(sum(t["loss_share"] for t in res["bots"].values()) - 9) < 1e-9
    # the sum, and per game what the text's "mean share" column shows
    assert all(t["mean_loss_share"] == t["loss_share"] / t["games"] for t in res["bots"].values())
    text = run("-n", "3", "--bots", "greedy,random,lowest", "--games", "9", "--no-progress")
    assert "mean share" in text.output
    for line in text.output.splitlines()[2:]:
        name, *cols = line.split()
        assert float(cols[-1]) == round(res["bots"][name]["mean_loss_share"], 3)


def test_series_progress_bar_goes_to_stderr():
    r = run("--games", "3", "--progress", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 3  # stdout holds the JSON alone


def test_bad_variant_exits_2_with_one_line():
    r = CliRunner().invoke(cli, ["play", "--variant", "bogus"])
    assert r.exit_code == 2
    assert "unknown variant 'bogus'" in r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_bad_player_count_and_bot_exit_2():
    r = run("-n", "5", "--variant", "jokers")
    assert r.exit_code == 2 and "6 players" in r.output
    r = run("--bots", "smart")
    assert r.exit_code == 2 and "unknown bot 'smart'" in r.output
    r = run("-n", "1")
    assert r.exit_code == 2


def test_every_option_has_help():
    for p in play.params:
        if p.name != "help":
            assert p.help, p.name
    assert "Examples" in play.help

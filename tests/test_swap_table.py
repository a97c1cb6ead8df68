"""palace swap-table: layout classes, Wilson intervals, the table against games replayed one
by one, independence from workers and task size, the command."""
import json

import pytest
from click.testing import CliRunner
from palace_solver.cli.main import cli

from palace_solver.agents.play import play_game
from palace_solver.game.cards import parse_rank
from palace_solver.game.rules import Rules
from palace_solver.jobs import swap_table as st
from palace_solver.jobs.batch import task_seed
from palace_solver.jobs.swap_table import (
    card_class,
    class_legend,
    layout_class,
    swap_table,
    wilson,
)
from palace_solver.sample.policies import make_bot


def test_classes_follow_the_rules():
    std = Rules()
    assert [card_class(std, r) for r in range(2, 15)] == list("RLLLLMMMBHHHH")
    assert layout_class(std, [3, 14, 2]) == "RHL" and layout_class(std, [10, 10, 9]) == "BBM"
    assert class_legend(std) == {"R": ["2"], "B": ["10"], "H": ["J", "Q", "K", "A"],
                                 "M": ["7", "8", "9"], "L": ["3", "4", "5", "6"]}
    v = Rules.with_variants(["aces_burn", "seven_low", "invisible_8", "jokers"])
    assert card_class(v, 14) == "B" and card_class(v, 7) == "V" and card_class(v, 8) == "T"
    assert card_class(v, 15) == "T" and card_class(v, 13) == "H"
    assert layout_class(v, [8, 7, 14]) == "BTV"


def test_wilson_known_values():
    # Wilson (1927) 95% intervals, as tabulated by Newcombe (1998)
    assert [round(x, 4) for x in wilson(0, 10)] == [0.0, 0.2775]
    assert [round(x, 4) for x in wilson(5, 10)] == [0.2366, 0.7634]
    assert [round(x, 4) for x in wilson(81, 263)] == [0.2553, 0.3662]
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(300, 1000)
    assert lo < 0.3 < hi and hi - lo < 0.06


def test_table_equals_games_replayed_one_by_one():
    rules, n, games = Rules(), 3, 40
    table = swap_table(rules, [n], games, seed=9)
    expect: dict = {}
    greedy = make_bot("greedy")
    for g in range(games):
        rec = play_game(rules, n, [greedy] * n, seed=task_seed(9, f"{n}:{g}"), record=True)
        ups = {e["player"]: e["face_up"] for e in rec.events if e["type"] == "layout"}
        assert sorted(ups) == list(range(n))
        for q in range(n):
            cls = layout_class(rules, [parse_rank(c) for c in ups[q]])
            row = expect.setdefault(cls, [0, 0, 0])
            row[0] += 1
            row[1] += rec.loser == q
            row[2] += rec.draw
    assert table.counts[n]["classes"] == expect
    rows = table.rows(n)
    assert sum(r["games"] for r in rows) == n * games
    assert sum(r["losses"] for r in rows) == games - table.counts[n]["draws"]
    assert [r["loss_rate"] for r in rows] == sorted(r["loss_rate"] for r in rows)
    for r in rows:
        assert r["ci95"][0] <= r["loss_rate"] <= r["ci95"][1]


def test_same_table_for_any_jobs_and_task_size(monkeypatch):
    a = swap_table(Rules(), [2, 3], 60, seed=1).to_json()
    b = swap_table(Rules(), [2, 3], 60, seed=1, jobs=2).to_json()
    monkeypatch.setattr(st, "GAMES_PER_TASK", 7)
    c = swap_table(Rules(), [2, 3], 60, seed=1).to_json()
    assert a == b == c
    assert a != swap_table(Rules(), [2, 3], 60, seed=2).to_json()


def test_random_layouts_fill_the_classes_the_bot_avoids():
    def low_share(layout):
        t = swap_table(Rules(), [2], 150, seed=3, layout=layout)
        return sum(r["games"] for r in t.rows(2) if "L" in r["class"]) / 300
    # greedy keeps low cards in hand unless it has nothing better; random lays them out
    assert low_share("bot") < 0.15 < 0.4 < low_share("random")


def test_command_json_states_rules_bot_and_sample(tmp_path):
    out = tmp_path / "t.jsonl"
    args = ["swap-table", "-n", "2,3", "--games", "50", "--variant", "seven_low", "--json",
            "--no-progress"]
    r = CliRunner().invoke(cli, [*args, "--output", str(out)])
    assert r.exit_code == 0, r.output
    t = json.loads(r.output)
    assert t["rules"] == {"base": "standard", "variants": ["seven_low"]}
    assert t["bot"] == "greedy" and t["layout"] == "bot" and t["games_per_player_count"] == 50
    assert t["interval"] == "95% Wilson score" and t["classes"]["V"]["ranks"] == ["7"]
    assert [x["players"] for x in t["tables"]] == [2, 3]
    assert [x["observations"] for x in t["tables"]] == [100, 150]
    # resuming the finished file replays nothing and prints the same table
    before = out.read_bytes()
    again = CliRunner().invoke(cli, [*args, "--output", str(out), "--jobs", "2"])
    assert again.output == r.output and out.read_bytes() == before
    text = CliRunner().invoke(cli, ["swap-table", "-n", "2", "--games", "30",
                                    "--min-layouts", "5", "--no-progress"])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("Swap table: rules standard; every seat played by greedy")
    assert "30 games per player count" in text.output and "95% interval" in text.output


@pytest.mark.parametrize("args", [["-n", "x"], ["-n", "1"], ["--games", "0"],
                                  ["--bot", "nobody"], ["-n", "4", "--variant", "jokers"],
                                  ["--jobs", "0"]])
def test_command_bad_options(args):
    r = CliRunner().invoke(cli, ["swap-table", *args])
    assert r.exit_code == 2, r.output
    assert r.output.startswith("palace: ") and r.output.count("\n") == 1, r.output


def test_every_option_has_help():
    from palace_solver.cli.swap_table_cmd import swap_table_cmd
    assert all(p.help for p in swap_table_cmd.params if p.param_type_name == "option")
    assert "swap-table" in cli.commands

"""Cost said before a long run starts (`palace swap`, a large exact solve without a time
budget), and the 3-player fixed-point cycle said in plain words."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from palace_solver.cli.main import cli
from palace_solver.game.rules import Rules
from palace_solver.jobs.swap import estimate_seconds

CHEAP = "engine:determinizations=8:nodes=3000:end_determinizations=2:end_nodes=3000"


def test_swap_says_how_long_before_it_starts():
    t0 = time.perf_counter()
    r = CliRunner().invoke(cli, ["swap", "3", "7", "9", "K", "A", "10", "--games", "100",
                                 "--agent", "none"])
    spent = time.perf_counter() - t0
    assert r.exit_code == 0, r.output
    first = r.stderr.splitlines()[0]
    m = re.fullmatch(r"palace swap: 20 layouts x 100 games = 2,000 games, about \S+ s a game "
                     r"with greedy: roughly (\d+) s on 1 job", first)
    assert m, first
    assert int(m.group(1)) <= max(30, 10 * spent)    # rough, but not wild


def test_swap_estimate_scales_with_games_and_jobs_and_names_a_faster_way():
    one = estimate_seconds(Rules(), 2, [3, 3, 5, 14, 14, 2], games=2, agent=CHEAP,
                           probe_seconds=0.3)
    assert one["per_game"] > 0 and one["games"] == 2 * one["layouts"]
    more = estimate_seconds(Rules(), 2, [3, 3, 5, 14, 14, 2], games=300, agent=CHEAP,
                            probe_seconds=0.3, jobs=2)
    assert more["games"] == 300 * more["layouts"]
    assert one["seconds"] == pytest.approx(one["per_game"] * one["games"])
    assert more["seconds"] == pytest.approx(more["per_game"] * more["games"] / 2)
    r = CliRunner().invoke(cli, ["swap", "3", "3", "5", "A", "A", "2", "--games", "100000",
                                 "--agent", CHEAP, "--ray", "none-such:1"])
    # (an address that cannot be reached: the run stops at once; no estimate for Ray)
    assert "palace swap: " not in r.stderr


def test_a_large_exact_solve_says_its_estimate_first(monkeypatch):
    import palace_solver.analysis as analysis
    import palace_solver.solve.compiled as compiled
    calls = []
    # memory enough for the graph (a graph that could never fit is refused at once, without
    # an estimate of the time: tests/test_exact_graph.py), whatever this machine has
    monkeypatch.setattr(compiled, "available_memory", lambda: 1 << 60)

    def fake(*a, **k):
        calls.append(k)
        raise analysis.NotExactError("stopped by the test")
    monkeypatch.setattr(analysis, "analyze", fake)
    big = ("standard | a: 3 4 5 / 6 7 8 / 3 ; b: 9 J Q / K A 3 / 3 ; c: 4 5 6 / 7 8 9 / 3 "
           "| unseen 2 2 2 2 10 10 10 10 A | burned rest | to_move 0")
    r = CliRunner().invoke(cli, ["analyze", big, "--progress"])
    assert calls and r.exit_code == 2
    assert re.search(r"palace: about [\d,]+ positions to solve exactly: roughly \d+(\.\d)? "
                     r"(s|min|h) here .*--time SECONDS answers within that time", r.stderr), \
        r.stderr
    # said without --progress too (stderr here is not a terminal: a script waits as long),
    # and only --no-progress silences it
    calls.clear()
    r = CliRunner().invoke(cli, ["analyze", big])
    assert calls and "positions to solve exactly" in r.stderr
    calls.clear()
    r = CliRunner().invoke(cli, ["analyze", big, "--no-progress"])
    assert calls and "positions to solve exactly" not in r.stderr
    calls.clear()
    r = CliRunner().invoke(cli, ["analyze", big, "--progress", "--time", "5"])
    assert calls and "positions to solve exactly" not in r.stderr
    small = ("standard | me: 7 7 / A / 1 ; bob: K / 2 / 1 | pile 5 | unseen 3 9 "
             "| burned rest | to_move 0")
    r = CliRunner().invoke(cli, ["analyze", small, "--progress"])
    assert "positions to solve exactly" not in r.stderr


def test_a_three_player_cycle_is_said_in_plain_words(tmp_path):
    row = json.loads((Path(__file__).parent / "data" / "cycling_4p.jsonl").read_text()
                     .splitlines()[0])
    f = tmp_path / "cyc.json"
    f.write_text(json.dumps(row["position"]))
    r = CliRunner().invoke(cli, ["analyze", str(f)])
    assert r.exit_code == 0, r.output
    note = r.output.split("note: ", 1)[1]
    assert "chase each other in a circle" in note and "Take them as approximate" in note
    assert "fixed point" not in note and "sweeps" not in note
    # and the method line, read first, says the exact solver's figures are approximate here
    method = [ln for ln in r.output.splitlines() if ln.startswith("method exact")]
    assert len(method) == 1 and "approximate (the players' best answers cycle" in method[0]

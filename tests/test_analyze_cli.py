"""``palace analyze`` on one position and ``palace bench``, through the installed script: the
default exact path, the table, ``--line``, ``--tree`` (read back with networkx), ``--time``,
``--method sampled``, and exit status 2 with one line for invalid input.

The figures are checked against the Python reference solver (exact fractions), not against
numbers written here.
"""
from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import networkx as nx
import pytest
from position_fixtures import AFTER_PICKUP, BEFORE_PICKUP
from test_show_cli import palace_script

from palace_solver.game.position import load_position, to_text
from palace_solver.solve.solver import solve_exact

ROOT = Path(__file__).resolve().parents[1]
ENDGAME = str(ROOT / "examples" / "endgame.json")
#: A two-player position whose whole graph is far past a 0.3 s budget (bench suite row
#: 2p-h3u3d3-1, 50 M positions).
BIG = ("standard | 5 Q K / 4 6 A / 3 ; 3 6 7 / 2 3 9 / 3 | pile A Q | burned 2 2 2 3 4 4 4 5 5 "
       "5 6 7 7 7 8 8 8 9 9 9 10 10 10 J J J J Q Q K A A | draw 0 | to_move 0")


def palace(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([palace_script(), *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def reference(position: str):
    """The Python reference solver's analysis (exact fractions)."""
    return solve_exact(load_position(position).to_state(), engine="python")


def _close(a, b, tol=1e-9):
    return len(a) == len(b) and all(abs(float(x) - float(y)) <= tol for x, y in zip(a, b))


def test_default_is_the_exact_solver():
    r = palace("analyze", ENDGAME, "--json")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    ref = reference(ENDGAME)
    assert js["method"] == "exact" and js["to_move"] == 0
    assert _close(js["loss_probability"], ref.loss, 1e-12)
    want = {str(m.move): m.loss for m in ref.moves}
    got = {m["move"]: m["loss_probability"] for m in js["moves"]}
    assert set(got) == set(want) and len(got) >= 2
    for k in want:
        assert _close(got[k], want[k], 1e-12), k
    mover = [m["loss_probability"][0] for m in js["moves"]]
    assert mover == sorted(mover) and js["best_move"] == js["moves"][0]["move"]
    assert len({round(x, 9) for x in mover}) >= 2      # the moves do not all tie
    assert all("ci95" not in m for m in js["moves"]) and "ci95" not in js


def test_table_lists_every_move_best_first():
    r = palace("analyze", ENDGAME)
    assert r.returncode == 0, r.stderr
    js = json.loads(palace("analyze", ENDGAME, "--json").stdout)
    lines = r.stdout.splitlines()
    pos = load_position(ENDGAME)
    assert lines[0] == f"position: {to_text(pos)}"
    assert lines[1].startswith("to move: me") and "method exact" in lines[2]
    rows = [ln for ln in lines if ln[:2] in ("* ", "  ") and "%" in ln]
    assert len(rows) == len(js["moves"])
    assert rows[0].startswith("* ") and not any(x.startswith("* ") for x in rows[1:])
    for row, m in zip(rows, js["moves"]):
        cells = row[2:].split()
        assert cells[0] == m["move"].split()[0]
        shown = [float(c.rstrip("%")) for c in cells if c.endswith("%")]
        assert _close(shown, [100 * x for x in m["loss_probability"]], 0.005 + 1e-9), row


def test_line_follows_the_best_moves_and_branches_at_each_flip():
    r = palace("analyze", ENDGAME, "--json", "--line")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    line = js["line"]
    assert line[0]["move"] == js["best_move"] and line[0]["player"] == js["to_move"]
    assert _close(line[0]["loss_probability"], js["loss_probability"])
    flips = 0

    def walk(nodes):
        nonlocal flips
        for x in nodes:
            if x.get("branches"):
                flips += 1
                assert x["move"] == "flip"
                ps = [b["probability"] for b in x["branches"]]
                assert abs(sum(ps) - 1) < 1e-9
                # A flip's figure is the average of what each card it may turn up leads to.
                avg = [sum(b["probability"] * b["line"][0]["loss_probability"][i]
                           for b in x["branches"]) for i in range(2)]
                assert _close(avg, x["loss_probability"]), x
                for b in x["branches"]:
                    walk(b["line"])

    walk(line)
    assert flips >= 1
    text = palace("analyze", ENDGAME, "--line")
    assert text.returncode == 0 and "best line:" in text.stdout and "turns up" in text.stdout


def test_tree_is_a_graph_networkx_reads_back(tmp_path):
    path = tmp_path / "g.graphml"
    r = palace("analyze", ENDGAME, "--tree", str(path), "--tree-nodes", "100000")
    assert r.returncode == 0, r.stderr
    assert f"graph written to {path}" in r.stdout
    g = nx.read_graphml(path)
    ref = reference(ENDGAME)
    root = g.nodes["n0"]
    assert root["kind"] == "decision" and root["player"] == 0
    assert _close([root["loss0"], root["loss1"]], ref.loss, 1e-12)
    assert {d["move"] for _, _, d in g.out_edges("n0", data=True)} == {str(m.move)
                                                                      for m in ref.moves}
    kinds = {d["kind"] for _, d in g.nodes(data=True)}
    assert kinds == {"decision", "chance", "terminal"}
    checked = 0
    for v, d in g.nodes(data=True):
        if d["kind"] == "chance":
            ps = [e["probability"] for _, _, e in g.out_edges(v, data=True)]
            assert abs(sum(ps) - 1) < 1e-9
        if d["kind"] != "decision":
            continue
        # A decision's value is the best of its moves for the player to move.
        p = d["player"]
        vals = []
        for _, w, e in g.out_edges(v, data=True):
            wd = g.nodes[w]
            if wd["kind"] == "chance":
                vals.append(sum(e2["probability"] * _loss(g.nodes[x], p)
                                for _, x, e2 in g.out_edges(w, data=True)))
            else:
                vals.append(_loss(wd, p))
        if vals:
            assert abs(min(vals) - d[f"loss{p}"]) < 1e-9, v
            checked += 1
    assert checked == sum(d["kind"] == "decision" for _, d in g.nodes(data=True))
    # DOT, and a tree cut at a node budget (its last nodes are bare edge targets).
    dot = tmp_path / "g.dot"
    r = palace("analyze", ENDGAME, "--tree", str(dot), "--tree-nodes", "50")
    assert r.returncode == 0, r.stderr
    text = dot.read_text()
    assert text.startswith("digraph palace {") and text.rstrip().endswith("}")
    assert text.count("->") == int(r.stdout.split(" edges)")[0].split()[-1])


def _loss(node: dict, p: int) -> float:
    if "loss0" in node:
        return node[f"loss{p}"]
    return float(node["label"].split()[1 + p].rstrip("%")) / 100  # terminal: "loss a b"


def test_time_budget_exact_when_it_fits_else_depth_limited():
    r = palace("analyze", ENDGAME, "--json", "--time", "5")
    js = json.loads(r.stdout)
    assert r.returncode == 0 and js["method"] == "exact"
    assert _close(js["loss_probability"], reference(ENDGAME).loss, 1e-12)
    r = palace("analyze", BIG, "--json", "--time", "0.3", "--hash", "16")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["method"] == "depth_limited" and js["stats"]["depth"] >= 1
    assert {m["move"] for m in js["moves"]} == {"Q", "K", "pickup"}
    for m in js["moves"]:
        assert abs(sum(m["loss_probability"]) - 1) < 1e-9
        assert all(0 < x < 1 for x in m["loss_probability"])


def test_sampled_method_gives_intervals_per_move():
    pos = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
           "| burned 10 4 4 4 4 | draw 27 | to_move 0")
    r = palace("analyze", pos, "--json", "--method", "sampled", "--samples", "12", "--seed",
               "1")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["method"] == "sampled" and js["samples"] == 12
    for m in js["moves"]:
        assert len(m["ci95"]) == 2
        for (lo, hi), x in zip(m["ci95"], m["loss_probability"]):
            assert lo <= x <= hi
    table = palace("analyze", pos, "--method", "sampled", "--samples", "12", "--seed", "1")
    assert "±" in table.stdout and "12 samples" in table.stdout


@pytest.mark.parametrize("position,fragment", [
    ("standard | 3 ?2 / 4 / 3 ; - / 9 / 3 | draw 36 | to_move 0",
     "empty hand while the draw pile holds 36 cards"),
    ("jokers+two_decks | 3 / 4 / 3 ; 5 / 9 / 3 | draw 36 | to_move 0",
     "cannot be combined with two_decks"),
    ("standard | 3 3 3 3 3 / - / 0 ; 4 / - / 0 | to_move 0", "5 cards of rank 3"),
    ("standard | 3 / 4 / 3 ; 5 / 9 / 3 | draw 42 | to_move 7", "to_move 7 is out of range"),
    ("{not json", "bad JSON"),
    ("not json at all", "not a position: 'not json at all' is neither JSON nor the text form"),
    ("/no/such/file.json", "no such file"),
])
def test_invalid_position_exits_2_with_one_line(position, fragment):
    r = palace("analyze", position)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("palace: ") and fragment in lines[0], lines
    assert "Traceback" not in r.stderr


def test_bench_quick_on_a_subset(tmp_path):
    """``palace bench --quick`` runs the whole suite in about 30 s; the same code path on
    the first two positions of the suite, and on a suite file of one's own."""
    r = palace("bench", "--quick", "--limit", "2", "--hash", "16", "--json")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    rows = js["rows"]
    assert [x["name"] for x in rows] == ["2p-h1u1d1-0", "2p-h1u1d1-1"]
    for row in rows:
        assert row["exact"]["solved"] and row["exact"]["nodes"] > 0
        d = row["deepening"]["0.2"]
        assert d["depth"] >= 1 and d["nodes"] > 0
        assert row["plain"]["depth"] >= 1 and row["plain"]["ratio"] > 0
    # --quick gives the exact solve 2 s: the summary speaks of that limit, no longer one
    assert js["summary"]["largest_exact_within_2s"]["name"] in {"2p-h1u1d1-0", "2p-h1u1d1-1"}
    assert not any(k.startswith("largest_exact_within_") and k != "largest_exact_within_2s"
                   for k in js["summary"])
    assert r.stderr.splitlines() == ["[1/2] 2p-h1u1d1-0", "[2/2] 2p-h1u1d1-1"]
    # One's own suite file, and the table output.
    suite = tmp_path / "suite.jsonl"
    pos = load_position(ENDGAME)
    suite.write_text(json.dumps({"name": "endgame", "position": pos.to_json()}) + "\n")
    r = palace("bench", "--quick", "--hash", "16", "--suite", str(suite))
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0].split()[:3] == ["position", "exact", "s"]
    row = next(x for x in out if x.startswith("endgame "))
    nodes = int(row.split()[2].replace(",", ""))
    assert nodes == reference(ENDGAME).stats["nodes"]
    assert not math.isnan(float(row.split()[1]))
    # The summary in words: no Python dicts, no limit the run did not have.
    assert "{'" not in r.stdout and "': " not in r.stdout and "}" not in r.stdout
    assert any(x.startswith("largest solved exactly within 2s: endgame (") for x in out)
    assert "60s" not in r.stdout and "10s" not in r.stdout


def test_the_bench_compares_the_compiled_solver_with_the_python_reference():
    """The bench's "before" column is the Python reference solver: on a small position it
    finishes with the compiled solver's value and position count; past its cap it is not
    started."""
    from palace_solver.solve.bench import BEFORE_MAX_NODES, compare_exact

    state = load_position(ENDGAME).to_state()
    rows = compare_exact(state, 30.0, threads=(1,))
    before, after, flat = rows["before"], rows["after_1"], rows["flat_1"]
    assert list(rows)[0] == "before" and before["solved"] and after["solved"]
    assert before["nodes"] == flat["nodes"] == reference(ENDGAME).stats["nodes"]
    assert before["value"] == pytest.approx(after["value"], abs=1e-12)
    assert before["bytes_per_position"] is None and before["solve_seconds"] >= 0
    big = load_position(BIG).to_state()
    rows = compare_exact(big, 20.0, threads=(1,), flat=False, max_nodes=BEFORE_MAX_NODES + 1000)
    assert rows["before"]["skipped"] and not rows["before"]["solved"]


def test_history_makes_a_move_back_to_an_earlier_position_a_draw(tmp_path):
    hist = tmp_path / "earlier.txt"
    hist.write_text(AFTER_PICKUP + "\n\n")
    runs = {}
    for name, extra in (("plain", []), ("history", ["--history", str(hist)])):
        r = palace("analyze", BEFORE_PICKUP, "--samples", "64", "--json", *extra)
        assert r.returncode == 0, r.stderr
        runs[name] = json.loads(r.stdout)
    loss = {m["move"]: m["loss_probability"] for m in runs["history"]["moves"]}
    assert loss["pickup"] == [0.5, 0.5] and runs["history"]["stats"]["history"] == 1
    before = {m["move"]: m["loss_probability"] for m in runs["plain"]["moves"]}
    assert before["pickup"] != [0.5, 0.5] and runs["plain"]["stats"]["history"] == 0
    r = palace("analyze", BEFORE_PICKUP, "--samples", "8", "--history", str(hist))
    assert r.returncode == 0 and "1 earlier position of the game" in r.stdout
    hist.write_text(AFTER_PICKUP + "\nstandard | nonsense\n")
    r = palace("analyze", BEFORE_PICKUP, "--history", str(hist))
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "line 2" in r.stderr
    r = palace("analyze", ENDGAME, "--history", str(tmp_path / "absent.txt"))
    assert r.returncode == 2 and "cannot read" in r.stderr
    hist.write_text(to_text(load_position(ENDGAME)) + "\n")   # exact mode: the graph's
    r = palace("analyze", ENDGAME, "--history", str(hist), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["stats"]["history"] == 1


def test_a_search_says_what_its_figures_estimate(tmp_path):
    """The engine's figures on hidden cards are estimates: the table says of what (the
    search's depth and the value at its horizon, or greedy playouts), matching the JSON."""
    from palace_solver.cli.analyze_cmd import _table
    from palace_solver.sample.calibration import (
        MANY_PLAYERS_NOTE,
        RANDOM_LAYOUTS_NOTE,
        many_players_note,
    )
    from palace_solver.sample.drawsearch import HINT1, analyze_search

    hidden = str(ROOT / "examples" / "hidden.json")
    out = palace("analyze", hidden, "--samples", "6", "--seed", "2")
    js = json.loads(palace("analyze", hidden, "--samples", "6", "--seed", "2", "--json").stdout)
    assert out.returncode == 0, out.stderr
    note = [ln for ln in out.stdout.splitlines() if ln.startswith("note: estimates")]
    assert len(note) == 1
    assert "mean over 6 deals" in note[0]
    assert f"a search to depth {js['stats']['depth']} with the learned value" in note[0]
    assert js["stats"]["config"]["weights"] in note[0]
    # calibrated figures say so, and what the search itself gave the best move
    cal = js["stats"]["calibration"]
    best = js["moves"][0]
    assert f"calibrated to the outcomes of the engine's own games (map {cal['map']}" in note[0]
    assert f"{100 * cal['raw_mover_loss'][best['move']]:.2f}%" in note[0]
    assert best["loss_probability"][0] != cal["raw_mover_loss"][best["move"]]
    # while the draw pile holds cards, what such figures were worth on layouts at random
    assert cal["band"] != "end" and RANDOM_LAYOUTS_NOTE in note[0]
    # the engine before generation 1: one ply then greedy playouts, and the note says so
    pos = load_position(hidden)
    old = analyze_search(pos, config=HINT1.with_(determinizations=8, nodes=4000), seed=0)
    text = _table(pos, old)
    assert "greedy playout" in text and "a search to depth" not in text
    assert "not calibrated" not in text and "not calibrated" not in note[0]
    # three players: no map was fitted, and the note says what the figures were measured
    # to be worth
    three = load_position("standard | me: 9 9 K / 2 J Q / 3 ; bob: ?3 / 4 4 A / 3 ; "
                          "ann: ?3 / 5 6 7 / 3 | pile 5 6 | draw 23 | to_move 0")
    a3 = analyze_search(three, samples=4, nodes=8000, seed=0)
    assert a3.stats["calibration"] is None
    assert MANY_PLAYERS_NOTE in _table(three, a3)
    # four players: what was measured with three is not theirs
    four = load_position("standard | me: 9 9 K / 2 J Q / 3 ; bob: ?3 / 4 4 A / 3 ; "
                         "ann: ?3 / 5 6 7 / 3 ; cy: ?3 / 8 10 3 / 3 | pile 5 6 | draw 14 | "
                         "to_move 0")
    text4 = _table(four, analyze_search(four, samples=4, nodes=8000, seed=0))
    assert many_players_note(4) in text4 and MANY_PLAYERS_NOTE not in text4
    # with a map of three players' own the note names it, and how the others' figures moved
    map3 = tmp_path / "calibration-three.json"
    map3.write_text(json.dumps({"players": 3, "params": {"draw": [0.7, -0.2]}}))
    m3 = analyze_search(three, samples=4, nodes=8000, seed=0, calibration3=str(map3))
    text3 = _table(three, m3)
    assert MANY_PLAYERS_NOTE not in text3 and RANDOM_LAYOUTS_NOTE not in text3
    assert f"(map {map3}, draw-pile band draw" in text3
    assert "the others' figures scaled to add up to 1 with it" in text3
    # analysed for a seat that does not see the mover's whole hand: moves legal only in
    # some deals say in how many, and their figures are over those deals
    other = load_position("standard | me: 6 7 9 / 10 K K / 3 ; bob: 4 5 ?1 / 6 J Q / 3 | "
                          "pile 3 | draw 33 | to_move 1 | perspective 0")
    ao = analyze_search(other, samples=8, nodes=16000, seed=0)
    only = ao.stats["move_samples"]
    assert only and all(0 < k < 8 for k in only.values())
    assert {"4", "5", "pickup"}.isdisjoint(only)        # bob's known cards: in every deal
    text = _table(other, ao)
    lines = text.splitlines()
    table = lines[5:lines.index("", 5)]                   # below the header, to the legend
    rows = {ln[2:].split()[0]: ln for ln in table}
    assert len(rows) == len(ao.moves)
    for mv in rows:
        assert ("of 8 deals" in rows[mv]) == (mv in only), rows[mv]
        assert mv not in only or f"in {only[mv]} of 8 deals" in rows[mv]
    assert "legal only in the deals that give it the cards" in text
    # the older methods say theirs is the greedy world's figure
    sampled = palace("analyze", hidden, "--method", "sampled", "--samples", "4").stdout
    assert "note: estimates of the older sampled method: 4 of the 4 deals" in sampled
    assert "the loss if every player then plays greedy" in sampled
    # --depth caps each deal's search (it was once ignored on hidden cards without a word)
    shallow = json.loads(palace("analyze", hidden, "--samples", "6", "--seed", "2", "--depth",
                                "3", "--json").stdout)
    assert shallow["stats"]["depth"] <= 3 < js["stats"]["depth"]
    # an exact answer has no such note
    assert "note: estimates" not in palace("analyze", ENDGAME).stdout

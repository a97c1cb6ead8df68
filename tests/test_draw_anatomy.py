"""benchmarks/draw_anatomy.py: voluntary pickups, hands and endings counted from records."""
from __future__ import annotations

from pathlib import Path

import pytest
from scripts import load_script

from palace_solver.review.run import load_records

RECORD = Path(__file__).parent / "data" / "records" / "revealed-repetition.txt"


def test_the_counts_of_a_record_read_by_hand():
    bench = load_script("benchmarks/draw_anatomy.py")
    got = bench.anatomy(load_records(str(RECORD)))
    assert got["games"] == 1 and got["endings"] == {"draw (repetition)": 1}
    # 28 decisions, all while the draw pile held cards
    assert got["decisions_per_game"] == 28 and got["share_before_empty"] == 1.0
    engine, mos = got["seats"]["engine"], got["seats"]["mos_uct"]
    assert engine["decisions"] == [14, 0] and mos["decisions"] == [14, 0]
    # engine picks up 7 times; at decisions 2 (3 4 5 on a Q) and 4 (nothing beats a K) it
    # must. The other five took 3 (8 Q 2), 1 (an A, holding a 2), 2, 1 and 2 cards.
    assert engine["voluntary_per_100"] == [pytest.approx(100 * 5 / 14), 0.0]
    assert engine["cards_per_voluntary"] == pytest.approx(9 / 5)
    # mos_uct's pickups on a Q holding 3 3 J and 3 8 J are forced; the one on an 8 is not
    assert mos["voluntary_per_100"] == [pytest.approx(100 / 14), 0.0]
    assert mos["cards_per_voluntary"] == 1.0


def test_the_table_has_a_line_per_seat(capsys, tmp_path):
    bench = load_script("benchmarks/draw_anatomy.py")
    pairing = tmp_path / "engine-mos_uct"
    pairing.mkdir()
    (pairing / RECORD.name).write_text(RECORD.read_text())
    assert bench.main([str(pairing), "--out", str(tmp_path / "out.json")]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines()
             if x.startswith("| engine-mos_uct |")]
    assert [x.split(" | ")[5] for x in lines] == ["engine", "mos_uct"]
    assert '"pairings"' in (tmp_path / "out.json").read_text()


def test_a_recorded_row_counts_as_the_records_of_the_same_games(tmp_path):
    """The row's events replayed (engine_games.replay) give the counts the same games'
    records give through palace review's replay."""
    from palace_solver.jobs.batch import finished_results
    from palace_solver.jobs.match import run_match
    from palace_solver.game.record import write_record
    from palace_solver.review.writers import record_from_match_game
    bench = load_script("benchmarks/draw_anatomy.py")
    cheap = "engine:nodes=3000:determinizations=4:end_nodes=3000:end_determinizations=2"
    path, recs = tmp_path / "row.jsonl", tmp_path / "records"
    recs.mkdir()

    def on_game(task, result):
        write_record(str(recs / f"{task['start']}-{task['seat']}.txt"),
                     record_from_match_game(task, result))
    run_match(cheap, "greedy", starts=3, seed=3, output=path, progress=False, record=True,
              on_game=on_game)
    got = bench.row_anatomy(finished_results(path), "cheap", "greedy")
    ref = bench.anatomy(load_records(str(recs)))
    assert got["games"] == ref["games"] == 6
    assert got["decisions_per_game"] == ref["decisions_per_game"]
    assert got["share_before_empty"] == pytest.approx(ref["share_before_empty"])
    a_name = next(k for k in ref["seats"] if k.startswith("engine"))   # the spec, slugged
    assert got["seats"]["cheap (A)"] == ref["seats"][a_name]
    assert got["seats"]["greedy (B)"] == ref["seats"]["greedy"]
    assert sum(got["endings"].values()) == 6
    # A's voluntary pickups by its figure add up to its voluntary pickups
    a = got["seats"]["cheap (A)"]
    assert sum(x["voluntary"] for x in got["a_by_figure"]) == round(
        sum(v * d / 100 for v, d in zip(a["voluntary_per_100"], a["decisions"])))
    assert sum(x["decisions"] for x in got["a_by_figure"]) <= sum(a["decisions"])
    assert set(got["repetitions_closed_by"]) <= {
        f"{side} {kind} {how}" for side in ("cheap (A)", "greedy (B)")
        for kind in ("pickup", "play") for how in ("voluntary", "forced")}
    # each ending's games apart: they add up to the row, and a decided game has emptied
    # the draw pile
    parts = bench._row_parts("row", finished_results(path), "cheap", "greedy", True)
    assert parts["row"] == got
    apart = {k: v for k, v in parts.items() if k != "row"}
    assert sum(v["games"] for v in apart.values()) == 6
    for name, v in apart.items():
        reason = name[len("row ("):-1]
        assert v["endings"] == {reason: v["games"]}
    if "row (end)" in apart:
        assert apart["row (end)"]["draw_pile_left"] == 0
    assert 0 <= got["a_last_figures"] <= 1
    assert all(h >= 0 for h in got["last_hands"]) and 0 <= got["a_hand_larger_last"] <= 6
    assert sum(v["a_hand_larger_last"] for v in apart.values()) == got["a_hand_larger_last"]
    import statistics
    assert got["median_decisions"] == statistics.median(
        res["decisions"] for _, res in finished_results(path))
    # from a decision on: from the first one it is the whole, past the longest game nothing
    games = [res for _, res in finished_results(path)]
    whole = bench.row_anatomy(finished_results(path), "cheap", "greedy", late=0)
    assert whole["a_by_figure_late"] == whole["a_by_figure"] and whole["games_past_late"] == 6
    longest = max(r["decisions"] for r in games)
    none = bench.row_anatomy(finished_results(path), "cheap", "greedy", late=longest)
    assert none["games_past_late"] == 0
    assert all(b["decisions"] == 0 for b in none["a_by_figure_late"])
    mid = bench.row_anatomy(finished_results(path), "cheap", "greedy", late=20)
    assert mid["games_past_late"] == sum(r["decisions"] > 20 for r in games)
    assert all(m["decisions"] <= w["decisions"] and m["voluntary"] <= w["voluntary"]
               for m, w in zip(mid["a_by_figure_late"], whole["a_by_figure"]))
    assert {k: v for k, v in mid.items() if "late" not in k} == got
    # each side's first voluntary pickup of a game, counted again from the replay: greedy
    # never picks up with a play in hand
    from palace_solver.game.moves import PICKUP
    from palace_solver.game.rules import Rules
    from palace_solver.learn.engine_games import replay
    firsts = []
    for gid, res in finished_results(path):
        seat_a = int(gid.split("/")[1])
        game = {"n": 2, "rules": Rules().to_json(), "events": res["events"],
                "prefix": res["prefix"], "figures": res["figures"]}
        firsts.append(next((i for i, (st, mv, _, _) in enumerate(replay(game))
                            if st.to_move == seat_a and mv.kind == PICKUP
                            and any(m.kind != PICKUP for m in st.legal_moves())), None))
    made = sorted(f for f in firsts if f is not None)
    first = got["first_voluntary"]
    assert first["cheap (A)"]["never"] == firsts.count(None)
    assert first["cheap (A)"]["median"] == (statistics.median(made) if made else None)
    assert first["greedy (B)"] == {"games": 6, "never": 6, "median": None, "by_90": None}
    assert bench._first_summary([None, 3, 1, 7, 2, 9, 4, 5, 8, 6, 10]) == {
        "games": 11, "never": 1, "median": 5.5, "by_90": 9}
    plain = tmp_path / "plain.jsonl"
    run_match(cheap, "greedy", starts=1, seed=3, output=plain, progress=False)
    with pytest.raises(ValueError, match="without its events"):
        bench.row_anatomy(finished_results(plain), "cheap", "greedy")

    # a figure an ulp past 1 (records played before the analyses' clamp hold a few) counts
    # in the top band, as 1 does
    import copy

    def figures_at(x):
        out = []
        for gid, res in finished_results(path):
            res = copy.deepcopy(res)
            res["figures"] = [[p, None if f is None else x, d] for p, f, d in res["figures"]]
            out.append((gid, res))
        return out
    past, one = (bench.row_anatomy(figures_at(x), "cheap", "greedy")["a_by_figure"]
                 for x in (1.0 + 2.0 ** -52, 1.0))
    assert past == one and one[-1]["decisions"] == sum(b["decisions"] for b in one) > 0


def test_a_row_not_recorded_or_unknown_is_refused(capsys):
    bench = load_script("benchmarks/draw_anatomy.py")
    for row, why in (("g1-greedy", "without its events"), ("no-such-row", "no file")):
        with pytest.raises(SystemExit):
            bench.main(["--row", row])
        assert why in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main([])
    assert "--row" in capsys.readouterr().err


def test_a_recorded_match_file_reads_as_a_row(tmp_path, capsys):
    from palace_solver.jobs.match import run_match
    bench = load_script("benchmarks/draw_anatomy.py")
    cheap = "engine:nodes=3000:determinizations=4:end_nodes=3000:end_determinizations=2"
    path = tmp_path / "m.jsonl"
    run_match(cheap, "greedy", starts=1, seed=3, output=path, progress=False, record=True)
    assert bench.main(["--match", str(path)]) == 0
    out = capsys.readouterr().out
    seats = [x.split(" | ")[5] for x in out.splitlines() if x.startswith(f"| {path} |")]
    assert seats == ["A (A)", "B (B)"]
    assert "A's voluntary pickups by its figure: 0-0.33:" in out

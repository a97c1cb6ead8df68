"""The calibration map of the search's figures (palace_solver/sample/calibration.py): the
fit recovers a known map, the map keeps each position's order, ties and sums, a calibrated
analysis is the map of the raw one, and each shipped map rebuilds from the decisions the
repository holds."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from palace_solver.game.position import from_text
from palace_solver import analysis
from palace_solver.learn.calibration import fit_band, fit_map, search_rows
from palace_solver.sample.calibration import (
    BANDS, CERTAIN, FALLBACK, MANY_PLAYERS_NOTE, MEASURED, RANDOM_LAYOUTS_NOTE, CalibrationMap,
    band, load_map, many_players_note, row_band)
from palace_solver.sample.drawsearch import (FALLBACK_CALIBRATION, HINT, HINT_END,
                                             analyze_search)
from palace_solver.solve.results import ties

from scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "palace_solver" / "data").glob("calibration-*.json"))
TWO = ("standard | me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 | pile 3 5 | draw 32 | "
       "to_move 0")
THREE = ("standard | me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 ; ann: ?3 / 5 7 10 / 3 | "
         "pile 3 5 | draw 23 | to_move 0")


def test_the_fit_recovers_a_known_map():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.03, 0.97, 40_000)
    a, b = 1.6, -0.3
    p = 1 / (1 + np.exp(-(a * np.log(x / (1 - x)) + b)))
    # outcomes 1, 0 and draws (1/2): the likelihood takes the draw as half a loss
    u = rng.uniform(size=x.size)
    y = np.where(u < 0.2, 0.5, (rng.uniform(size=x.size) < p).astype(float))
    fa, fb = fit_band(x[u >= 0.2], y[u >= 0.2])
    assert fa == pytest.approx(a, abs=0.05) and fb == pytest.approx(b, abs=0.05)


def test_every_draw_pile_has_one_band():
    assert [band(k) for k in (0, 1, 9, 10, 52)] == ["end", "late", "late", "draw", "draw"]
    covered = sorted((lo, hi) for _, lo, hi in BANDS)
    assert covered[0][0] == 0 and all(h + 1 == lo for (_, h), (lo, _) in
                                      zip(covered, covered[1:]))


def test_a_map_is_increasing_on_estimates_and_keeps_certain_figures():
    m = CalibrationMap("t", {"end": (2.0, 0.5), "late": (0.7, -0.2), "draw": (1.3, 0.1)})
    xs = [x for x in np.linspace(0.0, 1.0, 201) if x not in CERTAIN]
    for k in (0, 5, 30):
        f = [m.mover_loss(x, k) for x in xs]
        assert all(0.0 < v < 1.0 for v in f)
        assert all(u < v for u, v in zip(f, f[1:]))
        assert [m.mover_loss(x, k) for x in CERTAIN] == list(CERTAIN)
        # a chance node's floating-point sum leaves a certain draw a few ulps off 1/2
        # (seen: 0.49999999999999994 in the fallback of gen1-calib-after-0000's game 263)
        for x in (0.5 - 2.0 ** -54, 0.5 + 2.0 ** -53, 1.0 - 2.0 ** -53, 2.0 ** -60):
            assert m.mover_loss(x, k) == x
        assert m.mover_loss(0.5 + 1e-9, k) != 0.5 + 1e-9


def test_a_certain_draw_keeps_its_figure_and_the_moves_follow_the_figures(monkeypatch,
                                                                           tmp_path):
    """A move a draw in every deal (back to the game's history) stays at 1/2; an estimate
    just under 1/2 can come out above it, and the analysis ranks by what it reports."""
    from palace_solver.sample import drawsearch

    real = drawsearch.decide

    def shaped(*args, **kwargs):
        raw = real(*args, **kwargs)
        v = np.empty((12, len(raw["moves"]), 2))
        for j, m in enumerate(raw["moves"]):
            v[:, j, 0] = {"9": 0.5, "Q": 0.49, "pickup": 0.7}[str(m)]
        v[:, 1:, 0] += 0.004 * (-1.0) ** np.arange(12)[:, None]   # estimates vary by deal
        v[:, :, 1] = 1.0 - v[:, :, 0]
        return {**raw, "values": v}

    monkeypatch.setattr(drawsearch, "decide", shaped)
    path = tmp_path / "calibration-up.json"       # b > 0: 0.49 comes out above 1/2
    path.write_text(json.dumps({"params": {"end": [1, 0], "late": [1, 0], "draw": [1.0, 0.2]}}))
    a = analyze_search(from_text(TWO), samples=12, nodes=6000, seed=0, calibration=str(path))
    loss = {str(m.move): m.loss[0] for m in a.moves}
    assert loss["9"] == 0.5 and loss["Q"] > 0.5
    assert [str(m.move) for m in a.moves][0] == "9"
    assert [m.loss[0] for m in a.moves] == sorted(loss.values())
    assert a.stats["vs_best_ci95"]["9"] == [0.0, 0.0]


def _map_file(tmp_path) -> str:
    path = tmp_path / "calibration-test.json"
    path.write_text(json.dumps({"params": {"end": [2.0, 0.4], "late": [1.5, -0.3],
                                           "draw": [0.6, 0.25]}}))
    return str(path)


def test_a_calibrated_analysis_is_the_map_of_the_raw_one(tmp_path):
    name = _map_file(tmp_path)
    pos = from_text(TWO)
    raw = analyze_search(pos, samples=12, nodes=24_000, seed=3, calibration="")
    cal = analyze_search(pos, samples=12, nodes=24_000, seed=3, calibration=name)
    assert raw.stats["calibration"] is None
    m = load_map(name)
    assert [str(x.move) for x in cal.moves] == [str(x.move) for x in raw.moves]
    assert ties(cal) == ties(raw) and cal.stats["vs_best_ci95"] == raw.stats["vs_best_ci95"]
    assert cal.stats["calibration"]["band"] == "draw"
    for r, c in zip(raw.moves, cal.moves):
        assert cal.stats["calibration"]["raw_mover_loss"][str(r.move)] == r.loss[0]
        assert c.loss[0] == pytest.approx(m.mover_loss(r.loss[0], 32))
        assert c.loss[0] + c.loss[1] == pytest.approx(1.0)
        lo, hi = r.ci95[0]
        assert c.ci95[0] == pytest.approx((m.mover_loss(lo, 32), m.mover_loss(hi, 32)))
        assert c.ci95[1] == pytest.approx((1 - c.ci95[0][1], 1 - c.ci95[0][0]))
        assert c.ci95[0][0] <= c.loss[0] <= c.ci95[0][1]
    js = cal.to_json()
    assert js["moves"][0]["loss_probability"] == cal.moves[0].loss
    assert js["stats"]["move_ci95"][str(cal.moves[0].move)][0] == list(cal.moves[0].ci95[0])


def test_three_players_keep_the_search_figures(tmp_path):
    pos = from_text(THREE)
    raw = analyze_search(pos, samples=6, nodes=12_000, seed=1, calibration="")
    cal = analyze_search(pos, samples=6, nodes=12_000, seed=1, calibration=_map_file(tmp_path))
    assert cal.stats["calibration"] is None
    assert [m.loss for m in cal.moves] == [m.loss for m in raw.moves]


def _map_file_3p(tmp_path) -> str:
    path = tmp_path / "calibration-test-3p.json"
    path.write_text(json.dumps({"players": 3, "params": {"end": [2.0, 0.4],
                                                        "draw": [0.6, -0.5]}}))
    return str(path)


def test_a_three_player_map_maps_the_mover_and_scales_the_others(tmp_path):
    name = _map_file_3p(tmp_path)
    pos = from_text(THREE)
    raw = analyze_search(pos, samples=6, nodes=12_000, seed=1)
    cal = analyze_search(pos, samples=6, nodes=12_000, seed=1, calibration3=name)
    m = load_map(name)
    assert m.players == 3 and cal.stats["calibration"]["map"] == name
    assert cal.stats["calibration"]["band"] == "draw"
    by_move = {str(x.move): x for x in raw.moves}
    assert set(by_move) == {str(x.move) for x in cal.moves}
    moved = 0
    for c in cal.moves:
        r = by_move[str(c.move)]
        x = r.loss[0]
        assert cal.stats["calibration"]["raw_mover_loss"][str(c.move)] == x
        assert c.loss[0] == pytest.approx(m.mover_loss(x, 23))
        assert sum(c.loss) == pytest.approx(1.0)
        # the others keep their ratio: each scaled by the same factor
        k = (1 - c.loss[0]) / (1 - x)
        assert c.loss[1:] == pytest.approx([v * k for v in r.loss[1:]])
        assert c.ci95[0] == pytest.approx(tuple(m.mover_loss(v, 23) for v in r.ci95[0]))
        for q in (1, 2):
            assert c.ci95[q] == pytest.approx((r.ci95[q][0] * k, min(1.0, r.ci95[q][1] * k)))
        moved += abs(c.loss[0] - x) > 1e-6
    assert moved    # the map did change figures: the test compares something
    # the moves are ranked by their calibrated figures
    assert [x.loss[0] for x in cal.moves] == sorted(x.loss[0] for x in cal.moves)
    # a band the map has no (a, b) of keeps the figures as they are
    end_only = tmp_path / "calibration-end-3p.json"
    end_only.write_text(json.dumps({"players": 3, "params": {"end": [2.0, 0.4]}}))
    kept = analyze_search(pos, samples=6, nodes=12_000, seed=1, calibration3=str(end_only))
    assert [x.loss for x in kept.moves] == [x.loss for x in raw.moves]


def test_a_map_of_another_number_of_players_is_refused(tmp_path):
    with pytest.raises(ValueError, match="fitted on 2-player games, not 3"):
        analyze_search(from_text(THREE), samples=2, nodes=2_000, calibration3=_map_file(tmp_path))
    with pytest.raises(ValueError, match="fitted on 3-player games, not 2"):
        analyze_search(from_text(TWO), samples=2, nodes=2_000,
                       calibration=_map_file_3p(tmp_path))


def test_seat_losses_add_up_to_one_and_keep_certain_figures(tmp_path):
    m = load_map(_map_file_3p(tmp_path))
    for loss in ([0.2, 0.5, 0.3], [0.7, 0.0, 0.3], [0.05, 0.9, 0.05]):
        got = m.seat_losses(loss, 0, 30)
        assert sum(got) == pytest.approx(1.0) and got[0] == m.mover_loss(loss[0], 30)
        assert got[0] != pytest.approx(loss[0])
    for certain in ([1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.5, 0.25, 0.25]):
        assert m.seat_losses(certain, 0, 30) == pytest.approx(certain)
    two = load_map(_map_file(tmp_path))
    assert two.seat_losses([0.3, 0.7], 1, 30) == pytest.approx(
        [1 - two.mover_loss(0.7, 30), two.mover_loss(0.7, 30)])


def _batch_file(path, games):
    """A file of ``benchmarks/calibration.py run`` (a header, then one game a line)."""
    lines = [json.dumps({"fingerprint": "test", "label": "calibration games",
                         "palace_batch": 1, "tasks": len(games)})]
    lines += [json.dumps({"id": g, "result": {"game": g, "rows": rows}})
              for g, rows in games.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_map_is_fitted_on_one_number_of_players_and_small_bands_are_left_out(tmp_path,
                                                                               monkeypatch):
    calib = load_script("benchmarks/calibration.py")
    rng = np.random.default_rng(5)

    def rows(n, draw, count):
        return [{"k": k, "draw": draw, "n": n, "method": "search",
                 "outcome": float(rng.integers(0, 2)), "figure": float(rng.uniform(0.1, 0.9))}
                for k in range(count)]
    three = _batch_file(tmp_path / "three.jsonl",
                        {g: rows(3, 20, 10) + rows(3, 0, 1) for g in range(30)})
    monkeypatch.setattr(calib, "calibration_path", lambda name: str(tmp_path / f"{name}.json"))
    calib.main(["fit", str(three), "--name", "m3", "--least", "200"])
    rec = json.loads((tmp_path / "m3.json").read_text())
    assert rec["players"] == 3 and rec["least"] == 200
    assert set(rec["params"]) == {"draw"}          # 300 draw-phase decisions, 30 at the end
    assert rec["decisions"] == {"end": 30, "late": 0, "draw": 300}
    assert load_map(str(tmp_path / "m3.json")).players == 3
    two = _batch_file(tmp_path / "two.jsonl", {g: rows(2, 20, 5) for g in range(30, 40)})
    with pytest.raises(SystemExit, match="one number of players"):
        calib.main(["fit", str(three), str(two), "--name", "mixed"])


def test_a_map_remaps_the_rows_of_its_own_number_of_players_only(tmp_path):
    calib = load_script("benchmarks/calibration.py")
    rows = [(g, {"k": 0, "draw": 20, "n": n, "method": "search", "outcome": 1.0,
                 "figure": 0.3}) for g, n in ((0, 2), (1, 3))]
    three = calib.remapped(rows, _map_file_3p(tmp_path))
    two = calib.remapped(rows, _map_file(tmp_path))
    m3, m2 = load_map(_map_file_3p(tmp_path)), load_map(_map_file(tmp_path))
    assert [r["figure"] for _, r in three] == [0.3, m3.mover_loss(0.3, 20)]
    assert [r["figure"] for _, r in two] == [m2.mover_loss(0.3, 20), 0.3]
    assert m3.mover_loss(0.3, 20) != pytest.approx(0.3) != m2.mover_loss(0.3, 20)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_map_rebuilds_from_the_decisions_it_names(path):
    rec = json.loads(path.read_text())
    files = [ROOT / f["file"] for f in rec["files"]]
    for f, meta in zip(files, rec["files"]):
        assert hashlib.sha256(f.read_bytes()).hexdigest() == meta["sha256"], f
    if rec.get("source") == "fallback_horizon.py":   # a fallback band of its own
        fh = load_script("benchmarks/fallback_horizon.py")
        rows, _ = fh.pair_rows(files[0])
        assert set(rec["params"]) == {FALLBACK}
        fit = fh.fit_rows(rows, rec["horizon"], rec["fit_below"])
        assert len(fit) == rec["decisions"][FALLBACK] and fit
        band = fh.fit_fallback_band(rows, rec["horizon"], rec["fit_below"])
        assert band == pytest.approx(tuple(rec["params"][FALLBACK]), abs=1e-9)
        assert band[0] > 0
        return
    bands = tuple(rec["params"])
    rows = search_rows(files, bands)
    assert len({g for g, _ in rows}) == rec["games"]
    assert {r["n"] for _, r in rows} == {rec.get("players", 2)}
    # the bands left out had fewer decisions than the fit asked
    assert all(c < rec.get("least", 1) for b, c in rec["decisions"].items() if b not in bands)
    params = fit_map([r for _, r in rows], bands)
    assert set(params) == set(rec["params"])
    for k, v in params.items():
        assert v == pytest.approx(tuple(rec["params"][k]), abs=1e-9)
        assert v[0] > 0     # increasing: the moves keep their order


def test_the_analysis_uses_a_shipped_map():
    assert SHIPPED, "no calibration map is shipped"
    names = {p.name.removeprefix("calibration-").removesuffix(".json") for p in SHIPPED}
    assert {HINT.calibration, HINT_END.calibration, FALLBACK_CALIBRATION} <= set(names)


def _decisions(seed, games=30, per_game=8):
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        out = float(rng.choice([0.0, 0.5, 1.0]))
        for k in range(per_game):
            rows.append((g, {"k": k, "draw": int(rng.integers(0, 3)) * 10, "n": 2,
                             "outcome": out, "figure": float(rng.uniform(0.05, 0.95))}))
    return rows


def test_pairing_a_set_with_itself_changes_nothing():
    calib = load_script("benchmarks/calibration.py")
    rows = _decisions(1)
    s = calib.paired(rows, rows, boot=200)
    for part in ("all", "draw_pile", "no_draw_pile"):
        assert s[part]["skill_difference"] == 0.0 and s[part]["bias_difference"] == 0.0
        assert s[part]["skill_difference_ci95"] == pytest.approx([0.0, 0.0], abs=1e-12)


def test_each_tenth_has_its_bias_with_an_interval_and_the_overall_ones_do_not_move():
    calib = load_script("benchmarks/calibration.py")
    rows = _decisions(2)
    s = calib.summary(rows, boot=300)
    for d in s["deciles"]:
        if d["count"]:
            lo, hi = d["bias_ci95"]
            assert lo <= d["mean_figure"] - d["mean_outcome"] <= hi
        else:
            assert d["bias_ci95"] is None
    s_all = calib.summary([(g, {**r, "figure": 0.55}) for g, r in rows], boot=300)
    assert [d["count"] for d in s_all["deciles"]][5] == len(rows)


def test_the_published_held_out_figures_rebuild_from_their_file():
    """docs/learning.md's "after (shipped)" column: the tenths' intervals, drawn from a
    generator of their own, leave the overall ones as published."""
    calib = load_script("benchmarks/calibration.py")
    rows = calib.load_rows([ROOT / "benchmarks/results/calibration/gen1-calib-after-0400.jsonl"])
    s = calib.summary(rows)
    assert round(s["all"]["bias"], 3) == 0.013 and round(s["all"]["brier_skill"], 3) == 0.160
    assert [round(x, 4) for x in s["all"]["bias_ci95"]] == [0.0014, 0.0254]
    assert [round(x, 3) for x in s["no_draw_pile"]["brier_skill_ci95"]] == [0.257, 0.457]


@pytest.mark.parametrize("run, players, engine", [
    ("gen1-calib-after-gen4-3p-0400.jsonl", 3, "three-player games of generation 1's engine"),
    ("row-t3-noinfer-3p-after-gen4-3p-0000.jsonl", 3,
     "three-player games of the engine (generation 4) against itself"),
    ("many-calib-after-gen4-4p-0*.jsonl", 4,
     "four-player games of the engine (generation 4) against itself"),
    ("many-calib-after-gen4-5p-0*.jsonl", 5,
     "five-player games of the engine (generation 4) against itself")])
def test_the_many_player_notes_say_what_their_runs_measured(run, players, engine):
    """The note of three-, four- and five-player figures (palace analyze, the live hints)
    quotes the held-out runs of that many players (docs/learning.md, Calibration: Three
    players; Four and five players)."""
    s, _, _ = _measured(run, players)
    lo, hi = s["all"]["bias_ci95"]
    bias = s["all"]["bias"]
    note = many_players_note(players)
    assert f"on {s['all']['decisions']} decisions of {s['games']} {engine}" in note
    digits = 2 if abs(bias) >= 0.01 else 3
    side = "above" if bias > 0 else "below"
    assert (f"{abs(bias):.{digits}f} {side} the outcomes on average "
            f"[{lo:+.{digits}f}, {hi:+.{digits}f}]" in note)
    high = [d for d in s["deciles"] if d["decile"][0] >= 0.6 and d["count"]]
    n = sum(d["count"] for d in high)
    fig = sum(d["count"] * d["mean_figure"] for d in high) / n
    out = sum(d["count"] * d["mean_outcome"] for d in high) / n
    assert (f"those from 0.6 up {fig - out:.2f} above ({n} decisions: {fig:.2f} against "
            f"{out:.2f})" in note)


def test_each_player_counts_note_quotes_its_own_measurements_and_no_other():
    assert many_players_note(3) == MANY_PLAYERS_NOTE and set(MEASURED) == {3, 4, 5}
    for n in range(3, 8):
        note = many_players_note(n)
        assert note.startswith("not calibrated: with three or more players no map")
        assert [m for m in MEASURED if MEASURED[m] in note] == ([n] if n in MEASURED else [])
        assert (n in MEASURED) != (f"with {n} players they were never compared" in note)


def _measured(name: str, players: int, phase: str = "all") -> tuple[dict, dict, str]:
    """The summary of a run's calibration files (``name``, a pattern for files in blocks),
    one phase's part of it, and that phase's bias as the notes word it (three decimals, its
    95% interval)."""
    calib = load_script("benchmarks/calibration.py")
    files = sorted((ROOT / "benchmarks/results/calibration").glob(name))
    assert files, name
    rows = calib.load_rows(files)
    assert {r["n"] for _, r in rows} == {players}
    s = calib.summary(rows)
    d = s[phase]
    lo, hi = d["bias_ci95"]
    side = "above" if d["bias"] > 0 else "below"
    return s, d, f"{abs(d['bias']):.3f} {side} the outcomes on average [{lo:+.3f}, {hi:+.3f}]"


def test_the_three_player_note_says_what_its_games_laid_out_at_random_measured():
    # layouts-calib's three-player games, analysed as t3-noinfer-3p's were
    s, a, bias = _measured("layouts-calib-after-gen4-3p-0000.jsonl", 3)
    assert (f"on {a['decisions']} decisions of {s['games']} three-player games laid out at "
            f"random, not as the engine lays out, {bias}" in MANY_PLAYERS_NOTE)


def test_the_random_layouts_note_says_what_its_run_measured():
    """The note of two-player figures while the draw pile holds cards quotes the analyses
    of layouts-calib's games (docs/learning.md, Layouts the engine's games never hold)."""
    s, d, bias = _measured("layouts-calib-after-0000.jsonl", 2, "draw_pile")
    assert (f"on {d['decisions']} decisions of {s['games']} games laid out at random"
            in RANDOM_LAYOUTS_NOTE)
    assert f"{bias} while the draw pile held cards" in RANDOM_LAYOUTS_NOTE


def test_pairing_scores_each_side_on_the_decisions_both_hold():
    calib = load_script("benchmarks/calibration.py")
    base = [(g, r) for g, r in _decisions(2) if r["outcome"] != 0.5]
    perfect = [(g, {**r, "figure": r["outcome"]}) for g, r in base]
    constant = [(g, {**r, "figure": 0.5}) for g, r in base]
    # decisions only the first side holds are left out, whatever their figures
    extra = [(g, {**r, "k": r["k"] + 100, "figure": 1.0 - r["outcome"]}) for g, r in base]
    s = calib.paired(perfect + extra, constant, boot=200)
    assert s["all"]["decisions"] == len(base)
    assert s["all"]["a"][1] == pytest.approx(1.0) and s["all"]["b"][1] == pytest.approx(0.0)
    assert s["all"]["skill_difference"] == pytest.approx(1.0)
    assert s["all"]["skill_difference_ci95"] == pytest.approx([1.0, 1.0])
    out = np.array([r["outcome"] for _, r in base])
    assert s["all"]["bias_difference"] == pytest.approx(-float(np.mean(0.5 - out)))


def test_sets_of_other_games_are_each_scored_on_all_their_decisions():
    calib = load_script("benchmarks/calibration.py")
    base = [(g, r) for g, r in _decisions(2) if r["outcome"] != 0.5]
    perfect = [(g, {**r, "figure": r["outcome"]}) for g, r in base]
    # the other set: other games, fewer of them, reported at a constant 1/2
    constant = [(g, {**r, "figure": 0.5}) for g, r in base if g % 2]
    s = calib.apart(perfect, constant, boot=200)
    assert s["games"] == [len({g for g, _ in base}), len({g for g, _ in constant})]
    assert s["all"]["decisions"] == [len(perfect), len(constant)]
    assert s["all"]["skill_difference"] == pytest.approx(1.0)
    assert s["all"]["skill_difference_ci95"] == pytest.approx([1.0, 1.0])
    out = np.array([r["outcome"] for _, r in constant])
    assert s["all"]["bias_difference"] == pytest.approx(-float(np.mean(0.5 - out)))
    lo, hi = s["draw_pile"]["bias_difference_ci95"]
    assert lo < s["draw_pile"]["bias_difference"] < hi
    # a set against a copy of itself: no difference, though resampled apart
    same = calib.apart(base, base, boot=200)
    for part in ("all", "draw_pile", "no_draw_pile"):
        assert same[part]["bias_difference"] == 0.0
        lo, hi = same[part]["skill_difference_ci95"]
        assert lo < 0.0 < hi


def test_the_unordered_run_is_the_hints_search_without_the_draw_order():
    calib = load_script("benchmarks/calibration.py")
    assert HINT.ordered and not calib.UNORDERED.ordered and calib.UNORDERED.chance_width == 2
    assert calib.UNORDERED.with_(ordered=True, chance_width=HINT.chance_width) == HINT


def test_a_calibration_file_of_other_configurations_is_refused_not_resumed(tmp_path,
                                                                           monkeypatch):
    calib = load_script("benchmarks/calibration.py")
    digests = {w: calib.analysis_digest(w) for w in ("before", "after", "unordered")}
    assert len(set(digests.values())) == 3
    assert calib.analysis_digest("after") == digests["after"]          # deterministic
    # the analyses change (say, another inference): the digest does
    monkeypatch.setattr(calib, "HINT", HINT.with_(infer_temp=HINT.infer_temp / 2))
    assert calib.analysis_digest("after") != digests["after"]
    # a file written for the old configuration is refused by the batch layer
    from palace_solver.jobs.batch import BatchError, run_batch
    games = tmp_path / "g.jsonl"
    task = {"id": 1, "game": 1, "file": str(games), "which": "after", "keep": 0.0}
    out = tmp_path / "c.jsonl"
    run_batch(lambda t: {"game": t["game"], "rows": []},
              [{**task, "analysis": digests["after"]}], output=out)
    with pytest.raises(BatchError, match="another batch"):
        run_batch(lambda t: {"game": t["game"], "rows": []},
                  [{**task, "analysis": calib.analysis_digest("after")}], output=out)


#: exact mode, its whole graph far past a depth of 2 (test_analyze_cli's BIG)
BIG = ("standard | 5 Q K / 4 6 A / 3 ; 3 6 7 / 2 3 9 / 3 | pile A Q | burned 2 2 2 3 4 4 4 5 5 "
       "5 6 7 7 7 8 8 8 9 9 9 10 10 10 J J J J Q Q K A A | draw 0 | to_move 0")


def test_the_fallback_has_a_band_only_for_what_it_did_not_prove():
    assert row_band("search", 12) == "draw" and row_band("search", 0) == "end"
    assert row_band("depth_limited", 0) == FALLBACK
    assert row_band("depth_limited", 0, proved=True) is None
    assert row_band("exact", 0) is None
    old = CalibrationMap("old", {"end": (2.0, 0.4), "late": (1, 0), "draw": (1, 0)})
    assert old.apply(0.3, FALLBACK) == 0.3 and old.apply(0.3, None) == 0.3
    assert old.apply(0.3, "end") == old.mover_loss(0.3, 0) != 0.3


def test_rows_of_the_fallback_band_are_those_it_did_not_prove(tmp_path):
    f = tmp_path / "rows.jsonl"
    rows = [{"k": 0, "draw": 0, "figure": 0.2, "outcome": 1.0, "method": "depth_limited",
             "n": 2, "proved": False},
            {"k": 1, "draw": 0, "figure": 0.3, "outcome": 0.0, "method": "depth_limited",
             "n": 2, "proved": True},
            {"k": 2, "draw": 0, "figure": 0.4, "outcome": 0.0, "method": "depth_limited",
             "n": 2},      # from before the rows said: no band
            {"k": 3, "draw": 0, "figure": 0.5, "outcome": 0.0, "method": "depth_limited",
             "n": 2, "proved": False},     # certain: no map changes it
            {"k": 4, "draw": 12, "figure": 0.55, "raw": 0.6, "outcome": 0.0,
             "method": "search", "n": 2}]
    f.write_text(json.dumps({"palace_batch": 1, "tasks": 1}) + "\n"
                 + json.dumps({"id": 7, "result": {"game": 7, "rows": rows}}) + "\n")
    got = search_rows([f], ("end", "late", "draw", FALLBACK))
    assert [(r["k"], r["band"], r["figure"]) for _, r in got] == [
        (0, FALLBACK, 0.2), (4, "draw", 0.6)]
    assert [r["k"] for _, r in search_rows([f])] == [4]
    params = fit_map([r for _, r in got], ("draw", FALLBACK))
    assert set(params) == {"draw", FALLBACK}


def test_the_fallback_s_estimates_go_through_the_map_and_its_proofs_stay(monkeypatch,
                                                                          tmp_path):
    pos = from_text(BIG)
    monkeypatch.setattr(analysis, "FALLBACK_CALIBRATION", "")
    raw = analysis.analyze(pos, depth=2)
    assert raw.method == "depth_limited" and "calibration" not in raw.stats
    assert any(m.resolved is False for m in raw.moves)
    path = tmp_path / "calibration-fb.json"
    path.write_text(json.dumps({"params": {"end": [1, 0], "late": [1, 0], "draw": [1, 0],
                                           FALLBACK: [0.5, 0.3]}}))
    monkeypatch.setattr(analysis, "FALLBACK_CALIBRATION", str(path))
    cal = analysis.analyze(pos, depth=2)
    m = load_map(str(path))
    before = {str(x.move): x for x in raw.moves}
    assert cal.stats["calibration"]["band"] == FALLBACK
    for c in cal.moves:
        r = before[str(c.move)]
        if r.resolved is False:
            assert cal.stats["calibration"]["raw_mover_loss"][str(c.move)] == r.loss[0]
            assert c.loss[0] == pytest.approx(m.apply(r.loss[0], FALLBACK))
        else:
            assert c.loss == r.loss and str(c.move) not in cal.stats["calibration"][
                "raw_mover_loss"]
        assert sum(c.loss) == pytest.approx(1.0)
    assert [x.loss[0] for x in cal.moves] == sorted(x.loss[0] for x in cal.moves)
    assert cal.loss == cal.moves[0].loss
    # a map without the band, the shipped one's kind, changes nothing
    path.write_text(json.dumps({"params": {"end": [2, 0], "late": [1, 0], "draw": [1, 0]}}))
    load_map.cache_clear()
    same = analysis.analyze(pos, depth=2)
    assert [(str(x.move), x.loss) for x in same.moves] == [(str(x.move), x.loss)
                                                           for x in raw.moves]
    assert "calibration" not in same.stats
    # the shipped map has the band: palace analyze's fallback figures go through it
    monkeypatch.setattr(analysis, "FALLBACK_CALIBRATION", FALLBACK_CALIBRATION)
    assert analysis.analyze(pos, depth=2).stats["calibration"]["map"] == FALLBACK_CALIBRATION
    assert FALLBACK in load_map(FALLBACK_CALIBRATION).params


def test_the_fallback_horizon_benchmark_maps_figures_as_the_analysis_does(monkeypatch):
    """fallback_horizon.py scores a horizon's figures as palace analyze would show them:
    its "proved" flag and its map agree with analysis.calibrate_fallback, move by move."""
    fh = load_script("benchmarks/fallback_horizon.py")
    pos = from_text(BIG)
    monkeypatch.setattr(analysis, "FALLBACK_CALIBRATION", "")
    raw = analysis.analyze(pos, depth=2)
    monkeypatch.setattr(analysis, "FALLBACK_CALIBRATION", FALLBACK_CALIBRATION)
    shown = {str(m.move): m.loss[pos.to_move] for m in analysis.analyze(pos, depth=2).moves}
    rows = [{"h": {"figure": m.loss[pos.to_move],
                   "proved": not (raw.method == "depth_limited" and m.resolved is False)}}
            for m in raw.moves]
    assert not all(r["h"]["proved"] for r in rows)
    got = fh.mapped(rows, "h", load_map(FALLBACK_CALIBRATION).params[FALLBACK])
    assert got == pytest.approx([shown[str(m.move)] for m in raw.moves])


def test_three_player_games_give_rows_while_every_player_is_in(tmp_path, monkeypatch):
    # calibration.py run --players 3: the decisions of three-player games before anyone is
    # out, each figure a mover's loss, scored against a constant 1/3
    calib = load_script("benchmarks/calibration.py")
    from palace_solver.learn.engine_games import game_tasks, play_selfplay_game
    games = tmp_path / "g.jsonl"
    task = game_tasks(1, seed=3, agent="greedy", players={3: 1})[0]
    rec = play_selfplay_game(task)
    games.write_text(json.dumps({"palace_batch": 1, "tasks": 1}) + "\n"
                     + json.dumps({"id": 0, "result": rec}) + "\n")
    monkeypatch.setattr(calib, "SECONDS", 0.05)
    out = calib.calib_task({"game": 0, "file": str(games), "which": "after", "keep": 0.3})
    rows = out["rows"]
    assert rows and all(r["n"] == 3 and 0 <= r["figure"] <= 1 for r in rows)
    assert all(r["method"] == "search" or r["draw"] == 0 for r in rows)
    assert all("raw" not in r for r in rows)           # no map for three players
    from palace_solver.learn.engine_games import replay
    active = {k: len(st.active()) for st, _, _, k in replay(rec)}
    assert all(active[r["k"]] == 3 for r in rows)
    assert min(active.values()) < 3                    # the game had positions left out
    s = calib.summary([(0, r) for r in rows], boot=50)
    base = np.mean([(1 / 3 - r["outcome"]) ** 2 for r in rows])
    fig = np.mean([(r["figure"] - r["outcome"]) ** 2 for r in rows])
    assert s["all"]["brier_skill"] == pytest.approx(1 - fig / base)


def test_a_candidate_network_s_rows_are_the_hints_search_with_it(tmp_path, monkeypatch):
    # calibration.py run --which after --weights GEN: on the decisions the search analyses,
    # the shipped analysis with GEN's network; with the shipped network the same rows as
    # 'after', exact mode's decisions left to 'after'
    calib = load_script("benchmarks/calibration.py")
    from palace_solver.learn.engine_games import game_tasks, play_selfplay_game
    from palace_solver.sample import drawsearch
    small = {"determinizations": 4, "nodes": 6000}
    for name in ("HINT", "HINT_END"):
        config = getattr(drawsearch, name).with_(**small)
        monkeypatch.setattr(drawsearch, name, config)   # what analyze() searches with
        monkeypatch.setattr(calib, name, config)
    monkeypatch.setattr(calib, "SECONDS", 120.0)        # bound by nodes: the same each run
    real = calib.analyze                                # (exact mode's solver by time: short)
    monkeypatch.setattr(calib, "analyze", lambda pos, time_budget, **kw: real(
        pos, time_budget=0.05 if calib.is_exact_mode(pos) else time_budget, **kw))
    games = tmp_path / "g.jsonl"
    rec = play_selfplay_game(game_tasks(1, seed=5, agent="greedy", players={2: 1})[0])
    games.write_text(json.dumps({"palace_batch": 1, "tasks": 1}) + "\n"
                     + json.dumps({"id": 0, "result": rec}) + "\n")

    def rows(**extra):
        task = {"game": 0, "file": str(games), "which": "after", "keep": 0.25, **extra}
        return {r["k"]: r for r in calib.calib_task(task)["rows"]}

    after = rows()
    shipped = drawsearch.HINT.weights
    candidate = next(g for g in ("gen1", "gen4") if g != shipped)
    same, other = rows(weights=shipped), rows(weights=candidate)
    searched = {k for k, r in after.items() if r["method"] == "search"}
    assert searched and set(same) == set(other) == searched
    assert len(searched) < len(after)                  # the game reached exact mode
    for k in searched:
        assert {f: same[k][f] for f in after[k]} == after[k]
        assert 0 <= other[k]["raw"] <= 1 and other[k]["seconds"] > 0
    assert any(other[k]["raw"] != after[k]["raw"] for k in searched)
    assert calib.analysis_digest("after", candidate) != calib.analysis_digest("after")
    with pytest.raises(ValueError, match="after"):
        calib.figure(None, [], "before", "gen4")


def test_a_move_the_fallback_proved_keeps_no_raw_figure(tmp_path, monkeypatch):
    # the fallback maps only the moves it did not prove (analysis.calibrate_fallback): the
    # move played may be a proved one among estimates
    calib = load_script("benchmarks/calibration.py")
    from palace_solver.learn.engine_games import game_tasks, play_selfplay_game
    games = tmp_path / "g.jsonl"
    rec = play_selfplay_game(game_tasks(1, seed=5, agent="greedy", players={2: 1})[0])
    games.write_text(json.dumps({"palace_batch": 1, "tasks": 1}) + "\n"
                     + json.dumps({"id": 0, "result": rec}) + "\n")
    played = {}

    def proved_but_one(pos, history, which, weights="", bound="time"):
        moves = played["legal"]
        other = next(m for m in moves if m != played["move"])
        return ({m: 0.5 for m in moves}, "depth_limited", {other: 0.4}, {played["move"]}, 0.0)

    monkeypatch.setattr(calib, "figure", proved_but_one)
    real = calib.replay_tracked

    def replay(r):
        for step in real(r):
            played["move"] = str(step[1])
            played["legal"] = [str(m) for m in step[0].legal_moves()]
            yield step
    monkeypatch.setattr(calib, "replay_tracked", replay)
    rows = calib.calib_task({"game": 0, "file": str(games), "which": "after", "keep": 1.0})
    assert rows["rows"] and all(r["proved"] and "raw" not in r for r in rows["rows"])


def test_a_run_laid_over_another_replaces_the_decisions_both_hold_and_keeps_the_rest():
    calib = load_script("benchmarks/calibration.py")
    base = [(0, {"k": 1, "figure": 0.2}), (0, {"k": 5, "figure": 0.4}),
            (1, {"k": 1, "figure": 0.6})]
    rows = [(0, {"k": 5, "figure": 0.9}), (1, {"k": 1, "figure": 0.1})]
    assert calib.laid_over(rows, base) == [(0, {"k": 1, "figure": 0.2}),
                                           (0, {"k": 5, "figure": 0.9}),
                                           (1, {"k": 1, "figure": 0.1})]
    # a decision only the laid run holds is not added: the base says which are measured
    assert calib.laid_over([(2, {"k": 3, "figure": 0.5})], base) == base


class _Figures(dict):
    """Every move's figure 0.25: what calib_task reads of an analysis."""

    def __missing__(self, key):
        return 0.25

    def values(self):
        return [0.25]


def test_a_recorded_rows_games_are_measured_as_a_runs_are(monkeypatch):
    # row:ROW reads the row's recorded games: game start + 100000 * seat, the outcome the
    # row recorded for the mover, every decision with a choice kept at keep 1
    from palace_solver.learn.engine_games import replay_tracked
    calib = load_script("benchmarks/calibration.py")
    seen = []
    monkeypatch.setattr(calib, "figure", lambda pos, history, which, weights, bound: (
        seen.append((pos.draw_pile, bound)) or (_Figures(), "search", None, set(), 0.1)))
    games = dict(calib.finished_games("row:g4-engine"))
    game = 3 + calib.SEAT_STRIDE * 1
    rec = games[game]
    line = [json.loads(x) for x in (ROOT / "benchmarks/results/strength/g4-engine.jsonl")
            .read_text().splitlines()[1:]]
    (played,) = [x["result"] for x in line if x["id"] == "3/1"]
    assert rec["loss"] == played["loss"] and rec["events"] == played["events"]
    task = {"id": game, "game": game, "file": "row:g4-engine", "which": "after", "keep": 1.0,
            "bound": "nodes"}
    out = calib.calib_task(task)
    choices = [(s, mv) for s, mv, _, _, _ in replay_tracked(rec) if len(s.legal_moves()) > 1]
    assert len(out["rows"]) == len(choices) == len(seen) > 0
    assert {b for _, b in seen} == {"nodes"}
    assert all(r["outcome"] == rec["loss"][s.to_move] and r["figure"] == 0.25
               and r["draw"] == s.draw_pile and "seconds" in r
               for r, (s, _) in zip(out["rows"], choices))
    with pytest.raises(ValueError, match="not in"):
        calib.calib_task({**task, "game": 10**9})


def test_the_node_bound_searches_without_the_time_budget_and_leaves_exact_mode(monkeypatch):
    calib = load_script("benchmarks/calibration.py")
    asked = []
    # (each analysis itself cut short: only what figure() asks of analyze is looked at)
    monkeypatch.setattr(calib, "analyze", lambda pos, **kw: asked.append(kw) or analysis.analyze(
        pos, **{**kw, "time_budget": 0.05, "nodes": 2000}))
    pos = from_text("standard | me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 | pile 3 5 "
                    "| draw 32 | to_move 0")
    calib.figure(pos, [], "after", bound="nodes")
    assert "time_budget" not in asked[-1]
    calib.figure(pos, [], "after")
    assert asked[-1]["time_budget"] == calib.SECONDS
    calib.figure(from_text(BIG), [], "after", bound="nodes")      # exact mode: its 2 s
    assert asked[-1]["time_budget"] == calib.SECONDS


def test_a_rows_games_never_share_a_number_with_a_runs(tmp_path):
    # pooled in one report, game 3 of a self-play run and start 3 of a row are two games
    from palace_solver.jobs.batch import run_batch
    from palace_solver.learn.calibration import ROW_GAMES, read_rows
    row = {"k": 0, "draw": 5, "figure": 0.5, "outcome": 1.0, "method": "search", "n": 2}
    files = [tmp_path / "gen1-calib-after-0000.jsonl", tmp_path / "row-x-after-0000.jsonl"]
    for f in files:
        run_batch(lambda t: {"game": t["game"], "rows": [row]}, [{"id": 3, "game": 3}],
                  output=f, progress=False)
    assert [g for g, _ in read_rows(files)] == [3, 3 + ROW_GAMES]

"""``palace review``: decisions judged from the mover's view (docs/review.md).

A planted blunder is marked and a tie never is; every exact figure is ``palace analyze``'s
for that position and history; a game followed in ``palace live`` and exported reviews the
same as the record written by hand; the JSON and the picture carry what docs/review.md says.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from palace_solver.agents.play import play_game
from palace_solver.cli.main import cli
from palace_solver.game.cards import RANKS
from palace_solver.game.position import PlayerPosition, Position, to_text
from palace_solver.game.record import parse_record
from palace_solver.game.rules import Rules
from palace_solver.review.judge import Budget, accuracy, mark_of
from palace_solver.review.replay import replay
from palace_solver.review.run import review, review_tasks
from palace_solver.review.writers import record_from_game

DATA = Path(__file__).parent / "data" / "records"


def endgame(al_hand, bo_hand, pile, to_move=0) -> Position:
    """An exact two-player endgame: hands only, every other card burned."""
    rules = Rules()
    deck = rules.deck_counts(2)
    for r in list(al_hand) + list(bo_hand) + list(pile):
        deck[r] -= 1
    burned = [r for r in RANKS for _ in range(deck[r])]
    return Position(rules, [PlayerPosition("al", list(al_hand), len(al_hand), [], 0),
                            PlayerPosition("bo", list(bo_hand), len(bo_hand), [], 0)],
                    pile=list(pile), burned=burned, draw_pile=0, to_move=to_move).validate()


def record_from(pos: Position, events) -> str:
    return ("palace record 1\nseats: al bo\nstart: position\nposition: " + to_text(pos)
            + "\n\n" + "\n".join(events) + "\n")


def one(text: str, **kw) -> dict:
    return review([("game", parse_record(text))], progress=False, **kw)[0]


def test_marks_and_accuracy():
    assert mark_of(0.049, False) is None and mark_of(0.05, False) == "inaccuracy"
    assert mark_of(0.1, False) == "mistake" and mark_of(0.2, False) == "blunder"
    assert mark_of(0.9, True) is None                 # a tie is never a mistake
    assert accuracy(0.0) == 100.0 and accuracy(0.05) == 36.8 and accuracy(0.02) > accuracy(0.05)


def test_a_planted_blunder_is_marked():
    # al holds K, bo two 4s, the pile a 5: the K wins at once; the pickup gives bo the
    # empty pile and bo goes out with both 4s.
    rep = one(record_from(endgame([13], [4, 4], [5]), ["al pickup", "bo 4x2"]))
    d = rep["decisions"][0]
    assert d["method"] == "exact"
    assert (d["played"], d["best"], d["loss_played"], d["loss_best"]) == ("pickup", "K", 1.0, 0.0)
    assert d["mark"] == "blunder" and d["loss_added"] == 1.0
    al = rep["players"][0]
    assert (al["name"], al["blunders"], al["accuracy"]) == ("al", 1, accuracy(1.0))
    bo = rep["players"][1]
    assert bo["decisions"] == 1 and bo["accuracy"] == 100.0      # 4x2: the best


def test_a_move_tied_with_the_best_is_never_marked():
    # K or A: both win (bo cannot beat either with a 4 and must pick up); pickup loses.
    pos = endgame([13, 14], [4, 4], [5])
    for played in ("K", "A"):
        rep = one(record_from(pos, [f"al {played}", "bo pickup", "al " + ("A" if played == "K"
                                                                           else "K")]))
        d = rep["decisions"][0]
        assert d["loss_played"] == d["loss_best"] == 0.0 and d["mark"] is None
        assert rep["players"][0]["accuracy"] == 100.0
        assert {m["move"]: m["loss"] for m in d["moves"]}["pickup"] == 1.0


def played_out(pos: Position, seed: int) -> str:
    """A record from ``pos``: greedy (al) against random (bo) to the end, flips drawn."""
    import random

    from palace_solver.sample.policies import make_bot
    s = pos.to_state()
    rng = random.Random(seed)
    bots = [make_bot("greedy"), make_bot("random")]
    names, events, seen = ["al", "bo"], [], set()
    while not s.is_terminal() and s.key() not in seen:
        seen.add(s.key())
        p = s.to_move
        m = bots[p].choose(s, rng)
        s.apply(m)
        if s.is_chance():          # a flip
            pool = [r for r in RANKS for _ in range(s.pool[r])]
            r = rng.choice(pool)
            s.apply(r)
            events.append(f"{names[p]} flip {r if r <= 10 else 'JQKA'[r - 11]}")
        else:
            events.append(f"{names[p]} {m}")
    return record_from(pos, events)


def exact_endgame(seed: int) -> Position:
    """Two hands of 2 or 3 cards, a face-up card each, a face-down card for al."""
    import random
    rng = random.Random(seed)
    rules = Rules()
    deck = [r for r in RANKS[:-1] for _ in range(4)]
    rng.shuffle(deck)
    al, bo = deck[:2 + seed % 2], deck[4:6]
    up_al, up_bo, down = [deck[8]], [deck[9]], deck[10:11]
    pile = [deck[12]] if seed % 3 else []
    counts = rules.deck_counts(2)
    for r in al + bo + up_al + up_bo + down + pile:
        counts[r] -= 1
    burned = [r for r in RANKS for _ in range(counts[r])]
    return Position(rules, [PlayerPosition("al", al, len(al), up_al, 1),
                            PlayerPosition("bo", bo, len(bo), up_bo, 0)],
                    pile=pile, burned=burned, draw_pile=0, to_move=0).validate()


def test_every_exact_figure_is_palace_analyzes(tmp_path):
    runner = CliRunner()
    checked = 0
    for seed in range(4):
        rec = parse_record(played_out(exact_endgame(seed), seed))
        rp = replay(rec)
        budget = Budget(nodes=400)
        tasks = {t["id"]: t for t in review_tasks("g", rp, [0, 1], budget, 0, True)}
        rep = review([("g", rec)], budget=budget, hindsight=True, progress=False)[0]
        for d in rep["decisions"]:
            for part in ("view", "hindsight"):
                fig = d if part == "view" else d.get("hindsight")
                if not fig or fig["method"] == "forced":
                    continue
                assert fig["method"] == "exact"          # every hand known, no draw pile
                t = tasks[f"g:{d['ply']}"][part]
                hist = tmp_path / f"h{seed}-{d['ply']}{part}.txt"
                hist.write_text("\n".join(t["history"]) + "\n")
                r = runner.invoke(cli, ["analyze", t["position"], "--history", str(hist),
                                        "--json"])
                assert r.exit_code == 0, r.output
                a = json.loads(r.stdout)
                assert a["method"] == "exact"
                mover = a["to_move"]
                by_move = {m["move"]: m["loss_probability"][mover] for m in a["moves"]}
                assert fig["loss_played"] == by_move[d["played"]]
                assert fig["loss_best"] == a["moves"][0]["loss_probability"][mover]
                if part == "view":
                    assert [m["loss"] for m in d["moves"]] == \
                        [m["loss_probability"][mover] for m in a["moves"]]
                checked += 1
    assert checked >= 10, checked


def test_a_live_game_exported_reviews_as_the_record_written_by_hand(tmp_path):
    session = tmp_path / "s.json"
    script = tmp_path / "typed.txt"
    at_prompt = tmp_path / "at-prompt.txt"
    script.write_text((DATA / "greedy-view.live").read_text() + f"export {at_prompt}\n")
    r = CliRunner().invoke(cli, ["live", "--names", "greedy,random", "--me", "greedy",
                                 "--deal", "5 J K / J 9 5", "--file", str(session),
                                 "--script", str(script), "--no-hints"])
    assert r.exit_code == 0 and "refused" not in r.output, r.output
    out = tmp_path / "exported.txt"
    r = CliRunner().invoke(cli, ["live", "--export", str(session), str(out)])
    assert r.exit_code == 0, r.output
    assert at_prompt.read_text() == out.read_text()      # 'export FILE' at the prompt
    budget = Budget(nodes=1500)
    by_hand = one((DATA / "greedy-view.txt").read_text(), budget=budget)
    exported = one(out.read_text(), budget=budget)

    def strip(rep):
        return [{k: v for k, v in d.items() if k not in ("line", "stats")}
                for d in rep["decisions"]]

    assert exported["players"] == by_hand["players"]
    assert strip(exported) == strip(by_hand)
    assert exported["reviewed"] == ["greedy"] and len(strip(exported)) > 30


def test_the_cli_table_json_plot_and_resume(tmp_path):
    runner = CliRunner()
    r = runner.invoke(cli, ["play", "--bots", "greedy,random", "--seed", "3", "--record",
                            str(tmp_path)])
    assert r.exit_code == 0, r.output
    f = tmp_path / "game-3.txt"
    assert parse_record(f.read_text()) == record_from_game(
        play_game(Rules(), 2, ["greedy", "random"], seed=3))
    out = tmp_path / "r.jsonl"
    args = ["review", str(f), "--nodes", "300", "--json", "--output", str(out),
            "--plot", str(tmp_path / "g.svg")]
    r = runner.invoke(cli, args)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert [p["name"] for p in rep["players"]] == ["greedy", "random"]
    for p in rep["players"]:
        assert {"name", "accuracy", "inaccuracies", "mistakes", "blunders",
                "loss_added"} <= set(p)
    for d in rep["decisions"]:
        assert {"ply", "player", "played", "best", "loss_played", "loss_best", "mark",
                "method"} <= set(d)
    svg = (tmp_path / "g.svg").read_text()
    assert svg.startswith("<svg") and svg.count("data-ply=") >= len(
        [d for d in rep["decisions"] if d["method"] != "forced"])
    assert "draw pile empty" in svg
    again = runner.invoke(cli, args)             # resumed from the output file
    assert again.exit_code == 0 and json.loads(again.stdout) == rep
    table = runner.invoke(cli, ["review", str(f), "--nodes", "300", "--seat", "random"])
    assert table.exit_code == 0 and "random" in table.output and "accuracy" in table.output
    bad = runner.invoke(cli, ["review", str(f), "--seat", "zed"])
    assert bad.exit_code == 2 and "no seat 'zed'" in bad.stderr
    many = runner.invoke(cli, ["review", str(tmp_path), "--nodes", "200", "--json"])
    assert many.exit_code == 0, many.output
    summary = json.loads(many.stdout)["summary"]
    assert {s["name"] for s in summary} == {"greedy", "random"}


def test_a_live_export_knows_only_its_seat():
    rec = parse_record((DATA / "greedy-view.txt").read_text())
    with pytest.raises(ValueError, match="does not know random's cards"):
        review([("g", rec)], seats=["random"], progress=False)


def test_palace_match_records_every_game(tmp_path):
    runner = CliRunner()
    r = runner.invoke(cli, ["match", "greedy", "random", "--starts", "2", "--kind", "late",
                            "--record", str(tmp_path), "--no-progress"])
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["late-0000-0.txt", "late-0000-1.txt", "late-0001-0.txt",
                     "late-0001-1.txt"]
    rec = parse_record((tmp_path / "late-0000-1.txt").read_text())
    assert rec.seats == ["random", "greedy"] and rec.draw_pile is not None
    first = int(rec.tags["agents from ply"])
    assert first > 1                       # the late start's greedy prefix is tagged
    rep = review([("g", rec)], budget=Budget(nodes=200), progress=False)[0]
    assert rep["decisions"] and min(d["ply"] for d in rep["decisions"]) >= first
    rp = replay(rec)
    assert rp.over == (rec.result is not None and "loses" in rec.result)


def test_a_live_game_from_the_cards_after_the_swap_exports_and_reviews(tmp_path):
    """palace live --hand/--up (no deal): the record starts at the first play."""
    from palace_solver.live.export import session_record
    from palace_solver.live.session import Session, Setup
    def session(events):
        s = Session(Setup(["me", "bob"], 0, Rules(), [3, 7, 12], [[2, 14, 13], [5, 9, 11]]))
        for ev in events:
            s.apply(ev)
        return s

    events = ("me 3", "draw 8", "bob 5", "me 7", "draw 4", "bob pickup", "me 8")
    s = session(events)
    rec = session_record(s)
    text = rec.text()
    assert "start: play" in text and "me: 3 7 Q / 2 K A / ?3" in text
    assert parse_record(text) == rec
    rp = replay(parse_record(text))
    assert rp.visible == [0] and len(rp.decisions) == 5
    assert rp.decisions[-1].views[0] == session(events[:-1]).position()   # the hint's
    rep = review([("g", rec)], budget=Budget(nodes=200), progress=False)[0]
    assert [d["player"] for d in rep["decisions"]] == ["me", "me", "me"]

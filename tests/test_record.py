"""Game records (docs/record.md): the text and JSON forms round-trip, a record that cannot
happen is refused with one line naming its line and event, and mutated records are refused
or reviewed, never a traceback."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from palace_solver.agents.play import play_game
from palace_solver.cli.main import cli
from palace_solver.game.record import (
    Record,
    RecordError,
    cards_text,
    parse_cards_text,
    parse_record,
)
from palace_solver.game.rules import Rules
from palace_solver.review.judge import Budget
from palace_solver.review.replay import replay
from palace_solver.review.run import review
from palace_solver.review.writers import record_from_game, seat_names

DATA = Path(__file__).parent / "data" / "records"

VARIANTS = [([], 2), (["choose_face_up"], 3), (["start_card"], 2), (["jokers"], 6),
            (["four_cards"], 3), (["two_decks"], 6), (["seven_low", "eight_reverses",
                                                        "invisible_8"], 4),
            (["back_to_last_player"], 3), (["lenient_blind"], 2), (["first_out_wins"], 3),
            (["must_play", "easy_table_pickup"], 2)]


def game(variants=(), n=2, seed=0, bots=("greedy", "random", "lowest")):
    rules = Rules.with_variants(list(variants))
    return play_game(rules, n, [bots[i % len(bots)] for i in range(n)], seed=seed)


@pytest.mark.parametrize("variants,n", VARIANTS)
def test_program_records_round_trip_and_replay(variants, n):
    for seed in range(3):
        g = game(variants, n, seed)
        rec = record_from_game(g)
        text = rec.text()
        back = parse_record(text)
        assert back == rec
        assert back.text() == text                       # canonical: byte for byte
        assert Record.from_json(json.loads(json.dumps(rec.to_json()))) == rec
        assert parse_record(json.dumps(rec.to_json())) == rec
        rp = replay(back)
        assert rp.visible == list(range(n))              # a program's record knows all
        moves = sum(e["type"] == "move" for e in g.events)
        assert len(rp.decisions) == moves
        assert rp.over == (not g.draw)
        if rp.over:
            assert rp.loss == [float(x) for x in g.loss]


def test_cards_text():
    assert cards_text([7, None, None, 13]) == "7 ?2 K"
    assert cards_text([]) == "-"
    assert parse_cards_text("7 ?2 k t") == [7, None, None, 13, 10]
    with pytest.raises(ValueError, match="unknown card 'Z'"):
        parse_cards_text("7 Z")


def test_hand_written_record_reads_like_the_canonical_one():
    text = (DATA / "greedy-view.txt").read_text()
    rec = parse_record(text)
    assert rec.viewer == 0 and rec.seats == ["greedy", "random"]
    assert rec.deal[1].hand == [None] * 3          # no cards line: every card unknown
    again = parse_record(rec.text())
    assert again == rec and again.text() == rec.text()
    assert Record.from_json(rec.to_json()) == rec
    rp = replay(rec)
    assert rp.visible == [0] and rp.over and rp.loss == [0.0, 1.0]


def test_seat_names_are_words_of_the_record():
    assert seat_names(["engine", "engine", "hint", "engine:nodes=1000", "K"]) == \
        ["engine", "engine2", "hint-bot", "engine-nodes-1000", "K-bot"]


def _mutate(text: str, rng: random.Random, kind: str) -> str:
    lines = text.splitlines()
    body = [i for i, ln in enumerate(lines) if ln and ":" not in ln and i > 0]
    header = [i for i, ln in enumerate(lines) if ":" in ln]
    if kind == "drop":
        del lines[rng.choice(body)]
    elif kind == "duplicate":
        i = rng.choice(body)
        lines.insert(i, lines[i])
    else:
        i = rng.choice(body + header)
        words = lines[i].split()
        cards = [j for j, w in enumerate(words) if w in ("2", "3", "4", "5", "6", "7", "8",
                                                        "9", "10", "J", "Q", "K", "A")]
        if not cards:
            return _mutate(text, rng, "drop")
        j = rng.choice(cards)
        words[j] = rng.choice([c for c in ("3", "7", "10", "Q", "A", "2") if c != words[j]])
        lines[i] = " ".join(words) if ":" not in lines[i] else \
            lines[i].split(":")[0] + ": " + " ".join(words[len(lines[i].split(":")[0].split()):])
    return "\n".join(lines) + "\n"


def test_mutated_records_are_refused_or_reviewed():
    rng = random.Random(5)
    base = record_from_game(game((), 2, 3)).text()
    live = (DATA / "greedy-view.txt").read_text()
    outcomes = {"refused": 0, "reviewed": 0}
    for k in range(30):
        text = _mutate(live if k % 3 == 2 else base, rng, ("card", "drop", "duplicate")[k % 3])
        try:
            rec = parse_record(text)
            reports = review([("mutant", rec)], budget=Budget(nodes=60), progress=False)
        except RecordError as e:
            msg = str(e)
            assert "\n" not in msg and msg.startswith("line "), msg
            outcomes["refused"] += 1
            continue
        except ValueError as e:       # ReviewError: a record replayed, then refused
            msg = str(e)
            assert "\n" not in msg and "line " in msg, msg
            outcomes["refused"] += 1
            continue
        assert reports[0]["players"]
        outcomes["reviewed"] += 1
    assert outcomes["refused"] >= 10 and outcomes["reviewed"] >= 1, outcomes


def test_a_bad_line_is_refused_with_one_line_naming_it(tmp_path):
    rec = record_from_game(game((), 2, 3))
    lines = rec.text().splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith("random ") and "draw" not in ln
             and "up" not in ln)
    lines[i] = "random 7x4"
    f = tmp_path / "bad.txt"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError) as e:
        replay(parse_record(f.read_text()))
    assert str(e.value).startswith(f"line {i + 1} 'random 7x4': ")
    r = CliRunner().invoke(cli, ["review", str(f)])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and f"line {i + 1} 'random 7x4'" in r.stderr


@pytest.mark.parametrize("text,where", [
    ("palace record 1\nseats: al bo\nal: 3 3 5 / 6 7 8 / ?3\nbo: ?3 / 3 3 3 / ?3\n\nal up 3 4 5\n",
     "line 4"),                                                   # five 3s
    ("palace record 1\nseats: al bo\nfirst: zed\n", "line 3 'first: zed'"),
    ("palace record 1\nseats: al bo\nal: 3 4 / 6 7 8 / ?3\n", "line 3"),
    ("palace record 1\nseats: al bo\nal: 3 4 5 / 6 7 8 / ?3\n\nbo up 3 3 3\nbo up 9 9 9\n",
     "line 6 'bo up 9 9 9'"),
    ("palace record 1\nseats: al bo\nal: 3 4 5 / 6 7 8 / ?3\n\nal up 3 4 A\n", "line 5"),
    ("not a record\n", "line 1"),
])
def test_header_and_event_refusals_name_the_line(text, where):
    with pytest.raises(RecordError) as e:
        replay(parse_record(text))
    assert str(e.value).startswith(where), str(e.value)
    assert "\n" not in str(e.value)

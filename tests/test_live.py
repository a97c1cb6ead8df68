"""`palace live`: scripted sessions over complete simulated games, checked against the truth.

Each game is played with the reference engine and bots (seeded); its events are written in
the live event language as the user at one seat would enter them (the user's own draws, not
the others'). After every event the session's record is compared with the true state: the
opponents' known cards are what the user can know (tracked here independently) and a
sub-multiset of their true hands, the unseen cards are exactly the true hidden cards, and the
counts of the position seen from the user's seat match; the web board's line, fed the same
game, is held to the same truth and gives the same positions. The simulation and the checks
are tests/livesim.py's.
"""
from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from livesim import BoardFollower, Knowledge, check_against_truth, signature, simulate
from palace_solver.cli.main import cli

from palace_solver.analysis import is_exact_mode
from palace_solver.game.cards import RANKS, rank_name
from palace_solver.game.position import from_text
from palace_solver.game.rules import VARIANTS, Rules
from palace_solver.game.state import State
from palace_solver.live.session import LiveError, Session, Setup
from palace_solver.sample.calibration import RANDOM_LAYOUTS_NOTE


# -- events that cannot happen -----------------------------------------------------------------

def impossible_events(s: Session, truth_before: State, rng: random.Random):
    """Events that cannot happen at this point, as the user might mistype them."""
    st = s.state
    out = []
    if st.is_terminal():
        return ["bob 7", "me pickup"]
    if st.is_chance():
        return [f"{s.names[(s.me + 1) % s.n]} pickup", "burn" if s._last_burn_at !=
                len(s.events) else "start 5"]
    p = st.to_move
    name = s.names[p]
    wrong = [q for q in range(s.n) if q != p and not st.out[q] and not s.first_open]
    if wrong:
        out.append(f"{s.names[rng.choice(wrong)]} {rank_name(rng.choice(RANKS[:-1]))}")
    out.append("draw 7")  # nothing to draw
    src = st.source(p)
    if st.pile and not st.rules.low_rank(st.effective_top() or 2):
        low = [r for r in (3, 4, 5, 6) if not st.playable(r)]
        if low and (src != "hand" or p != s.me or st.hands[p][low[0]]):
            out.append(f"{name} {rank_name(low[0])}")
    if src == "hand":
        out.append(f"{name} flip 9")
        if p != s.me:
            gone = [r for r in RANKS[:-1] if not st.pool[r] and not st.hands[p][r]
                    and st.playable(r)]
            if gone:
                out.append(f"{name} {rank_name(gone[0])}")
            out.append(f"{name} 9x{sum(st.hands[p]) + 1}")
        else:
            absent = [r for r in RANKS[:-1] if not st.hands[p][r] and st.playable(r)]
            if absent:
                out.append(f"me {rank_name(absent[0])}")
    if src == "face_down":
        seen_all = [r for r in RANKS[:-1] if not st.pool[r]]
        if seen_all:
            out.append(f"{name} flip {rank_name(seen_all[0])}")
        out.append(f"{name} 7")
    if not st.pile:
        out.append(f"{name} pickup")
    out += ["frobnicate", f"{name} 7x0", "burn" if s._last_burn_at != len(s.events) else
            "start 9"]
    return out


def replay_checked(rules, n, seed, me, *, rng=None, refuse=False, undo=False,
                   resume_at=None, tmp_path=None, hints=None, board=True):
    """Feed a simulated game to a session, checking everything after every event, and
    (``board``) the same game to the web board's line. Returns (session, events, hints
    answered)."""
    rng = rng or random.Random(seed)
    setup, evs = simulate(rules, n, seed, me)
    s = Session(setup)
    know = Knowledge(n, me)
    follower = BoardFollower() if board else None
    answered = []
    if not s.first_open and not s.state.is_chance():
        assert s.state.to_move == evs[0][1].to_move  # rule 3 decided it from what is seen
    for i, (text, before, after, info) in enumerate(evs):
        if refuse and rng.random() < 0.3:
            for bad in impossible_events(s, before, rng):
                sig = signature(s)
                with pytest.raises(LiveError):
                    s.apply(bad)
                assert signature(s) == sig, bad
        sig0 = signature(s)
        r = s.apply(text)
        assert r.ok and r.event is not None and r.message
        know.update(before, after, info)
        check_against_truth(s, after, know)
        if follower is not None:
            follower.follow(s, text, info, after, know)
        if undo and rng.random() < 0.25:
            sig1 = signature(s)
            s.undo()
            assert signature(s) == sig0
            s.apply(text)
            assert signature(s) == sig1
        if resume_at is not None and i == resume_at:
            path = tmp_path / f"session-{seed}.json"
            s.save(str(path))
            s2 = Session.load(str(path))
            assert signature(s2) == signature(s)
            s = s2
        if hints is not None and s.at_decision() and s.state.to_move == s.me \
                and len(answered) < hints:
            pos = s.position()
            cards = sum(p.cards_left() for p in pos.players)
            if is_exact_mode(pos) and cards <= 8:
                h = s.hint(time_budget=1.0, hard_limit=8.0)
                answered.append((pos, h))
    return s, evs, answered


# -- knowledge over complete games -------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_knowledge_matches_the_truth_after_every_event(n):
    for seed in range(10):
        s, evs, _ = replay_checked(Rules(), n, seed, seed % n)
        assert len(s.events) == len(evs)


@pytest.mark.parametrize("variant", VARIANTS)
def test_knowledge_under_each_variant(variant):
    rules = Rules.with_variants([variant])
    ns = (6,) if variant == "jokers" else (2, 3)
    for seed in range(3):
        for n in ns:
            replay_checked(rules, n, seed, (seed + 1) % n)


def test_six_players_two_decks_with_players_out():
    for seed in range(2):
        s, _, _ = replay_checked(Rules(), 6, seed, 2)
        if any(s.state.out) and s.at_decision():
            assert s.position().rules.two_decks


def test_impossible_events_are_refused_with_the_state_unchanged():
    rng = random.Random(5)
    for seed in range(6):
        replay_checked(Rules(), 2 + seed % 3, seed, 0, rng=rng, refuse=True)
    replay_checked(Rules.with_variants(["seven_low", "must_play"]), 3, 1, 1, rng=rng,
                   refuse=True)


def test_refusal_messages_name_the_problem():
    s = Session(Setup(["me", "bob"], 0, Rules(), [4, 4, 13], [[2, 11, 12], [4, 4, 14]],
                      first=1))
    cases = {
        "me 4": "it is bob's turn, not yours",
        "bob 4": "bob cannot hold a 4: every 4 is seen elsewhere",
        "bob 3x4": "bob cannot play four 3s: bob's hand has 3 cards (no known 3, 3 unknown)",
        "bob pickup": "the pile is empty",
        "bob flip 3": "bob cannot flip",
        "draw 5": "nothing to draw",
        "carol 5": "unknown player or command 'carol'",
        "bob pickup 5": "the pile is empty",
        "bob flip": "say which card the flip turned up",
        "burn": "no burn",
    }
    for line, words in cases.items():
        with pytest.raises(LiveError) as e:
            s.apply(line)
        assert words in str(e.value)
    s.apply("bob 5")
    with pytest.raises(LiveError, match=r"3 cannot be played on the pile \(top 5"):
        s.apply("me 3")
    assert s.events == ["bob 5"]


def test_a_failed_flip_takes_the_pile_and_the_cards_become_known():
    pos = from_text("standard | me: 9 / - / 1 ; bob: - / - / 2 | pile 5 8 | "
                    "burned " + " ".join(["10"] * 4 + ["A"] * 4 + ["K"] * 4 + ["Q"] * 4
                                         + ["J"] * 4 + ["2"] * 4 + ["3"] * 4 + ["6"] * 4
                                         + ["7"] * 4 + ["5"] * 3 + ["8"] * 3 + ["9"] * 3
                                         + ["4"]) + " | to_move bob | perspective 0")
    s = Session(Setup.from_position(pos))
    assert s.names == ["me", "bob"] and s.me == 0
    with pytest.raises(LiveError, match="the flip cannot be a 3"):
        s.apply("bob flip 3")
    r = s.apply("bob flip 4")
    assert "cannot play it" in r.message and "take" in r.message
    assert s.known_hand(1) == [4, 5, 8] and s.hand_count(1) == 3
    assert s.state.to_move == 0 and s.state.pile == []


# -- undo, save, resume ------------------------------------------------------------------------

def test_undo_restores_the_previous_state_exactly():
    rng = random.Random(11)
    for seed in range(4):
        replay_checked(Rules(), 2 + seed % 2, seed, 1, rng=rng, undo=True)


def test_multi_level_undo_and_redo():
    setup, evs = simulate(Rules(), 3, 7, 0)
    s = Session(setup)
    sigs = [signature(s)]
    for text, *_ in evs[:12]:
        s.apply(text)
        sigs.append(signature(s))
    s.undo(5)
    assert signature(s) == sigs[7]
    s.undo()
    assert signature(s) == sigs[6]
    for text, *_ in evs[6:12]:
        s.apply(text)
    assert signature(s) == sigs[12]
    with pytest.raises(LiveError, match="only 12 events to undo"):
        s.undo(13)
    s.undo(12)
    assert signature(s) == sigs[0]
    with pytest.raises(LiveError, match="nothing to undo"):
        s.undo()


def test_save_and_resume_mid_game_reach_the_same_final_state(tmp_path):
    for seed, n in ((1, 2), (2, 3), (3, 4)):
        setup, evs = simulate(Rules(), n, seed, seed % n)
        full = Session(setup)
        for text, *_ in evs:
            full.apply(text)
        resumed, _, _ = replay_checked(Rules(), n, seed, seed % n,
                                       resume_at=len(evs) // 2, tmp_path=tmp_path)
        assert signature(resumed) == signature(full)
        assert resumed.path is not None


def test_autosave_is_atomic_and_follows_every_event_and_undo(tmp_path):
    setup, evs = simulate(Rules(), 2, 4, 0)
    path = tmp_path / "game.json"
    s = Session(setup, path=str(path))
    for text, *_ in evs[:6]:
        s.apply(text)
        saved = json.loads(path.read_text())
        assert saved["events"] == s.events and saved["format"] == "palace-live-1"
    s.undo(2)
    assert json.loads(path.read_text())["events"] == s.events
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # no temp left over
    again = Session.load(str(path))
    assert signature(again) == signature(s)


def test_a_bad_session_file_is_refused(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(LiveError, match="cannot read session"):
        Session.load(str(p))
    p.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(LiveError, match="not a palace live session"):
        Session.load(str(p))


# -- setup -------------------------------------------------------------------------------------

def test_setup_checks():
    up = [[2, 11, 12], [4, 4, 14]]
    with pytest.raises(LiveError, match="your hand has 2 cards"):
        Setup(["me", "bob"], 0, Rules(), [9, 9], up).validate()
    with pytest.raises(LiveError, match="5 cards of rank 4"):
        Setup(["me", "bob"], 0, Rules(), [4, 4, 4], up).validate()
    with pytest.raises(LiveError, match="command word"):
        Setup(["me", "draw"], 0, Rules(), [9, 9, 9], up).validate()
    with pytest.raises(LiveError, match="two players named"):
        Setup(["me", "Bob", "bob"], 0, Rules(), [9, 9, 9], up + [[5, 6, 7]]).validate()


def test_rule_three_decides_the_first_player_from_what_is_seen():
    # Under choose_face_up the cards laid face up stand for the dealt ones: a face-up 3
    # decides at once, in dealing order from the dealer's left.
    cfu = Rules(choose_face_up=True)
    up = [[2, 11, 12], [3, 4, 14], [3, 5, 6]]
    s = Session(Setup(["me", "bob", "carol"], 0, cfu, [9, 9, 13], up))
    assert not s.first_open and s.state.to_move == 1
    s = Session(Setup(["me", "bob", "carol"], 0, cfu, [9, 9, 13], up, dealer=0))
    assert s.state.to_move == 1
    s = Session(Setup(["me", "bob", "carol"], 0, cfu, [9, 9, 13], up, dealer=1))
    assert s.state.to_move == 2
    # Under the standard rules the face-up cards seen are those after the swap: they do not
    # say who was dealt the first face-up 3, so the first play tells.
    s = Session(Setup(["me", "bob", "carol"], 0, Rules(), [9, 9, 13], up))
    assert s.first_open
    s.apply("carol 3")
    assert not s.first_open and s.state.to_move == 0 and s.events == ["carol 3"]
    # A 3 only in the user's hand: another hand might hold one too, so the play tells.
    for rules in (Rules(), cfu):
        s = Session(Setup(["bob", "me"], 1, rules, [3, 9, 13], [[2, 11, 12], [4, 4, 14]]))
        assert s.first_open
        with pytest.raises(LiveError, match="not known yet"):
            s.position()
        s.apply("me 3")
        assert s.state.pending == ("draw", 1, 1) and not s.first_open and s.events == ["me 3"]
    # Every 3 seen and the user holds a 4 first in order: decided (choose_face_up).
    s = Session(Setup(["me", "bob"], 0, cfu, [3, 3, 4],
                      [[3, 11, 12], [3, 5, 14]], dealer=1))
    assert s.state.to_move == 0
    # Every 3 is the user's, one of them in hand: the user starts, swap or not.
    s = Session(Setup(["bob", "me"], 1, Rules(), [3, 3, 9], [[2, 11, 12], [3, 3, 14]]))
    assert not s.first_open and s.state.to_move == 1
    # Every 3 is the user's, all face up now: dealt so (the user starts) or swapped in (then
    # the 4s decide)? The play tells.
    four = Rules(four_cards=True)
    s = Session(Setup(["bob", "me"], 1, four, [9, 9, 13, 13], [[2, 11, 12, 12], [3, 3, 3, 3]]))
    assert s.first_open


# -- suggestions -------------------------------------------------------------------------------

def test_suggestions_on_the_users_turns_in_exact_mode():
    answered = []
    for seed in range(20, 40):
        if len(answered) >= 3:
            break
        _, _, got = replay_checked(Rules(), 2, seed, seed % 2, hints=1)
        answered += got
    assert answered, "no exact-mode position on the user's turn"
    # Past half the budget the compiled solver hands over to the depth-limited search, whose
    # answer says so ("depth_limited"); every answer must be a full suggestion.
    for pos, h in answered:
        assert h["ok"], h["message"]
        assert h["method"] in ("exact", "depth_limited") and h["mover"] == "me"
        legal = sorted(str(m) for m in pos.to_state().legal_moves())
        assert sorted(m["move"] for m in h["moves"]) == legal
        for m in h["moves"]:
            assert 0 <= m["your_loss"] <= 1 and m["your_loss"] == m["mover_loss"]
            assert abs(sum(m["loss"].values()) - 1) < 1e-9


def test_hint_outside_a_decision_is_refused():
    s = Session(Setup(["me", "bob"], 0, Rules(), [9, 9, 13], [[2, 11, 12], [4, 4, 14]],
                      first=0))
    s.apply("me 9")
    with pytest.raises(LiveError, match="waiting for the 1 card you drew"):
        s.hint(0.1)


# -- the command in scripted mode --------------------------------------------------------------

BURNED = "2 2 2 3 3 3 4 4 5 5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q K K A A A A"
ENDGAME = (f"standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned {BURNED} "
           f"| to_move 0 | perspective 0")


def test_endgame_position_is_valid():
    assert from_text(ENDGAME).draw_pile == 0


def test_script_json_one_answer_per_line_with_suggestions():
    script = "hint\nme 7x2\nbob 4\nme 3\nbob K\nundo\nshow\nbob K\n"
    r = CliRunner().invoke(cli, ["live", "--position", ENDGAME, "--script", "-", "--json",
                                 "--time", "0.5"], input=script)
    assert r.exit_code == 0, r.output
    answers = [json.loads(line) for line in r.output.splitlines()]
    assert [a["input"] for a in answers] == script.strip().splitlines()
    hint, play, bad_card, bad_turn, bob_k, undo, show, bob_k2 = answers
    assert hint["ok"] and hint["suggestions"]["method"] == "exact"
    assert {m["move"] for m in hint["suggestions"]["moves"]} == {"7", "7x2", "pickup"}
    assert play["ok"] and play["event"] == "me 7x2" and play["suggestions"] is None
    assert play["state"]["to_move"] == "bob" and play["state"]["pile"] == ["5", "7", "7"]
    assert not bad_card["ok"] and "cannot be played on the pile" in bad_card["message"]
    assert bad_card["state"] == play["state"]
    assert not bad_turn["ok"] and "bob's turn" in bad_turn["message"]
    assert bob_k["ok"] and bob_k["suggestions"]["ok"]  # the user's turn: suggestions
    assert bob_k["state"]["players"][1]["hand_known"] == ["K"]
    assert undo["ok"] and undo["state"] == play["state"]
    assert "[7]" in show["message"] and "pile" in show["message"]
    assert bob_k2["state"] == bob_k["state"]


def test_three_player_hints_say_they_are_not_calibrated(tmp_path):
    args = ["live", "--names", "me,bob,ann", "--hand", "9 9 K", "--up",
            "me: 2 J Q; bob: 4 4 A; ann: 5 6 7", "--first", "bob", "--no-hints", "--file",
            str(tmp_path / "s.json"), "--script", "-", "--json"]
    r = CliRunner().invoke(cli, args, input="bob 5\nann 6\nhint 0.2\n")
    assert r.exit_code == 0, r.output
    hint = [json.loads(x) for x in r.output.splitlines()][-1]["suggestions"]
    assert hint["method"] == "search"
    assert any(n.startswith("not calibrated: with three or more players") for n in hint["notes"])
    three_notes = hint["notes"]
    two = ["live", "--names", "me,bob", "--hand", "9 9 K", "--up", "me: 2 J Q; bob: 4 4 A",
           "--first", "bob", "--no-hints", "--file", str(tmp_path / "t.json"), "--script", "-",
           "--json"]
    r = CliRunner().invoke(cli, two, input="bob 5\nhint 0.2\n")
    hint = [json.loads(x) for x in r.output.splitlines()][-1]["suggestions"]
    assert hint["method"] == "search" and not any("not calibrated" in n for n in hint["notes"])
    # while the draw pile holds cards, what two players' mapped figures were worth on
    # layouts at random, as palace analyze says it
    cal = hint["analysis"]["stats"]["calibration"]
    assert cal["band"] != "end"
    assert [n for n in hint["notes"] if RANDOM_LAYOUTS_NOTE in n] == [
        f"calibrated to the outcomes of the engine's own games (map {cal['map']}); "
        f"{RANDOM_LAYOUTS_NOTE}"]
    assert not any(RANDOM_LAYOUTS_NOTE in n for n in three_notes)


def test_script_text_mode_and_session_file(tmp_path):
    path = tmp_path / "s.json"
    args = ["live", "--names", "me,bob", "--hand", "9 9 K", "--up", "me: 2 J Q",
            "--up", "bob=4,4,A", "--first", "bob", "--no-hints", "--file", str(path)]
    r = CliRunner().invoke(cli, args + ["--script", "-"], input="bob 3\nme 9\nme 9\ndraw 5\n")
    assert r.exit_code == 0, r.output
    assert "bob plays 3; bob draws 1" in r.output
    assert "refused: first enter the 1 card you drew" in r.output
    assert "palace live: 1 event of the script refused" in r.stderr
    assert json.loads(path.read_text())["events"] == ["bob 3", "me 9", "draw 5"]
    r = CliRunner().invoke(cli, ["live", "--resume", str(path), "--no-hints", "--script", "-"],
                           input="log\nbob 3\n")
    assert r.exit_code == 0, r.output
    assert "1. bob 3" in r.output and "3. draw 5" in r.output
    assert "refused: 3 cannot be played" in r.output


def test_bad_setup_exits_with_status_2():
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob", "--hand", "9 9", "--up",
                                 "me: 2 J Q; bob: 4 4 A", "--script", "-"], input="")
    assert r.exit_code == 2 and "your hand has 2 cards" in r.output
    r = CliRunner().invoke(cli, ["live", "--names", "me,bob", "--hand", "9 9 K",
                                 "--up", "me: 2 J Q", "--script", "-"], input="")
    assert r.exit_code == 2 and "--up is needed for bob" in r.output


def test_sampled_suggestions_for_hidden_cards_when_available():
    pytest.importorskip("palace_solver.sample.sampled")
    s = Session(Setup(["me", "bob"], 0, Rules(), [9, 9, 13], [[2, 11, 12], [4, 4, 14]],
                      first=1))
    s.apply("bob 5")
    h = s.hint(time_budget=0.3, hard_limit=10.0)
    assert h["ok"], h["message"]
    assert h["method"] != "exact" and h["mover"] == "me"
    assert {m["move"] for m in h["moves"]} == {"9", "9x2", "K", "pickup"}

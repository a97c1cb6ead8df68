"""Positions: JSON and text parsing, validation, round trips, and the bridge to State."""
from __future__ import annotations

import doctest
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from position_fixtures import DATA, EXAMPLES, GOOD, GOOD_TEXT  # noqa: E402

import palace_solver.game.position as position_mod
from palace_solver.game.cards import NRANK
from palace_solver.game.moves import PICKUP
from palace_solver.game.position import (
    InvalidPositionError,
    PlayerPosition,
    Position,
    from_text,
    load_position,
    parse_position,
    to_text,
)
from palace_solver.game.rules import VARIANTS, Rules, RulesError
from palace_solver.game.state import PLAY_PHASE, State


def test_doctests():
    assert doctest.testmod(position_mod).failed == 0


# -- JSON -------------------------------------------------------------------------------------

def test_grammar_example_in_the_docstring_is_valid():
    lines = [x.strip() for x in position_mod.__doc__.splitlines()
             if x.strip().startswith("standard | me:")]
    assert lines and all(to_text(from_text(x)) == x for x in lines)


def test_json_example_reads_and_round_trips():
    p = Position.from_json(GOOD)
    assert p.players[1].hand_known == [13, 13]
    assert p.players[1].hand_count == 5 and p.players[1].hand_unknown == 3
    assert p.pile == [5, 6, 6] and p.burned == [10, 4, 4, 4, 4]
    assert p.to_json() == GOOD
    assert to_text(p) == GOOD_TEXT
    assert from_text(GOOD_TEXT) == p


def test_spec_example_counts_do_not_add_up():
    # POSITION.md's own example has draw_pile 0 although 36 cards are unseen.
    bad = dict(GOOD, draw_pile=0)
    with pytest.raises(InvalidPositionError,
                       match=r"^invalid position: 36 unseen cards but 6 face-down "
                             r"\+ 3 unknown hand \+ 0 draw pile: 27 cards of the deck are "
                             r"nowhere: list them as burned .*draw pile"):
        Position.from_json(bad)


def test_card_spellings_are_normalized():
    obj = json.loads(json.dumps(GOOD))
    obj["players"][0]["hand"] = ["3c", "7h", "7S"]
    obj["players"][0]["face_up"] = ["a", "T"]
    obj["pile"] = ["5d", "6", 6]
    p = Position.from_json(obj)
    assert p.to_json() == GOOD


def test_optional_keys_are_omitted_at_default_and_kept_otherwise():
    obj = dict(GOOD, burned=[], draw_pile=32, perspective=None, direction=1,
               last_player=None)
    out = Position.from_json(obj).to_json()
    assert "burned" not in out and "perspective" not in out
    assert "direction" not in out and "last_player" not in out
    obj = dict(GOOD, perspective=1, direction=-1, last_player=1)
    p = Position.from_json(obj)
    assert (p.perspective, p.direction, p.last_player) == (1, -1, 1)
    assert p.viewer() == 1
    assert p.to_json() == obj
    assert from_text(to_text(p)) == p
    assert to_text(p).endswith("| perspective 1 | direction -1 | last_player 1")


def test_rules_with_variants():
    obj = dict(GOOD, rules={"base": "standard", "variants": ["seven_low", "invisible_8"]})
    p = Position.from_json(obj)
    assert p.rules == Rules(seven_low=True, invisible_8=True)
    assert p.to_json()["rules"] == {"base": "standard", "variants": ["seven_low", "invisible_8"]}
    assert to_text(p).startswith("standard+seven_low+invisible_8 | ")
    assert from_text(to_text(p)) == p


def test_shared_examples_read_and_round_trip():
    n = 0
    for line in EXAMPLES.read_text().splitlines():
        obj = json.loads(line)["position"]
        p = Position.from_json(obj)
        assert Position.from_json(p.to_json()) == p
        assert from_text(to_text(p)) == p
        s = p.to_state()
        s.check_cards()
        assert Position.from_state(s) == Position.from_json(
            json.loads(json.dumps(Position.from_state(s).to_json())))
        n += 1
    assert n > 0


@pytest.mark.parametrize("case", [json.loads(x) for x in DATA.read_text().splitlines()],
                         ids=lambda c: c["name"])
def test_malformed_positions(case):
    with pytest.raises(InvalidPositionError) as e:
        parse_position(case["input"])
    msg = str(e.value)
    assert msg.startswith("invalid position: ")
    assert case["expect"] in msg
    assert "\n" not in msg


def test_malformed_file_covers_the_required_cases():
    names = {json.loads(x)["name"] for x in DATA.read_text().splitlines()}
    for required in ("bad_json", "five_of_a_rank", "counts_do_not_add_up", "unknown_rank",
                     "unknown_variant", "ten_in_pile", "four_of_a_kind_on_top",
                     "to_move_out_of_range", "player_with_no_cards", "jokers_without_variant",
                     "negative_face_down"):
        assert required in names


def test_two_decks_allow_eight_of_a_rank():
    players = [{"hand": ["7"] * 8 if i == 0 else ["3"], "face_up": [], "face_down": 1}
               for i in range(6)]
    obj = {"rules": "standard", "players": players, "pile": [], "draw_pile": 104 - 13 - 6,
           "to_move": 0}
    assert Position.from_json(obj).rules.decks(6) == 2
    players[1]["hand"] = ["7"]
    with pytest.raises(InvalidPositionError, match=r"9 cards of rank 7 \(2 decks have 8\)"):
        Position.from_json(obj)


def test_jokers_with_six_players():
    # All 54 cards dealt, 3 + 3 + 3 to each of 6 players (face-down cards at most 3).
    players = [{"hand": ["JK"] if i < 2 else ["3"], "face_up": [], "face_down": 3}
               for i in range(6)]
    burned = [c for c in ("4", "5", "6", "7", "8", "9", "10") for _ in range(4)] + ["J", "J"]
    obj = {"rules": {"base": "standard", "variants": ["jokers"]}, "players": players,
           "pile": [], "burned": burned, "draw_pile": 0, "to_move": 0}
    p = Position.from_json(obj)
    assert p.to_json() == obj
    assert "JK ? " not in to_text(p) and from_text(to_text(p)) == p
    p.to_state().check_cards()


def test_no_four_burn_allows_four_on_top():
    obj = dict(GOOD, pile=["5", "6", "6", "6", "6"], draw_pile=25,
               rules={"base": "standard", "variants": ["no_four_burn"]})
    assert Position.from_json(obj).pile[-4:] == [6, 6, 6, 6]


def test_draw_pile_with_an_empty_hand_is_invalid():
    # Rule 7 refills a hand after every play while the draw pile lasts, so a hand is empty
    # (rule 4) only once the draw pile is gone.
    obj = json.loads(json.dumps(GOOD))
    obj["players"][0]["hand"] = []
    obj["draw_pile"] = 30
    with pytest.raises(InvalidPositionError,
                       match="player 0 .*has an empty hand while the draw pile holds 30 cards"):
        Position.from_json(obj)
    obj["players"][0]["hand"] = {"known": [], "count": 0}
    with pytest.raises(InvalidPositionError, match="empty hand"):
        Position.from_json(obj)
    with pytest.raises(InvalidPositionError, match="player 1 has an empty hand while the "
                                                   "draw pile holds 1 card$"):
        from_text("3 ?2 / 4 / 3 ; - / 9 / 3 | draw 1 | burned " + " ".join(["5"] * 4 + ["6"] * 4
                  + ["7"] * 4 + ["8"] * 4 + ["J"] * 4 + ["Q"] * 4 + ["K"] * 4 + ["A"] * 4
                  + ["2"] * 4 + ["10"] * 4) + " | to_move 0")


def test_burning_ranks_only_with_their_variant():
    obj = json.loads(json.dumps(GOOD))
    obj["pile"] = ["5", "6", "A"]
    obj["players"][0]["face_up"] = ["6", "10"]
    Position.from_json(obj)
    obj["rules"] = {"base": "standard", "variants": ["aces_burn"]}
    with pytest.raises(InvalidPositionError, match="pile holds an A"):
        Position.from_json(obj)
    obj["pile"] = ["5", "6", "K"]
    obj["players"][1]["hand"] = {"known": ["K", "A"], "count": 5}
    Position.from_json(obj)
    obj["rules"] = "kings_burn"
    with pytest.raises(InvalidPositionError, match=r"pile holds a K \(kings burn under kings"):
        Position.from_json(obj)


# -- text form --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    GOOD_TEXT,
    "STANDARD|me:3 7 7/a t/3;bob:k kd ?3/2/3|PILE 5 6 6|BURNT T 4 4 4 4|DRAW 27|TURN 0",
    "  me : 3, 7, 7 / A, 10 / 3 ;  bob: K ? K ? ? / 2 / 3 | burned 10 4 4 4 4 | "
    "pile 5 6 6 | draw_pile 27 | move me  ",
    "rules standard | me: 3 7 7 / A 10 / 3 | bob: K K ?3 / 2 / 3 | pile 5 6 6 | "
    "burned 10 4 4 4 4 | draw 27 | to_move Me",
])
def test_text_spellings(text):
    assert from_text(text).to_json() == GOOD


def test_text_names_optional_and_quoted():
    p = from_text('3 7 7 / A 10 / 3 ; "bob | the; builder": K K ?3 / 2 / 3 | pile 5 6 6 '
                  '| burned 10 4 4 4 4 | draw 27 | to_move "bob | the; builder"')
    assert p.players[0].name is None and p.players[1].name == "bob | the; builder"
    assert p.to_move == 1
    t = to_text(p)
    assert t.startswith('standard | 3 7 7 / A 10 / 3 ; "bob | the; builder": K K ?3 / 2 / 3')
    assert from_text(t) == p


def test_text_empty_zones():
    p = from_text("?2 / - / 1 ; 5 ?0 / 8 / 2 | pile - | draw 45 | to_move 1")
    assert to_text(p) == "standard | ?2 / - / 1 ; 5 / 8 / 2 | pile - | draw 45 | to_move 1"
    assert p.players[0].face_up == [] and p.players[1].hand_count == 1 and p.pile == []


@pytest.mark.parametrize("text,fragment", [
    ("standard | 3 / 4 / 3 ; 5 / 6 / 3 | to_move 0 | to_move 1", "to_move given twice"),
    ("standard | 3 / 4 / 3 ; 5 / 6 / 3 | to_move nobody | draw 44", "no single player named"),
    ("a: 3 / 4 / 3 ; a: 5 / 6 / 3 | to_move a | draw 44", "no single player named 'a'"),
    ("standard | 3 / 4 / 3 ; 5 / 6 / 3 | draw x | to_move 0", "draw needs one integer"),
    ("standard | 3 / 4 / 3 ; 5 / 6 / | draw 44 | to_move 0", "face_down needs one integer"),
    ("standard | 3 ?x / 4 / 3 ; 5 / 6 / 3 | draw 44 | to_move 0", "bad unknown-card count"),
    ("standard | draw 44 | to_move 0", "no players"),
    ("standard | 3 / 4 / 3 ; 5 / 6 / 3 | pile 4 ; 5 | to_move 0", "';' outside the players"),
    ("standard | 3 / 4 / 3 ; 5 / 6 / 3 | standard | draw 44 | to_move 0", "rules given twice"),
    ("3 / 4 / 3 ; 5 / 6 / 3 | draw 44 | to_move 0 | direction 0", "direction 0 is not 1"),
    ("3 / 4 / 3 ; 5 / 6 / 3 | draw 44 | to_move 0 | pile 5 : 6", "unexpected ':' in the pile"),
    ('3 / 4 / 3 ; 5 / 6 / 3 | draw 44 | to_move 0 | pile "x"', "unexpected '\"x\"' in"),
    ('"\\q": 3 / 4 / 3 ; 5 / 6 / 3 | draw 44 | to_move 0', "bad quoted name"),
    ("", "empty input"),
    (" | | ", "empty input"),
])
def test_text_errors(text, fragment):
    with pytest.raises(InvalidPositionError) as e:
        parse_position(text)
    assert fragment in str(e.value)


def test_to_move_perspective_last_player_by_name_or_none():
    p = from_text("a: 3 / 4 / 3 ; b: 5 / 6 / 3 | pile 7 | draw 41 | to_move b | pov a "
                  "| last b")
    assert (p.to_move, p.perspective, p.last_player) == (1, 0, 1)
    p = from_text("a: 3 / 4 / 3 ; b: 5 / 6 / 3 | draw 42 | to_move 1 | pov none | last none")
    assert p.perspective is None and p.last_player is None


# -- loading ----------------------------------------------------------------------------------

def test_load_position_from_file_string_and_stdin(tmp_path, monkeypatch):
    f = tmp_path / "pos.json"
    f.write_text(json.dumps(GOOD))
    assert load_position(str(f)).to_json() == GOOD
    t = tmp_path / "pos.txt"
    t.write_text(GOOD_TEXT + "\n")
    assert load_position(str(t)).to_json() == GOOD
    assert load_position(json.dumps(GOOD)).to_json() == GOOD
    assert load_position(GOOD_TEXT).to_json() == GOOD
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(GOOD_TEXT))
    assert load_position("-").to_json() == GOOD
    with pytest.raises(InvalidPositionError, match="no such file 'missing.json'"):
        load_position("missing.json")
    with pytest.raises(InvalidPositionError, match="cannot read"):
        load_position(str(tmp_path))
    b = tmp_path / "bin.json"
    b.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InvalidPositionError, match="cannot read"):
        load_position(str(b))


# -- State bridge -----------------------------------------------------------------------------

def test_to_state_needs_known_hands():
    p = Position.from_json(GOOD)
    with pytest.raises(InvalidPositionError,
                       match=r"player 1 \(bob\)'s hand is not fully known \(2 of 5"):
        p.to_state()


def test_from_state_rejects_non_decision_nodes():
    s = State.new_game(Rules(), 2)
    with pytest.raises(InvalidPositionError, match="not a play-phase decision"):
        Position.from_state(s)
    text = s.describe()          # must not raise, and says what it is
    assert "phase deal" in text and "chance deal" in text


def test_describe_uses_text_form():
    p = Position.from_json(GOOD)
    p.players[1].hand_known = [13, 13, 3, 5, 8]
    p.players[1].name = None
    p.players[0].name = None
    p.validate()
    s = p.to_state()
    assert s.describe() == to_text(Position.from_state(s))
    assert from_text(s.describe()).to_state().key() == s.key()


# -- random positions from random games --------------------------------------------------------

_PLAYABLE = tuple(v for v in VARIANTS if v != "jokers")


def _random_rules(rng: random.Random) -> tuple[Rules, int]:
    n = rng.randint(2, 7)
    vs = set(rng.sample(_PLAYABLE, rng.randint(0, 4)))
    if rng.random() < 0.08:
        vs.add("jokers")
        n = 6
        vs.discard("two_decks")
    rules = Rules.with_variants(sorted(vs, key=VARIANTS.index))
    try:
        rules.check_players(n)
    except RulesError:
        rules = rules.without("four_cards")
    rules.check_players(n)
    return rules, n


def random_decision_state(seed: int) -> State:
    """Play a random seeded game and stop at a random play-phase decision with nobody out."""
    rng = random.Random(seed)
    rules, n = _random_rules(rng)
    s = State.new_game(rules, n)
    target = rng.randrange(300)
    best, steps = None, 0
    while not s.is_terminal() and steps < 2000:
        if s.is_chance():
            outs = s.chance_outcomes()
            s.apply(rng.choices([r for r, _ in outs], [float(p) for _, p in outs])[0])
            continue
        if s.phase == PLAY_PHASE and not any(s.out):
            best = s.clone()
            if steps >= target:
                break
        moves = s.legal_moves()
        plays = [m for m in moves if m.kind != PICKUP]
        s.apply(rng.choice(plays if plays and rng.random() < 0.85 else moves))
        steps += 1
    assert best is not None
    return best


def _hide(pos: Position, rng: random.Random) -> Position:
    """The same position with some hand cards unknown (and random names)."""
    p = Position.from_json(pos.to_json())
    for pl in p.players:
        if rng.random() < 0.5:
            k = rng.randint(0, len(pl.hand_known))
            for _ in range(k):
                pl.hand_known.pop(rng.randrange(len(pl.hand_known)))
    return p.validate()


names_st = st.none() | st.text(max_size=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_positions_round_trip(seed, data):
    s = random_decision_state(seed)
    s.check_cards()
    persp = data.draw(st.none() | st.integers(0, s.n - 1), label="perspective")
    pos = Position.from_state(s, perspective=persp)

    # State -> Position -> State keeps everything that plays.
    s2 = pos.to_state()
    s2.check_cards()
    assert s2.key() == s.key()
    assert (s2.hands, s2.face_up, s2.face_down, s2.pile, s2.burned, s2.pool, s2.draw_pile,
            s2.to_move, s2.direction) == (s.hands, s.face_up, s.face_down, s.pile, s.burned,
                                           s.pool, s.draw_pile, s.to_move, s.direction)
    if s.rules.back_to_last_player:
        assert s2.last_player == s.last_player
    assert Position.from_state(s2, perspective=persp) == pos

    # Every card accounted for.
    deck = s.rules.deck_counts(s.n)
    known = pos.known_counts()
    unseen = pos.unseen_counts()
    assert all(known[r] + unseen[r] == deck[r] and unseen[r] >= 0 for r in range(NRANK))
    assert unseen == s.pool
    assert sum(unseen) == pos.draw_pile + sum(p.face_down for p in pos.players)

    # Hide some hand cards, name some players: JSON and text round trip exactly.
    rng = random.Random(seed ^ 0x5EED)
    for variant in (pos, _hide(pos, rng)):
        taken = set()   # two players of one name are refused: draw distinct names
        for pl in variant.players:
            nm = data.draw(names_st, label="name")
            pl.name = None if nm is None or nm.casefold() in taken else nm
            taken.add(None if nm is None else nm.casefold())
        obj = variant.to_json()
        again = Position.from_json(json.loads(json.dumps(obj)))
        assert again == variant and again.to_json() == obj
        assert parse_position(variant.dumps(indent=2)) == variant
        text = to_text(variant)
        assert len(text.splitlines()) == 1
        back = from_text(text)
        assert back == variant and to_text(back) == text
        if any(not pl.hand_fully_known for pl in variant.players):
            with pytest.raises(InvalidPositionError, match="not fully known"):
                variant.to_state()
        fd = sum(p.face_down for p in variant.players)
        uh = sum(p.hand_unknown for p in variant.players)
        assert sum(variant.unseen_counts()) == fd + uh + variant.draw_pile


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789TJQKAjkx?-/|;:,\" {}[]"
                                             "standardpiletomovedrw_")), max_size=80)
       | st.text(max_size=60))
def test_garbage_text_raises_only_invalid_position(text):
    try:
        p = parse_position(text)
    except InvalidPositionError as e:
        assert str(e).startswith("invalid position: ")
    else:
        assert from_text(to_text(p)) == p


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.sampled_from(
        ["standard", "7", "10", "JK", "Z", "seven_low", ""]),
    lambda c: st.lists(c, max_size=5) | st.dictionaries(
        st.sampled_from(["rules", "players", "pile", "burned", "draw_pile", "to_move", "hand",
                         "face_up", "face_down", "known", "count", "name", "base", "variants",
                         "perspective", "direction", "last_player", "x"]), c, max_size=6),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_garbage_json_raises_only_invalid_position(obj):
    try:
        Position.from_json(obj)
    except InvalidPositionError:
        pass


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 10**6), data=st.data())
def test_mutated_valid_input_raises_only_invalid_position(seed, cut, data):
    pos = random_decision_state(seed)
    text = data.draw(st.sampled_from([to_text(Position.from_state(pos)),
                                      Position.from_state(pos).dumps()]))
    i = cut % (len(text) + 1)
    j = data.draw(st.integers(i, min(len(text), i + 5)))
    ins = data.draw(st.text(alphabet="0123456789|/;:?- \"{}JKQA,x", max_size=3))
    try:
        parse_position(text[:i] + ins + text[j:])
    except InvalidPositionError:
        pass


def test_names_with_unprintable_characters_stay_on_one_line():
    p = Position.from_json(GOOD)
    p.players[0].name = "a\u2028b\nc"
    p.players[1].name = "\u00e9l\u00e8ve"
    text = to_text(p)
    assert len(text.splitlines()) == 1 and "\\u2028" in text and "\u00e9l\u00e8ve:" in text
    assert from_text(text) == p


def test_from_state_rejects_a_player_out_but_describe_works():
    rng = random.Random(7)
    for seed in range(200):
        rng.seed(seed)
        s = State.new_game(Rules(), 3)
        while not s.is_terminal() and not any(s.out):
            if s.is_chance():
                outs = s.chance_outcomes()
                s.apply(rng.choices([r for r, _ in outs], [float(p) for _, p in outs])[0])
            else:
                moves = s.legal_moves()
                plays = [m for m in moves if m.kind != PICKUP]
                s.apply(rng.choice(plays or moves))
        if any(s.out) and not s.is_terminal() and not s.is_chance():
            break
    else:
        pytest.skip("no game with a player out found")
    with pytest.raises(InvalidPositionError, match=r"player \d is out"):
        Position.from_state(s)
    assert "| out " in s.describe()


def test_player_position_helpers():
    pl = PlayerPosition("x", [3], 4, [5], 2)
    assert pl.hand_unknown == 3 and not pl.hand_fully_known and pl.cards_left() == 7

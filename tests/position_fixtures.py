"""Positions shared by the position, `palace show`, `palace analyze` and web tests."""
from pathlib import Path

#: The public two-player examples with their exact values (a copy of the project's shared
#: examples/exact_2p.jsonl, so that a plain clone tests them).
EXAMPLES = Path(__file__).parent / "data" / "exact_2p.jsonl"
DATA = Path(__file__).parent / "data" / "malformed_positions.jsonl"

# The example of POSITION.md with a draw pile that makes the counts add up.
GOOD = {"rules": "standard", "players": [
    {"name": "me", "hand": ["3", "7", "7"], "face_up": ["A", "10"], "face_down": 3},
    {"name": "bob", "hand": {"known": ["K", "K"], "count": 5}, "face_up": ["2"],
     "face_down": 3}],
    "pile": ["5", "6", "6"], "burned": ["10", "4", "4", "4", "4"], "draw_pile": 27,
    "to_move": 0}
GOOD_TEXT = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
             "| burned 10 4 4 4 4 | draw 27 | to_move 0")

#: A draw-phase position where the mover may pick up the pile, and the position that the
#: pickup leads to: given as the game's history, it makes the pickup a draw.
BEFORE_PICKUP = ("standard | 6 7 9 / 10 K K / 3 ; 4 5 ?1 / 6 J Q / 3 | pile 3 | draw 33 "
                 "| to_move 0 | perspective 0")
AFTER_PICKUP = ("standard | 3 6 7 9 / 10 K K / 3 ; 4 5 ?1 / 6 J Q / 3 | pile - | draw 33 "
                "| to_move 1 | perspective 0")

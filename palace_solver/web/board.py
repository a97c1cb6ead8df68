"""The analysis board's line: a position, then moves and chance outcomes, replayed on the
reference engine as the analyzing player sees the game.

Why a replay. The page keeps only the start position and the list of steps (a move at a
decision, a card at a chance event); the server replays them on
:class:`~palace_solver.game.state.State` at every request. The rules live in one place, the
page holds no game logic, and the line fits in a shareable URL.

Whose knowledge. A position is seen by its *viewer* (``perspective``, else the player to
move at the start); the board follows the game from that seat, the way ``palace live``
does, through the seat's view of :mod:`palace_solver.game.view` (unknown hand cards, the
others' refills, reveals): a player with unknown hand cards may play any rank those cards
could be, and the viewer's own draws and every flip are chance events: the page offers each
rank the card can be, with its probability (the unseen pool, all cards equally likely).

With every hand known and no draw pile (exact mode) nothing is hidden and the line is the
game itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..game.cards import RANKS, CardError, parse_rank, rank_name, ranks_of
from ..game.moves import PLAY, IllegalMoveError, InvalidMoveError, Move
from ..game.position import InvalidPositionError, Position, to_text
from ..game.state import State
from ..game.view import (
    UNKNOWN,
    NoPositionError,
    possible_moves,
    reveal,
    seat_position,
    seat_state,
    settle_refills,
)

__all__ = ["UNKNOWN", "BoardError", "Line", "replay"]

#: Longest line the board replays (a guard against giant URLs, not a rule of the game).
MAX_STEPS = 2000


class BoardError(ValueError):
    """A step that is not a move or a card, or one the rules do not allow; the message
    names the step and why."""


@dataclass
class Line:
    """A start position and the steps played from it. :func:`replay` builds one."""

    start: Position
    names: list[str]
    viewer: int
    state: State
    steps: list[dict] = field(default_factory=list)

    # -- the current node ---------------------------------------------------------------
    def label(self, p: int) -> str:
        return self.names[p]

    def kind(self) -> str:
        s = self.state
        if s.is_terminal():
            return "over"
        return "chance" if s.is_chance() else "decision"

    def legal_moves(self) -> list[Move]:
        """The moves of the player to move: the engine's over the known cards, plus the
        plays the unknown hand cards make possible
        (:func:`~palace_solver.game.view.possible_moves`)."""
        return possible_moves(self.state)

    def chance(self) -> dict:
        """The chance event to settle: its kind (``flip`` or ``draw``), whose, how many
        cards are still to come, and each rank the next card can be."""
        s = self.state
        kind, p, k = s.pending
        total = sum(s.pool[r] for r in RANKS)
        outcomes = [{"card": rank_name(r), "count": s.pool[r],
                     "probability": float(Fraction(s.pool[r], total))}
                    for r in RANKS if s.pool[r]]
        return {"kind": kind, "player": self.label(p), "seat": p, "cards": k,
                "outcomes": outcomes}

    def position(self) -> Position:
        """The position at a decision, players out left out, seen by the viewer
        (:func:`~palace_solver.game.view.seat_position`; no ``perspective`` when the start
        had none and the viewer is to move).

        :raises BoardError: when it cannot be written as a position (a jokers game with a
            player out).
        """
        names = [self.start.players[p].name for p in range(self.state.n)]
        try:
            return seat_position(self.state, names, self.viewer,
                                 implicit_viewer=self.start.perspective is None)
        except NoPositionError as e:
            raise BoardError(str(e)) from None
        except InvalidPositionError as e:  # pragma: no cover - the engine keeps cards whole
            raise BoardError(f"the board reached a position that does not validate: {e}")

    def table(self) -> dict:
        """JSON of what lies on the table now (for the picture), at any node: each seat's
        known hand cards, unknown hand cards, face-up cards, face-down count, whether out."""
        s = self.state
        players = [{"name": self.names[p], "viewer": p == self.viewer,
                    "hand": [rank_name(r) for r in ranks_of(s.hands[p])],
                    "unknown": s.hands[p][UNKNOWN],
                    "face_up": [rank_name(r) for r in ranks_of(s.face_up[p])],
                    "face_down": s.face_down[p], "out": s.out[p]} for p in range(s.n)]
        to_move = s.to_move if s.to_move >= 0 else (s.pending[1] if s.is_chance() else None)
        return {"rules": s.rules.to_json(), "players": players,
                "pile": [rank_name(r) for r in s.pile],
                "burned": [rank_name(r) for r in ranks_of(s.burned)],
                "draw_pile": s.draw_pile, "to_move": to_move, "direction": s.direction}

    def node(self) -> dict:
        """JSON of the current node: ``kind`` and what it needs (moves, outcomes, result)."""
        s = self.state
        out: dict = {"kind": self.kind(), "steps": len(self.steps)}
        if s.is_terminal():
            out["loss_probability"] = [float(x) for x in s.loss]
            out["names"] = list(self.names)
            losers = [self.names[q] for q in range(s.n) if s.loss[q] == 1]
            out["message"] = f"game over: {losers[0]} loses" if losers else "game over"
            return out
        if s.is_chance():
            out["chance"] = self.chance()
            return out
        out["to_move"] = self.label(s.to_move)
        out["moves"] = [str(m) for m in self.legal_moves()]
        try:
            pos = self.position()
            out["position"] = pos.to_json()
            out["text"] = to_text(pos)
        except BoardError as e:
            out["position"], out["text"], out["message"] = None, None, str(e)
        return out

    # -- steps --------------------------------------------------------------------------
    def play(self, text: str) -> dict:
        """Apply one step (a move at a decision, a card at a chance event).

        :raises BoardError: naming the step and the reason; the line is then unchanged.
        """
        s = self.state
        n = len(self.steps) + 1
        if s.is_terminal():
            raise BoardError(f"step {n} {text!r}: the game is over")
        if s.is_chance():
            return self._chance(text, n)
        try:
            move = Move.parse(text)
        except InvalidMoveError as e:
            raise BoardError(f"step {n}: {e}") from None
        legal = self.legal_moves()
        p = s.to_move
        if move not in legal:
            raise BoardError(f"step {n} {text!r}: not a legal move for {self.label(p)} "
                             f"(legal: {', '.join(str(m) for m in legal)})")
        t = s.clone()
        before_burned = sum(t.burned)
        if move.kind == PLAY and t.source(p) == "hand":
            reveal(t, p, move.rank, move.count)
        try:
            t.apply(move)
        except IllegalMoveError as e:  # pragma: no cover - legal_moves said yes
            raise BoardError(f"step {n} {text!r}: {e}") from None
        notes = self._settle(t)
        if sum(t.burned) > before_burned:
            notes.insert(0, "the pile burns")
        self.state = t
        step = {"step": str(move), "player": self.label(p), "text": f"{self.label(p)} {move}",
                "notes": notes}
        self.steps.append(step)
        return step

    def _chance(self, text: str, n: int) -> dict:
        s = self.state
        kind, p, _ = s.pending
        try:
            r = parse_rank(text)
        except CardError:
            raise BoardError(f"step {n} {text!r}: a card is expected ({kind} of "
                             f"{self.label(p)})") from None
        if r not in RANKS or not s.pool[r]:
            raise BoardError(f"step {n}: the {kind} cannot be {rank_name(r)}: every "
                             f"{rank_name(r)} is seen")
        t = s.clone()
        before = sum(t.burned), sum(t.hands[p])
        t.apply(r)
        notes = self._settle(t)
        if sum(t.burned) > before[0]:
            notes.insert(0, "the pile burns")
        if kind == "flip" and sum(t.hands[p]) > before[1]:
            notes.insert(0, f"{self.label(p)} cannot play it and takes the pile")
        self.state = t
        verb = "flips" if kind == "flip" else "draws"
        step = {"step": rank_name(r), "player": self.label(p),
                "text": f"{self.label(p)} {verb} {rank_name(r)}", "notes": notes}
        self.steps.append(step)
        return step

    def _settle(self, t: State) -> list[str]:
        """Refills of the players other than the viewer become unknown hand cards."""
        notes = [f"{self.label(q)} draws {k} (unseen)"
                 for q, k in settle_refills(t, self.viewer)]
        for q in t.out_order:
            if not self.state.out[q]:
                notes.append(f"{self.label(q)} is out")
        return notes


def replay(pos: Position, steps) -> Line:
    """The line from ``pos`` through ``steps`` (move or card texts).

    :raises BoardError: at the first step that cannot be played (its number, the reason).
    """
    steps = list(steps)
    if len(steps) > MAX_STEPS:
        raise BoardError(f"a line of {len(steps)} steps; at most {MAX_STEPS}")
    names = [p.name or f"player {i}" for i, p in enumerate(pos.players)]
    line = Line(start=pos, names=names, viewer=pos.viewer(), state=seat_state(pos))
    for text in steps:
        line.play(str(text))
    return line

"""The analysis board's line: a position, then moves and chance outcomes, replayed on the
reference engine as the analyzing player sees the game.

Why a replay. The page keeps only the start position and the list of steps (a move at a
decision, a card at a chance event); the server replays them on
:class:`~palace_solver.game.state.State` at every request. The rules live in one place, the
page holds no game logic, and the line fits in a shareable URL.

Whose knowledge. A position is seen by its *viewer* (``perspective``, else the player to
move at the start); the board follows the game from that seat, the way ``palace live``
does. Hand cards the viewer has not seen sit in the State's rank counts at index
:data:`UNKNOWN` (0, unused by the ranks), and the unseen pool holds every card the viewer
has not seen (draw pile, face-down cards, the others' unknown hand cards), so the engine
applies every rule and the board fills in only what the viewer cannot see:

- a player with unknown hand cards may play any rank those cards could be (the legal moves
  are the engine's, over the known cards and each rank the unknown ones could hold); the
  played copies not known to be there are revealed from the pool just before the play;
- another player's refill from the draw pile turns draw-pile cards into unknown hand cards;
- the viewer's own draws and every flip are chance events: the page offers each rank the
  card can be, with its probability (the unseen pool, all cards equally likely).

With every hand known and no draw pile (exact mode) nothing is hidden and the line is the
game itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..game.cards import RANKS, CardError, parse_rank, rank_name, ranks_of
from ..game.moves import PLAY, IllegalMoveError, InvalidMoveError, Move
from ..game.position import InvalidPositionError, PlayerPosition, Position, to_text
from ..game.state import PLAY_PHASE, State

__all__ = ["UNKNOWN", "BoardError", "Line", "replay"]

#: Index of the rank counts that holds hand cards the viewer has not seen.
UNKNOWN = 0
#: Longest line the board replays (a guard against giant URLs, not a rule of the game).
MAX_STEPS = 2000


class BoardError(ValueError):
    """A step that is not a move or a card, or one the rules do not allow; the message
    names the step and why."""


def _move_key(m: Move):
    """The engine's order: plays by rank then count, then pickups."""
    return (m.kind != PLAY, RANKS.index(m.rank) if m.rank else -1, m.count)


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
        plays the unknown hand cards make possible (module doc)."""
        s = self.state
        p = s.to_move
        moves = set(s.legal_moves())
        unknown = s.hands[p][UNKNOWN]
        if unknown:
            for r in RANKS:
                if not s.pool[r]:
                    continue
                t = s.clone()
                k = min(unknown, t.pool[r])
                t.hands[p][UNKNOWN] -= k
                t.hands[p][r] += k
                t.pool[r] -= k
                moves.update(m for m in t.legal_moves() if m.kind == PLAY)
        return sorted(moves, key=_move_key)

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
        """The position at a decision, players out left out, seen by the viewer.

        :raises BoardError: when it cannot be written as a position (a jokers game with a
            player out).
        """
        s = self.state
        seats = [p for p in range(s.n) if not s.out[p]]
        idx = {p: i for i, p in enumerate(seats)}
        rules = s.rules
        if len(seats) < s.n:
            if rules.jokers:
                raise BoardError("a jokers game with a player out cannot be written as a "
                                 "position (the jokers variant needs exactly 6 players)")
            if rules.decks(s.n) == 2 and rules.decks(len(seats)) == 1:
                rules = replace(rules, two_decks=True)
        players = [PlayerPosition(self.start.players[p].name if p < self.start.n else None,
                                  ranks_of(s.hands[p]), sum(s.hands[p]),
                                  ranks_of(s.face_up[p]), s.face_down[p]) for p in seats]
        persp = idx.get(self.viewer)
        if self.start.perspective is None and self.viewer == s.to_move:
            persp = None
        last = s.last_player if rules.back_to_last_player else None
        pos = Position(rules=rules, players=players, pile=list(s.pile),
                       burned=ranks_of(s.burned), draw_pile=s.draw_pile,
                       to_move=idx[s.to_move], perspective=persp,
                       direction=s.direction if len(seats) > 2 else 1,
                       last_player=idx.get(last) if last is not None else None)
        try:
            return pos.validate()
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
        if move.kind == PLAY and t.hands[p][UNKNOWN] and t.source(p) == "hand":
            need = move.count - t.hands[p][move.rank]
            if need > 0:
                t.hands[p][UNKNOWN] -= need
                t.hands[p][move.rank] += need
                t.pool[move.rank] -= need
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
        notes = []
        while t.is_chance() and t.pending[0] == "draw" and t.pending[1] != self.viewer:
            _, q, k = t.pending
            t.draw_pile -= k
            t.hands[q][UNKNOWN] += k
            t.pending = None
            t.to_move = t.next_after
            notes.append(f"{self.label(q)} draws {k} (unseen)")
        for q in t.out_order:
            if not self.state.out[q]:
                notes.append(f"{self.label(q)} is out")
        return notes


def start_state(pos: Position) -> State:
    """The State of ``pos`` with unknown hand cards at :data:`UNKNOWN` and every card the
    viewer has not seen in the pool."""
    s = State(pos.rules, pos.n)
    for i, p in enumerate(pos.players):
        for r in p.hand_known:
            s.hands[i][r] += 1
        s.hands[i][UNKNOWN] = p.hand_unknown
        for r in p.face_up:
            s.face_up[i][r] += 1
        s.face_down[i] = p.face_down
    s.pile = list(pos.pile)
    for r in pos.burned:
        s.burned[r] += 1
    s.pool = pos.unseen_counts()
    s.pool[UNKNOWN] = 0
    s.draw_pile = pos.draw_pile
    s.to_move, s.direction, s.last_player = pos.to_move, pos.direction, pos.last_player
    s.phase = PLAY_PHASE
    return s


def replay(pos: Position, steps) -> Line:
    """The line from ``pos`` through ``steps`` (move or card texts).

    :raises BoardError: at the first step that cannot be played (its number, the reason).
    """
    steps = list(steps)
    if len(steps) > MAX_STEPS:
        raise BoardError(f"a line of {len(steps)} steps; at most {MAX_STEPS}")
    names = [p.name or f"player {i}" for i, p in enumerate(pos.players)]
    line = Line(start=pos, names=names, viewer=pos.viewer(), state=start_state(pos))
    for text in steps:
        line.play(str(text))
    return line

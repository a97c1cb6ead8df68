"""The live session model: following a real game from one seat, the public record and what
the user knows.

Why a knowledge state. At a real table the user sees their own hand, every face-up card, the
pile, the burns and every card a player picks up; the others' hands are only partly known and
the draw pile and face-down cards not at all. The session keeps that record in a reference
:class:`~palace_solver.game.state.State` seen from the user's seat
(:mod:`palace_solver.game.view`: unknown hand cards, the others' refills, the cards revealed
when played), so the rules engine does everything the rules say and the session only fills
in what the user cannot see; the user's own refills wait for the user to say what they drew
(``draw 7 K``).

The events are lines of the event language (:mod:`palace_solver.live.events`).
An impossible event raises :class:`LiveError` with the reason and changes nothing.

The parts: :mod:`~palace_solver.live.setup` (what the user sees at the start, who plays
first), :mod:`~palace_solver.live.store` (the session file: the setup and the accepted
events, replayed on load, written atomically), :mod:`~palace_solver.live.phrasing` (the
English of the replies). This module applies the events.

The API, for the terminal (:mod:`palace_solver.live.repl`) and for programs alike:
``Session(setup, path)``; :meth:`Session.apply` (an event line -> :class:`Reply`, or
:class:`LiveError` and nothing changed), :meth:`Session.undo`, :meth:`Session.save` /
:meth:`Session.load` (one file per game, saved after every change when ``path`` is set),
:meth:`Session.hint` (data), :meth:`Session.summary` (data; the text picture is
:mod:`palace_solver.live.picture`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..game.cards import RANKS, counts_of, rank_name, ranks_of
from ..game.moves import FLIP, PICKUP, PLAY, IllegalMoveError, Move
from ..game.position import Position
from ..game.state import FACE_DOWN, FACE_UP, HAND, LAYOUT_PHASE, State
from ..game.view import (
    UNKNOWN,
    NoPositionError,
    is_decision,
    reveal,
    seat_position,
    settle_refills,
)
from . import hints, store
from .events import Event, LiveError, parse_cards, parse_event, player_seat
from .phrasing import a_card, card_list, count_of, number, ordinal, pile_note, plural, turn_note
from .setup import Setup, check_names
from .store import SESSION_FORMAT

__all__ = ["LiveError", "Reply", "Session", "Setup", "UNKNOWN", "SESSION_FORMAT", "check_names",
           "ordinal", "parse_cards"]


# -- replies -----------------------------------------------------------------------------------

@dataclass
class Reply:
    """The answer to one line: ``ok`` (accepted / done) or refused, a human message, and
    for accepted events the canonical event text."""

    ok: bool
    message: str
    event: str | None = None
    data: dict = field(default_factory=dict)


# -- the session -------------------------------------------------------------------------------

class Session:
    """The public record of a game from the user's seat. See the module docstring."""

    def __init__(self, setup: Setup, path: str | None = None):
        self.setup = setup.validate()
        self.path = path
        self.names = list(setup.names)
        self.me = setup.me
        self.rules = setup.rules
        self.n = setup.n
        self.dealer = setup.dealer_seat
        self.events: list[str] = []
        #: choices kept with the game (``time``: seconds for each hint), saved in its file
        self.settings: dict = {}
        self._undo: list[tuple[State, bool, int]] = []
        self.state, self.first_open = setup.initial_state()
        self.burns = 0   # burns so far (for the ``burn`` check)
        self._last_burn_at = -1

    # -- the layout phase ----------------------------------------------------------------
    def in_layout(self) -> bool:
        """Whether the face-up cards are still being laid out (a session from a deal)."""
        return self.state.phase == LAYOUT_PHASE

    def laid_out(self, p: int) -> bool:
        """Whether ``p``'s face-up cards are known (always, once play has started)."""
        return not self.in_layout() or sum(self.state.face_up[p]) > 0

    def waiting_layouts(self) -> list[int]:
        """The seats whose face-up cards are still to be entered, in seat order."""
        return self.waiting_layouts_of(self.state)

    def _start_play(self, s: State) -> tuple[bool, str]:
        """Every layout entered: play starts. Returns ``first_open`` and a note saying who
        starts (or what is awaited)."""
        how = self.setup.open_play(s)
        if how == "start":
            return False, "every face-up card is down: enter the start card ('start 5')"
        if how == "open":
            return True, ("every face-up card is down; who plays first depends on cards "
                          "you have not seen: the first play tells (or say 'first NAME')")
        return False, (f"every face-up card is down; {self.name(s.to_move)} "
                       f"play{'' if s.to_move == self.me else 's'} first")

    # -- names and parsing ----------------------------------------------------------------
    def name(self, p: int) -> str:
        return "you" if p == self.me else self.names[p]

    def player(self, word: str) -> int | None:
        """The seat named ``word`` (``me`` is the user), or None."""
        return player_seat(word, self.names, self.me)

    def parse_event(self, line: str) -> Event:
        """The event a line names (:func:`palace_solver.live.events.parse_event`), cards
        read by the session's rules.

        :raises LiveError: for a line that is not an event.
        """
        return parse_event(line, self.names, self.me, self.rules)

    # -- events ---------------------------------------------------------------------------
    def apply(self, line: str) -> Reply:
        """Apply one event line; the state changes only when it is accepted.

        :raises LiveError: for a line that is not an event or an event that cannot happen.
        """
        kind, p, payload = self.parse_event(line)
        if kind == "burn":
            if self._last_burn_at == len(self.events) and self.events:
                return Reply(True, "yes: the pile burned")
            raise LiveError("no burn: the last event did not burn the pile"
                            if self.events else "no burn: nothing has been played yet")
        if kind == "out":
            if self.state.out[p]:
                return Reply(True, f"yes: {self.name(p)} {'are' if p == self.me else 'is'} out")
            raise LiveError(f"{self.name(p)} still {'have' if p == self.me else 'has'} "
                            f"{plural(self.state.cards_left(p), 'card')}")
        s = self.state.clone()
        first_open = self.first_open
        if kind == "layout":
            text, msg = self._layout(s, p, payload)
            if not self.waiting_layouts_of(s):
                first_open, note = self._start_play(s)
                msg += "; " + note
        elif self.in_layout():
            raise LiveError(f"the face-up cards come first: {self.waiting_for()}")
        elif kind == "first":
            if not first_open:
                raise LiveError(f"the first player is already known: "
                                f"{self.name(self.state.to_move)}" if not self.events else
                                "the game has started")
            s.to_move = p
            first_open = False
            text, msg = f"first {self.names[p]}", f"{self.name(p)} play{'' if p == self.me else 's'} first"
        elif kind == "start":
            if not (s.is_chance() and s.pending[0] == "start"):
                raise LiveError("no start card is expected now")
            if not s.pool[payload]:
                raise LiveError(f"the start card cannot be {a_card(payload)}: "
                                f"every {rank_name(payload)} is seen")
            s.apply(payload)
            if s.is_chance():
                msg = f"the start card {rank_name(payload)} burns: enter the next one"
            else:
                s.to_move = self.setup.first if self.setup.first is not None \
                    else self.setup.left_of_dealer()
                msg = (f"start card {rank_name(payload)}; {self.name(s.to_move)} "
                       f"play{'' if s.to_move == self.me else 's'} first")
            text = f"start {rank_name(payload)}"
        elif kind == "draw":
            text, msg = self._draw(s, payload)
        else:
            if first_open:
                if p is None:
                    raise LiveError("who plays first is not known yet: name the player "
                                    "(e.g. 'bob 3') or say 'first NAME'")
                s.to_move = p
                first_open = False
            text, msg = self._move(s, p, payload)
        self._undo.append((self.state, self.first_open, self._last_burn_at))
        self.state, self.first_open = s, first_open
        self.events.append(text)
        if sum(s.burned) > sum(self._undo[-1][0].burned):
            self._last_burn_at = len(self.events)
        try:
            self.autosave()
        except OSError as e:
            # Not on disk, so not accepted: the session stays as the file says.
            self.state, self.first_open, self._last_burn_at = self._undo.pop()
            self.events.pop()
            raise LiveError(f"cannot save the session ({e.strerror or e}): "
                            f"{text!r} is not recorded") from None
        return Reply(True, msg, event=text)

    def waiting_layouts_of(self, s: State) -> list[int]:
        return [p for p in range(self.n) if sum(s.face_up[p]) == 0] \
            if s.phase == LAYOUT_PHASE else []

    def _layout(self, s: State, p: int, cards: list[int]) -> tuple[str, str]:
        """``p`` lays ``cards`` face up at the deal."""
        z = self.rules.zone_size
        if s.phase != LAYOUT_PHASE:
            raise LiveError("the face-up cards are laid out at the deal; play has started"
                            if self.setup.deal is not None else
                            "the face-up cards were given at the start (--up)")
        who = self.name(p)
        if sum(s.face_up[p]) > 0:
            raise LiveError(f"{self.name(p)}{' have' if p == self.me else ' has'} laid out "
                            f"{card_list(ranks_of(s.face_up[p]))} already ('undo' to change)")
        if len(cards) != z:
            raise LiveError(f"{who} lay{'' if p == self.me else 's'} {z} cards face up, "
                            f"not {len(cards)}")
        want = counts_of(cards)
        if p == self.me:
            for r in RANKS:
                if want[r] > s.hands[p][r]:
                    raise LiveError(f"you were dealt {plural(s.hands[p][r], rank_name(r))}, "
                                    f"not {want[r]} (your cards: "
                                    f"{card_list(ranks_of(s.hands[p]))})")
                s.hands[p][r] -= want[r]
                s.face_up[p][r] += want[r]
            return (f"{self.names[p]} up {card_list(sorted(cards))}",
                    f"you lay {card_list(sorted(cards))} face up; your hand: "
                    f"{card_list(ranks_of(s.hands[p]))}")
        for r in RANKS:
            if want[r] > s.pool[r]:
                raise LiveError(f"{self.names[p]} cannot lay {count_of(want[r], r)} face up: "
                                f"only {s.pool[r]} of the {self.rules.deck_counts(self.n)[r]} "
                                f"{rank_name(r)}s are unseen")
        for r in RANKS:
            s.pool[r] -= want[r]
            s.face_up[p][r] += want[r]
        s.hands[p][UNKNOWN] = z
        return (f"{self.names[p]} up {card_list(sorted(cards))}",
                f"{self.names[p]} lays {card_list(sorted(cards))} face up")

    def try_apply(self, line: str) -> Reply:
        """:meth:`apply`, with a refusal as a reply (``ok`` False, the one-line reason)
        instead of an exception; nothing changes then."""
        try:
            return self.apply(line)
        except LiveError as e:
            return Reply(False, str(e))

    def _check_turn(self, s: State, p: int | None) -> int:
        if s.is_terminal():
            raise LiveError("the game is over")
        if s.is_chance():
            kind, q, k = s.pending
            if kind == "start":
                raise LiveError("first enter the start card, e.g. 'start 5'")
            if kind == "draw" and q == self.me:
                raise LiveError(f"first enter the {plural(k, 'card')} you drew, "
                                f"e.g. 'draw {' '.join(['7'] * k)}'")
            raise LiveError(f"waiting for a {kind}")  # pragma: no cover - never pending
        if p is None:
            return s.to_move
        if s.out[p]:
            raise LiveError(f"{self.name(p)} {'are' if p == self.me else 'is'} out")
        if p != s.to_move:
            raise LiveError(f"it is {self.name(s.to_move)}'s turn, not "
                            f"{'yours' if p == self.me else self.names[p] + chr(39) + 's'}"
                            if s.to_move != self.me else
                            f"it is your turn, not {self.names[p]}'s")
        return p

    def _move(self, s: State, p: int | None, move) -> tuple[str, str]:
        p = self._check_turn(s, p)
        who = self.name(p)
        src = s.source(p)
        before = s.clone()
        if isinstance(move, tuple):  # ("flip", rank)
            r = move[1]
            if src != FACE_DOWN:
                raise LiveError(f"{who} cannot flip: {who} still "
                                f"{'have' if p == self.me else 'has'} "
                                f"{'hand' if src == HAND else 'face-up'} cards")
            if not s.pool[r]:
                raise LiveError(f"the flip cannot be {a_card(r)}: all "
                                f"{s.rules.deck_counts(s.n)[r]} are seen")
            legal = s.playable(r)
            s.apply(Move.flip())
            s.apply(r)
            text = f"{self.names[p]} flip {rank_name(r)}"
            msg = f"{who} flip{'' if p == self.me else 's'} {rank_name(r)}" + (
                "" if legal else " and cannot play it")
            return text, self._after(s, before, p, msg, Move.flip())
        if src == FACE_DOWN:
            raise LiveError(f"{who} {'play' if p == self.me else 'plays'} from the face-down "
                            f"cards: enter the card turned up, e.g. "
                            f"'{self.names[p]} flip 9'")
        counts = s.hands[p] if src == HAND else s.face_up[p]
        if move.kind == PLAY:
            r, k = move.rank, move.count
            if not s.playable(r):
                raise LiveError(f"{rank_name(r)} cannot be played on the pile "
                                f"({self.pile_note(s)})")
            if src == FACE_UP:
                if counts[r] < k:
                    raise LiveError(f"{who} {'have' if p == self.me else 'has'} "
                                    f"{plural(counts[r], 'face-up ' + rank_name(r))}, "
                                    f"not {k}")
            elif p == self.me:
                if counts[r] < k:
                    raise LiveError(f"you hold {plural(counts[r], rank_name(r))}, not {k} "
                                    f"(your hand: {card_list(ranks_of(counts))})")
            else:
                self._reveal(s, p, r, k)
        else:  # pickup
            if not s.pile:
                raise LiveError("the pile is empty: there is nothing to pick up")
            if move.rank and src == HAND:
                raise LiveError(f"{who} {'play' if p == self.me else 'plays'} from the hand: "
                                f"a pickup is just 'pickup'")
            if src == FACE_UP and not move.rank and not s.rules.easy_table_pickup:
                raise LiveError(f"from the face-up stage, name the face-up card laid first, "
                                f"e.g. '{self.names[p]} pickup "
                                f"{rank_name(ranks_of(counts)[0])}'")
            if src == FACE_UP and move.rank and s.rules.easy_table_pickup:
                move = Move.pickup()
            if move.rank and not counts[move.rank]:
                raise LiveError(f"{who} {'have' if p == self.me else 'has'} no face-up "
                                f"{rank_name(move.rank)}")
        try:
            s.apply(move)
        except IllegalMoveError:
            raise LiveError(self._why_illegal(before, p, move)) from None
        verb = {PLAY: "play", PICKUP: "pick"}[move.kind]
        if move.kind == PLAY:
            msg = f"{who} {verb}{'' if p == self.me else 's'} {move}"
            if src == FACE_UP:
                msg += " from the face-up cards"
        else:
            msg = f"{who} {verb}{'' if p == self.me else 's'} up the pile"
        return f"{self.names[p]} {move}", self._after(s, before, p, msg, move)

    def _reveal(self, s: State, p: int, r: int, k: int) -> None:
        """An opponent plays ``k`` cards of rank ``r`` from the hand: unknown hand cards
        become the copies not known to be there (:func:`~palace_solver.game.view.reveal`),
        or the reason they cannot."""
        hand = s.hands[p]
        need = k - hand[r]
        if need <= 0:
            return
        nm, what = self.names[p], count_of(k, r)
        if need > hand[UNKNOWN]:
            known = ranks_of([0] + hand[1:])
            if not hand[UNKNOWN]:
                raise LiveError(f"{nm} cannot play {what}: every card in {nm}'s hand is known "
                                f"({card_list(known)}) and "
                                + (f"only {number(hand[r])} is a {rank_name(r)}" if hand[r]
                                   else f"none is {a_card(r)}"))
            raise LiveError(f"{nm} cannot play {what}: {nm}'s hand has "
                            f"{plural(sum(hand), 'card')} ("
                            + (f"{count_of(hand[r], r)} known" if hand[r] else
                               f"no known {rank_name(r)}")
                            + f", {hand[UNKNOWN]} unknown)")
        if not s.pool[r] and not hand[r]:
            raise LiveError(f"{nm} cannot hold {a_card(r)}: every {rank_name(r)} "
                            f"is seen elsewhere")
        if need > s.pool[r]:
            deck = s.rules.deck_counts(s.n)[r]
            raise LiveError(f"{nm} cannot have {what}: only {s.pool[r] + hand[r]} of the "
                            f"{deck} {rank_name(r)}s can be in that hand "
                            f"({s.pool[r]} unseen" + (f", {hand[r]} known there)" if hand[r]
                                                      else ")"))
        reveal(s, p, r, k)

    def _why_illegal(self, s: State, p: int, move: Move) -> str:
        if move.kind == PICKUP and s.rules.must_play:
            return (f"{self.name(p)} must play (must_play): a legal card is known to be "
                    f"in that hand")
        return f"{move} is not a legal move for {self.name(p)} now"

    def _draw(self, s: State, cards: list[int]) -> tuple[str, str]:
        if not (s.is_chance() and s.pending[0] == "draw" and s.pending[1] == self.me):
            raise LiveError("you have nothing to draw now")
        k = s.pending[2]
        if len(cards) > k:
            raise LiveError(f"you draw {plural(k, 'card')}, not {len(cards)}")
        left = s.pool[:]
        for r in cards:
            if not left[r]:
                raise LiveError(f"you cannot draw {a_card(r)}: every "
                                f"{rank_name(r)} is seen")
            left[r] -= 1
        for r in cards:
            s.apply(r)
        msg = f"you draw {card_list(cards)}"
        if s.is_chance() and s.pending[0] == "draw":
            msg += f"; {plural(s.pending[2], 'more card')} to enter"
        return "draw " + card_list(cards), msg + self._turn_note(s)

    def _after(self, s: State, before: State, p: int, msg: str, move: Move) -> str:
        """Settle the others' refills; describe burns, pickups, players out, the next turn."""
        notes = []
        if sum(s.burned) > sum(before.burned) and not (move.kind == PICKUP):
            notes.append("the pile burns")
            if s.to_move == p and not s.out[p] and not s.is_chance():
                notes.append(f"{self.name(p)} play{'' if p == self.me else 's'} again")
        if move.kind == PICKUP or (move.kind == FLIP and not before.playable(
                _flipped(before, s))):
            got = [r for r in RANKS for _ in range(max(0, s.hands[p][r] - before.hands[p][r]))]
            notes.append(f"{self.name(p)} take{'' if p == self.me else 's'} "
                         f"{plural(len(got), 'card')}: {card_list(got)}")
        left = s.draw_pile
        for q, k in settle_refills(s, self.me):
            left -= k
            notes.append(f"{self.names[q]} draws {k} (draw pile {left})")
        for q in s.out_order[len(before.out_order):]:
            notes.append(f"{self.name(q)} {'are' if q == self.me else 'is'} out "
                         f"({ordinal(s.out_order.index(q) + 1)})")
        if s.is_chance() and s.pending[0] == "draw":
            k = s.pending[2]
            notes.append(f"you draw {k}: enter {'it' if k == 1 else 'them'}, "
                         f"e.g. 'draw {' '.join(['7'] * k)}'")
        return "; ".join([msg] + notes) + self._turn_note(s)

    def _turn_note(self, s: State, first_open: bool = False) -> str:
        return turn_note(s, self.names, self.me, first_open)

    def pile_note(self, s: State) -> str:
        """What the pile asks for (:func:`~palace_solver.live.phrasing.pile_note`)."""
        return pile_note(s)

    # -- undo -----------------------------------------------------------------------------
    def undo(self, k: int = 1) -> Reply:
        """Take back the last ``k`` events.

        :raises LiveError: when there are fewer.
        """
        if k < 1:
            raise LiveError("undo how many? at least 1")
        if k > len(self._undo):
            raise LiveError("nothing to undo" if not self._undo else
                            f"only {plural(len(self._undo), 'event')} to undo")
        gone = []
        for _ in range(k):
            self.state, self.first_open, self._last_burn_at = self._undo.pop()
            gone.append(self.events.pop())
        self.autosave()
        return Reply(True, "undone: " + ", ".join(gone)
                     + self._turn_note(self.state, self.first_open))

    # -- save / resume --------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"format": SESSION_FORMAT, "setup": self.setup.to_json(),
                **({"settings": dict(self.settings)} if self.settings else {}),
                "events": list(self.events)}

    def save(self, path: str | None = None) -> str:
        """Write the session to ``path`` (default: the session's file) atomically
        (:func:`palace_solver.live.store.write`)."""
        path = path or self.path
        if path is None:
            raise LiveError("no session file: say 'save FILE'")
        return store.write(path, self.to_json())

    def set(self, key: str, value) -> None:
        """Keep a setting with the game (saved at once when the session has a file)."""
        old = self.settings.get(key)
        self.settings[key] = value
        try:
            self.autosave()
        except OSError:
            if old is None:
                del self.settings[key]
            else:
                self.settings[key] = old
            raise

    def autosave(self) -> None:
        if self.path is not None:
            self.save()

    @classmethod
    def from_json(cls, obj: dict, path: str | None = None) -> "Session":
        """Replay a saved session.

        :raises LiveError: for a file that is not a session or an event that no longer
            applies.
        """
        s = cls(Setup.from_json(store.check(obj)["setup"]))
        settings = obj.get("settings") or {}
        if not isinstance(settings, dict):
            raise LiveError("bad session settings")
        s.settings.update(settings)
        for i, ev in enumerate(obj.get("events", [])):
            try:
                s.apply(ev)
            except LiveError as e:
                raise LiveError(f"event {i + 1} {ev!r} of the session: {e}") from None
        s.path = path
        return s

    @classmethod
    def load(cls, path: str) -> "Session":
        """:raises LiveError: for an unreadable or malformed file."""
        return cls.from_json(store.read(path), path)

    # -- what the user knows --------------------------------------------------------------
    def known_hand(self, p: int) -> list[int]:
        """The cards of ``p``'s hand that the user knows (all of the user's own)."""
        return ranks_of(self.state.hands[p])

    def hand_count(self, p: int) -> int:
        return sum(self.state.hands[p])

    def unseen(self) -> list[int]:
        """Counts per rank of the cards the user has not seen (draw pile, face-down cards,
        the others' unknown hand cards)."""
        c = self.state.pool[:]
        c[UNKNOWN] = 0
        return c

    def at_decision(self) -> bool:
        return is_decision(self.state) and not self.first_open

    def position(self) -> Position:
        """The position seen from the user's seat (players out left out, perspective the
        user). Only at a decision node.

        :raises LiveError: when the game waits for a draw or a start card, is over, or the
            first player is not known.
        """
        if not self.at_decision():
            raise LiveError(self.waiting_for())
        return self._position_of(self.state)

    def history(self) -> list[Position]:
        """The decision positions the game has been through and can still come back to
        (the current one included), each as the user saw it then, oldest first: the hint's
        search scores reaching one again as a draw (a repeated position ends the game:
        RULES.md); :meth:`State.stretch` says which can come back."""
        now = self.state
        tag = now.stretch()
        out = []
        for s, first_open in [(u[0], u[1]) for u in self._undo] + [(now, self.first_open)]:
            if is_decision(s) and not first_open and s.stretch() == tag:
                out.append(self._position_of(s))
        return out

    def observations(self, per_player: int = 8) -> list[dict]:
        """The other players' recent decisions as the user saw them, for the inference of
        their hands (:func:`palace_solver.sample.drawsearch.observations_of`): for each
        player still holding cards the user has not seen, their last ``per_player`` plays
        and pickups while the same players were in, oldest first, each with the table
        before it, the unknown cards it played and the cards drawn after it."""
        now = self.state
        states = [u[0] for u in self._undo] + [now]
        out, seen = [], {}
        for i in range(len(self.events) - 1, -1, -1):
            before, after = states[i], states[i + 1]
            if not is_decision(before) or before.out != now.out:
                continue
            q = before.to_move
            if q == self.me or not now.hands[q][UNKNOWN] or seen.get(q, 0) >= per_player:
                continue
            try:
                kind, who, move = self.parse_event(self.events[i])
            except LiveError:
                continue
            if kind != "move" or who != q or not isinstance(move, Move):
                continue
            up = [0] * 16
            if move.kind == PLAY and before.source(q) == HAND:
                up[move.rank] = max(0, move.count - before.hands[q][move.rank])
            seats = [p for p in range(self.n) if not before.out[p]]
            out.append({"position": self._position_of(before), "player": seats.index(q),
                        "move": move, "up": up,
                        "drawn": before.draw_pile - after.draw_pile})
            seen[q] = seen.get(q, 0) + 1
        out.reverse()
        return out

    def _position_of(self, s: State) -> Position:
        """:func:`~palace_solver.game.view.seat_position` from the user's seat."""
        try:
            return seat_position(s, self.names, self.me)
        except NoPositionError as e:
            raise LiveError(str(e)) from None

    def seats_in_position(self) -> list[int]:
        return [p for p in range(self.n) if not self.state.out[p]]

    def waiting_for(self) -> str:
        """Why the session is not at a decision (what it waits for)."""
        s = self.state
        if s.is_terminal():
            return "the game is over"
        if s.phase == LAYOUT_PHASE:
            wait = self.waiting_layouts()
            others = [self.names[p] for p in wait if p != self.me]
            who = (["you"] if self.me in wait else []) + others
            eg = ([f"'up {' '.join(['10', 'A', 'K', 'Q'][:self.rules.zone_size])}' for yours"]
                  if self.me in wait else []) + ([f"'{others[0]} up 5 9 J'"] if others else [])
            return ("waiting for the face-up cards of "
                    + (" and ".join(who) if len(who) < 3 else
                       ", ".join(who[:-1]) + " and " + who[-1]) + f" ({', '.join(eg)})")
        if self.first_open:
            return "who plays first is not known yet: the first play tells (or 'first NAME')"
        if s.is_chance():
            kind, q, k = s.pending
            if kind == "start":
                return "waiting for the start card ('start 5')"
            return f"waiting for the {plural(k, 'card')} you drew ('draw ...')"
        return "not at a decision"

    def summary(self) -> dict:
        """The record as JSON-able data: ``phase`` (``layout``, ``play``, ``over``),
        ``to_move`` (a name, or None when the session waits: ``waiting`` says for what),
        ``players`` (name, you, laid_out, hand_count, hand_known, face_up, face_down, out),
        ``pile``, ``burned`` (a count), ``draw_pile``, ``unseen`` (rank: count),
        ``direction``, ``events`` (a count), ``over`` and, once over, ``loss``; at the
        layout phase ``dealt``, the user's cards as dealt."""
        s = self.state
        players = []
        for p in range(s.n):
            players.append({"name": self.names[p], "you": p == self.me,
                            "laid_out": self.laid_out(p),
                            "hand_count": sum(s.hands[p]),
                            "hand_known": [rank_name(r) for r in ranks_of(s.hands[p])],
                            "face_up": [rank_name(r) for r in ranks_of(s.face_up[p])],
                            "face_down": s.face_down[p], "out": s.out[p]})
        unseen = self.unseen()
        out = {"phase": "over" if s.is_terminal() else s.phase,
               "to_move": self.names[s.to_move] if self.at_decision() else None,
               "players": players, "pile": [rank_name(r) for r in s.pile],
               "burned": sum(s.burned), "draw_pile": s.draw_pile,
               "unseen": {rank_name(r): unseen[r] for r in RANKS if unseen[r]},
               "direction": s.direction, "events": len(self.events),
               "waiting": None if self.at_decision() else self.waiting_for(),
               "over": s.is_terminal()}
        if s.is_terminal():
            out["loss"] = [float(x) for x in s.loss]
        if self.setup.deal is not None:
            out["dealt"] = [rank_name(r) for r in self.setup.deal]
        return out

    # -- suggestions ----------------------------------------------------------------------
    def hint(self, time_budget: float = 2.0, seed: int = 0, hard_limit: float | None = None,
             engine: str | None = None, cancel=None, on_start=None) -> dict:
        """Suggestions as data: for the player to move (:func:`palace_solver.live.hints.hint`
        of :meth:`position`), or at the layout phase for the user's face-up cards
        (:func:`palace_solver.live.hints.layout_hint`). A dict with ``ok``, ``message`` and,
        when ok, ``moves`` best first (see those functions); ``cancel`` (a
        :class:`threading.Event`) stops the analysis early, as Ctrl-C does;
        ``on_start(seconds)`` is called when an analysis starts (a forced move needs none).

        :raises LiveError: when the game is not at a decision or a layout.
        """
        if self.in_layout():
            s = self.state
            if not s.hands[self.me] or sum(s.face_up[self.me]):
                raise LiveError(f"your face-up cards are laid; {self.waiting_for()}")
            others = [ranks_of(s.face_up[p]) for p in range(self.n) if p != self.me]
            return hints.layout_hint(self.rules, self.n, self.me, list(self.setup.deal),
                                     others, time_budget, seed=seed, hard_limit=hard_limit,
                                     name=self.names[self.me], cancel=cancel,
                                     on_start=on_start)
        return hints.hint(self.position(), time_budget, seed=seed, hard_limit=hard_limit,
                          engine=engine, cancel=cancel, on_start=on_start,
                          history=self.history(), observations=self.observations())


def _flipped(before: State, after: State) -> int:
    """The rank a flip turned up: the one that left the unseen pool."""
    for r in RANKS:
        if after.pool[r] < before.pool[r]:
            return r
    return 0  # pragma: no cover

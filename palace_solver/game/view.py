"""The table seen from one seat: a position and the State that follows it, as one player
knows the game.

Why one module. ``palace live`` follows a real game from the user's seat and the web board
follows a line from the analyzing player's; both keep the game in a reference
:class:`~palace_solver.game.state.State` so that the rules engine does everything the rules
say (legality, burns, refills, players going out, reversals, the variants) and they only
fill in what the seat cannot see. That filling-in is the same for both and lives here:

- **The unknown card.** Hand cards the seat has not seen sit in the State's rank counts at
  index :data:`UNKNOWN` (0, unused by the ranks: ``ranks_of`` never lists it), and the
  unseen pool holds every card the seat has not seen (draw pile, face-down cards, the
  others' unknown hand cards). So ``sum(hands[p])`` is the hand's size and
  ``ranks_of(hands[p])`` its known cards.
- **Position -> State** (:func:`seat_state`) and **State -> Position**
  (:func:`seat_position`): players out have no seat in a position, and with two seats left
  the direction of play means nothing, so it is written as 1 (``State.key`` ignores it for
  two players too). With every hand known this is :meth:`Position.to_state` and
  :meth:`Position.from_state`.
- **Refills** of the other players (:func:`settle_refills`) turn draw-pile cards into unknown
  hand cards; the seat's own draws stay chance events for the caller to settle.
- **Reveals** (:func:`reveal`): a card played from unknown hand cards becomes known just
  before the play, taken from the unseen pool (known copies are played first, so the cards
  marked known are exactly those the seat can be sure of). :func:`possible_moves` lists
  what a player with unknown cards may play.
- **Which positions can come back** (:func:`stretch`, :func:`repeatable`): a game ends in a
  draw at its first repeated position (RULES.md), and only a position of the same stretch
  (:meth:`State.stretch`: nothing that changes one way has changed) can repeat.
"""
from __future__ import annotations

from dataclasses import replace

from .cards import RANKS, ranks_of
from .moves import PLAY, Move
from .position import PlayerPosition, Position
from .state import PLAY_PHASE, State

__all__ = ["UNKNOWN", "NoPositionError", "is_decision", "possible_moves", "repeatable",
           "reveal", "seat_position", "seat_state", "settle_refills", "stretch"]

#: Index of the rank counts that holds the hand cards the seat has not seen.
UNKNOWN = 0


class NoPositionError(ValueError):
    """A state that a position cannot describe (a jokers game with a player out)."""


def seat_state(pos: Position) -> State:
    """The State of ``pos`` seen by its viewer: each player's unknown hand cards at
    :data:`UNKNOWN`, every card the viewer has not seen in the pool, the play phase with the
    player to move at a decision."""
    known = replace(pos, players=[replace(p, hand_count=len(p.hand_known))
                                  for p in pos.players])
    s = known.to_state()
    for i, p in enumerate(pos.players):
        s.hands[i][UNKNOWN] = p.hand_unknown
    s.pool[UNKNOWN] = 0
    return s


def seat_position(s: State, names, viewer: int | None, *,
                  implicit_viewer: bool = False) -> Position:
    """The position of the decision ``s`` seen from ``viewer``'s seat: players out left out,
    ``names[p]`` the name of seat ``p`` (None for none), ``perspective`` the viewer's new
    seat (None once the viewer is out, or with ``implicit_viewer`` when the viewer is the
    player to move), the direction 1 when two seats are left.

    :raises NoPositionError: for a jokers game with a player out (the variant needs
        exactly 6 players).
    :raises InvalidPositionError: when the state is not a valid position.
    """
    seats = [p for p in range(s.n) if not s.out[p]]
    idx = {p: i for i, p in enumerate(seats)}
    rules = s.rules
    if len(seats) < s.n:
        # A position has no seats for players out, and the deck follows the seat count.
        if rules.jokers:
            raise NoPositionError("a jokers game with a player out cannot be written as a "
                                  "position (the jokers variant needs exactly 6 players)")
        if rules.decks(s.n) == 2 and rules.decks(len(seats)) == 1:
            rules = replace(rules, two_decks=True)
    players = [PlayerPosition(names[p], ranks_of(s.hands[p]), sum(s.hands[p]),
                              ranks_of(s.face_up[p]), s.face_down[p]) for p in seats]
    perspective = idx.get(viewer) if viewer is not None else None
    if implicit_viewer and viewer == s.to_move:
        perspective = None
    last = s.last_player if s.rules.back_to_last_player else None
    return Position(rules=rules, players=players, pile=list(s.pile),
                    burned=ranks_of(s.burned), draw_pile=s.draw_pile,
                    to_move=idx[s.to_move], perspective=perspective,
                    direction=s.direction if len(seats) > 2 else 1,
                    last_player=idx.get(last) if last is not None else None).validate()


def settle_refills(s: State, viewer: int) -> list[tuple[int, int]]:
    """Settle the pending refills of players other than ``viewer``: the cards drawn become
    unknown hand cards. Returns ``(player, cards)`` for each, in order; stops at the
    viewer's own draw (a chance event the caller settles) or at a decision."""
    drawn = []
    while s.is_chance() and s.pending[0] == "draw" and s.pending[1] != viewer:
        _, q, k = s.pending
        s.draw_pile -= k
        s.hands[q][UNKNOWN] += k
        s.pending = None
        s.to_move = s.next_after
        drawn.append((q, k))
    return drawn


def reveal(s: State, p: int, rank: int, count: int) -> int:
    """``p`` is about to play ``count`` cards of ``rank`` from the hand: the copies not known
    to be there come out of the unknown hand cards and the unseen pool. Returns how many
    were revealed.

    :raises ValueError: when the unknown cards or the pool cannot supply them (the caller
        says why in its own words first).
    """
    hand = s.hands[p]
    need = count - hand[rank]
    if need <= 0:
        return 0
    if need > hand[UNKNOWN] or need > s.pool[rank]:
        raise ValueError(f"{count} cards of rank {rank} cannot come from this hand")
    hand[UNKNOWN] -= need
    hand[rank] += need
    s.pool[rank] -= need
    return need


def possible_moves(s: State) -> list[Move]:
    """The moves the player to move may make as the seat sees it: the engine's over the
    known cards, plus each play that unknown hand cards could make possible (as many of a
    rank as the unknown cards and the unseen pool allow). Engine order: plays by rank then
    count, then pickups."""
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


def _move_key(m: Move):
    return (m.kind != PLAY, RANKS.index(m.rank) if m.rank else -1, m.count)


def stretch(pos: Position) -> tuple:
    """What ``pos`` shares with every earlier position it can repeat: the seats' names and
    :meth:`State.stretch` (the draw pile, the burned cards, the table's counts)."""
    return tuple(p.name for p in pos.players), seat_state(pos).stretch()


def repeatable(pos: Position, history) -> list[Position]:
    """The positions of ``history`` (earlier positions seen from the same seat) that ``pos``
    can still come back to, in their order."""
    tag = stretch(pos)
    return [h for h in history or () if stretch(h) == tag]


def is_decision(s: State) -> bool:
    """Whether ``s`` is a play-phase decision (a position can describe it)."""
    return s.phase == PLAY_PHASE and not s.is_chance() and not s.is_terminal()

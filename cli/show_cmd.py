"""``palace show POSITION``: validate a position and draw the table."""
from __future__ import annotations

import sys

import click

from palace_solver.game.cards import RANKS, rank_name
from palace_solver.game.position import (
    InvalidPositionError,
    Position,
    load_position,
    to_text,
)


def _cards(ranks) -> str:
    return " ".join(rank_name(r) for r in ranks) or "-"


def _run(ranks) -> str:
    """``6x2`` for two 6s on top of the pile."""
    if not ranks:
        return "-"
    top, k = ranks[-1], 0
    for r in reversed(ranks):
        if r != top:
            break
        k += 1
    return rank_name(top) + (f"x{k}" if k > 1 else "")


def picture(pos: Position) -> str:
    """A readable multi-line picture of the table."""
    rules = str(pos.rules).replace("+", " + ")
    lines = [f"rules: {rules}; {pos.n} players; {pos.label(pos.to_move)} to move"]
    if pos.perspective is not None:
        lines.append(f"seen by: {pos.label(pos.perspective)}")
    extra = []
    if pos.direction != 1:
        extra.append("direction of play reversed (-1)")
    if pos.last_player is not None:
        extra.append(f"last card on the pile played by {pos.label(pos.last_player)}")
    lines += extra
    lines.append("")
    rows = [("", "player", "hand", "face-up", "face-down")]
    for i, p in enumerate(pos.players):
        hand = " ".join(rank_name(r) for r in p.hand_known)
        if p.hand_unknown:
            hand = (hand + " + " if hand else "") + f"{p.hand_unknown} unknown"
        rows.append((">" if i == pos.to_move else "", f"{i} {p.name}" if p.name else str(i),
                     hand or "-", _cards(p.face_up), str(p.face_down)))
    widths = [max(len(r[c]) for r in rows) for c in range(5)]
    for r in rows:
        lines.append("  ".join(r[c].ljust(widths[c]) for c in range(5)).rstrip())
    lines.append("")
    if pos.pile:
        eff = pos.effective_top()
        beat = rank_name(eff) if eff is not None else "anything"
        size = f"{len(pos.pile)} card" + ("s" if len(pos.pile) != 1 else "")
        lines.append(f"pile:      {_cards(pos.pile)}  ({size}, bottom first; "
                     f"top {_run(pos.pile)}, to beat: {beat})")
    else:
        lines.append("pile:      empty")
    lines.append(f"burned:    {_cards(pos.burned)}" + (f"  ({len(pos.burned)} cards)"
                                                        if len(pos.burned) > 1 else ""))
    lines.append(f"draw pile: {pos.draw_pile}")
    unseen = pos.unseen_counts()
    by_rank = " ".join(rank_name(r) + (f"x{unseen[r]}" if unseen[r] > 1 else "")
                       for r in RANKS if unseen[r]) or "none"
    fd = sum(p.face_down for p in pos.players)
    uh = sum(p.hand_unknown for p in pos.players)
    lines.append(f"unseen:    {sum(unseen)} = {fd} face-down + {uh} unknown hand + "
                 f"{pos.draw_pile} draw pile: {by_rank}")
    return "\n".join(lines)


@click.command("show")
@click.argument("position", metavar="POSITION")
@click.option("--json", "fmt", flag_value="json",
              help="Print the normalized JSON of the position instead of the picture.")
@click.option("--text", "fmt", flag_value="text",
              help="Print the one-line text form of the position instead of the picture.")
def show(position: str, fmt: str | None) -> None:
    """Validate POSITION and show the table.

    POSITION is a file path, '-' for standard input, a JSON object, or the one-line text
    form, e.g. 'standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 |
    burned 10 4 4 4 4 | draw 27 | to_move 0'. An invalid position exits with status 2.
    """
    try:
        pos = load_position(position)
    except InvalidPositionError as e:
        msg = " ".join(str(e).split())
        click.echo(f"palace: {msg}", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(pos.dumps())
    elif fmt == "text":
        click.echo(to_text(pos))
    else:
        click.echo(picture(pos))


COMMANDS = [show]

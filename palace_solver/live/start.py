"""Starting a ``palace live`` session: a :class:`~palace_solver.live.session.Setup` from the
words a user types (names, rules, hand, face-up cards, dealer, first player), asking for
what is missing through an ``ask`` function when there is one (the terminal prompt of
:mod:`palace_solver.live.repl`, or None for programs: then a missing piece is an error).

Imports the model (:mod:`palace_solver.game`), :mod:`palace_solver.live.events` and
:mod:`palace_solver.live.session`.
"""
from __future__ import annotations

import os
import time
from typing import Callable

from ..game.cards import rank_name
from ..game.position import InvalidPositionError, load_position
from ..game.rules import VARIANTS, Rules, RulesError
from .events import CARD_NAMES, LiveError, parse_cards
from .session import Session, Setup, check_names

__all__ = ["Ask", "build_setup", "default_path", "open_session", "parse_up", "rules_from",
           "seat_of"]

#: ``ask(question, default=None, help=None, check=None)`` -> ``check(answer)`` (the answer
#: when no check), asking again while the answer is ``help`` or ``check`` refuses it.
Ask = Callable[..., object]


def parse_up(specs, names, rules: Rules | None = None) -> dict[int, list[int]]:
    """``'bob: 2 J Q; carol: 4 4 9'`` (or ``bob=2,J,Q``), one or more, to seat -> ranks."""
    out: dict[int, list[int]] = {}
    for spec in specs:
        for part in spec.split(";"):
            if not part.strip():
                continue
            sep = ":" if ":" in part else "="
            if sep not in part:
                raise LiveError(f"--up {part.strip()!r}: expected NAME: CARDS")
            who, cards = part.split(sep, 1)
            low = [nm.lower() for nm in names]
            if who.strip().lower() not in low:
                raise LiveError(f"--up: no player named {who.strip()!r} "
                                f"(players: {', '.join(names)})")
            out[low.index(who.strip().lower())] = parse_cards(cards, rules)
    return out


def seat_of(word: str | None, names, what: str) -> int | None:
    """The seat a name (or a seat number) stands for; None for nothing.

    :raises LiveError: naming ``what`` was asked for.
    """
    if word is None or not word.strip():
        return None
    low = [nm.lower() for nm in names]
    w = word.strip().lower()
    if w in low:
        return low.index(w)
    if w.isdigit() and int(w) < len(names):
        return int(w)
    raise LiveError(f"{what}: no player named {word!r} (players: {', '.join(names)})")


def rules_from(rules_name: str, variants) -> Rules:
    """``'standard'`` or ``'seven_low+invisible_8'``, plus more variant names."""
    try:
        base = Rules.from_json(rules_name.strip() or "standard")
        return Rules.with_variants(list(base.variants()) + list(variants))
    except RulesError as e:
        raise LiveError(str(e)) from None


#: What each setup question wants, shown when the user types ``help`` (or ``?``) there.
HELP = {
    "names": "The players' names, one word each, in the order they play, starting left of "
             "the dealer; include yourself (the name 'me' marks you), e.g. 'me bob carol'.",
    "me": "Which of the names is you.",
    "rules": "'standard', or variants joined by '+', e.g. 'seven_low+invisible_8'. "
             "Known variants: {variants}.",
    "hand": "Your {z} hand cards after the swap, e.g. '3 7 K'; or all {z2} cards as they were "
            "dealt (hand and face-up together) to choose your face-up cards with a hint. "
            "Cards: {cards}.",
    "up": "The {z} face-up cards of {who}, e.g. '2 J Q'. Cards: {cards}.",
    "first": "The name of the player who plays first, or Enter to let the rule decide "
             "(the first face-up 3 dealt, ...; when cards you have not seen decide, the first "
             "play tells).",
}


def _names(text: str) -> list[str]:
    names = [x for x in text.replace(",", " ").split() if x]
    if len(names) < 2:
        raise LiveError(f"{len(names)} name{'s' if len(names) != 1 else ''}: "
                        f"a game has at least 2 players")
    check_names(names)
    return names


def build_setup(players, names, me, rules, hand, ups, dealer, first,
                ask: Ask | None = None, deal=None, deal_up=None) -> Setup:
    """The setup from the given pieces (strings as typed; ``rules`` a name or
    :class:`Rules`), asking for the missing ones with ``ask`` when given:
    ``ask(question, default=None, help=None, check=None)`` returns ``check(answer)``, asking
    again while ``check`` raises :class:`LiveError` or the answer is ``help``.

    ``deal``: the user's cards as dealt (hand and face-up together), to start at the
    layout phase; ``deal_up`` optionally those dealt face up, in order.

    :raises LiveError: for a missing or impossible piece.
    """
    # Optional questions only when the table is being asked for from the start.
    ask_more = ask is not None and not names

    if names:
        name_list = _names(names)
    elif ask is not None:
        name_list = ask("Players in turn order, from the dealer's left (e.g. 'me bob carol')",
                        help=HELP["names"], check=_names)
    else:
        n = players or 2
        name_list = ["me"] + [f"p{i}" for i in range(1, n)]
    if players and players != len(name_list):
        raise LiveError(f"--players {players} but {len(name_list)} names")
    if me is None and ask_more and "me" not in [x.lower() for x in name_list]:
        seat = ask("Which one are you", default=name_list[0], help=HELP["me"],
                   check=lambda a: seat_of(a, name_list, "you"))
    else:
        seat = seat_of(me, name_list, "--me")
    if seat is None:
        low = [x.lower() for x in name_list]
        seat = low.index("me") if "me" in low else 0
    if ask_more and rules is None:
        def rules_check(a):
            r = rules_from(a or "standard", ())
            try:
                r.check_players(len(name_list))
            except RulesError as e:
                raise LiveError(str(e)) from None
            return r
        rules = ask("Rules: standard, or variants separated by '+'", default="standard",
                    help=HELP["rules"].format(variants=", ".join(VARIANTS)), check=rules_check)
    rule_set = rules if isinstance(rules, Rules) else rules_from(rules or "standard", ())
    try:
        rule_set.check_players(len(name_list))
    except RulesError as e:
        raise LiveError(str(e)) from None
    z = rule_set.zone_size
    up_given = parse_up(ups, name_list, rule_set)
    if deal is not None:
        if hand is not None:
            raise LiveError("--hand and --deal: give your hand after the swap, or your cards "
                            "as dealt, not both")
        if up_given:
            raise LiveError("with --deal the face-up cards are entered as they are laid: "
                            "'me up 10 A K', 'bob up 5 9 J'")
        cards, dealt_up = parse_deal(deal, rule_set)
        if deal_up is not None:
            dealt_up = parse_cards(deal_up, rule_set)
        return Setup(names=name_list, me=seat, rules=rule_set, hand=[],
                     face_up=[[] for _ in name_list], deal=cards, deal_up=dealt_up,
                     dealer=seat_of(dealer, name_list, "--dealer"),
                     first=seat_of(first, name_list, "--first")).validate()
    if hand is None and ask is not None:
        deck = rule_set.deck_counts(len(name_list))

        def hand_check(a):
            cards, dealt_up = parse_deal(a, rule_set)
            if len(cards) not in (z, 2 * z):
                raise LiveError(f"{len(cards)} cards: give your {z} hand cards after the "
                                f"swap, or all {2 * z} cards as dealt")
            for r in set(cards):
                if cards.count(r) > deck[r]:
                    raise LiveError(f"{cards.count(r)} cards of rank {rank_name(r)}, but the "
                                    f"deck has only {deck[r]}")
            return a
        hand = ask(f"Your hand ({z} cards, after any swap; or all {2 * z} as dealt)",
                   help=HELP["hand"].format(z=z, z2=2 * z, cards=CARD_NAMES), check=hand_check)
        if len(parse_deal(hand, rule_set)[0]) == 2 * z:
            return build_setup(players, " ".join(name_list), name_list[seat], rule_set, None,
                               ups, dealer, first, ask=None, deal=hand)
    if hand is None:
        raise LiveError("--hand is needed: your hand after the swap (or --deal: your cards "
                        "as dealt)")
    up = dict(up_given)
    for i, nm in enumerate(name_list):
        if i not in up:
            if ask is None:
                raise LiveError(f"--up is needed for {nm}: the face-up cards of every player")
            who = "Your" if i == seat else f"{nm}'s"

            def up_check(a, who=who):
                cards = parse_cards(a, rule_set)
                if len(cards) != z:
                    raise LiveError(f"{len(cards)} cards: {who.lower()} face-up cards are "
                                    f"{z}")
                return cards
            up[i] = ask(f"{who} face-up cards",
                        help=HELP["up"].format(z=z, who="you" if i == seat else nm,
                                               cards=CARD_NAMES), check=up_check)
    if ask_more and first is None and dealer is None:
        first = ask("Who plays first (Enter: by the rule)", default="", help=HELP["first"],
                    check=lambda a: (seat_of(a, name_list, "first"), a)[1]) or None
    setup = Setup(names=name_list, me=seat, rules=rule_set, hand=parse_cards(hand, rule_set),
                  face_up=[up[i] for i in range(len(name_list))],
                  dealer=seat_of(dealer, name_list, "--dealer"),
                  first=seat_of(first, name_list, "--first"))
    return setup.validate()


def parse_deal(text: str, rules: Rules | None = None) -> tuple[list[int], list[int] | None]:
    """``'3 7 A 10 2 K'`` (the cards as dealt), or ``'3 7 A / 10 2 K'`` (the hand, then the
    face-up cards in the order dealt): the cards, and those dealt face up (or None)."""
    if "/" in text:
        parts = text.split("/")
        if len(parts) != 2:
            raise LiveError("your cards as dealt: 'HAND / FACE-UP', e.g. '3 7 A / 10 2 K'")
        hand, up = parse_cards(parts[0], rules), parse_cards(parts[1], rules)
        return hand + up, up
    return parse_cards(text, rules), None


def default_path() -> str:
    """A new session file here, named by the time: ``palace-live-DATE-TIME.json``."""
    return os.path.abspath(time.strftime("palace-live-%Y%m%d-%H%M%S.json"))


def open_session(*, resume=None, position=None, players=None, names=None, me=None,
                 rules_name=None, variants=(), hand=None, ups=(), dealer=None, first=None,
                 path=None, scripted=False, ask: Ask | None = None, deal=None) -> Session:
    """The session to follow: resumed from a file, started from a position (file, JSON or
    text form), or from a new table (:func:`build_setup`). Its file is ``path``, the resumed
    file, or a new one here (none when ``scripted`` and no ``path``); it is saved at once.

    :raises LiveError: for impossible input; OSError when the file cannot be written.
    """
    if resume:
        session = Session.load(resume)
        path = resume
    elif position is not None:
        try:
            pos = load_position(position)
        except InvalidPositionError as e:
            raise LiveError(str(e)) from None
        seat = None
        if me is not None:
            seat = seat_of(me, [p.name or f"p{i}" for i, p in enumerate(pos.players)], "--me")
        session = Session(Setup.from_position(pos, seat))
    else:
        rules = None
        if rules_name is not None or variants:
            rules = rules_from(rules_name or "standard", variants)
        session = Session(build_setup(players, names, me, rules, hand, ups, dealer, first,
                                      ask, deal=deal))
    if path is None and not scripted and not resume:
        path = default_path()
    session.path = path
    if path:
        session.save()
    return session

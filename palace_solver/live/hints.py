"""Hints of ``palace live``: what to play, how sure that is, and why; as data (for programs
and web pages) and as text (:func:`format_hint`).

A hint at a decision (:func:`hint`) holds:

- the moves best first with the mover's loss probability and its 95% interval, each marked
  ``tied`` when the analysis cannot tell it from the best: for a search over deals, the 95%
  interval of its loss minus the best move's over the same deals reaches 0
  (``tie_rule`` ``"paired"``, :func:`palace_solver.solve.results.tied_by_pairs`; that
  interval is the move's ``vs_best``), else its
  interval overlaps the best move's (``"overlap"``,
  :func:`palace_solver.solve.results.tied_with_best`);
- the expected continuation of the best move: in sampled deals (the deals of the sampled
  analysis), the best move is played and each next player replies with the best move of
  that deal, until the mover's turn comes back; the replies are counted over the deals;
- for each opponent, the probability of holding the ranks that matter now (a 2, a 10, a
  burning card, a joker, anything that can be played on the pile), from the counts of the
  cards the user has not seen, dealt at random (hypergeometric; the sampler's model);
- notes, such as a hint for a player whose hand the user does not know assuming a random
  hand.

A forced move (one legal move, known without seeing hidden cards) is answered at once,
without analysis. At the layout phase :func:`layout_hint` ranks the user's possible face-up
cards by games played out from random completions of the deal, the analysis of ``palace
swap`` (:func:`palace_solver.jobs.swap.rank_layouts_timed`), listed as moves ``up 10 A K``.

Why a child process: the analysis is compiled code that cannot be interrupted from Python;
a child can be killed when it overruns its deadline, when the user presses Ctrl-C, or when
``cancel`` (a :class:`threading.Event`) is set, and the session in the parent never sees a
half-finished computation.

Every position is valued through one call, :func:`palace_solver.analysis.analyze` (the
analysis and each reply of the continuation), so changing the engine behind hints is one
change there.

Imports the model (:mod:`palace_solver.game`), the sampler (for the continuation's deals),
the result helpers, :mod:`palace_solver.analysis` and :mod:`palace_solver.jobs.swap`; it
knows nothing of sessions (the position carries the names and the user's seat as its
perspective).
"""
from __future__ import annotations

import multiprocessing as mp
import random
import signal
import time
from collections import Counter
from math import comb

from ..analysis import analyze, is_exact_mode
from ..game.cards import JOKER, RANKS, rank_name
from ..game.moves import Move
from ..game.position import Position
from ..game.rules import Rules
from ..jobs.swap import rank_layouts_timed
from ..sample.calibration import RANDOM_LAYOUTS_NOTE, many_players_note
from ..sample.sampler import sample_rng, sample_state
from ..solve.results import tied_by_pairs, tied_with_best

__all__ = ["hint", "layout_hint", "format_hint", "holding_odds", "continuation", "run_child",
           "forced_move"]

#: Share of a hint's time given to the analysis; the continuation has the rest.
ANALYSIS_SHARE = 0.7
#: Deals of the expected continuation (fewer when time runs out).
CONTINUATION_DEALS = 24
#: Least seconds, and the table size, of one reply's analysis in the continuation.
CALL_SECONDS = 0.2
CALL_HASH_MB = 16
#: Moves shown in the text of a hint.
SHOWN = 8


def hint(pos: Position, time_budget: float = 2.0, seed: int = 0,
         hard_limit: float | None = None, engine: str | None = None, cancel=None,
         on_start=None, history=None, observations=None) -> dict:
    """Suggestions for the player to move in ``pos`` (its perspective is the user),
    computed in a child process killed if it overruns ``hard_limit`` (default: the budget
    plus half of it plus a second), on Ctrl-C, or when ``cancel`` is set. ``on_start(seconds)``
    is called when the analysis starts (not for a forced move, answered at once).
    ``history``: the game's earlier positions from the same seat; reaching one again is a
    draw (the exact solver and the search count it: :func:`palace_solver.analysis.analyze`).
    ``observations``: the others' earlier decisions (``Session.observations``), from which
    the search infers their hidden hands.

    Returns a dict: ``ok``, ``message``, ``seconds``, ``mover`` (a name), ``notes`` (lines
    to show), ``odds`` (:func:`holding_odds`), and when ``ok``: ``method``, ``forced``,
    ``moves`` best first, each ``move``, ``loss`` (by player name), ``your_loss``,
    ``mover_loss``, ``ci95`` (of the mover's loss, or None), ``tied`` and ``deals`` (how
    many sampled deals allowed the move, when not all did); ``analysis`` (the Analysis
    JSON) and ``continuation`` (:func:`continuation`, names for seats). ``cancelled`` is
    True when the hint was stopped.
    """
    t0 = time.perf_counter()
    names = [p.name for p in pos.players]
    mine = pos.perspective
    mover = pos.to_move
    notes = []
    mp_ = pos.players[mover]
    if mover != mine and not mp_.hand_fully_known:
        notes.append(f"{names[mover]}'s hand is not known to you ({mp_.hand_unknown} of "
                     f"{mp_.hand_count} cards): this hint assumes a random hand, dealt from "
                     f"the cards you have not seen")
    base = {"mover": names[mover], "notes": notes, "odds": holding_odds(pos)}
    forced = forced_move(pos)
    if forced is not None:
        return {"ok": True, "forced": True, "method": "forced",
                "message": f"only one legal move: {forced}",
                "moves": [{"move": str(forced), "loss": None, "your_loss": None,
                           "mover_loss": None, "ci95": None, "tied": False}],
                "continuation": None, "seconds": round(time.perf_counter() - t0, 3), **base}
    limit = hard_limit if hard_limit is not None else time_budget * 1.5 + 1.0
    if on_start is not None:
        on_start(time_budget)
    past = [h.to_json() for h in history or ()]
    seen = [{**o, "position": o["position"].to_json(), "move": str(o["move"])}
            for o in observations or ()]
    res = run_child(_position_job, (pos.to_json(), time_budget, seed, engine, past, seen),
                    limit, cancel)
    res.update(base)
    if not res.get("ok"):
        return res
    a = res["analysis"]
    ci = (a.get("stats") or {}).get("move_ci95") or {}
    partial = (a.get("stats") or {}).get("move_samples") or {}
    moves = []
    for m in a["moves"]:
        lp = m["loss_probability"]
        iv = ci.get(m["move"])
        moves.append({"ci95": iv[a["to_move"]] if iv else None, "move": m["move"],
                      "loss": {names[i]: lp[i] for i in range(len(names))},
                      "your_loss": lp[mine] if mine is not None else None,
                      "mover_loss": lp[a["to_move"]],
                      **({"deals": partial[m["move"]]} if m["move"] in partial else {}),
                      **({"resolved": m["resolved"]} if "resolved" in m else {})})
    pairs = (a.get("stats") or {}).get("vs_best_ci95")
    marks = (tied_by_pairs([m["move"] for m in moves], pairs) if pairs else tied_with_best(
        [m["ci95"] or (m["mover_loss"], m["mover_loss"]) for m in moves]))
    for m, tied in zip(moves, marks):
        if pairs:
            m["vs_best"] = pairs[m["move"]]
        # a figure the search did not resolve is tied with nothing
        m["tied"] = tied and m.get("resolved") is not False and \
            moves[0].get("resolved") is not False
    if any(m.get("resolved") is False for m in moves):
        st = a.get("stats") or {}
        k = sum(m.get("resolved") is True for m in moves)
        notes.append(f"not resolved: the search reached depth {st.get('depth')}; {k} of "
                     f"{len(moves)} moves proven, the figures marked ~ are estimates and "
                     f"the order rests on them")
    cont = res.get("continuation")
    if cont:
        for ply in cont["plies"]:
            for e in ply:
                e["player"] = names[e["player"]]
    cal = (a.get("stats") or {}).get("calibration")
    if a["method"] == "search" and len(names) > 2 and not cal:
        notes.append(many_players_note(len(names)))
    if a["method"] == "search" and len(names) == 2 and cal and cal.get("band") != "end":
        # the map was fitted on the engine's own layouts, and a table's layout is a person's
        notes.append(f"calibrated to the outcomes of the engine's own games (map "
                     f"{cal['map']}); {RANDOM_LAYOUTS_NOTE}")
    if partial:
        notes.append(f"some moves are possible only in some of the {a.get('samples')} "
                     f"sampled deals (the count is shown): their figures are for those deals")
    res.update(mover=names[a["to_move"]], moves=moves, method=a["method"], forced=False,
               tie_rule="paired" if pairs else "overlap")
    return res


def forced_move(pos: Position) -> Move | None:
    """The only legal move of the player to move, when there is one and the hidden cards
    cannot change that (the mover's hand is known, or the mover is at the face-down cards);
    else None."""
    p = pos.players[pos.to_move]
    if p.hand_count == 0 and not p.face_up:
        return Move.flip() if p.face_down else None
    if not p.hand_fully_known:
        return None
    moves = sample_state(pos, 0).legal_moves()
    return moves[0] if len(moves) == 1 else None


def holding_odds(pos: Position) -> list[dict]:
    """For each player other than the perspective (everyone when there is none), the
    probability of holding the ranks that matter now, with the unseen cards dealt at random
    (the sampler's model, so a hypergeometric count):

    ``player``, ``source`` (``hand``, ``face_up``, ``face_down``: where the next play
    comes from), ``unknown`` (unknown hand cards), ``ranks`` (rank name -> probability: 2,
    the burning ranks, a joker under ``jokers``) and ``beats`` (the probability of a card
    that can be played on the pile, None when the pile is empty) with ``beats_ranks``.
    At the face-down stage the probabilities are those of the next card turned over.
    """
    st = sample_state(pos, 0)
    rules = pos.rules
    unseen = pos.unseen_counts()
    total = sum(unseen[r] for r in RANKS)
    special = [2] + [r for r in RANKS if r != 2 and rules.burns(r)] \
        + ([JOKER] if rules.jokers else [])
    beats = [r for r in RANKS if st.playable(r) and rules.deck_counts(pos.n)[r]] \
        if pos.pile else None
    out = []
    for i, p in enumerate(pos.players):
        if i == pos.perspective:
            continue
        if p.hand_count:
            source, k, known = "hand", p.hand_unknown, set(p.hand_known)
        elif p.face_up:
            source, k, known = "face_up", 0, set(p.face_up)
        else:
            source, k, known = "face_down", 0, set()

        def chance(ranks, k=k, known=known, source=source):
            if known & set(ranks):
                return 1.0
            c = sum(unseen[r] for r in ranks)
            if source == "face_down":
                return c / total if total else 0.0
            if not k or not total:
                return 0.0
            return 1.0 - comb(total - c, k) / comb(total, k)

        out.append({"player": p.name, "source": source, "unknown": k,
                    "ranks": {rank_name(r): chance([r]) for r in special},
                    "beats": chance(beats) if beats is not None else None,
                    "beats_ranks": [rank_name(r) for r in beats] if beats is not None
                    else None})
    return out


def continuation(pos: Position, move: Move, *, seed: int = 0, time_budget: float = 0.5,
                 deals: int = CONTINUATION_DEALS, engine: str | None = None,
                 history=None) -> dict:
    """The expected course after ``move``: in deal ``i`` (the deal of sample ``i`` of the
    sampled analysis) ``move`` is played, chance settled at random, and each next player
    replies with the best move of that deal (:func:`~palace_solver.analysis.analyze` of
    the deal seen whole), until the mover is to move again, the game ends or a player is
    out. Stops after ``deals`` deals or ``time_budget`` seconds (at least one deal); deals
    where ``move`` is not possible (a hidden hand without its cards) are skipped.

    Each reply is analysed with the game's history, as the hint itself is: reaching an
    earlier position again is a draw (RULES.md). The deal's own line (the deal before
    ``move``, then each position of the continuation) is history for every later reply.
    ``history`` (the game's earlier positions, seen from the hint's seat) joins it when
    ``pos`` is in exact mode: every hand is known, so the replier sees those positions
    whole too; with hidden hands they are the hint seat's view, not the deal's.

    Returns ``{"deals": k, "plies": [[{"player": seat, "move": text, "count": c,
    "share": c / k}, ...] most frequent first, one list per reply]}``.
    """
    t0 = time.perf_counter()
    mover = pos.to_move
    # Small exact solves take some 0.05 s; below about 0.2 s the solver would hand over to
    # the depth-limited search, slower here (it clears a table each time).
    per_call = max(CALL_SECONDS, time_budget / max(1, deals * (pos.n - 1)))
    plies: list[Counter] = []
    past = list(history or ()) if is_exact_mode(pos) else []
    k = 0
    for i in range(deals):
        if i and time.perf_counter() - t0 >= time_budget:
            break
        state = sample_state(pos, sample_rng(seed, i))
        if move not in state.legal_moves():
            continue        # a hidden hand without the cards for it: another deal
        rng = random.Random(f"palace-live-continuation-{seed}-{i}")
        line = past + [_whole(state, pos)]
        state.apply(move)
        _settle(state, rng)
        ply = 0
        while (ply < pos.n - 1 and not state.is_terminal() and not any(state.out)
               and state.to_move != mover):
            # The deal is seen whole; a draw pile is still hidden from everyone: one
            # sample of its order (the deal is already one sample of the hidden cards).
            here = _whole(state, pos)
            a = analyze(here, time_budget=per_call, samples=1, seed=seed + i,
                        engine=engine, hash_mb=CALL_HASH_MB, history=line)
            line.append(here)
            if len(plies) <= ply:
                plies.append(Counter())
            plies[ply][(state.to_move, str(a.best_move))] += 1
            state.apply(a.best_move)
            _settle(state, rng)
            ply += 1
        k += 1
    return {"deals": k, "plies": [[{"player": p, "move": m, "count": c, "share": c / k}
                                   for (p, m), c in ply.most_common()] for ply in plies]}


def _whole(state, pos: Position) -> Position:
    """A deal's position seen whole, with ``pos``'s seat names: the names are part of what
    a history position must share with a position to be a repetition of it."""
    out = Position.from_state(state)
    for mine, theirs in zip(out.players, pos.players):
        mine.name = theirs.name
    return out


def _settle(state, rng: random.Random) -> None:
    """Play out pending chance events (draws, flips) at random."""
    while state.is_chance():
        x = rng.randrange(sum(state.pool))
        for r, c in enumerate(state.pool):
            if x < c:
                state.apply(r)
                break
            x -= c


def layout_hint(rules: Rules, n: int, me: int, deal: list[int], others_up: list[list[int]],
                time_budget: float = 2.0, seed: int = 0, hard_limit: float | None = None,
                name: str = "you", cancel=None, on_start=None) -> dict:
    """The user's possible face-up cards at the deal, best first: each layout (a move
    ``up 10 A K``) played in the same random completions of the deal (the others' face-up
    cards already laid are kept, ``others_up`` in seat order without the user's) by the
    ``greedy`` bot, as ``palace swap`` does, for ``time_budget`` seconds in a child
    process. Returns a dict like :func:`hint`'s: ``method`` ``"swap"``, ``games`` (per
    layout), and ``moves`` with ``mover_loss`` (the mean loss share), ``ci95``, ``tied``.
    """
    t0 = time.perf_counter()
    limit = hard_limit if hard_limit is not None else time_budget * 1.5 + 1.0
    if on_start is not None:
        on_start(time_budget)
    res = run_child(_layout_job, (rules.to_json(), n, me, list(deal),
                                  [list(u) for u in others_up], time_budget, seed),
                    limit, cancel)
    res.update(mover=name, notes=[], odds=[], continuation=None, forced=False)
    if not res.get("ok"):
        return res
    rows = res.pop("layouts")
    moves = [{"move": m, "mover_loss": loss, "your_loss": loss, "loss": {name: loss},
              "ci95": [lo, hi], "games": g} for m, loss, lo, hi, g in rows]
    for m, tied in zip(moves, tied_with_best([m["ci95"] for m in moves])):
        m["tied"] = tied
    games = rows[0][4] if rows else 0
    res["notes"].append(f"{games} games per layout from random completions of the deal, "
                        f"everyone playing the greedy bot (as 'palace swap')")
    res.update(moves=moves, method="swap", games=games,
               seconds=round(time.perf_counter() - t0, 3))
    return res


def format_hint(h: dict | None) -> str:
    """A hint (:func:`hint`, :func:`layout_hint`) as lines of text."""
    if not h:
        return ""
    if not h.get("ok"):
        return h.get("message", "no hint")
    if h.get("forced"):
        lines = [f"{h['message']} (for {h['mover']}; nothing to think about)"]
        lines += _odds_lines(h.get("odds"))
        return "\n".join(lines + [f"note: {x}" for x in h.get("notes", [])])
    you = h["mover"]
    what = "layouts" if h["method"] == "swap" else "suggestions"
    lines = [f"{what} for {you} ({h['method']}, {h.get('seconds', 0):.2f} s), "
             f"loss probability of {you}:"]
    w = max([10] + [len(m["move"]) for m in h["moves"][:SHOWN]])
    for i, m in enumerate(h["moves"][:SHOWN]):
        ci = m.get("ci95")
        pm = f"  ({100 * ci[0]:.1f} to {100 * ci[1]:.1f}%)" if ci else ""
        extra = "  tied" if m.get("tied") else ""
        if "deals" in m:
            extra += f"  [possible in {m['deals']} deals]"
        est = "~" if m.get("resolved") is False else " "
        lines.append(f"  {i + 1}. {m['move']:<{w}} {est}{100 * m['mover_loss']:5.1f}%{pm}"
                     f"{extra}")
    if len(h["moves"]) > SHOWN:
        lines.append(f"  ... {len(h['moves']) - SHOWN} more")
    ties = sum(1 for m in h["moves"] if m.get("tied"))
    if ties:
        why = ("its loss minus the best move's, over the same deals, has a 95% interval "
               "reaching 0" if h.get("tie_rule") == "paired"
               else "the 95% interval overlaps the best move's")
        lines.append(f"  tied: {why} ({ties} move{'s' if ties > 1 else ''})")
    cont = h.get("continuation")
    if cont and cont.get("plies") and h["moves"]:
        k = cont["deals"]
        lines.append(f"expected after {h['moves'][0]['move']} (over {k} sampled deals):")
        for j, ply in enumerate(cont["plies"]):
            shown = ", ".join(f"{e['player']} {e['move']} {100 * e['count'] / k:.0f}%"
                              for e in ply[:3])
            more = f", ... {len(ply) - 3} more" if len(ply) > 3 else ""
            lines.append(f"  {'then' if j else 'reply'}: {shown}{more}")
    lines += _odds_lines(h.get("odds"))
    lines += [f"note: {x}" for x in h.get("notes", [])]
    return "\n".join(lines)


def _odds_lines(odds) -> list[str]:
    if not odds:
        return []
    lines = ["the others hold (unseen cards dealt at random):"]
    for o in odds:
        parts = [f"a {r} {100 * p:.0f}%" for r, p in o["ranks"].items()]
        if o["beats"] is not None:
            parts.append(f"a card that beats the pile {100 * o['beats']:.0f}%")
        where = {"hand": f"hand, {o['unknown']} unknown",
                 "face_up": "face-up cards", "face_down": "next face-down card"}[o["source"]]
        lines.append(f"  {o['player']} ({where}): " + ", ".join(parts))
    return lines


# -- the analysis in a child process -----------------------------------------------------------

def _analyze(pos: Position, time_budget, seed, engine, history=None, observations=None):
    try:
        return analyze(pos, time_budget=time_budget, seed=seed, engine=engine,
                       history=history, observations=observations)
    except ImportError as e:
        missing = getattr(e, "name", None) or str(e)
        if is_exact_mode(pos) and engine is None and missing.endswith((".search", "search")):
            # No compiled solver yet: the reference solver (the parent's deadline holds).
            return analyze(pos, time_budget=time_budget, seed=seed, engine="python")
        kind = "exact" if is_exact_mode(pos) else "hidden-card"
        raise _Unavailable(f"hint unavailable for this {kind} position: the analysis "
                           f"module {missing} is not installed") from None


class _Unavailable(Exception):
    pass


def _position_job(pos_json, time_budget, seed, engine, history=(), observations=()) -> dict:
    pos = Position.from_json(pos_json)
    past = [Position.from_json(h) for h in history]
    t0 = time.perf_counter()
    a = _analyze(pos, time_budget * ANALYSIS_SHARE, seed, engine, past, observations)
    out = {"ok": True, "message": "", "analysis": a.to_json()}
    if a.moves:
        rest = max(0.05, time_budget - (time.perf_counter() - t0))
        out["continuation"] = continuation(pos, a.best_move, seed=seed, time_budget=rest,
                                           engine=engine, history=past)
    return out


def _layout_job(rules_json, n, me, deal, others_up, time_budget, seed) -> dict:
    vals = rank_layouts_timed(Rules.from_json(rules_json), n, deal, others_up, seat=me,
                              time_budget=time_budget, seed=seed, keep_up=True)
    return {"ok": True, "message": "",
            "layouts": [(str(v.move), v.loss, v.ci95[0], v.ci95[1], v.games) for v in vals]}


def _child_main(conn, target, args):
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        conn.send(target(*args))
    except _Unavailable as e:
        conn.send({"ok": False, "message": str(e)})
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        conn.send({"ok": False, "message": f"hint failed: {type(e).__name__}: {e}"})
    finally:
        conn.close()


def run_child(target, args, limit: float, cancel=None) -> dict:
    """``target(*args)`` (a dict with ``ok`` and ``message``) in a forked child, killed
    after ``limit`` seconds, on Ctrl-C (KeyboardInterrupt in this process) or when
    ``cancel`` is set; then the answer says why, with ``cancelled`` True for the last two.
    ``seconds`` is added."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(child, target, args), daemon=True)
    t0 = time.perf_counter()
    res = None
    try:
        # Ctrl-C during the fork would be lost (raised in an at-fork handler, where Python
        # ignores exceptions): held back until the child runs, then raised here.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            proc.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        child.close()
        while res is None:
            left = t0 + limit - time.perf_counter()
            if left <= 0:
                res = {"ok": False, "message": f"no answer within {limit:.1f} s "
                       f"(try a larger --time)"}
            elif parent.poll(min(left, 0.05)):
                try:
                    res = parent.recv()
                except EOFError:
                    res = {"ok": False, "message": "hint failed: the analysis process died"}
            elif cancel is not None and cancel.is_set():
                res = {"ok": False, "cancelled": True, "message": "hint cancelled"}
    except KeyboardInterrupt:
        res = {"ok": False, "cancelled": True, "message": "hint cancelled (Ctrl-C)"}
    finally:
        if proc.pid is not None:
            if proc.is_alive():
                proc.kill()
            proc.join(1.0)
        parent.close()
    res["seconds"] = round(time.perf_counter() - t0, 3)
    return res

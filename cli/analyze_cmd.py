"""``palace analyze``: best moves and loss probabilities of a position."""
from __future__ import annotations

import json
import sys

import click

from palace_solver.game.position import (
    InvalidPositionError,
    load_position,
    parse_position,
    to_text,
)
from palace_solver.sample.calibration import RANDOM_LAYOUTS_NOTE, many_players_note
from palace_solver.solve.compiled import GraphTooLargeError
from palace_solver.solve.exact import MAX_SWEEPS
from palace_solver.solve.results import NotExactError, ties

METHODS = ("auto", "exact", "search", "sampled", "ismcts")


from palace_solver.cli.common import duration, fail


def _names(pos) -> list[str]:
    return [p.name or f"p{i}" for i, p in enumerate(pos.players)]


def _table(pos, a) -> str:
    names = _names(pos)
    w = max(8, *(len(str(m.move)) + 2 for m in a.moves)) if a.moves else 8
    head = f"  {'move':<{w}}  " + "  ".join(f"{'loss ' + n:>16}" for n in names)
    rows = [head]
    cis = a.stats.get("move_ci95") or {}
    tied = ties(a)
    st = a.stats
    partial = any(m.resolved is False for m in a.moves)
    for i, m in enumerate(a.moves):
        cells = []
        for j, x in enumerate(m.loss):
            cell = ("~" if m.resolved is False else "") + f"{100 * float(x):.2f}%"
            ci = cis.get(str(m.move))
            if ci:
                lo, hi = ci[j]
                cell += f" ±{100 * (float(hi) - float(lo)) / 2:.1f}"
            cells.append(f"{cell:>16}")
        mark = "*" if i == 0 else " "
        status = ("" if not partial else "  proven" if m.resolved else
                  f"  estimate (depth {st.get('depth')})")
        only = st.get("move_samples", {}).get(str(m.move))
        rows.append(f"{mark} {str(m.move):<{w}}  " + "  ".join(cells)
                    + ("  tied" if tied[i] else "") + status
                    + (f"  in {only} of {a.samples} deals" if only is not None else ""))
    info = [f"method {a.method}"]
    if "depth" in st:
        info.append(f"depth {st['depth']}")
    if "nodes" in st:
        info.append(f"{st['nodes']:,} nodes")
    if st.get("history"):
        info.append(f"{st['history']} earlier position{'s' if st['history'] != 1 else ''} "
                    f"of the game")
    if (st.get("fixed_point") or {}).get("cycling"):
        info.append("approximate (the players' best answers cycle: note)")
    if a.samples:
        info.append(f"{a.samples} samples")
    if "seconds" in st:
        info.append(f"{st['seconds']:.3f} s")
    mover = a.to_move
    pos_loss = "  ".join(f"{names[i]} {'~' if partial else ''}{100 * float(x):.2f}%"
                         for i, x in enumerate(a.loss))
    notes = []
    if partial:
        k = st.get("resolved_moves", sum(m.resolved is True for m in a.moves))
        line = (f"note: not resolved: the search reached depth {st.get('depth')} without "
                f"seeing every line to its end; {k} of {len(a.moves)} moves proven (exact "
                f"figures), the figures marked ~ are estimates of "
                f"{st.get('horizon', 'the horizon evaluation')} at its horizon, and "
                f"the order of the moves rests on them")
        cal = st.get("calibration")
        if cal and cal.get("band") == "fallback":
            line += (f"; those estimates are then calibrated to the outcomes of the engine's "
                     f"own games (map {cal['map']}, band fallback)")
        if st.get("loss_at_most") is not None:
            line += (f"; {names[mover]}'s loss is at most "
                     f"{100 * st['loss_at_most']:.2f}% (the best proven move)")
        notes.append(line + ". More --time (or no limit) resolves more.")
    if a.method == "search":
        cfg = st.get("config") or {}
        if cfg.get("rollouts"):
            how = (f"each move followed by {cfg['rollouts']} greedy playout(s): the loss if "
                   f"every player then plays the greedy bot")
        else:
            value = (f"the learned value (network {cfg.get('weights') or 'default'})"
                     if cfg.get("eval") != "cardcount" else "the card count")
            how = (f"a search to depth {st.get('depth')} with {value} where it stops")
        cal = st.get("calibration")
        mapped = (f", then calibrated to the outcomes of the engine's own games (map "
                  f"{cal['map']}, draw-pile band {cal['band']}; the best move's figure "
                  f"before it: {100 * cal['raw_mover_loss'][str(a.moves[0].move)]:.2f}%"
                  + ("; the others' figures scaled to add up to 1 with it"
                     if len(a.loss) > 2 else "") + ")"
                  + (f"; {RANDOM_LAYOUTS_NOTE}"
                     if len(a.loss) == 2 and cal["band"] != "end" else "")
                  if cal else "")
        if not cal and len(a.loss) > 2:
            # The map is fitted on two-player games only; a newcomer reading 0.2% ±0.1 must
            # not take it for a measured probability.
            mapped = f", {many_players_note(len(a.loss))}"
        notes.append(
            f"note: estimates, not proofs: each figure is the mean over {a.samples} deals of "
            f"the cards this seat cannot see of {how}{mapped}; ± is the 95% interval of that "
            f"mean over the deals{' (mapped with it)' if cal else ''}, not the error of the "
            f"search or of its values.")
    if a.method == "sampled" and st.get("search_samples"):
        notes.append(
            f"note: estimates of the older sampled method: {st['search_samples']} of the "
            f"{a.samples} deals searched one ply and then played out by the greedy bot, so "
            f"their figures are the loss if every player then plays greedy, not RULES.md's "
            f"(the default method, the engine's search, is the one to trust); ± is the 95% "
            f"interval over the deals.")
    elif a.method == "ismcts":
        notes.append(
            f"note: estimates of SO-ISMCTS ({st.get('iterations', 0):,} iterations, "
            f"{st.get('policy', 'greedy')} playouts): the loss if every player plays out as "
            f"its playouts do, not RULES.md's figure; ± is approximate (over the playouts "
            f"through each root move).")
    fp = st.get("fixed_point")
    if fp and fp.get("cycling"):
        period = f", every {fp['max_period']} rounds" if fp.get("max_period") else ""
        notes.append(
            f"note: with three or more players, in part of this game ({fp['cycling']} of "
            f"{fp['layers']} stages) the players' best answers chase each other in a circle: "
            f"each one's best move changes another's, and round it goes{period}. There is no "
            f"one stable value there; the figures are where the calculation stopped after "
            f"{MAX_SWEEPS:,} rounds. Take them as approximate: moves whose figures are close "
            f"may be in either order.")
    legend = []
    if st.get("move_samples"):
        legend.append(f"in k of {a.samples} deals: the mover's hand is hidden from this seat, "
                      f"so the move is legal only in the deals that give it the cards; its "
                      f"figures are over those deals alone")
    if any(tied):
        legend.append("tied: over the same deals, the move's loss for the mover minus the best "
                      "move's (*) has a 95% interval reaching 0" if st.get("vs_best_ci95") else
                      "tied: the move's 95% interval of the mover's loss overlaps the best "
                      "move's (*)" if cis else
                      "tied: the same figure as the best move's (*)")
    legend = [""] + legend if legend else []
    return "\n".join([f"position: {to_text(pos)}",
                      f"to move: {names[a.to_move]}   loss now: {pos_loss}",
                      " · ".join(info), "", *rows, *legend] + ([""] + notes if notes else []))


@click.command()
@click.argument("position", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the analysis JSON of POSITION.md.")
@click.option("--time", "time_budget", type=click.FloatRange(min=0.01), default=None,
              metavar="SECONDS",
              help="Time budget. Exact mode: past half of it the whole-graph solve gives way "
                   "to iterative deepening (answer at the depth reached). Sampled: as many "
                   "samples as fit. Default: no limit (exact answers).")
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="Search this many plies with the depth-limited search instead of solving "
                   "the whole graph (values are estimates unless every line ends). With "
                   "hidden cards: each deal's search goes no deeper.")
@click.option("--hash", "hash_mb", type=click.IntRange(min=1), default=None,
              metavar="MB", help="Transposition table size of the depth-limited search "
                                 "(default: sized to --time, 4-256 MB; 256 MB without it).")
@click.option("--threads", type=click.IntRange(min=1), default=None, metavar="N",
              help="Threads of the exact graph solver (default: every core). The answer is "
                   "the same for any N.")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True,
              help="auto: exact when every hand is known and the draw pile is empty, "
                   "else search; search: the compiled search with the draw pile (deals of "
                   "the hidden hands, refills and flips as chance nodes, the engine agent's "
                   "search); sampled: one ply then greedy playouts in Python; ismcts: "
                   "information-set MCTS.")
@click.option("--samples", type=click.IntRange(min=1), default=None,
              help="Deals of the hidden hands (search, sampled) or iterations (ismcts).")
@click.option("--nodes", type=click.IntRange(min=1), default=None,
              help="search: node budget of the whole analysis (search nodes plus playout "
                   "decisions; the same answer on any machine). Default: the hint budget.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the sampled methods (same seed, same answer).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes for the sampled methods; with --batch, processes analyzing "
                   "positions side by side (each position then uses one).")
@click.option("--engine", type=click.Choice(["cython", "python"]), default=None,
              help="Exact solver engine (default: the compiled one).")
@click.option("--line", "show_line", is_flag=True,
              help="Print the best line with its chance branches as a tree (exact mode "
                   "only: every hand known, the draw pile empty; not with --depth).")
@click.option("--line-plies", type=click.IntRange(min=1), default=12, show_default=True,
              help="Length of the --line tree.")
@click.option("--tree", "tree_file", type=click.Path(dir_okay=False, writable=True),
              default=None,
              help="Export the solved graph (first --tree-nodes positions) to FILE: GraphML "
                   "(.graphml) or Graphviz DOT (.dot). Exact mode only, as --line.")
@click.option("--tree-nodes", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Positions exported by --tree.")
@click.option("--history", "history_file", type=click.Path(dir_okay=False),
              default=None, metavar="FILE",
              help="The game's earlier positions, one a line (JSON or the text form), as "
                   "the same player saw them: a move back to one is a draw, as in the game "
                   "(the exact solver and the search; without it the values are those of "
                   "the position itself).")
@click.option("--progress/--no-progress", default=None,
              help="Progress on standard error (default: when it is a terminal; a long exact "
              "solve's cost estimate is said anyway unless --no-progress).")
@click.option("--batch", "batch_file", type=click.Path(dir_okay=False, allow_dash=True),
              default=None, metavar="FILE",
              help="Analyze every position of FILE ('-': standard input), one a line (JSON "
                   "or text form; blank and '#' lines skipped), printing one JSON result a "
                   "line; a bad line gives {\"line\": N, \"error\": ...} and the batch "
                   "goes on.")
@click.option("--output", type=click.Path(dir_okay=False), default=None,
              help="With --batch: write the results to this resumable JSONL file instead of "
                   "standard output (a header line, then {\"id\": LINE, \"result\": ...} "
                   "per position); the same command resumes a killed batch.")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="With --batch: analyze on a Ray cluster ('auto', HOST:PORT, "
                   "ray://HOST:PORT, or 'local'). Needs pip install '.[ray]'.")
def analyze(position, as_json, time_budget, depth, hash_mb, threads, method, samples, nodes,
            seed, jobs, engine, show_line, line_plies, tree_file, tree_nodes, history_file,
            progress, batch_file, output, ray_address):
    """Analyze POSITION: every legal move of the player to move, best first, with each
    player's loss probability.

    POSITION is a JSON file (POSITION.md), '-' for standard input, a JSON string, or the
    one-line text form, e.g.

    \b
      palace analyze examples/endgame.json
      palace analyze "standard | me: 7 7 / A / 1 ; bob: K / 2 / 1 | pile 5 | unseen 3 9 |
        burned rest | to_move 0"
      palace analyze pos.json --json --time 10
      palace analyze pos.json --line --tree graph.graphml
      palace analyze pos.json --history earlier.jsonl

    With --batch FILE, POSITION is left out and every line of FILE is analyzed with the
    same options (in local processes with --jobs, or on Ray with --ray); the output has one
    JSON result a line, in input order, the same whatever the workers (without --time).

    \b
      palace analyze --batch archive.jsonl --samples 200 --jobs 2 > results.jsonl
      palace analyze --batch archive.jsonl --depth 6 --ray auto --output results.jsonl

    Exit status 2 on invalid input, with a one-line message on standard error.
    """
    from palace_solver.analysis import analyze as run

    if batch_file is not None:
        if position is not None:
            fail("give either POSITION or --batch FILE, not both")
        if show_line or tree_file or history_file:
            fail("--line, --tree and --history are for one position, not --batch")
        _run_batch(batch_file, output, ray_address, jobs, progress,
                   dict(time_budget=time_budget, depth=depth, hash_mb=hash_mb, method=method,
                        samples=samples, seed=seed, engine=engine, nodes=nodes))
        return
    if position is None:
        fail("missing POSITION (or --batch FILE); see palace analyze --help")
    if output is not None or ray_address is not None:
        fail("--output and --ray are for --batch")

    try:
        pos = load_position(position)
    except InvalidPositionError as e:
        fail(str(e))
    if show_line or tree_file:
        # what cannot give a graph is refused before the analysis (exit 2, nothing printed)
        from palace_solver.analysis import is_exact_mode
        why = ("this position has hidden hand cards or a draw pile, which the search "
               "analyzes without a graph" if not is_exact_mode(pos) else
               f"--method {method} analyzes without a graph"
               if method in ("search", "sampled", "ismcts") else None)
        if why:
            fail("--line/--tree need the whole solved graph (an exact-mode position solved "
                 "whole): " + why)
        if depth is not None:
            fail("--line/--tree need the whole solved graph: --depth searches without "
                 "building it")
    history = _history(history_file) if history_file else None
    # The cost estimate is one line, said even when stderr is not a terminal (a script or a
    # pipe waits as long as a person); only --no-progress silences it.
    if progress is not False and time_budget is None and depth is None:
        _warn_long(pos, method, engine, threads)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = _Progress() if progress else None
    try:
        a = run(pos, time_budget=time_budget, depth=depth, hash_mb=hash_mb, method=method,
                samples=samples, seed=seed, jobs=jobs, engine=engine, progress=bar,
                threads=threads, nodes=nodes, history=history)
    except (NotExactError, InvalidPositionError) as e:
        fail(str(e))
    except GraphTooLargeError as e:
        fail(f"not solved exactly: {e} (try --time or --depth)")
    except MemoryError as e:
        fail(f"out of memory: {e} (try --time or --depth)")
    finally:
        if bar:
            bar.close()
    line = None
    if show_line or tree_file:
        if a.graph is None:         # (what cannot give one was refused above)
            if time_budget is not None:
                why = "the time budget ran out first"
            else:
                why = "the graph was too large to build"
            click.echo(f"palace: --line/--tree need the whole solved graph (an exact-mode "
                       f"position solved whole): {why}", err=True)
        else:
            from palace_solver.solve.line import (
                format_line,
                graph_to_networkx,
                line_from_graph,
                line_to_json,
                write_graph,
            )
            if show_line:
                line = line_from_graph(a.graph, max_plies=line_plies, names=_names(pos))
            if tree_file:
                g = graph_to_networkx(a.graph, max_nodes=tree_nodes, describe=to_text)
                try:
                    write_graph(g, tree_file)
                except OSError as e:
                    fail(f"cannot write {tree_file}: {e}")
                a.stats["tree"] = {"file": tree_file, "nodes": g.number_of_nodes(),
                                   "edges": g.number_of_edges()}
    if as_json:
        out = a.to_json()
        if line is not None:
            out["line"] = line_to_json(line)
        click.echo(json.dumps(out))
        return
    click.echo(_table(pos, a))
    if line is not None:
        click.echo("\nbest line:")
        click.echo(format_line(line, _names(pos)))
    if tree_file and "tree" in a.stats:
        t = a.stats["tree"]
        click.echo(f"\ngraph written to {t['file']} ({t['nodes']} nodes, {t['edges']} edges)")


def _warn_long(pos, method, engine, threads) -> None:
    """Before a whole-graph solve without a time budget that may take long: the estimate."""
    from palace_solver.analysis import is_exact_mode
    from palace_solver.solve.compiled import estimate_seconds, refused_outright
    from palace_solver.solve.engine import cython_available

    if method not in ("auto", "exact") or not is_exact_mode(pos) or engine == "python" \
            or not cython_available():
        return
    nodes, secs = estimate_seconds(pos.to_state(), threads)
    if secs >= LONG_SECONDS and not refused_outright(nodes):   # (that says so at once)
        click.echo(f"palace: about {nodes:,.0f} positions to solve exactly: roughly "
                   f"{duration(secs)} here (the estimate can be 3x off either way); "
                   f"--time SECONDS answers within that time instead", err=True)


#: A run predicted to take longer than this says so before it starts.
LONG_SECONDS = 10.0


def _history(path: str) -> list:
    """The positions of a --history file, one a line (blank lines skipped)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {path}: {getattr(e, 'strerror', None) or e}")
    out = []
    for i, line in enumerate(lines, 1):
        if line.strip():
            try:
                out.append(parse_position(line))
            except InvalidPositionError as e:
                fail(f"{path}, line {i}: {e}")
    return out


def _run_batch(batch_file, output, ray_address, jobs, progress, options) -> None:
    """``--batch``: every line of ``batch_file`` through the batch layer."""
    from palace_solver.jobs.batch import BatchError, run_batch
    from palace_solver.jobs.batch_analysis import analysis_tasks, analyze_task

    try:
        f = click.open_file(batch_file, encoding="utf-8")
        with f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {batch_file}: {getattr(e, 'strerror', None) or e}")
    tasks = analysis_tasks(lines, **options)
    if progress is None:
        progress = "auto"
    try:
        results = run_batch(analyze_task, tasks, jobs=jobs, ray=ray_address, output=output,
                            progress=progress, label="positions")
    except BatchError as e:
        fail(str(e))
    bad = sum("error" in r for r in results)
    if output is None:
        for r in results:
            click.echo(json.dumps(r))
    else:
        click.echo(f"{len(results)} positions ({bad} with errors) in {output}", err=True)


class _Progress:
    """A one-line counter on standard error (nodes built, depth reached, samples done)."""

    def __init__(self):
        self.shown = False

    def __call__(self, done, total=None):
        msg = f"\r  searching... {done:,}" + (f"/{total:,}" if total else "")
        click.echo(msg, err=True, nl=False)
        self.shown = True

    def close(self):
        if self.shown:
            click.echo("\r" + " " * 40 + "\r", err=True, nl=False)


COMMANDS = [analyze]

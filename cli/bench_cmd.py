"""``palace bench``: the search benchmark suite."""
from __future__ import annotations

import json

import click


def _ints(value):
    try:
        out = tuple(int(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r}: comma-separated thread counts, e.g. 1,2") from None
    if not out or min(out) < 1:
        raise click.BadParameter(f"{value!r}: thread counts of at least 1")
    return out


def _floats(ctx, param, value):
    try:
        out = tuple(float(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r}: comma-separated seconds, e.g. 1,10") from None
    if not out or min(out) <= 0:
        raise click.BadParameter(f"{value!r}: positive seconds")
    return out


def _summary_lines(summ: dict) -> list[str]:
    """The summary in words (the JSON has it whole)."""
    out = []
    for k, v in summ.items():
        if k.startswith("largest_exact_within_"):
            lim = k[len("largest_exact_within_"):]
            out.append(f"largest solved exactly within {lim}: " + (
                "none" if v is None else
                f"{v['name']} ({v['nodes']:,} positions in {v['seconds']:.3f} s)"))
    cmp = summ.get("compare")
    if cmp:
        tot = cmp["totals"]
        out.append(f"graph solvers on the {cmp['positions_solved_by_all']} positions all "
                   f"of them solved:")
        for name, t in tot.items():
            rate = t.get("positions_per_second")
            out.append(f"  {name:<10} {t['seconds']:>9.3f} s  "
                       f"{'-' if rate is None else format(rate, ','):>12} positions/s")
        for key, label in (("speedup", "speed-up over before"),
                           ("cpu_speedup", "CPU speed-up over before")):
            if cmp.get(key):
                out.append(f"  {label}: " + ", ".join(f"{k} {v:g}x"
                                                      for k, v in cmp[key].items()))
        m = cmp.get("merged")
        if m:
            out.append(f"  merged positions: {m['positions']:,} positions in "
                       f"{m['merged_nodes']:,} nodes ({m['node_ratio']:g} a node)")
    if "plain_ratio_min" in summ:
        out.append(f"plain expectiminimax / our search at equal depth: "
                   f"{summ['plain_ratio_min']:g}x at least, {summ['plain_ratio_median']:g}x "
                   f"median")
    return out


@click.command()
@click.option("--suite", type=click.Path(exists=True, dir_okay=False), default=None,
              help="JSON-lines file of {name, position} (default: the bundled suite of "
                   "two-player late-game positions, growing up to 3+3+3 cards each).")
@click.option("--budgets", default="1,10", show_default=True, callback=_floats,
              help="Time budgets (seconds) for the iterative-deepening depth column.")
@click.option("--exact-budget", type=click.FloatRange(min=0.1), default=60.0,
              show_default=True, help="Seconds allowed for the whole-graph exact solve.")
@click.option("--plain-seconds", type=click.FloatRange(min=0.0), default=20.0,
              show_default=True,
              help="Budget of the plain expectiminimax comparison (0: skip it).")
@click.option("--hash", "hash_mb", type=click.IntRange(min=1), default=256, show_default=True,
              metavar="MB", help="Transposition table size.")
@click.option("--threads", "thread_counts", default="1,2", show_default=True,
              callback=lambda c, p, v: _ints(v),
              help="Thread counts of the whole-graph solver, each timed on every position.")
@click.option("--before/--no-before", default=True, show_default=True,
              help="Also time the Python reference solver (exact fractions, at most "
                   "300,000 positions), side by side.")
@click.option("--flat/--no-flat", default=True, show_default=True,
              help="Also time the graph solver without merged positions (a node for each "
                   "position; the most threads), side by side.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first N positions of the suite.")
@click.option("--quick", is_flag=True,
              help="Small budgets (0.2 s, exact 2 s, plain 0.2 s) for a smoke run.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document with every row.")
def bench(suite, budgets, exact_budget, plain_seconds, hash_mb, thread_counts, before, flat,
          limit, quick, as_json):
    """Benchmark the search on a suite of positions: time to the exact value (the graph
    solver with each thread count and, side by side, without merged positions and the
    Python reference solver: positions a second of build and solve, bytes a position), depth reached within
    each budget, nodes, nodes/s, table hit rate, memory, and the ratio against a plain
    expectiminimax (no table, no pruning) at equal depth, all in one run."""
    from palace_solver.solve.bench import load_suite, run_suite, summary

    if quick:
        budgets, exact_budget, plain_seconds = (0.2,), 2.0, 0.2
    rows_in = load_suite(suite)[:limit]

    def progress(i, total, row):
        click.echo(f"[{i}/{total}] {row['name']}", err=True)

    rows = run_suite(rows_in, budgets, exact_budget, plain_seconds, hash_mb, progress,
                     thread_counts, before, flat)
    # "largest solved within N s" for the limits this run could see (none past its own)
    summ = summary(rows, tuple(sorted({min(10.0, exact_budget), exact_budget})))
    if as_json:
        click.echo(json.dumps({"rows": rows, "summary": summ}))
        return
    head = (f"{'position':<14} {'exact s':>9} {'nodes':>11} {'MB':>7} "
            + " ".join(f"{'d@' + format(b, 'g') + 's':>7}" for b in budgets)
            + f" {'knodes/s':>9} {'TT hit':>7} {'plain d':>7} {'ratio':>8} {'star1':>8}")
    click.echo(head)
    for r in rows:
        ex = r["exact"]
        last = r["deepening"][str(budgets[-1])]
        cells = " ".join(f"{('=' if r['deepening'][str(b)]['exact'] else '') + str(r['deepening'][str(b)]['depth']):>7}"
                         for b in budgets)
        pl = r.get("plain", {})
        click.echo(f"{r['name']:<14} {(format(ex['seconds'], '.3f') if ex['solved'] else '>' + format(exact_budget, 'g')):>9} "
                   f"{ex['nodes']:>11,} {ex['memory_mb']:>7.1f} {cells} "
                   f"{(last['nodes_per_second'] or 0) / 1000:>9.0f} {last['tt_hit_rate']:>7.2f} "
                   f"{pl.get('depth', '-'):>7} {str(pl.get('ratio', '-')):>8} "
                   f"{str(pl.get('star1_ratio', '-')):>8}")
    click.echo("")
    cols = [k for k in rows[0].get("exact_compare", {}) if k != "same_graph_bytes"] if rows else []
    if cols:
        click.echo(f"{'graph solver':<14} " + " ".join(
            f"{c + ' s':>12} {'kpos/s':>8} {'B/pos':>6}" for c in cols))
        for r in rows:
            cells = []
            for c in cols:
                x = r["exact_compare"][c]
                t = format(x["seconds"], ".3f") if x["solved"] else (
                    "skipped" if x.get("skipped") else ">" + format(exact_budget, "g"))
                bpp = x.get("build_bytes_per_position")
                cells.append(f"{t:>12} {(x.get('nodes_per_second') or 0) / 1000:>8.0f} "
                             f"{'-' if bpp is None else format(bpp, '.0f'):>6}")
            click.echo(f"{r['name']:<14} " + " ".join(cells))
        click.echo("(kpos/s: graph nodes built and solved a second; B/pos: bytes a node at "
                   "the build's peak; after_N merges positions into fewer nodes than flat_N; "
                   "before: the Python reference solver)")
        click.echo("")
    for line in _summary_lines(summ):
        click.echo(line)
    click.echo("(d@Ns: depth reached by iterative deepening in N seconds, '=' when exact; "
               "ratio: plain expectiminimax time / our search time at the plain depth; star1: the "
               "same with Star1 only, no Star2 probing)")


COMMANDS = [bench]

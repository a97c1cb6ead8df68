"""The picture of a review: each seat's loss probability over the game, the marks on the
curve, and where the draw pile ran out.

Why SVG by hand. The graph is a few polylines, circles and labels; written as SVG text it
needs no dependency, reads the same in a browser, and the web page shows this very
drawing (each decision's column carries ``data-ply``, so a tap on the graph picks that
decision). A PNG needs a rasterizer: :func:`write_plot` draws it with matplotlib when that
is installed (the ``plot`` extra, ``pip install 'palace-solver[plot]'``), and says so when
it is not.
"""
from __future__ import annotations

from html import escape

__all__ = ["COLORS", "MARK_COLORS", "series", "svg", "write_plot", "PlotError"]

COLORS = ("#1f6fb2", "#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0f766e", "#a16207",
          "#4b5563")
MARK_COLORS = {"inaccuracy": "#eab308", "mistake": "#f97316", "blunder": "#dc2626"}


class PlotError(ValueError):
    """A picture that cannot be written (unknown suffix, matplotlib missing for PNG)."""


def series(rep: dict) -> dict:
    """``{"plies": [...], "seats": {name: [loss or None per ply]}, "marks": [(ply, seat,
    mark, loss)], "empty": ply or None}`` from a report: at each judged decision, every
    seat's loss probability after the move played, as the mover saw it."""
    rows = [d for d in rep["decisions"] if d.get("loss")]
    plies = [d["ply"] for d in rows]
    seats = {nm: [d["loss"].get(nm) for d in rows] for nm in rep["seats"]}
    marks = [(d["ply"], d["player"], d["mark"], d["loss"][d["player"]]) for d in rows
             if d["mark"]]
    return {"plies": plies, "seats": seats, "marks": marks,
            "empty": rep.get("draw_pile_empty_at")}


def svg(rep: dict, width: int = 720, height: int = 300) -> str:
    """The graph as an SVG document (module doc)."""
    data = series(rep)
    plies = data["plies"]
    left, right, top, bottom = 44, 12, 16, 40
    w, h = width - left - right, height - top - bottom
    last = max([1] + plies + ([data["empty"]] if data["empty"] else []))
    first = min(plies) if plies else 1
    span = max(1, last - first)

    def x(ply):
        return left + w * (ply - first) / span

    def y(v):
        return top + h * (1 - v)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" class="review-plot" role="img" '
           f'aria-label="loss probability over the game">',
           '<style>text{font:11px sans-serif;fill:#374151}.grid{stroke:#e5e7eb}'
           '.hit{fill:transparent;cursor:pointer}.hit:hover{fill:rgba(0,0,0,.05)}'
           '.sel{fill:rgba(31,111,178,.12)}</style>',
           f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fff" '
           f'stroke="#d1d5db"/>']
    for v in (0, 0.25, 0.5, 0.75, 1):
        out.append(f'<line class="grid" x1="{left}" x2="{left + w}" y1="{y(v):.1f}" '
                   f'y2="{y(v):.1f}"/><text x="{left - 6}" y="{y(v) + 4:.1f}" '
                   f'text-anchor="end">{int(v * 100)}%</text>')
    step = max(1, round(span / 8))
    for t in range(first, last + 1, step):
        out.append(f'<text x="{x(t):.1f}" y="{top + h + 14}" text-anchor="middle">{t}</text>')
    out.append(f'<text x="{left + w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
               f'decision (ply)</text>')
    if data["empty"]:
        xe = x(data["empty"])
        out.append(f'<line x1="{xe:.1f}" x2="{xe:.1f}" y1="{top}" y2="{top + h}" '
                   f'stroke="#6b7280" stroke-dasharray="4 3" class="empty"/>'
                   f'<text x="{xe + 4:.1f}" y="{top + 12}">draw pile empty</text>')
    # one hit column per decision: a tap anywhere above it picks it
    for i, ply in enumerate(plies):
        lo = (x(plies[i - 1]) + x(ply)) / 2 if i else left
        hi = (x(ply) + x(plies[i + 1])) / 2 if i + 1 < len(plies) else left + w
        out.append(f'<rect class="hit" data-ply="{ply}" x="{lo:.1f}" y="{top}" '
                   f'width="{max(1.0, hi - lo):.1f}" height="{h}"><title>ply {ply}</title></rect>')
    for k, (nm, vals) in enumerate(data["seats"].items()):
        color = COLORS[k % len(COLORS)]
        pts = [f"{x(p):.1f},{y(v):.1f}" for p, v in zip(plies, vals) if v is not None]
        if pts:
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" '
                       f'points="{" ".join(pts)}" class="seat" data-seat="{escape(nm)}" '
                       f'pointer-events="none"/>')
        out.append(f'<rect x="{left + 8 + 110 * k}" y="{top + h + 22}" width="10" '
                   f'height="10" fill="{color}"/><text x="{left + 22 + 110 * k}" '
                   f'y="{top + h + 31}">{escape(nm)}</text>')
    for ply, nm, mark, v in data["marks"]:
        out.append(f'<circle cx="{x(ply):.1f}" cy="{y(v):.1f}" r="5" '
                   f'fill="{MARK_COLORS[mark]}" stroke="#111827" class="mark {mark}" '
                   f'data-ply="{ply}" pointer-events="none"><title>ply {ply}: {escape(nm)} '
                   f'{mark}</title></circle>')
    out.append('<g class="cursor"></g></svg>')
    return "\n".join(out) + "\n"


def write_plot(rep: dict, path: str) -> str:
    """Write the graph to ``path``: ``.svg`` (by hand) or ``.png`` (matplotlib).

    :raises PlotError: another suffix, or a PNG without matplotlib.
    :raises OSError: the file cannot be written.
    """
    low = path.lower()
    if low.endswith(".svg"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(svg(rep))
        return path
    if not low.endswith(".png"):
        raise PlotError(f"--plot {path}: the picture is FILE.svg or FILE.png")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("a PNG needs matplotlib: pip install 'palace-solver[plot]' "
                        "(or write FILE.svg, which needs nothing)") from None
    data = series(rep)
    fig, ax = plt.subplots(figsize=(7.2, 3.0), dpi=100)
    for k, (nm, vals) in enumerate(data["seats"].items()):
        pts = [(p, v) for p, v in zip(data["plies"], vals) if v is not None]
        if pts:
            ax.plot([p for p, _ in pts], [v for _, v in pts], color=COLORS[k % len(COLORS)],
                    label=nm, linewidth=1.8)
    for ply, nm, mark, v in data["marks"]:
        ax.scatter([ply], [v], color=MARK_COLORS[mark], edgecolors="#111827", zorder=3, s=30)
    if data["empty"]:
        ax.axvline(data["empty"], color="#6b7280", linestyle="--", linewidth=1)
        ax.text(data["empty"], 0.97, " draw pile empty", fontsize=8, va="top")
    ax.set_ylim(0, 1)
    ax.set_xlabel("decision (ply)")
    ax.set_ylabel("loss probability")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path

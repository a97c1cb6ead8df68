"""The best line of play with its chance branches (``palace analyze --line``) and the
export of a searched graph (``--tree FILE``, GraphML or DOT through networkx).

A line follows the mover's best move (lowest own loss, ties in legal-move order); after a
flip it branches over every rank the card may be, with its probability. It stops at the
end of the game, when a position repeats on the line (endless play), or at ``max_plies``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ..game.cards import rank_name


@dataclass
class LineNode:
    """One decision on the line: who moved, what, the values after it, the branches."""

    player: int
    move: str
    loss: list
    note: str = ""
    branches: list = field(default_factory=list)  # [(label, probability, [LineNode...])]


def _best_edge(edges, values, mover):
    best, bv = None, None
    for m, outs in edges:
        v = values(outs)
        if bv is None or v[mover] < bv[mover] - 1e-12:
            best, bv = (m, outs), v
    return best, bv


def line_from_graph(graph, max_plies: int = 12, max_nodes: int = 200,
                    names: list[str] | None = None) -> list[LineNode]:
    """The best line through a solved ExactGraph, from its root (node 0); ``names`` name
    the players in the notes (default ``p0``, ``p1``, ...).

    The walk carries the line's own positions (a graph node may stand for several merged
    positions; the moves shown and the repetition check are those of the line's)."""
    n = len(graph.node_value(0))
    names = list(names) if names else [f"p{i}" for i in range(n)]
    budget = [max_nodes]

    def value_of(outs):
        tot = [0.0] * n
        for p, t in outs:
            v = t if isinstance(t, tuple) else graph.node_value(t)
            for i in range(n):
                tot[i] += p * v[i]
        return tot

    def walk(u, here, plies, seen) -> list[LineNode]:
        out: list[LineNode] = []
        while plies > 0 and budget[0] > 0:
            budget[0] -= 1
            key = here.packed()
            if key in seen:
                if out:
                    out[-1].note = "position repeats: endless play, a draw"
                return out
            seen = seen | {key}
            mover = graph.node_mover(u)
            (m, outs), v = _best_edge(graph.node_edges(u, here), value_of, mover)
            node = LineNode(mover, str(m), v)
            out.append(node)
            plies -= 1
            nxt = _successors(here, m)
            if len(outs) > 1 or (nxt and nxt[0][0] is not None):
                for (p, t), (rank, c, failed) in zip(outs, nxt):
                    label = f"turns up {rank_name(rank)}"
                    if failed:
                        label += f" (cannot be played: {names[mover]} takes the pile)"
                    if isinstance(t, tuple):
                        label += ": game over, " + ", ".join(
                            f"{names[i]} loses" for i, x in enumerate(t) if x == 1.0) \
                            if 1.0 in t else ": game over"
                    sub = [] if isinstance(t, tuple) else walk(t, c, plies, seen)
                    node.branches.append((label, p, sub))
                return out
            t = outs[0][1]
            if isinstance(t, tuple):
                node.note = "game over"
                return out
            u, here = t, nxt[0][1]
        return out

    return walk(0, graph.node_cstate(0), max_plies, frozenset())


def _successors(state, move):
    """[(rank turned up or None, position, whether the flip failed)] after ``move``, in
    chance-outcome order. A flip fails when the card cannot be played: it goes on the pile
    and the player takes the pile (rule 6), which the line says."""
    after = state.clone()
    after.apply(move)
    if not after.is_chance():
        return [(None, after, False)]
    mover = state.current_player()
    hand = sum(state.to_state().hands[mover])
    out = []
    for rank, _ in after.chance_outcomes():
        c = after.clone()
        c.apply(rank)
        failed = sum(c.to_state().hands[mover]) > hand
        out.append((rank, c, failed))
    return out


def format_line(line: list[LineNode], names: list[str], indent: str = "") -> str:
    rows = []
    for node in line:
        loss = "  ".join(f"{names[i]} {100 * x:.2f}%" for i, x in enumerate(node.loss))
        rows.append(f"{indent}{names[node.player]}: {node.move}   ({loss})"
                    + (f"  -- {node.note}" if node.note else ""))
        for label, p, sub in node.branches:
            rows.append(f"{indent}  ├ {label} (p = {p:.4f})")
            if sub:
                rows.append(format_line(sub, names, indent + "  │  "))
    return "\n".join(r for r in rows if r)


def line_to_json(line: list[LineNode]) -> list:
    return [{"player": x.player, "move": x.move, "loss_probability": x.loss,
             **({"note": x.note} if x.note else {}),
             **({"branches": [{"outcome": lab, "probability": p, "line": line_to_json(sub)}
                              for lab, p, sub in x.branches]} if x.branches else {})}
            for x in line]


def graph_to_networkx(graph, max_nodes: int = 5000, describe=None) -> nx.DiGraph:
    """The first ``max_nodes`` positions of a solved graph (breadth first from the root):
    decision nodes, chance nodes after flips and terminal nodes; edges carry the move, the
    probability and the values. A node that stands for several merged positions is drawn
    as the first of them met, with that position's moves."""
    n = len(graph.node_value(0))
    g = nx.DiGraph()
    seen = {0}
    queue = [0]
    term = 0
    while queue and len(g) < max_nodes:
        u = queue.pop(0)
        val = graph.node_value(u)
        label = describe(graph.node_state(u)) if describe else f"node {u}"
        g.add_node(f"n{u}", kind="decision", player=int(graph.node_mover(u)), label=label,
                   **{f"loss{i}": float(val[i]) for i in range(n)})
        for k, (m, outs) in enumerate(graph.node_edges(u)):
            src = f"n{u}"
            if len(outs) > 1:
                src = f"c{u}_{k}"
                g.add_node(src, kind="chance", label="flip")
                g.add_edge(f"n{u}", src, move=str(m), probability=1.0)
            for p, t in outs:
                if isinstance(t, tuple):
                    term += 1
                    dst = f"t{term}"
                    g.add_node(dst, kind="terminal", label="loss " + " ".join(
                        f"{x:g}" for x in t), **{f"loss{i}": float(t[i]) for i in range(n)})
                else:
                    dst = f"n{t}"
                    if t not in seen and len(seen) < max_nodes:
                        seen.add(t)
                        queue.append(t)
                    elif t not in seen:
                        continue
                g.add_edge(src, dst, move=str(m) if src.startswith("n") else "",
                           probability=float(p))
    return g


def write_graph(g: nx.DiGraph, path: str) -> None:
    """GraphML for ``.graphml``/``.xml``, Graphviz DOT for ``.dot``/``.gv``."""
    if path.endswith((".dot", ".gv")):
        with open(path, "w") as f:
            f.write("digraph palace {\n  node [shape=box, fontsize=10];\n")
            for v, d in g.nodes(data=True):
                # A tree cut at its node budget ends in bare edge targets: boxes, no kind.
                shape = {"chance": "circle",
                         "terminal": "doubleoctagon"}.get(d.get("kind"), "box")
                f.write(f'  "{v}" [label="{_esc(d.get("label", v))}", shape={shape}];\n')
            for a, b, d in g.edges(data=True):
                lab = d.get("move") or f'{d["probability"]:.3f}'
                f.write(f'  "{a}" -> "{b}" [label="{_esc(lab)}"];\n')
            f.write("}\n")
    else:
        nx.write_graphml(g, path)


def _esc(s: str) -> str:
    return str(s).replace("\\", "\\\\").replace('"', '\\"')

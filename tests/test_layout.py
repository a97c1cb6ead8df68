"""The package's layout: imports point one way only, down the list of subpackages, and no
module imports another that imports it back, not even through an import inside a function.

The imports are read from the source (``ast``), every ``import`` statement wherever it
sits, so a late import that would close a circle is caught like a top-level one.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

import palace_solver

PACKAGE = Path(palace_solver.__file__).parent

#: Each part may import only the parts before it (and itself). ``atomic`` writes files whole
#: for every layer and imports nothing; ``_engine`` is the compiled core (built from ext/, it
#: imports the model); ``analysis`` is the front door module; the package root re-exports
#: public names.
ORDER = ("atomic", "game", "_engine", "solve", "sample", "interop", "analysis", "agents",
         "interop.gymnasium", "jobs", "learn", "live", "review", "web")
#: An entry with a dot places one module apart from its subpackage: the Gymnasium
#: environment seats the agents of ``palace match`` by name (agents.registry), so it sits
#: above them while living with the other adapters; nothing in the package imports it.


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every palace_solver module that ``path`` imports, anywhere in the file."""
    name = _module_name(path)
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("palace_solver"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("palace_solver"):
                continue
            # ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one;
            # any other name comes from ``pkg`` itself.
            for a in node.names:
                out.add(f"{mod}.{a.name}" if _exists(f"{mod}.{a.name}") else mod)
    return out


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return ((PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()
            or module == "palace_solver._engine")


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        if "cli" in path.relative_to(PACKAGE).parts:
            continue
        src = _module_name(path)
        g.add_node(src)
        for dst in _imports(path):
            if dst != src:
                g.add_edge(src, dst)
    return g


def _part(module: str) -> str | None:
    """The entry of :data:`ORDER` a module belongs to (None for the package root)."""
    parts = module.split(".")
    if ".".join(parts[1:3]) in ORDER:
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else None


def _violations(g: nx.DiGraph) -> list[str]:
    bad = []
    for src, dst in g.edges:
        a, b = _part(src), _part(dst)
        if a is None:          # the root re-exports public names from anywhere
            continue
        if b is None:
            bad.append(f"{src} imports the package root {dst}")
        elif a not in ORDER or b not in ORDER:
            bad.append(f"{src} -> {dst}: {a if a not in ORDER else b} is not in ORDER")
        elif ORDER.index(b) > ORDER.index(a):
            bad.append(f"{src} -> {dst} points up ({a} is below {b})")
    return bad


def test_the_walker_sees_late_and_relative_imports():
    g = _graph()
    # a top-level relative import two levels up, and the late import of the compiled core
    assert g.has_edge("palace_solver.solve.exact", "palace_solver.game.state")
    assert g.has_edge("palace_solver.solve.engine", "palace_solver._engine")
    assert g.number_of_nodes() > 30


def test_no_import_circles():
    cycles = list(nx.simple_cycles(_graph()))
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c + c[:1]) for c in cycles)


def test_imports_point_down_the_layers():
    bad = _violations(_graph())
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("edge, expect", [
    (("palace_solver.game.state", "palace_solver.solve.results"), "points up"),
    (("palace_solver.interop.rl", "palace_solver.agents.method_bots"), "points up"),
    (("palace_solver.agents.registry", "palace_solver.interop.gymnasium"), "points up"),
    (("palace_solver.sample.rollout", "palace_solver.agents.play"), "points up"),
    (("palace_solver.solve.exact", "palace_solver"), "package root"),
])
def test_a_wrong_import_is_reported(edge, expect):
    g = _graph()
    g.add_edge(*edge)
    assert any(expect in v for v in _violations(g))


def test_a_circle_through_a_late_import_is_found(tmp_path):
    g = _graph()
    g.add_edge("palace_solver.game.cards", "palace_solver.game.state")   # state imports cards
    assert list(nx.simple_cycles(g))


def test_public_names_at_the_top():
    from palace_solver import BOTS, Position, Rules, State, analyze, make_bot  # noqa: F401
    assert callable(analyze) and "greedy" in BOTS

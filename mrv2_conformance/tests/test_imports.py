"""The package's layering: no import circle (module-level or inside a function), and
the conformance layer (the properties and their helpers) never imports the pytest
plugin, so properties run under any runner (a campaign's workers, a port's own CI)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1]
NAME = PACKAGE.name


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules ``path`` imports, anywhere in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from pkg import sub` imports the module pkg.sub where there is one
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name.startswith(NAME) and name != NAME:
                found.add(name)
    return found


def graph() -> nx.DiGraph:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py") if "tests" not in p.parts}
    g = nx.DiGraph()
    for mod, path in files.items():
        g.add_node(mod)
        for dep in imports(path, set(files)):
            if dep != mod and not mod.startswith(dep + "."):  # a package's own __init__
                g.add_edge(mod, dep)
    return g


def test_no_import_circle():
    g = graph()
    assert len(g) > 50, sorted(g)
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not circles, f"import circles: {circles}"


def test_the_conformance_layer_does_not_import_the_plugin():
    g = graph()
    plugin = f"{NAME}.plugin"
    layer = [m for m in g if m.startswith(f"{NAME}.conformance")]
    assert layer
    bad = {m: sorted(d for d in g.successors(m) if d.startswith(plugin)) for m in layer}
    assert not any(bad.values()), {m: d for m, d in bad.items() if d}

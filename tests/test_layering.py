"""The import graph of geomsim/ and games/: which modules import which, and its circles.

Issue 26 asks that no module import circle remain; `import_cycles` finds them from the source
(top-level and lazy imports alike, since a lazy import is still a dependency a reader must follow).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("geomsim", "games")


def _modules(root: Path) -> dict[str, Path]:
    """Every module under the packages, by dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST, type_checking: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of `tree`, lazy ones in functions included; those under
    ``if TYPE_CHECKING:`` only with `type_checking`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif type_checking or not (isinstance(node, ast.If) and _is_type_checking(node)):
            yield from _import_nodes(node, type_checking)


def _imported(name: str, path: Path, known: set[str], type_checking: bool) -> Iterator[str]:
    """The known modules that module `name` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in _import_nodes(tree, type_checking):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            # `from geomsim import analysis` imports the submodule; `from x import name`, x.
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                       for alias in node.names]
        for target in targets:
            # `import geomsim.scenario.load` also runs geomsim.scenario, but the module a reader
            # must follow is the one named: take the longest known prefix.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph(root: Path = ROOT, type_checking: bool = True) -> dict[str, set[str]]:
    """Each module under geomsim/ and games/ with the set of those modules it imports.

    Imports under ``if TYPE_CHECKING:`` count unless `type_checking` is false: they never run,
    but a reader who follows the annotations follows them (issue 26 counts them).
    """
    modules = _modules(root)
    known = set(modules)
    return {name: set(_imported(name, path, known, type_checking)) for name, path in modules.items()}


def import_cycles(root: Path = ROOT, type_checking: bool = True) -> list[list[str]]:
    """The import circles: the strongly connected components of more than one module (Tarjan's
    algorithm, iterative so that a deep graph cannot exhaust the recursion limit), each sorted."""
    graph = import_graph(root, type_checking)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


def test_the_statistics_are_in_no_import_circle() -> None:
    """Issue 26, item 2: metrics imported its statistics from analysis, which imports metrics
    back; now both take them from geomsim.stats, which imports neither."""
    graph = import_graph()
    assert "geomsim.analysis" not in graph["geomsim.metrics"]
    circles = [c for c in import_cycles() if {"geomsim.stats", "geomsim.metrics"} & set(c)]
    assert circles == []


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_import_cycles_follows_lazy_relative_and_submodule_imports(tmp_path: Path) -> None:
    _write(tmp_path, {
        "geomsim/__init__.py": "",
        "geomsim/a.py": "from geomsim import b\n",
        "geomsim/b.py": "def f():\n    from . import c\n",
        "geomsim/c.py": "import geomsim.a\n",
        "geomsim/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from geomsim import e\n",
        "geomsim/e.py": "from geomsim.d import x\n",
        "games/__init__.py": "",
        "games/g/__init__.py": "from .rules import R\n",
        "games/g/rules.py": "def f():\n    from games.g import draw\n",
        "games/g/draw.py": "from ..g.rules import R\n",
        "games/g/alone.py": "from games.g.rules import R\nimport geomsim.a\n",
    })
    assert import_cycles(tmp_path) == [["games.g.draw", "games.g.rules"],
                                       ["geomsim.a", "geomsim.b", "geomsim.c"],
                                       ["geomsim.d", "geomsim.e"]]
    assert ["geomsim.d", "geomsim.e"] not in import_cycles(tmp_path, type_checking=False)


def test_anasazi_rules_import_no_face() -> None:
    """Issue 26, item 3: Anasazi's rules imported their faces (lazily) and each face imported
    the rules back; now the package gives the game its faces, and the rules import none."""
    assert [c for c in import_cycles() if any(m.startswith("games.anasazi") for m in c)] == []
    faces = {f"games.anasazi.{face}" for face in
             ("draw", "text", "encoding", "playout", "web", "planner", "reach", "choice")}
    assert import_graph()["games.anasazi.rules"] & faces == set()

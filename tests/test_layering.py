"""The import graph of geomsim/ and games/: which modules import which, and its circles.

Issue 26 asks that no module import circle remain; `import_cycles` finds them from the source
(top-level and lazy imports alike, since a lazy import is still a dependency a reader must follow).
One kind of import is skipped, and only it: an import inside a function named ``__getattr__``,
where a module resolves the old name of something that moved (a deprecation alias kept for one
release, `geomsim.moved`); the old name points at the new place, which is no dependency of the
module.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

import geomsim

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
    """Every import statement of `tree`, lazy ones in functions included, but those of a
    module's ``__getattr__`` (deprecation aliases); those under ``if TYPE_CHECKING:`` only with
    `type_checking`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__getattr__":
            continue
        elif not isinstance(node, _HOLDS_STATEMENTS):
            continue  # an expression: no import statement lies inside one (saves 9 in 10 nodes)
        elif type_checking or not (isinstance(node, ast.If) and _is_type_checking(node)):
            yield from _import_nodes(node, type_checking)


# The nodes an import statement can lie in: statements (bodies of def, class, if, for, with,
# try...), except clauses and match cases.
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


@functools.lru_cache(maxsize=None)
def _parse(text: str, filename: str) -> ast.Module:
    """`text` parsed, once a session for each text: every test here reads the same ~100 files
    (the cache is keyed by the text, so an edited file is parsed again)."""
    return ast.parse(text, filename)


def _imported(name: str, path: Path, known: set[str], type_checking: bool) -> Iterator[str]:
    """The known modules that module `name` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = _parse(path.read_text(encoding="utf-8"), str(path))
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
        "geomsim/old.py": "def __getattr__(name):\n    from geomsim.new import f\n    return f\n",
        "geomsim/new.py": "import geomsim.old\n",
    })
    assert import_cycles(tmp_path) == [["games.g.draw", "games.g.rules"],
                                       ["geomsim.a", "geomsim.b", "geomsim.c"],
                                       ["geomsim.d", "geomsim.e"]]
    assert ["geomsim.d", "geomsim.e"] not in import_cycles(tmp_path, type_checking=False)


def test_cibola_rules_import_no_face() -> None:
    """Issue 26, item 3 for cibola: its rules reached lazily into draw, text, encoding and
    playout, which import the rules back; now the package assembles the game from its parts."""
    circles = [c for c in import_cycles() if any(m.startswith("games.cibola") for m in c)]
    assert circles == []
    faces = {f"games.cibola.{face}" for face in ("draw", "text", "encoding", "playout", "web")}
    assert import_graph()["games.cibola.rules"] & faces == set()


# -- issue 26 item 1: the command line in one place --------------------------------------------------


def _imports_click(path: Path) -> bool:
    """Whether the file imports click anywhere (lazily, under TYPE_CHECKING or in __getattr__)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        if any(n == "click" or n.startswith("click.") for n in names):
            return True
    return False


def test_only_the_command_line_imports_click() -> None:
    """No module under geomsim/ but geomsim/cli/ imports click, and nothing under games/ does:
    a game declares its command as data (`geomsim.commands.Command`)."""
    found = sorted(str(p.relative_to(ROOT)) for package in PACKAGES
                   for p in (ROOT / package).rglob("*.py") if _imports_click(p))
    assert found and all(f.startswith("geomsim/cli/") for f in found), found


def test_no_import_circle_within_the_engine() -> None:
    """Every circle whose modules all lie under geomsim/ fails (the games' own circles go with
    issue 26 item 3); the command line, reports, batches, scenarios and the web are in none."""
    engine = [c for c in import_cycles() if all(m.split(".")[0] == "geomsim" for m in c)]
    assert engine == []
    named = ("geomsim.report", "geomsim.analysis", "geomsim.scenario", "geomsim.web", "geomsim.cli")
    assert [c for c in import_cycles() if any(m.startswith(named) for m in c)] == []


def test_import_cycles_skips_only_deprecation_aliases_in_getattr(tmp_path: Path) -> None:
    _write(tmp_path, {
        "geomsim/__init__.py": "",
        "geomsim/old.py": "def __getattr__(name):\n    from geomsim.new import f\n    return f\n",
        "geomsim/other.py": "def getattr_(name):\n    from geomsim.new import f\n    return f\n",
        "geomsim/new.py": "import geomsim.old\nimport geomsim.other\n",
    })
    assert import_graph(tmp_path)["geomsim.old"] == set()
    assert import_cycles(tmp_path) == [["geomsim.new", "geomsim.other"]]


BAD_INPUT = """
import sys
from pathlib import Path
import geomsim
from geomsim.analysis import read_rows
from geomsim.report import write_report
from geomsim.web.serve import start_from
(Path(sys.argv[1]) / "games.jsonl").write_text("not a row\\n")
calls = [lambda: read_rows(Path(sys.argv[1]) / "games.jsonl"),
         lambda: write_report(Path(sys.argv[1]), Path(sys.argv[1]) / "r.docx"),
         lambda: start_from(None, None, "no-such-game", None, 0)]
for call in calls:
    try:
        call()
    except geomsim.InputError as e:
        print(type(e).__name__, "|", e)
print("click" in sys.modules)
"""


def test_a_library_user_gets_input_errors_and_never_loads_click(tmp_path: Path) -> None:
    """Bad input given to the engine from Python raises `geomsim.InputError` (one line naming it),
    and the engine never imports click to say so."""
    done = subprocess.run([sys.executable, "-c", BAD_INPUT, str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == 4, done.stdout + done.stderr
    assert lines[0].startswith("InputError | ") and "games.jsonl: line 1" in lines[0]
    assert lines[1].startswith("InputError | ") and "the report is written as .html or .pdf" in lines[1]
    assert lines[2].startswith("InputError | ") and "unknown game 'no-such-game'" in lines[2]
    assert lines[3] == "False"


def test_input_errors_are_no_click_exceptions(tmp_path: Path) -> None:
    from geomsim.analysis import check_resume
    from geomsim.batch import Batch
    from geomsim.reading import DataError
    from geomsim.scenario import ScenarioError

    assert issubclass(DataError, geomsim.InputError) and issubclass(ScenarioError, geomsim.InputError)
    (tmp_path / "games.jsonl").write_text("{}\n")
    with pytest.raises(geomsim.InputError, match="batch.json is missing") as caught:
        check_resume(tmp_path, Batch("cibola", 3, ("random",) * 3), resume=True, force=False)
    assert not isinstance(caught.value, click.ClickException)


MOVED = [("geomsim.analysis", "analyze_command", "geomsim.cli.analyze"),
         ("geomsim.analysis", "lineup_of", "geomsim.batch"),
         ("geomsim.report", "report_command", "geomsim.cli.report"),
         ("geomsim.web.serve", "serve_command", "geomsim.cli.serve"),
         ("geomsim.cli", "MAX_SEED", "geomsim.reading")]
MOVED += [("geomsim.scenario.commands", f"{name}_command", "geomsim.cli.scenario")
          for name in ("run", "check", "replay")]
MOVED += [("geomsim.cli", name, "geomsim.cli.common") for name in (
    "UserError", "OutputPath", "DIAGRAM", "JSON_FILE", "SEED", "game_option", "read_json", "os_error")]
MOVED += [("geomsim.cli", f"{name}_command", f"geomsim.cli.{name}") for name in ("games", "setup", "rules")]


@pytest.mark.parametrize(("old", "name", "new"), MOVED)
def test_old_import_paths_work_for_a_release_with_a_deprecation_warning(old: str, name: str,
                                                                        new: str) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=re.escape(f"{old}.{name} moved to {new}.{name}")):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError):
        getattr(module, "no_such_name")

def test_aztekz_rules_import_no_face() -> None:
    circles = [c for c in import_cycles() if any(m.startswith("games.aztekz") for m in c)]
    assert circles == []
    faces = {f"games.aztekz.{face}" for face in ("draw", "text", "encoding", "playout", "web")}
    assert import_graph()["games.aztekz.rules"] & faces == set()

def test_anasazi_rules_import_no_face() -> None:
    """Issue 26, item 3: Anasazi's rules imported their faces (lazily) and each face imported
    the rules back; now the package gives the game its faces, and the rules import none."""
    assert [c for c in import_cycles() if any(m.startswith("games.anasazi") for m in c)] == []
    faces = {f"games.anasazi.{face}" for face in
             ("draw", "text", "encoding", "playout", "web", "planner", "reach", "choice")}
    assert import_graph()["games.anasazi.rules"] & faces == set()


def test_no_import_circle_anywhere() -> None:
    """Issue 26's end: no module of geomsim/ or games/ is in an import circle (lazy imports and
    those under TYPE_CHECKING count)."""
    assert import_cycles() == []

"""Which tests cite which rules: the source of `docs/rules-coverage.md`.

A test cites a rule by holding its id as a string literal (in its docstring, a marker or an
assertion). Tests are read as source, never imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from geomsim.rules import Game


def cited_rules(tests_dir: Path, rule_ids: Iterable[str]) -> dict[str, list[str]]:
    """For every rule id, the tests (``path::name``) whose source holds it as a string."""
    wanted = set(rule_ids)
    found: dict[str, list[str]] = {r: [] for r in sorted(wanted)}
    for path in sorted(tests_dir.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                for rule in _strings(node) & wanted:
                    found[rule].append(f"{path.relative_to(tests_dir.parent)}::{node.name}")
    return found


def _strings(node: ast.AST) -> set[str]:
    strings = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            strings.add(sub.value)
            strings.update(word.strip("`'\".,:;()") for word in sub.value.split())
    decorators = getattr(node, "decorator_list", [])
    for dec in decorators:
        strings |= _strings(dec)
    return strings


def coverage_markdown(games: Iterable[Game], tests_dir: Path) -> str:
    """The rules coverage page: every rule id, its text, its enforcing function and its tests."""
    lines = [
        "# Rules coverage",
        "",
        "Every written rule of the three rulebooks has an id, its rulebook text, the function that",
        "enforces it and the tests that cite it. Made by `geomsim rules --coverage`; a test checks",
        "that this page is current and that no rule lacks a test.",
    ]
    for game in games:
        cited = cited_rules(tests_dir, game.rules)
        lines += ["", f"## {game.name}", "", "| rule | section | text | enforced by | tests |",
                  "|---|---|---|---|---|"]
        for rule in sorted(game.rules.values(), key=lambda r: (_section_key(r.section), r.id)):
            tests = "<br>".join(f"`{t}`" for t in cited[rule.id]) or "**none**"
            text = " ".join(rule.text.split()).replace("|", "\\|")
            enforced = f"`{rule.enforced_by}`" if rule.enforced_by else ""
            lines.append(f"| `{rule.id}` | {rule.section} | {text} | {enforced} | {tests} |")
    return "\n".join(lines) + "\n"


def _section_key(section: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in section.replace("-", ".").split("."))

"""Every rule of every game is cited by a test, and docs/rules-coverage.md is current."""

from __future__ import annotations

from pathlib import Path

import pytest

import geomsim
from geomsim.coverage import cited_rules, coverage_markdown

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", geomsim.list_games())
def test_every_rule_has_a_test(name):
    game = geomsim.load_game(name)
    assert game.rules, f"{name} lists no rules"
    cited = cited_rules(ROOT / "tests", game.rules)
    missing = [rule for rule, tests in cited.items() if not tests]
    assert not missing, f"rules of {name} that no test cites: {missing}"


@pytest.mark.parametrize("name", geomsim.list_games())
def test_every_rule_names_its_enforcer(name):
    game = geomsim.load_game(name)
    for rule in game.rules.values():
        assert rule.id.startswith(f"{name}/") and rule.text.strip(), rule
        assert ":" in rule.enforced_by, f"{rule.id} does not name its enforcing function"
        assert rule.id == next(k for k, v in game.rules.items() if v is rule)


def test_rules_coverage_page_is_current():
    games = [geomsim.load_game(n) for n in geomsim.list_games()]
    expected = coverage_markdown(games, ROOT / "tests")
    page = ROOT / "docs" / "rules-coverage.md"
    assert page.exists() and page.read_text() == expected, \
        "docs/rules-coverage.md is out of date: run `geomsim rules --coverage docs/rules-coverage.md`"


def test_cited_rules_reads_docstrings_and_literals(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text(
        'def test_a():\n    """Checks `g/1/a`."""\n\n'
        'def test_b():\n    assert check("g/1/b")\n\n'
        'def helper():\n    "g/1/c"\n'
    )
    assert cited_rules(tests, ["g/1/a", "g/1/b", "g/1/c"]) == {
        "g/1/a": ["tests/test_x.py::test_a"], "g/1/b": ["tests/test_x.py::test_b"], "g/1/c": []}

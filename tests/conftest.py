"""What the whole test session shares: the compiled random players are compiled (or loaded from
numba's cache) once, before pytest-xdist starts its workers, so that no worker compiles the same
kernels again and no test pays a minute of compilation (issue 30, item 5)."""

from __future__ import annotations

import importlib.util

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or importlib.util.find_spec("numba") is None:
        return  # an xdist worker (the controller prepared them), or nothing to compile
    from geomsim.compiled import prepare
    from geomsim.registry import list_games, load_game

    games = [name for name in list_games() if load_game(name).has_random_playouts()]
    for name, why in prepare(games).items():
        print(f"conftest: the compiled player of {name} was not prepared: {why}")


# The modules whose tests take seconds each, the costliest first. pytest-xdist hands tests out in
# the order collected (its groups first): a long test collected last leaves one worker busy while
# the other waits, so these run first and the many short tests fill in at the end. Order only:
# every test passes alone and in any order.
HEAVY_FIRST = (
    "tests/test_types.py",  # mypy: 20-40 s with a cold cache (a fresh clone)
    "tests/web/test_browser.py",
    "tests/test_benchmarks.py",
    "tests/test_readme.py",
    "tests/anasazi/test_rules_random.py",
    "tests/anasazi/test_planner.py",
    "tests/aztekz/test_playout.py",
    "tests/aztekz/test_properties.py",
    "tests/cibola/test_properties.py",
    "tests/test_analysis.py",
    "tests/test_hostile.py",
    "tests/test_hostile_classes.py",
    "tests/web/test_page_play.py",
    "tests/anasazi/test_read_back.py",
    "tests/anasazi/test_table.py",
    "tests/test_examples.py",
    "tests/test_compare.py",
    "tests/test_scenarios.py",
    "tests/test_docs_site.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))

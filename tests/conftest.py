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

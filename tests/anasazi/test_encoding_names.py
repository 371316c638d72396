"""The observation tensor and the look ids of Anasazi know a pueblo by its place in the table,
never by its name: a setup whose pueblos are called otherwise plays to the same tensors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from games.anasazi import GAME
from games.anasazi.actions import LookTower
from geomsim.rules import Action

# Pueblo i of the table is renamed to ... (the names that broke the tensor: issue 25).
RENAMINGS: dict[str, Callable[[int, int], str]] = {
    "not-P-digits": lambda i, n: f"Home{i}",  # int("ome5"): ValueError
    "past-the-rows": lambda i, n: f"P{i + 55}",  # row 55 of 44: IndexError
    "reversed": lambda i, n: f"P{n - 1 - i}",  # each pueblo's contents in another's row
    "sharing-digits": lambda i, n: f"{'CI'[i % 2]}{i // 2}",  # C0 and I0 in one row
}


def rename(data: Any, names: dict[str, str]) -> Any:
    """`data` with every string (member names included) found in `names` replaced."""
    if isinstance(data, dict):
        return {names.get(k, k): rename(v, names) for k, v in data.items()}
    if isinstance(data, list):
        return [rename(v, names) for v in data]
    return names.get(data, data) if isinstance(data, str) else data


def sector_names(setup: dict[str, Any], new_name: Callable[[int, int], str]) -> dict[str, str]:
    """Old id -> new id of every pueblo and sector of `setup` (the same renaming throughout)."""
    names: dict[str, str] = {}
    for i, pueblo in enumerate(setup["pueblos"]):
        old, new = pueblo["id"], new_name(i, len(setup["pueblos"]))
        names[old] = new
        for sector in pueblo["sectors"]:
            names[sector["id"]] = new + sector["id"][len(old):]
    return names


def translated(action: Action, names: dict[str, str]) -> Action:
    return LookTower(names[action.sector]) if isinstance(action, LookTower) else action


@pytest.mark.parametrize("renaming", sorted(RENAMINGS))
def test_renamed_pueblos_give_the_same_tensors(renaming):
    setup = GAME.make_setup(2, 3)
    names = sector_names(setup, RENAMINGS[renaming])
    original = GAME.new_state(2, setup=setup)
    other = GAME.new_state(2, setup=rename(setup, names))
    assert [p.id for p in other.table.pueblos] == [names[p.id] for p in original.table.pueblos]
    rng = np.random.default_rng(0)
    looks = 0
    for step in range(24):  # the setup base camps and looks, and the first turns of play
        for p in range(2):
            assert np.array_equal(other.observation_tensor(p), original.observation_tensor(p)), \
                f"player {p}'s tensor differs at step {step}"
        player = original.to_move()[0]
        if step % 6 == 0:
            assert other.legal_action_ids(player) == original.legal_action_ids(player)
        action = original.legal_actions(player).sample(rng, 1)[0]
        looks += isinstance(action, LookTower)
        original.apply(action, player)
        other.apply(translated(action, names), player)
    assert looks >= 3, "the towers looked at show in the tensor"


def test_look_ids_follow_the_table_order():
    setup = GAME.make_setup(2, 3)
    names = sector_names(setup, RENAMINGS["not-P-digits"])
    encoding = GAME.new_state(2, setup=rename(setup, names)).encoding
    looks = [encoding.action_from_id(1 + i) for i in range(len(setup["pueblos"]))]
    assert looks == [LookTower(names[p["id"]] + "s") for p in setup["pueblos"]]

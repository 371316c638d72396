"""What Anasazi loads reads back (issue 25, item 4): every setup `new_state` accepts makes a
state whose JSON `state_from_json` reads as an equal state; every other setup, its geometry
included, is a `DataError` naming the piece's field."""

from __future__ import annotations

import copy

import pytest

from games.anasazi import GAME
from games.anasazi.actions import NOTATION
from geomsim.reading import DataError
from geomsim.testing import check_setup_mutants
from tests.actionforms import action_form_tests

BASE = GAME.make_setup(3, 1)


def _shell(item):
    polygon = item["polygon"]
    return polygon["shell"] if isinstance(polygon, dict) else polygon


def _moved(items, i, dx):
    for point in _shell(items[i]):
        point[0] += dx


def _mesa_out(s):
    _moved(s["mesas"], 3, 600)


def _mesa_on_mesa(s):
    s["mesas"][3]["polygon"] = copy.deepcopy(s["mesas"][4]["polygon"])


def _sector_off(s):
    _moved(s["pueblos"][5]["sectors"], 0, 30)


def _camp_out(s):
    _moved(s["expedition_camps"], 1, 500)


def _start_off(s):
    s["expedition_camps"][2]["start"] = [0, 0]


@pytest.mark.parametrize("change, field", [
    (_mesa_out, "mesas[3].polygon"),
    (_mesa_on_mesa, "mesas[3].polygon"),
    (_sector_off, "pueblos[5].sectors[0].polygon"),
    (_camp_out, "expedition_camps[1].polygon"),
    (_start_off, "expedition_camps[2].start"),
    (lambda s: s["mesas"][2].update(ring="outerx"), "mesas[2].ring"),
    (lambda s: s["pueblos"][7].update(mesa="M99"), "pueblos[7].mesa"),
    (lambda s: s["mesas"].append(copy.deepcopy(s["mesas"][-1])), f"mesas[{len(BASE['mesas'])}].id"),
    (lambda s: s["towers"].update({next(iter(s["towers"])): "green"}), f"towers.{next(iter(BASE['towers']))}"),
    (lambda s: s["objectives"].__setitem__(1, "green"), "objectives[1]"),
    (lambda s: s.update(seed=-1), "seed"),
    (lambda s: s.update(first_player=None), "first_player"),
])
def test_a_broken_setup_is_a_data_error_naming_the_piece(change, field):
    setup = copy.deepcopy(BASE)
    change(setup)
    with pytest.raises(DataError) as refused:
        GAME.new_state(3, setup=setup)
    assert refused.value.path == field, str(refused.value)


def test_a_setup_for_other_players_names_players():
    with pytest.raises(DataError) as refused:
        GAME.new_state(2, setup=copy.deepcopy(BASE))
    assert refused.value.path == "players"


@pytest.mark.parametrize("players", [2, 4])
def test_every_setup_accepted_reads_back(players):
    report = check_setup_mutants(GAME, players, seed=players, count=120)
    assert report.accepted and report.refused


# -- actions: the text form and the JSON accept the same actions ------------------------------
WORDS = ["E1", "E3", "P7s", "red", "blue", "M0", "a b"]

(test_every_action_json_read_has_a_text_that_reads_back,
 test_every_action_text_read_has_a_json_that_reads_back) = action_form_tests(GAME, NOTATION, WORDS)

"""Candidates from exact geometry (games/anasazi/windows.py): every window of covering
placements that holds a point is found, its middle lies inside it, and the planner takes a
pueblo that only a 0.2 mm window reaches (issue 28, item 1)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi import reach, windows
from games.anasazi.actions import PlaceMarker
from games.anasazi.components import COLOURS, Sizes
from games.anasazi.rules import AnasaziState
from tests.anasazi.test_reach import box, make_setup, play_setup

SIZES = Sizes()
STEP = reach.Step((0.0, 0.0), SIZES.explorer_radius, SIZES)
ONE = STEP.reach  # the farthest a point held by a marker covering the end lies from it


def held(step: reach.Step, found: windows.Placements, points: np.ndarray) -> np.ndarray:
    """How deep (mm) each placement holds its point inside the marker (< 0: outside), and
    whether it covers the end (the end's centre within the shrunk rectangle)."""
    x, y, h = step.poses(found.theta, found.a, found.c)
    local = (points[found.source] - (x + 1j * y)) * np.exp(-1j * np.radians(h))
    depth = np.minimum(SIZES.marker_length / 2 - np.abs(local.real),
                       SIZES.marker_width / 2 - np.abs(local.imag))
    end = (complex(*step.end) - (x + 1j * y)) * np.exp(-1j * np.radians(h))
    covers = (np.abs(end.real) <= step.half_along + 1e-9) & (np.abs(end.imag) <= step.half_across + 1e-9)
    return np.where(covers, depth, -1.0)


@settings(max_examples=60, deadline=None)
@given(rho=st.floats(0.0, 1.05 * ONE), bearing=st.floats(0.0, 360.0))
def test_a_point_gets_a_window_exactly_when_a_covering_marker_can_hold_it(rho: float,
                                                                         bearing: float) -> None:
    """anasazi/4.2/cover-explorer: a point within one marker's reach of the end (to DEEP)
    gets placements, each covering the end and holding it inside; a point beyond gets none."""
    point = np.array([rho * np.exp(1j * math.radians(bearing))])
    found = windows.point_windows(STEP, point, np.array([True]))
    if rho <= ONE - 2 * windows.DEEP:
        assert len(found) >= 1
    if rho > ONE:
        assert len(found) == 0
    assert (held(STEP, found, point) > 0.0).all()


def test_the_middle_of_a_narrow_window_lies_inside_it() -> None:
    """A point 0.2 mm inside the reach: its windows are about 0.2 mm wide, and their middles
    hold the point by about half that."""
    point = np.array([ONE - 0.2 + 0j])
    found = windows.point_windows(STEP, point)
    depth = held(STEP, found, point)
    assert len(found) == 4  # one window near each corner of the far end
    assert (depth > 0.02).all() and (found.slack < 0.2).all()


def test_the_dividing_line_of_a_divided_pueblo_touches_both_sectors() -> None:
    """anasazi/4.2/divided-pueblo: a placement from a dividing line's window touches both."""
    state = GAME.new_state(4, seed=5)
    table = state.table
    ids = lg.table_geometry(table).sector_ids
    divided = [p for p in table.pueblos if len(p.sectors) == 2][0]
    wanted = frozenset({divided.sectors[0].id})
    centre = divided.sectors[0].polygon.centroid
    step = reach.Step((centre.x + 40.0, centre.y), SIZES.explorer_radius, SIZES)
    found, labels = windows.window_placements(step, table, wanted)
    both = [i for i in range(len(found)) if len(labels[found.source[i]]) == 2]
    assert both
    x, y, h = step.poses(found.theta[both], found.a[both], found.c[both])
    touched = lg.touched_sectors_batch(table, x, y, h)
    assert touched[:, [ids.index(s.id) for s in divided.sectors]].all()


def planted() -> AnasaziState:
    """Player 0 (objective red) at the start mark E1 (the origin): the red treasure P0 lies
    0.2 mm inside one marker's reach (a 0.2 mm window of poses touches it), a blue one (P1)
    lies 30 mm away, easy to touch."""
    setup = make_setup({"P0": box(ONE - 0.2, -5, ONE + 10, 5), "P1": box(-5, 30, 5, 40)})
    state: AnasaziState = play_setup(setup)
    assert state.initial_treasures["P0"] == COLOURS[0] == state.objectives[0]
    return state


def test_the_planted_window_is_out_of_reach_of_random_placements() -> None:
    """The window is narrow: none of 20,000 uniform covering placements touches P0."""
    state = planted()
    placer = reach.StatePlacer.of(state, "E1", 0)
    theta, a, c = reach.uniform_placements(placer.step, np.random.default_rng(0), 20_000)
    x, y, h = placer.step.poses(theta, a, c)
    ids = lg.table_geometry(state.table).sector_ids
    assert not lg.touched_sectors_batch(state.table, x, y, h)[:, ids.index("P0")].any()


def test_the_planner_takes_the_treasure_behind_a_narrow_window() -> None:
    """anasazi/4.2/touch-pueblo, anasazi/5.1/objective-double: the planner's candidates come from the windows, so it takes the
    red treasure (10 points to it) that only a 0.2 mm window reaches, not the easy blue one."""
    state = planted()
    bot = GAME.bots()["planner"][0](None)
    for seed in range(3):
        action = bot.choose(state, 0, np.random.default_rng(seed))
        assert isinstance(action, PlaceMarker) and state.check(action, 0).ok
        assert "P0" in lg.touched_sectors(state.table, action.pose)
    state.apply(action, 0)
    assert state.hands[0][COLOURS[0]] == 1

"""The Anasazi table: every random layout meets every setup rule (checked here with shapely
directly, not with `check_table`), layouts are reproducible from their seed, setups round-trip
through JSON exactly, bad explicit layouts are refused naming the pieces, and the diagram draws.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.anasazi.components import COLOURS, OBJECTIVES, Setup, Sizes, TableView
from games.anasazi.layout import (
    LayoutOptions, check_table, load_setup, make_setup, random_setup, random_table,
)

SEEDS = range(200)


@pytest.fixture(scope="module")
def setups() -> list[Setup]:
    """One setup per seed, 2 to 4 players."""
    return [random_setup(2 + seed % 3, seed) for seed in SEEDS]


def text(setup: Setup) -> str:
    return json.dumps(setup.to_json(), sort_keys=False)


# --- counts (rulebook 2.0 and 3.0) ------------------------------------------------------------

def test_counts_of_mesas_pueblos_and_camps(setups):
    for s in setups:
        t = s.table
        assert Counter(m.ring for m in t.mesas) == {"centre": 1, "inner": 12, "outer": 15}
        assert [m.id for m in t.mesas] == [f"M{i}" for i in range(28)]
        assert len(t.pueblos) == 44
        assert sum(p.divided for p in t.pueblos) == 16
        assert sum(not p.divided for p in t.pueblos) == 28
        assert all(t.pueblos_on(m.id) for m in t.mesas), "every mesa has a pueblo"
        assert [e.id for e in t.expedition_camps] == [f"E{k}" for k in range(1, 7)]


def test_towers_on_small_sectors_and_treasures_on_the_rest(setups):
    for s in setups:
        t = s.table
        small = {sec.id for sec in t.sectors if sec.kind == "small"}
        rest = {sec.id for sec in t.sectors if sec.kind != "small"}
        assert set(s.towers) == small and len(small) == 16
        assert Counter(s.towers.values()) == {c: 4 for c in COLOURS}
        assert set(s.treasures) == rest and len(rest) == 44
        assert Counter(s.treasures.values()) == {c: 11 for c in COLOURS}
        assert len(s.objectives) == s.players
        assert not Counter(s.objectives) - Counter(OBJECTIVES)
        assert 0 <= s.first_player < s.players


def test_deal_varies_with_the_seed(setups):
    assert len({tuple(s.towers.values()) for s in setups}) > 150
    assert len({s.first_player for s in setups}) > 1
    assert len({s.objectives for s in setups}) > 10


# --- geometry ---------------------------------------------------------------------------------

def test_every_two_mesas_keep_a_valley_for_a_base_camp(setups):
    for s in setups:
        polys = np.array([m.polygon for m in s.table.mesas], dtype=object)
        i, j = np.triu_indices(len(polys), k=1)
        d = shapely.distance(polys[i], polys[j])
        assert d.min() >= s.table.sizes.valley_gap, (s.seed, d.min())
        # The gap is also room for a base camp disc: one fits where the valley is narrowest.
        assert d.min() >= 2 * s.table.sizes.base_camp_radius


def test_relaxation_moved_tiles_and_keeps_rings(setups):
    """The rings stay recognisable: inner centres nearer the centre than outer ones."""
    for s in setups[:50]:
        radius = {m.id: math.hypot(m.polygon.centroid.x, m.polygon.centroid.y)
                  for m in s.table.mesas}
        inner = [radius[m.id] for m in s.table.mesas if m.ring == "inner"]
        outer = [radius[m.id] for m in s.table.mesas if m.ring == "outer"]
        assert radius["M0"] < min(inner) and max(inner) < min(outer)


def test_mesas_inside_the_play_area(setups):
    for s in setups:
        xy = shapely.get_coordinates([m.polygon for m in s.table.mesas])
        assert np.hypot(xy[:, 0], xy[:, 1]).max() <= s.table.sizes.play_area_radius


def test_pueblo_sectors_lie_wholly_on_their_mesa(setups):
    for s in setups:
        t = s.table
        for p in t.pueblos:
            mesa = t.mesa(p.mesa).polygon
            for sec in p.sectors:
                assert mesa.contains(sec.polygon), (s.seed, sec.id)
            if p.divided:
                a, b = p.sectors
                assert a.polygon.intersection(b.polygon).area < 1e-9
                # The sector line: the two sectors share an edge.
                assert a.polygon.boundary.intersection(b.polygon.boundary).length > 5.0
        polys = np.array([p.polygon for p in t.pueblos], dtype=object)
        i, j = np.triu_indices(len(polys), k=1)
        assert shapely.distance(polys[i], polys[j]).min() > 0


def test_sectors_hold_their_pieces_and_are_reachable(setups):
    for s in setups[:60]:
        sizes = s.table.sizes
        for sec in s.table.sectors:
            room = shapely.maximum_inscribed_circle(sec.polygon, 0.05).length
            need = sizes.tower_radius if sec.kind == "small" else sizes.treasure_size / 2
            assert room >= need - 0.05, (s.seed, sec.id, room)
            # A marker pointed at the sector from the centre side stays in the play area.
            near = shapely.distance(shapely.Point(0, 0), sec.polygon)
            assert math.hypot(near, sizes.marker_width / 2) < sizes.play_area_radius


def test_pueblos_lie_both_along_edges_and_inside(setups):
    depth = [t.mesa(p.mesa).polygon.exterior.distance(p.polygon)
             for t in (s.table for s in setups) for p in t.pueblos]
    edge = np.mean(np.array(depth) < 4.0)
    assert 0.25 < edge < 0.75, edge


def test_expedition_camps_inside_near_a_mesa_and_evenly_spaced(setups):
    for s in setups:
        t, sizes = s.table, s.table.sizes
        mesas = np.array([m.polygon for m in t.mesas], dtype=object)
        outer = max(math.hypot(m.polygon.centroid.x, m.polygon.centroid.y)
                    for m in t.mesas if m.ring == "outer")
        angles = []
        for e in t.expedition_camps:
            xy = shapely.get_coordinates(e.polygon)
            assert np.hypot(xy[:, 0], xy[:, 1]).max() <= sizes.play_area_radius
            gaps = shapely.distance(e.polygon, mesas)
            assert gaps.min() < sizes.marker_length, (s.seed, e.id)
            assert gaps.min() > 0, (s.seed, e.id)
            assert math.hypot(*e.start) > outer
            # The start mark lies wholly on the tile.
            assert e.polygon.exterior.distance(shapely.Point(e.start)) >= sizes.start_mark_radius
            assert e.polygon.contains(shapely.Point(e.start))
            angles.append(math.degrees(math.atan2(e.start[1], e.start[0])))
        steps = np.diff(np.sort(np.array(angles) % 360), append=np.sort(np.array(angles) % 360)[0] + 360)
        assert np.allclose(steps, 60.0, atol=1e-3), steps
        camps = [e.polygon for e in t.expedition_camps]
        assert all(a.disjoint(b) for a, b in itertools.combinations(camps, 2))


# --- reproducibility and JSON -----------------------------------------------------------------

def test_same_seed_same_layout_byte_for_byte(setups):
    for s in setups[:5]:
        again = random_setup(s.players, s.seed)
        assert text(again) == text(s)
    assert text(random_setup(3, 11)) != text(random_setup(3, 12))
    # The table does not depend on the number of players.
    assert json.dumps(random_setup(2, 5).table.to_json()) == \
        json.dumps(random_setup(4, 5).table.to_json())


def test_same_seed_same_layout_in_a_fresh_process(setups):
    """No hidden state: another interpreter makes the same JSON text from the same seed."""
    setup = setups[42]
    code = ("import json, sys; from games.anasazi.layout import random_setup; "
            f"sys.stdout.write(json.dumps(random_setup({setup.players}, 42).to_json()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == text(setup)


def test_make_setup_is_the_json_of_random_setup():
    assert make_setup(3, 9) == random_setup(3, 9).to_json()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 199),
       dx=st.floats(-1e3, 1e3, allow_nan=False), dy=st.floats(-1e3, 1e3, allow_nan=False))
def test_json_round_trip_is_exact(setups, index, dx, dy):
    """A setup, also with every coordinate shifted by arbitrary floats, survives
    JSON text -> Setup -> JSON text unchanged."""
    data = json.loads(text(setups[index]))
    for item in data["mesas"] + data["expedition_camps"] + \
            [sec for p in data["pueblos"] for sec in p["sectors"]]:
        item["polygon"]["shell"] = [[x + dx, y + dy] for x, y in item["polygon"]["shell"]]
    first = json.dumps(Setup.from_json(data).to_json())
    second = json.dumps(Setup.from_json(json.loads(first)).to_json())
    assert first == second
    # Without the shift the setup comes back exactly as it was made.
    original = text(setups[index])
    assert json.dumps(Setup.from_json(json.loads(original)).to_json()) == original


def test_json_is_readable_millimetres(setups):
    data = setups[7].to_json()
    assert data["game"] == "anasazi" and data["sizes"]["marker_length"] == 70.0
    x, y = data["mesas"][0]["polygon"]["shell"][0]
    assert isinstance(x, float) and abs(x) < 400 and round(x, 6) == x


# --- explicit layouts that break a rule -------------------------------------------------------

def _shift(poly: dict, dx: float, dy: float) -> None:
    poly["shell"] = [[x + dx, y + dy] for x, y in poly["shell"]]


def _push_out(camp: dict, distance: float) -> None:
    """Move an expedition base camp's tile and start mark `distance` mm away from the centre."""
    x, y = camp["start"]
    ux, uy = x / math.hypot(x, y), y / math.hypot(x, y)
    _shift(camp["polygon"], distance * ux, distance * uy)
    camp["start"] = [x + distance * ux, y + distance * uy]


def _data(setups) -> dict:
    return copy.deepcopy(setups[3].to_json())


def _mesa_index(data: dict, mesa_id: str) -> int:
    return next(i for i, m in enumerate(data["mesas"]) if m["id"] == mesa_id)


def test_a_valid_explicit_layout_loads(setups):
    setup = load_setup(_data(setups))
    assert text(setup) == text(setups[3])
    assert check_table(setup.table) == []


def test_mesas_too_close_are_named(setups):
    data = _data(setups)
    a, b = data["mesas"][13], data["mesas"][14]
    ca = shapely.Polygon(a["polygon"]["shell"]).centroid
    cb = shapely.Polygon(b["polygon"]["shell"]).centroid
    # Move M14 (and its pueblos) halfway towards M13.
    dx, dy = (ca.x - cb.x) / 2, (ca.y - cb.y) / 2
    _shift(b["polygon"], dx, dy)
    for p in data["pueblos"]:
        if p["mesa"] == "M14":
            for sec in p["sectors"]:
                _shift(sec["polygon"], dx, dy)
    with pytest.raises(ValueError, match=r"M13 and M14"):
        load_setup(data)


def test_mesa_without_pueblo_is_named(setups):
    data = _data(setups)
    on = [p for p in data["pueblos"] if p["mesa"] == "M20"]
    # Move M20's pueblos to the centre mesa's pueblo list: counts stay, M20 goes bare.
    for p in on:
        p["mesa"] = "M0"
    with pytest.raises(ValueError, match=r"M20 hold no pueblo"):
        load_setup(data)


def test_sector_off_its_mesa_is_named(setups):
    data = _data(setups)
    sector = data["pueblos"][10]["sectors"][-1]
    _shift(sector["polygon"], 120.0, 0.0)
    with pytest.raises(ValueError, match=rf"sector {sector['id']} is not wholly on its mesa"):
        load_setup(data)


def _sector_reshaped(data: dict, index: int, shell: list[list[float]]) -> tuple[str, list[str]]:
    """Give pueblo `index`'s last sector the outline `shell` (mm, around the sector's
    centroid): its id and the table's setup problems."""
    sector = data["pueblos"][index]["sectors"][-1]
    c = shapely.Polygon(sector["polygon"]["shell"]).centroid
    sector["polygon"]["shell"] = [[c.x + x, c.y + y] for x, y in shell]
    return sector["id"], check_table(Setup.from_json(data).table)


def test_sector_too_small_for_its_piece_is_named(setups):
    """anasazi/3.0/pueblos: a sector holds its piece (a treasure cube of 8 mm here)."""
    sid, problems = _sector_reshaped(_data(setups), 10, [[-3, -3], [3, -3], [3, 3], [-3, 3]])
    assert f"sector {sid} is too small to hold its treasure" in problems


def test_sector_with_room_away_from_its_centroid_is_not_too_small(setups):
    """anasazi/3.0/pueblos: a U-shaped sector, its centroid in the gap between its arms, still
    holds a treasure in either arm (the exact fallback after the centroid's quick test)."""
    u = [[-14, -8], [14, -8], [14, 12], [4, 12], [4, -1], [-4, -1], [-4, 12], [-14, 12]]
    sid, problems = _sector_reshaped(_data(setups), 10, u)
    assert not any(f"sector {sid} is too small" in p for p in problems), problems
    narrow = [[x * 0.45, y] for x, y in u]  # arms 4.5 mm wide: no treasure fits anywhere
    sid, problems = _sector_reshaped(_data(setups), 10, narrow)
    assert f"sector {sid} is too small to hold its treasure" in problems


def test_overlapping_pueblos_and_sectors_are_named(setups):
    """anasazi/3.0/pueblos: pueblos do not overlap, nor do the two sectors of a divided one
    (they only touch along their cut, which is no overlap)."""
    data = _data(setups)
    on_centre = [p for p in data["pueblos"] if p["mesa"] == "M0"]
    a, b = on_centre[0], on_centre[1]
    b["sectors"] = [dict(sector, id=f"{b['id']}{sector['id'][len(a['id']):]}",
                         polygon=copy.deepcopy(sector["polygon"])) for sector in a["sectors"]]
    for sector in b["sectors"]:
        _shift(sector["polygon"], 3.0, 0.0)
    assert f"pueblos {a['id']} and {b['id']} overlap" in check_table(Setup.from_json(data).table)
    data = _data(setups)
    divided = next(p for p in data["pueblos"] if len(p["sectors"]) == 2)
    assert not any("overlap" in p for p in check_table(Setup.from_json(data).table))
    # the small sector 2 mm towards the large one's middle, whichever way the pueblo lies
    small, large = (np.mean(s["polygon"]["shell"], axis=0) for s in divided["sectors"])
    dx, dy = 2.0 * (large - small) / np.hypot(*(large - small))
    _shift(divided["sectors"][0]["polygon"], dx, dy)
    assert f"the sectors of pueblo {divided['id']} overlap" in check_table(
        Setup.from_json(data).table)


@settings(max_examples=40, deadline=None)
@given(st.floats(10, 60), st.floats(0.2, 1.0), st.floats(0.05, 0.95), st.booleans())
def test_a_divided_pueblo_is_cut_into_two_sectors_that_tile_it(length, aspect, share, divided):
    """anasazi/3.0/pueblos: a divided pueblo's small and large sectors cover its outline
    exactly, meeting along the cut (straight across, or clipped where the cut falls in a cut
    corner); a single pueblo is its outline; many at once are each the same."""
    from games.anasazi.layout import pueblo_outline, pueblo_shape, pueblo_shapes

    width = length * aspect
    whole = shapely.Polygon(pueblo_outline(length, width))
    sectors = [shapely.Polygon(part) for part in pueblo_shape(length, width, divided, share)]
    assert len(sectors) == (2 if divided else 1)
    assert all(p.is_valid and p.exterior.is_ccw for p in sectors)
    assert math.isclose(sum(p.area for p in sectors), whole.area, rel_tol=1e-9)
    assert shapely.union_all(sectors).symmetric_difference(whole).area < 1e-9 * whole.area
    if divided:
        small, large = sectors
        assert small.intersection(large).area < 1e-9 * whole.area
        assert math.isclose(small.bounds[2] - small.bounds[0], share * length, rel_tol=1e-9)
    sizes = [(length, width, divided), (width, width / 2, not divided)]
    many = pueblo_shapes(*map(np.array, zip(*sizes)), share)[1]
    for made, (long, wide, cut) in zip(many, sizes):
        assert [p.tolist() for p in made] == [p.tolist() for p in pueblo_shape(long, wide, cut, share)]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-200, 200), st.floats(-200, 200), st.floats(1, 60),
                          st.floats(1, 60), st.floats(0, 3.2)), min_size=2, max_size=12),
       st.floats(0, 80))
def test_pairs_and_gaps_found_through_boxes_are_every_near_pair(rects, limit):
    """The setup checks find near pieces through their bounding boxes: the same pairs and
    distances as measuring every pair."""
    from games.anasazi.layout import _camp_gaps, _pairs_closer

    geoms = np.array([shapely.affinity.rotate(shapely.box(x, y, x + w, y + h), turn,
                                              use_radians=True) for x, y, w, h, turn in rects])
    every = [(i, j, float(shapely.distance(geoms[i], geoms[j])))
             for i, j in itertools.combinations(range(len(geoms)), 2)]
    assert _pairs_closer(list(geoms), limit) == [(i, j, d) for i, j, d in every if d < limit]
    tiles, mesas = geoms[:2], geoms[2:]
    exact = shapely.distance(tiles[:, None], mesas[None]).reshape(len(tiles), -1)
    gaps = _camp_gaps(tiles, mesas, limit)
    for k in range(len(tiles)):
        near = exact[k] <= limit
        want = exact[k] if not near.any() or not len(mesas) else np.where(near, exact[k], np.inf)
        assert np.array_equal(gaps[k][:len(mesas)], want) if len(mesas) else np.isinf(gaps[k]).all()


def test_camp_outside_the_play_area_or_far_from_mesas_is_named(setups):
    data = _data(setups)
    _push_out(data["expedition_camps"][2], 60.0)
    with pytest.raises(ValueError, match=r"expedition camp E3 hangs .* over the play area"):
        load_setup(data)
    data = _data(setups)
    sizes = dict(data["sizes"], play_area_radius=600.0)
    data["sizes"] = sizes
    for camp in data["expedition_camps"]:
        _push_out(camp, 150.0)
    with pytest.raises(ValueError, match=r"expedition camp E\d is .* from the nearest mesa"):
        load_setup(data)


def test_uneven_camps_are_named(setups):
    data = _data(setups)
    camp = data["expedition_camps"][0]
    x, y = camp["start"]
    turn = math.radians(25)
    c, s = math.cos(turn), math.sin(turn)
    camp["polygon"]["shell"] = [[px * c - py * s, px * s + py * c]
                                for px, py in camp["polygon"]["shell"]]
    camp["start"] = [x * c - y * s, x * s + y * c]
    with pytest.raises(ValueError, match=r"expedition camps E1 and E\d are .* degrees apart"):
        load_setup(data)


def test_wrong_counts_are_named(setups):
    data = _data(setups)
    data["mesas"][5]["ring"] = "outer"
    with pytest.raises(ValueError, match=r"11 inner mesas"):
        load_setup(data)
    data = _data(setups)
    data["towers"][next(iter(data["towers"]))] = "red" if \
        data["towers"][next(iter(data["towers"]))] != "red" else "blue"
    with pytest.raises(ValueError, match=r"towers: \d red|towers: \d blue"):
        load_setup(data)


@pytest.mark.parametrize("field, value, message", [
    ("colour", "red", r"^colour: unknown field"),
    ("players", 5, "^players: must be 2 to 4"),
    ("players", None, "^players: must be int"),
    ("first_player", 3, "^first_player: must be 0 to 1"),
    ("objectives", ["red", "red", "red"], "^objectives: must hold one card per player"),
])
def test_malformed_setup_fields_are_named(setups, field, value, message):
    data = copy.deepcopy(setups[0].to_json())  # 2 players
    data[field] = value
    with pytest.raises(ValueError, match=message):
        Setup.from_json(data)


def test_malformed_geometry_is_named(setups):
    data = _data(setups)
    data["mesas"][4]["polygon"]["shell"][0][0] = float("nan")
    with pytest.raises(ValueError, match=r"^mesas\[4\]\.polygon: "):
        Setup.from_json(data)
    data = _data(setups)
    del data["pueblos"][0]["sectors"][0]["kind"]
    with pytest.raises(ValueError, match=r"^pueblos\[0\]\.sectors\[0\]\.kind: missing field"):
        Setup.from_json(data)
    with pytest.raises(ValueError, match=r"sizes.valley_gap"):
        Sizes(valley_gap=-1.0)
    with pytest.raises(ValueError, match=r"seed must be"):
        random_table(-1)
    with pytest.raises(ValueError, match=r"players must be 2 to 4, not 5"):
        random_setup(5, 1)


def test_given_mesa_shapes_are_laid_out():
    shapes = [shapely.Point(0, 0).buffer(80)] + [shapely.box(-35, -35, 35, 35)] * 12 \
        + [shapely.Point(0, 0).buffer(40)] * 15
    table = random_table(4, options=LayoutOptions(mesa_shapes=shapes))
    assert check_table(table) == []
    assert math.isclose(table.mesa("M3").polygon.area, 70 * 70, rel_tol=1e-6)
    with pytest.raises(ValueError, match="mesa_shapes must hold 28"):
        LayoutOptions(mesa_shapes=shapes[:5])


def test_table_lookups(setups):
    t = setups[0].table
    divided = next(p for p in t.pueblos if p.divided)
    assert t.pueblo_of(divided.id + "s") is divided
    assert t.mesa_of(divided.id + "l").id == divided.mesa
    assert t.sector(divided.id + "s").kind == "small"
    with pytest.raises(KeyError, match="no sector 'P99'"):
        t.sector("P99")
    assert t.play_area.contains(shapely.Point(0, 399))


# --- drawing ----------------------------------------------------------------------------------

def test_drawing_to_png_svg_pdf(setups, tmp_path):
    from geomsim.plotting import save
    from games.anasazi.draw import draw_table

    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")):
        path = save(draw_table(setups[7]), tmp_path / f"table{suffix}")
        assert path.read_bytes().startswith(magic)


@pytest.mark.parametrize("text", ["M12", "P43s", "E4", "?", "player 4 base camp"])
@pytest.mark.parametrize("bold", [False, True])
def test_labels_made_of_kept_glyphs_match_matplotlib_text_paths(text, bold):
    """Labels set from glyphs made once per character are matplotlib's text outline (kerning
    aside, a few hundredths of the height at most)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath
    from games.anasazi.draw import _glyphs

    verts, codes = _glyphs(text, bold, "left")
    path = TextPath((0, 0), text, size=1.0,
                    prop=FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal"))
    reference = path.vertices - [path.get_extents().x0, 0.36]
    assert (codes == path.codes).all()
    assert np.abs(verts - reference).max() < 0.05


def _pixels(ax) -> np.ndarray:
    ax.figure.canvas.draw()
    return np.asarray(ax.figure.canvas.buffer_rgba())


def test_revealed_drawing_differs_from_hidden(setups):
    from games.anasazi.draw import PIECE_COLOURS, draw_table

    hidden = _pixels(draw_table(setups[7]))
    revealed = _pixels(draw_table(setups[7], reveal=True))
    assert hidden.shape == revealed.shape and (hidden != revealed).any()
    # Knowing one tower shows its colour without revealing the rest.
    view = TableView.initial(setups[7])
    sid, colour = next(iter(setups[7].towers.items()))
    view.known_towers = {sid: colour}
    known = _pixels(draw_table(setups[7], view))
    assert (known != hidden).any() and (known != revealed).any()
    assert set(PIECE_COLOURS) == set(COLOURS)


def test_drawing_a_game_in_progress(setups):
    pytest.importorskip("games.anasazi.legality")
    from games.anasazi.draw import draw_table
    from geomsim.geometry import Pose

    s = setups[7]
    view = TableView.initial(s)
    x, y = s.table.expedition_camps[0].start
    heading = math.degrees(math.atan2(-y, -x))
    view.expeditions = {"E1": [Pose(x * 0.9, y * 0.9, heading), Pose(x * 0.75, y * 0.75, heading)]}
    view.base_camps = [(0, 0.0, 0.0), (1, 10.0, 300.0)]
    view.track = {"red": 2, "blue": 0, "white": 1, "yellow": 0}
    view.bonus = ("blue",)
    before = _pixels(draw_table(s))
    after = _pixels(draw_table(s, view))
    assert (before != after).any()

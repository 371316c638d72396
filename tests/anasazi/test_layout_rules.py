"""The random layout meets the setup rules by construction (issue 30): with the default options
`random_table` does not run `check_table`, so these tests prove on many seeds that every table
it returns passes it, and check the pieces the proof rests on: the numpy bounds of the rules
that depend on where the tiles settled never pass what `check_table` refuses, the two discs
cover a pueblo, the polar view of an outline finds the cliff a ray crosses, and tables with
other options are still judged in full.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from games.anasazi import layout
from games.anasazi.components import Sizes
from games.anasazi.layout import LayoutOptions, check_table, random_table

# Seeds spread far beyond the ones other tests use.
MANY = range(100_000, 3_100_000, 20_000)


def test_every_random_table_meets_the_setup_rules():
    """`anasazi/3.0/table`: 150 seeds, each table passes `check_table`; the construction's own
    promises hold too (pueblos `pueblo_margin` inside their cliff and `pueblo_spacing` apart)."""
    options = LayoutOptions()
    for seed in MANY:
        table = random_table(seed)
        assert check_table(table) == [], seed
        mesas = {m.id: m.polygon for m in table.mesas}
        pueblos = [p.polygon for p in table.pueblos]
        cliff = shapely.distance(pueblos, [mesas[p.mesa].exterior for p in table.pueblos])
        assert cliff.min() >= options.pueblo_margin - 1e-6, seed
        on = np.array([p.mesa for p in table.pueblos])
        i, j = np.triu_indices(len(pueblos), k=1)
        same = on[i] == on[j]
        gaps = shapely.distance(np.array(pueblos)[i[same]], np.array(pueblos)[j[same]])
        assert gaps.min() >= options.pueblo_spacing - 1e-6, seed


def _unjudged(seed: int, sizes: Sizes) -> layout.Table:
    """The first table `_try_table` lays for `seed` with `sizes`, judged by nothing."""
    for attempt in range(8):
        table = layout._try_table(np.random.default_rng([seed, 0, attempt]), sizes, LayoutOptions())
        if table is not None:
            return table
    raise AssertionError(f"no table for seed {seed}")


@pytest.mark.parametrize("marker_length", [20.0, 30.0, 45.0])
def test_the_settled_rules_pass_no_camp_that_check_table_refuses(marker_length):
    """`anasazi/3.0/table`: with markers short enough that some expedition camps lie a marker
    or more from every mesa, the numpy bound names every camp `check_table` names (and may
    name more: it measures to the mesas' corners)."""
    named = 0
    for seed in range(12):
        table = _unjudged(seed, Sizes(marker_length=marker_length))
        exact = {p.split()[2] for p in check_table(table) if "from the nearest mesa" in p}
        bound = {p.split()[2] for p in layout._settled_problems(table)
                 if "from the nearest mesa" in p}
        assert exact <= bound, (seed, exact, bound)
        named += len(exact)
    assert named, "no camp was too far: the test proves nothing"


def test_the_settled_rules_pass_no_sector_that_check_table_cannot_reach():
    """`anasazi/3.0/table`: with a marker so wide that sectors near the edge cannot be reached,
    the numpy bound names every sector `check_table` names."""
    named = 0
    for seed in range(6):
        table = _unjudged(seed, Sizes(marker_width=520.0))
        exact = {p.split()[1] for p in check_table(table) if "cannot be reached" in p}
        bound = {p.split()[1] for p in layout._settled_problems(table) if "reachable" in p}
        assert exact <= bound, (seed, exact, bound)
        named += len(exact)
    assert named, "no sector was out of reach: the test proves nothing"


def test_other_options_are_judged_by_check_table(monkeypatch):
    """Only the default options and sizes (the marker's aside) skip `check_table`."""
    judged: list[int] = []

    def check(table: layout.Table) -> list[str]:
        judged.append(1)
        return []

    monkeypatch.setattr(layout, "check_table", check)
    random_table(5)
    random_table(5, sizes=Sizes(marker_length=60.0))
    assert judged == []
    random_table(5, options=LayoutOptions(jitter=11.0))
    random_table(5, sizes=Sizes(valley_gap=17.0))
    assert len(judged) == 2


@settings(max_examples=60, deadline=None)
@given(st.floats(10, 60), st.floats(0.3, 1.0), st.floats(0.8, 1.2))
def test_two_discs_cover_a_pueblo(length, aspect, scale):
    """Every point of a pueblo's octagon lies in one of its two covering discs: pueblos whose
    discs keep `pueblo_spacing` keep it themselves."""
    octagon = layout.pueblo_outline(length * scale, length * aspect * scale)
    e, radius = layout._discs(layout.complex_of(octagon)[None])
    x0, y0, x1, y1 = shapely.Polygon(octagon).bounds
    gx, gy = np.meshgrid(np.linspace(x0, x1, 41), np.linspace(y0, y1, 41))
    inside = shapely.contains_xy(shapely.Polygon(octagon), gx, gy) \
        | shapely.intersects_xy(shapely.Polygon(octagon).exterior, gx, gy)
    near = np.minimum(np.hypot(gx - e[0], gy), np.hypot(gx + e[0], gy))
    assert (near[inside] <= radius[0] + 1e-9).all()
    # and no larger than they must be: the octagon's half reaches its disc's rim
    right = octagon[octagon[:, 0] >= 0]
    assert np.hypot(*(right - [e[0], 0]).T).max() == pytest.approx(radius[0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=30), st.sampled_from([0.5, 1.0, 4.0]))
def test_the_binned_search_gives_numpys_indices(ticks, scale):
    """`_Search` returns what `np.searchsorted` does (side "left"), with ties, values on bin
    edges and several values in one bin among the values and the queries, and queries beyond
    the limit, infinite or NaN."""
    values = np.sort(np.array(ticks, float) / 8)
    limit = float(values[-1]) + 1.0
    queries = np.concatenate([values, np.nextafter(values, 0.0), np.nextafter(values, np.inf),
                              np.linspace(0.0, limit, 57), [limit * 3, np.inf, np.nan]])
    assert (layout._Search(values, scale, limit)(queries)
            == np.searchsorted(values, queries)).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(10, 60), st.floats(0.2, 1.0), st.booleans()), min_size=1,
                max_size=8), st.floats(0.2, 0.5))
def test_the_sectors_laid_end_to_end_are_pueblo_shapes(pueblos, share):
    """`_sector_rings` (one gather when every cut runs straight, sector by sector when one is
    clipped) lays out exactly `pueblo_shapes`' sectors, pueblo by pueblo."""
    length = np.array([p[0] for p in pueblos])
    width, divided = length * [p[1] for p in pueblos], np.array([p[2] for p in pueblos])
    octagons, sectors = layout.pueblo_shapes(length, width, divided, share)
    made, coords, lengths, split = layout._sector_rings(length, width, divided, share)
    parts = [part for pueblo in sectors for part in pueblo]
    assert np.array_equal(made, octagons)
    assert np.array_equal(coords, np.concatenate(parts))
    assert lengths == [len(part) for part in parts] and split == [len(p) for p in sectors]


def test_the_polar_view_finds_the_cliff_a_ray_crosses():
    """`_Polar.reach` is where a ray from the centre meets the outline (shapely's intersection),
    and `_Polar.depth` how far a point on that ray lies inside the line of the edge it meets."""
    outlines = layout.mesa_outlines(np.random.default_rng(7), LayoutOptions())
    polar = layout._Polar(outlines)
    u = np.exp(1j * (np.linspace(0.0, 2 * math.pi, 97)[:-1] + 0.01))
    for m in (0, 5, 20):
        ring = shapely.LinearRing(outlines[m])
        reach = polar.reach(np.full(len(u), m), u)
        depth = polar.depth(np.full(len(u), m), 0.5 * reach * u)
        a, b = outlines[m], np.roll(outlines[m], -1, axis=0)
        for ray, r, d in zip(u, reach, depth):
            hit = ring.intersection(shapely.LineString([(0, 0), (300 * ray.real, 300 * ray.imag)]))
            assert math.hypot(hit.x, hit.y) == pytest.approx(r, abs=1e-9)
            # the edge the ray meets, and the half-way point's distance from its line
            k = np.argmin(shapely.distance(hit, shapely.linestrings(np.stack([a, b], axis=1))))
            edge, point = b[k] - a[k], 0.5 * np.array([hit.x, hit.y])
            line = abs(edge[0] * (point - a[k])[1] - edge[1] * (point - a[k])[0]) / np.hypot(*edge)
            assert d == pytest.approx(line, abs=1e-9)


def test_outlines_are_star_shaped_and_given_ones_must_be():
    """Random outlines go once round their centre; a given outline that does not (a U) is
    refused, a box and a disc are taken."""
    for seed in range(20):
        assert all(layout.star_shaped(o)
                   for o in layout.mesa_outlines(np.random.default_rng(seed), LayoutOptions()))
    u_shape = shapely.Polygon([(0, 0), (60, 0), (60, 60), (40, 60), (40, 10), (20, 10), (20, 60),
                               (0, 60)])
    shapes = [shapely.Point(0, 0).buffer(80)] + [shapely.box(-35, -35, 35, 35)] * 12 \
        + [shapely.Point(0, 0).buffer(40)] * 15
    LayoutOptions(mesa_shapes=shapes)
    with pytest.raises(ValueError, match="star-shaped"):
        LayoutOptions(mesa_shapes=[u_shape] + shapes[1:])
    assert not layout.star_shaped(np.array([[1.0, 0.0], [0.0, -1.0], [-1.0, 0.0], [0.0, 1.0]]))


def test_smallest_pueblos_hold_their_pieces():
    """The sectors of the smallest pueblos the default options make (1 - pueblo_size_jitter)
    hold a tower or a treasure: so do all (`check_table` need not judge it per table)."""
    options, sizes = LayoutOptions(), Sizes()
    small = 1 - options.pueblo_size_jitter
    length, width = np.array([options.divided_pueblo, options.single_pueblo]).T * small
    _, sectors = layout.pueblo_shapes(length, width, np.array([True, False]), options.small_share)
    polys = np.array([shapely.Polygon(s) for pueblo in sectors for s in pueblo])
    need = np.array([sizes.tower_radius, sizes.treasure_size / 2, sizes.treasure_size / 2])
    assert layout._holds_disc(polys, need - 0.05).all()

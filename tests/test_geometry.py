"""Batched analytic tests agree with exact shapely geometry."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from geomsim.geometry import (
    Pose,
    distance_to_rectangle,
    farthest_corner_distance,
    inside_rectangle,
    polygon_coords,
    polygon_from_coords,
    rectangle_corners,
    rectangles,
    to_frames,
)

coord = st.floats(-200, 200, allow_nan=False)
heading = st.floats(-360, 360, allow_nan=False)


@given(coord, coord, heading, st.lists(st.tuples(coord, coord), min_size=1, max_size=8))
def test_batched_distance_matches_shapely(x, y, h, points):
    rect = rectangles([x], [y], [h], 70, 16)[0]
    px, py = np.array(points).T
    batched = distance_to_rectangle(to_frames(px, py, x, y, h), 35, 8)[0]
    exact = shapely.distance(rect, shapely.points(px, py))
    np.testing.assert_allclose(batched, exact, atol=1e-7)


@given(coord, coord, heading, st.lists(st.tuples(coord, coord), min_size=1, max_size=8),
       st.floats(0.5, 7.5))
def test_disc_inside_like_shapely(x, y, h, points, r):
    """A disc lies in the rectangle when its centre lies in the rectangle shrunk by r."""
    rect = rectangles([x], [y], [h], 70, 16)[0]
    px, py = np.array(points).T
    batched = inside_rectangle(to_frames(px, py, x, y, h), 35 - r, 8 - r)[0]
    depth = np.where(shapely.contains_xy(rect, px, py),
                     shapely.distance(rect.exterior, shapely.points(px, py)), -1.0)
    clear = np.abs(depth - r) > 1e-7  # tangent discs are decided by the next test
    np.testing.assert_array_equal(batched[clear], (depth >= r)[clear])


def test_tangent_disc_counts_as_inside():
    # A disc of radius 4 centred 4 mm inside the long edge touches it from within.
    local = to_frames([0.0], [4.0], 0.0, 0.0, 0.0)
    assert inside_rectangle(local, 35 - 4, 8 - 4)[0, 0]
    assert not inside_rectangle(local, 35 - 4.001, 8 - 4.001)[0, 0]


def test_rectangles_have_their_pose():
    rect = rectangles([10], [20], [90], 70, 16)[0]
    minx, miny, maxx, maxy = rect.bounds
    assert (minx, maxx) == pytest.approx((2, 18)) and (miny, maxy) == pytest.approx((-15, 55))
    assert rect.area == pytest.approx(70 * 16)


@given(coord, coord, heading)
def test_farthest_corner_matches_hausdorff_to_centre(x, y, h):
    corners = rectangle_corners(x, y, h, 70, 16)[0]
    expected = np.hypot(corners[:, 0], corners[:, 1]).max()
    assert farthest_corner_distance(x, y, h, 70, 16)[0] == pytest.approx(expected)


def test_pose_refuses_nan():
    with pytest.raises(ValueError, match="pose x must be a finite number"):
        Pose(float("nan"), 0, 0)


def test_polygon_json_round_trip_keeps_holes():
    poly = shapely.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)], [[(2, 2), (4, 2), (4, 4)]])
    again = polygon_from_coords(polygon_coords(poly))
    assert again.equals(poly) and len(again.interiors) == 1


def test_polygon_from_bad_coords_is_a_clear_error():
    with pytest.raises(ValueError, match="finite"):
        polygon_from_coords([[0, 0], [1, float("nan")], [1, 1]])
    with pytest.raises(ValueError, match="invalid polygon"):
        polygon_from_coords([[0, 0], [2, 2], [2, 0], [0, 2]])

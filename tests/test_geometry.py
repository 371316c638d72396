"""Batched analytic tests agree with exact shapely geometry."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from geomsim.geometry import (
    Pose,
    depth_in_rectangle,
    distance_to_rectangle,
    farthest_corner_distance,
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
    along, across = to_frames(px, py, x, y, h)
    batched = distance_to_rectangle(along, across, 70, 16)[0]
    exact = shapely.distance(rect, shapely.points(px, py))
    np.testing.assert_allclose(batched, exact, atol=1e-7)


@given(coord, coord, heading, st.lists(st.tuples(coord, coord), min_size=1, max_size=8),
       st.floats(0.5, 10))
def test_depth_decides_disc_inside_like_shapely(x, y, h, points, r):
    rect = rectangles([x], [y], [h], 70, 16)[0]
    px, py = np.array(points).T
    along, across = to_frames(px, py, x, y, h)
    depth = depth_in_rectangle(along, across, 70, 16)[0]
    exact_depth = np.where(
        shapely.contains_xy(rect, px, py),
        shapely.distance(rect.exterior, shapely.points(px, py)),
        -shapely.distance(rect, shapely.points(px, py)),
    )
    np.testing.assert_allclose(depth, exact_depth, atol=1e-7)


def test_tangent_disc_counts_as_inside():
    # A disc of radius 4 centred 4 mm inside the long edge touches it from within.
    along, across = to_frames([0.0], [4.0], 0.0, 0.0, 0.0)
    assert depth_in_rectangle(along, across, 70, 16)[0, 0] == pytest.approx(4.0)


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

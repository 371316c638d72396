"""The compiled marker check (`games.anasazi.fused`, numba) and the numpy one agree pose by
pose, to the last bit: on random boards, on random poses and on poses placed on the very edge
of legality (a disc `EPS` deep, give or take a few units in the last place, where only the
same arithmetic gives the same verdict). And the exact check answers a clearly legal pose
without shapely."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.anasazi import legality as lg
from geomsim.geometry import Pose

from .test_rules_legality import A, B, R, SIZES, TABLE, _discs, boards, poses

pytest.importorskip("numba")

EPS = lg.EPS
# Beyond touching by EPS (the very limit) and a few last places either side of it.
EDGE_GAPS = [-EPS, -EPS + 1e-13, -EPS - 1e-13, -EPS + 3e-14, -EPS - 3e-14, EPS, -EPS + 1e-12]
angle = st.floats(0.0, 360.0, allow_nan=False, exclude_max=True)


@st.composite
def edge_poses(draw, board, player, expedition):
    """A marker pose on the edge of a rule: the target's disc covered with no room but EPS
    (or a last place more or less), a disc overlapped by EPS, the farthest corner EPS beyond
    the play area's edge."""
    h = draw(angle)
    u = np.array([math.cos(math.radians(h)), math.sin(math.radians(h))])
    n = np.array([-u[1], u[0]])
    g = draw(st.sampled_from(EDGE_GAPS))
    kind = draw(st.sampled_from(["cover", "disc", "edge"]))
    if kind == "cover":  # the target's centre `g` beyond the shrunk rectangle's side or end
        x, y, r = lg.expedition_end(board, expedition)
        half_along, half_across = lg.cover_room(SIZES, r)
        if draw(st.booleans()):
            along, across = draw(st.sampled_from([-g, 2 * half_along + g])), 0.0
        else:
            along, across = half_along, draw(st.sampled_from([-1.0, 1.0])) * (half_across - g)
        return lg.pose_covering((x, y), h, SIZES, along=along, across=across, radius=r,
                                strict=False)
    if kind == "edge":
        corner = A * u + draw(st.sampled_from([-1.0, 1.0])) * B * n
        size = float(np.hypot(*corner))
        centre = (R - size + g) * corner / size
        return Pose(float(centre[0]), float(centre[1]), h)
    dx, dy, dr = draw(st.sampled_from(_discs(board, player, expedition)))
    side = draw(st.sampled_from([-1.0, 1.0]))
    if draw(st.booleans()):
        local = (draw(st.floats(-A, A)), side * (B + dr + g))
    else:
        local = (side * (A + dr + g), draw(st.floats(-B, B)))
    centre = np.array([dx, dy]) - local[0] * u - local[1] * n
    return Pose(float(centre[0]), float(centre[1]), h)


@settings(max_examples=35, deadline=None)
@given(boards(), st.data())
def test_the_compiled_check_agrees_with_numpy_pose_by_pose(made, data):
    """`anasazi/4.2/cover-explorer`, `anasazi/4.2/play-area`, `anasazi/4.2/other-camp`,
    `anasazi/4.2/new-camp`, `anasazi/4.2/explorer-visible`: a batch of random, tangent and
    edge poses gets the same `ok` from the compiled loop as from numpy, with the obstacles
    near the target or all of them."""
    board, expedition, player = made
    batch = data.draw(st.lists(poses(board, player, expedition)
                               | edge_poses(board, player, expedition), min_size=1, max_size=40))
    x, y, h = (np.array(v) for v in zip(*((p.x, p.y, p.heading) for p in batch)))
    for near_target in (True, False):
        ctx = lg.marker_context(board, player, expedition, near_target=near_target)
        fused = lg.check_markers(ctx, x, y, h, fused=True)
        plain = lg.check_markers(ctx, x, y, h, fused=False)
        assert (fused.ok == plain.ok).all(), [p for p, a, b in zip(batch, fused.ok, plain.ok)
                                              if a != b]
        assert fused.broken.keys() == plain.broken.keys()


@settings(max_examples=25, deadline=None)
@given(boards(), st.integers(0, 2**32 - 1))
def test_the_compiled_sampler_filter_agrees_with_numpy(made, seed):
    """`anasazi/4.2/cover-explorer`: `legal_marker_poses` keeps the same covering poses through
    either kernel (the covering test skipped: it holds by construction)."""
    board, expedition, player = made
    ctx = lg.marker_context(board, player, expedition)
    fused = lg.legal_marker_poses(ctx, np.random.default_rng(seed), 300, fused=True)
    plain = lg.legal_marker_poses(ctx, np.random.default_rng(seed), 300, fused=False)
    for a, b in zip(fused, plain):
        assert np.array_equal(a, b)


def test_headings_broadcast_on_both_paths():
    """`anasazi/4.2/cover-explorer`: one heading for many centres, as numpy's broadcasting
    allows; only the markers over E1's start mark (-350, 0) are legal."""
    ctx = lg.marker_context(lg.Board(TABLE), 0, "E1")
    x = np.linspace(-420.0, -280.0, 15)
    fused = lg.check_markers(ctx, x, np.zeros(15), 0.0, fused=True).ok
    plain = lg.check_markers(ctx, x, np.zeros(15), [0.0] * 15, fused=False).ok
    assert (fused == plain).all() and fused.any() and not fused.all()


def test_a_clearly_legal_marker_is_judged_without_shapely(monkeypatch):
    """`anasazi/4.2/cover-explorer`, `anasazi/4.2/other-camp`: the exact check of a marker
    legal by more than MARGIN makes no shapely polygon; one that is illegal, or legal by less
    than MARGIN, still gets shapely's verdict and numbers."""
    legal = lg.pose_covering((-350.0, 0.0), 0.0, SIZES, along=1.0)  # along the x axis
    made = []
    real = lg.marker_polygon
    monkeypatch.setattr(lg, "marker_polygon", lambda *a: made.append(a) or real(*a))

    def judge(gap):  # with another player's camp `gap` mm beyond touching the marker's side
        camp = lg.Camp(1, legal.x, B + SIZES.base_camp_radius + gap)
        return lg.marker_violations(lg.Board(TABLE, (camp,)), 0, "E1", legal)

    assert judge(1.0) == [] and made == []
    assert judge(1e-7) == [] and made  # within MARGIN: shapely says
    made.clear()
    found = judge(-0.5)
    assert [v.rule for v in found] == [lg.OTHER_CAMP] and made
    assert found[0].details["depth_mm"] == pytest.approx(0.5)


def test_a_disc_at_the_very_limit_overlaps_on_both_paths():
    """`anasazi/4.2/other-camp`: where the squared distance of another player's camp from the
    marker equals its squared limit to the last bit (the camp `EPS` deep), both paths count it
    overlapped; a last place farther, neither does."""
    px = -340.0  # heading 0 along the x axis: covers E1's start mark (-350, 0)
    reach = SIZES.base_camp_radius - EPS
    # Camp centres above the marker, a last place apart around touching its side EPS deep.
    y = np.array([B + reach])
    for _ in range(8):
        y = np.concatenate([[np.nextafter(y[0], -np.inf)], y, [np.nextafter(y[-1], np.inf)]])
    depth = np.maximum(y - B, 0.0) ** 2 - reach * reach  # what both kernels compare
    assert (depth == 0.0).any() and (depth > 0.0).any()
    for cy, legal in ((y[depth == 0.0][0], False), (y[depth > 0.0][0], True)):
        ctx = lg.marker_context(lg.Board(TABLE, (lg.Camp(1, px, float(cy)),)), 0, "E1")
        for fused in (True, False):
            assert bool(lg.check_markers(ctx, [px], [0.0], [0.0], fused=fused).ok[0]) == legal

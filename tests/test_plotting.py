"""Drawing basics: collections, holes, discs, and atomic saving in three formats."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from geomsim import plotting


def ring_with_hole():
    return shapely.Polygon([(0, 0), (100, 0), (100, 100), (0, 100)],
                           [[(40, 40), (60, 40), (60, 60), (40, 60)]])


def test_hole_is_left_empty():
    ax = plotting.new_axes(2, 2)
    plotting.draw_polygons(ax, [ring_with_hole()], facecolor="black", edgecolor="black")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_axis_off()
    canvas = ax.figure.canvas
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[..., :3]
    h, w, _ = image.shape
    centre = image[h // 2, w // 2]
    solid = image[int(h * 0.25), int(w * 0.25)]
    assert centre.min() > 200 and solid.max() < 60


def test_polygon_paths_keep_every_ring_of_each_geometry():
    """One path per geometry, in order: a shell and its hole, a box, a multipolygon's parts."""
    multi = shapely.MultiPolygon([shapely.box(200, 0, 210, 10), shapely.box(300, 0, 305, 5)])
    paths = plotting.polygon_paths([ring_with_hole(), shapely.box(0, 0, 1, 1), multi])
    assert [int((p.codes == p.MOVETO).sum()) for p in paths] == [2, 1, 2]
    assert [len(p.vertices) for p in paths] == [10, 5, 10]
    assert paths[2].vertices[:, 0].min() == 200 and paths[2].vertices[:, 0].max() == 305
    # The hole winds against the shell (what leaves it empty when filled).
    shell, hole = paths[0].vertices[:5], paths[0].vertices[5:]
    assert shapely.LinearRing(shell).is_ccw != shapely.LinearRing(hole).is_ccw


def test_discs_are_in_data_units():
    ax = plotting.new_axes()
    plotting.draw_discs(ax, [0, 100], [0, 0], 10)
    x0, x1 = ax.get_xlim()
    assert x0 <= -10 and x1 >= 110


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_save_writes_each_format(tmp_path, suffix, magic):
    ax = plotting.new_axes(2, 2)
    plotting.draw_polygons(ax, [ring_with_hole()], facecolor="tan")
    path = plotting.save(ax, tmp_path / f"out{suffix}")
    assert path.read_bytes().startswith(magic)


def test_save_refuses_unknown_format_and_leaves_no_file(tmp_path):
    ax = plotting.new_axes(2, 2)
    with pytest.raises(ValueError, match="use one of .pdf, .png, .svg"):
        plotting.save(ax, tmp_path / "out.bmp")
    assert list(tmp_path.iterdir()) == []


def test_failed_save_keeps_the_old_file(tmp_path):
    target = tmp_path / "keep.png"
    target.write_bytes(b"old")
    ax = plotting.new_axes(2, 2)
    ax.text(0, 0, "$\\undefinedcommand$")  # mathtext fails while saving
    with pytest.raises(ValueError):
        plotting.save(ax, target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.png"]

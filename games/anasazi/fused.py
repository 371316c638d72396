"""The batched marker check of `games.anasazi.legality` as one compiled loop (numba, the `fast`
extra): every pose judged in one pass, no temporaries.

`markers_ok` gives the very `ok` mask of the numpy path (`legality._markers_numpy`): the same
real arithmetic in the same order (a product, then a sum, each rounded; squared distances
against squared limits), and the same cos and sin of the same radians (numpy's complex `exp`
and numba's `math.cos`/`math.sin` both call the C library), so the two agree pose by pose,
to the last bit, even on the edge of legality (tests/anasazi/test_legality_fused.py).

`legality` imports this module only when numba is installed, on the first batched check.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

# The rows of the `limits` array both kernels read (what `legality.MarkerContext.limits` makes).
TX, TY, HALF_ALONG, HALF_ACROSS, A, B, CORNER, FAR = range(8)


@numba.njit(cache=True, inline="always")
def _pose_ok(px: float, py: float, c: float, s: float, cover: bool,
             limits: NDArray[np.float64], obstacles: NDArray[np.float64]) -> bool:
    """Whether a marker centred at (px, py), heading (c, s), is legal: it covers the target
    (when `cover`), lies on the play area and overlaps none of the obstacles (rows x, y and
    squared reach)."""
    if cover:
        dx, dy = limits[TX] - px, limits[TY] - py
        if not (abs(dx * c + dy * s) <= limits[HALF_ALONG]
                and abs(dy * c - dx * s) <= limits[HALF_ACROSS]):
            return False
    a, b = limits[A], limits[B]
    u, v = abs(px * c + py * s), abs(py * c - px * s)
    if u * (u + 2 * a) + v * (v + 2 * b) + limits[CORNER] > limits[FAR]:
        return False
    for j in range(obstacles.shape[1]):
        dx, dy = obstacles[0, j] - px, obstacles[1, j] - py
        ex = max(abs(dx * c + dy * s) - a, 0.0)
        ey = max(abs(dy * c - dx * s) - b, 0.0)
        if ex * ex + ey * ey <= obstacles[2, j]:
            return False
    return True


@numba.njit(cache=True)
def markers_ok(x: NDArray[np.float64], y: NDArray[np.float64], turn: NDArray[np.float64],
               cover: bool, limits: NDArray[np.float64], obstacles: NDArray[np.float64],
               out: NDArray[np.bool_]) -> None:
    """`out[i]`: whether the marker at (x[i], y[i]) heading turn[i] (radians) is legal."""
    for i in range(len(x)):
        out[i] = _pose_ok(x[i], y[i], math.cos(turn[i]), math.sin(turn[i]), cover, limits,
                          obstacles)


def warm() -> None:
    """Compile `markers_ok` (or load it from numba's cache): `geomsim.compiled.prepare` calls
    this before test workers or pools start, so that none of them compiles it again."""
    one = np.zeros(1)
    markers_ok(one, one, one, True, np.zeros(8), np.zeros((3, 0)), np.zeros(1, np.bool_))

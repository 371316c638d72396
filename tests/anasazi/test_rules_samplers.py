"""The samplers' one-by-one judges agree with the batched checks they stand in for.

`first_legal_marker_poses` and `first_legal_camps` judge a handful of candidates in plain Python
for speed; on the same candidates they must find exactly the poses that `legal_marker_poses`
(through `check_markers`) and `check_camp_points` find legal. Rules: `anasazi/4.2/cover-explorer`
and the marker rules that the batched path enforces, `anasazi/4.1/valley` and the camp rules.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geomsim
from games.anasazi.legality import (
    check_camp_points,
    cover_room,
    covering_candidates,
    first_legal_camps,
    first_legal_marker_poses,
    legal_marker_poses,
    marker_context,
)
from geomsim.testing import random_playout

GAME = geomsim.load_game("anasazi")


@pytest.fixture(scope="module")
def boards():
    """Boards from the start, the middle and late in random games."""
    found = []
    for seed in (1, 2):
        for steps in (8, 40, 90):
            state = GAME.new_state(players=3, seed=seed)
            rng = np.random.default_rng(seed)
            for _ in range(steps):
                if state.is_over():
                    break
                player = state.to_move()[0]
                state.apply(state.legal_actions(player).sample(rng, 1)[0], player)
            found.append(state)
    return found


def test_boards_have_expeditions_and_camps(boards):
    late = boards[-1]
    assert any(late.expeditions.values()) and late.camps


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5), st.integers(0, 2), st.sampled_from(["E1", "E2", "E3", "E4", "E5", "E6"]),
       st.integers(0, 2**32 - 1), st.integers(1, 200))
def test_first_legal_marker_poses_match_the_batched_filter(boards, which, player, expedition,
                                                           seed, n):
    board = boards[which].board()
    ctx = marker_context(board, player, expedition)
    xs, ys, hs = legal_marker_poses(ctx, np.random.default_rng(seed), n)
    batched = list(zip(xs.tolist(), ys.tolist(), hs.tolist()))
    one_by_one = first_legal_marker_poses(ctx, np.random.default_rng(seed), n, want=n)
    np.testing.assert_allclose(np.array(one_by_one).reshape(-1, 3),
                               np.array(batched).reshape(-1, 3), atol=1e-9)
    few = first_legal_marker_poses(ctx, np.random.default_rng(seed), n, want=2)
    assert few == one_by_one[:2]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5), st.integers(0, 2**32 - 1), st.integers(1, 300))
def test_first_legal_camps_match_the_batched_check(boards, which, seed, n):
    board = boards[which].board()
    radius = board.sizes.play_area_radius
    z = (np.random.default_rng(seed).uniform(-radius, radius, size=(n, 2))
         .view(np.complex128).ravel())
    batched = z[check_camp_points(board, z).ok].tolist()
    assert first_legal_camps(board, z, want=n) == batched
    assert first_legal_camps(board, z, want=1) == batched[:1]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5), st.sampled_from(["E1", "E2", "E3", "E6"]), st.integers(0, 2**32 - 1),
       st.integers(1, 100))
def test_covering_candidates_draw_as_two_calls_would(boards, which, expedition, seed, n):
    """The candidates are drawn in one call: headings from the first n numbers, offsets from the
    next 2n, exactly as `random(n)` then `random((n, 2))` give them (the same poses as before)."""
    ctx = marker_context(boards[which].board(), 0, expedition)
    p, e, turn = covering_candidates(ctx, np.random.default_rng(seed), n)
    rng = np.random.default_rng(seed)
    expected_turn = (2.0 * np.pi) * rng.random(n)
    half = np.array(cover_room(ctx.sizes, ctx.target[2]))
    q = (rng.random((n, 2)) * 2.0 * half - half).view(np.complex128).ravel()
    expected = complex(ctx.target[0], ctx.target[1]) - q * np.exp(1j * expected_turn)
    assert (turn == expected_turn).all() and (p == expected).all()

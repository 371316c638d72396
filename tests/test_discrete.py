"""Deck, track, sealed choices and the bounded grid."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geomsim.discrete import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    BoundedGrid,
    Deck,
    SealedChoices,
    Track,
    parse_sides,
    rank_by,
    rotate_sides,
    seat_order,
    sides_text,
)


def test_deck_draws_from_the_top_and_puts_on_the_bottom():
    deck = Deck(["a", "b", "c"])
    assert deck.draw_one() == "a"
    deck.put_bottom("a")
    assert deck.cards == ["b", "c", "a"] and deck.observe() == {"size": 3}
    with pytest.raises(IndexError):
        deck.draw(4)


@given(st.lists(st.integers(), max_size=30), st.integers(0, 2**32 - 1))
def test_deck_shuffle_keeps_cards_and_round_trips(cards, seed):
    deck = Deck(list(cards))
    deck.shuffle(np.random.default_rng(seed))
    assert sorted(deck.cards) == sorted(cards)
    assert Deck.from_json(deck.to_json()).cards == deck.cards


def test_track_fills_from_the_start_and_shows_the_first_free_value():
    track = Track((6, 4, 2, 1))
    assert track.current == 6 and track.first_free == 0
    track.fill(2)
    assert track.current == 2 and track.free == 2
    with pytest.raises(ValueError):
        track.fill(3)
    assert Track.from_json(track.to_json()) == track


def test_sealed_choices_reveal_only_when_complete():
    sealed = SealedChoices((0, 1, 2))
    sealed.submit(1, 4)
    with pytest.raises(RuntimeError, match="sealed"):
        sealed.reveal()
    assert sealed.observe(0) == {"decided": [1], "own": None}
    assert sealed.observe(1)["own"] == 4
    with pytest.raises(ValueError, match="already chosen"):
        sealed.submit(1, 2)
    sealed.submit(0, 0)
    sealed.submit(2, 1)
    assert sealed.reveal() == {0: 0, 1: 4, 2: 1}
    assert SealedChoices.from_json(sealed.to_json()) == sealed


@given(st.integers(0, 15), st.integers(-8, 8))
def test_rotation_is_a_group_action(sides, k):
    assert rotate_sides(rotate_sides(sides, k), -k) == sides
    assert bin(rotate_sides(sides, k)).count("1") == bin(sides).count("1")
    assert parse_sides(sides_text(sides)) == sides


def test_rotation_turns_north_to_east():
    assert rotate_sides(NORTH, 1) == EAST and rotate_sides(WEST, 1) == NORTH


def test_grid_bound_is_relative_to_placed_cells():
    grid = BoundedGrid(5)
    for x in range(5):
        grid.place((x - 2, 0), EAST | WEST)
    assert not grid.within_bound((3, 0)) and not grid.within_bound((-3, 0))
    assert grid.within_bound((0, 4)) and not grid.within_bound((0, 5))
    with pytest.raises(ValueError, match="larger than 5 x 5"):
        grid.place((3, 0), EAST)


def test_paths_need_both_facing_sides_open():
    grid = BoundedGrid(5, {(0, 0): EAST | SOUTH, (1, 0): WEST | NORTH, (1, 1): SOUTH, (2, 0): WEST})
    assert grid.connected((0, 0), (1, 1))
    assert not grid.connected((0, 0), (2, 0))  # (1, 0) is walled on its east side
    assert grid.distances((0, 0)) == {(0, 0): 0, (1, 0): 1, (1, 1): 2}
    assert grid.distances((0, 0), max_steps=1) == {(0, 0): 0, (1, 0): 1}
    assert grid.connects((2, 1), WEST) is False
    assert grid.connects((1, 2), SOUTH) is False and grid.connects((0, -1), NORTH)


def test_grid_json_round_trip():
    grid = BoundedGrid(5, {(0, 0): NORTH | EAST, (-1, 3): 15})
    assert BoundedGrid.from_json(grid.to_json()) == grid
    assert grid.frontier()[0] == (-2, 3)


def test_seat_order_and_rank_by():
    assert seat_order(2, 4) == [2, 3, 0, 1]
    assert rank_by([1, 3, 3, 0], seat_order(2, 4)) == [2, 1, 0, 3]

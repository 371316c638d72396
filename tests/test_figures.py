"""Game figures for batch analysis and evaluation heuristics for greedy players."""

from __future__ import annotations

import geomsim
from geomsim.testing import random_playout


def test_cibola_figures_count_what_was_taken():
    state = random_playout(geomsim.load_game("cibola"), 3, seed=5)
    figures = state.figures()
    taken = sum(v for k, v in figures.items() if k.endswith(" taken"))
    assert taken == sum(sum(c) for c in state.counts) > 0
    assert figures["explorers left"] == sum(state.explorers)
    assert figures["rocks placed"] == sum(sum(c) for c in state.covered) <= 13


def test_aztekz_figures_count_piles():
    state = random_playout(geomsim.load_game("aztekz"), 2, seed=4)
    figures = state.figures()
    assert figures["cards showing"] == len(state.grid) <= 25
    assert figures["piles"] == sum(len(p) for p in state.piles)
    assert figures["souls in piles"] == sum(state.souls_collected())


def test_aztekz_evaluation_rewards_a_growing_pile():
    state = geomsim.load_game("aztekz").new_state(2, seed=1)
    base = state.evaluate(0)
    state.carry[0][1] = ("sun", 3)
    assert state.evaluate(0) == base + 1.0
    assert state.scores()[0] == 0.0


def test_anasazi_figures_count_the_table():
    state = random_playout(geomsim.load_game("anasazi"), 3, seed=2)
    figures = state.figures()
    assert figures["markers laid"] == sum(len(m) for m in state.expeditions.values()) > 0
    assert figures["base camps built"] == len(state.camps) >= 6
    assert sum(v for k, v in figures.items() if k.endswith("towers placed")) == sum(state.track.values())
    held = sum(v for k, v in figures.items() if k.endswith("treasures held"))
    assert held == sum(sum(h.values()) for h in state.hands) > 0

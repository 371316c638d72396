"""Game figures for batch analysis and evaluation heuristics for greedy players."""

from __future__ import annotations

import numpy as np

import geomsim
from geomsim.testing import random_playout


def test_cibola_figures_count_what_was_taken():
    state = random_playout(geomsim.load_game("cibola"), 3, seed=5)
    figures = state.figures()
    taken = sum(v for k, v in figures.items() if k.endswith(" taken"))
    assert taken == sum(sum(c) for c in state.counts) > 0
    assert figures["explorers left"] == sum(state.explorers)
    assert figures["rocks placed"] == sum(sum(c) for c in state.covered) <= 13
    assert figures["ending"] == "deck"


def test_aztekz_figures_count_piles():
    state = random_playout(geomsim.load_game("aztekz"), 2, seed=4)
    figures = state.figures()
    assert figures["cards showing"] == len(state.grid) <= 25
    assert figures["piles"] == sum(len(p) for p in state.piles)
    assert figures["souls in piles"] == sum(state.souls_collected())
    # aztekz/end/last-card: the deck ran out; aztekz/end/stall otherwise
    assert figures["ending"] == ("last card" if not len(state.deck) else "stall")


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
    assert figures["towers moved"] == sum(state.track.values())
    # anasazi/5.0/end-markers, anasazi/5.0/end-towers: how the game ended
    assert figures["ending"] == ("markers" if state.markers_left() <= 0 else "towers")


def test_anasazi_choice_figures_at_the_start_of_a_turn_only():
    """The legal share of covering poses drawn from every end, and the pueblos they touch, at
    the first action of a round; nothing in setup, at a follow-up or on another's turn."""
    game = geomsim.load_game("anasazi")
    state = game.new_state(4, seed=6)
    assert state.choice_figures(state.current) == {}  # setup
    rng = np.random.default_rng(0)
    while state.phase != "play":
        state.apply(state.legal_actions().sample(rng, 1)[0])
    assert state.current == state.first_player
    found = state.choice_figures(state.current)
    assert 0.0 < found["legal share of sampled poses"] <= 1.0
    assert found["reachable pueblos"] >= 0 and found == state.choice_figures(state.current)
    assert state.choice_figures((state.current + 1) % 4) == {}
    while state.current == state.first_player:
        state.apply(state.legal_actions().sample(rng, 1)[0])
    assert state.choice_figures(state.current) == {}  # the next player's turn

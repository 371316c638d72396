"""The compiled random playouts (games/cibola/playout.py) against the rules interface.

`check_playouts` replays every decision of the kernel through `State.apply`; these tests give it
enough games to meet every kind of decision, start the kernel from the middle of games, and make
sure a wrong log, score or winner is caught. The first run compiles the kernel (about 10 s);
numba caches it for later runs.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.cibola import GAME, playout
from geomsim.testing import (
    HarnessFailure,
    check_playouts,
    check_playouts_from,
    playout_length_gap,
)

GAMES = 150


def kinds(playouts) -> set[str]:
    """The kinds of the actions the kernel chose, moves split by direction."""
    actions = {playouts.decode(int(code)) for code in np.unique(playouts.log[:, 1])}
    return {a.kind + (f" {a.direction}" if a.kind == "move" else "") for a in actions}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_replay_through_the_interface(players):
    """Every kernel decision is legal, among as many options as the rules list; the end, scores
    and winners agree; every kind of decision occurs (both rock moves, the copy totem)."""
    playouts = check_playouts(GAME, players, games=GAMES, seed=10 * players)
    assert kinds(playouts) == {"send", "take", "rock", "totem", "move down", "move up", "copy"}
    assert playouts.winners.any(axis=1).all()


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31 - 1))
def test_playouts_replay_from_any_seed(players, seed):
    """Any seed: the kernel's games (its own random numbers from `seed`) replay exactly."""
    check_playouts(GAME, players, games=4, seed=seed)


def mid_game_states(players: int, count: int, seed: int) -> list:
    """States after a random number of random interface decisions (any stage, the end too)."""
    rng = random.Random(seed)
    states = []
    for g in range(count):
        state = GAME.new_state(players, seed=seed + g)
        for _ in range(rng.randrange(120)):
            if state.is_over():
                break
            p = rng.choice(state.to_move())
            actions = state.legal_actions(p)
            state.apply(actions[rng.randrange(len(actions))], p)
        states.append(state)
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_from_mid_game_states(players):
    """The kernel starts from any moment: a half-sealed send, a pending rock, totem or move, a
    finished game (no decision left)."""
    states = mid_game_states(players, 60, seed=100 * players)
    stages = {s.stage for s in states}
    assert {"send", "obtain", "over"} <= stages
    assert any(s.stage == "send" and s.sealed.choices for s in states)
    assert any(s.decision and s.decision[0] != "take" for s in states)
    playouts = check_playouts_from(GAME, states)
    assert (playouts.decisions[[s.is_over() for s in states]] == 0).all()


def test_playouts_from_the_final_copy():
    """States stopped at the copy totem's decision after the last round (the final copy):
    the kernel copies (and moves a rock for a copied move totem) as the interface does."""
    rng = random.Random(3)
    states = []
    seed = 0
    while len(states) < 20:
        state = GAME.new_state(3, seed=seed)
        seed += 1
        while not state.is_over() and state.stage != "final":
            p = state.to_move()[0]
            actions = state.legal_actions(p)
            state.apply(actions[rng.randrange(len(actions))], p)
        if state.stage == "final":
            states.append(state)
    playouts = check_playouts_from(GAME, states)
    assert {a.kind for i in range(len(playouts)) for _, a in playouts.actions(i)} >= {"copy"}


def test_playouts_with_other_components():
    """Components a user overrode (chamber values, rocks) and the variant without the copy totem
    reach the kernel's tables."""
    columns = [dict(c) for c in GAME.new_state(2, seed=0).components.data["columns"]]
    columns[0]["values"] = [9, 7, 5, 3, 1]
    columns[3]["values"] = [20, 1]
    setup = {"components": {"columns": columns, "rocks": 20}, "options": {"copy_totem": False}}
    states = [GAME.new_state(3, seed=s, setup=setup) for s in range(40)]
    playouts = check_playouts_from(GAME, states)
    assert "copy" not in kinds(playouts)


def tampered(monkeypatch, change) -> None:
    """Make the game's playouts pass through `change(playouts) -> Playouts`."""
    sound = playout.random_playouts
    monkeypatch.setattr(playout, "random_playouts", lambda states, seed=0: change(sound(states, seed)))


def first_row(playouts, kind: str) -> int:
    """The first log row whose action is of `kind`."""
    return next(i for i, code in enumerate(playouts.log[:, 1])
                if playouts.decode(int(code)).kind == kind)


def with_row(playouts, kind: str, column: int, value):
    """The playouts with one field of the first `kind` row set to `value(row)`."""
    log = playouts.log.copy()
    row = first_row(playouts, kind)
    log[row, column] = value(log[row])
    return dataclasses.replace(playouts, log=log)


FAULTS = {
    # one explorer more than the player has (the row's option count is explorers + 1)
    "an illegal send": lambda p: with_row(p, "send", 1, lambda row: row[2]),
    "a send in place of a take": lambda p: with_row(p, "take", 1, lambda row: 0),
    "a wrong number of options": lambda p: with_row(p, "rock", 2, lambda row: row[2] + 1),
    "a wrong player": lambda p: with_row(p, "take", 0, lambda row: (row[0] + 1) % 3),
    "a wrong score": lambda p: dataclasses.replace(p, scores=p.scores + np.eye(*p.scores.shape)),
    "a wrong winner": lambda p: dataclasses.replace(p, winners=~p.winners),
    "a lost decision": lambda p: dataclasses.replace(
        p, offsets=np.concatenate([[0], p.offsets[1:] - 1])),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_planted_faults_are_caught(monkeypatch, fault):
    """A corrupted log row, score, winner or game length fails the replay ("playout-replay")."""
    tampered(monkeypatch, FAULTS[fault])
    with pytest.raises(HarnessFailure) as caught:
        check_playouts(GAME, 3, games=5)
    assert caught.value.property == "playout-replay"


def test_decode_gives_the_interface_actions():
    """Every legal action of states at any stage has a code that decodes to that very action."""
    seen = set()
    for state in mid_game_states(4, 40, seed=7):
        for p in state.to_move():
            for action in state.legal_actions(p):
                assert playout.decode(playout.code(action)) == action
                seen.add(action.kind)
    assert seen >= {"send", "take", "rock", "totem"}
    with pytest.raises(ValueError, match="no action has code"):
        playout.decode(9 * playout.CODE_BASE)


def test_playouts_are_deterministic():
    """The same seed gives the same games, another seed other games; a batch mixing player counts
    is refused, and so is a seed numba's generator would not take whole."""
    states = [GAME.new_state(4, seed=s) for s in range(30)]
    a, b = GAME.random_playouts(states, seed=5), GAME.random_playouts(states, seed=5)
    c = GAME.random_playouts(states, seed=6)
    assert np.array_equal(a.log, b.log) and np.array_equal(a.scores, b.scores)
    assert not (a.log.shape == c.log.shape and np.array_equal(a.log, c.log))
    with pytest.raises(ValueError, match="one player count"):
        GAME.random_playouts([GAME.new_state(2, seed=0), GAME.new_state(3, seed=0)])
    for seed in (-1, 2**32 + 5):  # numba would take 2**32 + 5 for 5
        with pytest.raises(ValueError, match="seed must be a whole number 0 to 2"):
            GAME.random_playouts(states, seed=seed)


def test_import_does_not_load_numba():
    """`import games.cibola` and the CLI stay free of numba (start-up time)."""
    code = "import sys, games.cibola, geomsim.cli; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_games_follow_the_law_of_interface_random_games(players):
    """Uniform among the same legal actions: the mean game length agrees with random games
    played through the interface from the same setups (within 3 standard errors)."""
    assert playout_length_gap(GAME, players, games=300, seed=100) < 3


def test_an_action_of_another_game_has_no_code():
    """The kernel's action codes cover Cibola's actions only: another's is a `ValueError` that
    names its kind (it was an AttributeError)."""
    from geomsim.rules import Action

    with pytest.raises(ValueError, match="no code for action kind 'action'"):
        playout.code(Action())

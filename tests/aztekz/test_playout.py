"""The compiled random playouts of Aztekz (games/aztekz/playout.py) against the rules interface.

`check_playouts` replays every decision of the kernel through `State.apply` and compares the
number of legal actions, the end, the scores and the winners.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from games.aztekz import GAME, playout
from games.aztekz.rules import ACTION_TYPES
from geomsim.discrete import Deck
from geomsim.testing import (
    HarnessFailure,
    check_playouts,
    check_playouts_from,
    playout_length_gap,
)

KINDS = {a.kind for a in ACTION_TYPES}


def kinds_in(playouts) -> set[str]:
    """The kinds of action the kernel chose in `playouts`."""
    return {playouts.decode(int(code)).kind for code in np.unique(playouts.log[:, 1])}


def window_with_every_kind(players: int, games: int) -> int:
    """The first seed from which `games` kernel games choose every kind of action (thefts and
    gifts are rare in random play: about one game in 25 has one)."""
    for seed in range(0, 2000, games):
        states = [GAME.new_state(players, seed=s) for s in range(seed, seed + games)]
        if kinds_in(GAME.random_playouts(states, seed=seed)) == KINDS:
            return seed
    raise AssertionError(f"no window of {games} games with every kind of action")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_replay_through_the_rules(players):
    """Every decision of the kernel is legal, among as many actions as the rules list, and the
    games end where the rules end them with the same scores and winners: for a window of games
    that reaches every kind of action (steal and give included) and for an ordinary one."""
    seed = window_with_every_kind(players, 12)
    assert kinds_in(check_playouts(GAME, players, games=12, seed=seed)) == KINDS
    check_playouts(GAME, players, games=20, seed=7000 + players)


def moments(players: int, components: dict | None = None) -> list:
    """Copies of random games (played through the rules) at moments worth starting from: in
    the setup, a hero chosen, souls dropped, souls scared, the place phase, the pyramid full."""
    wanted = {
        "setup": lambda s: s.phase == "setup" and s.start_cards == 1,
        "hero": lambda s: s.hero is not None and s.steps == 1,
        "dropped": lambda s: bool(s.dropped),
        "scared": lambda s: s.scare is not None,
        "place": lambda s: s.phase == "place",
        "full": lambda s: s.phase == "move" and s.grid.is_full() and s.hero is None,
    }
    found: dict[str, object] = {}
    setup = {"components": components} if components else None
    for seed in range(20):
        state = GAME.new_state(players, seed=seed, setup=setup)
        rng = np.random.default_rng(seed)
        while not state.is_over():
            for name, test in wanted.items():
                if name not in found and test(state):
                    found[name] = state.clone()
            actions = list(state.legal_actions())
            state.apply(actions[int(rng.integers(len(actions)))])
        if len(found) == len(wanted):
            return list(found.values())
    raise AssertionError(f"no random game reached {set(wanted) - set(found)}")


def test_playouts_start_from_any_moment():
    """Mid-game states (in the setup, a hero chosen, souls dropped or scared, placing, a full
    pyramid) play on as the rules do, a finished game stays finished with its scores; the given
    states are left unchanged."""
    finished = GAME.random_playouts([GAME.new_state(3, seed=1)]).actions(0)
    over = GAME.new_state(3, seed=1)
    for player, action in finished:
        over.apply(action, player)
    check_playouts_from(GAME, moments(3) + [over], seed=3)


def test_playouts_take_after_a_drop_per_kind():
    """aztekz/take/not-dropped in the kernel: right after a slave dropped suns on a card where a
    moon lies, the kernel offers the moon (and not the suns) as the rules do; `check_playouts_from`
    compares the number of options at that decision and at every one after."""
    from tests.aztekz.builders import make, play, row

    state = make(row(3), [["0,0"] * 3, ["2,0"] * 3], loose={"1,0": ["moon"]},
                 carry={"0.slave1": ("sun", 2)}, hero="slave1")
    supply = list(state.supply.cards)
    for soul in ("sun", "sun", "sun", "moon"):  # the souls on the table come out of the supply
        supply.remove(soul)
    state.supply = Deck(supply)
    play(state, "slave1 E", "drop")
    assert "take moon" in {str(a) for a in state.legal_actions()}
    playouts = check_playouts_from(GAME, [state] * 8, seed=5)
    first = {playouts.decode(int(playouts.log[playouts.offsets[i], 1])).kind for i in range(8)}
    assert len(first) > 1  # the kernel chose among several options, the take among them


def test_playouts_follow_the_components():
    """Other numbers of the rules (two thefts a turn, shorter slave moves, three heroes a card,
    a short stall limit, a 4 x 4 pyramid) are the kernel's numbers too."""
    components = {"thefts_per_turn": 2, "slave_steps": 2, "max_heroes_per_card": 3,
                  "stall_limit": 30, "grid_size": 4}
    states = moments(2, components)
    start = GAME.new_state(2, setup={"components": components})
    check_playouts_from(GAME, states + [start], seed=11)


def test_a_planted_fault_is_caught(monkeypatch):
    """A wrong score, a wrong count of options or a wrong action fails the replay."""
    real = playout.random_playouts

    def score_plus_one(states, seed=0):
        found = real(states, seed)
        found.scores[0, 0] += 1
        return found

    def one_option_more(states, seed=0):
        found = real(states, seed)
        found.log[5, 2] += 1
        return found

    def end_for_select(states, seed=0):
        found = real(states, seed)
        decode = found.decode
        return replace(found, decode=lambda c: decode(playout.A_END if c == playout.A_SELECT + 1 else c))

    for fault in (score_plus_one, one_option_more, end_for_select):
        monkeypatch.setattr(playout, "random_playouts", fault)
        with pytest.raises(HarnessFailure) as caught:
            check_playouts(GAME, 2, games=3, seed=0)
        assert caught.value.property == "playout-replay", fault.__name__


def test_playouts_are_deterministic():
    """The same seed gives the same games; another seed other games."""
    states = [GAME.new_state(4, seed=s) for s in range(3)]
    first, again = GAME.random_playouts(states, seed=5), GAME.random_playouts(states, seed=5)
    other = GAME.random_playouts(states, seed=6)
    assert np.array_equal(first.log, again.log) and np.array_equal(first.offsets, again.offsets)
    assert np.array_equal(first.scores, again.scores)
    assert not np.array_equal(first.log[:200], other.log[:200])


def test_decode_gives_the_interface_actions():
    """Each code decodes to the action the rules list, and its text names it."""
    state = GAME.new_state(2, seed=0)
    decode = playout.decoder(state.comp.grid_size, state.comp.soul_kinds)
    codes = [*range(playout.A_TAKE + len(state.comp.soul_kinds)),
             *range(playout.A_PLACE, playout.A_PLACE + 4 * 11 * 11)]
    actions = {decode(c): c for c in codes}
    assert str(decode(playout.A_STEAL + 2 * 3 + 1)) == "steal 3.slave2"
    assert str(decode(playout.A_STEP + 4 * 2 + 1)) == "slave2 E"
    assert str(decode(playout.A_TAKE + 5)) == f"take {state.comp.soul_kinds[5]}"
    assert str(decode(playout.A_PLACE + 4 * (6 * 11 + 4) + 2)) == "place -1,1 r2"
    assert len(actions) == len(codes)  # one action per code
    for moment in [state] + moments(2):
        assert all(action in actions for action in moment.legal_actions())


def test_winners_break_ties_by_souls_collected():
    """The tie-break of the rulebook: most points, then most souls; still tied share."""
    points = np.array([[3, 3, 1], [2, 2, 0], [0, 0, 0]])
    collected = np.array([[5, 6, 9], [4, 4, 0], [0, 0, 0]])
    assert playout.winners(points, collected).tolist() == [
        [False, True, False], [True, True, False], [True, True, True]]


def test_bad_batches_are_refused():
    """One batch, one set of components and one number of players; a seed numba accepts."""
    with pytest.raises(ValueError, match="seed"):
        GAME.random_playouts([GAME.new_state(2, seed=0)], seed=-1)
    with pytest.raises(ValueError, match="players"):
        GAME.random_playouts([GAME.new_state(2, seed=0), GAME.new_state(3, seed=0)])
    small = GAME.new_state(2, setup={"components": {"grid_size": 4}})
    with pytest.raises(ValueError, match="components"):
        GAME.random_playouts([GAME.new_state(2, seed=0), small])


def test_numba_is_imported_only_for_playouts():
    """`import games.aztekz` and the CLI stay quick: numba loads only with the kernel."""
    code = ("import sys, games.aztekz, geomsim.cli; "
            "assert 'numba' not in sys.modules, 'numba imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_games_follow_the_law_of_interface_random_games(players):
    """Uniform among the same legal actions: the mean game length agrees with random games
    played through the interface from the same setups (within 3 standard errors)."""
    assert playout_length_gap(GAME, players, games=50, seed=100) < 3


def test_the_log_grows_keeping_its_rows():
    """`grown` copies every row into a log twice as long (element by element since it stopped
    using numba's slice assignment)."""
    log = np.arange(15, dtype=np.int64).reshape(5, 3)
    bigger = playout.grown(log)
    assert bigger.shape == (10, 3)
    assert (bigger[:5] == log).all() and (bigger[5:] == 0).all()

"""Scoring at the end: explorers, the five treasures by the visible temple values, totems, winners."""

from __future__ import annotations

from pathlib import Path

from games.cibola import GAME
from geomsim import scenario as sc
from tests.cibola.helpers import COMPONENTS, edited

SCENARIO = Path(__file__).parents[2] / "scenarios" / "cibola" / "scoring-examples.yaml"
VALUES = {c.treasure: c.values for c in COMPONENTS.columns}
OPEN = {name: [False] * len(v) for name, v in VALUES.items()}


def _cards_with(*treasures: str) -> int:
    """The id of a default card showing exactly these treasures."""
    return next(c.id for c in COMPONENTS.cards if sorted(c.treasures) == sorted(treasures))


SUNDIAL = [c.id for c in COMPONENTS.cards if c.treasures == ("sundial",)]
SHIELD = [c.id for c in COMPONENTS.cards if c.treasures == ("shield",)]
SNAKE = [c.id for c in COMPONENTS.cards if c.treasures == ("snake",)]
STATUETTE = [c.id for c in COMPONENTS.cards if c.treasures == ("statuette",)]
SKULL = _cards_with("skull")
TWO_SKULLS = _cards_with("skull", "skull")


def _end(players: int, hands, explorers=None, temple=None, totems=None, copies=None):
    """A finished game's state with these hands, explorers, temple and totems."""
    state = GAME.new_state(players, seed=0)
    temple = temple or OPEN
    return edited(state, stage="over", pending=[], hands=hands, sealed=None, sent=[0] * players,
                  row=[None] * 4, rocks_placed=sum(map(sum, temple.values())),
                  explorers=explorers or [0] * players, temple=temple,
                  totems=totems or [[] for _ in range(players)],
                  copies=copies or [[] for _ in range(players)])


def test_score_explorers():
    """cibola/score/explorers: each pair of explorers left = 1 point."""
    state = _end(3, [[], [], []], explorers=[7, 2, 1])
    assert [s["explorers"] for s in state.score_sheet()] == [3, 1, 0]


def test_score_visible_value():
    """cibola/score/visible-value: a column's value is its first uncovered chamber from the top."""
    temple = {**OPEN, "sundial": [True, False, True, False]}
    state = _end(2, [SUNDIAL[:1], []], temple=temple)
    assert state.visible_value(0) == VALUES["sundial"][1]
    assert state.score_sheet()[0]["sundial"] == VALUES["sundial"][1]
    temple = {**OPEN, "sundial": [False, True, True, True]}
    assert _end(2, [SUNDIAL[:1], []], temple=temple).visible_value(0) == VALUES["sundial"][0]


def test_score_sundial():
    """cibola/score/sundial: every player earns the blue value for each sundial."""
    state = _end(3, [SUNDIAL[:2], [_cards_with("sundial", "shield", "snake")], []])
    assert [s["sundial"] for s in state.score_sheet()] == \
        [2 * VALUES["sundial"][0], VALUES["sundial"][0], 0]


def test_score_shield():
    """cibola/score/shield: every player earns the pink value for each feathered shield."""
    temple = {**OPEN, "shield": [True, True, False, False]}
    state = _end(2, [SHIELD[:1] + [_cards_with("shield", "shield")], SHIELD[1:2]], temple=temple)
    assert [s["shield"] for s in state.score_sheet()] == [3 * VALUES["shield"][2], VALUES["shield"][2]]


def test_score_snake():
    """cibola/score/snake: every player earns the green value (negative at the bottom) per snake."""
    temple = {**OPEN, "snake": [True, True, True, False]}
    state = _end(2, [SNAKE[:2], [_cards_with("snake", "snake")]], temple=temple)
    assert [s["snake"] for s in state.score_sheet()] == [2 * VALUES["snake"][3]] * 2
    assert VALUES["snake"][3] < 0


def test_score_statuette():
    """cibola/score/statuette: the most statuettes earn the orange value; ties all; none, nobody."""
    state = _end(3, [STATUETTE[:2], STATUETTE[2:4], STATUETTE[4:5]])
    assert [s["statuette"] for s in state.score_sheet()] == [VALUES["statuette"][0]] * 2 + [0]
    temple = {**OPEN, "statuette": [True, False, False]}
    state = _end(2, [STATUETTE[:1], []], temple=temple)
    assert [s["statuette"] for s in state.score_sheet()] == [VALUES["statuette"][1], 0]
    assert [s["statuette"] for s in _end(2, [[], []]).score_sheet()] == [0, 0]


def test_score_skull():
    """cibola/score/skull: the most skulls earn the brown (negative) value; ties all."""
    state = _end(3, [[SKULL], [TWO_SKULLS], []])
    assert [s["skull"] for s in state.score_sheet()] == [0, VALUES["skull"][0], 0]
    state = _end(3, [[SKULL, _cards_with("sundial", "skull")], [TWO_SKULLS], []])
    assert [s["skull"] for s in state.score_sheet()] == [VALUES["skull"][0]] * 2 + [0]


def test_totem_explorer_points():
    """cibola/totem/explorer-points: each explorer left is worth 1 point more (pairs still count)."""
    state = _end(2, [[], []], explorers=[7, 7], totems=[[2], []])
    assert [s["explorers"] for s in state.score_sheet()] == [3 + 7, 3]


def test_totem_sundial_bonus():
    """cibola/totem/sundial-bonus: each of the holder's sundials is worth 1 point more."""
    state = _end(2, [SUNDIAL[:2], SUNDIAL[2:3]], totems=[[1], []])
    v = VALUES["sundial"][0]
    assert [s["sundial"] for s in state.score_sheet()] == [2 * (v + 1), v]


def test_totem_shield_bonus():
    """cibola/totem/shield-bonus: each of the holder's feathered shields is worth 3 points more."""
    temple = {**OPEN, "shield": [True, True, True, False]}
    state = _end(2, [SHIELD[:1], [_cards_with("shield", "shield")]], temple=temple, totems=[[5], []])
    v = VALUES["shield"][3]
    assert [s["shield"] for s in state.score_sheet()] == [v + 3, 2 * v]


def test_totem_snake_three():
    """cibola/totem/snake-three: the holder gets 3 points for each snake, whatever the temple shows."""
    temple = {**OPEN, "snake": [True, True, True, False]}
    state = _end(2, [SNAKE[:2], [_cards_with("snake", "snake")]], temple=temple, totems=[[6], []])
    assert [s["snake"] for s in state.score_sheet()] == [2 * 3, 2 * VALUES["snake"][3]]


def test_totem_cancel_skulls():
    """cibola/totem/cancel-skulls: the holder's skulls count 2 fewer (for the majority too)."""
    state = _end(2, [[TWO_SKULLS, SKULL], [_cards_with("sundial", "skull")]], totems=[[7], []])
    assert [s["skull"] for s in state.score_sheet()] == [VALUES["skull"][0]] * 2  # 1 against 1
    state = _end(2, [[TWO_SKULLS], [SKULL]], totems=[[7], []])
    assert [s["skull"] for s in state.score_sheet()] == [0, VALUES["skull"][0]]


def test_totem_statuette_points():
    """cibola/totem/statuette-points (assumed totem): each statuette is worth 1 point, besides
    the majority."""
    state = _end(2, [STATUETTE[:1], STATUETTE[1:3]], totems=[[10], []])
    assert [s["statuette"] for s in state.score_sheet()] == [1, VALUES["statuette"][0]]


def test_copied_end_totem_counts_twice():
    """cibola/totem/copy: a copied end totem acts for the copier like their own card."""
    state = _end(2, [SUNDIAL[:1], SUNDIAL[1:2]], totems=[[1, 4], []], copies=[[1], []])
    v = VALUES["sundial"][0]
    assert [s["sundial"] for s in state.score_sheet()] == [v + 2, v]


def test_end_winner():
    """cibola/end/winner: the most points win; a tie goes to more explorers left; else all tied."""
    sundial = VALUES["sundial"][0]
    state = _end(3, [SUNDIAL[:1], SUNDIAL[1:2], []], explorers=[0, 0, 2 * sundial + 2])
    assert state.scores()[2] > state.scores()[0] == state.scores()[1]
    assert state.winners() == [2]
    state = _end(3, [SUNDIAL[:1], SUNDIAL[1:2], []], explorers=[3, 2, 0])
    assert state.scores()[0] == state.scores()[1] and state.winners() == [0]
    state = _end(3, [SUNDIAL[:1], SUNDIAL[1:2], []], explorers=[3, 3, 0])
    assert state.winners() == [0, 1]
    assert GAME.new_state(2, seed=0).winners() == []  # not over yet


# The values the rulebook's scoring examples show on the temple.
RULEBOOK_EXAMPLES = {"sundial": 3, "shield": 6, "snake": 2, "statuette": 8, "skull": -10}


def test_default_temple_shows_every_rulebook_example():
    """cibola/score/sundial, cibola/score/shield, cibola/score/snake, cibola/score/statuette,
    cibola/score/skull: each value the scoring examples show (a sundial worth 3, a shield 6, a
    snake 2, the statuette majority 8, the skull majority -10) stands in its default column, and
    scenarios/cibola/scoring-examples.yaml reaches it by covering the chambers above it."""
    for name, value in RULEBOOK_EXAMPLES.items():
        assert value in VALUES[name], f"{name}: {value} not in {VALUES[name]}"
    report = sc.run_scenario(sc.load_scenario(SCENARIO))
    assert report.ok and report.count("pass") >= 9, str(report)

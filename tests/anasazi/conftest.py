"""Hand-made Anasazi tables for the rules tests: every coordinate known, so a test can lay a
marker exactly tangent to a camp or 0.5 mm short of an explorer.

The "lab" table (mm, play area radius 400):

- expedition base camps E1 (tile x -380..-340, y -20..20, start mark (-350, 0)), E2 (tile
  x 340..380, start (350, 0)), E3 (tile y 340..380, start (0, 350)) and E4 (tile x -380..-340,
  y 60..100, start (-350, 80));
- mesa M1 (x -200..-100, y -50..50) with the divided pueblo P1 — large sector P1l (x -190..-170,
  y -10..10, a red treasure), small sector P1s right above it (y 10..18, a white tower) — and the
  single pueblo P2 (x -150..-130, y 20..40, a blue treasure);
- mesa M2 (x 270..330, y -15..15) with four divided pueblos P3..P6 in a row along y = 0: small
  sectors (y -3..3) with the four red towers, large sectors (y 3..9) with yellow treasures;
- mesa M3 (x -30..30, y 250..280) with the single pueblo P7 (x -10..10, y 260..270, a white
  treasure), reached by the second marker laid from E3 heading 270°;
- a filler mesa MF (x -150..150, y -330..-300) holding the other towers and treasures on tiny
  sectors F0..F36, so the setup has the game's counts (16 towers, 44 treasures).

A marker laid from E1 heading 0° with `extend` steps 57 mm: explorers at x = -293, -236, -179,
...; its third marker spans x -240..-170 and so touches P1l exactly at P1l's east edge.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import shapely

from games.anasazi import GAME
from games.anasazi.components import (
    COLOURS, TOWERS_PER_COLOUR, TREASURES_PER_COLOUR, ExpeditionCamp, Mesa, Pueblo, Sector,
    Setup, Sizes, Table,
)
from games.anasazi.rules import AnasaziState

box = shapely.box

#: Setup base camps used by `in_play`: far from the lab's pueblos, in valleys.
SETUP_CAMPS = {0: [(0.0, 200.0), (40.0, 200.0)], 1: [(0.0, -200.0), (40.0, -200.0)],
               2: [(80.0, 200.0), (80.0, -200.0)], 3: [(120.0, 200.0), (120.0, -200.0)]}


def _divided(pid: str, mesa: str, small: shapely.Polygon, large: shapely.Polygon) -> Pueblo:
    return Pueblo(pid, mesa, (Sector(pid + "s", pid, "small", small),
                              Sector(pid + "l", pid, "large", large)))


def _single(pid: str, mesa: str, poly: shapely.Polygon) -> Pueblo:
    return Pueblo(pid, mesa, (Sector(pid, pid, "single", poly),))


def lab_table(sizes: Sizes = Sizes()) -> Table:
    """The lab table described in the module docstring."""
    mesas = (Mesa("M1", "inner", box(-200, -50, -100, 50)),
             Mesa("M2", "outer", box(270, -15, 330, 15)),
             Mesa("M3", "outer", box(-30, 250, 30, 280)),
             Mesa("MF", "outer", box(-150, -330, 150, -300)))
    pueblos = [_divided("P1", "M1", box(-190, 10, -170, 18), box(-190, -10, -170, 10)),
               _single("P2", "M1", box(-150, 20, -130, 40)),
               _single("P7", "M3", box(-10, 260, 10, 270))]
    for k in range(4):
        x = 285 + 10 * k
        pueblos.append(_divided(f"P{3 + k}", "M2", box(x, -3, x + 4, 3), box(x, 3, x + 4, 9)))
    for i in range(11):  # 11 more divided pueblos: 16 towers in all
        x = -145 + 6 * i
        pueblos.append(_divided(f"F{i}", "MF", box(x, -328, x + 4, -324), box(x, -322, x + 4, -318)))
    for j in range(26):  # 26 more single pueblos: 44 treasures in all
        x = -145 + 6 * j
        pueblos.append(_single(f"F{11 + j}", "MF", box(x, -312, x + 4, -308)))
    camps = (ExpeditionCamp("E1", box(-380, -20, -340, 20), (-350.0, 0.0)),
             ExpeditionCamp("E2", box(340, -20, 380, 20), (350.0, 0.0)),
             ExpeditionCamp("E3", box(-20, 340, 20, 380), (0.0, 350.0)),
             ExpeditionCamp("E4", box(-380, 60, -340, 100), (-350.0, 80.0)))
    return Table(mesas, tuple(pueblos), camps, sizes)


def _deal(ids: Sequence[str], fixed: dict[str, str], per_colour: int) -> dict[str, str]:
    """Colours for `ids`: the `fixed` ones, the rest filled so each colour has `per_colour`."""
    left = {c: per_colour - list(fixed.values()).count(c) for c in COLOURS}
    deal = dict(fixed)
    for sid in ids:
        if sid not in deal:
            colour = next(c for c in COLOURS if left[c] > 0)
            deal[sid] = colour
            left[colour] -= 1
    return deal


def lab_setup(players: int = 2, first_player: int = 0, objectives: Sequence[str] | None = None,
              sizes: Sizes = Sizes()) -> Setup:
    """A setup on the lab table: red towers on P3s..P6s, white on P1s, red treasure on P1l,
    blue on P2, white on P7, yellow on P3l..P6l."""
    table = lab_table(sizes)
    towers = _deal([s.id for s in table.small_sectors],
                   {"P1s": "white", **{f"P{k}s": "red" for k in range(3, 7)}}, TOWERS_PER_COLOUR)
    treasures = _deal([s.id for s in table.treasure_sectors],
                      {"P1l": "red", "P2": "blue", "P7": "white",
                       **{f"P{k}l": "yellow" for k in range(3, 7)}},
                      TREASURES_PER_COLOUR - 1)
    objectives = tuple(objectives or ("red", "blue", "white", "yellow")[:players])
    return Setup(table, players, towers, treasures, objectives, first_player, seed=None)


def lab_state(players: int = 2, first_player: int = 0, objectives: Sequence[str] | None = None,
              sizes: Sizes = Sizes()) -> AnasaziState:
    """A lab game at the start of setup. The lab table breaks the table's setup rules on purpose
    (4 mesas, 4 expedition base camps, tiny sectors: every coordinate known), so the state is
    made with `check_setup=False`; the deal still has the game's counts."""
    return GAME.new_state(players, setup=lab_setup(players, first_player, objectives, sizes),
                          check_setup=False)


def play(state: AnasaziState, *texts: str) -> list:
    """Apply actions given as text, each by the player to move; the events of all."""
    events = []
    for text in texts:
        events += state.apply(GAME.parse_action(text))
    return events


def in_play(players: int = 2, first_player: int = 0, camps: dict | None = None,
            objectives: Sequence[str] | None = None, sizes: Sizes = Sizes()) -> AnasaziState:
    """A lab game after setup: base camps from `camps` (player -> two (x, y)), three looks each
    at filler towers. Player `first_player` is to move with two actions."""
    state = lab_state(players, first_player, objectives, sizes)
    camps = {p: list(SETUP_CAMPS[p]) for p in range(players)} | (camps or {})
    for _ in range(2):
        for _ in range(players):
            x, y = camps[state.current].pop(0)
            play(state, f"camp {x},{y}")
    for _ in range(players):
        play(state, "look F0s", "look F1s", "look F2s")
    assert state.phase == "play" and state.current == first_player
    return state


@pytest.fixture
def lab() -> AnasaziState:
    """A two-player lab game in play, player 0 to move."""
    return in_play()

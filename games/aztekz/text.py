"""The text board of an Aztekz state (`str(state)`): the labyrinth's paths, then the heroes.

Each card is drawn in 3 x 5 characters: its open sides as ``|`` and ``-`` leaving the centre,
the centre as ``H+S``: H heroes standing there, S souls lying there (blank for none). North is up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.aztekz.components import HEROES
from geomsim.discrete import EAST, NORTH, SOUTH, WEST

if TYPE_CHECKING:
    from games.aztekz.rules import AztekzState


def board_text(state: AztekzState) -> str:
    """The turn, the labyrinth, then each player's heroes, carried souls and piles."""
    who = ("over, won by " + ", ".join(map(str, state.winners())) if state.is_over()
           else f"player {state.turn} to move ({state.phase})")
    lines = [f"Aztekz, {state.num_players} players: {len(state.grid)} cards showing, "
             f"{len(state.deck)} in the deck; {who}"]
    cells = state.grid.cells
    if cells:
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        counts = state.hero_counts()
        for y in range(max(ys), min(ys) - 1, -1):
            rows = ["", "", ""]
            for x in range(min(xs), max(xs) + 1):
                sides = cells.get((x, y))
                if sides is None:
                    rows = [r + "     " for r in rows]
                    continue
                h, s = counts.get((x, y), 0), len(state.loose.get((x, y), ()))
                centre = f"{h or ' '}+{s or ' '}"
                rows[0] += "  |  " if sides & NORTH else "     "
                rows[1] += ("-" if sides & WEST else " ") + centre + ("-" if sides & EAST else " ")
                rows[2] += "  |  " if sides & SOUTH else "     "
            lines += [(f"{y:>3} " if i == 1 else "    ") + r.rstrip() for i, r in enumerate(rows)]
        lines.append("    " + "".join(f"{x:^5}" for x in range(min(xs), max(xs) + 1)).rstrip())
    if state.card is not None:
        lines.append(f"drawn: card {state.card}, soul {state.soul or '-'}")
    for p in range(state.num_players):
        heroes = ", ".join(
            f"{HEROES[h]} {_cell(c)}{_carried(state.carry[p][h])}" for h, c in enumerate(state.pos[p]))
        piles = ", ".join(f"{n} {k}" for k, n in state.piles[p]) or "no piles"
        lines.append(f"player {p}: {heroes or 'no heroes yet'}; {piles}")
    return "\n".join(lines)


def _cell(cell: tuple[int, int] | None) -> str:
    return "-" if cell is None else f"{cell[0]},{cell[1]}"


def _carried(carried: tuple[str, int] | None) -> str:
    return f" carrying {carried[1]} {carried[0]}" if carried else ""

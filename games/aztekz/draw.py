"""Diagrams of an Aztekz moment with matplotlib (no pyplot): `draw_state(state, ax=None)`.

Each pyramid card is a dark stone square with its paths carved in sand colour, so a wall is
wherever the stone shows at a side. Heroes are discs in their player's colour: the chief is
large and marked C, slaves small and marked 1 or 2; a slave's carried pile is a soul square at
its foot with the count. Souls lying on a card sit in its middle (kind colour, two-letter kind,
count). Beside the labyrinth: the drawn card with its soul, each player's piles and points, and
the face-down piles (their order only with ``reveal=True``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import shapely
from matplotlib.axes import Axes

from geomsim.discrete import SIDES, STEP, Cell
from geomsim.plotting import PLAYER_COLOURS, draw_discs, draw_labels, draw_polygons, new_axes

if TYPE_CHECKING:
    from games.aztekz.rules import AztekzState

STONE, SAND, EDGE = "#6b5a48", "#ead7a4", "#3b2f24"
TABLE = "#f5efe1"  # the table the labyrinth grows on
SOUL_COLOURS = ("#f2c500", "#8fa3bf", "#d9822b", "#7a4b2a", "#3a9e57", "#e8e8e8",
                "#c04da5", "#2aa6b8")
PATH = 0.36        # width of a carved path (card side = 1)
CHIEF_R, SLAVE_R = 0.15, 0.11
SLOTS = ((-0.25, 0.25), (0.25, 0.25), (-0.25, -0.25), (0.25, -0.25))
SoulStyles = dict[str, tuple[str, str]]  # soul kind -> (colour, two-letter label)


def soul_style(state: AztekzState) -> SoulStyles:
    """Colour and two-letter label of each soul kind."""
    kinds = state.comp.soul_kinds
    return {k: (SOUL_COLOURS[i % len(SOUL_COLOURS)], k[:2].title()) for i, k in enumerate(kinds)}


def card_paths(x: float, y: float, sides: int, size: float = 1.0) -> shapely.Geometry:
    """The carved paths of a card with open `sides` centred at (x, y): hub plus one arm per side."""
    h, w = size / 2, size * PATH / 2
    parts = [shapely.box(x - w, y - w, x + w, y + w)]
    for side in SIDES:
        if sides & side:
            dx, dy = STEP[side]
            x0, x1 = sorted((x + dx * w, x + dx * h)) if dx else (x - w, x + w)
            y0, y1 = sorted((y + dy * w, y + dy * h)) if dy else (y - w, y + w)
            parts.append(shapely.box(x0, y0, x1, y1))
    return shapely.union_all(parts)


def _cards(ax: Axes, cells: Mapping[Cell, int] | Mapping[tuple[float, float], int], size: float = 1.0, **style: Any) -> None:
    """Draw cards (cell or centre -> side mask) as stone squares with sand paths."""
    h = size / 2
    draw_polygons(ax, [shapely.box(x - h, y - h, x + h, y + h) for x, y in cells],
                  facecolor=STONE, edgecolor=EDGE, linewidth=1.2, **style)
    draw_polygons(ax, [card_paths(x, y, m, size) for (x, y), m in cells.items()],
                  facecolor=SAND, edgecolor="none", **style)


def _souls(ax: Axes, where: list[tuple[float, float, str, int]], styles: SoulStyles, s: float = 0.13) -> None:
    """Soul squares (x, y, kind, count): kind colour, two-letter kind, count when above one."""
    if not where:
        return
    draw_polygons(ax, [shapely.box(x - s, y - s, x + s, y + s) for x, y, _, _ in where],
                  facecolor=[styles[k][0] for _, _, k, _ in where], edgecolor="black", linewidth=0.6)
    draw_labels(ax, [x for x, *_ in where], [y for _, y, *_ in where],
                [styles[k][1] + (f"\n×{n}" if n > 1 else "") for _, _, k, n in where],
                fontsize=5.5, linespacing=0.9)


def _loose_souls(state: AztekzState) -> list[tuple[float, float, str, int]]:
    """Souls lying on cards, grouped by kind, spread along the card's middle row."""
    found: list[tuple[float, float, str, int]] = []
    for (x, y), souls in state.loose.items():
        kinds = sorted(set(souls), key=souls.index)
        for i, kind in enumerate(kinds):
            found.append((x + (i - (len(kinds) - 1) / 2) * 0.3, y, kind, souls.count(kind)))
    return found


def _heroes(ax: Axes, state: AztekzState, styles: SoulStyles) -> None:
    """Hero discs in player colours at slots of their card, carried piles at their feet."""
    by_cell: dict[Cell, list[tuple[int, int]]] = {}
    for p, row in enumerate(state.pos):
        for h, cell in enumerate(row):
            if cell is not None:
                by_cell.setdefault(cell, []).append((p, h))
    xs, ys, rs, colours, labels, carried = [], [], [], [], [], []
    for (cx, cy), heroes in by_cell.items():
        for i, (p, h) in enumerate(heroes):
            dx, dy = SLOTS[i % len(SLOTS)]
            scale = 1.0 if i < len(SLOTS) else 0.6  # more heroes than slots: an inner ring
            x, y = cx + dx * scale, cy + dy * scale
            xs.append(x)
            ys.append(y)
            rs.append(CHIEF_R if h == 0 else SLAVE_R)
            colours.append(PLAYER_COLOURS[p % len(PLAYER_COLOURS)])
            labels.append("C" if h == 0 else str(h))
            if pile := state.carry[p][h]:
                kind, n = pile
                carried.append((x, y - 0.17, kind, n))
    _souls(ax, carried, styles, s=0.07)
    draw_discs(ax, xs, ys, rs, facecolor=colours, edgecolor="black", linewidth=[
        1.6 if r == CHIEF_R else 0.8 for r in rs], zorder=3)
    draw_labels(ax, xs, ys, labels, color="white", fontsize=7, fontweight="bold", zorder=4)


def _side_panel(ax: Axes, state: AztekzState, styles: SoulStyles, x0: float, y_top: float, reveal: bool) -> None:
    """The drawn card and soul, the players' piles and points, and the face-down piles."""
    y = y_top
    if state.card is not None:
        ax.text(x0, y + 0.35, f"drawn by player {state.turn}", fontsize=8, va="bottom")
        _cards(ax, {(x0 + 0.5, y - 0.2): state.comp.card_sides[state.card]}, size=0.9)
        if state.soul is not None:
            _souls(ax, [(x0 + 0.5, y - 0.2, state.soul, 1)], styles)
        ax.text(x0 + 1.1, y - 0.2, f"#{state.card} {state.comp.card_type[state.card]}",
                fontsize=7, va="center")
        y -= 1.2
    scores, collected = state.scores(), state.souls_collected()
    for p in range(state.num_players):
        colour = PLAYER_COLOURS[p % len(PLAYER_COLOURS)]
        mark = "▶ " if p == state.turn and state.phase != "over" else ""
        ax.text(x0, y, f"{mark}player {p}: {scores[p]:g} pt, {collected[p]} souls",
                fontsize=8, color=colour, fontweight="bold", va="center")
        y -= 0.35
        piles = state.piles[p]
        _souls(ax, [(x0 + 0.15 + 0.32 * i, y, k, n) for i, (k, n) in enumerate(piles)], styles)
        if not piles:
            ax.text(x0, y, "no piles", fontsize=7, va="center", color="#555555")
        y -= 0.45
    ax.text(x0, y, f"face down: {len(state.deck)} cards, {len(state.supply)} souls",
            fontsize=7, va="center")
    if reveal:
        y -= 0.3
        ax.text(x0, y, "next: " + ", ".join(f"#{c}" for c in state.deck.peek(4)) + " / "
                + ", ".join(state.supply.peek(4)), fontsize=6.5, va="center")
    y -= 0.55
    for i, (kind, _) in enumerate(styles.items()):
        _souls(ax, [(x0 + 0.15 + 1.25 * (i % 2), y - 0.4 * (i // 2), kind, 1)], styles, s=0.12)
        ax.text(x0 + 0.35 + 1.25 * (i % 2), y - 0.4 * (i // 2), kind, fontsize=7, va="center")
    y -= 0.4 * ((len(styles) + 1) // 2) + 0.1
    ax.text(x0, y, "C chief, 1 2 slaves; ×n cards in a stack;\ndotted: free cells within the "
            f"{state.comp.grid_size} x {state.comp.grid_size} bound", fontsize=6.5, va="top",
            color="#444444")


def _board_extent(cells: list[tuple[int, int]], grid_size: int) -> tuple[tuple[float, float], ...]:
    """The centres' span in x and in y of the cells shown, widened about its middle to the
    labyrinth's full size, so that the board keeps its room beside the panel from the first card."""
    spans = []
    for values in zip(*cells):
        lo, hi = min(values), max(values)
        pad = max(0.0, grid_size - 1 - (hi - lo)) / 2
        spans.append((lo - pad, hi + pad))
    return tuple(spans)


def draw_state(state: AztekzState, ax: Axes | None = None, reveal: bool = False,
               title: str | None = None) -> Axes:
    """Draw an Aztekz state on `ax` (a new figure when None); return the Axes."""
    if ax is None:
        ax = new_axes(10, 7.5)
    styles = soul_style(state)
    cells = state.grid.cells
    # The 5 x 5 frame around the cards, and the empty cells where a card could still go.
    free = state._frontier() if cells else [(0, 0)]
    draw_polygons(ax, [shapely.box(x - 0.47, y - 0.47, x + 0.47, y + 0.47) for x, y in free],
                  facecolor="none", edgecolor="#b0a890", linewidth=0.6, linestyle=":")
    if cells:
        _cards(ax, cells)
        depth = {c: len(s) for c, s in state.stacks.items() if len(s) > 1}
        draw_labels(ax, [x + 0.4 for x, _ in depth], [y + 0.4 for _, y in depth],
                    [f"×{n}" for n in depth.values()], fontsize=6, color="white")
    if state.scare is not None:
        sx, sy = state.scare
        draw_polygons(ax, [shapely.box(sx - 0.5, sy - 0.5, sx + 0.5, sy + 0.5)],
                      facecolor="none", edgecolor="#e01010", linewidth=2.2, linestyle="--")
    _souls(ax, _loose_souls(state), styles)
    _heroes(ax, state, styles)
    (x_lo, x_hi), (y_lo, y_hi) = _board_extent(list(free) + list(cells), state.comp.grid_size)
    draw_polygons(ax, [shapely.box(x_lo - 0.5, y_lo - 0.5, x_hi + 0.5, y_hi + 0.5)],
                  facecolor=TABLE, edgecolor="none", zorder=0)
    if not cells:
        draw_labels(ax, [free[0][0]], [free[0][1]], ["the first\ncard"], fontsize=7,
                    color="#6b5a48")
    _side_panel(ax, state, styles, x_hi + 1.0, y_hi + 0.2, reveal)
    ax.autoscale_view()
    for spine in ax.spines.values():
        spine.set_visible(False)
    phase = {"setup": "setup", "move": "move a hero", "place": "place the card",
             "over": "game over"}[state.phase]
    ax.set_title(title or f"Aztekz, {state.num_players} players — {phase}"
                 + (f", player {state.turn} to act" if state.phase != "over" else
                    f", winners {state.winners()}"), fontsize=10)
    _options_line(ax, state)
    return ax


def _options_line(ax: Axes, state: AztekzState) -> None:
    """The options in force that are not the rulebook's, in a small line under the drawing."""
    text = state.game.options_text(state.options)
    if text:
        ax.text(0.0, -0.01, text, transform=ax.transAxes, fontsize=7, va="top", ha="left",
                color="#7a1f1f", gid="options")

"""Aztekz in the web app (`geomsim serve`): the labyrinth drawn as SVG in cell units (north up),
each cell with its coordinates, the drawn card placed by clicking a cell and then one of the
card's turns drawn on that cell; the events in words.

The engine finds these hooks through `AztekzGame.web`. What a click plays is a legal action's
exact text (``place 1,-2 r1``): the choices drawn are `state.legal_actions`, so the page offers
nothing the rules refuse. Only what every player sees is drawn: the labyrinth, heroes, souls,
piles and the drawn card and soul (turned face up when drawn); never the face-down piles.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import Any, cast

import shapely

from games.aztekz.components import HEROES
from games.aztekz.draw import EDGE, SAND, STONE, TABLE, card_paths, soul_style
from games.aztekz.rules import MOVE, OVER, PLACE, SETUP, AztekzState, Place, key
from geomsim.discrete import Cell
from geomsim.plotting import PLAYER_COLOURS
from geomsim.rules import Event, FiniteActionSpace, State
from geomsim.web import svg
from geomsim.web.hooks import JSON, Board, GameWeb

MARGIN = 0.6  # cells of room around the labyrinth's bound
CHOICE = 0.44  # size of a turn of the drawn card drawn as a choice on a cell (cell = 1)
SLOTS = ((-0.25, 0.25), (0.25, 0.25), (-0.25, -0.25), (0.25, -0.25))
PHASES = {SETUP: "setup: place your start card", MOVE: "move a hero (or end)",
          PLACE: "place the drawn card", OVER: "game over"}


def _square(x: float, y: float, half: float, **values: Any) -> str:
    """A square ``<rect>`` centred at table point (x, y), `half` its half side."""
    return (f'<rect x="{x - half:.3f}" y="{-y - half:.3f}" width="{2 * half:.3f}" '
            f'height="{2 * half:.3f}"{svg.attrs(**values)}/>')


@lru_cache(maxsize=64)
def _card_body(sides: int, size: float) -> str:
    """The markup of a card of open `sides` centred at the origin (made once per kind)."""
    return (_square(0, 0, size / 2, fill=STONE, stroke=EDGE, stroke_width=f"{0.03 * size:.3f}")
            + svg.path(card_paths(0, 0, sides, size), fill=SAND))


def _card(x: float, y: float, sides: int, size: float = 1.0, title: str = "", **extra: Any) -> str:
    """A card of open `sides` centred at (x, y): a stone square with its paths in sand."""
    return (f'<g transform="translate({x:.3f} {-y:.3f})"{svg.attrs(**extra)}>'
            + _card_body(sides, size) + (f"<title>{escape(title)}</title>" if title else "")
            + "</g>")


def _extent(state: AztekzState, cells: list[Cell]) -> tuple[float, float, float, float]:
    """x0, y0, x1, y1 of the cell centres shown, widened about their middle to the labyrinth's
    full size (its room is kept from the first card on)."""
    size = state.comp.grid_size
    spans = []
    for values in zip(*cells):
        lo, hi = min(values), max(values)
        pad = max(0.0, size - 1 - (hi - lo)) / 2
        spans.append((lo - pad, hi + pad))
    (x0, x1), (y0, y1) = spans
    return x0, y0, x1, y1


class AztekzWeb(GameWeb):
    """The web hooks of Aztekz."""

    def board(self, state: State, viewer: int | None, reveal: bool) -> Board:
        s = cast(AztekzState, state)
        placing = self._placements(s)
        free = s._frontier() if s.grid.cells else [(0, 0)]
        x0, y0, x1, y1 = _extent(s, list(free) + list(s.grid.cells))
        out = [svg.path(shapely.box(x0 - 0.5, y0 - 0.5, x1 + 0.5, y1 + 0.5), fill=TABLE)]  # once
        for cell in free:
            out.append(_square(*cell, 0.47, class_="cell free", fill="none", stroke="#b0a890",
                               stroke_width=0.02, stroke_dasharray="0.05 0.04"))
        for cell, sides in sorted(s.grid.cells.items()):
            out.append(_card(*cell, sides, class_="card"))
            depth = len(s.stacks.get(cell, ()))
            if depth > 1:
                out.append(svg.text(cell[0] + 0.36, cell[1] + 0.36, f"×{depth}",
                                    class_="label depth", fill="white"))
        out += self._pieces(s)
        for cell in sorted(set(free) | set(s.grid.cells)):
            out.append(svg.text(cell[0] - 0.47, cell[1] + 0.42, key(cell), class_="label coord"))
        out += self._targets(placing)
        out += self._drawn(s, x1 + 1.4, y1 - 0.2)
        out += self._choices(s, placing)
        summary = self.summary(state, viewer)
        if reveal:  # the referee's view: the face-down piles' next cards and souls
            summary.append("next face down (revealed): " + ", ".join(f"#{c}" for c in s.deck.peek(4))
                           + " / " + ", ".join(s.supply.peek(4)))
        return Board(svg.group(out, id="labyrinth"),
                     (x0 - MARGIN, -(y1 + MARGIN), x1 - x0 + 2 * MARGIN + 2.2, y1 - y0 + 2 * MARGIN),
                     summary=summary, legend=_legend(s))

    @staticmethod
    def _placements(s: AztekzState) -> dict[Cell, list[int]]:
        """The legal turns of the drawn card by cell, when the player to move places it."""
        if s.phase not in (SETUP, PLACE):
            return {}
        found: dict[Cell, list[int]] = {}
        space = s.legal_actions(s.turn)
        assert isinstance(space, FiniteActionSpace), "placing is a finite choice"
        for action in space:
            if isinstance(action, Place):
                found.setdefault(action.cell, []).append(action.rotation)
        return found

    @staticmethod
    def _pieces(s: AztekzState) -> list[str]:
        """Souls lying on cards, heroes (C chief, 1 and 2 slaves) with the piles they carry."""
        styles, out = soul_style(s), []
        for (x, y), souls in sorted(s.loose.items()):
            kinds = sorted(set(souls), key=souls.index)
            for i, kind in enumerate(kinds):
                cx = x + (i - (len(kinds) - 1) / 2) * 0.3
                n = souls.count(kind)
                out.append(_soul(cx, y, kind, n, styles, 0.13))
        by_cell: dict[Cell, list[tuple[int, int]]] = {}
        for p, row in enumerate(s.pos):
            for h, cell in enumerate(row):
                if cell is not None:
                    by_cell.setdefault(cell, []).append((p, h))
        for cell, heroes in sorted(by_cell.items()):
            for i, (p, h) in enumerate(heroes):
                dx, dy = SLOTS[i % len(SLOTS)]
                scale = 1.0 if i < len(SLOTS) else 0.6
                hx, hy = cell[0] + dx * scale, cell[1] + dy * scale
                if pile := s.carry[p][h]:
                    out.append(_soul(hx, hy - 0.17, pile[0], pile[1], styles, 0.07))
                out.append(svg.circle(hx, hy, 0.15 if h == 0 else 0.11, class_="hero",
                                      fill=PLAYER_COLOURS[p % len(PLAYER_COLOURS)], stroke="black",
                                      stroke_width=0.03 if h == 0 else 0.015,
                                      data_hero=f"{p}.{HEROES[h]}"))
                out.append(svg.text(hx, hy, "C" if h == 0 else str(h), class_="label hero",
                                    fill="white"))
        return out

    @staticmethod
    def _targets(placing: dict[Cell, list[int]]) -> list[str]:
        """The cells the drawn card may go on, ringed; a click opens the choice of its turns."""
        return [_square(x, y, 0.49, class_="target", data_opens=f"cell:{key((x, y))}",
                        data_cell=key((x, y))) for (x, y) in sorted(placing)]

    @staticmethod
    def _choices(s: AztekzState, placing: dict[Cell, list[int]]) -> list[str]:
        """For each cell the card may go on, its legal turns drawn small on that cell, each a
        click that places it so (hidden until the cell is clicked)."""
        out = []
        for (x, y), turns in sorted(placing.items()):
            items = [_square(x, y, 0.5, class_="backdrop")]
            for i, r in enumerate(turns):
                dx, dy = SLOTS[i]
                text = str(Place(x, y, r))
                items.append(_card(x + dx, y + dy, s.comp.sides(s._drawn(), r), CHOICE, text,
                                   class_="choice", data_action=text, id=f"choose-{x}_{y}_r{r}"))
                items.append(svg.text(x + dx, y + dy - CHOICE / 2 - 0.03, f"r{r}",
                                      class_="label turn"))
            out.append(svg.group(items, class_="choices", data_group=f"cell:{key((x, y))}",
                                 style="display:none"))
        return out

    @staticmethod
    def _drawn(s: AztekzState, x: float, y: float) -> list[str]:
        """The drawn card (as it lies unturned) and its soul, beside the labyrinth."""
        if s.card is None:
            return []
        out = [svg.text(x, y + 0.58, f"drawn #{s.card}", class_="label drawn"),
               _card(x, y, s.comp.card_sides[s.card], 0.9)]
        if s.soul is not None:
            out.append(_soul(x, y, s.soul, 1, soul_style(s), 0.13))
        return out

    def in_setup(self, state: State) -> bool:
        return cast(AztekzState, state).phase == SETUP

    def summary(self, state: State, viewer: int | None) -> list[str]:
        s = cast(AztekzState, state)
        lines = [PHASES[s.phase] + ("" if s.phase == OVER else f"; player {s.turn} to act")]
        if s.card is not None:
            lines.append(f"drawn: card #{s.card} ({s.comp.card_type[s.card]})"
                         + (f" with a {s.soul} soul" if s.soul else ", no soul"))
        if s.phase in (SETUP, PLACE):
            lines.append("click a ringed cell, then one of the card's turns drawn on it")
        for p in range(s.num_players):
            piles = ", ".join(f"{n} {k}" for k, n in s.piles[p]) or "none"
            lines.append(f"player {p}: {s.scores()[p]:g} pt; piles {piles}")
        lines.append(f"face down: {len(s.deck)} cards, {len(s.supply)} souls")
        return lines

    def describe(self, event: Event) -> str:
        d, p = event.data, event.player
        soul = d.get("soul")
        words = {
            "drew": lambda: f"player {p} drew card #{d['card']}"
                            + (f" and a {soul} soul" if soul else " (no soul)"),
            "placed": lambda: f"player {p} placed card #{d['card']} at {d['cell']} turned "
                              f"r{d['rotation']}" + (f", a {soul} soul on it" if soul else ""),
            "returned": lambda: f"player {p} returned card #{d['card']}"
                                + (f" and the {soul} soul" if soul else "") + " to the bottom",
            "chose": lambda: f"player {p} chose their {d['hero']}",
            "stepped": lambda: f"player {p}'s {d['hero']} stepped from {d['from']} to {d['to']}",
            "took": lambda: f"player {p}'s slave took a {soul} soul on {d['cell']}",
            "dropped": lambda: f"player {p}'s slave dropped {d['count']} {soul} soul(s) on "
                               f"{d['cell']}",
            "scared": lambda: f"player {p}'s slave scared {len(d['souls'])} soul(s) away from "
                              f"{d['cell']}",
            "gave": lambda: f"player {p} banked a pile of {d['count']} {soul} from {d['from']}",
            "stole": lambda: f"player {p} stole the pile of {d['count']} {soul} of {d['from']}",
            "ended-move": lambda: f"player {p} ended the move phase",
            "game-over": lambda: f"game over: scores {d['scores']}, winners {d['winners']}",
        }.get(event.kind)
        return words() if words else super().describe(event)


def _soul(x: float, y: float, kind: str, n: int, styles: dict[str, tuple[str, str]],
          half: float) -> str:
    """A soul square of `kind` (its colour, two-letter name, the count above one)."""
    colour, short = styles[kind]
    return svg.group([_square(x, y, half, fill=colour, stroke="black", stroke_width=0.015),
                      svg.text(x, y, short + (f"×{n}" if n > 1 else ""), class_="label soul")],
                     class_="soul")


def _legend(s: AztekzState) -> list[JSON]:
    """The key: heroes by player, souls by kind, cells."""
    found: list[JSON] = [[PLAYER_COLOURS[p % len(PLAYER_COLOURS)],
                          f"player {p}: chief C, slaves 1 and 2", "disc"]
                         for p in range(s.num_players)]
    found += [[colour, f"{kind} soul ({short})", "square"]
              for kind, (colour, short) in soul_style(s).items()]
    return found + [[STONE, "pyramid card (paths in sand); ×n: cards in a stack", "square"],
                    ["#b0a890", "free cell within the bound", "ring"],
                    ["#1b7f2a", "the drawn card may go here: click it", "line"]]


WEB = AztekzWeb()

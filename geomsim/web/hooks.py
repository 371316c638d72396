"""What a game adds to the web app, and what every game gets without adding anything.

A game offers its hooks through a method ``web()`` on its `Game` object that returns a
`GameWeb` (the game imports its hook module lazily, as it does for ``expectations()``); the
engine never imports a game. Without ``web()`` a game still plays in the page: `GameWeb` draws
the state with ``state.draw()`` as SVG, lists the legal actions as buttons in text notation and
describes events in plain words.

A game with a continuous space adds *tools* (a ghost piece that follows the pointer; the page
sends its pose, the hook turns it into an action, the engine checks it with ``state.check``, the
hook draws what the verdict means) and *analyses* (an overlay over the board: sectors filled,
paths drawn, words; a click on an element of the board asks for its answer).

Board coordinates: when `Board.mm` is True the SVG's user units are the table's millimetres with
y pointing down (the hook writes a table point (x, y) as (x, -y)); the page then converts pointer
positions to table coordinates and draws ghosts at scale.
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from geomsim.rules import Action, Event, State, Verdict

JSON = Any


class WebError(ValueError):
    """A request the app refuses: one line for the page, an HTTP status, nothing changed."""

    def __init__(self, message: str, status: int = 400, **extra: Any):
        super().__init__(message)
        self.status = status
        self.extra = extra


@dataclass
class Board:
    """A drawing of a moment for the page.

    `svg` is SVG markup (elements for an ``<svg>`` of view box `view_box`: x, y, width, height);
    `tools` and `analyses` describe what the page offers over it (see `GameWeb`), `summary` lines
    of text about the moment (scores, supplies, what the viewer knows).
    """

    svg: str
    view_box: tuple[float, float, float, float]
    mm: bool = False
    tools: list[JSON] = field(default_factory=list)
    analyses: list[JSON] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    # {"anchors": {choice: [x, y, r, reach]}}: the page rings the anchor of the tool parameter
    # chosen (an expedition's end, say); "from the anchor", the ghost points from it to the
    # pointer, its centre at most `reach` from it.
    data: JSON = None
    # The key of the drawing: [colour, words, shape] with shape "disc", "square", "ring" or
    # "line"; the page draws a swatch for each (empty: the drawing carries its own key).
    legend: list[JSON] = field(default_factory=list)

    def to_json(self) -> JSON:
        """The board as the page reads it."""
        return {"svg": self.svg, "viewBox": list(self.view_box), "mm": self.mm,
                "tools": self.tools, "analyses": self.analyses, "summary": self.summary,
                "data": self.data, "legend": self.legend}


class GameWeb:
    """The hooks of a game in the web app; this base serves any game through the rules interface.

    Tools: each is ``{"name", "label", "shape": {"rect": [length, width], "dot": [ahead, r]} or
    {"disc": r}, "turns": bool, "params": [{"name", "label", "choices": [...]}]}``; the page sends
    ``(tool, params, x, y, heading)`` to `tool_action`. Analyses: ``{"name", "label", "params":
    [...]}``, answered by `analysis` and, for a click on an element with ``data-id``, `pick`.

    Clickable boards: in the view tool a click on an element with ``data-action="TEXT"`` plays
    that action (its exact text form; a ``<title>`` may show it rounded), and a click on one
    with ``data-opens="NAME"`` shows the group ``data-group="NAME"`` (drawn with ``display:
    none``) and hides the other groups: e.g. a cell that opens its choice of rotations.
    """

    def board(self, state: State, viewer: int | None, reveal: bool) -> Board:
        """The moment drawn for `viewer` (None: nobody's knowledge), all shown when `reveal`."""
        svg, box = figure_svg(state, reveal)
        return Board(svg, box, summary=self.summary(state, viewer))

    def summary(self, state: State, viewer: int | None) -> list[str]:
        """Lines about the moment: the scores (and the winners once over)."""
        lines = ["scores: " + ", ".join(f"player {p}: {s:g}" for p, s in enumerate(state.scores()))]
        if state.is_over():
            lines.append("winners: " + ", ".join(map(str, state.winners())))
        return lines

    def tool_action(self, state: State, tool: str, params: JSON, x: float, y: float,
                    heading: float) -> Action:
        """The action a ghost of `tool` at (x, y) turned to `heading` stands for."""
        raise WebError(f"{state.game.name} has no placement tools")

    def overlays(self, state: State, action: Action, player: int, verdict: Verdict) -> list[JSON]:
        """Shapes that show what `verdict` on `action` means: ``{"d": SVG path, "kind":
        "overlap" | "touch" | "mark", "rule": id, "label": words}``."""
        return []

    def analysis(self, state: State, name: str, params: JSON, viewer: int | None) -> JSON:
        """An overlay: ``{"fills": {element id: colour}, "titles": {id: words}, "paths":
        [overlay], "text": words, "legend": [[colour, words]]}``."""
        raise WebError(f"{state.game.name} has no analysis {name!r:.60}")

    def pick(self, state: State, name: str, params: JSON, target: str, viewer: int | None) -> JSON:
        """The answer of analysis `name` for the board element `target` (as `analysis`)."""
        raise WebError(f"{state.game.name} has no analysis {name!r:.60}")

    def offers(self, state: State) -> list[str]:
        """The decisions an action opened that wait now (a look offered, a treasure to take),
        in words; none by default (the legal actions show them)."""
        return []

    def in_setup(self, state: State) -> bool:
        """Whether the moment is in the game's setup, which the page may deal at random (each
        decision a random legal action) up to the start of play; a game without a setup phase
        says False (the default)."""
        return False

    def describe(self, event: Event) -> str:
        """An event in words: its kind, who, and its data (an empty field left out: no
        "soul None")."""
        who = "" if event.player is None else f" (player {event.player})"
        data = ", ".join(f"{k} {_words(v)}" for k, v in event.data.items() if v is not None)
        return f"{event.kind}{who}" + (f": {data}" if data else "")


def _words(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(map(_words, value)) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_words(v)}" for k, v in value.items()) + "}"
    return str(value)


def web_hooks(game: Any) -> GameWeb:
    """The hooks `game` provides through ``game.web()``, or the plain ones."""
    hook = getattr(game, "web", None)
    found = hook() if callable(hook) else None
    return found if isinstance(found, GameWeb) else GameWeb()


_SVG_SIZE = re.compile(r'(<svg[^>]*\bwidth=")([\d.]+)pt("[^>]*\bheight=")([\d.]+)pt"')
_DRAWING = threading.Lock()  # matplotlib is not thread-safe; requests are served by a pool


def figure_bytes(state: State, fmt: str, reveal: bool = False) -> bytes:
    """The moment as ``state.draw()`` draws it, in `fmt` ("png" or "svg")."""
    with _DRAWING:
        try:
            ax = state.draw(reveal=reveal)
        except NotImplementedError as e:
            raise WebError(str(e)) from None
        buf = io.BytesIO()
        ax.figure.savefig(buf, format=fmt, dpi=110)
    return buf.getvalue()


def figure_svg(state: State, reveal: bool) -> tuple[str, tuple[float, float, float, float]]:
    """``state.draw()`` as an inline SVG element and its view box: its size in points made user
    units, so that the view box shows all of it."""
    text = figure_bytes(state, "svg", reveal).decode("utf-8")
    text = text[text.find("<svg"):]
    match = _SVG_SIZE.search(text)
    if match is None:
        return text, (0.0, 0.0, 800.0, 600.0)
    text = _SVG_SIZE.sub(r'\1\2\3\4"', text, count=1)
    return text, (0.0, 0.0, float(match[2]), float(match[4]))

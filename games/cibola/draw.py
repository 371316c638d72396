"""A diagram of a moment of Treasures of Cibola, drawn through geomsim.plotting (no pyplot).

The totems above the temple; the temple's five columns with their rocks and visible values;
the four revealed cards and the deck; the camp and the torch; one panel per player with their
explorers, sent or sealed explorers, treasures, totems and current points.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import shapely
from matplotlib.axes import Axes

from games.cibola.components import TREASURES, Totem
from geomsim.plotting import PLAYER_COLOURS, draw_discs, draw_labels, draw_polygons, legend, new_axes

if TYPE_CHECKING:
    from games.cibola.rules import CibolaState

WIDTH, HEIGHT = 24.0, 16.0
SYMBOL_MARK = {"sundial": "☼", "shield": "◆", "snake": "S", "statuette": "♜", "skull": "☠"}
DECK_COLOURS = {1: "#9e9e9e", 2: "#8d6e63"}  # the card backs: grey I, brown II
ROCK_COLOUR = "#6d6d6d"
PARCHMENT = "#f6edd9"


def draw_state(state: CibolaState, ax: Axes | None = None, reveal: bool = False) -> Axes:
    """Draw `state` on `ax` (a new figure when None); `reveal` shows sealed numbers of the send."""
    if ax is None:
        ax = new_axes(12, 8)
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(0, HEIGHT)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_facecolor("#fbf8f1")
    ax.set_title(_title(state), fontsize=11, loc="left")
    _totems(ax, state)
    _temple(ax, state)
    _row(ax, state)
    _camp_and_deck(ax, state)
    for p in range(state.num_players):
        _player(ax, state, p, reveal)
    legend(ax, [(name, {"facecolor": c.colour, "edgecolor": "black"})
                for name, c in zip(TREASURES, state.components.columns)]
           + [("rock", {"facecolor": ROCK_COLOUR, "edgecolor": "black"})],
           loc="upper right", ncols=3, fontsize=7)
    _options_line(ax, state)
    return ax


def _options_line(ax: Axes, state: CibolaState) -> None:
    """The options in force that are not the rulebook's, in a small line under the drawing."""
    text = state.game.options_text(state.options)
    if text:
        ax.text(0.0, -0.01, text, transform=ax.transAxes, fontsize=7, va="top", ha="left",
                color="#7a1f1f", gid="options")


def _title(state: CibolaState) -> str:
    if state.is_over():
        return f"Treasures of Cibola — game over, winners: {', '.join(f'P{p}' for p in state.winners())}"
    movers = ", ".join(f"P{p}" for p in state.to_move())
    doing = "sending explorers (sealed)" if state.stage == "send" else _decision_words(state)
    return f"Treasures of Cibola — round {state.round}, {doing}; to move: {movers}"


def _decision_words(state: CibolaState) -> str:
    kind = state.decision[0] if state.decision else ""
    return {"take": "obtaining treasures", "rock": "placing a rock", "totem": "choosing a totem",
            "move": "moving a rock (totem)", "copy": "copying a totem"}.get(kind, state.stage)


def _box(x: float, y: float, w: float, h: float) -> shapely.Polygon:
    return shapely.box(x, y, x + w, y + h)


def _totems(ax: Axes, state: CibolaState) -> None:
    """The revealed totems still above the temple, with their texts."""
    x0, y0, w, h = 0.6, 13.0, 2.5, 1.9
    ax.text(x0, y0 + h + 0.25, "totems above the temple", fontsize=8, style="italic")
    for i, t in enumerate(state.offer):
        totem = state.components.totem(t)
        x = x0 + i * (w + 0.25)
        face = "#fff3c4" if totem.timing == "immediate" else "#e3ecd2"
        draw_polygons(ax, [_box(x, y0, w, h)], facecolor=face, linewidth=1.0)
        when = {"immediate": "now", "end": "at the end", "before-scoring": "before scoring"}[totem.timing]
        ax.text(x + 0.12, y0 + h - 0.12, f"{t}", fontsize=9, weight="bold", va="top")
        ax.text(x + w - 0.12, y0 + h - 0.15, when, fontsize=5.5, ha="right", va="top", style="italic")
        ax.text(x + w / 2, y0 + 0.72, "\n".join(textwrap.wrap(totem.text, 24)),
                fontsize=5.5, ha="center", va="center")


def _temple(ax: Axes, state: CibolaState) -> None:
    """Five columns of chambers, top first; rocks on covered chambers; the visible value framed."""
    x0, top, w, h, gap = 0.9, 12.2, 1.7, 1.15, 0.35
    deepest = max(len(c.values) for c in state.components.columns)
    base = top - deepest * h
    span = len(TREASURES) * (w + gap) - gap
    steps = shapely.Polygon([(x0 - 0.5, base - 0.7), (x0 + span + 0.5, base - 0.7),
                             (x0 + span + 0.2, top + 0.35), (x0 - 0.2, top + 0.35)])
    draw_polygons(ax, [steps], facecolor="#e8d5a9", edgecolor="#a8895a", linewidth=1.2)
    rocks_x, rocks_y = [], []
    for c, column in enumerate(state.components.columns):
        x = x0 + c * (w + gap)
        visible = state.covered[c].index(False)
        for i, value in enumerate(column.values):
            y = top - (i + 1) * h
            covered = state.covered[c][i]
            draw_polygons(ax, [_box(x, y, w, h - 0.08)], facecolor=column.colour,
                          alpha=0.35 if covered else (1.0 if i == visible else 0.6),
                          edgecolor="black", linewidth=2.4 if i == visible else 0.6)
            if covered:
                rocks_x.append(x + w / 2)
                rocks_y.append(y + h / 2 - 0.04)
            else:
                ax.text(x + w / 2, y + h / 2 - 0.04, f"{value:+d}" if value else "0",
                        fontsize=11 if i == visible else 8, ha="center", va="center",
                        weight="bold" if i == visible else "normal")
        rule = "most" if column.scoring == "majority" else "each"
        ax.text(x + w / 2, base - 0.35, f"{SYMBOL_MARK[column.treasure]} {column.treasure}\n({rule})",
                fontsize=6.5, ha="center", va="center")
    if rocks_x:
        draw_discs(ax, rocks_x, rocks_y, 0.42, facecolor=ROCK_COLOUR, edgecolor="#333333")
    ax.text(x0 - 0.4, top + 0.55, f"temple — rocks left beside it: {state.rocks_left}",
            fontsize=8, style="italic")


def _card(ax: Axes, state: CibolaState, card_id: int, x: float, y: float, w: float, h: float) -> None:
    """A treasure card face: deck colour band, top symbol, treasures as coloured tokens."""
    card = state.components.card(card_id)
    draw_polygons(ax, [_box(x, y, w, h)], facecolor=PARCHMENT, linewidth=1.0)
    draw_polygons(ax, [_box(x, y + h - 0.45, w, 0.45)], facecolor=DECK_COLOURS[card.deck],
                  linewidth=0.6)
    ax.text(x + 0.1, y + h - 0.23, f"#{card.id} {'I' * card.deck}", fontsize=6, va="center",
            color="white", weight="bold")
    if card.symbol == "rock":
        draw_discs(ax, [x + w - 0.3], [y + h - 0.23], 0.18, facecolor=ROCK_COLOUR)
    elif card.symbol == "totem":
        ax.text(x + w - 0.3, y + h - 0.23, "T", fontsize=8, weight="bold", ha="center",
                va="center", color="#ffe082")
    colours = {c.treasure: c.colour for c in state.components.columns}
    n = len(card.treasures)
    ys = [y + (h - 0.45) * (k + 1) / (n + 1) for k in range(n)]
    draw_discs(ax, [x + w / 2] * n, ys, 0.33, facecolor=[colours[t] for t in card.treasures])
    draw_labels(ax, [x + w / 2] * n, ys, [SYMBOL_MARK[t] for t in card.treasures],
                fontsize=8, color="white", weight="bold")


def _row(ax: Axes, state: CibolaState) -> None:
    """The four revealed slots A-D (empty ones dashed: no refill)."""
    x0, y0, w, h, gap = 11.2, 8.1, 1.9, 3.0, 0.3
    ax.text(x0, y0 + h + 0.35, "revealed treasures", fontsize=8, style="italic")
    for i, card_id in enumerate(state.row):
        x = x0 + i * (w + gap)
        ax.text(x + w / 2, y0 - 0.3, "ABCD"[i], fontsize=9, ha="center", weight="bold")
        if card_id is None:
            draw_polygons(ax, [_box(x, y0, w, h)], facecolor="none", edgecolor="#b0a890",
                          linestyle="--")
        else:
            _card(ax, state, card_id, x, y0, w, h)


def _camp_and_deck(ax: Axes, state: CibolaState) -> None:
    """The deck (face down, by layers), the box, the camp and who holds the torch."""
    x, y, w, h = 20.3, 8.1, 1.9, 3.0
    layers = min(4, (len(state.deck) + 7) // 8)
    colours = [DECK_COLOURS[state.components.card(c).deck] for c in state.deck]
    if not layers:
        draw_polygons(ax, [_box(x, y, w, h)], facecolor="none", edgecolor="#b0a890", linestyle="--")
    for k in range(layers):
        draw_polygons(ax, [_box(x + 0.08 * k, y - 0.08 * k, w, h)], facecolor=colours[0],
                      linewidth=0.6)
    deck_i = sum(state.components.card(c).deck == 1 for c in state.deck)
    ax.text(x + w / 2 + 0.12, y + h / 2, f"deck\n{len(state.deck)}\n(I: {deck_i})", fontsize=8,
            ha="center", va="center", color="white" if layers else "black", weight="bold")
    if state.box:
        ax.text(x + w / 2, y + h + 0.35, f"in the box: {len(state.box)}", fontsize=7, ha="center")
    cx, cy = 20.0, 6.3
    draw_polygons(ax, [_box(cx, cy, 3.6, 1.3)], facecolor="#efe6cf", edgecolor="#a8895a")
    _explorers(ax, cx + 0.35, cy + 0.45, state.camp, "#7a6a4f", per_row=10, size=0.13)
    ax.text(cx + 0.12, cy + 1.12, f"camp: {state.camp} explorers", fontsize=7, va="center")


def _explorers(ax: Axes, x: float, y: float, n: int, colour: str, per_row: int = 12,
               size: float = 0.14) -> None:
    """`n` explorers as small discs in rows."""
    if n <= 0:
        return
    xs = [x + (k % per_row) * size * 2.3 for k in range(n)]
    ys = [y - (k // per_row) * size * 2.3 for k in range(n)]
    draw_discs(ax, xs, ys, size, facecolor=colour, edgecolor="black", linewidth=0.4)


def _player(ax: Axes, state: CibolaState, p: int, reveal: bool) -> None:
    """A player's panel: explorers, the send, treasures, totems, points; the torch if theirs."""
    n = state.num_players
    w = (WIDTH - 0.6) / n - 0.2
    x, y, h = 0.3 + p * (w + 0.2), 0.3, 5.3
    colour = PLAYER_COLOURS[p % len(PLAYER_COLOURS)]
    moving = p in state.to_move()
    draw_polygons(ax, [_box(x, y, w, h)], facecolor="#ffffff", edgecolor=colour,
                  linewidth=3.0 if moving else 1.2)
    draw_polygons(ax, [_box(x, y + h - 0.6, w, 0.6)], facecolor=colour, edgecolor=colour)
    sheet = state.score_sheet()[p]
    ax.text(x + 0.15, y + h - 0.3, f"P{p}" + ("  • to move" if moving else ""), fontsize=9,
            color="white", weight="bold", va="center")
    ax.text(x + w - 0.15, y + h - 0.3, f"{sheet['total']} pts", fontsize=9, color="white",
            weight="bold", va="center", ha="right")
    if p == state.torch:
        _torch(ax, x + w - 0.45, y + h - 1.25)
    ax.text(x + 0.15, y + h - 0.95, f"explorers: {state.explorers[p]}", fontsize=7.5, va="center")
    _explorers(ax, x + 0.3, y + h - 1.35, state.explorers[p], colour, per_row=max(4, int(w / 0.33)))
    ax.text(x + 0.15, y + 3.05, _send_words(state, p, reveal), fontsize=7.5, va="center")
    _treasures(ax, state, p, x + 0.15, y + 2.25, w)
    names = [f"{t} {_short(state.components.totem(t))}" for t in state.totems[p]]
    names += [f"copied {t} {_short(state.components.totem(t))}" for t in state.copies[p]]
    ax.text(x + 0.15, y + 1.45, "totems:", fontsize=7, va="center")
    ax.text(x + 0.15, y + 1.2, "\n".join(names) if names else "—", fontsize=6.5, va="top")
    ax.text(x + w - 0.15, y + 0.25, f"cards: {len(state.hands[p])}", fontsize=6.5,
            va="center", ha="right", color="#555555")


def _short(totem: Totem) -> str:
    """A totem's effect in a few words, for the player panels."""
    e = totem.effect
    return {
        "treasure-bonus": lambda: f"(+{e.get('points')} per {e.get('treasure')})",
        "treasure-value": lambda: f"({e.get('treasure')} = {e.get('points')})",
        "cancel": lambda: f"(cancel {e.get('count')} {e.get('treasure')}s)",
        "explorer-points": lambda: f"(+{e.get('points')} per explorer)",
        "move-rock": lambda: "(move rock " + ("down)" if e.get("step", 1) > 0 else "up)"),
        "take-explorers": lambda: f"(+{e.get('count')} explorers)",
        "copy": lambda: "(copy a totem)",
    }[totem.kind]()


def _send_words(state: CibolaState, p: int, reveal: bool) -> str:
    if state.stage == "send" and state.sealed is not None:
        if p not in state.sealed.choices:
            return "sending: choosing…"
        return f"sending: {state.sealed.choices[p]} (sealed)" if reveal else "sending: sealed ✓"
    if state.order:
        place = state.order.index(p) + 1
        return f"sent {state.sent[p]} (takes {place}.)" + (
            f", {state.in_temple[p]} at the temple" if state.in_temple[p] else "")
    return ""


def _treasures(ax: Axes, state: CibolaState, p: int, x: float, y: float, w: float) -> None:
    """Five tokens with the player's count of each treasure."""
    step = min(0.95, (w - 0.3) / len(TREASURES))
    xs = [x + 0.35 + k * step for k in range(len(TREASURES))]
    draw_discs(ax, xs, [y] * len(xs), 0.32,
               facecolor=[c.colour for c in state.components.columns],
               alpha=[1.0 if n else 0.25 for n in state.counts[p]])
    draw_labels(ax, xs, [y] * len(xs), [str(n) for n in state.counts[p]], fontsize=8,
                color="white", weight="bold")


def _torch(ax: Axes, x: float, y: float) -> None:
    """The torch: a handle and a flame."""
    handle = shapely.Polygon([(x - 0.08, y - 0.45), (x + 0.08, y - 0.45), (x + 0.13, y + 0.1),
                              (x - 0.13, y + 0.1)])
    flame = shapely.Polygon([(x - 0.22, y + 0.1), (x + 0.22, y + 0.1), (x + 0.12, y + 0.35),
                             (x, y + 0.6), (x - 0.12, y + 0.35)])
    draw_polygons(ax, [handle], facecolor="#6d4c41", linewidth=0.6)
    draw_polygons(ax, [flame], facecolor="#ff9800", edgecolor="#e65100", linewidth=0.8)
    ax.text(x - 0.3, y - 0.2, "torch", fontsize=6, ha="right", va="center")

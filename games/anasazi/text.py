"""The one-paragraph summary of an Anasazi state (`str(state)`): Anasazi's table is continuous,
so its picture is the drawing (`state.draw()`); the text says where the game stands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.anasazi.components import COLOURS

if TYPE_CHECKING:
    from games.anasazi.rules import AnasaziState


def summary_text(state: AnasaziState) -> str:
    """Who is to do what, the pieces laid, the towers on the track, the treasures held and the
    points, in one paragraph (tower colours and objective cards stay hidden)."""
    if state.is_over():
        now = f"the game is over ({state.ended}), won by {_players(state.winners())}"
    elif state.phase == "camps":
        now = f"setup: player {state.current} places a base camp"
    elif state.phase == "looks":
        now = f"setup: player {state.current} looks at towers"
    elif state.pending:
        now = f"player {state.current} decides a {state.pending[0].split(':')[0]} (or passes)"
    else:
        now = f"player {state.current} to move ({state.actions_left} action(s) left)"
    started = sum(1 for ps in state.expeditions.values() if ps)
    laid = sum(len(ps) for ps in state.expeditions.values())
    track = ", ".join(f"{c} {state.track[c]}" for c in COLOURS)
    # colours in the rulebook's order, not the dict's (a state read back from JSON has them sorted)
    held = "; ".join(f"player {p} " + (", ".join(f"{h[c]} {c}" for c in COLOURS if h[c]) or "none")
                     for p, h in enumerate(state.holdings()))
    points = ", ".join(f"{s:g}" for s in state.scores())
    return (f"Anasazi, {state.num_players} players: {now}. {len(state.camps)} base camps built; "
            f"{started} of {len(state.expeditions)} expeditions started with {laid} of "
            f"{state.sizes.markers} markers laid; towers on the track: {track}. Treasures held: "
            f"{held}. Points as the track stands: {points}.")


def _players(players: list[int]) -> str:
    return ", ".join(f"player {p}" for p in players) or "nobody"

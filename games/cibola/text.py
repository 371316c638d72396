"""The text board of a Cibola state (`str(state)`): the temple, the row, the players.

What it shows is public: sealed numbers appear as ``sealed``, the deck only by its size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.cibola.components import TREASURES

if TYPE_CHECKING:
    from games.cibola.rules import CibolaState


def board_text(state: CibolaState) -> str:
    """Several lines: the round and who decides, the temple (``#`` a rock), the revealed cards,
    the totems above the temple, then one line per player."""
    comp = state.components
    lines = [f"Treasures of Cibola, {state.num_players} players: round {state.round}, "
             f"{state.stage}; {_deciding(state)}"]
    lines.append("temple (chambers top first, # = rock):")
    for c, column in enumerate(comp.columns):
        chambers = " ".join(f"{v:>3}{'#' if state.covered[c][i] else ' '}"
                            for i, v in enumerate(column.values))
        lines.append(f"  {TREASURES[c]:<10}{chambers}   ({column.scoring})")
    row = "  ".join(f"{slot}: {comp.card(card).label() if card is not None else '-'}"
                    for slot, card in zip("ABCD", state.row))
    lines.append(f"row: {row}")
    lines.append(f"deck: {len(state.deck)} cards; camp: {state.camp} explorers; rocks left: "
                 f"{state.rocks_left}; totems above the temple: "
                 f"{' '.join(map(str, state.offer)) or '-'}")
    scores = state.scores()
    for p in range(state.num_players):
        treasures = ", ".join(f"{n} {TREASURES[i]}" for i, n in enumerate(state.counts[p]) if n)
        sent = ("sealed" if state.sealed and p in state.sealed.choices else
                str(state.in_temple[p]) if state.in_temple[p] else "-")
        torch = " (torch)" if p == state.torch else ""
        lines.append(f"player {p}{torch}: {state.explorers[p]} explorers, in temple {sent}; "
                     f"{treasures or 'no treasures'}; totems {state.totems[p] or '-'}; "
                     f"{scores[p]:g} points")
    return "\n".join(lines)


def _deciding(state: CibolaState) -> str:
    movers = state.to_move()
    if not movers:
        return f"over, won by {', '.join(map(str, state.winners()))}"
    if state.stage == "send":
        return f"sending: waiting for {', '.join(map(str, movers))}"
    kind, player, _ = state.pending[0]
    return f"player {player} to {kind}"

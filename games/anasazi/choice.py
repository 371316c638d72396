"""The figures of the choice an Anasazi player faces (`state.choice_figures`, batch analysis):
how much of the continuous space of markers is legal, drawn with the reach analysis' placers."""

from __future__ import annotations

import numpy as np

from games.anasazi import legality as lg
from games.anasazi import reach
from games.anasazi.rules import AnasaziState

CHOICE_SAMPLES = 64  # covering poses drawn per expedition


def choice_figures(state: AnasaziState, player: int) -> dict[str, float]:
    """At the start of each round of play (the first player's turn; once a round keeps a
    random game's cost low): the share of covering marker poses drawn from every
    expedition's end that are legal, and how many pueblos with a treasure or a tower the
    legal ones touch (batch analysis' branching factor of a continuous game)."""
    if (state.phase != "play" or state.pending or state.actions_left < 2
            or player != state.current or player != state.first_player):
        return {}
    rng = np.random.default_rng(len(state.history))  # the bots' streams stay untouched
    legal, drawn = [], 0
    for e in state.expeditions:
        if lg.expedition_violations(state.board(), e):
            continue
        placer = reach.StatePlacer(state, e, player)
        step = placer.step
        x, y, h = step.poses(*reach.uniform_placements(step, rng, CHOICE_SAMPLES))
        ok = placer.legal_mask(x, y, h)
        legal.append((x[ok], y[ok], h[ok]))
        drawn += CHOICE_SAMPLES
    x, y, h = (np.concatenate(v) for v in zip(*legal)) if legal else (np.empty(0),) * 3
    touched = lg.touched_sectors_batch(state.table, x, y, h).any(axis=0)
    ids = lg.table_geometry(state.table).sector_ids
    pueblos = {state.table.pueblo_of(ids[j]).id for j in np.flatnonzero(touched)
               if ids[j] in state.contents}
    return {"legal share of sampled poses": len(x) / drawn if drawn else 0.0,
            "reachable pueblos": float(len(pueblos))}

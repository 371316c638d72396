"""The reach map tells "proved unreachable" from "not found" (issue 31): each has its own
colour, named in the legend, and neither is the cream of an ordinary pueblo."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_rgba

from games.anasazi import draw, reach
from games.anasazi.reach import ReachMap, ReachResult
from geomsim.registry import load_game


def _map(state) -> ReachMap:
    """Expedition E1: the first sector reachable in two markers, the next two proved unreachable,
    the rest undecided (the search found nothing and proved nothing)."""
    ids = [s.id for s in state.table.sectors]
    status = {ids[0]: "reachable", ids[1]: "unreachable", ids[2]: "unreachable"}
    results = {s: ReachResult(status.get(s, "undecided"), None, "", 2, sector=s) for s in ids}
    return ReachMap(0, 2, {"E1": results}, {"E1": (0.0, 0.0)})


def _faces(ax, colour: str) -> int:
    """How many pueblo sectors are filled with `colour`."""
    want = np.array(to_rgba(colour))
    return sum(len(c.get_paths()) for c in ax.collections
               if len(c.get_facecolor()) == 1 and np.allclose(c.get_facecolor()[0], want))


def test_unreachable_and_not_found_have_their_own_named_colours():
    state = load_game("anasazi").new_state(4, seed=7)
    rmap = _map(state)
    assert [rmap.unreached(s.id) for s in state.table.sectors[:4]] == [
        None, "unreachable", "unreachable", "undecided"]
    ax = reach.draw_reach_map(state, rmap)
    colours = reach.UNREACHED_COLOURS
    assert len({to_rgba(c) for c in [*colours.values(), draw.ADOBE]}) == 3
    assert _faces(ax, colours["unreachable"]) == 2
    assert _faces(ax, colours["undecided"]) == len(state.table.sectors) - 3
    legend = {t.get_text(): h.get_facecolor()
              for t, h in zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles)}
    assert legend["proved unreachable"] == to_rgba(colours["unreachable"])
    assert legend["not found (undecided)"] == to_rgba(colours["undecided"])

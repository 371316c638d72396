"""Anasazi pictures read at a glance (issue 19): one numbering, no colour meaning two things,
ids readable and never covered by a marker."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.colors import to_rgb

import geomsim
from games.anasazi import draw, reach

GAME = geomsim.load_game("anasazi")


def _lab(colour: str) -> np.ndarray:
    """CIE L*a*b* (D65) of an sRGB colour."""
    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _luminance(colour: str) -> float:
    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    return float(linear @ [0.2126, 0.7152, 0.0722])


@pytest.fixture(scope="module")
def moment() -> geomsim.State:
    """A 4-player table with markers laid: every kind of piece drawn."""
    state = GAME.new_state(4, seed=7)
    rng = np.random.default_rng(1)
    while not state.is_over() and sum(len(m) for m in state.view().expeditions.values()) < 6:
        state.apply(state.legal_actions().sample(rng, 1)[0])
    return state


def test_no_two_meanings_share_a_colour():
    """Pieces, the four players' base camps, the reach counts and the expedition-end ring each
    have a colour of their own (CIE76 difference >= 30): the engine's red and blue players once
    read as red and blue towers, and the end ring as player 3's camps."""
    meanings = {f"{c} piece": v for c, v in draw.PIECE_COLOURS.items()}
    meanings |= {"hidden tower": draw.HIDDEN_TOWER, "expedition end": draw.END_RING}
    meanings |= {f"player {p} camp": draw.camp_colour(p) for p in range(GAME.max_players)}
    meanings |= {f"reached in {k}": v for k, v in reach.REACH_COLOURS.items()}
    close = [(a, b, round(float(np.linalg.norm(_lab(x) - _lab(y)))))
             for (a, x), (b, y) in itertools.combinations(meanings.items(), 2)
             if np.linalg.norm(_lab(x) - _lab(y)) < 30]
    assert not close


def test_ids_lie_above_every_marker_on_a_halo_that_reads(moment):
    """Mesa, pueblo and expedition ids are drawn over the markers (a marker once hid E6 and
    P32) and stroked with a halo whose contrast with the letters is at least 4.5:1 (WCAG AA)."""
    ax = moment.draw()
    by_gid: dict[str, list] = {}
    for c in ax.collections:
        by_gid.setdefault(c.get_gid(), []).append(c)
    assert by_gid["markers"] and len(by_gid["labels"]) == 3 == len(by_gid["labels-halo"])
    top_marker = max(c.get_zorder() for c in by_gid["markers"])
    for label, halo in zip(by_gid["labels"], by_gid["labels-halo"]):
        assert halo.get_zorder() > top_marker and label.get_zorder() > halo.get_zorder()
        light, dark = sorted((_luminance(label.get_facecolor()[0]),
                              _luminance(halo.get_edgecolor()[0])), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5


def test_players_are_numbered_from_0_as_the_interface_and_cli_number_them(moment):
    """The key, the reach map's title and `geomsim reach --player` use the same player numbers."""
    names = [name for name, _ in draw.key_rows(moment.setup)]
    assert [n for n in names if n.endswith("base camp")] == [f"player {p} base camp" for p in range(4)]
    rmap = reach.reach_map(moment, max_markers=1, player=1)
    title = reach.draw_reach_map(moment, rmap).get_title()
    assert "player 1," in title and "index" not in title

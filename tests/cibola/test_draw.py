"""The diagram: drawn without pyplot, saved, hiding sealed numbers unless asked to reveal them."""

from __future__ import annotations

from games.cibola import GAME
from geomsim.plotting import save
from tests.cibola.helpers import play


def _texts(ax) -> str:
    return " | ".join(t.get_text() for t in ax.texts)


def test_draw_hides_sealed_sends_unless_revealed(tmp_path):
    """A sealed number shows only with reveal=True (cibola/send/sealed holds in the diagram too)."""
    state = GAME.new_state(3, seed=4)
    play(state, "1: send 5")
    hidden = _texts(state.draw())
    assert "sealed ✓" in hidden and "5 (sealed)" not in hidden
    shown = state.draw(reveal=True)
    assert "sending: 5 (sealed)" in _texts(shown)
    path = save(shown, tmp_path / "cibola.png")
    assert path.stat().st_size > 10_000


def test_draw_shows_temple_values_rocks_and_totems(tmp_path):
    """The visible value of a column changes with a rock; players' totems are listed."""
    state = GAME.new_state(4, seed=2)
    while not state.is_over():
        p = state.to_move()[0]
        state.apply(state.legal_actions(p)[-1], p)
    ax = state.draw()
    texts = _texts(ax)
    assert "game over" in ax.get_title(loc="left")
    for c in range(5):
        value = state.visible_value(c)
        assert (f"{value:+d}" if value else "0") in texts
    assert f"{state.rocks_left}" in texts
    save(ax, tmp_path / "end.svg")

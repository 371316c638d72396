"""The interface RL libraries use: action ids and masks, observation tensors, returns, the game
length bound, undo, text boards and notebook displays (docs/ecosystem.md)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geomsim
from geomsim.bots import RandomBot
from geomsim.rules import win_shares
from geomsim.testing import HarnessFailure, check_encoding

GAMES = ("cibola", "aztekz", "anasazi")
FINITE = ("cibola", "aztekz")


def _game(name: str) -> geomsim.Game:
    return geomsim.load_game(name)


def _advance(state: geomsim.State, steps: int, seed: int) -> geomsim.State:
    """`state` after up to `steps` random decisions (fewer when the game ends)."""
    rng, bot = np.random.default_rng(seed), RandomBot()
    for _ in range(steps):
        if state.is_over():
            break
        player = state.to_move()[0]
        state.apply(bot.choose(state, player, rng), player)
    return state


@functools.cache
def _played(name: str, players: int, seed: int) -> tuple[int, list[geomsim.State]]:
    """A whole random game: its length and a copy of every 7th state (shared by the tests)."""
    state = _game(name).new_state(players, seed=seed)
    rng, bot, kept, n = np.random.default_rng(seed), RandomBot(), [], 0
    while not state.is_over():
        if n % 7 == 0:
            kept.append(state.clone())
        player = state.to_move()[0]
        state.apply(bot.choose(state, player, rng), player)
        n += 1
    return n, kept + [state]


# -- the harness: ids, masks, tensors, returns, length, undo on every game and player count ----
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_check_encoding(name, players):
    """`geomsim.testing.check_encoding`: masks are the legal actions (Anasazi's: what `check`
    accepts), tensors are equal in every determinization for the player (they hide what
    `observe` hides), returns are the win shares, games stay within `max_game_length`, undo
    restores the state."""
    # Aztekz games are about 700 decisions: every 31st state is checked.
    every, games = {"cibola": (7, 2), "aztekz": (31, 1), "anasazi": (7, 1)}[name]
    assert check_encoding(_game(name), players, games=games, every=every) > 3


def test_check_encoding_finds_a_leaky_tensor_a_wrong_mask_and_a_short_bound(monkeypatch):
    import games.cibola.encoding as cibola

    class Broken(cibola.CibolaEncoding):
        flaw = ""

        def observation_tensor(self, state, player):
            tensor = super().observation_tensor(state, player)
            if self.flaw == "leak":
                tensor[0] = state.deck.cards[0]  # the top card: hidden
            return tensor

        def legal_ids(self, state, player):
            ids = super().legal_ids(state, player)
            return ids[1:] if self.flaw == "mask" else ids

    game = _game("cibola")
    for flaw, prop in (("leak", "tensor-hides"), ("mask", "mask-is-legal"),
                       ("short", "length-bound")):
        broken = Broken(cibola.default_components(), 2)
        broken.flaw = flaw
        if flaw == "short":
            broken.max_game_length = 30
        monkeypatch.setattr(cibola, "encoding", lambda components, players: broken)
        with pytest.raises(HarnessFailure, match=rf"\[{prop}\]"):
            check_encoding(game, 2, games=1, every=1)


# -- action ids ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_action_ids_are_the_same_for_every_player_count(name):
    game = _game(name)
    sizes = [game.num_distinct_actions(p) for p in range(game.min_players, game.max_players + 1)]
    assert sizes == sorted(sizes)  # more players add ids at the end
    for players, n in zip(range(game.min_players, game.max_players + 1), sizes):
        actions = [game.action_from_id(i, players) for i in range(n)]
        assert actions == [game.action_from_id(i) for i in range(n)]  # stable across counts
        assert [game.action_id(a) for a in actions] == list(range(n))
    with pytest.raises(ValueError, match="action id must be 0 to"):
        game.action_from_id(sizes[-1])


def test_documented_action_counts():
    """docs/ecosystem.md: Cibola 103; Aztekz 354/356/358; Anasazi 1118/1122/1126."""
    assert _game("cibola").num_distinct_actions(4) == 103
    assert [_game("aztekz").num_distinct_actions(p) for p in (2, 3, 4)] == [354, 356, 358]
    assert [_game("anasazi").num_distinct_actions(p) for p in (2, 3, 4)] == [1118, 1122, 1126]
    assert str(_game("cibola").action_from_id(29)) == "rock sundial 1"
    assert str(_game("aztekz").action_from_id(26)) == "place -4,-4 r0"
    assert str(_game("aztekz").action_from_id(355)) == "steal 2.slave2"


def test_anasazi_discretisation_is_legal_by_check():
    """Every id's action is in the mask exactly when `check` accepts it (the batched checks of
    the mask agree with the exact rules), in setup, in play and with a decision at hand."""
    game = _game("anasazi")
    _, states = _played("anasazi", 3, 2)
    picked = [s for s in states if s.phase == "camps"][:1] + [s for s in states if s.phase == "looks"][:1]
    picked += [s for s in states if s.phase == "play" and s.pending][:1]
    picked += [s for s in states if s.phase == "play" and not s.pending][1:3]
    assert len(picked) == 5
    for state in picked:
        player = state.to_move()[0]
        ids = set(state.legal_action_ids(player))
        assert ids, "the discretisation offers a legal action"
        for i in range(game.num_distinct_actions(3)):
            assert (i in ids) == state.check(game.action_from_id(i, 3), player).ok, i


# -- observation tensors ------------------------------------------------------------------------
def test_cibola_tensor_shows_own_sealed_number_only():
    """`cibola/send/sealed`: a sealed number is in its sender's tensor, not in the others'."""
    a, b = (_game("cibola").new_state(3, seed=4) for _ in range(2))
    a.apply(_game("cibola").parse_action("send 1"), 0)
    b.apply(_game("cibola").parse_action("send 3"), 0)
    assert np.array_equal(a.observation_tensor(1), b.observation_tensor(1))
    assert not np.array_equal(a.observation_tensor(0), b.observation_tensor(0))


@pytest.mark.parametrize("name", GAMES)
def test_observation_tensor_follows_the_game(name):
    """The tensor changes as the game goes on (it is not a constant)."""
    _, states = _played(name, 2, 5)
    tensors = {states[i].observation_tensor(0).tobytes() for i in (0, 1, -1)}
    assert len(tensors) == 3


# -- returns and length -------------------------------------------------------------------------
def test_win_shares():
    assert win_shares(3, [1]) == [0.0, 1.0, 0.0]
    assert win_shares(4, [0, 2]) == [0.5, 0.0, 0.5, 0.0]
    assert win_shares(2, []) == [0.0, 0.0]


def test_cibola_length_bound_is_near_real_games():
    """The bound counts sends, takes and symbols: about 1.5 times a random game, not a guess."""
    game = _game("cibola")
    assert _played("cibola", 4, 0)[0] > game.max_game_length(4) / 2


# -- undo ---------------------------------------------------------------------------------------
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(GAMES), steps=st.integers(1, 40), back=st.integers(1, 5),
       seed=st.integers(0, 10))
def test_undo_restores_the_exact_state(name, steps, back, seed):
    state = _advance(_game(name).new_state(2, seed=seed), steps, seed)
    before = []
    rng, bot = np.random.default_rng(seed + 1), RandomBot()
    for _ in range(back):
        if state.is_over():
            break
        before.append(state.to_json())
        player = state.to_move()[0]
        state.apply(bot.choose(state, player, rng), player)
    for text in reversed(before):
        last = state.history[-1][1]
        assert state.pop() == last
        assert state.to_json() == text
        # The state plays on as any other: the same legal actions as one read from its JSON.
        again = state.game.state_from_json(text)
        if not state.is_over():
            p = state.to_move()[0]
            assert state.legal_actions(p).sample(np.random.default_rng(0), 3) == \
                again.legal_actions(p).sample(np.random.default_rng(0), 3)


@pytest.mark.parametrize("name", FINITE)
def test_undo_after_reading_json_and_determinizing(name):
    game, rng = _game(name), np.random.default_rng(0)
    state = _advance(game.new_state(3, seed=1), 12, 1)
    for start in (game.state_from_json(state.to_json()), state.determinize(0, rng)):
        text = start.to_json()
        _advance(start, 3, 2)
        for _ in range(3):
            start.undo()
        assert start.to_json() == text
        with pytest.raises(ValueError, match="before this state was made, read from JSON or "
                                             "determinized"):
            start.undo()


def test_undo_of_nothing_says_so():
    with pytest.raises(ValueError, match="nothing to undo"):
        _game("cibola").new_state(2, seed=0).undo()


# -- text and notebooks -------------------------------------------------------------------------
def test_cibola_text_board_shows_rocks_and_players():
    game = _game("cibola")
    state = game.new_state(2, seed=0, setup={"deck": [1, 2, 3, 4] + list(range(5, 33))})
    for p in (0, 1):
        state.apply(game.parse_action("send 1"), p)
    player = state.to_move()[0]
    state.apply(game.parse_action("take A"), player)  # card 1 carries a rock
    state.apply(game.parse_action("rock sundial 1"), player)
    lines = str(state).splitlines()
    assert lines[0].startswith("Treasures of Cibola, 2 players: round 1, obtain;")
    sundial, shield = (c.values for c in state.components.columns[:2])
    assert lines[2].split()[:3] == ["sundial", f"{sundial[0]}#", str(sundial[1])]
    assert lines[3].split()[:2] == ["shield", str(shield[0])]
    assert f"player {player}" in lines[-2 + player] and "1 sundial" in lines[-2 + player]


def test_aztekz_text_board_draws_the_paths_of_the_first_card():
    game = _game("aztekz")
    state = game.new_state(2, seed=0)
    state.apply(game.parse_action("place 0,0 r0"), state.to_move()[0])
    sides = state.grid.cells[(0, 0)]
    lines = str(state).splitlines()
    assert lines[1] == "    " + ("  |" if sides & 1 else "")
    middle = lines[2][4:]
    assert middle[0] == ("-" if sides & 8 else " ") and middle[1:4] == "3+ "


def test_anasazi_summary_counts_the_pieces():
    _, states = _played("anasazi", 2, 5)
    text = str(states[-1])
    assert "\n" not in text and text.startswith("Anasazi, 2 players: the game is over")
    laid = sum(len(p) for p in states[-1].expeditions.values())
    assert f"with {laid} of 54 markers laid" in text


def test_a_notebook_draws_a_state_once_for_both_images(monkeypatch):
    """Jupyter asks every display method it finds; the bundle answers for SVG and PNG at once."""
    formatters = pytest.importorskip("IPython.core.formatters")
    state = _game("cibola").new_state(2, seed=0)
    drawn = []
    draw = type(state).draw
    monkeypatch.setattr(type(state), "draw", lambda self: drawn.append(1) or draw(self))
    shown, _ = formatters.DisplayFormatter().format(state)
    assert drawn == [1]
    assert shown["image/png"].startswith(b"\x89PNG") and "<svg" in shown["image/svg+xml"]
    assert shown["text/plain"] == repr(state)
    png_only = state._repr_mimebundle_(include={"image/png"})
    assert list(png_only) == ["image/png"] and len(drawn) == 2


def test_repr_names_game_players_and_mover():
    state = _game("aztekz").new_state(3, seed=0)
    assert repr(state) == f"<aztekz state, 3 players, 0 actions, to move: {state.to_move()[0]}>"


def test_notebook_displays_of_state_and_verdict():
    game = _game("cibola")
    state = game.new_state(2, seed=0)
    assert state._repr_png_().startswith(b"\x89PNG")
    assert "<svg" in state._repr_svg_()
    html = state.check(game.parse_action("take A"), 0)._repr_html_()
    assert "<code>cibola/round/stages</code>" in html and html.startswith("<table>")
    assert state.check(game.parse_action("send 1"), 0)._repr_html_() == "<p><b>legal</b></p>"


def test_batch_summary_shows_its_tables_in_notebooks():
    from geomsim.stats import summarize

    rows = [{"game": "cibola", "players": 2, "seed": s, "bots": ["random", "random"],
             "scores": [s, 1], "winners": [0] if s > 1 else [0, 1], "finished": True,
             "length": 70} for s in range(3)]
    html = summarize(rows)._repr_html_()
    assert "<h3>cibola: 3 games, 2 players</h3>" in html
    assert html.count("<table>") >= 2 and "<td>random</td>" in html


def test_docs_list_every_tensor_section_and_the_id_counts():
    """docs/ecosystem.md documents each game's tensor: every section of the layout is listed."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "ecosystem.md").read_text()
    parts = dict(zip(("cibola", "aztekz", "anasazi"), text.split("### ")[1:4]))
    for name, part in parts.items():
        assert part.lower().startswith(name)
        for section, _, _ in _game(name).encoding(3).layout.describe():
            assert f"`{section}`" in part, (name, section)


def test_packages_are_typed():
    """PEP 561: both packages ship a py.typed marker (package-data), so type checkers read them."""
    from pathlib import Path

    import games

    for package in (geomsim, games):
        assert (Path(package.__file__).parent / "py.typed").is_file()

"""The Anasazi search player (games/anasazi/search.py, issue 28 item 2): its spec is bounded,
its decisions are legal and see only what its seat may know, its budget is what it spends, and
it takes what only a narrow window reaches. Tiny budgets: each test well under a few seconds."""

from __future__ import annotations

import numpy as np
import pytest

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi import search
from games.anasazi.actions import PlaceMarker
from games.anasazi.rules import AnasaziState
from geomsim.bots import MAX_ITERATIONS, MAX_SECONDS, make_bot
from tests.anasazi.test_planner import _to_play
from tests.anasazi.test_planner_windows import planted


def test_the_game_provides_the_search_player_with_a_bounded_budget() -> None:
    bot = make_bot("mcts:iterations=7,seconds=0.25", GAME)
    assert isinstance(bot, search.SearchBot)
    assert (bot.iterations, bot.seconds, bot.spec) == (7, 0.25, "mcts:iterations=7,seconds=0.25")
    default = make_bot("mcts", GAME)
    assert isinstance(default, search.SearchBot) and default.iterations == search.ITERATIONS
    assert make_bot("planner", GAME).spec == "planner"  # the planner is still there
    for spec, words in ((f"mcts:iterations={MAX_ITERATIONS + 1}", "iterations must be a positive"),
                        ("mcts:seconds=1e300", f"at most {MAX_SECONDS:g}"),
                        ("mcts:seconds=nan", "seconds must be a positive"),
                        ("mcts:depth=3", "expected iterations=N and/or seconds=T"),
                        ("mcts:iterations=2,iterations=3", "expected iterations=N")):
        with pytest.raises(ValueError, match=words) as caught:
            make_bot(spec, GAME)
        assert "\n" not in str(caught.value)


def test_a_decision_is_legal_and_sees_only_what_its_seat_may_know() -> None:
    """anasazi/3.0/secret-towers, anasazi/3.0/secret-objective: two states the seat cannot
    tell apart get the same action (the search draws its determinizations from its view)."""
    state = _to_play(8)
    player = state.current
    other = state.determinize(player, np.random.default_rng(99))
    assert other.observe(player) == state.observe(player)
    assert other.towers != state.towers or other.objectives != state.objectives
    bot = make_bot("mcts:iterations=3", GAME)
    a = bot.choose(state, player, np.random.default_rng(5))
    b = bot.choose(other, player, np.random.default_rng(5))
    assert a == b and state.check(a, player).ok


def test_the_search_spends_its_iterations_at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every iteration backs up through one root action: the root's visits are the budget."""
    roots: list[search._Node] = []
    real = search.SearchBot._make

    def keep(self: search.SearchBot, node: search._Node, *args: object) -> None:
        real(self, node, *args)  # type: ignore[arg-type]
        if not roots:
            roots.append(node)

    monkeypatch.setattr(search.SearchBot, "_make", keep)
    state = _to_play(3)
    make_bot("mcts:iterations=6", GAME).choose(state, state.current, np.random.default_rng(1))
    assert len(roots[0].actions) > 1 and sum(roots[0].visits) == 6


def test_the_search_takes_the_treasure_behind_a_narrow_window() -> None:
    """anasazi/4.2/touch-pueblo: its candidates are the planner's, from the exact windows."""
    state: AnasaziState = planted()
    action = make_bot("mcts:iterations=4", GAME).choose(state, 0, np.random.default_rng(0))
    assert isinstance(action, PlaceMarker) and state.check(action, 0).ok
    assert "P0" in lg.touched_sectors(state.table, action.pose)

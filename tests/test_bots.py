"""Bots play every game through the rules interface alone, fairly and reproducibly."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geomsim.bots import (
    Bot,
    GreedyBot,
    ISMCTSBot,
    RandomBot,
    bot_rngs,
    make_bot,
    play_game,
    legality_key_of,
    register_bot,
    rewards,
)
from geomsim.rules import Action, Event, FiniteActionSpace, Game, Rule, State, Violation
from geomsim.bots import _Edge, _Node
from tests.toygames import BID, DISCS, GRID, TOY_GAMES, DiscState, GridGame, Place

ALL_BOTS = ["random", "greedy", "greedy:4", "ismcts:20"]


# -- a matching game: simultaneous, and the other's sealed choice is hidden ------------------------
@dataclass(frozen=True)
class Pick(Action):
    """Pick 0 or 1, text ``pick 1``."""

    kind = "pick"
    side: int

    def __str__(self) -> str:
        return f"pick {self.side}"


class MatchGame(Game):
    """Both players pick 0 or 1 at once; player 1 scores 1 when the picks match, player 0 when not.

    Whoever could see the other's sealed pick would always win: honest bots win about half.
    """

    name = "toy-match"
    min_players = max_players = 2
    action_types = (Pick,)
    hidden_information = True
    rules = {"toy/match/side": Rule("toy/match/side", "1", "Pick 0 or 1.")}

    def new_state(self, players: int = 2, seed: int | None = None, setup=None) -> MatchState:
        return MatchState(self)

    def parse_action(self, text: str) -> Pick:
        m = re.fullmatch(r"pick ([01])", text.strip())
        if not m:
            raise ValueError(f"expected 'pick 0' or 'pick 1', got {text!r}")
        return Pick(int(m.group(1)))

    def state_from_json(self, text: str) -> MatchState:
        state = MatchState(self)
        state.picks = {int(k): v for k, v in json.loads(text)["picks"].items()}
        return state


class MatchState(State):
    def __init__(self, game: MatchGame):
        self.game, self.num_players, self.history, self.picks = game, 2, [], {}
        self.peeked = 0  # how often a bot read the true state (must stay 0)

    def to_move(self) -> tuple[int, ...]:
        return tuple(p for p in (0, 1) if p not in self.picks)

    def _legal_actions(self, player: int) -> FiniteActionSpace:
        return FiniteActionSpace([Pick(0), Pick(1)])

    def _violations(self, action: Pick, player: int) -> list[Violation]:
        return [] if action.side in (0, 1) else [Violation("toy/match/side", "pick 0 or 1")]

    def _apply(self, action: Pick, player: int) -> list[Event]:
        self.picks[player] = action.side
        return [Event("picked", player)]

    def scores(self) -> list[float]:
        if len(self.picks) < 2:
            return [0.0, 0.0]
        match = self.picks[0] == self.picks[1]
        return [float(not match), float(match)]

    def winners(self) -> list[int]:
        return [int(np.argmax(self.scores()))] if self.is_over() else []

    def to_dict(self) -> dict:
        return {"picks": {str(k): v for k, v in self.picks.items()}}

    def observe(self, player: int) -> dict:
        return {"own": self.picks.get(player), "decided": sorted(self.picks)}

    def determinize(self, player: int, rng: np.random.Generator) -> MatchState:
        other = MatchState(self.game)
        other.picks = {p: (v if p == player else int(rng.integers(2))) for p, v in self.picks.items()}
        return other


MATCH = MatchGame()


class FiguresGrid(type(GRID)):
    """Tic-tac-toe whose states report a game figure."""

    def new_state(self, players: int = 2, seed: int | None = None, setup=None) -> State:
        state = super().new_state(players, seed)
        state.figures = lambda: {"empty_cells": state.board.count(None)}
        return state


def _play_to_end(game: Game, state: State, bot: Bot, rng: np.random.Generator) -> None:
    while not state.is_over():
        for p in state.to_move():
            if p in state.to_move():
                action = bot.choose(state, p, rng)
                assert state.check(action, p).ok, f"{bot.spec} chose illegal {action}"
                state.apply(action, p)


# -- every bot, every toy game ---------------------------------------------------------------------
@pytest.mark.parametrize("spec", ALL_BOTS)
@pytest.mark.parametrize("game", TOY_GAMES + (MATCH,), ids=lambda g: g.name)
def test_bots_choose_legal_actions_to_the_end(spec: str, game: Game) -> None:
    bot = make_bot(spec)
    for seed in range(2):
        state = game.new_state(players=2, seed=seed)
        _play_to_end(game, state, bot, np.random.default_rng(seed))
        assert state.is_over() and state.returns_finite()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(TOY_GAMES))
def test_play_game_is_reproducible_from_its_seed(seed: int, game: Game) -> None:
    a = play_game(game, 2, ["greedy", "ismcts:8"], seed).to_row()
    b = play_game(game, 2, ["greedy", "ismcts:8"], seed).to_row()
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_seeds_give_different_games() -> None:
    lengths = {play_game(GRID, 2, ["random", "random"], s).length for s in range(20)}
    assert len(lengths) > 1


def test_each_seat_has_its_own_random_stream() -> None:
    streams = [rng.integers(1 << 62) for rng in bot_rngs(5, 3)]
    again = [rng.integers(1 << 62) for rng in bot_rngs(5, 3)]
    assert streams == again and len(set(streams)) == 3


# -- greedy ----------------------------------------------------------------------------------------
def test_greedy_takes_an_immediate_win() -> None:
    # X (player 0) holds 0 and 1; cell 2 wins at once.
    state = GRID.new_state(players=2, seed=None)
    for cell, p in [(0, 0), (4, 1), (1, 0), (8, 1)]:
        state.apply(GRID.parse_action(f"mark {cell}"), p)
    for seed in range(5):
        assert str(GreedyBot().choose(state, 0, np.random.default_rng(seed))) == "mark 2"


def test_greedy_samples_continuous_spaces_and_beats_random() -> None:
    # Scores are the x of one's points: one-step lookahead prefers points far right.
    greedy = [play_game(DISCS, 2, ["greedy", "random"], s).scores for s in range(6)]
    assert all(g > r for g, r in greedy)


def test_greedy_looks_ahead_only_in_a_determinization() -> None:
    # Player 1 picks after player 0 sealed a pick: reading the true state would win every game.
    wins = sum(play_game(MATCH, 2, ["random", "greedy"], s).winners == [1] for s in range(60))
    assert 15 <= wins <= 45


# -- ISMCTS ----------------------------------------------------------------------------------------
def test_ismcts_blocks_and_wins_at_tic_tac_toe() -> None:
    state = GRID.new_state(players=2)
    for cell, p in [(0, 0), (4, 1), (1, 0)]:  # O (player 1) must block cell 2
        state.apply(GRID.parse_action(f"mark {cell}"), p)
    assert str(ISMCTSBot(iterations=200).choose(state, 1, np.random.default_rng(0))) == "mark 2"
    state.apply(GRID.parse_action("mark 8"), 1)  # not the block: X wins at 2 (or 6, after 3)
    state.apply(GRID.parse_action("mark 3"), 0)
    state.apply(GRID.parse_action("mark 5"), 1)
    state.apply(ISMCTSBot(iterations=200).choose(state, 0, np.random.default_rng(0)), 0)
    assert state.winners() == [0]


def test_ismcts_beats_random() -> None:
    for seed in range(10):
        seat = seed % 2  # the seat of the searcher
        bots = ["ismcts:60", "random"] if seat == 0 else ["random", "ismcts:60"]
        assert play_game(GRID, 2, bots, seed).winners != [1 - seat]  # never loses


def test_ismcts_keeps_sealed_choices_hidden() -> None:
    """Decoupled selection: the searcher never learns the other's sealed pick."""
    wins = sum(play_game(MATCH, 2, ["random", "ismcts:30"], s).winners == [1] for s in range(60))
    assert 15 <= wins <= 45


def test_ismcts_bids_in_a_simultaneous_game_with_hidden_prizes() -> None:
    shares = [play_game(BID, 2, ["ismcts:40", "random"], s) for s in range(12)]
    assert all(r.finished and len(r.scores) == 2 for r in shares)


def test_ismcts_widens_continuous_spaces_progressively() -> None:
    bot = ISMCTSBot(iterations=64)
    state = DISCS.new_state(players=2)
    root = bot.search(state, 0, np.random.default_rng(1))
    tried = len(root.edges[0])
    assert 2 <= tried <= math.ceil(bot.widen_c * (64 + 1) ** bot.widen_alpha)
    assert sum(e.visits for e in root.edges[0].values()) == 64


@pytest.fixture
def counted_discs(monkeypatch) -> list:
    """The discs game with a legality key (the points laid and the player); its exact checks
    are counted in the list returned."""
    checks: list = []
    exact = DiscState._violations
    monkeypatch.setattr(DiscState, "_violations",
                        lambda self, a, p: checks.append(a) or exact(self, a, p))
    monkeypatch.setattr(DiscState, "legality_key",
                        lambda self, player: (tuple(self.points), player), raising=False)
    return checks


def test_ismcts_keeps_verdicts_per_legality_key(counted_discs, monkeypatch) -> None:
    """`State.legality_key`: the search grows the very root statistics and picks the very
    action it does checking every edge at every visit, with under half the checks."""
    def searches() -> tuple[list, int]:
        counted_discs.clear()
        found = []
        for seed in range(3):
            state = DISCS.new_state(players=2)
            state.apply(Place(0.5, 0.5), 0)
            bot = ISMCTSBot(iterations=60)
            root = bot.search(state, 1, np.random.default_rng(seed))
            found.append([(a, e.visits, e.total, e.available) for a, e in root.edges[1].items()])
            found.append(bot.choose(state, 1, np.random.default_rng(seed)))
        return found, len(counted_discs)
    keyed, keyed_checks = searches()
    monkeypatch.delattr(DiscState, "legality_key")
    plain, plain_checks = searches()
    assert keyed == plain and keyed_checks < plain_checks / 2  # the rest: apply, rollouts


def test_ismcts_judges_edges_again_under_another_legality_key(counted_discs) -> None:
    """The verdicts kept at a node hold for states of an equal key only: under another key
    (another point laid) every edge is judged again; back under the first, none is; an edge
    added later is judged once per key, or not at all under the key of the state it was drawn
    from (it came from that state's legal actions)."""
    empty = DiscState(DISCS, [])
    crowded = DiscState(DISCS, [(0, 0.5, 0.55), (1, 0.0, 0.0)])  # (0.5, 0.5) is too close
    node, bot = _Node(), ISMCTSBot()
    edges = {Place(0.1, 0.9): _Edge(), Place(0.5, 0.5): _Edge(), Place(0.9, 0.1): _Edge()}

    def legal(state: DiscState) -> tuple[list, int]:
        counted_discs.clear()
        found = bot._legal_edges(node, state, 0, edges, legality_key_of(state, 0))
        return found, len(counted_discs)

    assert legal(empty) == (list(edges), 3)
    assert legal(empty) == (list(edges), 0)
    assert legal(crowded) == ([Place(0.1, 0.9), Place(0.9, 0.1)], 3)
    edges[Place(0.3, 0.3)] = _Edge()
    assert legal(empty) == (list(edges), 1)
    assert legal(crowded)[1] == 1
    edges[Place(0.5, 0.6)] = _Edge()  # as if drawn from the empty state's legal actions
    bot._legal_edge_added(node, 0, legality_key_of(empty, 0), edges)
    assert legal(empty) == (list(edges), 0)
    assert legal(crowded) == ([Place(0.1, 0.9), Place(0.9, 0.1), Place(0.3, 0.3)], 1)
    assert legality_key_of(GRID.new_state(players=2), 0) is None  # no key: checked every visit


def test_ismcts_cuts_rollouts_and_scores_them_with_evaluate() -> None:
    # One decision of rollout from the empty square leaves the game unfinished: the reward
    # comes from evaluate (the x of one's points), so the searcher still prefers the right side.
    bot = ISMCTSBot(iterations=200, rollout_depth=1)
    xs = [bot.choose(DISCS.new_state(players=2), 0, np.random.default_rng(s)).x for s in range(4)]
    assert np.mean(xs) > 0.6


def counting_grid() -> tuple[GridGame, list[int]]:
    """A tic-tac-toe whose compiled playouts count the states they are asked to play."""
    game, played = GridGame(), []
    sound = game.random_playouts
    def random_playouts(states, seed=0):
        played.append(len(states))
        return sound(states, seed)
    game.random_playouts = random_playouts
    return game, played


def test_ismcts_rolls_out_with_the_compiled_random_player() -> None:
    game, played = counting_grid()
    assert game.has_random_playouts() and not BID.has_random_playouts()
    state = game.new_state(players=2)
    for cell, p in [(0, 0), (4, 1), (1, 0)]:
        state.apply(game.parse_action(f"mark {cell}"), p)
    assert str(ISMCTSBot(iterations=100).choose(state, 1, np.random.default_rng(0))) == "mark 2"
    assert 50 <= len(played) <= 100 and set(played) == {1}  # not at terminal nodes


def test_ismcts_rolls_out_in_the_interface_when_the_compiled_player_cannot_run() -> None:
    game, played = counting_grid()
    game.playout_requires = ("geomsim_no_such_module",)
    assert not game.has_random_playouts()
    with pytest.raises(NotImplementedError, match="needs geomsim_no_such_module"):
        game.require_playouts()
    ISMCTSBot(iterations=30).choose(game.new_state(players=2), 0, np.random.default_rng(0))
    assert played == []


def test_ismcts_cut_rollouts_stay_in_the_interface() -> None:
    game, played = counting_grid()
    ISMCTSBot(iterations=30, rollout_depth=2).choose(game.new_state(players=2), 0,
                                                      np.random.default_rng(0))
    assert played == []


def test_ismcts_time_budget_runs_at_least_one_iteration() -> None:
    bot = make_bot("ismcts:0.001s")
    state = GRID.new_state(players=2)
    assert state.check(bot.choose(state, state.to_move()[0], np.random.default_rng(0))).ok


def test_rewards_share_wins_and_count_opponents_beaten() -> None:
    assert rewards([3, 1, 2], [0]) == [1.0, 0.0, 0.25]
    assert rewards([2, 2], [0, 1]) == [0.5, 0.5]


# -- registry and results --------------------------------------------------------------------------
def test_registry_names_bots_and_budgets() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert make_bot("greedy:5").samples == 5
    assert make_bot("ismcts:300").iterations == 300
    assert make_bot("ismcts:0.5s").seconds == 0.5
    assert make_bot("ismcts:300").spec == "ismcts:300"
    deep = make_bot("ismcts:0.2s:40")
    assert (deep.seconds, deep.rollout_depth, deep.spec) == (0.2, 40, "ismcts:0.2s:40")


@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown bot 'alphazero'; known bots: random"),
    ("ismcts:0", "iterations must be a positive integer"),
    ("ismcts:-1s", "seconds must be a positive number"),
    ("ismcts:nans", "seconds must be a positive number"),
    ("greedy:x", "candidate samples must be a positive integer"),
    ("ismcts:50:0", "bot ismcts:50:0: rollout depth must be a positive integer"),
    ("random:3", "takes no argument"),
])
def test_registry_rejects_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make_bot(spec)


def test_register_bot_adds_a_player() -> None:
    register_bot("first", lambda arg: _First(), "first (the first legal action)")
    result = play_game(GRID, 2, ["first", "first"], 0)
    assert result.bots == ["first", "first"] and result.finished


@dataclass
class _First:
    spec: str = "first"

    def choose(self, state: State, player: int, rng: np.random.Generator) -> Action:
        return next(iter(state.legal_actions(player)))


def test_result_row_holds_seats_scores_winner_length_and_figures() -> None:
    result = play_game(FiguresGrid(), 2, ["greedy", "random"], 3)
    row = result.to_row()
    assert row["bots"] == ["greedy", "random"]
    assert row["length"] == 9 - row["figures"]["empty_cells"]
    assert row["winner"] == (row["winners"][0] if len(row["winners"]) == 1 else None)
    assert row["first"] == list(GRID.new_state(2, seed=3).to_move())
    json.dumps(row, allow_nan=False)


def test_games_without_figures_report_none() -> None:
    assert play_game(GRID, 2, ["random", "random"], 0).figures == {}


def test_play_game_from_a_start_state_leaves_it_unchanged() -> None:
    start = GRID.new_state(players=2, seed=0)
    start.apply(GRID.parse_action("mark 4"))
    before = start.to_json()
    result = play_game(GRID, 2, ["random", "random"], 1, start=start)
    assert start.to_json() == before
    assert result.length <= 8


def test_max_steps_records_an_unfinished_game() -> None:
    result = play_game(GRID, 2, ["random", "random"], 0, max_steps=2)
    assert not result.finished and result.winners == [] and result.length == 2


def test_play_game_wants_one_bot_per_seat() -> None:
    with pytest.raises(ValueError, match="1 bots for 2 players"):
        play_game(GRID, 2, ["random"], 0)


# -- the real games --------------------------------------------------------------------------------
def real_game(name: str) -> Game:
    """The installed game `name`, or a skip while it is not there yet."""
    import geomsim

    try:
        return geomsim.load_game(name)
    except Exception as e:  # not landed yet, or mid-edit
        pytest.skip(f"{name} does not load: {type(e).__name__}: {e}")


@pytest.mark.parametrize("name, bots", [
    ("cibola", ["ismcts:4:20", "greedy:8", "random"]),
    ("aztekz", ["random", "greedy:2"]),
    ("anasazi", ["greedy:4", "random"]),
])
def test_bots_play_a_real_game_to_the_end(name: str, bots: list[str]) -> None:
    game = real_game(name)
    result = play_game(game, len(bots), bots, 1)
    assert result.finished and result.winners and len(result.scores) == len(bots)
    assert all(math.isfinite(s) for s in result.scores)


def test_figures_must_be_a_dict() -> None:
    class BadFigures(type(GRID)):
        def new_state(self, players: int = 2, seed: int | None = None, setup=None) -> State:
            state = super().new_state(players, seed)
            state.figures = lambda: [1, 2]
            return state

    with pytest.raises(TypeError, match="State.figures\\(\\) must return a dict, not list"):
        play_game(BadFigures(), 2, ["random", "random"], 0)


def test_a_list_of_bots_keeps_each_bots_keyword_arguments_together() -> None:
    """`-b mcts:iterations=20,seconds=1.8,planner` names two bots, not three: a ``key=value``
    piece after a bot's argument continues that argument."""
    from geomsim.bots import split_bots

    assert split_bots("mcts:iterations=20,seconds=1.8,planner") == [
        "mcts:iterations=20,seconds=1.8", "planner"]
    assert split_bots(" greedy , ismcts:200,,random ") == ["greedy", "ismcts:200", "random"]
    assert split_bots("pkg.players:make,greedy") == ["pkg.players:make", "greedy"]
    # A bare key=value with no bot argument before it stays a spec of its own (and fails as one).
    assert split_bots("greedy,seconds=1") == ["greedy", "seconds=1"]


def test_analyze_seats_a_bot_whose_argument_holds_commas(tmp_path: Path) -> None:
    """The command line's line-up takes ``mcts:iterations=N,seconds=T`` as one seat."""
    from geomsim import cli

    out = tmp_path / "out"
    argv = ["analyze", "anasazi", "-b", "mcts:iterations=1,seconds=0.05,random,random,random",
            "-n", "1", "--max-steps", "4", "-w", "1", "-o", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    row = json.loads((out / "games.jsonl").read_text().splitlines()[0])
    assert row["bots"] == ["mcts:iterations=1,seconds=0.05", "random", "random", "random"]

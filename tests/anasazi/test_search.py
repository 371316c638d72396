"""The Anasazi search player (games/anasazi/search.py, issue 28 item 2): its spec is bounded,
its decisions are legal and see only what its seat may know, its budget is what it spends, and
it takes what only a narrow window reaches. Tiny budgets: each test well under a few seconds."""

from __future__ import annotations

import time

import numpy as np
import pytest

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi import planner as pl
from games.anasazi import search
from games.anasazi.actions import BuildCamp, PlaceMarker, TakeTreasure
from games.anasazi.components import COLOURS
from games.anasazi.rules import AnasaziState
from geomsim.bots import MAX_ITERATIONS, MAX_SECONDS, make_bot
from geomsim.rules import Action
from tests.anasazi.test_planner import _to_play, assert_sees_only_its_seat
from tests.anasazi.test_planner_windows import planted


def test_the_game_provides_the_search_player_with_a_bounded_budget() -> None:
    bot = make_bot("mcts:iterations=7,seconds=0.25", GAME)
    assert isinstance(bot, search.SearchBot)
    assert (bot.iterations, bot.seconds, bot.spec) == (7, 0.25, "mcts:iterations=7,seconds=0.25")
    default = make_bot("mcts", GAME)
    assert isinstance(default, search.SearchBot) and default.iterations == search.ITERATIONS
    assert default.rounds == search.ROUNDS
    one = make_bot("mcts:rounds=1,iterations=3", GAME)
    assert isinstance(one, search.SearchBot) and (one.rounds, one.iterations) == (1, 3)
    assert make_bot("planner", GAME).spec == "planner"  # the planner is still there
    for spec, words in ((f"mcts:iterations={MAX_ITERATIONS + 1}", "iterations must be a positive"),
                        ("mcts:seconds=1e300", f"at most {MAX_SECONDS:g}"),
                        ("mcts:seconds=nan", "seconds must be a positive"),
                        ("mcts:depth=3", "expected iterations=N, seconds=T and/or rounds=R"),
                        (f"mcts:rounds={search.MAX_ROUNDS + 1}", "rounds must be a positive"),
                        ("mcts:rounds=0", "rounds must be a positive"),
                        ("mcts:iterations=2,iterations=3", "expected iterations=N")):
        with pytest.raises(ValueError, match=words) as caught:
            make_bot(spec, GAME)
        assert "\n" not in str(caught.value)


def test_a_decision_is_legal_and_sees_only_what_its_seat_may_know() -> None:
    """anasazi/3.0/secret-towers, anasazi/3.0/secret-objective: two states the seat cannot
    tell apart get the same action (the search draws its determinizations from its view)."""
    assert_sees_only_its_seat("mcts:iterations=3,seconds=60")


def test_the_search_spends_its_iterations_on_simulated_rounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every simulation is one round of play after one candidate turn: their number is the
    budget, and the turns of a round are compared on the same draws (one seed a round)."""
    seeds: list[int] = []
    real = search.SearchBot._simulate

    def count(self: search.SearchBot, state: AnasaziState, player: int,
              actions: tuple[object, ...], seed: int) -> float:
        seeds.append(seed)
        return real(self, state, player, actions, seed)  # type: ignore[arg-type]

    monkeypatch.setattr(search.SearchBot, "_simulate", count)
    state = _to_play(3)
    make_bot("mcts:iterations=5,seconds=60", GAME).choose(state, state.current, np.random.default_rng(1))
    # Five turns in the first round, then the better three (3 more would pass the budget).
    assert len(seeds) == 5 and len(set(seeds)) == 1


def _kept_leaves(monkeypatch: pytest.MonkeyPatch) -> list[AnasaziState]:
    """The states the search's simulations end in, in order (its leaves still valued)."""
    leaves: list[AnasaziState] = []
    real = search.SearchBot._leaf

    def keep(self: search.SearchBot, state: AnasaziState, player: int,
             rng: np.random.Generator) -> float:
        leaves.append(state)
        return real(self, state, player, rng)

    monkeypatch.setattr(search.SearchBot, "_leaf", keep)
    return leaves


@pytest.mark.parametrize("rounds", [1, 2])
def test_a_simulation_plays_its_rounds_until_the_searcher_is_to_move_again(
        monkeypatch: pytest.MonkeyPatch, rounds: int) -> None:
    """The leaf of a simulation is the searcher's turn `rounds` turns after this one: after
    its turn every other player has played its turn (two actions each, rule 4.0), and with
    `rounds=2` the searcher's next turn as the planner plays it and the others' again."""
    leaves = _kept_leaves(monkeypatch)
    state = _to_play(3)
    player = state.current
    search.SearchBot(iterations=2, seconds=60, rounds=rounds).choose(state, player,
                                                                   np.random.default_rng(1))
    assert len(leaves) == 2
    for leaf in leaves:
        movers = [p for p, *_ in leaf.history[len(state.history):]]
        runs = [p for i, p in enumerate(movers) if not i or movers[i - 1] != p]
        order = [(player + k) % 4 for k in range(4)]
        assert leaf.is_over() or (runs == order * rounds and leaf.current == player
                                  and leaf.actions_left == 2 and not leaf.pending)


def test_a_setup_base_camp_is_the_one_its_simulations_favour(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """anasazi/3.0/setup-camps: the setup's base camps are searched as turns are: the
    planner's best few are simulated, and the one whose simulations fare best is built (here,
    made to be the one farthest east), not the planner's first choice."""
    judged: list[Action] = []

    def simulate(self: search.SearchBot, state: AnasaziState, player: int,
                 actions: tuple[Action, ...], seed: int) -> float:
        judged.append(actions[0])
        return float(actions[0].x)  # type: ignore[attr-defined]

    monkeypatch.setattr(search.SearchBot, "_simulate", simulate)
    state = GAME.new_state(4, seed=5)
    assert state.phase == "camps"
    action = search.SearchBot(iterations=12, seconds=60).choose(state, state.current,
                                                                 np.random.default_rng(1))
    assert isinstance(action, BuildCamp) and state.check(action, state.current).ok
    east = max(judged, key=lambda a: a.x)  # type: ignore[attr-defined]
    assert len(set(judged)) >= 3 and action == east


def test_a_setup_simulation_plays_the_rest_of_the_setup_and_then_rounds_of_play(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """anasazi/3.0/setup-camps: a setup base camp is judged by the play it leads to: each
    simulation plays the rest of the setup (every camp, every look) and then, for the first
    player, one round of play (`rounds=2`: it stops where the first player is to move the
    second time in play)."""
    leaves = _kept_leaves(monkeypatch)
    state = GAME.new_state(4, seed=5)
    setup = state.clone()
    rng = np.random.default_rng(0)
    while setup.phase != "play":
        setup.apply(make_bot("random", GAME).choose(setup, setup.current, rng), setup.current)
    first = state.current
    search.SearchBot(iterations=2, seconds=60, rounds=2).choose(state, first,
                                                               np.random.default_rng(1))
    assert len(leaves) == 2
    for leaf in leaves:
        movers = [p for p, *_ in leaf.history[len(setup.history):]]
        runs = [p for i, p in enumerate(movers) if not i or movers[i - 1] != p]
        assert leaf.phase == "play" and runs == [(first + k) % 4 for k in range(4)]
        assert leaf.current == first and leaf.actions_left == 2 and not leaf.pending


def test_the_search_takes_the_treasure_behind_a_narrow_window() -> None:
    """anasazi/4.2/touch-pueblo: its candidates are the planner's, from the exact windows, so
    the turn it plays takes the red treasure only a 0.2 mm window reaches (with its first or
    its second action: judged with the rounds after it, a base camp may come first)."""
    state: AnasaziState = planted()
    bot = make_bot("mcts:iterations=4", GAME)
    touched: list[str] = []
    rng = np.random.default_rng(0)
    while state.current == 0 and not state.is_over():
        action = bot.choose(state, 0, rng)
        assert state.check(action, 0).ok
        if isinstance(action, PlaceMarker):
            touched += lg.touched_sectors(state.table, action.pose)
        state.apply(action, 0)
    assert "P0" in touched and state.hands[0][COLOURS[0]] == 1


def test_at_the_end_a_simulation_is_worth_what_the_rulebook_says_of_the_winner() -> None:
    """anasazi/5.1/tie-break: two players level on points; the one with more treasures wins,
    and the search's leaf gives it the prize, the other the penalty."""
    state = _to_play(3)
    for hand in state.hands:
        for colour in hand:
            hand[colour] = 0
    state.track = {colour: 0 for colour in state.track}
    state.objectives = ("white", "red", "blue", "yellow")
    state.hands[0].update(yellow=1, blue=1)  # 5 + 5, and both majorities: 20 points, 4 treasures
    state.hands[1].update(red=1)  # 5 doubled, and the majority: 20 points, 2 treasures
    state.phase = "over"
    state.bonus = state.bonus_winners()
    assert state.scores()[:2] == [20.0, 20.0] and state.winners() == [0]
    bot = search.SearchBot()
    rng = np.random.default_rng(0)
    assert bot._leaf(state, 0, rng) - bot._leaf(state, 1, rng) == pytest.approx(
        2 * search.END_PRIZE)


def test_the_turn_chosen_at_its_first_action_is_played_to_its_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """rule 4.0 (two actions a turn): the search judges whole turns, so at the second action
    it plays the second of the turn it chose, with no new simulation."""
    state = _to_play(3)
    while state.actions_left != 2:
        state.apply(make_bot("planner", GAME).choose(state, state.current,
                                                    np.random.default_rng(0)), state.current)
    player = state.current
    bot = make_bot("mcts:iterations=4,seconds=60", GAME)
    assert isinstance(bot, search.SearchBot)
    first = bot.choose(state, player, np.random.default_rng(1))
    assert bot._planned is not None and bot._planned[2][0] == first
    planned = bot._planned[2]
    state.apply(first, player)
    while state.pending:
        state.apply(bot.choose(state, player, np.random.default_rng(2)), player)
    calls: list[object] = []

    def count(*args: object) -> float:
        calls.append(args)
        return 0.0

    monkeypatch.setattr(search.SearchBot, "_simulate", count)
    assert len(planned) == 2 and state.current == player and state.actions_left == 1
    assert bot.choose(state, player, np.random.default_rng(3)) == planned[1] and not calls


def test_the_time_cap_stops_the_search_before_a_simulation_would_overrun_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap is a promise about the decision's time: a simulation starts only when one as
    costly as the costliest so far would end under it (a clock that only simulations move:
    0.3 s each against a 1 s cap gives three, not the fourth that would end at 1.2 s)."""
    clock = [0.0]
    monkeypatch.setattr(time, "process_time", lambda: clock[0])
    ran: list[int] = []

    def simulate(self: search.SearchBot, state: AnasaziState, player: int,
                 actions: tuple[object, ...], seed: int) -> float:
        clock[0] += 0.3
        ran.append(seed)
        return float(len(ran))

    monkeypatch.setattr(search.SearchBot, "_simulate", simulate)
    state = _to_play(8)
    bot = search.SearchBot(iterations=50, seconds=1.0)
    action = bot.choose(state, state.current, np.random.default_rng(3))
    assert len(ran) == 3 and clock[0] <= 1.0
    assert state.check(action, state.current).ok


def _holding(player: int = 0, **hands: dict[str, int]) -> AnasaziState:
    """A state of play with `player` to move, no tower on the track, objectives white, red,
    blue, yellow by seat, and the hands given by seat (``p1={"blue": 6}``); the rest empty."""
    state: AnasaziState = _to_play(3)
    state.current = player
    state.track = {colour: 0 for colour in state.track}
    state.objectives = ("white", "red", "blue", "yellow")
    for p, hand in enumerate(state.hands):
        for colour in hand:
            hand[colour] = hands.get(f"p{p}", {}).get(colour, 0)
    return state


def test_the_others_objectives_are_inferred_from_what_they_hold_and_the_cards_left() -> None:
    """anasazi/5.1 (an objective doubles its colour): a player holding six blue treasures
    most likely has the blue card; with nothing held, the odds are the deck's (the seven
    cards but the searcher's own white one: white 1/7, the others 2/7)."""
    state = _holding(p1={"blue": 6})
    odds = search.Objectives.of(state, 0).colour_odds()
    blue, white = COLOURS.index("blue"), COLOURS.index("white")
    assert sorted(odds) == [1, 2, 3] and all(o.sum() == pytest.approx(1.0) for o in odds.values())
    assert odds[1][blue] > 0.9
    assert odds[1][white] < odds[2][white] == pytest.approx(odds[3][white])
    plain = search.Objectives.of(_holding(), 0).colour_odds()
    deck = [1 / 7 if c == "white" else 2 / 7 for c in COLOURS]
    assert all(o.tolist() == pytest.approx(deck) for o in plain.values())


def test_the_inference_leans_as_much_as_the_card_multiplies() -> None:
    """anasazi/5.1/objective-double under the option objective_multiplier: with 1 the card
    changes nothing and the hands say nothing (the deck's odds); with 3 a hand says more."""
    blue = COLOURS.index("blue")
    odds = {}
    for times in (1, 2, 3):
        state = _holding(p1={"blue": 2})
        state.options = {**state.options, "objective_multiplier": times}
        odds[times] = search.Objectives.of(state, 0).colour_odds()[1][blue]
    assert odds[1] == pytest.approx(2 / 7) and odds[1] < odds[2] < odds[3]


def test_the_inference_sees_only_what_its_seat_may_know() -> None:
    """anasazi/3.0/secret-objective: the others' true cards change nothing of it."""
    state = _holding(p1={"blue": 2, "red": 1}, p3={"yellow": 1})
    other = state.clone()
    other.objectives = ("white", "yellow", "red", "blue")
    assert other.observe(0) == state.observe(0)
    a, b = search.Objectives.of(state, 0), search.Objectives.of(other, 0)
    assert a.assignments == b.assignments and a.odds.tolist() == b.odds.tolist()


def test_the_simulations_deal_the_others_the_objectives_their_hands_suggest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A player holding six blue treasures has the blue card in nearly every simulation (a
    uniform deal from the deck would give it 2 in 7)."""
    dealt: list[str] = []

    def leaf(self: search.SearchBot, state: AnasaziState, player: int,
             rng: np.random.Generator) -> float:
        dealt.append(state.objectives[1])
        return 0.0

    monkeypatch.setattr(search.SearchBot, "_leaf", leaf)
    state = _holding(p1={"blue": 6})
    bot = search.SearchBot()
    bot._inferred = search.Objectives.of(state, 0)
    turn = pl.main_choices(bot.planner, state, 0, np.random.default_rng(0), 1)[0][0]
    for seed in range(12):
        bot._simulate(state, 0, (turn,), seed)
    assert len(dealt) == 12 and dealt.count("blue") >= 10


def test_the_leaf_counts_the_objective_a_leaders_hand_suggests() -> None:
    """The leader holds six blue treasures: with its likely blue card its score is higher
    than the deck's odds make it, so the searcher's position is worse."""
    state = _holding(p0={"red": 3}, p1={"blue": 6})
    bot, rng = search.SearchBot(), np.random.default_rng(0)
    uniform = bot._leaf(state, 0, rng)
    bot._inferred = search.Objectives.of(state, 0)
    belief = bot._belief(state, 0)
    assert belief.factor[1][COLOURS.index("blue")] > 1.9
    assert belief.factor[0].tolist() == pl.Belief.of(state, 0).factor[0].tolist()
    assert bot._leaf(state, 0, np.random.default_rng(0)) < uniform - 3.0


def test_a_theft_takes_from_the_colour_its_victim_most_likely_doubles() -> None:
    """anasazi/4.2 (camp theft): player 1 holds four blue treasures and a red one. Red is worth
    5, blue 4 (a blue tower on the track): by the deck's odds the planner takes the red; the
    search, reading player 1's likely blue card, takes a blue (the searcher holds five of each
    colour, so no majority changes hands)."""
    five = {colour: 5 for colour in COLOURS}
    state = _holding(p0=five, p1={"red": 1, "blue": 4})
    state.track["blue"] = 1
    state.pending = ["take"]
    space = list(state.legal_actions(0))  # type: ignore[call-overload]
    assert pl.best_take(pl.Belief.of(state, 0), space) == \
        TakeTreasure("red", 1)
    bot = search.SearchBot()
    assert bot.choose(state, 0, np.random.default_rng(0)) == TakeTreasure("blue", 1)


def test_the_turns_are_valued_by_the_inferred_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's candidates and values of the searcher's turns come from a belief in
    which a player holding six blue treasures most likely doubles blue."""
    beliefs: list[object] = []
    real = pl.main_choices

    def spy(*args: object, **kwargs: object) -> object:
        beliefs.append(kwargs.get("belief"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pl, "main_choices", spy)
    state = _holding(p1={"blue": 6})
    bot = search.SearchBot()
    bot._inferred = search.Objectives.of(state, 0)
    assert bot._turns(state, 0, np.random.default_rng(0))
    blue = COLOURS.index("blue")
    assert beliefs and all(isinstance(b, pl.Belief) and b.factor[1][blue] > 1.9
                           for b in beliefs)


def test_the_others_are_modelled_as_the_planner_they_would_be() -> None:
    """The simulated opponents draw as many placements as the planner does by default: with
    fewer they miss the narrow takes a planner finds, and the search misjudges what a turn
    leaves them."""
    assert search.SearchBot().opponent.samples == pl.PlannerBot().samples \
        == pl.SAMPLES

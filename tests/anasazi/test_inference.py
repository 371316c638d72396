"""What a seat infers of the others' objective cards from their choices
(games/anasazi/inference.py; the search player's opponent model, issue 28 item 2)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from games.anasazi import GAME
from games.anasazi import inference as inf
from games.anasazi import search
from games.anasazi.actions import TakeTreasure
from games.anasazi.components import COLOURS
from games.anasazi.rules import AnasaziState
from geomsim.bots import make_bot, play_game
from geomsim.rules import Action
from tests.anasazi.test_search import _holding


def _theft(thief: int, victim_hand: dict[str, int]) -> AnasaziState:
    """Player `thief` to take a treasure from player 2 (who holds `victim_hand`)."""
    state = _holding(p2=victim_hand)
    state.current = thief
    state.pending = ["take"]
    return state


def test_a_theft_of_a_poorer_colour_is_read_as_the_thiefs_card() -> None:
    """anasazi/4.2 (camp theft), anasazi/5.1/objective-double: red is worth 5, blue 4 (a blue
    tower on the track); player 1 steals the blue. Only a blue card makes that the best take,
    a red card makes it a poor one: the watcher now thinks blue likelier than red."""
    state = _theft(1, {"red": 1, "blue": 1})
    state.track["blue"] = 1
    evidence = inf.Evidence(0).update(state)
    before = inf.Objectives.of(state, 0, evidence=evidence).colour_odds()[1]
    state.apply(TakeTreasure("blue", 2), 1)
    after = inf.Objectives.of(state, 0, evidence=evidence.update(state)).colour_odds()[1]
    blue, red = COLOURS.index("blue"), COLOURS.index("red")
    assert before[blue] == pytest.approx(before[red])
    assert after[blue] > 1.5 * before[blue] and after[red] < 0.7 * before[red]
    # The hands (the lean) see one blue treasure held; the choice says more: red was richer.
    lean = inf.Objectives.of(state, 0).colour_odds()[1]
    assert after[blue] / after[red] > 1.2 * lean[blue] / lean[red]


def test_under_a_multiplier_of_one_a_theft_tells_nothing() -> None:
    """anasazi/5.1/objective-double under the option objective_multiplier = 1: the card
    changes no score, so no choice tells it (every card equally likely after the theft)."""
    state = _theft(1, {"red": 1, "blue": 1})
    state.track["blue"] = 1
    state.options = {**state.options, "objective_multiplier": 1}
    evidence = inf.Evidence(0).update(state)
    state.apply(TakeTreasure("blue", 2), 1)
    evidence.update(state)
    logs = evidence.logs[1]
    assert logs.tolist() == pytest.approx([logs[0]] * len(COLOURS))


def test_a_take_without_a_choice_tells_nothing() -> None:
    """The victim holds one treasure: the thief had no choice to read."""
    state = _theft(1, {"red": 1})
    evidence = inf.Evidence(0).update(state)
    state.apply(TakeTreasure("red", 2), 1)
    evidence.update(state)
    assert evidence.logs[1].tolist() == [0.0] * len(COLOURS)


def test_the_watch_starts_over_for_another_game() -> None:
    """A state that does not continue the watched history (another game, an earlier moment)
    starts the reading afresh: nothing read of one game colours another."""
    state = _theft(1, {"red": 1, "blue": 1})
    state.track["blue"] = 1
    evidence = inf.Evidence(0).update(state)
    state.apply(TakeTreasure("blue", 2), 1)
    evidence.update(state)
    assert evidence.logs[1].any()
    evidence.update(_holding())
    assert not evidence.logs[1].any() and evidence.unlike[1] == 0.0


def _watched_game(seed: int, others: str) -> tuple[float, float, float]:
    """Seat 0 plays as the planner and watches three `others`: the mean log-probability of
    the others' true cards by the cards' odds, by their hands (the lean) and by their choices,
    over seat 0's main decisions after the first round."""
    planner = make_bot("planner:24", GAME)
    other = make_bot(others, GAME)
    found: list[tuple[float, float, float]] = []

    class Watcher:
        spec = "watcher"
        evidence = inf.Evidence(0)

        def choose(self, state: Any, player: int, rng: np.random.Generator) -> Action:
            if state.phase == "play" and not state.pending and len(state.history) > 40:
                self.evidence.update(state)
                row = []
                for kind in ("cards", "lean", "evidence"):
                    odds = inf.Objectives.of(state, 0, 1.0 if kind == "cards" else None,
                                             self.evidence if kind == "evidence" else None)
                    row.append(float(np.mean([math.log(odds.colour_odds()[q][
                        COLOURS.index(state.objectives[q])]) for q in odds.others])))
                found.append((row[0], row[1], row[2]))
            return planner.choose(state, player, rng)

    play_game(GAME, 4, [Watcher(), other, other, other], seed)
    cards, lean, read = np.array(found).mean(axis=0)
    return float(cards), float(lean), float(read)


def test_planners_choices_tell_their_cards_far_better_than_their_hands() -> None:
    """Against planners (whom the reading models), the true cards are far likelier by their
    choices than by their hands or the cards' odds."""
    cards, lean, read = _watched_game(9000, "planner:24")
    assert read > lean + 0.25 and read > cards + 0.6


def test_choices_unlike_the_planners_do_not_mislead_much() -> None:
    """Against greedy players, whose choices the planner's values do not explain, the reading
    stays near the cards' odds (it weighs "plays as the planner" against "tells nothing")."""
    cards, lean, read = _watched_game(9001, "greedy")
    assert read > cards - 0.3


def test_the_search_player_reads_the_others_choices() -> None:
    """The search player's inferred odds come from the choices it watched: after player 1's
    theft of the poorer blue, blue is player 1's likelier card."""
    state = _theft(1, {"red": 1, "blue": 1})
    state.track["blue"] = 1
    bot = search.SearchBot()
    bot._infer(state, 0)
    state.apply(TakeTreasure("blue", 2), 1)
    odds = bot._infer(state, 0).colour_odds()[1]
    assert odds[COLOURS.index("blue")] > 2 * odds[COLOURS.index("red")]


def test_a_long_absence_reads_only_the_latest_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    """A watcher asked again after many of the others' actions (a game resumed, a long web
    session) reads only the last `READ_AT_MOST` of them: its time stays bounded."""
    read: list[int] = []
    real = inf.Evidence._read

    def count(self: inf.Evidence, seen: AnasaziState, q: int, action: object) -> None:
        read.append(q)
        real(self, seen, q, action)  # type: ignore[arg-type]

    monkeypatch.setattr(inf.Evidence, "_read", count)
    state = _holding()
    evidence = inf.Evidence(0).update(state)
    random, rng = make_bot("random", GAME), np.random.default_rng(0)
    others = 0
    while others < inf.READ_AT_MOST + 12 and not state.is_over():
        player = state.current
        others += player != 0
        state.apply(random.choose(state, player, rng), player)
    evidence.update(state)
    assert len(read) == inf.READ_AT_MOST and 0 not in read

"""Issue 31, the page as a newcomer meets it: actions read rounded with the exact one behind
them, a setup dealt at random from the seed, a bot's secrets kept off the board shown by
default, "Last events" following the bots, and Aztekz's board clicked to place, its events in
words."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geomsim
from games.anasazi.actions import PlaceMarker
from geomsim.notation import rounded
from geomsim.scenario import parse_scenario, run_scenario
from geomsim.web.hooks import WebError
from geomsim.web.session import Session, Start
from tests.web.test_api import post

TABLE = st.floats(-1e6, 1e6, allow_nan=False)  # what a marker's numbers may be


@given(TABLE, TABLE, st.floats(0, 360, exclude_max=True))
def test_an_action_reads_rounded_to_the_hundredth_and_the_tenth_of_a_degree(x, y, heading):
    """A marker's text as the page shows it: x and y within 0.005 of the exact ones with at
    most 2 decimals, the heading within 0.05 degree with at most 1."""
    shown = rounded(str(PlaceMarker("E3", x, y, heading)))
    m = re.fullmatch(r"marker E3 at (-?[\d.]+),(-?[\d.]+) heading (-?[\d.]+)", shown)
    assert m is not None, shown
    for text, exact, digits in ((m[1], x, 2), (m[2], y, 2), (m[3], heading, 1)):
        assert len(text.partition(".")[2]) <= digits, shown
        assert abs(float(text) - exact) <= 0.5 * 10 ** -digits * 1.001, shown


@pytest.mark.parametrize("text", ["look P42s", "place -2,-1 r1", "steal 2.slave1", "send 3",
                                  "take red from 2", "extend E3 heading 90"])
def test_ids_and_whole_numbers_read_as_written(text):
    assert rounded(text) == text


def test_the_page_lists_actions_rounded_and_plays_them_exact():
    session = Session(Start(geomsim.load_game("anasazi"), 2, seed=1))
    actions = session.view()["actions"]["1"]
    assert not actions["finite"] and actions["labels"] == [rounded(a) for a in actions["items"]]
    assert actions["labels"] != actions["items"], "sampled base camps have long floats"
    session.play(None, session.parse(actions["items"][0]))
    assert session.history()[0]["text"] == actions["items"][0]  # the exact one was played
    assert session.history()[0]["label"] == actions["labels"][0]


def test_a_deal_plays_the_setup_at_random_from_the_seed():
    """anasazi/3.0: two base camps each, then three looks each, each a random legal action of
    the seed's generator; the game then starts in play. The same seed deals the same; a saved
    dealt game replays."""
    game = geomsim.load_game("anasazi")
    one, same, other = (Session(Start(game, 3, seed=s)) for s in (8, 8, 9))
    assert one.view()["can_deal"]
    assert one.deal() == same.deal() == len(one.records) > 0
    other.deal()
    assert [r.text for r in one.records] == [r.text for r in same.records]
    assert [r.text for r in one.records] != [r.text for r in other.records]
    assert one.state.phase == "play" and all(r.by == "deal" for r in one.records)
    assert not one.view()["can_deal"]
    with pytest.raises(WebError, match="nothing to deal"):
        one.deal()
    one.ticked.add("final:to_move")
    report = run_scenario(parse_scenario(one.scenario_yaml(), "dealt.yaml"), out=None)
    assert report.ok, str(report)


def test_a_new_game_is_dealt_on_request(client):
    r = client.post("/api/sessions", json={"game": "anasazi", "players": 2, "seed": 4, "deal": True})
    assert r.status_code == 200, r.text
    view = r.json()["view"]
    assert view["board"]["summary"][0].startswith("phase play") and not view["can_deal"]
    assert [h["by"] for h in view["last"]] == ["deal"] * len(view["last"]) and view["last"]
    post(client, r.json()["session"], "deal", view, status=400)  # past the setup
    r = client.post("/api/sessions", json={"game": "anasazi", "players": 2, "deal": "yes"})
    assert r.status_code == 400 and r.json()["error"] == "deal must be true or false"


def test_a_bots_secrets_stay_off_the_board_shown_by_default():
    """The board and summary show by default the knowledge of the player to move only when a
    human plays that seat: a bot's objective and the towers it saw are never shown."""
    session = Session(Start(geomsim.load_game("anasazi"), 2, seed=4))
    session.deal()
    bot = session.state.current
    session.seats[bot] = "random"  # seated, not moved yet
    summary = "\n".join(session.view()["board"]["summary"])
    assert session.view()["shown_as"] == 1 - bot
    assert f"player {1 - bot} knows" in summary and f"player {bot} knows" not in summary
    session.seats[1 - bot] = "greedy"
    assert session.view()["shown_as"] is None
    assert "knows" not in "\n".join(session.view()["board"]["summary"])


def test_last_events_hold_the_hand_step_and_the_bots_after_it():
    session = Session(Start(geomsim.load_game("aztekz"), 2, seed=2))
    session.deal()
    me = session.state.to_move()[0]
    session.seats[1 - me] = "random"
    session.play(me, session.parse("end"))  # no hero moves; the card is placed next
    while session.state.to_move() == (me,):  # each step by hand lets the bot move after it
        session.play(me, next(iter(session.state.legal_actions(me))))
    last = session.view()["last"]
    hand = [h["n"] for h in last if h["by"] == "hand"]
    assert len(hand) == 1 and last[0]["by"] == "hand", last
    assert [h["by"] for h in last[1:]] == ["random"] * (len(last) - 1) and len(last) > 1
    assert last[-1]["n"] == session.cursor


def test_replay_captions_read_rounded(tmp_path):
    """`geomsim replay` titles each frame with its move, rounded as the page shows it."""
    from geomsim.scenario.log import GameLog

    game = geomsim.load_game("anasazi")
    state = game.new_state(2, seed=3)
    camp = state.legal_actions(state.to_move()[0]).sample(np.random.default_rng(0), 1)[0]
    log = GameLog(tmp_path / "game.jsonl", game, 2, 3, None, (), [(state.to_move()[0], camp, str(camp), 2)])
    titles = [title for title, _ in log.frames()]
    assert titles[1].endswith(rounded(str(camp))) and str(camp) not in titles[1]


def _placements_drawn(svg_text: str) -> set[str]:
    return set(re.findall(r'data-action="([^"]+)"', svg_text))


@pytest.mark.parametrize("seed", [1, 5])
def test_aztekz_board_offers_exactly_the_legal_placements(seed):
    """aztekz/place/*: the turns drawn on the board for a click are the legal placements, no
    more; every cell shown has its coordinates; no event says "None"."""
    game = geomsim.load_game("aztekz")
    hooks = game.web()
    state = game.new_state(2, seed=seed)
    rng = np.random.default_rng(seed)
    placing = 0
    for _ in range(80):
        if state.is_over():
            break
        player = state.to_move()[0]
        space = state.legal_actions(player)
        board = hooks.board(state, None, False).svg
        legal = {str(a) for a in space if str(a).startswith("place")}
        assert _placements_drawn(board) == legal
        placing += bool(legal)
        cells = set(state.grid.cells) | set(state._frontier() if state.grid.cells else [(0, 0)])
        coords = set(re.findall(r'class="label coord">([^<]+)<', board))
        assert coords == {f"{x},{y}" for x, y in cells}
        for event in state.apply(list(space)[rng.integers(len(space))], player):
            assert "None" not in hooks.describe(event), event
    assert placing >= 5

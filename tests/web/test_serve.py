"""`geomsim serve`'s starts, the follow-up decisions and bots of a session, and the other games
in the page (their drawings, their sealed choices)."""

from __future__ import annotations

import json

import pytest

import geomsim
from geomsim.cli import main
from geomsim.errors import InputError
from geomsim.scenario import parse_scenario, run_scenario
from geomsim.web import Session, Start
from geomsim.web.hooks import WebError
from geomsim.web.serve import bind, start_from
from tests.web.conftest import SCENARIO
from tests.web.test_api import new, post


def test_start_from_a_seed_a_setup_file_or_a_scenario(tmp_path):
    start = start_from(None, None, "cibola", 3, 5)
    assert (start.game.name, start.players, start.seed) == ("cibola", 3, 5)
    setup = geomsim.load_game("anasazi").make_setup(2, 4)
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(setup))
    found = start_from(None, path, None, None, 0)  # the game is the one that takes the setup
    assert (found.game.name, found.players, found.setup) == ("anasazi", 2, setup)
    played = start_from(SCENARIO, None, None, None, 0)
    assert len(played.steps) == 22 and played.setup["first_player"] == 1
    with pytest.raises(InputError, match="not both"):
        start_from(SCENARIO, None, "anasazi", None, 0)
    broken = tmp_path / "broken.yaml"
    broken.write_text(SCENARIO.read_text().replace("from: tables/", f"from: {SCENARIO.parent}/tables/")
                      .replace('"0: camp 0.0,-360.0"', '"0: camp 0.0,0.0"'))
    with pytest.raises(InputError, match="a step is illegal, so the game cannot start: anasazi/4.1/valley"):
        start_from(broken, None, None, None, 0)
    path.write_text('[1, 2]')
    with pytest.raises(InputError, match="no game accepts this setup"):
        start_from(None, path, None, None, 0)
    with pytest.raises(InputError, match="played by 2 to 4 players, not 9"):
        start_from(None, None, "anasazi", 9, 0)


def test_bind_picks_a_free_port_and_names_a_taken_one():
    sock = bind("127.0.0.1", 0)
    with sock:
        port = sock.getsockname()[1]
        assert port > 0
        # A port with a listening socket cannot be bound again, SO_REUSEADDR or not.
        with pytest.raises(InputError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind("127.0.0.1", port)


def test_serve_help(capsys):
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--port" in out and "--open" in out and "127.0.0.1" in out


def test_looks_and_takes_are_chosen_in_the_page(client):
    """anasazi/4.1/camp-look and anasazi/4.2/own-camp-treasure: the decision a step opens is
    offered, listed as buttons and made there."""
    sid, view = new(client)
    while view["cursor"] > 12:
        view = post(client, sid, "back", view)["view"]
    r = post(client, sid, "apply", view, player=0, action="camp 205.4,-256.4")
    assert r["offers"] == ["player 0 may choose the tower to look at (or pass)"]
    looks = r["view"]["actions"]["0"]
    assert looks["finite"] and "look P42s" in looks["items"] and "pass" in looks["items"]
    r = post(client, sid, "apply", r["view"], player=0, action="look P42s")
    assert r["events"] == ["player 0 looked at the tower on P42s"]
    assert any("towers P0s" in line and "P42s" in line for line in r["view"]["board"]["summary"])
    while r["view"]["cursor"] < 19:
        r = post(client, sid, "apply", r["view"], player=None,
                 action=["marker E2 at -122.9027,-269.9202 heading 80",
                         "marker E2 at -113.3521,-215.7558 heading 80",
                         "marker E2 at -103.8015,-161.5914 heading 80", "pass",
                         "marker E3 at 217.8969,-271.9781 heading 128.7"][r["view"]["cursor"] - 14])
    assert "player 0 covered player 0's base camp 4 for the first time: a treasure to take" in r["events"]
    assert r["view"]["actions"]["0"]["items"] == ["take red from 1", "pass"]
    r = post(client, sid, "apply", r["view"], player=0, action="take red from 1")
    assert r["events"] == ["player 0 took a red treasure from player 1"]


def test_bots_play_a_whole_game_and_the_save_replays():
    start = Start(geomsim.load_game("cibola"), 2, seed=3, title="cibola")
    session = Session(start)
    with pytest.raises(WebError, match="seat 1: unknown bot 'chess'"):
        session.set_seats([None, "chess"])
    session.set_seats(["random", "greedy"])
    assert session.play_bots() > 0 and session.state.is_over()
    assert session.play_bots() == 0  # nobody left to move
    assert all(r.by in ("random", "greedy") for r in session.records)
    session.ticked |= {"final:scores", "final:winners"}
    saved = parse_scenario(session.scenario_yaml(), "saved.yaml")
    report = run_scenario(saved, out=None)
    assert report.ok and len(report.results) == 2, str(report)
    session.undo()
    p = session.state.to_move()[0]
    with pytest.raises(WebError, match=f"player {p} is played by the bot"):
        session.play(p, session.game.parse_action("send 1"))


def test_sealed_sends_stay_hidden_until_the_round_resolves():
    session = Session(Start(geomsim.load_game("cibola"), 3, seed=5))
    assert session.state.to_move() == (0, 1, 2)
    session.play(1, session.parse("send 3"))
    session.play(0, session.parse("send 2"))
    assert [h["text"] for h in session.history()] == [None, None]
    assert all(h["events"] == [] for h in session.history())
    assert not [c for c in session.candidates() if c["id"].startswith("event:")]
    session.play(2, session.parse("send 1"))
    history = session.history()
    assert [h["text"] for h in history] == ["send 3", "send 2", "send 1"]
    assert any("revealed" in e for e in history[2]["events"])


def test_a_game_without_hooks_is_drawn_by_its_own_drawing():
    session = Session(Start(geomsim.load_game("cibola"), 2, seed=1))
    view = session.view()
    assert view["board"]["svg"].startswith("<svg") and view["board"]["tools"] == []
    assert view["board"]["legend"] == []  # the drawing carries its own key


def test_aztekz_plays_in_the_page():
    session = Session(Start(geomsim.load_game("aztekz"), 2, seed=1))
    view = session.view()
    first = view["actions"]["0"]["items"][0]
    session.play(0, session.parse(first))
    assert session.history()[0]["text"] == first

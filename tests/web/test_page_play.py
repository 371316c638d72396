"""What the page is told while players choose sealed, and bots that think without holding up
the server (issue 25, items 3 and 5), through the ASGI app as the page calls it."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

import pytest

import geomsim
from geomsim import bots as bots_module
from geomsim.web import make_app
from geomsim.web.session import Start
from tests.web.test_protection import TOKEN, test_client


def test_a_sealed_send_shows_in_no_answer_until_the_round_resolves():
    """Player 0 sends 3 while players 1 and 2 still choose: no answer of any request the page
    makes (apply, the view as anyone, the downloads) holds `send 3` until the round resolves,
    but for the legal actions of the players still to choose (they may send 3 too)."""
    start = Start(geomsim.load_game("cibola"), 3, seed=5, title="cibola")
    page = test_client(make_app(start, token=TOKEN))
    page.get(f"/?token={TOKEN}")
    answers = []

    def call(method: str, endpoint: str, **body):
        r = page.request(method, f"/api/s/{sid}/{endpoint}", json=body or None)
        answers.append(without_legal_actions(r))
        return r

    r = page.post("/api/sessions", json={})
    sid, version = r.json()["session"], r.json()["view"]["version"]
    assert r.json()["view"]["to_move"] == [0, 1, 2]
    applied = call("POST", "apply", version=version, player=0, action="send 3").json()
    assert applied["applied"] == "0: (a sealed choice)" and applied["events"] == []
    for viewer in (None, 1):
        call("POST", "options", viewer=viewer, reveal=False)
        call("GET", "view")
    for download in ("setup.json", "moment.svg", "scenario.yaml"):
        call("GET", download)
    assert "sealed choice is not revealed" in answers[-1]
    version = page.get(f"/api/s/{sid}/view").json()["version"]
    applied = call("POST", "apply", version=version, player=1, action="send 1").json()
    assert applied["applied"] == "1: (a sealed choice)"
    assert not [text for text in answers if "send 3" in text]
    final = call("POST", "apply", version=applied["view"]["version"], player=2, action="send 2")
    assert final.json()["applied"] == "2: send 2"  # the round is resolved: all shown
    assert "send 3" in final.text and "send 3" in call("GET", "scenario.yaml").text


def without_legal_actions(r) -> str:
    """The text of an answer, without the lists of legal actions of a view in it."""
    if not r.headers["content-type"].startswith("application/json"):
        return r.text
    data = r.json()
    for view in (data, data.get("view") or {}):
        view.pop("actions", None)
    return json.dumps(data)


@dataclass
class Sleepy:
    """A bot that thinks until it is told to stop: what a 20 s search looks like to the app."""

    go: threading.Event = field(default_factory=threading.Event)
    spec: str = "sleepy"

    def choose(self, state, player, rng):
        assert self.go.wait(60), "never told to move"
        return next(iter(state.legal_actions(player)))


def test_a_thinking_bot_holds_up_no_request(monkeypatch):
    bot = Sleepy()
    monkeypatch.setitem(bots_module.BOTS, "sleepy", lambda arg: bot)
    page = test_client(make_app(Start(geomsim.load_game("cibola"), 2, seed=3, title="cibola")))
    r = page.post("/api/sessions", json={})
    sid, view = r.json()["session"], r.json()["view"]
    clock = time.monotonic()
    seated = page.post(f"/api/s/{sid}/seats", json={"version": view["version"],
                                                    "seats": ["sleepy", None]})
    assert seated.status_code == 200 and seated.json()["thinking"]
    # While the bot thinks: this session and another answer at once, and its human moves.
    now = page.get(f"/api/s/{sid}/view").json()
    assert now["thinking"] and now["length"] == 0
    other = page.post("/api/sessions", json={}).json()["session"]
    assert page.get(f"/api/s/{other}/view").status_code == 200
    played = page.post(f"/api/s/{sid}/apply", json={"version": now["version"], "player": 1,
                                                     "action": "send 1"})
    assert played.status_code == 200 and played.json()["view"]["to_move"] == [0]
    assert time.monotonic() - clock < 30, "a request waited for the bot"
    bot.go.set()
    deadline = time.monotonic() + 20
    while (now := page.get(f"/api/s/{sid}/view").json())["thinking"]:
        assert time.monotonic() < deadline, "the bot never moved"
        time.sleep(0.05)
    assert [(h["player"], h["by"]) for h in now["history"]] == [(1, "hand"), (0, "sleepy")]
    assert now["bot_error"] is None


@pytest.mark.parametrize("spec, words", [("ismcts:30s", "at most 10 s a move"),
                                         ("ismcts:50000", "at most 1000 iterations")])
def test_the_page_caps_a_bots_budget(client, spec, words):
    r = client.post("/api/sessions", json={"game": "cibola", "players": 2})
    sid, view = r.json()["session"], r.json()["view"]
    r = client.post(f"/api/s/{sid}/seats", json={"version": view["version"], "seats": [spec, None]})
    assert r.status_code == 400 and words in r.json()["error"] and "seat 0" in r.json()["error"]
    assert client.get(f"/api/s/{sid}/view").json()["seats"] == [None, None]

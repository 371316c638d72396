"""Malformed requests to every POST endpoint get a 4xx with one line, never a 500 (issue 25,
item 3): deep nesting, numbers too large for the geometry or for a float, bad seeds, and a
seeded generator of broken bodies of its own."""

from __future__ import annotations

import json
import random

import pytest

from tests.web.test_api import at_play, new

ENDPOINTS = ("options", "preview", "check", "apply", "undo", "back", "forward", "seats", "bots",
             "deal", "expect", "tick", "analysis")


def assert_refused(r, words: str = "") -> str:
    """A 4xx whose body is one JSON line {"error": ...} naming `words`."""
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    assert "\n" not in r.text and "Traceback" not in r.text
    error = r.json()["error"]
    assert isinstance(error, str) and words in error and len(error) < 600, error[:700]
    return error


def post_raw(client, path: str, body: bytes):
    return client.post(path, content=body, headers={"content-type": "application/json"})


@pytest.mark.parametrize("endpoint", ("sessions", *ENDPOINTS))
def test_deep_nesting_is_refused_on_every_endpoint(client, endpoint):
    sid, _ = new(client)
    path = "/api/sessions" if endpoint == "sessions" else f"/api/s/{sid}/{endpoint}"
    for body in (b"[" * 30_000, b'{"a": ' * 10_000, b"[" * 33 + b"]" * 33):
        assert_refused(post_raw(client, path, body), "nested more than 32 deep")
    # 32 levels are fine to read (then refused for what they hold, not as JSON).
    r = post_raw(client, path, b'{"pad": ' + b"[" * 31 + b"]" * 31 + b"}")
    assert "nested" not in r.text
    # Brackets inside a string do not nest.
    r = post_raw(client, path, json.dumps({"pad": "[" * 1000}).encode())
    assert "nested" not in r.text


def test_numbers_too_large_name_their_field(client):
    sid, view = at_play(client)
    base = {"version": view["version"], "tool": "marker", "params": {"expedition": "E3"},
            "x": 1.0, "y": 1.0, "heading": 0.0}
    for tool in ("marker", "camp"):
        for field in ("x", "y"):
            for value in (1e308, -1e308, 1e7):
                r = client.post(f"/api/s/{sid}/preview", json={**base, "tool": tool, field: value})
                assert_refused(r, f"{tool} {field} must be a number from")
    huge = b'{"version": %d, "tool": "camp", "x": 1%s, "y": 1}' % (view["version"], b"0" * 400)
    assert_refused(post_raw(client, f"/api/s/{sid}/preview", huge), "x must be a finite number")
    body = b'{"version": %d, "name": "reach", "params": {"expedition": "E2", "markers": 1e400}}'
    assert_refused(post_raw(client, f"/api/s/{sid}/analysis", body % view["version"]),
                   "1e400 is too large a number")
    r = client.post(f"/api/s/{sid}/analysis", json={"version": view["version"], "name": "reach",
                                                      "params": {"expedition": "E2", "markers": 1e300}})
    assert_refused(r, "markers must be 1 to 3")


def test_seeds_outside_what_the_games_take_are_refused(client):
    for seed in (-1, 2**32, 10**30):
        r = client.post("/api/sessions", json={"game": "cibola", "players": 2, "seed": seed})
        assert_refused(r, "seed must be 0 to 2**32 - 1")
    assert client.post("/api/sessions", json={"game": "cibola", "players": 2,
                                              "seed": 2**32 - 1}).status_code == 200


# Values put in one field of a valid request: what JSON can say that no field takes.
HOSTILE = ["null", "true", "-1", "4294967296", "1e308", "-1e308", "1e400", "-1e400", "1" + "0" * 400,
           "9" * 5000, "0.5", '"' + "x" * 5000 + '"', '"\\ud800"', "[]", "{}", "[" * 40 + "]" * 40,
           '"send 3"', '"marker E9 at 1e308,0 heading 0"', '{"expedition": [1]}', "NaN", "Infinity"]
# Whole bodies that are not a request at all.
RAW = [b"[" * 30_000, b"\xff\xfe{}", b"null", b'"text"', b"[1, 2]", b'{"version": 0}{', b"{" + b" " * 60_000,
       b'{"a": 1, "a": 2}', b"{" * 5000, b"1" * 5000, b'{"x": "\x00"}']


def templates(view: dict) -> dict[str, dict[str, str]]:
    """A valid body per endpoint, each field as JSON text."""
    v = str(view["version"])
    seats = json.dumps([None] * view["players"])
    return {
        "sessions": {"game": '"cibola"', "players": "2", "seed": "5", "deal": "true"},
        "options": {"viewer": "0", "reveal": "false"},
        "preview": {"version": v, "tool": '"marker"', "params": '{"expedition": "E3"}',
                    "x": "1.5", "y": "-2", "heading": "30"},
        "check": {"version": v, "player": "1", "action": '"pass"'},
        "apply": {"version": v, "player": "0", "action": '"pass"'},
        "undo": {"version": v}, "back": {"version": v}, "forward": {"version": v},
        "seats": {"version": v, "seats": seats}, "bots": {"version": v},
        "deal": {"version": v},
        "expect": {"version": v, "player": "1", "action": '"pass"'},
        "tick": {"version": v, "id": '"final:scores"', "ticked": "true"},
        "analysis": {"version": v, "name": '"reach"', "params": '{"expedition": "E2", "markers": 1}'},
    }


def test_a_seeded_generator_of_broken_bodies_never_gets_a_500(client):
    """Every endpoint, every field with a seeded sample of hostile values, pairs of broken
    fields and raw bodies: each answer below 500, errors one JSON line."""
    rng = random.Random(25)
    sid, view = at_play(client)
    cases: list[tuple[str, bytes]] = []
    for endpoint, fields in templates(view).items():
        for name in fields:
            for value in rng.sample(HOSTILE, 7):
                body = {**fields, name: value}
                cases.append((endpoint, ("{" + ", ".join(f'"{k}": {t}' for k, t in body.items())
                                         + "}").encode()))
        for _ in range(6):
            body = dict(fields)
            for name in rng.sample(sorted(fields), min(2, len(fields))):
                body[name] = rng.choice(HOSTILE)
            cases.append((endpoint, ("{" + ", ".join(f'"{k}": {t}' for k, t in body.items())
                                     + "}").encode()))
        cases += [(endpoint, raw) for raw in rng.sample(RAW, 4)]
    rng.shuffle(cases)
    answered: dict[int, int] = {}
    for endpoint, body in cases:
        path = "/api/sessions" if endpoint == "sessions" else f"/api/s/{sid}/{endpoint}"
        r = post_raw(client, path, body)
        answered[r.status_code] = answered.get(r.status_code, 0) + 1
        if r.status_code >= 400:
            assert_refused(r)
        assert r.status_code < 500, (endpoint, body[:200], r.text[:300])
    assert answered.get(400, 0) > len(cases) / 2, answered  # mostly refused, as they should be

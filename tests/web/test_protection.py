"""How `geomsim serve` is protected (issue 25, item 2): the token and its cookie, the Host
header, the Origin of changing requests, JSON only, no CORS, sessions bound per client; the same
requests sent to the ASGI app and to a really started `geomsim serve`. And its speed for a
scripted client (issue 30, item 3: no delayed-ACK stall)."""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import time
import warnings

import pytest

import geomsim
from geomsim.web import make_app
from geomsim.web.app import Sessions
from geomsim.web.hooks import WebError
from geomsim.web.session import Start
from tests.web.conftest import ROOT

TOKEN = secrets.token_urlsafe(24)
CIBOLA = Start(geomsim.load_game("cibola"), 2, seed=3, title="cibola")


def test_client(app, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's note on httpx versions
        from starlette.testclient import TestClient

        return TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False,
                          **kwargs)


test_client.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


@pytest.fixture(scope="module")
def app():
    return make_app(CIBOLA, token=TOKEN)


def one_line_error(response) -> str:
    """The error of a refused API request: one JSON line with nothing else."""
    assert response.text.count("\n") == 0 and "Traceback" not in response.text, response.text
    data = response.json()
    assert list(data) == ["error"] and isinstance(data["error"], str)
    return data["error"]


def test_the_page_needs_the_token_and_answers_it_with_a_strict_cookie(app):
    browser = test_client(app)
    for url in ("/", "/?token=wrong", f"/?token={TOKEN[:-1]}"):
        refused = browser.get(url)
        assert refused.status_code == 403 and "token" in refused.text, url
        assert refused.text.count("\n") == 1 and "set-cookie" not in refused.headers
    assert browser.get("/api/games").status_code == 403
    page = browser.get(f"/?token={TOKEN}")
    assert page.status_code == 200 and "<html" in page.text
    cookies = page.headers.get_list("set-cookie")
    token_cookie = [c for c in cookies if c.startswith("geomsim-token-8765=")]
    assert token_cookie and TOKEN in token_cookie[0]
    assert all("HttpOnly" in c and "SameSite=Strict" in c for c in cookies), cookies
    assert page.headers["referrer-policy"] == "no-referrer"
    # The cookie alone now opens the page and the API, without the token in the address.
    assert browser.get("/").status_code == 200
    assert browser.get("/api/games").status_code == 200
    sid = browser.post("/api/sessions", json={}).json()["session"]
    assert browser.get(f"/api/s/{sid}/setup.json").status_code == 200
    # Static files are open: they hold nothing but the page's code.
    assert test_client(app).get("/static/app.js").status_code == 200


def test_every_api_call_and_download_needs_the_cookie_or_the_header(app):
    owner = test_client(app)
    owner.get(f"/?token={TOKEN}")
    sid = owner.post("/api/sessions", json={}).json()["session"]
    stranger = test_client(app)
    calls = [("GET", "/api/games"), ("POST", "/api/sessions"), ("GET", f"/api/s/{sid}/view"),
             ("POST", f"/api/s/{sid}/undo"), ("GET", f"/api/s/{sid}/scenario.yaml"),
             ("GET", f"/api/s/{sid}/setup.json"), ("GET", f"/api/s/{sid}/moment.svg")]
    for method, url in calls:
        for headers in ({}, {"Authorization": "token wrong"}, {"Cookie": "geomsim-token-8765=x"}):
            r = stranger.request(method, url, json={"version": 0}, headers=headers)
            assert r.status_code == 403 and "token" in one_line_error(r), (method, url, headers)
    scripted = test_client(app, headers={"Authorization": f"token {TOKEN}"})
    assert scripted.get("/api/games").status_code == 200
    assert scripted.post("/api/sessions", json={}).status_code == 200


def test_a_rebinding_host_a_foreign_origin_and_text_plain_are_refused(app):
    browser = test_client(app)
    assert browser.get(f"/?token={TOKEN}").status_code == 200
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.:8765"):
        r = browser.get(f"/?token={TOKEN}", headers={"Host": host})
        assert r.status_code == 403 and "Host" in r.text, host
        r = browser.post("/api/sessions", json={}, headers={"Host": host})
        assert r.status_code == 403 and "Host" in one_line_error(r), host
    for host in ("localhost:8765", "127.0.0.1", "[::1]:8765", "LOCALHOST"):
        assert browser.get("/api/games", headers={"Host": host}).status_code == 200, host
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1:8765"):
        r = browser.post("/api/sessions", json={}, headers={"Origin": origin})
        assert r.status_code == 403 and "cross-origin" in one_line_error(r), origin
    assert browser.post("/api/sessions", json={},
                        headers={"Origin": "http://127.0.0.1:8765"}).status_code == 200
    for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        r = browser.post("/api/sessions", content=b"{}", headers={"Content-Type": media})
        assert r.status_code == 415 and "application/json" in one_line_error(r), media
    r = browser.post("/api/sessions", content=b"{}", headers={"Content-Type": ""})
    assert r.status_code == 415


def test_no_cors_headers_anywhere(app):
    browser = test_client(app)
    browser.get(f"/?token={TOKEN}")
    answers = [browser.options("/api/sessions", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"}),
        browser.get("/api/games", headers={"Origin": "http://evil.example"}),
        browser.post("/api/sessions", json={}, headers={"Origin": "http://evil.example"}),
        browser.get("/")]
    for r in answers:
        assert not [h for h in r.headers if h.lower().startswith("access-control-")], r.headers


def test_no_token_serves_without_one_but_keeps_the_other_checks():
    open_app = test_client(make_app(CIBOLA))
    assert open_app.get("/").status_code == 200
    assert open_app.post("/api/sessions", json={}).status_code == 200
    assert open_app.post("/api/sessions", json={}, headers={"Host": "evil.example"}).status_code == 403
    assert open_app.post("/api/sessions", content=b"{}",
                         headers={"Content-Type": "text/plain"}).status_code == 415


def test_a_client_opening_many_games_drops_only_its_own(monkeypatch):
    """More games opened by another client than it may keep (what 64 POSTs of a hostile page
    once did to the only list of games) leave this client's game."""
    from geomsim.web import app as app_module

    # As 16 and 64, but quicker to reach: all the server holds once the other has 3.
    monkeypatch.setattr(app_module, "MAX_PER_CLIENT", 3)
    monkeypatch.setattr(app_module, "MAX_SESSIONS", 4)
    app = make_app(CIBOLA, token=TOKEN)
    mine, other = test_client(app), test_client(app)
    for client in (mine, other):
        client.get(f"/?token={TOKEN}")
    assert mine.cookies != other.cookies  # each browser a client cookie of its own
    sid = mine.post("/api/sessions", json={}).json()["session"]
    theirs = [other.post("/api/sessions", json={}).json()["session"] for _ in range(5)]
    assert mine.get(f"/api/s/{sid}/view").status_code == 200
    assert other.get(f"/api/s/{theirs[0]}/view").status_code == 404  # its own oldest went
    assert other.get(f"/api/s/{theirs[-1]}/view").status_code == 200
    # A session answers only the client that made it.
    assert other.get(f"/api/s/{sid}/view").status_code == 404


def test_sessions_refuse_past_the_cap_rather_than_drop_anothers():
    sessions = Sessions(CIBOLA, limit=3, per_client=2)
    a1, a2 = sessions.new("a"), sessions.new("a")
    b1 = sessions.new("b")
    with pytest.raises(WebError, match="holds 3 games already") as refused:
        sessions.new("c")
    assert refused.value.status == 503
    a3 = sessions.new("a")  # a's own oldest goes, nobody else's
    assert a1.closed and sessions.get(a3.id, "a") is a3 and sessions.get(a2.id, "a") is a2
    assert sessions.get(b1.id, "b") is b1
    with pytest.raises(WebError, match="unknown session"):
        sessions.get(a1.id, "a")
    with pytest.raises(WebError, match="unknown session"):
        sessions.get(b1.id, "a")


# -- a really started server ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served():
    """`geomsim serve --port 0` in a subprocess: its host:port and the token of the URL printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    server = subprocess.Popen([sys.executable, "-m", "geomsim", "serve", "--game", "cibola", "-p", "2",
                               "--port", "0"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        found = re.search(r"http://(127\.0\.0\.1:\d+)/\?token=([\w-]+) ", line)
        assert found, f"printed {line!r}; stderr: {server.stderr.read()[-2000:] if not line else ''}"
        yield found.group(1), found.group(2)
    finally:
        server.terminate()
        server.wait(timeout=30)


def ask(where: str, method: str, path: str, body: bytes | None = None, **headers: str
        ) -> tuple[int, dict[str, str], str]:
    """One request on a new connection: status, headers (lower case), text."""
    connection = http.client.HTTPConnection(where, timeout=60)
    try:
        connection.putrequest(method, path, skip_host="Host" in headers)
        for name, value in headers.items():
            connection.putheader(name.replace("_", "-"), value)
        connection.putheader("Content-Length", str(len(body or b"")))
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read().decode()
    finally:
        connection.close()


def test_a_started_server_refuses_what_the_app_refuses(served):
    where, token = served
    auth = f"token {token}"
    status, headers, text = ask(where, "GET", "/")
    assert status == 403 and "token" in text
    assert ask(where, "GET", "/?token=wrong")[0] == 403
    status, headers, text = ask(where, "GET", f"/?token={token}")
    assert status == 200 and "<html" in text
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
    json_body = {"Content_Type": "application/json"}
    refused = [
        ("GET", "/api/games", None, {}),  # no token
        ("GET", "/api/games", None, {"Authorization": "token wrong"}),
        ("POST", "/api/sessions", b"{}", {"Authorization": auth, "Host": "evil.example", **json_body}),
        ("GET", f"/?token={token}", None, {"Host": "evil.example"}),
        ("POST", "/api/sessions", b"{}", {"Authorization": auth, "Origin": "http://evil.example",
                                          **json_body}),
        ("POST", "/api/sessions", b"{}", {"Authorization": auth, "Origin": "null", **json_body}),
    ]
    for method, path, body, extra in refused:
        status, headers, text = ask(where, method, path, body, **extra)
        assert status == 403, (method, path, extra, text)
        assert not [h for h in headers if h.startswith("access-control-")]
    status, _, text = ask(where, "POST", "/api/sessions", b'{"game": "cibola"}', Authorization=auth,
                          Content_Type="text/plain")
    assert status == 415 and "application/json" in json.loads(text)["error"]
    status, _, text = ask(where, "POST", "/api/sessions", b"{}", Authorization=auth,
                          Origin=f"http://{where}", **json_body)
    assert status == 200 and json.loads(text)["view"]["game"] == "cibola"


def test_a_scripted_client_gets_no_delayed_ack_stall(served):
    """Sequential requests on one keep-alive connection: without TCP_NODELAY each answer
    waits ~40 ms for the client's delayed ACK; the handlers here take about a millisecond."""
    where, token = served
    connection = http.client.HTTPConnection(where, timeout=60)
    took = []
    for i in range(23):
        for path in ("/static/style.css", "/api/none"):  # a file, and the API's guarded 404
            clock = time.perf_counter()
            connection.request("GET", path, headers={"Authorization": f"token {token}"})
            answer = connection.getresponse()
            answer.read()
            if i >= 3:  # the first ones warm the server up
                took.append(time.perf_counter() - clock)
        assert answer.status == 404
    connection.close()
    assert statistics.median(took) < 0.020, f"median {statistics.median(took) * 1000:.1f} ms"

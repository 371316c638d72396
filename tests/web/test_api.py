"""The web app's JSON API through Starlette's TestClient: verdicts are `state.check`'s, the
shapes drawn for them are the overlaps, and no bad request changes anything."""

from __future__ import annotations

import json
import math

import pytest
import shapely
import yaml

from games.anasazi import legality as lg
from games.anasazi import reach as rc
from games.anasazi.actions import PlaceMarker, extend
from geomsim.scenario import load_scenario, parse_scenario, run_scenario
from tests.web.conftest import SCENARIO

PLAY = 16  # the step of camp-exception at which player 1 may lay a marker of E3 near camp 4


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(SCENARIO)


@pytest.fixture(scope="module")
def table_state(scenario):
    """The state at step 16, as the library has it."""
    return scenario.state_at(PLAY)


def new(client) -> tuple[str, dict]:
    r = client.post("/api/sessions")
    assert r.status_code == 200, r.text
    data = r.json()
    return data["session"], data["view"]


def post(client, sid: str, endpoint: str, view: dict | None = None, status: int = 200, **body):
    if view is not None:
        body.setdefault("version", view["version"])
    r = client.post(f"/api/s/{sid}/{endpoint}", json=body)
    assert r.status_code == status, r.text
    return r.json()


def at_play(client) -> tuple[str, dict]:
    """A new session stepped back to step 16."""
    sid, view = new(client)
    while view["cursor"] > PLAY:
        view = post(client, sid, "back", view)["view"]
    return sid, view


def preview(client, sid, view, action: PlaceMarker, status: int = 200) -> dict:
    return post(client, sid, "preview", view, status, tool="marker",
                params={"expedition": action.expedition}, x=action.x, y=action.y,
                heading=action.heading)


def shape(d: str) -> shapely.Geometry:
    """An overlay's SVG path back as a table polygon (the page's y is -y)."""
    rings = [[tuple(map(float, p.split(","))) for p in part.strip("Z").split()]
             for part in d[1:].split("M")]
    return shapely.union_all([shapely.Polygon([(x, -y) for x, y in r]) for r in rings])


def test_preview_other_camp_is_state_check_with_the_covered_area(client, table_state):
    """anasazi/4.2/other-camp: the verdict is `state.check`'s, and the shape drawn is the part
    of player 0's base camp under the ghost marker."""
    sid, view = at_play(client)
    action = extend(table_state, "E3", 128.7, along=12)
    r = preview(client, sid, view, action)
    expected = table_state.check(action)
    assert [v["rule"] for v in r["violations"]] == list(expected.rules) == [lg.OTHER_CAMP]
    assert r["action"] == str(action) and r["player"] == 1 and not r["ok"]
    overlap = [o for o in r["overlays"] if o["kind"] == "overlap"]
    assert [o["rule"] for o in overlap] == [lg.OTHER_CAMP]
    drawn = shape(overlap[0]["d"])
    camp = table_state.camps[4]
    disc = shapely.Point(camp.x, camp.y).buffer(8.0, quad_segs=64)
    marker = lg.marker_polygon(action.pose, table_state.sizes)
    assert drawn.area == pytest.approx(marker.intersection(disc).area, rel=1e-3)
    assert drawn.area == pytest.approx(expected.violations[0].details["area_mm2"], rel=1e-3)
    assert disc.buffer(0.01).contains(drawn) and marker.buffer(0.01).contains(drawn)
    assert "mm²" in overlap[0]["label"]


def test_the_board_is_the_table_in_mm_with_each_expedition_end(client, table_state):
    sid, view = at_play(client)
    board = view["board"]
    r = table_state.sizes.play_area_radius + 10
    assert board["mm"] and board["viewBox"] == [-r, -r, 2 * r, 2 * r]
    x, y, radius = lg.expedition_end(table_state.board(), "E2")
    assert board["data"]["anchors"]["E2"] == [x, y, radius, lg.cover_room(table_state.sizes, radius)[0]]
    assert [t["name"] for t in board["tools"]] == ["marker", "camp"]
    assert board["svg"].count('class="sector"') == len(table_state.table.sectors)


def test_preview_legal_marker_shows_no_overlap(client, table_state):
    sid, view = at_play(client)
    action = extend(table_state, "E3", 38.7, along=31)
    r = preview(client, sid, view, action)
    assert r["ok"] and r["violations"] == [] and table_state.check(action).ok
    assert not [o for o in r["overlays"] if o["kind"] == "overlap"]


def test_preview_overhang_and_uncovered_explorer_shapes(client, table_state):
    """anasazi/4.2/play-area draws the part beyond the edge; anasazi/4.2/cover-explorer the
    part of the start mark left uncovered."""
    sid, view = at_play(client)
    out = extend(table_state, "E3", 308.7, along=31)  # pointing out of the table
    r = preview(client, sid, view, out)
    over = [o for o in r["overlays"] if o["rule"] == lg.MARKER_PLAY_AREA]
    assert over and lg.MARKER_PLAY_AREA in table_state.check(out).rules
    outside = shape(over[0]["d"])
    assert outside.area > 1.0
    assert shapely.distance(outside.centroid, shapely.Point(0, 0)) > table_state.sizes.play_area_radius
    short = PlaceMarker("E3", out.x + 40.0, out.y, 38.7)  # far from the start mark
    r = preview(client, sid, view, short)
    gap = [o for o in r["overlays"] if o["rule"] == lg.COVER_EXPLORER]
    x, y, radius = lg.expedition_end(table_state.board(), "E3")
    assert gap and shape(gap[0]["d"]).area == pytest.approx(math.pi * radius ** 2, rel=0.02)


def test_preview_camp_on_a_mesa_draws_the_part_on_it(client, table_state):
    """anasazi/4.1/valley: a ghost base camp on a mesa; the shape is the part on the mesa."""
    sid, view = new(client)
    view = post(client, sid, "undo", view)["view"]  # back to a moment of building (step 21)
    while view["board"]["tools"] == [] or "camp" not in [t["name"] for t in view["board"]["tools"]]:
        view = post(client, sid, "back", view)["view"]
    mesa = table_state.table.mesas[0].polygon
    c = mesa.representative_point()
    r = post(client, sid, "preview", view, tool="camp", x=c.x, y=c.y)
    assert "anasazi/4.1/valley" in [v["rule"] for v in r["violations"]]
    drawn = shape([o for o in r["overlays"] if o["rule"] == "anasazi/4.1/valley"][0]["d"])
    assert mesa.buffer(0.01).contains(drawn) and drawn.area > 100


def test_apply_shows_the_events_then_undo_and_stale_version(client, scenario):
    """A legal action applied: events in words; undo takes it back; the old version is stale."""
    sid, view = new(client)
    while view["cursor"] > 10:
        view = post(client, sid, "back", view)["view"]
    r = post(client, sid, "apply", view, player=1,
             action="marker E4 at 351.3007,48.4142 heading 20.7718")
    assert "player 1 took the red treasure of P37" in r["events"]
    assert r["view"]["cursor"] == 11 and r["view"]["length"] == 11  # the later steps dropped
    after = r["view"]
    undone = post(client, sid, "undo", after)["view"]
    assert undone["cursor"] == 10 and undone["length"] == 10
    assert undone["scores"] == [float(s) for s in scenario.state_at(10).scores()]
    stale = post(client, sid, "apply", after, status=409, player=1,
                 action="marker E4 at 351.3007,48.4142 heading 20.7718")
    assert "stale" in stale["error"]
    now = client.get(f"/api/s/{sid}/view").json()
    assert now["version"] == undone["version"] and now["length"] == 10


def test_back_and_forward_keep_the_steps(client):
    sid, view = new(client)
    back = post(client, sid, "back", view)["view"]
    assert (back["cursor"], back["length"]) == (21, 22)
    assert back["history"][-1]["n"] == 22
    fwd = post(client, sid, "forward", back)["view"]
    assert (fwd["cursor"], fwd["length"]) == (22, 22)
    assert post(client, sid, "forward", fwd, status=400)["error"].startswith("no step")


BAD = [
    (b'{"version": 0, "tool": "marker", "x": NaN, "y": 1}', 400, "NaN"),
    (b'{"version": 0, "tool": "marker", "x": Infinity, "y": 1}', 400, "Infinity"),
    (b'{"version": 0, "tool": "marker", "x": 1', 400, "malformed JSON"),
    (b'[1, 2]', 400, "JSON object"),
    (b'{"version": 0, "tool": "marker", "x": "1", "y": 1}', 400, "x must be a finite number"),
    (b'{"version": 0, "tool": "marker", "x": 1, "y": 1, "params": {"expedition": "E9"}}', 400,
     "choose an expedition"),
    (b'{"version": 0, "tool": "lasso", "x": 1, "y": 1}', 400, "unknown Anasazi tool"),
    (b'{"tool": "marker", "x": 1, "y": 1}', 400, "version must be"),
    (b'{"version": 99, "tool": "camp", "x": 1, "y": 1}', 409, "stale"),
    (b'{"version": 0, "tool": "camp", "x": 1, "y": 1, "player": 7}', 400, "player must be"),
]


@pytest.mark.parametrize("body, status, words", BAD)
def test_bad_preview_requests_get_one_line_and_change_nothing(client, body, status, words):
    sid, view = new(client)
    view = post(client, sid, "back", view)["view"]
    while "camp" not in [t["name"] for t in view["board"]["tools"]]:
        view = post(client, sid, "back", view)["view"]
    body = body.replace(b'"version": 0', b'"version": %d' % view["version"])
    r = client.post(f"/api/s/{sid}/preview", content=body,
                    headers={"content-type": "application/json"})
    assert r.status_code == status and words in r.json()["error"], r.text
    assert "Traceback" not in r.text
    now = client.get(f"/api/s/{sid}/view").json()
    assert (now["version"], now["cursor"], now["length"]) == (view["version"], view["cursor"],
                                                               view["length"])


def test_wrong_player_and_illegal_actions_change_nothing(client):
    sid, view = at_play(client)
    r = post(client, sid, "apply", view, status=422, player=0, action="camp 0,0")
    assert r["error"].startswith("illegal: engine/turn") and r["violations"][0]["rule"] == "engine/turn"
    r = post(client, sid, "apply", view, status=422, player=1,
             action="marker E3 at 217.8969,-271.9781 heading 128.7")
    assert r["violations"][0]["rule"] == lg.OTHER_CAMP
    r = post(client, sid, "apply", view, status=400, player=1, action="jump E3")
    assert "cannot read 'jump E3'" in r["error"]
    now = client.get(f"/api/s/{sid}/view").json()
    assert (now["version"], now["length"]) == (view["version"], view["length"])


def test_body_size_unknown_session_and_routes(client):
    sid, view = new(client)
    big = b'{"version": 0, "pad": "' + b"x" * 70_000 + b'"}'
    r = client.post(f"/api/s/{sid}/undo", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "too large" in r.json()["error"]
    assert client.get(f"/api/s/{sid}/view").json()["length"] == view["length"]
    r = client.get("/api/s/nope/view")
    assert r.status_code == 404 and "unknown session" in r.json()["error"]
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json()["error"]


def test_a_bug_is_one_line_without_traceback(client, monkeypatch):
    from games.anasazi.web import AnasaziWeb

    def broken(*args, **kwargs):
        raise ZeroDivisionError("planted")

    sid, view = at_play(client)
    monkeypatch.setattr(AnasaziWeb, "overlays", broken)
    r = client.post(f"/api/s/{sid}/preview", json={"version": view["version"], "tool": "camp",
                                                    "x": 0.0, "y": 0.0})
    assert r.status_code == 500
    assert r.json()["error"].startswith("internal error (ZeroDivisionError: planted)")
    assert "Traceback" not in r.text and "File " not in r.text


def test_each_tab_has_its_own_session(client):
    a, va = new(client)
    b, vb = new(client)
    assert a != b
    post(client, a, "undo", va)
    assert client.get(f"/api/s/{b}/view").json()["length"] == vb["length"] == 22
    assert client.get(f"/api/s/{a}/view").json()["length"] == 21


def test_reach_overlay_agrees_with_the_reach_map(client, table_state):
    """Sectors coloured as `reach_map` says; a pick answers with `reach`'s chain and margin."""
    sid, view = at_play(client)
    r = post(client, sid, "analysis", view, name="reach", params={"expedition": "E2", "markers": "2"})
    fills = r["analysis"]["fills"]
    rmap = rc.reach_map(table_state, 2, expeditions=["E2"])
    reached = {s: res.markers for s, res in rmap.results["E2"].items() if res.reachable}
    assert reached, "E2's end should reach something in 2 markers"
    assert {s for s, c in fills.items() if c in rc.REACH_COLOURS.values()} == set(reached)
    assert all(fills[s] == rc.REACH_COLOURS[k] for s, k in reached.items())
    sector = min(reached, key=reached.get)
    p = post(client, sid, "analysis", view, name="reach", params={"expedition": "E2", "markers": "2"},
             target=sector)["analysis"]
    result = rc.reach(table_state, "E2", sector, 2)
    assert p["result"]["actions"] == result.actions
    assert [q["kind"] for q in p["paths"]].count("witness") == 1
    assert "margin of the last marker" in p["text"]
    bad = post(client, sid, "analysis", view, status=400, name="reach",
               params={"expedition": "E2", "markers": "9"})
    assert "markers must be 1 to 3" in bad["error"]


def test_saved_scenario_replays_with_the_ticked_expectations(client, tmp_path):
    """Save as scenario: `geomsim run` replays the steps and every ticked expectation holds."""
    sid, view = at_play(client)
    bad = "marker E3 at 217.8969,-271.9781 heading 128.7"
    view = post(client, sid, "expect", view, player=1, action=bad)["view"]
    view = post(client, sid, "apply", view, player=1, action="extend E3 heading 38.7 along 31")["view"]
    event = [c for c in view["expectations"] if c["id"].startswith(f"event:{PLAY + 1}:")][0]
    view = post(client, sid, "tick", view, id=event["id"], ticked=True)["view"]
    view = post(client, sid, "tick", view, id="final:scores", ticked=True)["view"]
    text = client.get(f"/api/s/{sid}/scenario.yaml").text
    path = tmp_path / "saved.yaml"
    path.write_text(text)
    saved = load_scenario(path)
    assert len(saved.steps) == PLAY + 1
    report = run_scenario(saved, out=None)
    assert report.ok, str(report)
    kinds = sorted(r.message.split()[0] for r in report.results)
    assert len(report.results) == 3 and all(r.status == "pass" for r in report.results), kinds
    data = yaml.safe_load(text)
    assert data["steps"][PLAY - 1]["expect"] == [{"illegal": f"1: {bad}", "rule": [lg.OTHER_CAMP]}]
    # The verdict expected the other way round fails: the ticks are real checks.
    data["steps"][PLAY - 1]["expect"] = [{"legal": f"1: {bad}"}]
    broken = parse_scenario(yaml.safe_dump(data), path)
    assert not run_scenario(broken, out=None).ok


def test_downloads(client, scenario):
    sid, view = new(client)
    setup = client.get(f"/api/s/{sid}/setup.json")
    assert setup.status_code == 200 and json.loads(setup.text) == scenario.setup
    assert "attachment" in setup.headers["content-disposition"]
    png = client.get(f"/api/s/{sid}/moment.png")
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    svg = client.get(f"/api/s/{sid}/moment.svg")
    assert b"<svg" in svg.content[:500]


def test_page_and_static_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in client.get("/static/app.js").text.replace("http://www.w3.org/2000/svg", "")

"""Reach analysis on hand-made tables whose answers are known by construction.

Every table here has the expedition start mark E1 at the origin and pueblos placed at chosen
distances; base camps are built through the setup actions. The one-marker reach of a disc of
radius r is hypot(L - r, W - r) (67.08 mm with the default sizes): a pueblo just inside it is
reachable, one just beyond is not; base camps of another player narrow or block the way.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi.actions import BuildCamp, LookTower
from games.anasazi.components import COLOURS, ExpeditionCamp, Mesa, Pueblo, Sector, Setup, Sizes, Table
from games.anasazi.reach import (
    StatePlacer, Step, branch_and_bound, chain_reach, exclude, make_target, margin, one_marker, reach, reach_map,
    sectors_of,
)
from geomsim.cli import main
from geomsim.geometry import Pose, farthest_corner_distance, rectangle_corners, to_frames

SIZES = Sizes()
L, W, R = SIZES.marker_length, SIZES.marker_width, SIZES.explorer_radius
ONE = math.hypot(L - R, W - R)  # one marker's reach from the start mark (radius 4 too)
FAR = (-250.0, 250.0)  # a spot far from everything, for base camps that must not matter


# --- hand-made tables -------------------------------------------------------------------------
def box(x0: float, y0: float, x1: float, y1: float) -> shapely.Polygon:
    return shapely.box(x0, y0, x1, y1)


def make_setup(pueblos: dict[str, shapely.Polygon], players: int = 2,
               starts: dict[str, tuple[float, float]] | None = None) -> Setup:
    """A table with single pueblos `pueblos` (each on its own small mesa), expedition start
    marks `starts` (default E1 at the origin), and filler pueblos far off the play area so that
    the setup deals its 16 towers and 44 treasures."""
    starts = starts or {"E1": (0.0, 0.0)}
    mesas, plist = [], []
    for i, (pid, poly) in enumerate(pueblos.items()):
        mesas.append(Mesa(f"M{i}", "outer", poly.buffer(2.0, join_style="mitre")))
        plist.append(Pueblo(pid, f"M{i}", (Sector(pid, pid, "single", poly),)))
    mesas.append(Mesa("MF", "outer", box(1900, 1900, 2700, 2100)))
    for k in range(28 - len(pueblos)):
        x = 1950 + 20 * k
        plist.append(Pueblo(f"F{k}", "MF", (Sector(f"F{k}", f"F{k}", "single", box(x, 1950, x + 5, 1955)),)))
    for k in range(16):
        x, pid = 1950 + 20 * k, f"D{k}"
        plist.append(Pueblo(pid, "MF", (Sector(pid + "s", pid, "small", box(x, 2000, x + 5, 2005)),
                                        Sector(pid + "l", pid, "large", box(x + 5, 2000, x + 12, 2005)))))
    camps = [ExpeditionCamp(e, box(x - 44, y - 20, x - 4, y + 20), (x, y)) for e, (x, y) in starts.items()]
    table = Table(tuple(mesas), tuple(plist), tuple(camps), SIZES)
    towers = {s.id: COLOURS[i % 4] for i, s in enumerate(table.small_sectors)}
    treasures = {s.id: COLOURS[i % 4] for i, s in enumerate(table.treasure_sectors)}
    return Setup(table, players, towers, treasures, tuple(COLOURS[:players]), 0, None)


def play_setup(setup: Setup, camps: list[tuple[int, float, float]] = ()):
    """The state at the start of play after setup: base camps (player, x, y) built by the setup
    actions (two per player; missing ones far away), then three tower looks each."""
    # Single-pueblo laboratory tables break the table's setup rules on purpose (one mesa per
    # pueblo, one or two expedition base camps): `check_setup=False` says so.
    state = GAME.new_state(setup.players, setup=setup, check_setup=False)
    todo = {p: [(x, y) for q, x, y in camps if q == p] for p in range(setup.players)}
    spare = iter([(FAR[0] + 20 * k, FAR[1]) for k in range(8)])
    while state.phase == "camps":
        p = state.to_move()[0]
        state.apply(BuildCamp(*(todo[p].pop(0) if todo[p] else next(spare))), p)
    while state.phase == "looks":
        p = state.to_move()[0]
        seen = state.setup_looked
        state.apply(LookTower(next(s for s in state.towers_on_table() if s not in seen)), p)
    assert state.phase == "play" and state.to_move() == (0,)
    return state


def corridor(gap_centre: float) -> list[tuple[int, float, float]]:
    """Player 1's base camps at (25, +-gap_centre): a horizontal marker along the x axis clears
    them exactly when gap_centre > W/2 + base camp radius (16 mm)."""
    return [(1, 25.0, gap_centre), (1, 25.0, -gap_centre)]


def replay(state, result) -> list:
    """Paste the result's actions (their text) into `turn_of` clones, one `apply` at a time, the
    game going on before each (a chain stops where the game stops); the events of each."""
    s = state.turn_of(result.player)
    events = []
    for i, text in enumerate(result.actions):
        assert not s.is_over(), f"the game ended before marker {i + 1} of {result.actions}"
        events.append(s.apply(GAME.parse_action(text), result.player))
        if i + 1 < len(result.actions):
            s = s.turn_of(result.player)
    return events


def touched(state, pose: Pose) -> list[str]:
    return lg.touched_sectors(state.table, pose)


@pytest.fixture(scope="module")
def ring():
    """Pueblos around E1: just within and just beyond one marker, two and three markers away."""
    setup = make_setup({
        "P0": box(ONE - 0.05, -5, ONE + 10, 5),       # just within one marker (along +x)
        "P1": box(-5, -ONE - 10.05, 5, -ONE - 0.05),  # just beyond (along -y)
        "P2": box(-5, 100, 5, 110),                   # two markers (100 mm > 67.1 mm)
        "P3": box(-150 - 10, -5, -150, 5),            # three markers (150 mm > 124.2 mm)
    })
    return play_setup(setup)


# --- one marker -------------------------------------------------------------------------------
def test_just_within_one_marker_is_reachable_with_a_checked_witness(ring):
    r = reach(ring, "E1", "P0")
    assert r.status == "reachable" and r.markers == 1 and len(r.chain) == 1
    assert ring.check(GAME.parse_action(r.actions[0]), 0).ok
    assert "P0" in touched(ring, r.witness)
    assert r.margin is not None and 0 <= r.margin.translation < 0.1  # 0.05 mm to spare


def test_just_beyond_one_marker_is_proved_unreachable(ring):
    r = reach(ring, "E1", "P1", max_markers=1)
    assert r.status == "unreachable" and r.witness is None
    assert "reaches at most 67.1 mm" in r.reason


def test_two_and_three_markers_needed_exactly(ring):
    two = reach(ring, "E1", "P2")
    assert two.status == "reachable" and two.markers == 2
    assert "1 marker: P2 is 100.0 mm" in two.reason  # one marker: a distance proof
    three = reach(ring, "E1", "P3")
    assert three.status == "reachable" and three.markers == 3
    assert "2 markers: P3 is 150.0 mm away" in three.reason  # two: a distance proof
    for r in (two, three):
        events = replay(ring, r)
        found = [e.data.get("sector") for e in events[-1] if e.kind == "treasure-found"]
        assert found == [r.sector]  # the last pasted marker takes the pueblo's treasure


def test_beyond_the_cap_is_proved_by_distance(ring):
    r = reach(ring, "E1", "P3", max_markers=2)
    assert r.status == "unreachable" and r.markers == 2
    assert chain_reach(SIZES, R, 2) < 150 < chain_reach(SIZES, R, 3)


def test_reach_does_not_change_the_state(ring):
    before = ring.to_json()
    reach(ring, "E1", "P2")
    reach_map(ring, 1)
    assert ring.to_json() == before


# --- base camps: a narrow heading, a blocked pueblo ---------------------------------------------
@pytest.fixture(scope="module")
def lane():
    return {"P0": box(50, -2, 60, 2)}


def test_narrow_corridor_reachable_only_near_one_heading(lane):
    state = play_setup(make_setup(lane), corridor(16.5))  # 0.5 mm to spare on each side
    r = reach(state, "E1", "P0", max_markers=1)
    assert r.status == "reachable"
    axis = r.witness.heading % 180.0
    assert min(axis, 180.0 - axis) < 2.0  # along the corridor, either way round
    assert 0.2 < r.margin.translation <= 0.5 + 1e-3
    # The same target with the corridor open wide has a far larger margin.
    wide = reach(play_setup(make_setup(lane), corridor(30.0)), "E1", "P0", max_markers=1)
    assert wide.margin.translation > 2.0


def test_blocked_by_another_players_camp_is_proved(lane):
    """anasazi/4.2/other-camp makes the pueblo unreachable: proved, and only the camp's owner
    changes the answer (a player's own base camp does not block)."""
    blocked = play_setup(make_setup(lane), corridor(15.5))  # the marker would cover 0.5 mm
    r = reach(blocked, "E1", "P0", max_markers=1)
    assert r.status == "unreachable" and "overlap a forbidden piece" in r.reason
    own = reach(blocked, "E1", "P0", max_markers=1, player=1)
    assert own.status == "reachable" and own.player == 1


def test_camp_right_in_front_blocks_one_marker_but_not_a_detour(lane):
    state = play_setup(make_setup(lane), [(1, 30.0, 0.0)])
    assert reach(state, "E1", "P0", max_markers=1).status == "unreachable"
    around = reach(state, "E1", "P0", max_markers=3)
    assert around.status == "reachable" and around.markers >= 2
    assert "P0" in touched(state, around.witness)
    replay(state, around)  # every marker of the detour is legal in sequence


def test_pueblo_at_the_play_area_edge():
    """anasazi/4.2/play-area bounds the reach: a pueblo beyond the edge is never reachable."""
    edge = SIZES.play_area_radius
    setup = make_setup({"P0": box(edge - 0.5, -5, edge + 20, 5), "P1": box(edge + 0.5, -5, edge + 20, 5)},
                       starts={"E1": (edge - 40.0, 0.0)})
    state = play_setup(setup)
    inside = reach(state, "E1", "P0", max_markers=1)
    assert inside.status == "reachable"
    assert farthest_corner_distance(*(np.array([v]) for v in (inside.witness.x, inside.witness.y,
                                                       inside.witness.heading)), L, W)[0] <= edge + 1e-9
    beyond = reach(state, "E1", "P1", max_markers=1)
    assert beyond.status == "unreachable" and "hang over the play area" in beyond.reason


# --- soundness properties -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def camps_state():
    """An open table with a few of player 1's base camps around E1."""
    camps = [(1, 30.0, 22.0), (1, -25.0, 35.0), (1, 10.0, -40.0), (1, -45.0, -15.0)]
    return play_setup(make_setup({"P0": box(150, 150, 160, 160)}), camps)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(heading=st.floats(0, 360), u=st.floats(0.97, 1), v=st.floats(0.8, 1),
       signs=st.integers(0, 3), inset=st.floats(0.0, 0.1), seed=st.integers(0, 2**16))
def test_unreachable_never_returned_where_a_witness_exists(camps_state, heading, u, v, signs,
                                                           inset, seed):
    """Take a legal marker reaching far (the end near one end of it), put a tiny target just
    inside its corner farthest from the end (near the one-marker bound, where few markers
    reach), and ask: never "unreachable"."""
    placer = StatePlacer.of(camps_state, "E1", 0)
    step = placer.step
    a, c = u * step.half_along * (-1) ** signs, v * step.half_across * (-1) ** (signs // 2)
    x, y, h = step.poses(np.array([heading]), np.array([a]), np.array([c]))
    pose = Pose(float(x[0]), float(y[0]), float(h[0]))
    assume(placer.check(pose).ok)
    corners = rectangle_corners(x, y, h, L, W)[0]
    cx, cy = corners[np.argmax(np.hypot(*(corners - np.asarray(step.end)).T))]
    towards = np.array([x[0] - cx, y[0] - cy]) / math.hypot(x[0] - cx, y[0] - cy)
    qx, qy = np.array([cx, cy]) + towards * inset  # inside the marker, near its corner
    out = -towards * 0.4
    target = make_target("T", shapely.Polygon([(qx, qy), (qx + out[0], qy + out[1] + 0.2),
                                               (qx + out[0] + 0.2, qy + out[1])]).convex_hull)
    result = one_marker(placer, target, np.random.default_rng(seed))
    assert result.status != "unreachable", result.reason
    # The same without the sampling first: the branch and bound alone never proves it either.
    search = branch_and_bound(placer, target, np.random.default_rng(seed), max_boxes=20_000)
    assert not search.proved and (search.found.poses or search.undecided)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tx=st.floats(-90, 90), ty=st.floats(-90, 90), size=st.floats(0.5, 12), seed=st.integers(0, 2**16))
def test_batched_and_exact_agree_on_every_witness(camps_state, tx, ty, size, seed):
    """A returned witness passes the rules' batched mask, `state.check`, and touches the
    target exactly; no candidate the batched masks let through was refused by the exact check."""
    placer = StatePlacer.of(camps_state, "E1", 0)
    target = make_target("T", box(tx, ty, tx + size, ty + size))
    result = one_marker(placer, target, np.random.default_rng(seed), keep=3)
    for pose in result.poses:
        assert placer.check(pose).ok
        assert placer.legal_mask(np.array([pose.x]), np.array([pose.y]), np.array([pose.heading]))[0]
        assert lg.marker_polygon(pose, SIZES).intersects(target.polygon)
    if result.status == "unreachable":  # cross-check the proof by brute force
        rng = np.random.default_rng(seed)
        theta, a, c = rng.uniform(0, 360, 20000), rng.uniform(-31, 31, 20000), rng.uniform(-4, 4, 20000)
        xs, ys, hs = placer.step.poses(theta, a, c)
        ok = placer.legal_mask(xs, ys, hs)
        assert not shapely.intersects(target.polygon, lg.marker_polygons(xs[ok], ys[ok], hs[ok], SIZES)).any()


def test_exclusion_bounds_hold_for_every_pose_in_a_box():
    """`exclude` excludes a box only if no pose in it is a legal marker touching the target:
    checked on dense samples of random boxes against the exact geometry."""
    rng = np.random.default_rng(1)
    step = Step((0.0, 0.0), R, SIZES, np.array([[20.0, 10.0, 8.0], [-15.0, -30.0, 8.0]]))
    target = make_target("T", box(40, -20, 55, -8))
    A, C = step.half_along, step.half_across
    t0 = rng.uniform(0, 360, 3000)
    boxes = np.column_stack([t0, t0 + rng.uniform(0.1, 20, 3000), *_interval(rng, A, 3000),
                             *_interval(rng, C, 3000)])
    codes = exclude(step, target, boxes)
    assert (codes != 0).any() and (codes == 0).any()
    for b in boxes[codes != 0][:400]:
        u = rng.random((64, 3))
        th, a, c = (b[2 * d] + u[:, d] * (b[2 * d + 1] - b[2 * d]) for d in range(3))
        x, y, h = step.poses(th, a, c)
        rects = lg.marker_polygons(x, y, h, SIZES)
        touching = shapely.intersects(target.polygon, rects)
        clear = (shapely.distance(rects[:, None], shapely.points(step.obstacles[:, :2])[None, :])
                 > step.obstacles[None, :, 2]).all(axis=1)
        inside = farthest_corner_distance(x, y, h, L, W) <= SIZES.play_area_radius
        assert not (touching & clear & inside).any()


def _interval(rng: np.random.Generator, half: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    lo = rng.uniform(-half, half, n)
    return lo, np.minimum(half, lo + rng.uniform(0, half, n))


# --- margin, maps, command line -------------------------------------------------------------------
def test_margin_of_a_given_pose(lane):
    state = play_setup(make_setup(lane), corridor(17.0))  # 1 mm to spare on each side
    pose = Pose(27.0, 0.0, 0.0)  # covers the start mark 4 mm inside its rear limit
    m = margin(state, "E1", "P0", pose)
    assert 0.8 < m.translation <= 1.0 + 1e-3
    assert margin(state, "E1", "P0", Pose(31.0, 0.0, 0.0)).translation < 0.01  # at the limit
    with pytest.raises(ValueError, match="illegal"):
        margin(state, "E1", "P0", Pose(31.0, 9.0, 0.0))
    with pytest.raises(ValueError, match="does not touch"):
        margin(state, "E1", "P0", Pose(-31.0, 0.0, 0.0))


def test_reach_map_agrees_with_single_queries(ring):
    rmap = reach_map(ring, 3)
    cells = {s: rmap.cell("E1", s) for s in ("P0", "P1", "P2", "P3")}
    assert cells == {"P0": "1", "P1": "2", "P2": "2", "P3": "3"}
    assert rmap.cell("E1", "F0") == "-"  # far off the play area
    data = json.loads(json.dumps(rmap.to_json()))
    assert data["sectors"]["P3"] == {"fewest": 3, "by": ["E1"]}
    assert data["expeditions"]["E1"]["sectors"]["P0"]["actions"][0].startswith("marker E1 at ")
    assert "P2      " in rmap.to_text()


def test_sectors_of_pueblo_or_sector():
    setup = make_setup({"P0": box(50, -2, 60, 2)})
    assert sectors_of(setup.table, "D3") == ["D3s", "D3l"]
    assert sectors_of(setup.table, "D3l") == ["D3l"]
    with pytest.raises(KeyError, match="no pueblo or sector"):
        sectors_of(setup.table, "Q1")


def test_bad_arguments_are_refused(ring):
    with pytest.raises(ValueError, match="max_markers"):
        reach(ring, "E1", "P0", max_markers=0)
    with pytest.raises(KeyError, match="E7"):
        reach(ring, "E7", "P0")
    with pytest.raises(KeyError, match="Q1"):
        reach(ring, "E1", "Q1")
    with pytest.raises(ValueError, match="player"):
        reach(ring, "E1", "P0", player=5)


def test_command_line(tmp_path, ring, capsys):
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(ring.setup.to_json()))
    state = tmp_path / "state.json"
    state.write_text(ring.to_json())
    # The ring is a laboratory table (one mesa per pueblo): refused unless the user says so.
    assert main(["reach", "--setup", str(setup), "-e", "E1", "-p", "P0"]) == 2
    err = capsys.readouterr().err
    assert "breaks the setup rules" in err and "--no-check-setup" in err
    assert len(err.strip().splitlines()) == 1
    lab = ["--no-check-setup"]
    assert main(["reach", "--setup", str(setup), "--state", str(state), "-e", "E1", "-p", "P0",
                 "--json", str(tmp_path / "v.json"), *lab]) == 0
    out = capsys.readouterr().out
    assert "reachable with 1 marker" in out and "lay: marker E1 at " in out and "margin" in out
    text = next(line for line in out.splitlines() if "lay:" in line).split("lay: ")[1]
    assert ring.check(GAME.parse_action(text), 0).ok  # the printed action pastes as is
    assert json.loads((tmp_path / "v.json").read_text())["status"] == "reachable"
    assert main(["reach", "--setup", str(setup), "--map", "-n", "1", "-o", str(tmp_path / "m.png"),
                 "--json", str(tmp_path / "m.json"), *lab]) == 0
    assert (tmp_path / "m.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "m.json").read_text())["max_markers"] == 1
    capsys.readouterr()
    for args, words in ((["-e", "E9", "-p", "P0"], "no expedition base camp 'E9'"),
                        (["-e", "E1", "-p", "Q1"], "no pueblo or sector 'Q1'"),
                        (["-e", "E1"], "give --expedition and --pueblo"),
                        (["--map", "-e", "E1"], "leave out --expedition")):
        assert main(["reach", "--setup", str(setup), *args, *lab]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1
    (tmp_path / "bad.json").write_text("{")
    assert main(["reach", "--setup", str(tmp_path / "bad.json"), "--map"]) == 2
    assert "line 1" in capsys.readouterr().err


def test_scenario_hooks(ring, tmp_path):
    """The reach kinds come through the game's scenario hooks (`expectations()`, `outputs()`)."""
    EXPECTATIONS, OUTPUTS = GAME.expectations(), GAME.outputs()  # noqa: N806
    assert set(EXPECTATIONS) == {"reachable", "unreachable"} and set(OUTPUTS) == {"reach_map"}
    ok, message = EXPECTATIONS["reachable"](ring, {"reachable": "P2", "from": "E1", "within": 2})
    assert ok and "P2: reachable in 2" in message and "marker E1 at" in message
    ok, message = EXPECTATIONS["reachable"](ring, {"reachable": "P2", "from": "E1", "within": 1})
    assert not ok and "P2: unreachable" in message
    ok, _ = EXPECTATIONS["unreachable"](ring, {"unreachable": "P3", "from": "E1", "within": 2})
    assert ok
    ok, message = EXPECTATIONS["unreachable"](ring, {"unreachable": "P3", "from": "E1"})
    assert not ok and "reachable in 3" in message
    OUTPUTS["reach_map"](ring, tmp_path / "r.json", {"reach_map": "r.json", "max_markers": 1})
    assert json.loads((tmp_path / "r.json").read_text())["sectors"]["P0"]["fewest"] == 1


def test_loading_the_game_does_not_load_reach():
    """The hooks import games.anasazi.reach only when called: loading the game stays light."""
    code = ("import sys, geomsim; g = geomsim.load_game('anasazi'); "
            "assert 'games.anasazi.reach' not in sys.modules; g.expectations(); "
            "assert 'games.anasazi.reach' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_started_expedition_reaches_from_its_explorer(ring):
    """Once E1 has a marker heading north, its explorer (not the start mark) is the end: P2,
    100 mm north of the start, becomes a one-marker reach; the start mark no longer counts."""
    from games.anasazi.actions import extend

    state = ring.clone()
    state.apply(extend(state, "E1", 90.0), 0)
    r = reach(state, "E1", "P2", max_markers=1)
    assert r.status == "reachable"
    end = lg.explorer_centre(state.expeditions["E1"][-1], SIZES)
    assert lg.expedition_end(state.board(), "E1")[:2] == end
    assert "end at" not in r.reason  # found, not bounded
    assert reach(state, "E1", "P0", max_markers=1).status == "unreachable"  # now too far east


def test_another_expeditions_explorer_blocks(lane):
    """anasazi/4.2/explorer-visible: E2's end explorer lies across E1's only way to P0, so no
    marker of E1 may touch P0 (proved); before E2 is laid there, P0 is a one-marker reach."""
    from games.anasazi.actions import extend

    state = play_setup(make_setup(lane, starts={"E1": (0.0, 0.0), "E2": (25.0, 60.0)}))
    assert reach(state, "E1", "P0", max_markers=1).status == "reachable"
    state.apply(extend(state, "E2", 270.0), 0)  # its explorer ends at (25, 3)
    r = reach(state, "E1", "P0", max_markers=1)
    assert r.status == "unreachable" and "overlap a forbidden piece" in r.reason


# --- a chain stops where the game stops (rule 5.0) ---------------------------------------------
def after_setup(data: dict, seed: int):
    """The state of setup JSON `data` at the start of play, setup actions drawn from `seed`."""
    state = GAME.new_state(data["players"], setup=data)
    rng = np.random.default_rng(seed)
    while state.phase != "play":
        state.apply(state.legal_actions().sample(rng, 1)[0])
    return state


def test_chain_stops_at_the_last_marker_of_the_supply():
    """`anasazi/5.0/end-markers`: with one marker in the supply the first marker ends the game,
    so a sector two markers away is unreachable (no longer "reachable in 2", whose second
    marker could not be laid); a game that is over gives no turn and no reach."""
    data = GAME.make_setup(2, 7)
    data["sizes"]["markers"] = 1
    state = after_setup(data, 0)
    r = reach(state, "E2", "P26", 2)  # reachable with 2 markers and a full supply
    assert r.status == "unreachable" and "supply holds only 1 marker" in r.reason
    one = reach(state, "E2", "P26", 1)
    assert one.status == "unreachable"
    over = state.clone()
    over.apply(over.sample_markers(over.current, np.random.default_rng(0), 1)[0])
    assert over.is_over()
    with pytest.raises(ValueError, match="game is over"):
        over.turn_of(0)
    with pytest.raises(ValueError, match="game is over"):
        reach(over, "E2", "P26", 2)


@pytest.fixture(scope="module")
def ending_states():
    """States at the start of play on the tables of two seeds: with 1, 2 or 3 markers in the
    supply, and with the full supply but three towers of a colour already on the track (the
    next one of that colour ends the game)."""
    states = []
    for seed in (7, 11):
        base = GAME.make_setup(2, seed)
        for supply in (1, 2, 3):
            states.append(after_setup({**base, "sizes": {**base["sizes"], "markers": supply}}, seed))
        towers = after_setup(base, seed)
        colour = COLOURS[seed % 4]
        for sid in [s for s in towers.towers_on_table() if towers.towers[s] == colour][:3]:
            del towers.contents[sid]
            towers.track[colour] += 1
        states.append(towers)
    return states


def test_every_witness_replays_with_apply_step_by_step(ending_states):
    """`anasazi/5.0/end-markers`, `anasazi/5.0/end-towers`: for sectors one to two markers from
    every expedition's start, on tables whose supply is nearly empty or whose colour needs one
    more tower, every chain reach answers "reachable" replays with `apply`, one marker at a
    time, the game going on before each (the last marker may end it)."""
    reached = 0
    for i, state in enumerate(ending_states):
        rng = np.random.default_rng(i)
        for e in list(state.expeditions):
            end = lg.marker_context(state.board(), 0, e).target
            near = [s.id for s in state.table.sectors
                    if 40 < shapely.distance(s.polygon, shapely.Point(end[:2])) < 120]
            for sector in rng.choice(near, size=min(2, len(near)), replace=False):
                r = reach(state, e, str(sector), 3, with_margin=False, seed=i)
                if r.reachable:
                    reached += 1
                    assert len(r.actions) <= state.markers_left()
                    replay(state, r)
                    assert str(sector) in touched(state, r.witness)
    assert reached > 20


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_distances_to_convex_sectors_are_shapelys(seed):
    """The analytic distance the chain search ranks ends by is shapely's, inside and out."""
    from games.anasazi.reach import Convex

    rng = np.random.default_rng(seed)
    poly = shapely.MultiPoint(rng.uniform(-10, 10, (int(rng.integers(3, 9)), 2))).convex_hull
    assume(poly.geom_type == "Polygon" and poly.area > 1e-3)
    z = rng.uniform(-40, 40, 400) + 1j * rng.uniform(-40, 40, 400)
    expected = shapely.distance(poly, shapely.points(z.real, z.imag))
    assert np.abs(Convex.of(poly).distance(z) - expected).max() < 1e-9
    # Points surely beyond the limit are inf; the rest keep their distance.
    limited = Convex.of(poly).distance(z, limit=5.0)
    assert (limited[expected <= 5.0] == Convex.of(poly).distance(z)[expected <= 5.0]).all()
    assert (np.isinf(limited) <= (expected > 5.0)).all()
    assert Convex.of(shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 3, 3))) is None



@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_convex_corners_of_many_polygons_are_each_ones_own(seed):
    """`convex_corners` of a mixed batch (convex hulls of 3 to 9 points, L shapes, a square
    with a hole, a pair of squares) gives each convex polygon's own exterior, counter-clockwise
    and not closed, and None for each of the others, whatever their order."""
    from games.anasazi.legality import convex_corners

    rng = np.random.default_rng(seed)
    hulls = [shapely.MultiPoint(rng.uniform(-10, 10, (int(rng.integers(3, 9)), 2))).convex_hull
             for _ in range(6)]
    hulls = [h for h in hulls if h.geom_type == "Polygon" and h.area > 1e-3]
    others = [shapely.box(0, 0, 4, 4).difference(shapely.box(2, 2, 5, 5)),
              shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 3, 3)),
              shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)])]
    polygons = hulls + others
    order = rng.permutation(len(polygons))
    corners = convex_corners([polygons[k] for k in order])
    for k, got in zip(order, corners):
        if k >= len(hulls):
            assert got is None
            continue
        ring = shapely.orient_polygons(polygons[k]).exterior
        expected = np.asarray(ring.coords)[:-1]
        assert np.array_equal(got, expected[:, 0] + 1j * expected[:, 1])
        assert shapely.Polygon(np.column_stack([got.real, got.imag])).exterior.is_ccw


# --- the fast paths of the search give what the plain computations give ------------------------
def _distance_as_arrays(convex, z: np.ndarray, limit: float = math.inf) -> np.ndarray:
    """Distances from points z to a `Convex` worked out as the search first did, on (points,
    edges) arrays: the numbers the fast paths must give, bit for bit."""
    out = np.full(len(z), math.inf)
    near = np.flatnonzero(np.abs(z - convex.centre) - convex.radius <= limit)
    rx, ry = z.real[near, None] - convex.ax, z.imag[near, None] - convex.ay
    t = np.clip((rx * convex.dx + ry * convex.dy) * convex.inverse_sq, 0.0, 1.0)
    qx, qy = rx - t * convex.dx, ry - t * convex.dy
    dist = np.sqrt((qx * qx + qy * qy).min(axis=1))
    inside = (convex.dx * ry - convex.dy * rx >= 0.0).all(axis=1)
    out[near] = np.where(inside, 0.0, dist)
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), limit=st.sampled_from([math.inf, 3.0, 12.0]))
def test_plain_python_and_array_distances_are_the_same_numbers(seed, limit):
    """The distances that rank chain ends: in plain Python for a few points (`point_distance`,
    `distance_xy` below `SMALL` points), on (edges, points) arrays for many, the very numbers
    of the (points, edges) computation, on corners, edges, inside and out; and shapely's."""
    from games.anasazi.reach import SMALL, Convex

    rng = np.random.default_rng(seed)
    poly = shapely.MultiPoint(rng.uniform(-10, 10, (int(rng.integers(3, 9)), 2))).convex_hull
    assume(poly.geom_type == "Polygon" and poly.area > 1e-3)
    convex = Convex.of(poly)
    corners = convex.corners
    z = np.concatenate([rng.uniform(-30, 30, 300) + 1j * rng.uniform(-30, 30, 300), corners,
                        (corners + np.roll(corners, -1)) / 2, [convex.centre]])
    expected = _distance_as_arrays(convex, z, limit)
    assert np.array_equal(convex.distance(z, limit), expected)
    assert np.array_equal([convex.point_distance(p.real, p.imag) for p in z],
                          _distance_as_arrays(convex, z))
    few = z[rng.permutation(len(z))[:SMALL]]
    assert np.array_equal(convex.distance_xy(few.real, few.imag, limit),
                          _distance_as_arrays(convex, few, limit))
    assert np.abs(convex.distance(z) - shapely.distance(poly, shapely.points(z.real, z.imag))).max() < 1e-9


class _MaskedPlacer:
    """A placer whose batched check passes the placements whose x is in `legal`; it records
    how many placements it was asked about."""

    def __init__(self, legal: np.ndarray):
        self.legal, self.asked = legal, 0

    def legal_mask(self, x, y, heading):
        self.asked += len(x)
        return self.legal[x.astype(int)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(0, 400), spread=st.floats(3.0, 60.0),
       illegal=st.floats(0.0, 0.9))
def test_best_of_cells_is_checking_all_then_sorting(seed, n, spread, illegal):
    """`_best_of_cells` (the best of each grid cell, checking only the best of each) gives the
    placements that checking all, a stable sort by score and the first of each cell give, in
    that order; scores tie often (whole cells may fail the check)."""
    from games.anasazi.reach import CELL, _best_of_cells

    rng = np.random.default_rng(seed)
    total = n + 20
    x = np.arange(total, dtype=float)  # the placement's number: what `_MaskedPlacer` reads
    ex, ey = rng.uniform(-spread, spread, (2, total)) + rng.uniform(-500, 500, 2)[:, None]
    score = np.round(rng.uniform(0, 4, total) * rng.integers(1, 8)) / 2  # many ties, zeros
    score[rng.random(total) < 0.2] = np.inf
    placer = _MaskedPlacer(rng.random(total) >= illegal)
    useful = np.flatnonzero(np.isfinite(score))
    got = _best_of_cells(placer, useful, score, x, x, x, ex, ey)
    legal = useful[placer.legal[useful]]
    order = legal[np.argsort(score[legal], kind="stable")]
    cells = np.floor(ex[order] / CELL) * 1e6 + np.floor(ey[order] / CELL)  # one number a cell
    _, first = np.unique(cells, return_index=True)
    assert np.array_equal(got, order[np.sort(first)])
    if illegal == 0.0:
        assert placer.asked == len(got)  # one check per cell


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tx=st.floats(-70, 70), ty=st.floats(-70, 70), size=st.floats(0.2, 15),
       seed=st.integers(0, 2**16))
def test_samples_marked_touching_touch_as_shapely_says(camps_state, tx, ty, size, seed):
    """`_touching_samples` marks a placement as touching only where shapely's `intersects`
    says it touches; `verify` trusting the marks finds what asking shapely everywhere finds."""
    from games.anasazi.reach import _touching_samples, touch_mask, verify

    placer = StatePlacer.of(camps_state, "E1", 0)
    target = make_target("T", shapely.Polygon([(tx, ty), (tx + size, ty + 0.3 * size),
                                               (tx + 0.4 * size, ty + size)]))
    theta, a, c, touching = _touching_samples(placer.step, target, np.random.default_rng(seed), 512)
    x, y, h = placer.step.poses(theta, a, c)
    assert touch_mask(target, SIZES, x[touching], y[touching], h[touching]).all()
    # Marked where a point of the target lies that deep in the marker laid.
    local = to_frames(*target.points.T, x[touching], y[touching], h[touching])
    depth = np.minimum(L / 2 - np.abs(local.real), W / 2 - np.abs(local.imag)).max(axis=1)
    assert (depth > lg.MARGIN * 0.99).all()
    assert len(theta) == 0 or touching.mean() > 0.5  # the marks spare most of the asking
    trusted = verify(placer, target, theta, a, c, keep=3, touching=touching)
    asked = verify(placer, target, theta, a, c, keep=3)
    assert (trusted.poses, trusted.candidates, trusted.rejected) == \
        (asked.poses, asked.candidates, asked.rejected)


@pytest.fixture(scope="module")
def random_state():
    """A random 4-player table at the start of play."""
    return after_setup(GAME.make_setup(4, 3), 3)


def test_swept_placements_need_no_second_mask(ring, random_state):
    """The sweep's placements passed the batched check and the touch test of their sector:
    `verify` taking them as they are finds what checking them again finds."""
    from games.anasazi.reach import _sweep, sector_target, verify

    compared = 0
    for state in (ring, random_state):
        for camp in state.table.expedition_camps:
            placer = StatePlacer.of(state, camp.id, 0)
            for sector, placements in _sweep(placer, state.table, np.random.default_rng(3)).items():
                target = sector_target(state.table, sector)
                masked = verify(placer, target, *placements, masked=True)
                checked = verify(placer, target, *placements)
                assert masked.poses and masked.poses == checked.poses
                assert masked.candidates == checked.candidates
                compared += 1
    assert compared  # some sectors were swept


@settings(max_examples=40, deadline=None)
@given(x=st.floats(-330, 330), y=st.floats(-330, 330), heading=st.floats(0, 360))
def test_no_tower_sector_is_touched_where_none_is_near(random_state, x, y, heading):
    """`_near_towers` says a marker may touch a sector of the towers wherever it touches one
    (the rules' `touched_sectors`), for each sector alone and for all at once."""
    from games.anasazi.reach import _near_towers

    random_table = random_state.table
    pose = Pose(x, y, heading)
    hit = set(touched_sectors := lg.touched_sectors(random_table, pose))
    for s in random_table.sectors:
        if s.id in hit:
            assert _near_towers(random_table, pose, {s.id: "red"})
    everything = {s.id: "red" for s in random_table.sectors}
    assert _near_towers(random_table, pose, everything) or not touched_sectors


@pytest.fixture(scope="module")
def bent_state():
    """A table with an L-shaped (not convex) sector and a box next to it."""
    bent = shapely.Polygon([(30, -10), (60, -10), (60, 0), (40, 0), (40, 20), (30, 20)])
    return play_setup(make_setup({"P0": bent, "P1": box(-60, -8, -45, 8)}))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_separating_axes_touch_what_the_rules_touch(random_state, bent_state, seed):
    """`legality.touched_sectors_batch` gives shapely's verdicts to the last pose: for random
    markers, and for markers moved to touch their nearest sector give or take 0 to 1e-3 mm
    (where the separating axes leave it to shapely), on convex and L-shaped sectors."""
    rng = np.random.default_rng(seed)
    for state in (random_state, bent_state):
        table, n = state.table, 150
        x, y, h = rng.uniform(-120, 120, n), rng.uniform(-120, 120, n), rng.uniform(0, 360, n)
        polys = lg.table_geometry(table).sectors[0]
        rects = lg.marker_polygons(x, y, h, SIZES)
        nearest = shapely.distance(rects[:, None], polys[None, :]).argmin(axis=1)
        ends = shapely.get_coordinates(shapely.shortest_line(rects, polys[nearest])).reshape(-1, 2, 2)
        move = ends[:, 1] - ends[:, 0]
        unit = move / np.maximum(np.hypot(*move.T), 1e-300)[:, None]
        past = rng.choice([-1e-3, -1e-6, -1e-9, 0.0, 1e-9, 1e-6, 1e-3], n)
        x = np.concatenate([x, x + move[:, 0] + past * unit[:, 0]])
        y = np.concatenate([y, y + move[:, 1] + past * unit[:, 1]])
        h = np.concatenate([h, h])
        fast = lg.touched_sectors_batch(table, x, y, h)
        assert np.array_equal(fast, lg.touched_sectors_shapely(table, x, y, h))
        assert fast[:n].any() and fast[n:].any()


@pytest.mark.parametrize("name", ["touched_sectors_batch", "convex_corners"])
def test_the_touch_test_moved_to_legality_still_imports_from_reach(name):
    """Issue 26: the separating-axes touch test and the convex corners live in `legality`; the
    old names keep working for a release, with a DeprecationWarning."""
    from games.anasazi import reach

    with pytest.warns(DeprecationWarning, match=rf"games\.anasazi\.legality\.{name}\b"):
        old = getattr(reach, name)
    assert old is getattr(lg, name)


def test_a_sector_that_is_not_convex_is_reached_through_shapely(bent_state):
    """Distances to an L-shaped sector come from shapely (no `Convex`): one marker reaches
    it from E1 (the hollow of the L faces away), the chain's witness replays and touches."""
    from games.anasazi.reach import sector_target

    target = sector_target(bent_state.table, "P0")
    assert target.convex is None
    assert target.gap_to(0.0, 0.0) == pytest.approx(30.0)
    assert target.gap(np.array([35.0, 50.0]), np.array([5.0, 10.0])).tolist() == [0.0, 10.0]
    r = reach(bent_state, "E1", "P0", 2)
    assert r.reachable
    replay(bent_state, r)
    assert "P0" in touched(bent_state, r.witness)

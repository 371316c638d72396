"""The exact (shapely) and batched (numpy) legality paths agree, rule by rule, on random boards
and placements, tangent and near-tangent ones included (the tolerance is 1e-9 mm; gaps of
1e-12 mm count as touching, gaps of 1e-6 mm as overlapping or apart)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.anasazi import legality as lg
from games.anasazi.legality import Board, Camp
from geomsim.geometry import Pose

from .conftest import lab_table

TABLE = lab_table()
SIZES = TABLE.sizes
A, B = SIZES.marker_length / 2.0, SIZES.marker_width / 2.0
R = SIZES.play_area_radius
EXPEDITIONS = [e.id for e in TABLE.expedition_camps]
GAPS = [0.0, 1e-12, -1e-12, 1e-6, -1e-6, 0.5, -0.5]  # mm beyond touching (negative: overlap)

settings.register_profile("legality", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])

coord = st.floats(-90.0, 90.0, allow_nan=False)
angle = st.floats(0.0, 360.0, allow_nan=False, exclude_max=True)
gap = st.sampled_from(GAPS)


def _near(centre, draw):
    return centre[0] + draw(coord), centre[1] + draw(coord)


@st.composite
def boards(draw):
    """A board around one expedition's end: base camps, other expeditions' markers."""
    expedition = draw(st.sampled_from(EXPEDITIONS))
    start = TABLE.expedition_camp(expedition).start
    centre = start if draw(st.booleans()) else (draw(coord), draw(coord))
    expeditions = {}
    for e in EXPEDITIONS:
        n = draw(st.integers(0, 2))
        expeditions[e] = tuple(Pose(*_near(centre, draw), draw(angle)) for _ in range(n))
    camps = tuple(Camp(draw(st.integers(0, 2)), *_near(centre, draw))
                  for _ in range(draw(st.integers(0, 8))))
    fresh = frozenset(i for i in range(len(camps)) if draw(st.booleans()))
    return Board(TABLE, camps, expeditions, fresh), expedition, draw(st.integers(0, 2))


def _discs(board, player, expedition):
    """Every disc a marker's rules look at: the target, camps, end explorers, start marks."""
    found = [lg.expedition_end(board, expedition)]
    found += [(c.x, c.y, SIZES.base_camp_radius) for c in board.camps]
    found += [(x, y, SIZES.explorer_radius) for _, x, y in lg.end_explorers(board)]
    found += [(*e.start, SIZES.start_mark_radius) for e in TABLE.expedition_camps]
    return found


@st.composite
def poses(draw, board, player, expedition):
    """A marker pose: covering the target, random, tangent to a disc (side or end), or touching
    the play area's edge — each with a gap of 0, ±1e-12, ±1e-6 or ±0.5 mm."""
    kind = draw(st.sampled_from(["cover", "random", "side", "end", "edge"]))
    h = draw(angle)
    u = np.array([math.cos(math.radians(h)), math.sin(math.radians(h))])
    n = np.array([-u[1], u[0]])
    x, y, r = lg.expedition_end(board, expedition)
    if kind == "cover":
        half_along, half_across = lg.cover_room(SIZES, r)
        along = draw(st.sampled_from([0.0, 2 * half_along]) | st.floats(0.0, 2 * half_along))
        across = draw(st.sampled_from([-half_across, 0.0, half_across])
                      | st.floats(-half_across, half_across))
        return lg.pose_covering((x, y), h, SIZES, along=along, across=across, radius=r)
    if kind == "random":
        return Pose(*_near((x, y), draw), h)
    if kind == "edge":  # the farthest corner (a, ±b) at distance R + gap from the centre
        corner = A * u + draw(st.sampled_from([-1.0, 1.0])) * B * n
        size = float(np.hypot(*corner))
        centre = (R - size + draw(gap)) * corner / size
        return Pose(float(centre[0]), float(centre[1]), h)
    dx, dy, dr = draw(st.sampled_from(_discs(board, player, expedition)))
    side = draw(st.sampled_from([-1.0, 1.0]))
    if kind == "side":  # the disc's centre beside a long side, `gap` beyond touching
        local = (draw(st.floats(-A, A)), side * (B + dr + draw(gap)))
    else:  # beyond a short end
        local = (side * (A + dr + draw(gap)), draw(st.floats(-B, B)))
    centre = np.array([dx, dy]) - local[0] * u - local[1] * n
    return Pose(float(centre[0]), float(centre[1]), h)


def _exact(board, player, expedition, pose):
    return {v.rule for v in lg.marker_violations(board, player, expedition, pose)}


def _batched(board, player, expedition, pose, near_target=False):
    ctx = lg.marker_context(board, player, expedition, near_target=near_target)
    check = lg.check_markers(ctx, [pose.x], [pose.y], [pose.heading])
    return {rule for rule, mask in check.broken.items() if mask[0]}, bool(check.ok[0])


@settings(settings.get_profile("legality"))
@given(st.data())
def test_marker_paths_agree(data):
    """`anasazi/4.2/cover-explorer`, `anasazi/4.2/play-area`, `anasazi/4.2/other-camp`,
    `anasazi/4.2/new-camp`, `anasazi/4.2/explorer-visible`: exact and batched verdicts agree
    rule by rule, tangent cases included."""
    board, expedition, player = data.draw(boards())
    pose = data.draw(poses(board, player, expedition))
    exact = _exact(board, player, expedition, pose)
    batched, ok = _batched(board, player, expedition, pose)
    assert exact == batched, (pose, exact, batched)
    assert ok == (not exact) == _batched(board, player, expedition, pose, near_target=True)[1]


def test_tangent_cases_are_allowed():
    """Touching is not covering: a marker tangent to another player's camp, to another
    expedition's explorer, and to the play area's edge is legal on both paths; 1e-6 mm more is
    not. A start mark tangent to the inside of the marker is covered."""
    camp = Camp(1, 0.0, -(B + SIZES.base_camp_radius))  # tangent below a marker along x
    other = Pose(60.0, B + SIZES.explorer_radius - 26.0, 90.0)  # its explorer tangent above
    board = Board(TABLE, (camp,), {"E1": (Pose(-26.0, 0.0, 0.0),), "E2": (other,)})
    # The new E1 marker: covers E1's explorer at (0, 0) exactly at its tail.
    pose = lg.pose_covering((0.0, 0.0), 0.0, SIZES)
    assert lg.explorer_centre(other, SIZES) == (60.0, B + SIZES.explorer_radius)
    assert _exact(board, 0, "E1", pose) == set() == _batched(board, 0, "E1", pose)[0]
    for dy in (1e-6, -1e-6):  # into the camp, or into the other explorer
        moved = Pose(pose.x, pose.y + dy, 0.0)
        assert _exact(board, 0, "E1", moved) == _batched(board, 0, "E1", moved)[0] != set()


@st.composite
def camp_points(draw):
    """Base camp centres: random, or `gap` beyond touching a mesa side, a camp, a marker, an
    expedition base camp tile or the play area's edge."""
    r = SIZES.base_camp_radius
    kind = draw(st.sampled_from(["random", "mesa", "camp", "marker", "edge"]))
    g = draw(gap)
    if kind == "random":
        return draw(st.floats(-R, R)), draw(st.floats(-R, R))
    if kind == "mesa":
        x0, y0, x1, y1 = draw(st.sampled_from([m.polygon.bounds for m in TABLE.mesas]
                                              + [t.polygon.bounds for t in TABLE.expedition_camps]))
        t = draw(st.floats(0.0, 1.0))
        return draw(st.sampled_from([(x0 + t * (x1 - x0), y1 + r + g), (x1 + r + g, y0 + t * (y1 - y0)),
                                     (x0 - r - g, y0 + t * (y1 - y0)), (x0 + t * (x1 - x0), y0 - r - g)]))
    h = math.radians(draw(angle))
    if kind == "camp":
        return 100.0 + (2 * r + g) * math.cos(h), 100.0 + (2 * r + g) * math.sin(h)
    if kind == "marker":  # beside the marker at (0, -100) heading 0
        return draw(st.floats(-A, A)), -100.0 + draw(st.sampled_from([-1, 1])) * (B + r + g)
    return (R - r + g) * math.cos(h), (R - r + g) * math.sin(h)


@settings(settings.get_profile("legality"))
@given(camp_points())
def test_camp_paths_agree(point):
    """`anasazi/4.1/valley`, `anasazi/4.1/play-area`, `anasazi/4.1/not-on-camp`,
    `anasazi/4.1/directly-on-play-area`: exact and batched verdicts on base camps agree."""
    board = Board(TABLE, (Camp(0, 100.0, 100.0),), {"E1": (Pose(0.0, -100.0, 0.0),)})
    exact = {v.rule for v in lg.camp_violations(board, *point)}
    check = lg.check_camps(board, [point[0]], [point[1]])
    assert exact == {rule for rule, mask in check.broken.items() if mask[0]}, point
    assert bool(check.ok[0]) == (not exact)


def test_batched_many_poses_agree_with_exact():
    """A batch of 2,000 covering and random poses on one busy board: the mask equals the exact
    verdicts one by one."""
    rng = np.random.default_rng(7)
    camps = tuple(Camp(int(o), float(x), float(y)) for o, x, y in
                  zip(rng.integers(0, 3, 12), rng.uniform(-330, -230, 12), rng.uniform(-60, 60, 12)))
    board = Board(TABLE, camps, {"E1": (Pose(-319.0, 0.0, 0.0),), "E4": (Pose(-319.0, 80.0, 0.0),)},
                  frozenset({0, 1}))
    ctx = lg.marker_context(board, 0, "E1")
    h = rng.uniform(0, 360, 2000)
    x = np.where(np.arange(2000) % 2 == 0, -293.0, rng.uniform(-340, -240, 2000))
    y = rng.uniform(-6, 6, 2000)
    check = lg.check_markers(ctx, x, y, h)
    exact = np.array([not lg.marker_violations(board, 0, "E1", Pose(a, b, c))
                      for a, b, c in zip(x, y, h)])
    assert (check.ok == exact).all() and 0 < check.ok.sum() < 2000
    sampled = lg.legal_marker_poses(ctx, rng, 500)
    assert len(sampled[0]) and all(not lg.marker_violations(board, 0, "E1", Pose(*p))
                                   for p in zip(*sampled))


def test_touched_sectors_batch_agrees():
    """`anasazi/4.2/divided-pueblo`: the batched touch mask equals the exact touched sectors."""
    rng = np.random.default_rng(11)
    x, y = rng.uniform(-220, -100, 300), rng.uniform(-40, 40, 300)
    h = rng.uniform(0, 360, 300)
    mask = lg.touched_sectors_batch(TABLE, x, y, h)
    ids = [s.id for s in TABLE.sectors]
    for i in range(300):
        assert {ids[j] for j in np.flatnonzero(mask[i])} == set(lg.touched_sectors(TABLE, Pose(x[i], y[i], h[i])))
    assert mask[:, ids.index("P1l")].any() and mask[:, ids.index("P1s")].any()


def _derived(board):
    """What the checks derive from a board and may carry to the board that follows it."""
    circles, turns = lg._marker_frames(board)
    return (circles.centre.tolist(), turns.tolist(), lg._camp_discs(board).centre.tolist(),
            [p.coords[0] for p in lg._camp_points(board)], lg.end_explorers(board),
            {e: lg.end_camps(board, e) for e in EXPEDITIONS})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(), st.data())
def test_a_following_board_derives_what_a_fresh_one_does(made, data):
    """`Board.follow`: a board made after a piece is laid (or, on another branch of the game,
    instead of it) reuses what the board before derived only where it still holds: it
    derives exactly what a board made from scratch does, and both check markers alike."""
    before, expedition, player = made
    _derived(before)  # what the board before derived, to be carried
    camps = list(before.camps)
    expeditions = {e: list(p) for e, p in before.expeditions.items()}
    for _ in range(data.draw(st.integers(1, 3))):
        if data.draw(st.booleans()):
            camps.append(Camp(data.draw(st.integers(0, 2)), *_near((0.0, 0.0), data.draw)))
        else:
            e = data.draw(st.sampled_from(EXPEDITIONS))
            poses = expeditions[e]
            if poses and data.draw(st.booleans()):
                poses.pop()  # another branch: the last marker replaced by another one
            poses.append(Pose(*_near((0.0, 0.0), data.draw), data.draw(angle)))
    pieces = (tuple(camps), {e: tuple(p) for e, p in expeditions.items()}, frozenset())
    after, fresh = Board(TABLE, *pieces).follow(before), Board(TABLE, *pieces)
    assert _derived(after) == _derived(fresh)
    x, y, h = (np.array(v) for v in zip(*[(p.x, p.y, p.heading) for p in _poses(data)]))
    for e in EXPEDITIONS:
        ok = [lg.check_markers(lg.marker_context(b, player, e), x, y, h).ok for b in (after, fresh)]
        assert (ok[0] == ok[1]).all()


def _poses(data):
    return [Pose(*_near((0.0, 0.0), data.draw), data.draw(angle)) for _ in range(5)]


def _context(ctx):
    return ctx.target, ctx.start, ctx.rows, ctx.obstacle_list, ctx.obstacles.tolist()


def _obstacle_camps(board, player, expedition):
    """The base camps a marker context must hold, found afresh with numpy: those whose disc
    comes within the marker's diagonal of the target, where `_forbidden_camp` forbids them."""
    x, y, _ = lg.expedition_end(board, expedition)
    if not board.camps:
        return []
    centres = np.array([complex(c.x, c.y) for c in board.camps])
    sizes = board.sizes
    near = np.abs(centres - complex(x, y)) <= sizes.base_camp_radius + math.hypot(
        sizes.marker_length, sizes.marker_width)
    return [(board.camps[i].x, board.camps[i].y) for i in np.flatnonzero(near)
            if lg._forbidden_camp(board, player, expedition, int(i)) is not None]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_the_boards_of_a_game_derive_what_fresh_boards_do(seed):
    """Along a random 4-player game, at every step: the board the state made (following the
    board before, taking over what it derived) and a board made afresh from the same pieces
    give the same marker context for every player and expedition (target, start mark,
    obstacles and their rule codes), the same camps under each expedition's end
    (`anasazi/4.2/end-on-camp`), the same covered camps and the same legal candidate camps;
    and each context holds exactly the camps that numpy finds near the target and forbidden
    (`anasazi/4.2/other-camp`, `anasazi/4.2/new-camp`)."""
    from games.anasazi import GAME

    state = GAME.new_state(4, seed=seed)
    rng = np.random.default_rng(seed)
    probe = np.random.default_rng(seed + 1)
    steps = 0
    while not state.is_over():
        board = state.board()
        fresh = Board(board.table, board.camps, board.expeditions, board.fresh)
        ids = [e.id for e in board.table.expedition_camps]
        for player in range(4):
            for e in ids:
                ours = lg.marker_context(board, player, e)
                assert _context(ours) == _context(lg.marker_context(fresh, player, e))
                assert [(x, y) for x, y, _, code in ours.rows if code < 2] == _obstacle_camps(
                    fresh, player, e)
        for e in ids:
            assert lg.end_camps(board, e) == lg.end_camps(fresh, e)
            for pose in board.expeditions.get(e, ())[-1:]:
                start = int(probe.integers(len(board.camps) + 1))
                assert lg.covered_camps(board, pose, start) == [
                    i for i in lg.covered_camps(fresh, pose) if i >= start]
        radius = board.sizes.play_area_radius
        z = probe.uniform(-radius, radius, (16, 2)).view(np.complex128).ravel()
        assert lg.first_legal_camps(board, z, 16) == z[lg.check_camp_points(fresh, z).ok].tolist()
        player = state.to_move()[0]
        state.apply(state.legal_actions(player).sample(rng, 1)[0], player)
        steps += 1
    assert steps > 40 and state.camps and sum(map(len, state.expeditions.values())) > 10


def _laid(state):
    """The pieces of a state as its board holds them: camps, started expeditions, fresh camps."""
    return (tuple(state.camps), {e: tuple(p) for e, p in state.expeditions.items() if p},
            frozenset(state.fresh))


def test_a_states_board_is_its_pieces_after_every_change():
    """`state.board()` is kept between changes (a count of them, not the lists' lengths): along
    a random 3-player game, after every action, and in the states made from it (`turn_of` of
    each player, `clone`, `determinize`, `undo`, JSON), the board holds exactly the state's
    camps, expeditions and fresh camps (a board asked for before an action and kept after it
    would not: the camp built, the marker laid, the fresh camps of a turn that ended)."""
    from games.anasazi import GAME

    state = GAME.new_state(3, seed=5)
    rng = np.random.default_rng(5)
    kinds = set()
    while not state.is_over():
        board = state.board()
        assert (board.camps, board.expeditions, board.fresh) == _laid(state)
        if state.phase == "play":
            for player in range(3):
                other = state.turn_of(player)
                other.board()
                assert (other.board().camps, other.board().expeditions,
                        other.board().fresh) == _laid(other)
            drawn = state.determinize(state.current, rng)
            assert drawn.board() is board
        action = state.legal_actions().sample(rng, 1)[0]
        kinds.add((type(action).__name__, bool(state.fresh)))
        state.apply(action)
        copy = state.clone()
        copy.undo()
        assert (copy.board().camps, copy.board().expeditions, copy.board().fresh) == _laid(copy)
        again = GAME.state_from_json(state.to_json())
        assert (again.board().camps, again.board().expeditions) == _laid(state)[:2]
    assert {("BuildCamp", True), ("PlaceMarker", False), ("Pass", True)} <= kinds


def test_a_memo_hit_after_a_change_is_never_stale():
    """The exact check keeps its verdicts per board (`judged_marker`): the same marker actions,
    judged again by every player (`turn_of`, whose states share the board while no camp of
    this turn differs) after every action of a random 4-player game, get what
    `marker_violations` finds on a board made afresh from the state's pieces (the same rules,
    messages and numbers), never a verdict kept from before or for another player (a camp
    built under them, a camp of this turn no longer fresh, an end moved on, one's own camp)."""
    from games.anasazi import GAME
    from games.anasazi.actions import PlaceMarker

    state = GAME.new_state(4, seed=12)  # a game whose verdicts differ by player (seed 11 no more)
    rng = np.random.default_rng(12)
    while state.phase != "play":
        state.apply(state.legal_actions().sample(rng, 1)[0])
    markers = state.sample_markers(state.current, rng, 12)  # legal now, some not later
    markers += [PlaceMarker(m.expedition, m.x + dx, m.y + dy, m.heading)
                for m, (dx, dy) in zip(markers[:6], rng.normal(0, 20, (6, 2)).tolist())]
    before, changed, players_differ = None, 0, 0
    while not state.is_over():
        if state.phase == "play" and not state.pending:
            verdicts = []
            for player in range(4):
                turn = state.turn_of(player)
                afresh = Board(state.table, *_laid(turn))
                for m in markers:
                    got = turn.check(m)
                    want = lg.marker_violations(afresh, player, m.expedition, m.pose)
                    assert got.violations == tuple(want), (player, m)
                    assert turn.check(m) == got  # the memo hit
                    verdicts.append(got.rules)
            players_differ += any(verdicts[i::len(markers)] != verdicts[i::len(markers)][:1] * 4
                                  for i in range(len(markers)))
            changed += before is not None and verdicts != before
            before = verdicts
        state.apply(state.legal_actions().sample(rng, 1)[0])
    assert changed >= 3 and players_differ >= 3  # verdicts did change along the game, by player

"""The compiled random player of Anasazi (games/anasazi/playout.py) against the rules interface.

`check_playouts` replays every decision of the kernel through `State.apply` (which judges each
placement with shapely) and compares the options of every finite decision, the end, the scores
and the winners; `playout_length_gap` compares the law of play with the random bot's. The
kernel's geometry is also compared with `games.anasazi.legality` piece by piece, on moments of
real games: the discs a marker may not overlap, legal base camps, legal markers, touched
sectors and mesas. Last, what ISMCTS with compiled rollouts leans on: verdicts kept per board
and per legality key, and a search that grows the very tree without them.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
import shapely

from games.anasazi import GAME, playout
from games.anasazi import legality as lg
from games.anasazi.actions import ACTION_TYPES, BuildCamp
from games.anasazi.components import Sizes
from games.anasazi.legality import Board
from geomsim.bots import ISMCTSBot
from geomsim.testing import HarnessFailure, check_playouts, check_playouts_from, playout_length_gap
from tests.anasazi.conftest import in_play, play

KINDS = {a.kind for a in ACTION_TYPES} - {"extend"}  # the kernel lays markers by their poses


def kinds_in(playouts) -> set[str]:
    """The kinds of action the kernel chose in `playouts`."""
    return {playouts.decode(int(code)).kind for code in np.unique(playouts.log[:, 1])}


def replay(start, playouts, i: int):
    """The states after each decision of kernel game `i` from `start` (a copy), replayed
    through the interface; yields (state, player, action) before each decision."""
    state = start.clone()
    for player, action in playouts.actions(i):
        yield state, player, action
        state.apply(action, player)
    yield state, None, None


@pytest.fixture(scope="module")
def games4():
    """Twelve 4-player kernel games from seeds and their starts (shared by the tests here)."""
    starts = [GAME.new_state(4, seed=s) for s in range(300, 312)]
    return starts, GAME.random_playouts(starts, seed=3)


@pytest.fixture(scope="module")
def moments(games4) -> list:
    """Copies of the replayed games at moments worth starting from and judging: the setup
    camps, the setup looks, a camp look open, a mesa look open, a take open, a base camp built
    this turn, an expedition's end on a base camp, the end with a take open; and every tenth
    decision."""
    wanted = {
        "camps": lambda s: s.phase == "camps" and s.step == 3,
        "looks": lambda s: s.phase == "looks" and len(s.setup_looked) == 1,
        "camp look": lambda s: s.pending[:1] == ["look"],
        "mesa look": lambda s: s.pending[:1] != ["look"] and any(":" in d for d in s.pending),
        "take": lambda s: "take" in s.pending,
        "fresh": lambda s: bool(s.fresh) and not s.pending and s.phase == "play",
        "end on camp": lambda s: any(lg.end_camps(s.board(), e) for e in s.expeditions),
    }
    found: dict[str, object] = {}
    every = []
    starts, playouts = games4
    for i, start in enumerate(starts):
        for k, (state, _, _) in enumerate(replay(start, playouts, i)):
            for name, test in wanted.items():
                if name not in found and not state.is_over() and test(state):
                    found[name] = state.clone()
            if k % 10 == 5 and not state.is_over():
                every.append(state.clone())
    assert set(found) == set(wanted), f"no game reached {set(wanted) - set(found)}"
    return list(found.values()) + every


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playouts_replay_through_the_rules(players):
    """Every decision of the kernel is legal, finite ones among as many options as the rules
    list, continuous ones where the rules offer a continuous space, and the games end where the
    rules end them with the same scores and winners."""
    check_playouts(GAME, players, games=6, seed=40 * players)


def test_kernel_games_reach_every_rule_of_play(games4):
    """The rules of play the kernel carries out all happen in its games, and the rules agree:
    base camps with their camp looks (anasazi/4.1/camp-look), markers that enter mesas with a
    mesa look (anasazi/4.3/mesa-look), treasures and towers taken from divided pueblos one
    sector at a time (anasazi/4.2/divided-pueblo), a camp theft on the first cover of one's
    own base camp (anasazi/4.2/own-camp-treasure), passes."""
    starts, playouts = games4
    assert kinds_in(playouts) == KINDS
    check_playouts_from(GAME, starts, seed=3)
    events = set()
    for i, start in enumerate(starts):
        *_, (final, _, _) = replay(start, playouts, i)
        events |= {e.kind for _, _, evs in final.history for e in evs}
    assert {"tower-moved", "treasure-found", "treasure-taken", "camp-covered"} <= events


def ends(start, playouts) -> list[str]:
    """Why each kernel game from `start` ended, as the rules replaying it say."""
    return [list(replay(start, playouts, i))[-1][0].ended for i in range(len(playouts))]


def test_kernel_games_end_as_the_rules_end_them():
    """anasazi/5.0/end-towers: on the lab table the four red towers stand in a row near E2, and
    some kernel games end at the fourth; anasazi/5.0/end-markers: with a supply of 4 markers
    every game ends at the fourth marker laid. Both where the rules end them."""
    lab = in_play(2)
    assert "towers:red" in ends(lab, check_playouts_from(GAME, [lab] * 8, seed=1))
    few = in_play(2, sizes=Sizes(markers=4))
    assert set(ends(few, check_playouts_from(GAME, [few] * 6, seed=5))) == {"markers"}


def test_playouts_start_from_any_moment(moments):
    """From the setup, an open look or take, a base camp built this turn, an expedition's end on
    a base camp, mid-game: the kernel plays on as the rules do; a finished game stays finished
    with its scores; the given states are left unchanged."""
    over = moments[-1].clone()
    while not over.is_over():
        over.apply(over.legal_actions().sample(np.random.default_rng(1), 1)[0])
    played = check_playouts_from(GAME, moments + [over], seed=9)
    assert played.decisions[-1] == 0
    assert played.scores[-1].tolist() == over.scores()


def test_markers_continue_an_expedition_whose_end_sits_on_a_base_camp():
    """anasazi/4.2/end-on-camp and anasazi/4.2/other-camp: player 0's marker ends on player 0's
    own camp; player 1 may continue that expedition over it, but no other marker of player 1
    may cover it. The kernel drops it from the discs player 1 must avoid extending E1 once the
    end sits on it."""
    state = in_play(2, camps={0: [(-300.0, 0.0), (0.0, 200.0)]})
    arrays = playout.table_arrays(state.table)
    e1 = arrays.expedition_ids.index("E1")
    assert (-300.0, 0.0) in kernel_obstacles(state, arrays, 1, e1)
    play(state, "extend E1 heading 0", "camp 200.0,100.0", "pass")  # no treasure to take yet
    assert lg.end_camps(state.board(), "E1") == {0} and state.current == 1
    assert (-300.0, 0.0) not in kernel_obstacles(state, arrays, 1, e1)
    check_playouts_from(GAME, [state] * 8, seed=2)


def test_markers_avoid_a_base_camp_built_this_turn():
    """anasazi/4.2/new-camp: one's own base camp is an obstacle in the turn it is built, and no
    longer in the next."""
    state = in_play(2)
    play(state, "camp -320.0,40.0", "pass")
    arrays = playout.table_arrays(state.table)
    assert (-320.0, 40.0) in kernel_obstacles(state, arrays, 0, 0)
    check_playouts_from(GAME, [state] * 8, seed=4)
    play(state, "camp 200.0,100.0", "pass", "camp -200.0,-200.0", "pass", "camp -100.0,-200.0",
         "pass")
    assert state.current == 0 and (-320.0, 40.0) not in kernel_obstacles(state, arrays, 0, 0)


def kernel_obstacles(state, arrays, player: int, e: int) -> set[tuple[float, float]]:
    """The centres of the discs the kernel keeps a marker of `player` extending expedition
    index `e` away from."""
    gi, gf = playout.encode(state, arrays)
    tx, ty, _ = playout.expedition_target(arrays.fp, arrays.ip, arrays.starts, gi, gf, e)
    obs = np.zeros((64, 3))
    n = playout.obstacles(arrays.fp, arrays.ip, arrays.starts, gi, gf, player, e, tx, ty, obs)
    return {(float(x), float(y)) for x, y, _ in obs[:n]}


def test_kernel_obstacles_and_markers_agree_with_the_batched_check(moments):
    """For every moment, player and expedition: the discs the kernel keeps a marker from are
    those of `legality.marker_context` (other players' camps but under the end, camps built
    this turn, other expeditions' explorers: anasazi/4.2/other-camp, new-camp,
    explorer-visible), and the kernel judges random covering poses as `check_markers` does
    (anasazi/4.2/play-area included)."""
    rng = np.random.default_rng(0)
    judged = legal = 0
    for state in moments:
        arrays = playout.table_arrays(state.table)
        gi, gf = playout.encode(state, arrays)
        board = state.board()
        for player in range(state.num_players):
            for e, expedition in enumerate(arrays.expedition_ids):
                ctx = lg.marker_context(board, player, expedition)
                tx, ty, tr = playout.expedition_target(arrays.fp, arrays.ip, arrays.starts, gi,
                                                       gf, e)
                assert (tx, ty, tr) == pytest.approx(ctx.target, abs=1e-9)
                obs = np.zeros((64, 3))
                n = playout.obstacles(arrays.fp, arrays.ip, arrays.starts, gi, gf, player, e,
                                      tx, ty, obs)
                mine = sorted(map(tuple, obs[:n].round(9).tolist()))
                theirs = sorted(zip(ctx.obstacles[0].round(9).tolist(),
                                    ctx.obstacles[1].round(9).tolist(), ctx.reach.round(9).tolist()))
                assert mine == theirs
                p, z, _ = lg.covering_candidates(ctx, rng, 40)
                ok = lg._check_markers(ctx, p.real, p.imag, np.angle(z), z, True, None).ok
                kernel = [playout.marker_legal(arrays.fp, q.real, q.imag, u.real, u.imag, obs, n)
                          for q, u in zip(p.tolist(), z.tolist())]
                assert kernel == ok.tolist()
                judged, legal = judged + len(ok), legal + int(ok.sum())
    assert 0 < legal < judged


def test_kernel_base_camps_agree_with_the_batched_check(moments):
    """anasazi/4.1/valley, play-area, not-on-camp, directly-on-play-area: the kernel finds the
    same base camp centres legal as `check_camps` (mesas and expedition base camp tiles by
    point-in-polygon and segment distances, camps and markers as discs and rectangles)."""
    rng = np.random.default_rng(1)
    for state in moments[::3]:
        arrays = playout.table_arrays(state.table)
        gi, gf = playout.encode(state, arrays)
        xy = rng.uniform(-410, 410, (600, 2))
        # Points near the laid pieces too, where the answers are close.
        near = [(c.x, c.y) for c in state.camps] + [(p.x, p.y) for _, _, p in state.board().markers()]
        if near:
            xy = np.vstack([xy, np.array(near)[rng.integers(len(near), size=300)]
                            + rng.normal(0, 12, (300, 2))])
        ok = lg.check_camps(state.board(), xy[:, 0], xy[:, 1]).ok
        kernel = [playout.camp_legal(arrays.fp, arrays.ip, arrays.verts, arrays.rings,
                                     arrays.polys, arrays.circles, gi, gf, x, y)
                  for x, y in xy.tolist()]
        assert kernel == ok.tolist()
        assert 0 < ok.sum() < len(ok)


def test_kernel_touches_the_sectors_and_mesas_shapely_touches(games4):
    """anasazi/4.2/touch-pueblo and divided-pueblo: separating axes (convex sectors) and
    segment clipping with a point-in-polygon test (mesas, not convex) give shapely's
    `intersects` for markers laid near every polygon of a table, and for a marker that touches
    a sector's edge exactly."""
    rng = np.random.default_rng(2)
    table = games4[0][0].table
    arrays = playout.table_arrays(table)
    polygons = [s.polygon for s in table.sectors] + [m.polygon for m in table.mesas]
    assert arrays.convex[:len(table.sectors)].all() and not arrays.convex[len(table.sectors):len(polygons)].any()
    sizes = table.sizes
    hits = 0
    for j, poly in enumerate(polygons):
        verts = shapely.get_coordinates(poly)
        centres = verts[rng.integers(len(verts), size=25)] + rng.normal(0, 30, (25, 2))
        for (x, y), h in zip(centres.tolist(), rng.uniform(0, 360, 25).tolist()):
            c, s = lg.cos_sin(h)
            theirs = shapely.intersects(poly, lg.marker_polygon(lg.Pose(x, y, h), sizes))
            mine = playout.marker_touches(arrays.verts, arrays.rings, arrays.polys,
                                          arrays.convex, j, x, y, c, s, sizes.marker_length / 2,
                                          sizes.marker_width / 2)
            assert mine == theirs, (j, x, y, h)
            hits += mine
    assert 0 < hits < 25 * len(polygons)
    # The lab's third marker from E1 spans x -240..-170: it meets sector P1l on its east edge.
    state = in_play(2)
    play(state, "extend E1 heading 0", "extend E1 heading 0", "extend E1 heading 0")
    pose = state.expeditions["E1"][-1]
    lab = playout.table_arrays(state.table)
    j = lab.sector_ids.index("P1l")
    assert playout.marker_touches(lab.verts, lab.rings, lab.polys, lab.convex, j, pose.x, pose.y,
                                  *lg.cos_sin(pose.heading), 35.0, 8.0)


def with_options(playouts, row: int, options: int):
    """`playouts` with decision `row` logged as chosen among `options` actions."""
    log = playouts.log.copy()
    log[row, 2] = options
    return dataclasses.replace(playouts, log=log)


def marker_moved(playouts):
    """`playouts` whose markers decode 30 mm east of where the kernel laid them."""
    def decode(code):
        action = playouts.decode(code)
        return dataclasses.replace(action, x=action.x + 30.0) if action.kind == "marker" else action

    return dataclasses.replace(playouts, decode=decode)


def test_a_planted_fault_is_caught(games4, monkeypatch):
    """A wrong score, a wrong count of options (a setup look), a continuous decision logged as
    finite (a setup base camp), a marker laid elsewhere: each fails the replay."""
    real = playout.random_playouts
    faults = {
        "score": lambda p: dataclasses.replace(p, scores=p.scores + 1),
        "options": lambda p: with_options(p, 10, p.log[10, 2] + 1),
        "continuous as finite": lambda p: with_options(p, 0, 1),
        "marker elsewhere": marker_moved,
    }
    for name, change in faults.items():
        monkeypatch.setattr(playout, "random_playouts",
                            lambda states, seed=0, change=change: change(real(states, seed)))
        with pytest.raises(HarnessFailure) as caught:
            check_playouts_from(GAME, games4[0][:3], seed=3)
        assert caught.value.property == "playout-replay", name


@pytest.mark.parametrize("players", [2, 3])
def test_compiled_games_follow_the_law_of_the_random_bot(players):
    """The mean game length agrees with the random bot's games through the interface from the
    same setups (within 3 standard errors); 4 players below."""
    assert playout_length_gap(GAME, players, games=20, seed=500 + players) < 3


def test_a_kernel_of_another_law_is_told_apart(monkeypatch):
    """The same law as the random bot: the mean game length agrees within 3 standard errors;
    a kernel that builds base camps a third as often (every choice still legal) does not."""
    assert playout_length_gap(GAME, 4, games=20, seed=200) < 3
    real = playout.table_arrays

    def fewer_camps(table):
        arrays = object.__new__(playout.TableArrays)
        arrays.__dict__.update(real(table).__dict__, fp=real(table).fp.copy())
        arrays.fp[playout.F_SHARE] = playout.CAMP_SHARE / 3
        return arrays

    monkeypatch.setattr(playout, "table_arrays", fewer_camps)
    check_playouts(GAME, 4, games=2, seed=200)
    assert playout_length_gap(GAME, 4, games=20, seed=200) > 3


def test_playouts_are_deterministic(games4):
    """The same seed gives the same games; another seed other games."""
    starts = games4[0][:4]
    first, again = GAME.random_playouts(starts, seed=5), GAME.random_playouts(starts, seed=5)
    other = GAME.random_playouts(starts, seed=6)
    assert np.array_equal(first.log, again.log) and np.array_equal(first.scores, again.scores)
    assert first.actions(1) == again.actions(1) and first.actions(1) != other.actions(1)


def test_bad_batches_are_refused():
    """One number of players a batch; a seed numba accepts."""
    with pytest.raises(ValueError, match="seed"):
        GAME.random_playouts([GAME.new_state(2, seed=0)], seed=2**32)
    with pytest.raises(ValueError, match="players"):
        GAME.random_playouts([GAME.new_state(2, seed=0), GAME.new_state(3, seed=0)])
    assert len(GAME.random_playouts([])) == 0


def test_ismcts_rolls_out_with_the_kernel(games4, monkeypatch):
    """ISMCTS rollouts to the end in Anasazi go to the compiled random player."""
    calls = []
    real = GAME.random_playouts
    monkeypatch.setattr(GAME, "random_playouts",
                        lambda states, seed=0: calls.append(1) or real(states, seed))
    state = games4[0][0].clone()
    while state.phase != "play":
        state.apply(state.legal_actions().sample(np.random.default_rng(0), 1)[0])
    action = ISMCTSBot(iterations=6).choose(state, state.current, np.random.default_rng(0))
    assert state.check(action).ok and len(calls) == 6


def test_numba_is_imported_only_for_playouts():
    """`import games.anasazi`, a new state and the CLI stay without numba."""
    code = ("import sys, geomsim.cli; from games.anasazi import GAME; GAME.new_state(2, seed=1); "
            "assert 'numba' not in sys.modules, 'numba imported'")
    subprocess.run([sys.executable, "-c", code], check=True)



def test_analyze_compiled_plays_anasazi_with_the_kernel(tmp_path, capsys):
    """`geomsim analyze anasazi --compiled` writes one row per seed, the kernel's game from that
    seed's setup (its scores and number of decisions), and a summary."""
    from geomsim import cli
    from geomsim.analysis import read_rows

    out = tmp_path / "random"
    assert cli.main(["analyze", "anasazi", "-p", "3", "--compiled", "-n", "3", "-w", "1",
                     "--no-plot", "-o", str(out)]) == 0, capsys.readouterr().err
    rows = read_rows(out / "games.jsonl")
    assert [r["seed"] for r in rows] == [0, 1, 2] and (out / "summary.md").exists()
    for row in rows:
        played = GAME.random_playouts([GAME.new_state(3, seed=row["seed"])], seed=row["seed"])
        assert row["scores"] == played.scores[0].tolist()
        assert row["length"] == played.decisions[0] and row["bots"] == ["random"] * 3


# -- what ISMCTS with compiled rollouts leans on: verdicts kept per board and per key ---------------
def fresh_board(state) -> Board:
    """The board of `state` made afresh from its pieces (nothing kept on it)."""
    return Board(state.table, tuple(state.camps),
                 {e: tuple(p) for e, p in state.expeditions.items() if p}, frozenset(state.fresh))


def test_verdicts_kept_on_a_board_go_with_the_board():
    """anasazi/4.2/new-camp and anasazi/4.1/directly-on-play-area: a marker and a base camp
    judged legal; one's own base camp built under the marker this turn, then a marker laid
    under the camp: each verdict is judged again on the new board (illegal), and judged twice
    on one board it is the exact one both times."""
    state = in_play(2)
    marker = GAME.parse_action("extend E1 heading 0").resolve(state)
    camp = BuildCamp(-300.0, 0.0)
    assert all(state.check(a).ok for a in (marker, camp, marker, camp))
    play(state, "camp -300.0,0.0", "pass")
    assert state.current == 0 and state.actions_left == 1
    for _ in range(2):
        assert [v.rule for v in state.check(marker).violations] == [
            v.rule for v in lg.marker_violations(fresh_board(state), 0, "E1", marker.pose)]
    assert lg.NEW_CAMP in {v.rule for v in state.check(marker).violations}
    other = in_play(2)
    assert other.check(camp).ok
    play(other, "extend E1 heading 0")
    assert other.current == 0 and other.actions_left == 1
    for _ in range(2):
        assert lg.CAMP_DIRECTLY in {v.rule for v in other.check(camp).violations}


def test_equal_legality_keys_judge_alike(moments):
    """`legality_key`: a determinization has its state's key and the same verdicts on base
    camps, markers, looks, takes and passes; a laid piece changes the key; an open decision
    has none."""
    rng = np.random.default_rng(2)
    keyed = [m for m in moments if m.legality_key(m.current) is not None]
    assert keyed and all(m.legality_key(m.current) is None for m in moments if m.pending)
    for state in keyed:
        player = state.current
        other = state.determinize(player, rng)
        assert other.legality_key(player) == state.legality_key(player)
        actions = state.arbitrary_actions(player, rng, 12) + state.legal_actions().sample(rng, 4)
        assert [other.check(a, player).ok for a in actions] == [
            state.check(a, player).ok for a in actions]
        after = state.clone()
        after.apply(state.legal_actions().sample(rng, 1)[0])
        if after.legality_key(player) is not None:
            assert after.legality_key(player) != state.legality_key(player)


class EveryVisitISMCTS(ISMCTSBot):
    """ISMCTS checking every edge of a node exactly at every visit (the straightforward path)."""

    @staticmethod
    def _legal_edges(node, state, player, edges, key):
        return [a for a in edges if state.check(a, player).ok]

    @staticmethod
    def _legal_edge_added(node, player, key, edges):
        pass


def root_statistics(bot, state, seed: int) -> list:
    """Each root action of `bot`'s search from `state` with its visits, total and availability."""
    root = bot.search(state, state.current, np.random.default_rng(seed))
    return [(a, e.visits, e.total, e.available) for a, e in root.edges[state.current].items()]


def test_ismcts_searches_as_without_its_shortcuts(games4, monkeypatch):
    """The verdicts kept per legality key and per board change no decision: on positions in
    play, ISMCTS (compiled rollouts, and rollouts cut in the interface) grows the very root
    statistics of the search that checks every edge exactly at every visit."""
    rng = np.random.default_rng(4)
    positions = []
    for start in games4[0][:3]:
        state = start.clone()
        while state.phase != "play" or len(state.history) < 24 or state.pending:
            state.apply(state.legal_actions().sample(rng, 1)[0])
        positions.append(state)
    bots = [ISMCTSBot(iterations=24), ISMCTSBot(iterations=24, rollout_depth=3)]
    fast = [root_statistics(b, s.clone(), i) for i, s in enumerate(positions) for b in bots]
    kept = ("marker violations", "camp violations", "laid")
    real = Board.memo
    monkeypatch.setattr(Board, "memo", lambda self, key, make: make()
                        if isinstance(key, tuple) and key[0] in kept else real(self, key, make))
    # A marker's verdict is kept in the board's memo directly (`judged_marker`): judged anew.
    monkeypatch.setattr(lg, "judged_marker", lambda board, player, expedition, x, y, heading,
                        pose: tuple(lg._marker_violations(board, player, expedition, x, y,
                                                          heading, pose)))
    slow = [root_statistics(EveryVisitISMCTS(iterations=b.iterations,
                                             rollout_depth=b.rollout_depth), s.clone(), i)
            for i, s in enumerate(positions) for b in bots]
    assert fast == slow
    assert all(len(stats) >= 3 for stats in fast)


def test_the_log_and_the_coordinates_grow_keeping_their_rows():
    """`grown` copies the kept rows into arrays twice as long (element by element since it
    stopped using numba's slice assignment), and leaves arrays with room as they are."""
    log = np.arange(12, dtype=np.int64).reshape(4, 3)
    coords = np.arange(6, dtype=np.float64).reshape(2, 3) / 4
    bigger, more = playout.grown(log, coords, 4, 2)
    assert bigger.shape == (8, 3) and more.shape == (4, 3)
    assert (bigger[:4] == log).all() and (bigger[4:] == 0).all()
    assert (more[:2] == coords).all() and (more[2:] == 0).all()
    same_log, same_coords = playout.grown(log, coords, 3, 1)
    assert same_log is log and same_coords is coords

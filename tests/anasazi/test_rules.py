"""Every rule of Anasazi, one test each (named after the rule, citing its id), on the lab table
of conftest.py where every coordinate is known."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from geomsim.reading import DataError
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi.actions import ExtendMarker, LookTower, Pass, PlaceMarker, TakeTreasure, extend
from games.anasazi.components import Setup, Sizes
from geomsim.geometry import Pose
from geomsim.rules import IllegalAction

from .conftest import in_play, lab_state, play

R = 400.0  # the lab's play area radius


def rules_of(state, text, player=None):
    """The ids of the rules the action written as `text` breaks."""
    return state.check(GAME.parse_action(text), player).rules


def violation(state, text, rule, player=None):
    """The violation of `rule` by the action `text` (fails if the action does not break it)."""
    verdict = state.check(GAME.parse_action(text), player)
    found = [v for v in verdict.violations if v.rule == rule]
    assert found, f"{text} should break {rule}: {verdict}"
    return found[0]


def batched_ok(state, action, player=None):
    """The batched checker's verdict on a marker action (for agreement with `check`)."""
    player = state.current if player is None else player
    ctx = lg.marker_context(state.board(), player, action.expedition)
    return bool(lg.check_markers(ctx, [action.x], [action.y], [action.heading]).ok[0])


def walk(state, expedition, heading, n=1):
    """Lay `n` markers on `expedition` one after another, each the longest step `heading`."""
    return [e for _ in range(n) for e in play(state, str(extend(state, expedition, heading)))]


def shifted(action, dx=0.0, dy=0.0):
    return PlaceMarker(action.expedition, action.x + dx, action.y + dy, action.heading)


# -- 3.0 setup -------------------------------------------------------------------------------
def test_setup_camps():
    """`anasazi/3.0/setup-camps`: two base camps each, in turn order from the first player,
    before anything else; the base camp rules of 4.1 hold."""
    state = lab_state(3, first_player=1)
    order = []
    assert rules_of(state, "marker E1 at -319.0,0.0 heading 0.0") == ("anasazi/3.0/setup-camps",)
    assert "anasazi/4.1/valley" in rules_of(state, "camp -150.0,0.0")
    for i in range(6):
        order.append(state.current)
        play(state, f"camp {-60.0 + 20 * i},150.0")
    assert order == [1, 2, 0, 1, 2, 0]
    assert state.phase == "looks" and state.current == 1
    assert all(sum(c.owner == p for c in state.camps) == 2 for p in range(3))


def test_setup_looks():
    """`anasazi/3.0/setup-looks`: each player in turn looks at three different towers."""
    state = lab_state(2, first_player=1)
    play(state, "camp 0.0,150.0", "camp 20.0,150.0", "camp 40.0,150.0", "camp 60.0,150.0")
    assert rules_of(state, "pass") == ("anasazi/3.0/setup-looks",)
    assert rules_of(state, "camp 80.0,150.0") == ("anasazi/3.0/setup-looks",)
    assert rules_of(state, "look P1l") == ("anasazi/3.0/setup-looks",)  # a treasure, no tower
    play(state, "look P1s")
    assert rules_of(state, "look P1s") == ("anasazi/3.0/setup-looks",)
    assert len(state.legal_actions()) == 15
    play(state, "look P3s", "look F0s")
    assert state.current == 0 and state.seen[1] == {"P1s", "P3s", "F0s"}
    play(state, "look P1s", "look P4s", "look F1s")
    assert state.phase == "play" and state.current == 1 and state.actions_left == 2


def test_secret_objective():
    """`anasazi/3.0/secret-objective`: a player sees their own objective card only; a
    determinization deals the others from the cards left."""
    state = in_play(3, objectives=("red", "red", "blue"))
    seen = state.observe(0)["objectives"]
    assert seen == ["red", None, None]
    dealt = set()
    for seed in range(30):
        other = state.determinize(0, np.random.default_rng(seed))
        assert other.objectives[0] == "red" and other.observe(0) == state.observe(0)
        assert other.objectives.count("red") <= 2  # one red card is left for the others
        dealt.add(other.objectives[1:])
    assert len(dealt) > 3


def test_secret_towers():
    """`anasazi/3.0/secret-towers`: tower colours are known only to those who looked; a
    determinization reshuffles only the towers the player has not seen."""
    state = in_play(2)  # both looked at F0s, F1s, F2s in setup
    play(state, "camp 100.0,100.0", "look P1s")
    view = state.observe(0)["contents"]
    assert view["P1s"] == "white tower" and view["P3s"] == "tower" and view["P1l"] == "red treasure"
    assert state.observe(1)["contents"]["P1s"] == "tower"
    assert state.observe(1)["looked"][0] == ["F0s", "F1s", "F2s", "P1s"]  # who looked is public
    moved = set()
    for seed in range(20):
        other = state.determinize(0, np.random.default_rng(seed))
        assert all(other.towers[s] == state.towers[s] for s in state.seen[0])
        assert sorted(other.towers.values()) == sorted(state.towers.values())
        assert other.observe(0) == state.observe(0)
        moved |= {s for s in other.towers if other.towers[s] != state.towers[s]}
    assert moved and not moved & state.seen[0]


def test_secret_towers_in_every_player_view():
    """`anasazi/3.0/secret-towers` and `anasazi/3.0/secret-objective` beside observe: the table
    view a player may call (`view(p)`, what `draw(player=p)` shows) carries only the tower colours
    that player has seen, and every player view (`player_views`: view, scores, evaluate, ...) is
    the same in every determinization for that player; `revealed_view()` is the whole truth."""
    state = in_play(2)
    play(state, "camp 100.0,100.0", "look P1s")
    for p in (0, 1):
        contents = state.view(p).contents
        hidden = {s for s, (kind, colour) in contents.items() if kind == "tower" and colour is None}
        assert hidden == set(state.towers_on_table()) - state.seen[p]
        assert all(contents[s] == ("tower", state.towers[s]) for s in state.seen[p])
    assert state.view(1).contents["P1s"] == ("tower", None) == state.view().contents["P1s"]
    assert state.revealed_view().contents["P1s"] == ("tower", "white")
    views = json.dumps(state.player_views(1), sort_keys=True, default=str)
    for seed in range(10):
        other = state.determinize(1, np.random.default_rng(seed))
        assert json.dumps(other.player_views(1), sort_keys=True, default=str) == views


# -- 4.0 turns ------------------------------------------------------------------------------
def test_turn(lab):
    """`anasazi/4.0/turn`: two actions a turn, any mix, then the next player clockwise; the
    decisions an action opens come first; a look, a take or a pass is no action of its own."""
    assert rules_of(lab, "look P1s") == ("anasazi/4.0/turn",)
    assert rules_of(lab, "pass") == ("anasazi/4.0/turn",)
    assert rules_of(lab, "take red from 1") == ("anasazi/4.0/turn",)
    play(lab, "camp 100.0,100.0")
    assert lab.pending == ["look"]
    assert rules_of(lab, str(extend(lab, "E1", 0))) == ("anasazi/4.0/turn",)
    assert rules_of(lab, "take red from 1") == ("anasazi/4.0/turn",)
    play(lab, "pass", str(extend(lab, "E1", 0)))
    assert lab.to_move() == (1,) and lab.actions_left == 2
    play(lab, str(extend(lab, "E1", 0)), str(extend(lab, "E3", 270.0)))
    assert lab.to_move() == (0,)


# -- 4.1 base camps -------------------------------------------------------------------------
def test_camps_left(lab):
    """`anasazi/4.1/camps-left`: each player has 7 base camps (2 built at setup)."""
    for i in range(5):
        assert lab.current == 0
        play(lab, f"camp {-60.0 + 20 * i},120.0", "pass")
        if lab.current == 1:
            play(lab, f"camp {-60.0 + 20 * i},100.0", "pass", f"camp {-60.0 + 20 * i},80.0", "pass")
    assert lab.camps_left(0) == 0
    assert rules_of(lab, "camp 100.0,100.0") == ("anasazi/4.1/camps-left",)
    assert all(isinstance(a, PlaceMarker) for a in lab.legal_actions().sample(np.random.default_rng(1), 8))


def test_valley(lab):
    """`anasazi/4.1/valley`: a base camp touches no mesa; tangent to one is still in the valley
    (M1's top edge is y = 50, a base camp's radius 8)."""
    v = violation(lab, "camp -150.0,57.9", "anasazi/4.1/valley")
    assert v.details["mesa"] == "M1" and v.details["depth_mm"] == pytest.approx(0.1)
    assert rules_of(lab, "camp -150.0,58.0") == ()
    assert violation(lab, "camp -150.0,0.0", "anasazi/4.1/valley").details["depth_mm"] == 8.0


def test_camp_play_area(lab):
    """`anasazi/4.1/play-area`: a base camp lies entirely on the play area (tangent is on it)."""
    assert rules_of(lab, "camp 0.0,-392.0") == ()
    v = violation(lab, "camp 0.0,-392.5", "anasazi/4.1/play-area")
    assert v.details["overhang_mm"] == pytest.approx(0.5)


def test_not_on_camp(lab):
    """`anasazi/4.1/not-on-camp`: not on another base camp, own ones included."""
    v = violation(lab, "camp 15.9,200.0", "anasazi/4.1/not-on-camp")
    assert v.details["owner"] == 0 and v.details["depth_mm"] == pytest.approx(0.1)
    assert violation(lab, "camp 0.0,-190.0", "anasazi/4.1/not-on-camp").details["owner"] == 1
    assert rules_of(lab, "camp 16.0,200.0") == ()


def test_directly_on_play_area(lab):
    """`anasazi/4.1/directly-on-play-area`: a base camp lies on no marker and no expedition
    base camp tile."""
    play(lab, str(extend(lab, "E1", 0)))  # spans x -354..-284, y -8..8
    v = violation(lab, "camp -320.0,15.9", "anasazi/4.1/directly-on-play-area")
    assert v.details["expedition"] == "E1" and v.details["depth_mm"] == pytest.approx(0.1)
    assert rules_of(lab, "camp -320.0,16.0") == ()
    v = violation(lab, "camp -335.0,25.0", "anasazi/4.1/directly-on-play-area")
    assert v.details["expedition_camp"] == "E1"


def test_camp_look(lab):
    """`anasazi/4.3/camp-look`: after building a base camp, look at any tower (or pass)."""
    play(lab, "camp 100.0,100.0")
    space = lab.legal_actions()
    assert set(space) == {LookTower(s) for s in lab.towers_on_table()} | {Pass()}
    assert rules_of(lab, "look P1l") == ("anasazi/4.3/camp-look",)
    play(lab, "look P3s")
    assert "P3s" in lab.seen[0] and "P3s" not in lab.seen[1] and not lab.pending
    assert lab.observe(0)["contents"]["P3s"] == "red tower"


# -- 4.2 expeditions ------------------------------------------------------------------------
def test_expedition_camp(lab):
    """`anasazi/4.2/expedition-camp`: a marker continues an expedition named by its expedition
    base camp, or starts one there."""
    assert rules_of(lab, "marker E9 at 0.0,0.0 heading 0.0") == ("anasazi/4.2/expedition-camp",)
    play(lab, str(extend(lab, "E1", 0)))
    assert lab.check(extend(lab, "E3", 270.0)).ok  # a second expedition starts


def test_cover_explorer(lab):
    """`anasazi/4.2/cover-explorer`: the new marker fully covers the last explorer (the start
    mark for the first); tangent inside counts, 0.5 mm short does not."""
    first = extend(lab, "E1", 0)  # the start mark (-350, 0) just inside the marker's tail
    assert first == PlaceMarker("E1", -319.0, 0.0, 0.0)
    assert lab.check(first).ok and batched_ok(lab, first)
    short = shifted(first, dx=0.5)
    v = violation(lab, str(short), "anasazi/4.2/cover-explorer")
    assert v.details["uncovered_mm"] == pytest.approx(0.5) and not batched_ok(lab, short)
    sideways = shifted(first, dy=4.5)  # the start mark 4.5 off the axis: 0.5 mm over the side
    assert violation(lab, str(sideways), "anasazi/4.2/cover-explorer").details[
        "uncovered_mm"] == pytest.approx(0.5)
    play(lab, str(first))
    walk(lab, "E1", 0.0)  # explorers at x = -293, then -236
    stale = PlaceMarker("E1", -300.0, 0.0, 0.0)  # covers the first explorer, not the last
    v = violation(lab, str(stale), "anasazi/4.2/cover-explorer", player=1)
    assert v.details["explorer"] == [-236.0, 0.0]
    assert lab.check(extend(lab, "E1", 0), 1).ok


def test_one_expedition_per_camp(lab):
    """`anasazi/4.2/one-expedition-per-camp`: once E1 has an expedition, a marker on its start
    mark does not start another one."""
    play(lab, str(extend(lab, "E1", 0)))
    again = PlaceMarker.at("E1", lg.pose_covering((-350.0, 0.0), 90.0, lab.sizes))
    rules = rules_of(lab, str(again))
    assert "anasazi/4.2/one-expedition-per-camp" in rules and "anasazi/4.2/cover-explorer" in rules


def test_marker_play_area(lab):
    """`anasazi/4.2/play-area`: no marker hangs over the edge of the play area."""
    out = extend(lab, "E3", 90.0)  # from (0, 350) northwards: reaches y = 416
    v = violation(lab, str(out), "anasazi/4.2/play-area")
    assert v.details["overhang_mm"] == pytest.approx(math.hypot(8.0, 416.0) - R)
    assert not batched_ok(lab, out)
    inward = extend(lab, "E3", 270.0)
    assert lab.check(inward).ok and batched_ok(lab, inward)


def test_other_camp():
    """`anasazi/4.2/other-camp`: no marker covers another player's base camp, even 0.1 mm of
    it; a marker tangent to it covers nothing; over one's own base camps is allowed."""
    state = in_play(camps={1: [(-320.0, 15.9), (40.0, -200.0)]})
    first = extend(state, "E1", 0)  # y -8..8: 0.1 mm into player 1's camp
    v = violation(state, str(first), "anasazi/4.2/other-camp")
    assert v.details["owner"] == 1 and v.details["depth_mm"] == pytest.approx(0.1)
    assert 0 < v.details["area_mm2"] < 0.5
    assert not batched_ok(state, first)
    assert lg.marker_violations(state.board(), 1, "E1", first.pose) == []  # own camp: fine
    tangent = in_play(camps={1: [(-320.0, 16.0), (40.0, -200.0)]})
    assert tangent.check(first).ok and batched_ok(tangent, first)


def test_new_camp():
    """`anasazi/4.2/new-camp`: no marker on a base camp built this turn; next turn it may."""
    state = in_play()
    play(state, "camp -320.0,12.0", "pass")
    first = extend(state, "E1", 0)
    v = violation(state, str(first), "anasazi/4.2/new-camp")
    assert v.details["owner"] == 0 and v.details["depth_mm"] == pytest.approx(4.0)
    assert not batched_ok(state, first)
    play(state, "camp 100.0,100.0", "pass", "camp 120.0,100.0", "pass", "camp 140.0,100.0", "pass")
    assert state.current == 0 and state.check(first).ok and batched_ok(state, first)


def test_explorer_visible(lab):
    """`anasazi/4.2/explorer-visible`: no marker hides the explorer at the end of another
    expedition; crossing expeditions is allowed, covering explorers that are no longer ends
    too."""
    play(lab, str(extend(lab, "E1", 90.0)))  # E1's end explorer at (-350, 57)
    down = extend(lab, "E4", 270.0)  # from (-350, 80) southwards: lies over (-350, 57)
    v = violation(lab, str(down), "anasazi/4.2/explorer-visible")
    assert v.details["expedition"] == "E1" and v.details["explorer"] == [-350.0, 57.0]
    assert v.details["depth_mm"] == pytest.approx(4.0) and not batched_ok(lab, down)
    assert lab.check(extend(lab, "E4", 0.0)).ok  # eastwards it passes 15 mm above


def test_crossing_expeditions(lab):
    """`anasazi/4.2/explorer-visible`: expeditions may cross (each keeps its own visible end);
    a marker may lie over an explorer that is no longer an end, not over one that is."""
    play(lab, str(extend(lab, "E1", 0)))  # E1 ends at (-293, 0)
    play(lab, str(extend(lab, "E4", 300.0)))
    cross = extend(lab, "E4", 300.0)  # crosses E1's marker near (-306, 4)
    assert shapely.intersects(lg.marker_polygon(cross.pose, lab.sizes),
                              lg.marker_polygon(lab.expeditions["E1"][0], lab.sizes))
    v = violation(lab, str(cross), "anasazi/4.2/explorer-visible")
    assert v.details["expedition"] == "E1"
    play(lab, str(extend(lab, "E1", 0)))  # E1 now ends at (-236, 0): (-293, 0) is no end
    assert lab.check(cross).ok and batched_ok(lab, cross)
    play(lab, str(cross))
    assert lab.check(extend(lab, "E1", 0)).ok  # both ends visible, both go on


def test_touch_pueblo(lab):
    """`anasazi/4.2/touch-pueblo`: a marker touching a pueblo's border takes its treasure; a
    tower goes to the first empty space of its colour's track. The third marker from E1 ends
    exactly on P1l's east edge: touching counts."""
    for _ in range(2):
        play(lab, str(extend(lab, "E1", 0)))
    third = extend(lab, "E1", 0)
    assert lg.marker_polygon(third.pose, lab.sizes).bounds[2] == -170.0 == shapely.bounds(
        lab.table.sector("P1l").polygon)[2]
    events = play(lab, str(third))
    assert [e.data for e in events if e.kind == "treasure-found"] == [{"sector": "P1l", "colour": "red"}]
    assert lab.hands[1]["red"] == 1 and "P1l" not in lab.contents and "P1s" in lab.contents
    play(lab, "pass")
    events = play(lab, str(extend(lab, "E1", 180.0)))  # back over P1's place: nothing left
    assert not [e for e in events if e.kind == "treasure-found"]


def test_divided_pueblo(lab):
    """`anasazi/4.2/divided-pueblo`: the two sectors of a divided pueblo are separate spaces: a
    marker touching only the large one takes the treasure and leaves the tower; shifted 2 mm
    its edge touches the small one too (y = 10) and the tower goes to the track."""
    for _ in range(2):
        play(lab, str(extend(lab, "E1", 0)))
    both = lab.clone()
    events = play(lab, str(extend(lab, "E1", 0)))
    assert {e.data["sector"] for e in events if "sector" in e.data} == {"P1l"}
    events = play(both, str(extend(both, "E1", 0, across=-2.0)))
    moved = [e.data for e in events if e.kind == "tower-moved"]
    assert moved == [{"sector": "P1s", "colour": "white", "space": 1}]
    assert both.track["white"] == 1 and both.hands[1]["red"] == 1


def test_no_trial(lab):
    """`anasazi/4.2/no-trial`: a placement is final and takes what it touches at once; judging
    a placement (`check`) places nothing."""
    for _ in range(2):
        play(lab, str(extend(lab, "E1", 0)))
    before = lab.to_json()
    third = extend(lab, "E1", 0)
    assert lab.check(third).ok and lab.to_json() == before
    events = lab.apply(third)
    assert [e.kind for e in events][:2] == ["marker-laid", "treasure-found"]
    assert lab.expeditions["E1"][-1] == third.pose
    assert not any(t.kind in ("remove", "move") for t in GAME.action_types)


def test_own_camp_treasure():
    """`anasazi/4.2/own-camp-treasure`: covering one's own base camp the first time lets one
    take a treasure of one's choice from another player; not again for that camp."""
    state = in_play(camps={0: [(-320.0, 12.0), (40.0, 200.0)]})
    walk(state, "E3", 270.0, 2)  # player 0 takes P7: white
    assert state.hands[0]["white"] == 1
    play(state, "camp 100.0,100.0", "pass", "camp 120.0,100.0", "pass")  # player 1
    play(state, str(extend(state, "E1", 0)))  # covers player 0's camp at (-320, 12)
    # Player 0 holds the only treasure: nobody to take from, the decision is skipped.
    assert not state.pending and state.covered[0]
    state = in_play(first_player=1, camps={0: [(-320.0, 12.0), (40.0, 200.0)]})
    walk(state, "E3", 270.0, 2)  # player 1 takes P7
    play(state, str(extend(state, "E1", 0)))
    assert state.pending == ["take"]
    assert set(state.legal_actions()) == {TakeTreasure("white", 1), Pass()}
    assert rules_of(state, "take red from 1") == ("anasazi/4.2/own-camp-treasure",)
    assert rules_of(state, "take white from 0") == ("anasazi/4.2/own-camp-treasure",)
    assert rules_of(state, "take white from 5") == ("anasazi/4.2/own-camp-treasure",)
    play(state, "take white from 1")
    assert state.hands == [{"red": 0, "blue": 0, "white": 1, "yellow": 0},
                           {"red": 0, "blue": 0, "white": 0, "yellow": 0}]
    back = extend(state, "E1", 180.0)  # over the same camp again: no second take
    own = next(i for i, c in enumerate(state.camps) if (c.x, c.y) == (-320.0, 12.0))
    assert lg.covered_camps(state.board(), back.pose) == [own] and state.covered[own]
    play(state, str(back))
    assert not state.pending and state.current == 1


def test_end_on_camp():
    """`anasazi/4.2/end-on-camp`: when an expedition's end sits on a base camp, any player may
    lay the next marker of it over that camp; not over another of that player's camps."""
    state = in_play(camps={0: [(-320.0, 12.0), (-236.0, 14.0)]})
    play(state, str(extend(state, "E1", 0)), "camp 100.0,100.0", "pass")  # E1's end on (-320, 12)
    assert lg.end_camps(state.board(), "E1") == {0}
    back = extend(state, "E1", 180.0)  # over player 0's camp at (-320, 12) again
    assert state.check(back, 1).ok and batched_ok(state, back, 1)
    on = extend(state, "E1", 0)  # over player 0's camp at (-236, 14), not under E1's end
    v = violation(state, str(on), "anasazi/4.2/other-camp", player=1)
    assert v.details["camp"] == 2 and v.details["owner"] == 0
    board = state.board()  # without the exemption the first marker would be illegal
    assert lg.covered_camps(board, back.pose) == [0]


# -- 4.3 looking at towers ------------------------------------------------------------------
def test_mesa_look(lab):
    """`anasazi/4.3/mesa-look`: the first marker laid on a mesa lets one look at a tower on
    that mesa; later markers on it do not."""
    for _ in range(2):
        play(lab, str(extend(lab, "E1", 0)))
    play(lab, str(extend(lab, "E1", 0)))  # enters M1 first
    assert lab.pending == ["look:M1"]
    assert set(lab.legal_actions()) == {LookTower("P1s"), Pass()}
    v = violation(lab, "look P3s", "anasazi/4.3/mesa-look")
    assert v.details["mesa"] == "M1"
    play(lab, "look P1s")
    assert lab.seen[1] >= {"P1s"} and lab.current == 1 and not lab.pending
    play(lab, str(extend(lab, "E1", 180.0)))  # back onto M1: not the first marker there
    assert not lab.pending


# -- 5.0 end and 5.1 scoring ----------------------------------------------------------------
def test_end_markers():
    """`anasazi/5.0/end-markers`: the game ends at once when the last marker is laid."""
    state = in_play(sizes=Sizes(markers=3))
    walk(state, "E1", 0.0, 2)
    assert state.markers_left() == 1 and not state.is_over()
    events = play(state, str(extend(state, "E1", 0)))  # takes P1l, enters M1: no look now
    assert state.is_over() and state.ended == "markers" and not state.pending
    assert events[-1].kind == "game-over" and state.legal_actions(1).is_empty()
    assert state.winners() == [1]


def test_end_towers(lab):
    """`anasazi/5.0/end-towers`: the game ends at once when the fourth tower of a colour
    reaches the score tile, even in the middle of a turn."""
    events = play(lab, str(extend(lab, "E2", 180.0)))  # touches P3..P6: four red towers
    spaces = [e.data["space"] for e in events if e.kind == "tower-moved"]
    assert spaces == [1, 2, 3, 4] and lab.track["red"] == 4
    assert lab.is_over() and lab.ended == "towers:red" and lab.actions_left == 1


def test_bonus(lab):
    """`anasazi/5.1/bonus`: at the end each bonus treasure goes to the player with strictly
    the most treasures of its colour; on a tie nobody takes it."""
    play(lab, str(extend(lab, "E2", 180.0)))  # player 0 takes the four yellow treasures
    assert lab.bonus == {"red": None, "blue": None, "white": None, "yellow": 0}
    assert lab.holdings()[0]["yellow"] == 5 and lab.view().bonus == ("red", "blue", "white")
    lab.hands = [{"red": 2, "blue": 1, "white": 0, "yellow": 0}, {"red": 1, "blue": 1, "white": 0, "yellow": 0}]
    assert lab.bonus_winners() == {"red": 0, "blue": None, "white": None, "yellow": None}


def test_treasure_value(lab):
    """`anasazi/5.1/treasure-value`: a treasure is worth the empty spaces of its colour's
    track: the rulebook's example, 3 white towers placed leave white treasures worth 2."""
    lab.track["white"] = 3
    assert lab.treasure_values() == {"red": 5, "blue": 5, "white": 2, "yellow": 5}
    lab.hands[1]["white"] = 1  # player 1's objective is blue
    assert lab.scores() == [0.0, 2.0]


def test_objective_double():
    """`anasazi/5.1/objective-double`: treasures matching one's objective card count double:
    the rulebook's example, a white treasure worth 2 is worth 4 with the white objective. During
    play the cards are secret, so `scores()` doubles nothing (it would tell every player the
    others' cards); `evaluate(p)` doubles p's own card, `revealed_scores()` every card; the
    final scores double them all."""
    state = in_play(objectives=("white", "blue"), sizes=Sizes(markers=1))
    state.track["white"] = 3
    state.hands[0]["white"] = state.hands[1]["white"] = 1
    assert state.scores() == [2.0, 2.0]
    assert [state.evaluate(p) for p in (0, 1)] == [4.0, 2.0]
    assert state.revealed_scores() == [4.0, 2.0]
    walk(state, "E3", 270.0)  # the last marker ends the game
    state.bonus = {c: None for c in state.bonus}  # the bonus is test_bonus's business
    assert state.is_over() and state.scores() == [4.0, 2.0]


def test_objectives_dealt_after_setup_camps():
    """`anasazi/3.0/secret-objective` after `anasazi/3.0/setup-camps`: the objective cards are
    dealt only once each player has placed two setup base camps, so nobody knows their card
    while placing them (observe shows none, a determinization deals every card anew, evaluate
    doubles nothing); the last setup camp deals them."""
    state = GAME.new_state(2, seed=7)
    assert state.observe(0)["objectives"] == [None, None] and not state.objectives_dealt()
    drawn = {state.determinize(0, np.random.default_rng(s)).objectives[0] for s in range(20)}
    assert len(drawn) > 1
    rng = np.random.default_rng(1)
    while state.phase == "camps":
        assert state.observe(state.current)["objectives"] == [None, None]
        events = state.apply(state.legal_actions().sample(rng, 1)[0])
    assert events[-1].kind == "objectives-dealt" and state.objectives_dealt()
    assert state.observe(0)["objectives"] == [state.objectives[0], None]
    assert {state.determinize(0, np.random.default_rng(s)).objectives[0]
            for s in range(20)} == {state.objectives[0]}


def test_winner():
    """`anasazi/5.1/winner`: most points wins; on a tie, the most treasures among the tied."""
    state = in_play(3, objectives=("red", "blue", "white"), sizes=Sizes(markers=1))
    walk(state, "E3", 270.0)  # the last marker ends the game
    state.bonus = {c: None for c in state.bonus}  # the bonus is test_bonus's business
    state.hands[0].update(red=1)  # 10 points from one treasure (red objective)
    state.hands[1].update(red=2)  # 10 points from two
    state.hands[2].update(white=1)  # 10 points from one (white objective)
    assert state.scores() == [10.0, 10.0, 10.0] and state.winners() == [1]
    state.hands[0]["yellow"] += 1  # now 0 leads on points
    assert state.winners() == [0]
    state.hands[2]["yellow"] += 1  # 0 and 2 tie on points and treasures: both win
    assert state.winners() == [0, 2]


# -- actions, helpers, JSON -----------------------------------------------------------------
def test_action_text_round_trip():
    for text in ("camp 120.5,-33.0", "marker E3 at 10.0,250.0 heading 90.0", "look P7s",
                 "take red from 2", "pass", "extend E3 heading 90.0", "extend E3 heading 9.5 "
                 "along 12.5 across -2.0", "extend E3 heading 90.0 across 2.0"):
        action = GAME.parse_action(text)
        assert str(action) == text and GAME.action_from_json(action.to_json()) == action
    assert GAME.parse_action("marker E3 at 10,250 heading 90") == PlaceMarker("E3", 10.0, 250.0, 90.0)
    assert str(GAME.parse_action("camp -0.0,1e-3")) == "camp 0.0,0.001"
    assert GAME.parse_action("extend E3 heading 90 along 0") == ExtendMarker("E3", 90.0)


@pytest.mark.parametrize("text, words", [
    ("fly away", "unknown verb .fly.; expected one of: camp X,Y"), ("camp 1", "camp X,Y"), ("camp x,1", "camp x"),
    ("camp nan,1", "camp x must be a number from -1e.06 to 1e.06, not nan"), ("camp 1e308,1", "not 1e.308"), ("marker E1 at 1,2", "heading"), ("take gold from 1", "colour"),
    ("take red from me", "player"), ("look", "look SECTOR"),
    ("extend E1", "extend E1 heading DEGREES"), ("extend E1 heading 1 along inf", "extend along"),
    ("extend E1 heading 1 across 2 along 1", "extend E1 heading DEGREES .along MM. .across MM."),
])
def test_parse_errors_name_the_field(text, words):
    with pytest.raises(ValueError, match=words):
        GAME.parse_action(text)


def test_pose_covering_and_extend(lab):
    pose = lg.pose_covering((10.0, 20.0), 90.0, lab.sizes, along=5.0, across=1.0)
    rect = lg.marker_polygon(pose, lab.sizes)
    depth = shapely.distance(rect.exterior, shapely.Point(10.0, 20.0))
    # 1 mm off the axis (7 from a long side), 5 mm ahead of the tail position (9 from the end)
    assert shapely.covers(rect, shapely.Point(10, 20)) and depth == pytest.approx(7.0)
    for bad in (dict(along=-1.0), dict(along=63.0), dict(across=4.5)):
        with pytest.raises(ValueError):
            lg.pose_covering((0.0, 0.0), 0.0, lab.sizes, **bad)
    step = extend(lab, "E1", 0, along=10.0)
    assert step.x == -350.0 + 31.0 - 10.0 and lab.check(step).ok


_STARTED = in_play()
play(_STARTED, str(extend(_STARTED, "E1", 30.0)), "camp -200.0,100.0", "pass")


@settings(max_examples=60, deadline=None)
@given(expedition=st.sampled_from(["E1", "E2", "E4"]), heading=st.floats(0.0, 360.0),
       along=st.floats(-3.0, 66.0), across=st.floats(-5.0, 5.0))
def test_relative_marker_is_judged_and_laid_as_its_pose(expedition, heading, along, across):
    """``extend E1 heading H along A across C`` is judged with the very violations of the
    absolute marker that `extend` makes from the table as it lies (offsets out of range
    included), and lays that marker; its text and JSON round trip."""
    state = _STARTED.clone()  # player 1 to move; E1 started (explorer end), E2 and E4 not
    relative = ExtendMarker(expedition, heading, along, across)
    absolute = relative.resolve(state)
    assert absolute == extend(state, expedition, heading, along, across, strict=False)
    assert state.check(relative).violations == state.check(absolute).violations
    assert GAME.parse_action(str(relative)) == relative == GAME.action_from_json(relative.to_json())
    if state.check(relative).ok:
        other = state.clone()
        events = state.apply(relative)
        assert events[0].data["pose"] == [absolute.x, absolute.y, absolute.heading]
        assert other.apply(absolute) == events and other.expeditions == state.expeditions
        assert state.history[-1][1] == relative  # the history keeps the action as written


def test_relative_marker_unknown_expedition_or_offsets_out_of_range(lab):
    assert rules_of(lab, "extend E9 heading 0") == ("anasazi/4.2/expedition-camp",)
    assert rules_of(lab, "extend E1 heading 180 along 70") == ("anasazi/4.2/cover-explorer",)
    assert rules_of(lab, "extend E1 heading 180 along 62 across 4.5") == ("anasazi/4.2/cover-explorer",)


def test_illegal_apply_leaves_state_unchanged(lab):
    before = lab.to_json()
    with pytest.raises(IllegalAction) as err:
        lab.apply(PlaceMarker("E1", 0.0, 0.0, 0.0))
    assert err.value.rule == "anasazi/4.2/cover-explorer" and lab.to_json() == before


def test_json_round_trip_and_view(lab):
    play(lab, str(extend(lab, "E1", 0)), "camp 100.0,100.0", "look P3s")
    text = lab.to_json()
    again = GAME.state_from_json(text)
    assert again.to_json() == text and again.observe(0) == lab.observe(0)
    assert again.history[-1][1] == LookTower("P3s")
    # the history as the engine writes it, and read back entry by entry
    assert f'"history": {lab.history_json()}, ' in text
    assert json.loads(text)["history"][-1] == {"player": 0, "action": LookTower("P3s").to_json(),
                                               "events": [e.to_json() for e in lab.history[-1][2]]}
    assert again.history_json() == lab.history_json() and again.history == lab.history
    view = lab.view(0)
    assert view.expeditions["E1"] == [Pose(-319.0, 0.0, 0.0)] and view.known_towers["P3s"] == "red"
    assert lab.view().known_towers == {} and len(view.base_camps) == 5
    with pytest.raises(DataError, match="^state: expected `object`, got `int`$"):
        GAME.state_from_json('{"state": 1}')


def test_turn_of_continues_or_starts_a_turn():
    """`turn_of(p)`: p's turn goes on with open decisions declined, or a new turn of p starts
    (two actions, no camp of this turn); the state itself is left as it was."""
    state = in_play()
    play(state, "camp -320.0,12.0")  # a look is open; the camp is fresh this turn
    before = state.to_json()
    mine = state.turn_of(0)
    assert state.to_json() == before and state.pending == ["look"]
    assert (mine.current, mine.actions_left, mine.pending, mine.fresh) == (0, 1, [], [4])
    assert mine.history[-1][1] == Pass()
    first = extend(state, "E1", 0)  # it covers the fresh camp: illegal in this turn only
    assert mine.check(first).rules == ("anasazi/4.2/new-camp",)
    theirs = state.turn_of(1)
    assert (theirs.current, theirs.actions_left, theirs.pending, theirs.fresh) == (1, 2, [], [])
    assert len(theirs.history) == len(state.history) and len(theirs.camps) == len(state.camps)
    later = mine.turn_of(1).turn_of(0)  # a later turn of player 0: the camp is no longer fresh
    assert later.actions_left == 2 and later.check(first).ok
    setup = lab_state()
    assert setup.turn_of(1).to_move() == (1,) and setup.turn_of(1).phase == "play"
    with pytest.raises(ValueError, match="unknown player"):
        state.turn_of(2)


def test_sampled_actions_are_legal(lab):
    rng = np.random.default_rng(3)
    for _ in range(5):
        actions = lab.legal_actions().sample(rng, 6)
        assert actions and all(lab.check(a).ok for a in actions)
        lab.apply(actions[0])
        while lab.pending:
            lab.apply(Pass())


def test_setup_table_checked_alike_as_json_and_setup():
    """`anasazi/3.0/table`: a given setup breaking the table's setup rules (no inner mesa, five
    expedition base camps) is refused as its JSON dict and as a `Setup` object, with the same
    message; only an explicit `check_setup=False` (laboratory tables) takes it."""
    data = GAME.make_setup(2, 7)
    for m in data["mesas"]:
        if m["ring"] == "inner":
            m["ring"] = "outer"
    data["expedition_camps"] = data["expedition_camps"][:5]
    messages = []
    for given in (data, Setup.from_json(data)):
        with pytest.raises(ValueError, match="0 inner mesas.*5 expedition base camps") as e:
            GAME.new_state(2, setup=given)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    lab = GAME.new_state(2, setup=Setup.from_json(data), check_setup=False)
    assert len(lab.table.expedition_camps) == 5


def test_new_state_from_seed_and_setup_json():
    state = GAME.new_state(3, seed=5)
    data = GAME.make_setup(3, 5)
    again = GAME.new_state(3, setup=data)
    assert again.to_json() == state.to_json() and state.setup.to_json() == data
    with pytest.raises(ValueError, match="for 3 players"):
        GAME.new_state(2, setup=data)

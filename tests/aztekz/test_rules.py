"""One test per written rule of Aztekz (and per assumption that acts as a rule)."""

from __future__ import annotations

import json
import random

import pytest

from games.aztekz import GAME
from games.aztekz.components import default_data
from geomsim.reading import DataError
from geomsim.rules import IllegalAction
from tests.aztekz.builders import CORNER, CROSS, STRAIGHT, legal_texts, make, play, row, rules_of

SOULS = [k for k in ("sun", "moon", "jaguar", "eagle", "serpent", "skull") for _ in range(8)]


def crossroads_first(players: int, first: int = 0, souls: list[str] | None = None):
    """A new game whose deck starts with the six crossroads, then cards 0 upwards."""
    deck = [42, 43, 44, 45, 46, 47] + list(range(42))
    return GAME.new_state(players, setup={"first": first, "deck": deck, "souls": souls or SOULS})


# -- setting up -----------------------------------------------------------------------------------
def test_setup_first_middle():
    """aztekz/setup/first-middle: the first card goes in the middle, 0,0, in any rotation."""
    state = crossroads_first(2)
    assert rules_of(state, "place 1,0 r0") == ("aztekz/setup/first-middle",)
    assert legal_texts(state) == {"place 0,0 r0"}  # a crossroads has one orientation
    straight = GAME.new_state(2, setup={"first": 0, "deck": list(range(48))})
    assert legal_texts(straight) == {"place 0,0 r0", "place 0,0 r1"}
    play(state, "place 0,0 r0")
    assert state.grid.cells == {(0, 0): 15}


def test_setup_heroes():
    """aztekz/setup/heroes: each player in turn places a card by the rules with their heroes on it."""
    state = crossroads_first(3, first=1)
    play(state, "place 0,0 r0")
    assert state.pos[1] == [(0, 0)] * 3 and state.pos[2] == [None] * 3
    assert state.turn == 2 and state.phase == "setup"
    assert rules_of(state, "place 0,0 r0") == ("aztekz/place/cover-empty", "aztekz/place/connect")
    assert rules_of(state, "place 2,0 r0") == ("aztekz/place/connect",)
    assert rules_of(state, "end") == ("aztekz/turn/phases",)
    play(state, "place 1,0 r0", "place 0,1 r0")
    assert state.pos == [[(0, 1)] * 3, [(0, 0)] * 3, [(1, 0)] * 3]
    assert state.phase == "move" and state.turn == 1 and state.soul is not None


def test_turn_clockwise():
    """aztekz/turn/clockwise: setup and turns go 2, 0, 1, 2, ... from first player 2."""
    state = crossroads_first(3, first=2)
    order = []
    for cell in ("0,0", "1,0", "-1,0"):
        order.append(state.turn)
        play(state, f"place {cell} r0")
    for cell in ("0,1", "1,1", "-1,1", "0,-1"):
        order.append(state.turn)
        play(state, "end", f"place {cell} r0")
    assert order == [2, 0, 1, 2, 0, 1, 2]


def test_turn_phases():
    """aztekz/turn/phases: move actions only in the move phase, placing only after it."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3])
    assert rules_of(state, "place 2,0 r0") == ("aztekz/turn/phases",)
    assert rules_of(state, "return") == ("aztekz/turn/phases",)
    play(state, "end")
    assert state.phase == "place"
    assert rules_of(state, "slave1") == ("aztekz/turn/phases",)
    assert rules_of(state, "end") == ("aztekz/turn/phases",)


def test_draw_card_and_soul():
    """aztekz/draw/card-and-soul: a turn starts with the top card and top soul drawn, face up."""
    souls = list(SOULS)
    souls.remove("moon")
    state = crossroads_first(2, souls=["moon"] + souls)
    play(state, "place 0,0 r0")
    assert state.soul is None  # no soul in setup
    events = state.apply(GAME.parse_action("place 1,0 r0"))
    assert (state.card, state.soul) == (44, "moon")
    assert ("drew", {"card": 44, "soul": "moon"}) in [(e.kind, dict(e.data)) for e in events]
    assert len(state.deck) == 45 and len(state.supply) == 47
    seen = state.observe(1)
    assert (seen["card"], seen["soul"]) == (44, "moon")
    # An empty soul supply gives the card alone.
    empty = make(row(2), [["0,0"] * 3, ["1,0"] * 3], phase="place")
    empty.supply.cards = []
    play(empty, "place 2,0 r0")
    assert empty.card is not None and empty.soul is None


# -- moving ---------------------------------------------------------------------------------------
def test_move_one_hero():
    """aztekz/move/one-hero: one hero moves a turn; its actions need it chosen first."""
    state = make(row(3), [["0,0"] * 3, ["2,0"] * 3])
    assert rules_of(state, "slave1 E") == ("aztekz/move/one-hero",)
    play(state, "slave1", "slave1 E")
    assert rules_of(state, "chief") == ("aztekz/move/one-hero",)
    assert rules_of(state, "chief E") == ("aztekz/move/one-hero",)
    assert rules_of(state, "slave2 E") == ("aztekz/move/one-hero",)
    assert {str(a) for a in state.legal_actions() if str(a).startswith(("chief", "slave2"))} == set()
    play(state, "end")  # no hero at all is also a turn
    other = make(row(3), [["0,0"] * 3, ["2,0"] * 3])
    play(other, "end")
    assert other.phase == "place"


def test_move_walls():
    """aztekz/move/walls: a step needs both facing sides open; never across a wall or off the cards."""
    cells = {"0,0": "NES", "1,0": "N", "0,1": "E", "0,-1": "N", "1,1": "W"}
    state = make(cells, [["0,0"] * 3, ["1,1"] * 3], hero="chief")
    assert rules_of(state, "chief E") == ("aztekz/move/walls",)   # 1,0 is walled to the west
    assert rules_of(state, "chief N") == ("aztekz/move/walls",)   # 0,1 is walled to the south
    assert rules_of(state, "chief W") == ("aztekz/move/walls",)   # no card there
    assert rules_of(state, "chief S") == ()
    assert legal_texts(state) == {"chief S", "end"}
    violation = state.check(GAME.parse_action("chief E")).violations[0]
    assert violation.details == {"cell": "0,0", "side": "E"}


def test_move_capacity():
    """aztekz/move/capacity: at most four heroes on a card; carried souls do not count extra."""
    cells = row(2)
    full = make(cells, [["0,0", "1,0", "0,0"], ["1,0"] * 3], hero="chief")
    assert rules_of(full, "chief E") == ("aztekz/move/capacity",)
    three = make(cells, [["0,0", "0,0", "0,0"], ["1,0"] * 3], hero="chief",
                 carry={"1.slave1": ("sun", 3), "1.slave2": ("moon", 2)})
    assert rules_of(three, "chief E") == ()
    play(three, "chief E")
    assert len(three.heroes_at((1, 0))) == 4


def test_move_chief_one_step():
    """aztekz/move/chief-one-step: the chief moves one step at most."""
    state = make(row(3), [["0,0"] * 3, ["2,0"] * 3])
    play(state, "chief", "chief E")
    assert rules_of(state, "chief E") == ("aztekz/move/chief-one-step",)
    assert "chief E" not in legal_texts(state) and "chief W" not in legal_texts(state)


def test_move_slave_three_steps():
    """aztekz/move/slave-three-steps: a slave moves up to three steps, fewer if desired."""
    state = make(row(5), [["0,0"] * 3, ["4,0"] * 3])
    play(state, "slave1", "slave1 E")
    assert rules_of(state, "end") == ()
    play(state, "slave1 E", "slave1 E")
    assert state.pos[0][1] == (3, 0)
    assert rules_of(state, "slave1 E") == ("aztekz/move/slave-three-steps",)
    assert rules_of(state, "slave1 W") == ("aztekz/move/slave-three-steps",)


# -- the chief's theft ----------------------------------------------------------------------------
def theft(**kw):
    """Player 0's chief on 0,0 with player 1's slave1 (carrying 2 suns); player 1's chief on 1,0."""
    heroes = kw.pop("heroes", [["0,0", "1,0", "1,0"], ["1,0", "0,0", "2,0"]])
    return make(row(3), heroes, carry=kw.pop("carry", {"1.slave1": ("sun", 2)}), **kw)


def test_steal_chief_only():
    """aztekz/steal/chief-only: only the chief, chosen to move this turn, steals."""
    state = theft(heroes=[["0,0", "0,0", "1,0"], ["1,0", "0,0", "2,0"]])
    assert rules_of(state, "steal 1.slave1") == ("aztekz/steal/chief-only",)
    play(state, "slave1")
    assert rules_of(state, "steal 1.slave1") == ("aztekz/steal/chief-only",)
    chief = theft(hero="chief")
    assert rules_of(chief, "steal 1.slave1") == ()


def test_steal_once():
    """aztekz/steal/once: one theft a turn by default; thefts_per_turn changes it."""
    heroes = [["0,0", "1,0", "1,0"], ["1,0", "0,0", "2,0"], ["2,0", "0,0", "2,0"]]
    carry = {"1.slave1": ("sun", 2), "2.slave1": ("moon", 3)}
    state = theft(heroes=heroes, carry=carry, hero="chief")
    play(state, "steal 1.slave1")
    assert rules_of(state, "steal 2.slave1") == ("aztekz/steal/once",)
    twice = theft(heroes=heroes, carry=carry, hero="chief", components={"thefts_per_turn": 2})
    play(twice, "steal 1.slave1", "steal 2.slave1")
    assert twice.piles[0] == [("sun", 2), ("moon", 3)]


def test_steal_where():
    """aztekz/steal/where: the robbed slave is of another colour and on the chief's card."""
    state = theft(hero="chief", carry={"1.slave1": ("sun", 2), "1.slave2": ("moon", 2),
                                        "0.slave1": ("eagle", 2)})
    assert rules_of(state, "steal 1.slave2") == ("aztekz/steal/where",)  # on 2,0
    own = theft(heroes=[["0,0", "0,0", "1,0"], ["1,0", "2,0", "2,0"]], hero="chief",
                carry={"0.slave1": ("eagle", 2)})
    assert rules_of(own, "steal 0.slave1") == ("aztekz/steal/where",)


def test_steal_chief_away():
    """aztekz/steal/chief-away: not while the robbed slave's chief stands on the same card."""
    guarded = theft(heroes=[["0,0", "1,0", "1,0"], ["0,0", "0,0", "2,0"]], hero="chief")
    assert rules_of(guarded, "steal 1.slave1") == ("aztekz/steal/chief-away",)


def test_steal_two_or_more():
    """aztekz/steal/two-or-more: the slave carries at least two souls; before or after the step."""
    one = theft(hero="chief", carry={"1.slave1": ("sun", 1)})
    assert rules_of(one, "steal 1.slave1") == ("aztekz/steal/two-or-more",)
    # After his step: the chief walks from 1,0 onto the slave's card and steals there.
    after = theft(heroes=[["1,0", "1,0", "1,0"], ["2,0", "0,0", "2,0"]], hero="chief")
    play(after, "chief W", "steal 1.slave1")
    assert after.piles[0] == [("sun", 2)] and after.carry[1][1] is None
    assert after.scores() == [1.0, 0.0]


def test_piles_never_merge():
    """aztekz/piles/never-merge: every stolen or given pile stays a pile of its own."""
    state = theft(hero="chief", carry={"1.slave1": ("sun", 3)}, piles=[[("sun", 2)], []])
    play(state, "steal 1.slave1")
    assert state.piles[0] == [("sun", 2), ("sun", 3)]
    assert state.scores()[0] == 3.0  # 1 + 2, not 4 for one pile of five


# -- the slave's soul actions -------------------------------------------------------------------
def test_slave_actions():
    """aztekz/slave/actions: take, drop, scare and give belong to a chosen slave."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], loose={"0,0": ["sun"]},
                 carry={"0.slave1": ("sun", 2)}, hero="chief")
    for text in ("take sun", "drop", "scare", "give"):
        assert rules_of(state, text) == ("aztekz/slave/actions",), text
    slave = make(row(2), [["0,0"] * 3, ["1,0"] * 3], loose={"0,0": ["sun"]},
                 carry={"0.slave1": ("sun", 2)}, hero="slave1")
    assert {"take sun", "drop", "give"} <= legal_texts(slave)


def test_take_from_card():
    """aztekz/take/from-card: a slave takes a soul lying on its card, not one carried by another."""
    state = make(row(2), [["0,0"] * 3, ["1,0", "0,0", "1,0"]], loose={"0,0": ["sun"], "1,0": ["eagle"]},
                 carry={"1.slave1": ("moon", 2)}, hero="slave1")
    assert rules_of(state, "take moon") == ("aztekz/take/from-card",)
    assert rules_of(state, "take eagle") == ("aztekz/take/from-card",)
    play(state, "take sun")
    assert state.carry[0][1] == ("sun", 1) and (0, 0) not in state.loose
    assert rules_of(state, "take sun") == ("aztekz/take/from-card",)


def test_take_same_kind():
    """aztekz/take/same-kind: a slave's souls are all of one kind."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], loose={"0,0": ["moon", "sun"]},
                 carry={"0.slave1": ("sun", 1)}, hero="slave1")
    assert rules_of(state, "take moon") == ("aztekz/take/same-kind",)
    play(state, "take sun")
    assert state.carry[0][1] == ("sun", 2) and state.loose[(0, 0)] == ["moon"]


def test_take_not_dropped():
    """aztekz/take/not-dropped: souls dropped this turn are not taken up again this turn."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], loose={"1,0": ["moon"]},
                 carry={"0.slave1": ("sun", 2)}, hero="slave1")
    play(state, "drop")
    assert rules_of(state, "take sun") == ("aztekz/take/not-dropped",)
    play(state, "slave1 E", "take moon")
    assert state.carry[0][1] == ("moon", 1)


def test_take_not_dropped_only_the_kinds_dropped_there():
    """aztekz/take/not-dropped, per card and kind: after a drop the slave may take a soul of
    another kind from the same card (dropping is "useful for taking another type of soul"), but
    not one of the kind it dropped there, nor on another card the kind dropped elsewhere."""
    state = make(row(3), [["0,0"] * 3, ["2,0"] * 3], loose={"1,0": ["moon"], "0,0": ["sun"]},
                 carry={"0.slave1": ("sun", 2)}, hero="slave1")
    play(state, "slave1 E", "drop")
    assert rules_of(state, "take moon") == ()
    assert rules_of(state, "take sun") == ("aztekz/take/not-dropped",)
    play(state, "take moon")
    assert state.carry[0][1] == ("moon", 1) and state.loose[(1, 0)] == ["sun", "sun"]
    play(state, "slave1 W", "drop")  # a moon dropped on 0,0: the sun that lay there is free
    assert rules_of(state, "take sun") == ()
    assert rules_of(state, "take moon") == ("aztekz/take/not-dropped",)
    legal = {str(a) for a in state.legal_actions()}
    assert "take sun" in legal and "take moon" not in legal


def test_drop_whole_pile():
    """aztekz/drop/whole-pile: the slave leaves its entire pile on the card."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], loose={"0,0": ["moon"]},
                 carry={"0.slave1": ("sun", 3)}, hero="slave1")
    play(state, "drop")
    assert state.carry[0][1] is None
    assert sorted(state.loose[(0, 0)]) == ["moon", "sun", "sun", "sun"]
    assert rules_of(state, "drop") == ("aztekz/drop/whole-pile",)


def scare_board(card: int = CROSS, **kw):
    """Player 0's slave1 alone on 0,0 (carrying 2 moons, a sun lying there); cards -1,0 to 2,0."""
    cells = {"-1,0": "E", "0,0": "EW", "1,0": "EW", "2,0": "W"}
    heroes = kw.pop("heroes", [["2,0", "0,0", "2,0"], ["1,0"] * 3])
    return make(cells, heroes, loose={"0,0": ["sun"]}, carry={"0.slave1": ("moon", 2)},
                card=card, hero="slave1", **kw)


def test_scare_all_souls():
    """aztekz/scare/all-souls: every soul on the card, carried ones too, goes face down to the supply."""
    state = scare_board()
    size = len(state.supply)
    play(state, "scare")
    assert (0, 0) not in state.loose and state.carry[0][1] is None
    assert state.supply.cards[size:] == ["sun", "moon", "moon"] and state.supply_known == 3
    assert state.observe(1)["supply"]["known_bottom"] == ["sun", "moon", "moon"]
    nothing = make(row(2), [["1,0", "0,0", "1,0"], ["1,0"] * 3], loose={"1,0": ["sun"]},
                   hero="slave1")
    assert rules_of(nothing, "scare") == ("aztekz/scare/all-souls",)


def test_scare_move_on_and_cover():
    """aztekz/scare/move-on-and-cover: after a scare the slave moves on to another card and the
    drawn card is placed on the scared one; a scare that could not end so is illegal."""
    state = scare_board()
    play(state, "scare")
    assert rules_of(state, "end") == ("aztekz/scare/move-on-and-cover",)
    assert rules_of(state, "scare") == ("aztekz/scare/move-on-and-cover",)
    play(state, "slave1 E", "end")
    assert rules_of(state, "place -1,1 r0") == ("aztekz/scare/move-on-and-cover",)
    assert rules_of(state, "return") == ("aztekz/scare/move-on-and-cover",)
    assert legal_texts(state) == {"place 0,0 r0"}
    below = list(state.stacks[(0, 0)])
    play(state, "place 0,0 r0")
    assert state.stacks[(0, 0)] == below + [CROSS] and state.loose[(0, 0)] == ["sun"]
    # Another hero on the card: the card could not be placed there.
    crowded = scare_board(heroes=[["0,0", "0,0", "2,0"], ["1,0"] * 3])
    assert rules_of(crowded, "scare") == ("aztekz/scare/move-on-and-cover",)
    # No step left to move on.
    tired = scare_board(steps=3)
    assert rules_of(tired, "scare") == ("aztekz/scare/move-on-and-cover",)
    # Covering 0,0 with a corner would cut player 1's chief (on -1,0) off from his slaves.
    cutting = scare_board(card=CORNER, heroes=[["2,0", "0,0", "2,0"], ["-1,0", "1,0", "1,0"]])
    assert rules_of(cutting, "scare") == ("aztekz/scare/move-on-and-cover",)
    straight = scare_board(card=STRAIGHT, heroes=[["2,0", "0,0", "2,0"], ["-1,0", "1,0", "1,0"]])
    assert rules_of(straight, "scare") == ()
    # Dropping souls back on the scared card would keep the card from being placed.
    back = scare_board(heroes=[["2,0", "0,0", "2,0"], ["1,0"] * 3])
    back.loose[(1, 0)] = ["eagle"]
    play(back, "scare", "slave1 E", "take eagle", "slave1 W")
    assert rules_of(back, "drop") == ("aztekz/scare/move-on-and-cover",)


def test_give_same_card():
    """aztekz/give/same-card: a slave gives its pile to its chief on the same card."""
    away = make(row(3), [["1,0", "0,0", "0,0"], ["2,0"] * 3], carry={"0.slave1": ("sun", 2)},
                hero="slave1")
    assert rules_of(away, "give") == ("aztekz/give/same-card",)
    play(away, "slave1 E", "give")
    assert away.piles[0] == [("sun", 2)] and away.carry[0][1] is None


def test_give_two_or_more():
    """aztekz/give/two-or-more: a pile of one soul cannot be given."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], carry={"0.slave1": ("sun", 1)}, hero="slave1")
    assert rules_of(state, "give") == ("aztekz/give/two-or-more",)


# -- placing --------------------------------------------------------------------------------------
def test_place_connect():
    """aztekz/place/connect: one path of the card meets an open side of an adjacent card."""
    cells = {"0,0": "N", "0,1": "NS", "-1,0": "-"}
    state = make(cells, [["0,1"] * 3, ["0,1"] * 3], phase="place", card=STRAIGHT)
    assert rules_of(state, "place 1,0 r0") == ("aztekz/place/connect",)  # 0,0 is walled east
    assert rules_of(state, "place 0,2 r1") == ("aztekz/place/connect",)  # E-W meets no path
    assert rules_of(state, "place 0,2 r0") == ()                          # N leads nowhere: fine
    assert rules_of(state, "place 5,5 r0")[-1] == "aztekz/place/connect"


def test_place_bound():
    """aztekz/place/bound: the cards never span more than 5 x 5."""
    state = make(row(5, "NESW"), [["0,0"] * 3, ["4,0"] * 3], phase="place")
    assert rules_of(state, "place 5,0 r0") == ("aztekz/place/bound",)
    assert rules_of(state, "place -1,0 r0") == ("aztekz/place/bound",)
    assert rules_of(state, "place 2,1 r0") == ()
    column = make({f"0,{y}": "NESW" for y in range(5)}, [["0,0"] * 3, ["0,4"] * 3], phase="place")
    assert rules_of(column, "place 0,5 r0") == ("aztekz/place/bound",)
    assert all(0 <= a.y <= 4 for a in column.legal_actions() if a.kind == "place")


def test_place_cover_empty():
    """aztekz/place/cover-empty: a card covers only a card with no souls and no heroes."""
    state = make(row(3, "NESW"), [["0,0"] * 3, ["0,0"] * 3], loose={"1,0": ["sun"]}, phase="place")
    assert rules_of(state, "place 0,0 r0") == ("aztekz/place/cover-empty",)
    assert rules_of(state, "place 1,0 r0") == ("aztekz/place/cover-empty",)
    below = list(state.stacks[(2, 0)])
    play(state, "place 2,0 r0")
    assert state.stacks[(2, 0)] == below + [CROSS]


def test_place_chiefs():
    """aztekz/place/chiefs: no placing cuts any chief off from both slaves (the placer's or not)."""
    cells = {"-1,0": "E", "0,0": "EW", "1,0": "W", "0,1": "S", "0,-1": "N"}
    heroes = [["0,1"] * 3, ["-1,0", "1,0", "1,0"]]
    state = make(cells, heroes, phase="place", card=CORNER)
    for r in range(4):
        assert rules_of(state, f"place 0,0 r{r}") == ("aztekz/place/chiefs",)
    assert state.check(GAME.parse_action("place 0,0 r0")).violations[0].details == {"players": [1]}
    straight = make(cells, heroes, phase="place", card=STRAIGHT)
    assert rules_of(straight, "place 0,0 r1") == ()                        # E-W keeps the path
    assert rules_of(straight, "place 0,0 r0") == ("aztekz/place/chiefs",)  # N-S cuts it
    guarded = make(cells, [["0,1"] * 3, ["-1,0", "-1,0", "1,0"]], phase="place", card=CORNER)
    assert rules_of(guarded, "place 0,0 r0") == ()  # one slave with the chief is enough


def test_place_soul():
    """aztekz/place/soul: the drawn soul goes on the placed card."""
    state = make(row(2, "NESW"), [["0,0"] * 3, ["1,0"] * 3], phase="place", soul="eagle")
    play(state, "place 0,1 r0")
    assert state.loose[(0, 1)] == ["eagle"]


def test_place_compulsory():
    """aztekz/place/compulsory: return a card only when it cannot be placed, or once 5 x 5 show."""
    open_board = make(row(2), [["0,0"] * 3, ["1,0"] * 3], phase="place", soul="moon")
    assert rules_of(open_board, "return") == ("aztekz/place/compulsory",)
    walled = make({"0,0": "E", "1,0": "W"}, [["0,0"] * 3, ["1,0"] * 3], phase="place", soul="moon")
    assert legal_texts(walled) == {"return"}
    play(walled, "return")
    assert walled.deck.cards[-1] == CROSS and walled.deck_known == 1
    assert walled.supply.cards[-1] == "moon" and walled.supply_known == 1
    assert walled.observe(0)["deck"]["known_bottom"] == [CROSS]
    assert walled.turn == 1 and walled.phase == "move"
    full = {f"{x},{y}": "NESW" for x in range(5) for y in range(5)}
    loose = {k: ["sun"] for k in full if k != "2,2" and k != "0,0" and k != "4,4"}
    done = make(full, [["0,0"] * 3, ["4,4"] * 3], loose=loose, phase="place")
    assert legal_texts(done) == {"place 2,2 r0", "return"}


def test_end_last_card():
    """aztekz/end/last-card: the game ends as soon as the last card of the draw pile is placed."""
    state = make(row(2, "NESW"), [["0,0"] * 3, ["1,0"] * 3], phase="place")
    state.deck.cards = []
    play(state, "place 2,0 r0")
    assert state.is_over() and state.to_move() == () and state.legal_actions(0).is_empty()
    assert state.history[-1][2][-1].kind == "game-over"
    walled = make({"0,0": "E", "1,0": "W"}, [["0,0"] * 3, ["1,0"] * 3], phase="place")
    walled.deck.cards = []
    play(walled, "return")  # not placed: the card is drawn again
    assert not walled.is_over() and walled.card == CROSS and len(walled.deck) == 0


def test_end_stall():
    """aztekz/end/stall: stall_limit turns in a row without a placed card end the game."""
    state = make({"0,0": "E", "1,0": "W"}, [["0,0"] * 3, ["1,0"] * 3], phase="place",
                 components={"stall_limit": 3})
    play(state, "return", "end", "return")
    assert not state.is_over() and state.stall == 2
    play(state, "end", "return")
    assert state.is_over()
    never = make({"0,0": "E", "1,0": "W"}, [["0,0"] * 3, ["1,0"] * 3], phase="place",
                 components={"stall_limit": None})
    for _ in range(60):
        play(never, "return", "end")
    assert not never.is_over()


# -- scores ---------------------------------------------------------------------------------------
def test_score_piles():
    """aztekz/score/piles: a pile scores its souls minus one; carried and lying souls score nothing."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], piles=[[("sun", 2), ("moon", 4)], [("eagle", 3)]],
                 carry={"1.slave1": ("sun", 5)}, loose={"0,0": ["moon"]})
    assert state.scores() == [4.0, 2.0]
    assert state.winners() == []  # not over yet


@pytest.mark.parametrize("piles,winners", [
    ([[("sun", 3)], [("sun", 2), ("moon", 2)]], [1]),   # 2 points each; 4 souls beat 3
    ([[("sun", 3)], [("moon", 3)]], [0, 1]),              # still tied: both win
    ([[("sun", 4)], [("moon", 2), ("eagle", 2)]], [0]),   # 3 points beat 2
])
def test_score_tie(piles, winners):
    """aztekz/score/tie: most points win; a tie goes to the most souls collected."""
    state = make(row(2), [["0,0"] * 3, ["1,0"] * 3], piles=piles)
    state.phase = "over"
    assert state.winners() == winners


def test_illegal_leaves_state_unchanged():
    """An illegal action raises IllegalAction naming the rule and changes nothing."""
    state = scare_board(card=CORNER, heroes=[["2,0", "0,0", "2,0"], ["-1,0", "1,0", "1,0"]])
    before = state.to_json()
    with pytest.raises(IllegalAction) as caught:
        state.apply(GAME.parse_action("scare"))
    assert caught.value.rule == "aztekz/scare/move-on-and-cover"
    assert state.to_json() == before


def test_defaults_are_data():
    """The box defaults (FACTS.md): 48 cards 12/16/14/6, 48 souls of 6 kinds, 5 x 5, 4 a card."""
    data = default_data()
    assert [(c["type"], c["count"]) for c in data["cards"]] == [
        ("straight", 12), ("corner", 16), ("t-junction", 14), ("crossroads", 6)]
    state = GAME.new_state(2, seed=0)
    assert state.comp.cards == 48 and len(state.comp.souls()) == 48
    assert (state.comp.grid_size, state.comp.max_heroes_per_card) == (5, 4)
    small = GAME.new_state(2, setup={"components": {"grid_size": 3}})
    assert small.grid.size == 3


def test_a_state_with_scared_souls_but_no_chosen_hero_is_refused_by_name():
    """Souls are scared by the slave chosen this turn: a state read back with scared souls and
    no hero chosen is a `DataError` on ``scare`` (it read back, then its first check raised
    TypeError)."""
    state, rng = GAME.new_state(2, seed=0), random.Random(1)
    while json.loads(state.to_json())["scare"] is None:
        player = state.to_move()[0]
        state.apply(rng.choice(list(state.legal_actions(player))), player)
    data = json.loads(state.to_json())
    GAME.state_from_json(json.dumps(data))  # as it is, it reads back
    data["hero"] = None
    with pytest.raises(DataError, match=r"^scare: souls are scared by the slave chosen"):
        GAME.state_from_json(json.dumps(data))

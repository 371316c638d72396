"""Compiled random playouts of Aztekz: the fast path of `AztekzGame.random_playouts`.

A numba kernel plays copies of given states to the end, choosing uniformly among the legal
actions at every decision, exactly as a random bot over `AztekzState.legal_actions` would: the
same legal set (each placement once per distinct orientation, the smallest rotation), the same
chance outcomes (the deck and soul supply orders are read from the state, and returned or
scared pieces go to the bottom as in `rules.py`), the stall limit, the same scores and winners.
`geomsim.testing.check_playouts` replays every kernel decision through `State.apply`
(tests/aztekz/test_playout.py); any rule left out of the kernel fails that replay.

Limits: all states of one batch share one set of components (the default ones or the same
overrides); cards must lie within ``grid_size - 1`` of ``0,0`` (true of every game that starts
from a setup, whose first card is at ``0,0``); at most 63 soul kinds (the kinds dropped on a
card are one int64 bit mask) and 4 players.

Speed: numba counts the references to every array passed to a function (atomic operations);
in a first version that passed each fact as an array of its own, those counts took half the
time. So the state lives in few arrays, and `play_game` passes them on `borrowed` (without a
reference count: they stay alive in `play_batch` meanwhile).

State layout (one game; a batch stacks these along a first axis):

* cell indices: a square window of ``W = 2 * grid_size + 1`` columns and rows around ``0,0``;
  the cell ``x,y`` has index ``(y + grid_size) * W + (x + grid_size)``. Cards lie at most
  ``grid_size - 1`` from ``0,0``, so every neighbour of a card or of a free cell next to one is
  inside the window (no bounds tests).
* ``cells[NROWS, C]``, one row per fact about every cell: ``GRID`` the open sides of the visible
  card (N=1, E=2, S=4, W=8; -1 where no card lies), ``LOOSE_N`` how many souls lie there,
  ``DROPPED`` the kinds the moving slave dropped there this turn (bit ``k`` for kind ``k``), ``HCOUNT`` how many heroes stand
  there; ``CARDS`` lists the cells holding a card (the first ``sc[S_CELLS]``; cards are never
  taken away); ``LABEL``, ``QUEUE``, ``REACH``, ``BFS`` are scratch rows of the searches.
* ``loose[C, S]``: the kinds (indices into the components' soul kinds) of the souls lying on
  each card, in the order of the rules' list (a scare sends them to the supply in that order).
* ``heroes[3, 4, 3]``: by ``H_POS`` the cell of each player's chief, slave1, slave2 (-1 before
  the setup card), by ``H_KIND`` and ``H_N`` the pile a hero carries (n = 0: none).
* ``deck[NC]``, ``supply[S]``: ring buffers (top at the head), card ids and soul kinds.
* ``sc[NSC]``: the scalars, named by the ``S_*`` indices below (-1 for None), and the players'
  piles summed: ``S_POINTS + p`` (size minus one) and ``S_COLLECTED + p`` (size).
* Tables of the components: ``par`` (``P_*``) and ``table[NC, 13]``, per card id its side mask
  for each rotation (``T_MASK + r``), its distinct orientations (``T_ROT + o``, ``T_OMASK + o``:
  the smallest rotation of each mask, as `Components.orientations`) and their number
  (``T_ORIENTATIONS``).

Action codes (independent of the state; `decode` turns them into the interface's actions):
0-2 select a hero; 3 + 4 * hero + side (N, E, S, W) a step; 15 drop, 16 scare, 17 give,
18 end, 19 return; 20 + 2 * player + slave - 1 steal; 28 + kind take; 1024 + 4 * cell + rotation
place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
from numba.core import cgutils
from numba.extending import intrinsic
from numpy.typing import NDArray

from games.aztekz import GAME
from games.aztekz.components import HEROES, Components
from games.aztekz.rules import (
    MOVE,
    OVER,
    PILE_SCORINGS,
    PLACE,
    SETUP,
    AztekzState,
    Drop,
    End,
    Give,
    Place,
    Return,
    Scare,
    Select,
    Steal,
    Step,
    Take,
    pile_points,
)
from geomsim.discrete import SIDE_NAMES, SIDES
from geomsim.compiled import compiling
from geomsim.rules import Action, Playouts, State, playout_seed

Ints = NDArray[np.int64]  # every array of the layout below

# Phases.
PH_SETUP, PH_MOVE, PH_PLACE, PH_OVER = 0, 1, 2, 3
PHASE_CODE = {SETUP: PH_SETUP, MOVE: PH_MOVE, PLACE: PH_PLACE, OVER: PH_OVER}

# Parameters of the components: indices into `par`.
(P_G, P_W, P_MAXH, P_CHIEF_STEPS, P_SLAVE_STEPS, P_THEFTS, P_STALL, P_KINDS, P_PILES,
 P_FREE) = range(10)

# Columns of `table`.
T_MASK, T_ROT, T_OMASK, T_ORIENTATIONS = 0, 4, 8, 12

# Rows of `cells`.
GRID, LOOSE_N, DROPPED, HCOUNT, CARDS, LABEL, QUEUE, REACH, BFS = range(9)
NROWS = 9

# First index of `heroes`.
H_POS, H_KIND, H_N = 0, 1, 2

# Scalars of a game: indices into `sc`. S_LABELLED: the walled cell that row LABEL is for.
(S_PLAYERS, S_TURN, S_PHASE, S_START, S_CARD, S_SOUL, S_HERO, S_STEPS, S_THEFTS, S_SCARE,
 S_STALL, S_DECK_HEAD, S_DECK_N, S_SUP_HEAD, S_SUP_N, S_CELLS, S_MINX, S_MINY, S_MAXX,
 S_MAXY, S_LABELLED) = range(21)
S_POINTS, S_COLLECTED = 21, 25
NSC = 29

# Action codes.
A_SELECT, A_STEP, A_DROP, A_SCARE, A_GIVE, A_END, A_RETURN, A_STEAL, A_TAKE, A_PLACE = (
    0, 3, 15, 16, 17, 18, 19, 20, 28, 1024)
MAX_KINDS = 63  # the kinds dropped on a card are bits of an int64 (and 28 + 63 < A_PLACE)
MAX_ACTIONS = 1024  # more than the placements of a card: 4 orientations of each window cell

# The arrays of a game, in the order `play_batch` takes them (after `par` and `table`).
STATE_ARRAYS = ("cells", "loose", "heroes", "deck", "supply", "sc")
KernelInputs = tuple[Ints, Ints, Ints, Ints, Ints, Ints, Ints, Ints]  # par, table, STATE_ARRAYS


# -- encoding -----------------------------------------------------------------------------------
def params(comp: Components) -> Ints:
    """The numbers of the rules the kernel needs, as `par`."""
    if len(comp.soul_kinds) > MAX_KINDS:
        raise ValueError(f"aztekz playouts: at most {MAX_KINDS} soul kinds, not {len(comp.soul_kinds)}")
    g = comp.grid_size
    stall = -1 if comp.stall_limit is None else comp.stall_limit
    # The last two, the options pile_scoring and placement_mandatory, are set per batch.
    return np.array([g, 2 * g + 1, comp.max_heroes_per_card, comp.chief_steps, comp.slave_steps,
                     comp.thefts_per_turn, stall, len(comp.soul_kinds), 0, 0], dtype=np.int64)


def with_options(par: Ints, options: Mapping[str, Any]) -> Ints:
    """`par` with the options that are not components: the pile scoring curve (its index in
    `PILE_SCORINGS`) and whether a placeable card may be returned."""
    par = par.copy()
    par[P_PILES] = list(PILE_SCORINGS).index(options["pile_scoring"])
    par[P_FREE] = not options["placement_mandatory"]
    return par


def card_table(comp: Components) -> Ints:
    """`table`: per card id, its masks by rotation and its distinct orientations."""
    table = np.zeros((comp.cards, 13), dtype=np.int64)
    for c, options in enumerate(comp.orientations):
        table[c, T_MASK:T_MASK + 4] = [comp.sides(c, r) for r in range(4)]
        table[c, T_ORIENTATIONS] = len(options)
        for i, (r, m) in enumerate(options):
            table[c, T_ROT + i], table[c, T_OMASK + i] = r, m
    return table


_TABLES: dict[str, tuple[Ints, Ints]] = {}


def tables(comp: Components) -> tuple[Ints, Ints]:
    """`par` and `table` of `comp`, made once per set of components (the kernel only reads
    them; a bot's rollouts call the kernel once per state)."""
    key = comp.json_text
    if key not in _TABLES:
        _TABLES[key] = params(comp), card_table(comp)
    return _TABLES[key]


def encode(state: AztekzState) -> dict[str, Ints]:
    """The arrays of the layout above for `state` (any moment of a game; it is left unchanged)."""
    comp = state.comp
    g, w = comp.grid_size, 2 * comp.grid_size + 1
    kinds = {k: i for i, k in enumerate(comp.soul_kinds)}
    souls = max(len(comp.souls()), 1)

    def index(cell: tuple[int, int] | None) -> int:
        if cell is None:
            return -1
        x, y = cell
        if abs(x) >= g or abs(y) >= g:
            raise ValueError(f"aztekz playouts: card {x},{y} lies {g} or more from 0,0")
        return (y + g) * w + (x + g)

    cells = np.zeros((NROWS, w * w), dtype=np.int64)
    cells[GRID] = -1
    for i, (cell, mask) in enumerate(state.grid.cells.items()):
        cells[GRID, index(cell)] = mask
        cells[CARDS, i] = index(cell)
    loose = np.zeros((w * w, souls), dtype=np.int64)
    for cell, lying in state.loose.items():
        cells[LOOSE_N, index(cell)] = len(lying)
        loose[index(cell), :len(lying)] = [kinds[k] for k in lying]
    for cell, kind in state.dropped:
        cells[DROPPED, index(cell)] |= 1 << kinds[kind]
    heroes = np.zeros((3, 4, 3), dtype=np.int64)
    heroes[H_POS] = -1
    for p in range(state.num_players):
        for h in range(3):
            heroes[H_POS, p, h] = index(state.pos[p][h])
            if state.pos[p][h] is not None:
                cells[HCOUNT, index(state.pos[p][h])] += 1
            if carried := state.carry[p][h]:
                heroes[H_KIND, p, h] = kinds[carried[0]]
                heroes[H_N, p, h] = carried[1]
    deck = np.zeros(comp.cards, dtype=np.int64)
    deck[:len(state.deck)] = state.deck.cards
    supply = np.zeros(souls, dtype=np.int64)
    supply[:len(state.supply)] = [kinds[k] for k in state.supply.cards]
    sc = np.zeros(NSC, dtype=np.int64)
    sc[S_PLAYERS], sc[S_TURN], sc[S_PHASE] = state.num_players, state.turn, PHASE_CODE[state.phase]
    sc[S_START] = state.start_cards
    sc[S_CARD] = -1 if state.card is None else state.card
    sc[S_SOUL] = -1 if state.soul is None else kinds[state.soul]
    sc[S_HERO] = -1 if state.hero is None else state.hero
    sc[S_STEPS], sc[S_THEFTS], sc[S_SCARE] = state.steps, state.thefts, index(state.scare)
    sc[S_STALL], sc[S_DECK_N], sc[S_SUP_N] = state.stall, len(state.deck), len(state.supply)
    sc[S_CELLS], sc[S_LABELLED] = len(state.grid.cells), -1
    sc[S_MINX], sc[S_MINY], sc[S_MAXX], sc[S_MAXY] = state.grid.bounds() or (0, 0, 0, 0)
    for p, piles in enumerate(state.piles):
        sc[S_POINTS + p] = sum(pile_points(n, state.options["pile_scoring"]) for _, n in piles)
        sc[S_COLLECTED + p] = sum(n for _, n in piles)
    return {"cells": cells, "loose": loose, "heroes": heroes, "deck": deck, "supply": supply,
            "sc": sc}


@lru_cache(maxsize=8)
def decoder(grid_size: int, soul_kinds: tuple[str, ...]) -> Callable[[int], Action]:
    """`decode(code) -> Action` for components of that grid size and those soul kinds."""
    g, w = grid_size, 2 * grid_size + 1

    @cache
    def decode(code: int) -> Action:
        if code >= A_PLACE:
            cell, rotation = divmod(code - A_PLACE, 4)
            y, x = divmod(cell, w)
            return Place(x - g, y - g, rotation)
        if code >= A_TAKE:
            return Take(soul_kinds[code - A_TAKE])
        if code >= A_STEAL:
            victim, slave = divmod(code - A_STEAL, 2)
            return Steal(victim, HEROES[1 + slave])
        if code >= A_DROP:
            return (Drop(), Scare(), Give(), End(), Return())[code - A_DROP]
        if code >= A_STEP:
            hero, side = divmod(code - A_STEP, 4)
            return Step(HEROES[hero], SIDE_NAMES[SIDES[side]])
        return Select(HEROES[code])

    return decode


def kernel_inputs(states: Sequence[AztekzState]) -> KernelInputs:
    """The arguments of `play_batch` but the seed: tables of the components, then the encoded
    states stacked (`ValueError` unless the states share components and number of players)."""
    if not states:
        raise ValueError("aztekz playouts: no states given")
    comp, players, options = states[0].comp, states[0].num_players, states[0].options
    if any(s.comp is not comp for s in states):
        raise ValueError("aztekz playouts: all states of a batch must share their components")
    if any(s.options != options for s in states):
        raise ValueError("aztekz playouts: all states of a batch must share their options")
    if any(s.num_players != players for s in states):
        raise ValueError("aztekz playouts: all states of a batch must have as many players")
    coded = [encode(s) for s in states]
    cells, loose, heroes, deck, supply, sc = (np.stack([c[name] for c in coded]) for name in STATE_ARRAYS)
    par, table = tables(comp)
    return (with_options(par, options), table, cells, loose, heroes, deck, supply, sc)


def game_random_playouts(states: Sequence[State], seed: int = 0) -> Playouts:
    """`AztekzGame.random_playouts`: `states` must be Aztekz states, whose fields the kernel reads."""
    return random_playouts(GAME.own_states(states, AztekzState), seed)


def random_playouts(states: Sequence[AztekzState], seed: int = 0) -> Playouts:
    """Play copies of `states` to the end with uniform random choices (see the module docstring)."""
    inputs = kernel_inputs(states)
    with compiling("the Aztekz random player", play_batch):
        log, offsets, final = play_batch(*inputs, np.int64(playout_seed(seed, "aztekz")))
    comp, players = states[0].comp, states[0].num_players
    points = final[:, S_POINTS:S_POINTS + players]
    collected = final[:, S_COLLECTED:S_COLLECTED + players]
    return Playouts(scores=points.astype(float), winners=winners(points, collected),
                    log=log, offsets=offsets, decode=decoder(comp.grid_size, comp.soul_kinds))


def winners(points: Ints, collected: Ints) -> NDArray[np.bool_]:
    """Rule ``aztekz/score/tie``: most points, then most souls collected; still tied share."""
    top = points == points.max(axis=1, keepdims=True)
    most = np.where(top, collected, -1).max(axis=1, keepdims=True)
    found: NDArray[np.bool_] = top & (collected == most)
    return found


# -- the kernel: arrays without reference counts -----------------------------------------------
if TYPE_CHECKING:
    def borrowed(array: Ints) -> Ints:
        """`array` as a kernel sees the intrinsic below return it (numba's stubs type the
        intrinsic's typing function, which takes the typing context first)."""
else:
    @intrinsic
    def borrowed(typingctx, array):
        """`array` without its reference count (a null meminfo): numba then skips the atomic counts
        on every call that passes it. Only for arrays that the caller keeps alive meanwhile."""

        def codegen(context, builder, signature, args):
            view = context.make_array(array)(context, builder, value=args[0])
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            view.parent = cgutils.get_null_value(view.parent.type)
            return view._getvalue()

        return array(array), codegen


# -- the kernel: small queries ------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def opposite(side: int) -> int:
    """The side facing `side` across a cell border (N <-> S, E <-> W)."""
    return ((side << 2) | (side >> 2)) & 15


@numba.njit(cache=True, inline="always")
def delta(side: int, w: int) -> int:
    """The index step across `side` (N is +y, a row up)."""
    if side == 1:
        return w
    if side == 2:
        return 1
    if side == 4:
        return -w
    return -1


@numba.njit(cache=True)
def facing(cells: Ints, w: int, cell: int) -> int:
    """The sides of `cell` beyond which a card has an open side facing it."""
    found = 0
    for i in range(4):
        side = 1 << i
        other = cells[GRID, cell + delta(side, w)]
        if other >= 0 and other & opposite(side):
            found |= side
    return found


@numba.njit(cache=True)
def open_between(cells: Ints, w: int, cell: int, side: int) -> bool:
    """True when a hero may step from the card `cell` across `side`."""
    here: int
    there: int
    here, there = cells[GRID, cell], cells[GRID, cell + delta(side, w)]
    return here >= 0 and there >= 0 and (here & side) != 0 and (there & opposite(side)) != 0


@numba.njit(cache=True)
def within_bound(sc: Ints, g: int, w: int, cell: int) -> bool:
    """True when a card at `cell` keeps the pyramid area within g x g (rule place/bound)."""
    if sc[S_CELLS] == 0:
        return True
    x, y = cell % w - g, cell // w - g
    width: int = max(sc[S_MAXX], x) - min(sc[S_MINX], x) + 1
    height: int = max(sc[S_MAXY], y) - min(sc[S_MINY], y) + 1
    return width <= g and height <= g


@numba.njit(cache=True, inline="always")
def hero_at(heroes: Ints, p: int, h: int, mp: int, mh: int, mc: int) -> int:
    """Where hero (p, h) stands, with hero (mp, mh) moved to `mc` (mp = -1: none moved)."""
    if p == mp and h == mh:
        return mc
    return heroes[H_POS, p, h]  # type: ignore[no-any-return]  # numpy's stubs: an element is Any


# -- the kernel: the cut-off rule -----------------------------------------------------------------
@numba.njit(cache=True)
def label_walled(cells: Ints, w: int, ncards: int, walled: int) -> None:
    """Row LABEL: each card's component of the labyrinth with the card at `walled` walled all
    round (a component number; the walled card is alone in its own)."""
    for i in range(ncards):
        cells[LABEL, cells[CARDS, i]] = -1
    label = 0
    for i in range(ncards):
        start = cells[CARDS, i]
        if cells[LABEL, start] >= 0:
            continue
        cells[LABEL, start] = label
        if start != walled:
            head, tail = 0, 1
            cells[QUEUE, 0] = start
            while head < tail:
                here = cells[QUEUE, head]
                head += 1
                for k in range(4):
                    side = 1 << k
                    there = here + delta(side, w)
                    if (cells[GRID, here] & side and there != walled and cells[GRID, there] >= 0
                            and cells[LABEL, there] < 0 and cells[GRID, there] & opposite(side)):
                        cells[LABEL, there] = label
                        cells[QUEUE, tail] = there
                        tail += 1
        label += 1


@numba.njit(cache=True)
def some_chief_apart(heroes: Ints, players: int, mp: int, mh: int, mc: int) -> bool:
    """True when some chief stands on neither of his slaves' cards (only those can be cut off)."""
    for p in range(players):
        chief = hero_at(heroes, p, 0, mp, mh, mc)
        if chief != hero_at(heroes, p, 1, mp, mh, mc) and chief != hero_at(heroes, p, 2, mp, mh, mc):
            return True
    return False


@numba.njit(cache=True)
def chief_cut_off(cells: Ints, heroes: Ints, w: int, cell: int, mask: int, open_to: int, players: int,
                  mp: int, mh: int, mc: int) -> bool:
    """Rule place/chiefs: True when a card with `mask` at `cell` (no hero on it) leaves some chief
    without a path to either slave. Row LABEL holds the components with `cell` walled; the card
    joins those beyond its open sides that face open sides (`open_to`, the facing sides)."""
    joined = mask & open_to
    for p in range(players):
        chief = hero_at(heroes, p, 0, mp, mh, mc)
        reached = False
        for h in (1, 2):
            slave = hero_at(heroes, p, h, mp, mh, mc)
            if slave == chief or cells[LABEL, slave] == cells[LABEL, chief]:
                reached = True
                break
            chief_in = False
            slave_in = False
            for k in range(4):
                side = 1 << k
                if joined & side:
                    other = cells[LABEL, cell + delta(side, w)]
                    chief_in |= other == cells[LABEL, chief]
                    slave_in |= other == cells[LABEL, slave]
            if chief_in and slave_in:
                reached = True
                break
        if not reached:
            return True
    return False


# -- the kernel: placements ---------------------------------------------------------------------
@numba.njit(cache=True)
def fitting_orientations(par: Ints, table: Ints, cells: Ints, heroes: Ints, sc: Ints, cell: int, mp: int,
                         mh: int, mc: int, scared: bool) -> int:
    """The orientations (bit o: the card's distinct orientation o) in which the drawn card may
    be placed at `cell`, hero (mp, mh) standing at `mc` (mp = -1: as they stand), the card's
    souls scared away if `scared`. Rules place/bound, place/cover-empty, place/connect and
    place/chiefs."""
    g, w, card = par[P_G], par[P_W], sc[S_CARD]
    open_to = facing(cells, w, cell)
    found = 0
    if cells[GRID, cell] < 0:
        if within_bound(sc, g, w, cell):
            for o in range(table[card, T_ORIENTATIONS]):
                if table[card, T_OMASK + o] & open_to:
                    found |= 1 << o
        return found
    heroes_there = cells[HCOUNT, cell]
    if mp >= 0:
        heroes_there += (mc == cell) - (heroes[H_POS, mp, mh] == cell)
    if heroes_there > 0 or (cells[LOOSE_N, cell] > 0 and not scared):
        return 0
    players = sc[S_PLAYERS]
    check = some_chief_apart(heroes, players, mp, mh, mc)
    if check and sc[S_LABELLED] != cell:
        label_walled(cells, w, sc[S_CELLS], cell)
        sc[S_LABELLED] = cell
    for o in range(table[card, T_ORIENTATIONS]):
        mask = table[card, T_OMASK + o]
        if mask & open_to and not (check and chief_cut_off(cells, heroes, w, cell, mask, open_to,
                                                           players, mp, mh, mc)):
            found |= 1 << o
    return found


@numba.njit(cache=True)
def add_placements(par: Ints, table: Ints, cells: Ints, heroes: Ints, sc: Ints, acts: Ints, n: int,
                   cell: int) -> int:
    """Append the legal placements at `cell` to `acts[n:]` as action codes; return the count."""
    if cells[GRID, cell] < 0 and facing(cells, par[P_W], cell) == 0:
        return n  # not next to a card: nothing to check
    # int(), bool(): numba types them int64/bool, not literals (a second compiled copy)
    fits = fitting_orientations(par, table, cells, heroes, sc, cell, int(-1), int(0),
                                int(-1), bool(False))
    for o in range(4):
        if fits & (1 << o):
            acts[n] = A_PLACE + 4 * cell + table[sc[S_CARD], T_ROT + o]
            n += 1
    return n


@numba.njit(cache=True)
def placements(par: Ints, table: Ints, cells: Ints, heroes: Ints, sc: Ints, acts: Ints) -> int:
    """The legal placements (and return) as action codes in `acts`; return their count."""
    g, w = par[P_G], par[P_W]
    n = int(0)  # not a literal: numba would compile add_placements twice
    if sc[S_CELLS] == 0:  # rule setup/first-middle
        for o in range(table[sc[S_CARD], T_ORIENTATIONS]):
            acts[n] = A_PLACE + 4 * (g * w + g) + table[sc[S_CARD], T_ROT + o]
            n += 1
        return n
    if sc[S_SCARE] >= 0:  # rule scare/move-on-and-cover: the card goes on the scared card
        n = add_placements(par, table, cells, heroes, sc, acts, n, sc[S_SCARE])
    else:
        # Only cells within the bound and next to a card or on one: a box around the cards.
        x_lo, x_hi = max(sc[S_MAXX] - g + 1, sc[S_MINX] - 1), min(sc[S_MINX] + g - 1, sc[S_MAXX] + 1)
        y_lo, y_hi = max(sc[S_MAXY] - g + 1, sc[S_MINY] - 1), min(sc[S_MINY] + g - 1, sc[S_MAXY] + 1)
        for y in range(y_lo, y_hi + 1):
            for x in range(x_lo, x_hi + 1):
                n = add_placements(par, table, cells, heroes, sc, acts, n, (y + g) * w + x + g)
    full = sc[S_CELLS] >= g * g
    free = full or par[P_FREE] == 1  # option placement_mandatory
    if n == 0 or (sc[S_PHASE] == PH_PLACE and free and sc[S_SCARE] < 0):  # rule place/compulsory
        acts[n] = A_RETURN
        n += 1
    return n


# -- the kernel: the move phase ------------------------------------------------------------------
@numba.njit(cache=True)
def can_cover_scared(par: Ints, table: Ints, cells: Ints, heroes: Ints, sc: Ints, player: int, at: int,
                     left: int, target: int) -> bool:
    """Rule scare/move-on-and-cover: True when the moving slave, at `at` with `left` steps to
    go, can end its move on a card other than `target` from which the drawn card may be placed on
    the emptied `target` (cards reachable without passing a full card, as `_reachable`)."""
    w, full, hero = par[P_W], par[P_MAXH], sc[S_HERO]
    here = heroes[H_POS, player, hero]
    cells[REACH] = -1
    cells[REACH, at] = 0
    head, tail = 0, 1
    cells[BFS, 0] = at
    while head < tail:
        end = cells[BFS, head]
        head += 1
        if end != target and fitting_orientations(par, table, cells, heroes, sc, target,
                                                  player, hero, end, bool(True)):
            return True
        if cells[REACH, end] < left:
            for k in range(4):
                side = 1 << k
                there = end + delta(side, w)
                if (cells[REACH, there] < 0 and open_between(cells, w, end, side)
                        and cells[HCOUNT, there] - (there == here) < full):
                    cells[REACH, there] = cells[REACH, end] + 1
                    cells[BFS, tail] = there
                    tail += 1
    return False


@numba.njit(cache=True)
def move_actions(par: Ints, table: Ints, cells: Ints, loose: Ints, heroes: Ints, sc: Ints, acts: Ints) -> int:
    """The legal actions of the move phase as codes in `acts`; return their count."""
    player, hero = sc[S_TURN], sc[S_HERO]
    if hero < 0:  # rule move/one-hero: choose a hero, or move none
        for h in range(3):
            acts[h] = A_SELECT + h
        acts[3] = A_END
        return 4
    w, steps, scare = par[P_W], sc[S_STEPS], sc[S_SCARE]
    here = heroes[H_POS, player, hero]
    n = 0
    limit = par[P_CHIEF_STEPS] if hero == 0 else par[P_SLAVE_STEPS]
    if steps < limit:  # rules move/*
        for k in range(4):
            there = here + delta(1 << k, w)
            if (open_between(cells, w, here, 1 << k) and cells[HCOUNT, there] < par[P_MAXH]
                    and (scare < 0 or can_cover_scared(par, table, cells, heroes, sc, player, there,
                                                       par[P_SLAVE_STEPS] - steps - 1, scare))):
                acts[n] = A_STEP + 4 * hero + k
                n += 1
    if hero == 0:
        if sc[S_THEFTS] < par[P_THEFTS]:  # rules steal/*
            for p in range(sc[S_PLAYERS]):
                if p != player and heroes[H_POS, p, 0] != here:
                    for h in (1, 2):
                        if heroes[H_POS, p, h] == here and heroes[H_N, p, h] >= 2:
                            acts[n] = A_STEAL + 2 * p + h - 1
                            n += 1
    else:
        kind, carried = heroes[H_KIND, player, hero], heroes[H_N, player, hero]
        for k in range(par[P_KINDS]):  # rules take/*
            if (carried > 0 and k != kind) or cells[DROPPED, here] & (1 << k):
                continue
            for i in range(cells[LOOSE_N, here]):
                if loose[here, i] == k:
                    acts[n] = A_TAKE + k
                    n += 1
                    break
        if carried > 0 and scare != here:  # rule drop/whole-pile
            acts[n] = A_DROP
            n += 1
        if (scare < 0 and cells[HCOUNT, here] == 1 and cells[LOOSE_N, here] + carried > 0
                and can_cover_scared(par, table, cells, heroes, sc, player, here,
                                     par[P_SLAVE_STEPS] - steps, here)):  # rules scare/*
            acts[n] = A_SCARE
            n += 1
        if carried >= 2 and heroes[H_POS, player, 0] == here:  # rules give/*
            acts[n] = A_GIVE
            n += 1
    if scare < 0 or can_cover_scared(par, table, cells, heroes, sc, player, here, int(0), scare):
        acts[n] = A_END
        n += 1
    return n


# -- the kernel: applying ------------------------------------------------------------------------
@numba.njit(cache=True)
def put_bottom(pile: Ints, sc: Ints, head_at: int, count_at: int, item: int) -> None:
    """Put `item` at the bottom of a ring-buffer pile (deck or supply)."""
    pile[(sc[head_at] + sc[count_at]) % len(pile)] = item
    sc[count_at] += 1


@numba.njit(cache=True)
def draw_top(pile: Ints, sc: Ints, head_at: int, count_at: int) -> int:
    """Take the top of a ring-buffer pile."""
    item: int = pile[sc[head_at]]
    sc[head_at] = (sc[head_at] + 1) % len(pile)
    sc[count_at] -= 1
    return item


@numba.njit(cache=True)
def next_turn(par: Ints, cells: Ints, deck: Ints, supply: Ints, sc: Ints, placed: bool) -> None:
    """Rules end/last-card, end/stall, turn/clockwise and draw/card-and-soul (as `_next_turn`)."""
    sc[S_STALL] = 0 if placed else sc[S_STALL] + 1
    sc[S_CARD] = sc[S_SOUL] = sc[S_HERO] = sc[S_SCARE] = -1
    sc[S_STEPS] = sc[S_THEFTS] = 0
    cells[DROPPED] = 0
    if (placed and sc[S_DECK_N] == 0) or (par[P_STALL] >= 0 and sc[S_STALL] >= par[P_STALL]):
        sc[S_PHASE] = PH_OVER
        return
    if sc[S_PHASE] == PH_SETUP:
        if placed:
            sc[S_START] += 1
            sc[S_TURN] = (sc[S_TURN] + 1) % sc[S_PLAYERS]
        if sc[S_START] < sc[S_PLAYERS]:
            sc[S_CARD] = draw_top(deck, sc, S_DECK_HEAD, S_DECK_N)  # no soul in setup
            return
    else:
        sc[S_TURN] = (sc[S_TURN] + 1) % sc[S_PLAYERS]
    sc[S_PHASE] = PH_MOVE
    sc[S_CARD] = draw_top(deck, sc, S_DECK_HEAD, S_DECK_N)
    if sc[S_SUP_N] > 0:
        sc[S_SOUL] = draw_top(supply, sc, S_SUP_HEAD, S_SUP_N)


@numba.njit(cache=True)
def place_card(par: Ints, table: Ints, cells: Ints, loose: Ints, heroes: Ints, sc: Ints, cell: int,
               rotation: int) -> None:
    """Rules place/soul and setup/heroes: the drawn card goes to `cell`, then what goes on it."""
    g, w, player = par[P_G], par[P_W], sc[S_TURN]
    if cells[GRID, cell] < 0:
        x, y = cell % w - g, cell // w - g
        if sc[S_CELLS] == 0:
            sc[S_MINX], sc[S_MINY], sc[S_MAXX], sc[S_MAXY] = x, y, x, y
        else:
            sc[S_MINX], sc[S_MAXX] = min(sc[S_MINX], x), max(sc[S_MAXX], x)
            sc[S_MINY], sc[S_MAXY] = min(sc[S_MINY], y), max(sc[S_MAXY], y)
        cells[CARDS, sc[S_CELLS]] = cell
        sc[S_CELLS] += 1
    cells[GRID, cell] = table[sc[S_CARD], T_MASK + rotation]
    sc[S_LABELLED] = -1  # the labyrinth changed
    if sc[S_PHASE] == PH_SETUP:
        for h in range(3):
            heroes[H_POS, player, h] = cell
        cells[HCOUNT, cell] += 3
    elif sc[S_SOUL] >= 0:
        loose[cell, 0] = sc[S_SOUL]
        cells[LOOSE_N, cell] = 1


@numba.njit(cache=True)
def scare_souls(cells: Ints, loose: Ints, heroes: Ints, supply: Ints, sc: Ints, cell: int) -> None:
    """Rule scare/all-souls: the souls lying on `cell`, then those carried there (player, hero
    order), go face down to the bottom of the supply."""
    for i in range(cells[LOOSE_N, cell]):
        put_bottom(supply, sc, S_SUP_HEAD, S_SUP_N, loose[cell, i])
    cells[LOOSE_N, cell] = 0
    for p in range(sc[S_PLAYERS]):
        for h in range(3):
            if heroes[H_POS, p, h] == cell:
                for _ in range(heroes[H_N, p, h]):
                    put_bottom(supply, sc, S_SUP_HEAD, S_SUP_N, heroes[H_KIND, p, h])
                heroes[H_N, p, h] = 0
    sc[S_SCARE] = cell


@numba.njit(cache=True)
def pile_score(curve: int, n: int) -> int:
    """Rule score/piles: the points of a pile of `n` (`PILE_SCORINGS`, by index)."""
    if curve == 1:
        return n
    if curve == 2:
        return n * (n - 1) // 2
    if curve == 3:
        return (n - 1) * (n - 1)
    return n - 1


@numba.njit(cache=True)
def bank(par: Ints, heroes: Ints, sc: Ints, player: int, owner: int, slave: int) -> None:
    """Rule piles/never-merge: a slave's pile becomes a new pile of `player` (kept as sums)."""
    n = heroes[H_N, owner, slave]
    sc[S_POINTS + player] += pile_score(par[P_PILES], n)
    sc[S_COLLECTED + player] += n
    heroes[H_N, owner, slave] = 0


@numba.njit(cache=True)
def apply_move(par: Ints, cells: Ints, loose: Ints, heroes: Ints, supply: Ints, sc: Ints, code: int) -> None:
    """Carry out a move-phase action (rules.py `_do_*`)."""
    player, hero = sc[S_TURN], sc[S_HERO]
    if code < A_STEP:
        sc[S_HERO] = code - A_SELECT
        return
    here = heroes[H_POS, player, hero]
    if code < A_DROP:
        there = here + delta(1 << ((code - A_STEP) % 4), par[P_W])
        heroes[H_POS, player, hero] = there
        cells[HCOUNT, here] -= 1
        cells[HCOUNT, there] += 1
        sc[S_STEPS] += 1
    elif code == A_DROP:
        for _ in range(heroes[H_N, player, hero]):
            loose[here, cells[LOOSE_N, here]] = heroes[H_KIND, player, hero]
            cells[LOOSE_N, here] += 1
        heroes[H_N, player, hero] = 0
        cells[DROPPED, here] |= 1 << heroes[H_KIND, player, hero]
    elif code == A_SCARE:
        scare_souls(cells, loose, heroes, supply, sc, here)
    elif code == A_END:
        sc[S_PHASE] = PH_PLACE
    elif code == A_GIVE:
        bank(par, heroes, sc, player, player, hero)
    elif code < A_TAKE:
        victim = code - A_STEAL
        bank(par, heroes, sc, player, victim // 2, 1 + victim % 2)
        sc[S_THEFTS] += 1
    else:  # take: the first soul of that kind in the card's list
        kind = code - A_TAKE
        found = False
        for i in range(cells[LOOSE_N, here]):
            if found:
                loose[here, i - 1] = loose[here, i]
            elif loose[here, i] == kind:
                found = True
        cells[LOOSE_N, here] -= 1
        heroes[H_KIND, player, hero] = kind
        heroes[H_N, player, hero] += 1


# -- the kernel: whole games ---------------------------------------------------------------------
@numba.njit(cache=True)
def grown(log: Ints) -> Ints:
    """`log` with twice the rows (the first ones copied)."""
    bigger = np.zeros((2 * log.shape[0], 3), dtype=np.int64)
    # Element by element: a slice assignment of 2-d arrays has numba compile its shape-error
    # message (numba's string formatting), about a third of the kernel's first compilation.
    for row in range(log.shape[0]):
        for col in range(3):
            bigger[row, col] = log[row, col]
    return bigger


@numba.njit(cache=True)
def play_game(par: Ints, table: Ints, cells: Ints, loose: Ints, heroes: Ints, deck: Ints, supply: Ints,
              sc: Ints, acts: Ints, log: Ints, k: int) -> tuple[Ints, int]:
    """Play one game to the end from the arrays given (changed in place), logging each decision
    (player, code, number of legal actions) from row `k`; return the log and its next row."""
    par, table, cells, loose = borrowed(par), borrowed(table), borrowed(cells), borrowed(loose)
    heroes, deck, supply = borrowed(heroes), borrowed(deck), borrowed(supply)
    sc, acts = borrowed(sc), borrowed(acts)
    while sc[S_PHASE] != PH_OVER:
        if sc[S_PHASE] == PH_MOVE:
            n = move_actions(par, table, cells, loose, heroes, sc, acts)
        else:
            n = placements(par, table, cells, heroes, sc, acts)
        code = acts[np.random.randint(0, n)]
        if k >= log.shape[0]:
            log = grown(log)
        log[k, 0], log[k, 1], log[k, 2] = sc[S_TURN], code, n
        k += 1
        if code >= A_PLACE:
            place_card(par, table, cells, loose, heroes, sc, (code - A_PLACE) // 4,
                       (code - A_PLACE) % 4)
            next_turn(par, cells, deck, supply, sc, bool(True))
        elif code == A_RETURN:
            put_bottom(deck, sc, S_DECK_HEAD, S_DECK_N, sc[S_CARD])
            if sc[S_SOUL] >= 0:
                put_bottom(supply, sc, S_SUP_HEAD, S_SUP_N, sc[S_SOUL])
            next_turn(par, cells, deck, supply, sc, bool(False))
        else:
            apply_move(par, cells, loose, heroes, supply, sc, code)
    return log, k


@numba.njit(cache=True)
def play_batch(par: Ints, table: Ints, cells: Ints, loose: Ints, heroes: Ints, deck: Ints, supply: Ints,
               sc: Ints, seed: np.int64) -> tuple[Ints, Ints, Ints]:
    """Play every game of a batch (arrays stacked along axis 0, left unchanged) to the end with
    numba's generator seeded by `seed`; return the log, the offsets and the final scalars (with
    the players' points and souls collected)."""
    np.random.seed(seed)
    games = cells.shape[0]
    log = np.zeros((1024 * games, 3), dtype=np.int64)
    offsets = np.zeros(games + 1, dtype=np.int64)
    final = sc.copy()
    acts = np.zeros(MAX_ACTIONS, dtype=np.int64)
    k = int(0)  # not a literal: a literal 0 compiles play_game twice
    for i in range(games):
        log, k = play_game(par, table, cells[i].copy(), loose[i].copy(), heroes[i].copy(),
                           deck[i].copy(), supply[i].copy(), final[i], acts, log, k)
        offsets[i + 1] = k
    return log[:k].copy(), offsets, final

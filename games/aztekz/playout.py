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
from a setup, whose first card is at ``0,0``); at most 996 soul kinds and 4 players.

State layout (one game; a batch stacks these along a first axis):

* cells: a square window of ``W = 2 * grid_size + 1`` columns and rows around ``0,0``; the cell
  ``x,y`` has index ``(y + grid_size) * W + (x + grid_size)``. Cards lie at most
  ``grid_size - 1`` from ``0,0``, so every neighbour of a card or of a free cell next to one is
  inside the window (no bounds tests).
* ``grid[C]``: open sides of the visible card (N=1, E=2, S=4, W=8), -1 where no card lies.
* ``loose[C, S]``, ``loose_n[C]``: the kinds (indices into the components' soul kinds) of the
  souls lying on each card, in the order of the rules' list (a scare sends them to the supply
  in that order), and how many.
* ``pos[P, 3]``: the cell of each player's chief, slave1, slave2; -1 before the setup card.
* ``carry_kind[P, 3]``, ``carry_n[P, 3]``: the pile a hero carries (n = 0: none).
* ``points[P]``, ``collected[P]``: the players' piles, summed: size minus one, and size.
* ``deck[NC]``, ``supply[NS]``: ring buffers (top at the head), card ids and soul kinds.
* ``dropped[C]``: cards where the moving slave dropped souls this turn.
* ``sc[NSC]``: the scalars, named by the ``S_*`` indices below (-1 for None).

Action codes (independent of the state; `decode` turns them into the interface's actions):
0-2 select a hero; 3 + 4 * hero + side (N, E, S, W) a step; 15 drop, 16 scare, 17 give,
18 end, 19 return; 20 + 2 * player + slave - 1 steal; 28 + kind take; 1024 + 4 * cell + rotation
place.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numba
import numpy as np

from games.aztekz.components import HEROES, Components
from games.aztekz.rules import (
    MOVE,
    OVER,
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
)
from geomsim.discrete import SIDE_NAMES, SIDES
from geomsim.rules import Action, Playouts

# Phases.
PH_SETUP, PH_MOVE, PH_PLACE, PH_OVER = 0, 1, 2, 3
PHASE_CODE = {SETUP: PH_SETUP, MOVE: PH_MOVE, PLACE: PH_PLACE, OVER: PH_OVER}

# Parameters of the components and the number of players: indices into `par`.
(P_G, P_W, P_MAXH, P_CHIEF_STEPS, P_SLAVE_STEPS, P_THEFTS, P_STALL, P_KINDS) = range(8)
NPAR = 8

# Scalars of a game: indices into `sc`.
(S_PLAYERS, S_TURN, S_PHASE, S_START, S_CARD, S_SOUL, S_HERO, S_STEPS, S_THEFTS, S_SCARE,
 S_STALL, S_DECK_HEAD, S_DECK_N, S_SUP_HEAD, S_SUP_N, S_CELLS, S_MINX, S_MINY, S_MAXX,
 S_MAXY) = range(20)
NSC = 20

# Action codes.
A_SELECT, A_STEP, A_DROP, A_SCARE, A_GIVE, A_END, A_RETURN, A_STEAL, A_TAKE, A_PLACE = (
    0, 3, 15, 16, 17, 18, 19, 20, 28, 1024)
MAX_KINDS = A_PLACE - A_TAKE
MAX_ACTIONS = 1024  # more than the placements of a card: 4 orientations of each window cell


# The arrays of a game, in the order `play_batch` takes them.
STATE_ARRAYS = ("grid", "loose", "loose_n", "pos", "carry_kind", "carry_n", "points",
                "collected", "deck", "supply", "dropped", "sc")


# -- encoding -----------------------------------------------------------------------------------
def params(comp: Components) -> np.ndarray:
    """The numbers of the rules the kernel needs, as `par`."""
    if len(comp.soul_kinds) > MAX_KINDS:
        raise ValueError(f"aztekz playouts: at most {MAX_KINDS} soul kinds, not {len(comp.soul_kinds)}")
    g = comp.grid_size
    stall = -1 if comp.stall_limit is None else comp.stall_limit
    return np.array([g, 2 * g + 1, comp.max_heroes_per_card, comp.chief_steps, comp.slave_steps,
                     comp.thefts_per_turn, stall, len(comp.soul_kinds)], dtype=np.int64)


def card_tables(comp: Components) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per card id: the side mask for each rotation, and its distinct orientations (rotation,
    mask; the smallest rotation of each mask, as `Components.orientations`) and their count."""
    n = comp.cards
    masks = np.array([[comp.sides(c, r) for r in range(4)] for c in range(n)], dtype=np.int64)
    orient_r = np.zeros((n, 4), dtype=np.int64)
    orient_m = np.zeros((n, 4), dtype=np.int64)
    orient_n = np.zeros(n, dtype=np.int64)
    for c, options in enumerate(comp.orientations):  # type: ignore[attr-defined]
        orient_n[c] = len(options)
        for i, (r, m) in enumerate(options):
            orient_r[c, i], orient_m[c, i] = r, m
    return masks, orient_r, orient_m, orient_n


def encode(state: AztekzState) -> dict[str, np.ndarray]:
    """The arrays of the layout above for `state` (any moment of a game; it is left unchanged)."""
    comp = state.comp
    g, w = comp.grid_size, 2 * comp.grid_size + 1
    kinds = {k: i for i, k in enumerate(comp.soul_kinds)}
    players, cells, souls = state.num_players, w * w, len(comp.souls())

    def index(cell: tuple[int, int] | None) -> int:
        if cell is None:
            return -1
        x, y = cell
        if abs(x) >= g or abs(y) >= g:
            raise ValueError(f"aztekz playouts: card {x},{y} lies {g} or more from 0,0")
        return (y + g) * w + (x + g)

    grid = np.full(cells, -1, dtype=np.int64)
    for cell, mask in state.grid.cells.items():
        grid[index(cell)] = mask
    loose = np.zeros((cells, max(souls, 1)), dtype=np.int64)
    loose_n = np.zeros(cells, dtype=np.int64)
    for cell, lying in state.loose.items():
        i = index(cell)
        loose_n[i] = len(lying)
        loose[i, :len(lying)] = [kinds[k] for k in lying]
    pos = np.full((4, 3), -1, dtype=np.int64)
    carry_kind = np.zeros((4, 3), dtype=np.int64)
    carry_n = np.zeros((4, 3), dtype=np.int64)
    for p in range(players):
        for h in range(3):
            pos[p, h] = index(state.pos[p][h])
            if state.carry[p][h]:
                carry_kind[p, h], carry_n[p, h] = kinds[state.carry[p][h][0]], state.carry[p][h][1]
    points = np.zeros(4, dtype=np.int64)
    collected = np.zeros(4, dtype=np.int64)
    for p, piles in enumerate(state.piles):
        points[p] = sum(n - 1 for _, n in piles)
        collected[p] = sum(n for _, n in piles)
    deck = np.zeros(comp.cards, dtype=np.int64)
    deck[:len(state.deck)] = state.deck.cards
    supply = np.zeros(max(souls, 1), dtype=np.int64)
    supply[:len(state.supply)] = [kinds[k] for k in state.supply.cards]
    dropped = np.zeros(cells, dtype=np.bool_)
    for cell in state.dropped:
        dropped[index(cell)] = True
    bounds = state.grid.bounds() or (0, 0, 0, 0)
    sc = np.zeros(NSC, dtype=np.int64)
    sc[S_PLAYERS], sc[S_TURN], sc[S_PHASE] = players, state.turn, PHASE_CODE[state.phase]
    sc[S_START] = state.start_cards
    sc[S_CARD] = -1 if state.card is None else state.card
    sc[S_SOUL] = -1 if state.soul is None else kinds[state.soul]
    sc[S_HERO] = -1 if state.hero is None else state.hero
    sc[S_STEPS], sc[S_THEFTS], sc[S_SCARE] = state.steps, state.thefts, index(state.scare)
    sc[S_STALL], sc[S_DECK_N], sc[S_SUP_N] = state.stall, len(state.deck), len(state.supply)
    sc[S_CELLS] = len(state.grid.cells)
    sc[S_MINX], sc[S_MINY], sc[S_MAXX], sc[S_MAXY] = bounds
    found = {"grid": grid, "loose": loose, "loose_n": loose_n, "pos": pos,
             "carry_kind": carry_kind, "carry_n": carry_n, "points": points,
             "collected": collected, "deck": deck, "supply": supply, "dropped": dropped, "sc": sc}
    return {name: found[name] for name in STATE_ARRAYS}


@lru_cache(maxsize=8)
def decoder(grid_size: int, soul_kinds: tuple[str, ...]):
    """`decode(code) -> Action` for components of that grid size and those soul kinds."""
    g, w = grid_size, 2 * grid_size + 1

    @lru_cache(maxsize=None)
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


def kernel_inputs(states: Sequence[AztekzState]) -> tuple:
    """The arguments of `play_batch` but the seed: tables of the components, then the encoded
    states stacked (`ValueError` unless the states share components and number of players)."""
    if not states:
        raise ValueError("aztekz playouts: no states given")
    comp, players = states[0].comp, states[0].num_players
    if any(s.comp is not comp for s in states):
        raise ValueError("aztekz playouts: all states of a batch must share their components")
    if any(s.num_players != players for s in states):
        raise ValueError("aztekz playouts: all states of a batch must have as many players")
    coded = [encode(s) for s in states]
    masks, orient_r, orient_m, orient_n = card_tables(comp)
    return (params(comp), masks, orient_m, orient_r, orient_n,
            *(np.stack([c[name] for c in coded]) for name in STATE_ARRAYS))


def random_playouts(states: Sequence[AztekzState], seed: int = 0) -> Playouts:
    """Play copies of `states` to the end with uniform random choices (see the module docstring)."""
    log, offsets, points, collected = play_batch(*kernel_inputs(states), np.int64(seed))
    comp, players = states[0].comp, states[0].num_players
    points, collected = points[:, :players], collected[:, :players]
    return Playouts(scores=points.astype(float), winners=winners(points, collected),
                    log=log, offsets=offsets, decode=decoder(comp.grid_size, comp.soul_kinds))


def winners(points: np.ndarray, collected: np.ndarray) -> np.ndarray:
    """Rule ``aztekz/score/tie``: most points, then most souls collected; still tied share."""
    key = points * (collected.max() + 1) + collected
    return key == key.max(axis=1, keepdims=True)


# -- the kernel: small queries ------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def opposite(side):
    """The side facing `side` across a cell border (N <-> S, E <-> W)."""
    return ((side << 2) | (side >> 2)) & 15


@numba.njit(cache=True, inline="always")
def delta(side, w):
    """The index step across `side` (N is +y, a row up)."""
    if side == 1:
        return w
    if side == 2:
        return 1
    if side == 4:
        return -w
    return -1


@numba.njit(cache=True)
def facing(grid, w, cell):
    """The sides of `cell` beyond which a card has an open side facing it."""
    found = 0
    for i in range(4):
        side = 1 << i
        other = grid[cell + delta(side, w)]
        if other >= 0 and other & opposite(side):
            found |= side
    return found


@numba.njit(cache=True)
def open_between(grid, w, cell, side):
    """True when a hero may step from the card `cell` across `side`."""
    there = grid[cell + delta(side, w)]
    return grid[cell] >= 0 and there >= 0 and (grid[cell] & side) != 0 and (there & opposite(side)) != 0


@numba.njit(cache=True)
def within_bound(sc, g, w, cell):
    """True when a card at `cell` keeps the pyramid area within g x g (rule place/bound)."""
    if sc[S_CELLS] == 0:
        return True
    x, y = cell % w - g, cell // w - g
    width = max(sc[S_MAXX], x) - min(sc[S_MINX], x) + 1
    height = max(sc[S_MAXY], y) - min(sc[S_MINY], y) + 1
    return width <= g and height <= g


@numba.njit(cache=True)
def hero_at(pos, p, h, mp, mh, mc):
    """Where hero (p, h) stands, with hero (mp, mh) moved to `mc` (mp = -1: none moved)."""
    if p == mp and h == mh:
        return mc
    return pos[p, h]


# -- the kernel: the cut-off rule -----------------------------------------------------------------
@numba.njit(cache=True)
def label_walled(grid, w, cards, ncards, walled, labels, queue):
    """Label each card's component of the labyrinth with the card at `walled` walled all round
    (labels[cell] = a component number; the walled card is alone in its own)."""
    for i in range(ncards):
        labels[cards[i]] = -1
    label = 0
    for i in range(ncards):
        start = cards[i]
        if labels[start] >= 0:
            continue
        labels[start] = label
        if start != walled:
            head, tail = 0, 1
            queue[0] = start
            while head < tail:
                here = queue[head]
                head += 1
                for k in range(4):
                    side = 1 << k
                    if grid[here] & side:
                        there = here + delta(side, w)
                        if (there != walled and grid[there] >= 0 and labels[there] < 0
                                and grid[there] & opposite(side)):
                            labels[there] = label
                            queue[tail] = there
                            tail += 1
        label += 1


@numba.njit(cache=True)
def some_chief_apart(pos, players, mp, mh, mc):
    """True when some chief stands on neither of his slaves' cards (only those can be cut off)."""
    for p in range(players):
        chief = hero_at(pos, p, 0, mp, mh, mc)
        if chief != hero_at(pos, p, 1, mp, mh, mc) and chief != hero_at(pos, p, 2, mp, mh, mc):
            return True
    return False


@numba.njit(cache=True)
def chief_cut_off(grid, w, labels, cell, mask, open_to, pos, players, mp, mh, mc):
    """Rule place/chiefs: True when a card with `mask` at `cell` (no hero on it) leaves some chief
    without a path to either slave. `labels` are the components with `cell` walled; the card joins
    the components beyond its open sides that face open sides (`open_to`, the facing sides)."""
    joined = mask & open_to
    for p in range(players):
        chief = hero_at(pos, p, 0, mp, mh, mc)
        reached = False
        for h in (1, 2):
            slave = hero_at(pos, p, h, mp, mh, mc)
            if slave == chief or labels[slave] == labels[chief]:
                reached = True
                break
            chief_in = False
            slave_in = False
            for k in range(4):
                side = 1 << k
                if joined & side:
                    other = labels[cell + delta(side, w)]
                    chief_in |= other == labels[chief]
                    slave_in |= other == labels[slave]
            if chief_in and slave_in:
                reached = True
                break
        if not reached:
            return True
    return False


# -- the kernel: placements ---------------------------------------------------------------------
@numba.njit(cache=True)
def fitting_rotations(par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc, cards,
                      labels, queue, cell, mp, mh, mc, scared, out, n):
    """Append to `out[n:]` the rotations (one per distinct orientation) in which the drawn card
    may be placed at `cell`, hero (mp, mh) standing at `mc` (mp = -1: as they stand), the card's
    souls scared away if `scared`; return the new count. Rules place/bound, place/cover-empty,
    place/connect and place/chiefs."""
    g, w, card = par[P_G], par[P_W], sc[S_CARD]
    open_to = facing(grid, w, cell)
    if grid[cell] < 0:
        if not within_bound(sc, g, w, cell):
            return n
        for o in range(orient_n[card]):
            if omask[card, o] & open_to:
                out[n] = orient_r[card, o]
                n += 1
        return n
    heroes = hcount[cell]
    if mp >= 0:
        heroes += (mc == cell) - (pos[mp, mh] == cell)
    if heroes > 0 or (loose_n[cell] > 0 and not scared):
        return n
    players = sc[S_PLAYERS]
    check = some_chief_apart(pos, players, mp, mh, mc)
    if check:
        label_walled(grid, w, cards, sc[S_CELLS], cell, labels, queue)
    for o in range(orient_n[card]):
        mask = omask[card, o]
        if mask & open_to and not (check and chief_cut_off(grid, w, labels, cell, mask, open_to,
                                                           pos, players, mp, mh, mc)):
            out[n] = orient_r[card, o]
            n += 1
    return n


@numba.njit(cache=True)
def placements(par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc, cards, labels,
               queue, rot, acts):
    """The legal placements (and return) as action codes in `acts`; return their count."""
    g, w = par[P_G], par[P_W]
    n = 0
    if sc[S_CELLS] == 0:  # rule setup/first-middle
        middle = g * w + g
        for o in range(orient_n[sc[S_CARD]]):
            acts[n] = A_PLACE + 4 * middle + orient_r[sc[S_CARD], o]
            n += 1
        return n
    if sc[S_SCARE] >= 0:  # rule scare/move-on-and-cover: the card goes on the scared card
        first, last = sc[S_SCARE], sc[S_SCARE]
    else:
        first, last = w + 1, w * w - w - 2
    for cell in range(first, last + 1):
        x = cell % w
        if x == 0 or x == w - 1:
            continue
        if grid[cell] < 0 and facing(grid, w, cell) == 0:
            continue
        k = fitting_rotations(par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc,
                              cards, labels, queue, cell, -1, 0, -1, False, rot, 0)
        for i in range(k):
            acts[n] = A_PLACE + 4 * cell + rot[i]
            n += 1
    full = sc[S_CELLS] >= g * g
    if n == 0 or (sc[S_PHASE] == PH_PLACE and full and sc[S_SCARE] < 0):  # rule place/compulsory
        acts[n] = A_RETURN
        n += 1
    return n


# -- the kernel: the move phase ------------------------------------------------------------------
@numba.njit(cache=True)
def can_cover_scared(par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc, cards,
                     labels, queue, rot, seen, player, at, left, target):
    """Rule scare/move-on-and-cover: True when the moving slave, at `at` with `left` steps to
    go, can end its move on a card other than `target` from which the drawn card may be placed on
    the emptied `target` (cards reachable without passing a full card, as `_reachable`)."""
    w, full, hero = par[P_W], par[P_MAXH], sc[S_HERO]
    here = pos[player, hero]
    for c in range(w * w):
        seen[c] = -1
    seen[at] = 0
    queue_start = len(queue) - w * w  # the tail of `queue` (labelling uses its head)
    head, tail = queue_start, queue_start + 1
    queue[queue_start] = at
    while head < tail:
        end = queue[head]
        head += 1
        if end != target and fitting_rotations(par, omask, orient_r, orient_n, grid, loose_n,
                                               hcount, pos, sc, cards, labels, queue, target,
                                               player, hero, end, True, rot, 0) > 0:
            return True
        if seen[end] < left:
            for k in range(4):
                side = 1 << k
                there = end + delta(side, w)
                if seen[there] < 0 and open_between(grid, w, end, side) and \
                        hcount[there] - (there == here) < full:
                    seen[there] = seen[end] + 1
                    queue[tail] = there
                    tail += 1
    return False


@numba.njit(cache=True)
def move_actions(par, omask, orient_r, orient_n, grid, loose, loose_n, pos, carry_kind, carry_n,
                 dropped, hcount, sc, cards, labels, queue, rot, seen, acts):
    """The legal actions of the move phase as codes in `acts`; return their count."""
    player, hero = sc[S_TURN], sc[S_HERO]
    if hero < 0:  # rule move/one-hero: choose a hero, or move none
        for h in range(3):
            acts[h] = A_SELECT + h
        acts[3] = A_END
        return 4
    w, steps, scare = par[P_W], sc[S_STEPS], sc[S_SCARE]
    here = pos[player, hero]
    n = 0
    limit = par[P_CHIEF_STEPS] if hero == 0 else par[P_SLAVE_STEPS]
    if steps < limit:
        for k in range(4):
            side = 1 << k
            there = here + delta(side, w)
            if (open_between(grid, w, here, side) and hcount[there] < par[P_MAXH]
                    and (scare < 0 or can_cover_scared(
                        par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc, cards,
                        labels, queue, rot, seen, player, there,
                        par[P_SLAVE_STEPS] - steps - 1, scare))):
                acts[n] = A_STEP + 4 * hero + k
                n += 1
    if hero == 0:
        if sc[S_THEFTS] < par[P_THEFTS]:  # rules steal/*
            for p in range(sc[S_PLAYERS]):
                if p != player and pos[p, 0] != here:
                    for h in (1, 2):
                        if pos[p, h] == here and carry_n[p, h] >= 2:
                            acts[n] = A_STEAL + 2 * p + h - 1
                            n += 1
    else:
        kind, carried = carry_kind[player, hero], carry_n[player, hero]
        if not dropped[here]:  # rules take/*
            for k in range(par[P_KINDS]):
                if carried > 0 and k != kind:
                    continue
                for i in range(loose_n[here]):
                    if loose[here, i] == k:
                        acts[n] = A_TAKE + k
                        n += 1
                        break
        if carried > 0 and scare != here:  # rule drop/whole-pile
            acts[n] = A_DROP
            n += 1
        if scare < 0 and hcount[here] == 1 and loose_n[here] + carried > 0 and can_cover_scared(
                par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc, cards, labels,
                queue, rot, seen, player, here, par[P_SLAVE_STEPS] - steps, here):
            acts[n] = A_SCARE
            n += 1
        if carried >= 2 and pos[player, 0] == here:  # rules give/*
            acts[n] = A_GIVE
            n += 1
    if scare < 0 or can_cover_scared(par, omask, orient_r, orient_n, grid, loose_n, hcount, pos,
                                     sc, cards, labels, queue, rot, seen, player, here, 0, scare):
        acts[n] = A_END
        n += 1
    return n


# -- the kernel: applying ------------------------------------------------------------------------
@numba.njit(cache=True)
def put_bottom(pile, sc, head_at, count_at, item):
    """Put `item` at the bottom of a ring-buffer pile (deck or supply)."""
    pile[(sc[head_at] + sc[count_at]) % len(pile)] = item
    sc[count_at] += 1


@numba.njit(cache=True)
def draw_top(pile, sc, head_at, count_at):
    """Take the top of a ring-buffer pile."""
    item = pile[sc[head_at]]
    sc[head_at] = (sc[head_at] + 1) % len(pile)
    sc[count_at] -= 1
    return item


@numba.njit(cache=True)
def next_turn(par, deck, supply, dropped, sc, placed):
    """Rules end/last-card, end/stall, turn/clockwise and draw/card-and-soul (as `_next_turn`)."""
    sc[S_STALL] = 0 if placed else sc[S_STALL] + 1
    sc[S_CARD] = sc[S_SOUL] = sc[S_HERO] = sc[S_SCARE] = -1
    sc[S_STEPS] = sc[S_THEFTS] = 0
    dropped[:] = False
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
def place_card(par, masks, grid, loose, loose_n, pos, hcount, sc, cards, cell, rotation):
    """Rules place/soul and setup/heroes: the drawn card goes to `cell`, then what goes on it."""
    g, w, player = par[P_G], par[P_W], sc[S_TURN]
    if grid[cell] < 0:
        x, y = cell % w - g, cell // w - g
        if sc[S_CELLS] == 0:
            sc[S_MINX], sc[S_MINY], sc[S_MAXX], sc[S_MAXY] = x, y, x, y
        else:
            sc[S_MINX], sc[S_MAXX] = min(sc[S_MINX], x), max(sc[S_MAXX], x)
            sc[S_MINY], sc[S_MAXY] = min(sc[S_MINY], y), max(sc[S_MAXY], y)
        cards[sc[S_CELLS]] = cell
        sc[S_CELLS] += 1
    grid[cell] = masks[sc[S_CARD], rotation]
    if sc[S_PHASE] == PH_SETUP:
        for h in range(3):
            pos[player, h] = cell
        hcount[cell] += 3
    elif sc[S_SOUL] >= 0:
        loose[cell, 0] = sc[S_SOUL]
        loose_n[cell] = 1


@numba.njit(cache=True)
def scare_souls(grid, loose, loose_n, pos, carry_kind, carry_n, supply, sc, cell):
    """Rule scare/all-souls: the souls lying on `cell`, then those carried there (player, hero
    order), go face down to the bottom of the supply."""
    for i in range(loose_n[cell]):
        put_bottom(supply, sc, S_SUP_HEAD, S_SUP_N, loose[cell, i])
    loose_n[cell] = 0
    for p in range(sc[S_PLAYERS]):
        for h in range(3):
            if pos[p, h] == cell and carry_n[p, h] > 0:
                for _ in range(carry_n[p, h]):
                    put_bottom(supply, sc, S_SUP_HEAD, S_SUP_N, carry_kind[p, h])
                carry_n[p, h] = 0
    sc[S_SCARE] = cell


@numba.njit(cache=True)
def bank(points, collected, carry_n, player, owner, slave):
    """Rule piles/never-merge: a slave's pile becomes a new pile of `player` (kept as sums)."""
    n = carry_n[owner, slave]
    points[player] += n - 1
    collected[player] += n
    carry_n[owner, slave] = 0


@numba.njit(cache=True)
def apply_move(par, grid, loose, loose_n, pos, carry_kind, carry_n, points, collected, supply,
               dropped, hcount, sc, code):
    """Carry out a move-phase action (rules.py `_do_*`)."""
    player, hero = sc[S_TURN], sc[S_HERO]
    if code < A_STEP:
        sc[S_HERO] = code - A_SELECT
        return
    here = pos[player, hero]
    if code < A_DROP:
        there = here + delta(1 << ((code - A_STEP) % 4), par[P_W])
        pos[player, hero] = there
        hcount[here] -= 1
        hcount[there] += 1
        sc[S_STEPS] += 1
    elif code == A_DROP:
        for _ in range(carry_n[player, hero]):
            loose[here, loose_n[here]] = carry_kind[player, hero]
            loose_n[here] += 1
        carry_n[player, hero] = 0
        dropped[here] = True
    elif code == A_SCARE:
        scare_souls(grid, loose, loose_n, pos, carry_kind, carry_n, supply, sc, here)
    elif code == A_END:
        sc[S_PHASE] = PH_PLACE
    elif code == A_GIVE:
        bank(points, collected, carry_n, player, player, hero)
    elif code < A_TAKE:
        victim = code - A_STEAL
        bank(points, collected, carry_n, player, victim // 2, 1 + victim % 2)
        sc[S_THEFTS] += 1
    else:  # take: the first soul of that kind in the card's list
        kind = code - A_TAKE
        found = False
        for i in range(loose_n[here]):
            if found:
                loose[here, i - 1] = loose[here, i]
            elif loose[here, i] == kind:
                found = True
        loose_n[here] -= 1
        carry_kind[player, hero] = kind
        carry_n[player, hero] += 1


# -- the kernel: whole games ---------------------------------------------------------------------
@numba.njit(cache=True)
def grown(log):
    """`log` with twice the rows (the first ones copied)."""
    bigger = np.zeros((2 * log.shape[0], 3), dtype=np.int64)
    bigger[:log.shape[0]] = log
    return bigger


@numba.njit(cache=True)
def play_game(par, masks, omask, orient_r, orient_n, grid, loose, loose_n, pos, carry_kind,
              carry_n, points, collected, deck, supply, dropped, sc, log, k):
    """Play one game to the end from the arrays given (changed in place), logging each decision
    (player, code, number of legal actions) from row `k`; return the log and its next row."""
    w = par[P_W]
    cells = w * w
    hcount = np.zeros(cells, dtype=np.int64)
    for p in range(sc[S_PLAYERS]):
        for h in range(3):
            if pos[p, h] >= 0:
                hcount[pos[p, h]] += 1
    cards = np.zeros(cells, dtype=np.int64)  # the cells holding a card (cards are never taken)
    sc[S_CELLS] = 0
    for c in range(cells):
        if grid[c] >= 0:
            cards[sc[S_CELLS]] = c
            sc[S_CELLS] += 1
    labels = np.zeros(cells, dtype=np.int64)
    queue = np.zeros(2 * cells, dtype=np.int64)
    seen = np.zeros(cells, dtype=np.int64)
    rot = np.zeros(4, dtype=np.int64)
    acts = np.zeros(MAX_ACTIONS, dtype=np.int64)
    while sc[S_PHASE] != PH_OVER:
        if sc[S_PHASE] == PH_MOVE:
            n = move_actions(par, omask, orient_r, orient_n, grid, loose, loose_n, pos, carry_kind,
                             carry_n, dropped, hcount, sc, cards, labels, queue, rot, seen, acts)
        else:
            n = placements(par, omask, orient_r, orient_n, grid, loose_n, hcount, pos, sc, cards,
                           labels, queue, rot, acts)
        code = acts[np.random.randint(0, n)]
        if k >= log.shape[0]:
            log = grown(log)
        log[k, 0], log[k, 1], log[k, 2] = sc[S_TURN], code, n
        k += 1
        if code >= A_PLACE:
            place_card(par, masks, grid, loose, loose_n, pos, hcount, sc, cards,
                       (code - A_PLACE) // 4, (code - A_PLACE) % 4)
            next_turn(par, deck, supply, dropped, sc, True)
        elif code == A_RETURN:
            put_bottom(deck, sc, S_DECK_HEAD, S_DECK_N, sc[S_CARD])
            if sc[S_SOUL] >= 0:
                put_bottom(supply, sc, S_SUP_HEAD, S_SUP_N, sc[S_SOUL])
            next_turn(par, deck, supply, dropped, sc, False)
        else:
            apply_move(par, grid, loose, loose_n, pos, carry_kind, carry_n, points, collected,
                       supply, dropped, hcount, sc, code)
    return log, k


@numba.njit(cache=True)
def play_batch(par, masks, omask, orient_r, orient_n, grid, loose, loose_n, pos, carry_kind,
               carry_n, points, collected, deck, supply, dropped, sc, seed):
    """Play every game of a batch (arrays stacked along axis 0, left unchanged) to the end with
    numba's generator seeded by `seed`; return the log, the offsets, points and souls collected."""
    np.random.seed(seed)
    games = grid.shape[0]
    log = np.zeros((1024 * games, 3), dtype=np.int64)
    offsets = np.zeros(games + 1, dtype=np.int64)
    points_out = points.copy()
    collected_out = collected.copy()
    k = 0
    for i in range(games):
        log, k = play_game(par, masks, omask, orient_r, orient_n, grid[i].copy(), loose[i].copy(),
                           loose_n[i].copy(), pos[i].copy(), carry_kind[i].copy(),
                           carry_n[i].copy(), points_out[i], collected_out[i], deck[i].copy(),
                           supply[i].copy(), dropped[i].copy(), sc[i].copy(), log, k)
        offsets[i + 1] = k
    return log[:k].copy(), offsets, points_out, collected_out

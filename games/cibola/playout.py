"""Compiled random playouts of Treasures of Cibola (numba): the fast path of random simulation.

`random_playouts(states, seed)` plays copies of `states` to the end, every decision uniform among
the legal actions, in one jitted loop over plain integer arrays, and returns a
`geomsim.rules.Playouts` (log of (player, action code, number of legal actions), final scores,
winners). It mirrors `games.cibola.rules` step by step: the same decisions in the same queue
(`pending`), the same skipped impossible decisions, the same round ends, scoring and tie-break.
`geomsim.testing.check_playouts` replays every logged decision through `State.apply` and
compares the counts of legal actions, the end, the scores and the winners (tests/cibola/
test_playout.py); a rule changed in rules.py and not here fails that test.

Limits: one batch holds states with one player count and one set of components (the defaults or
any override within the capacities below: up to 64 treasure cards with ids below 1024, 16 totems
with ids below 1024, 16 chambers a column); the kernel's random numbers are numba's generator
(seeded with `seed` inside the jitted code), not the interface's, so a kernel game is not the game
a Python bot with the same seed plays. Only this module imports numba.

Action codes (state-independent): ``kind * CODE_BASE + payload`` with kind SEND 0 (payload:
explorers), TAKE 1 (slot 0-3), ROCK 2 (column * CHAMBER_STRIDE + chamber index from the top),
TOTEM 3 (totem id), MOVE 4 ((column * CHAMBER_STRIDE + chamber index) * 2 + 1 for down, 0 for
up) and COPY 5 (totem id). `decode(code)` gives the `Action` the rules list.

State layout. `encode(state)` writes one int64 record, read in this order by `_load`:

    P, round, stage, torch, camp, last_taker (-1: none), rocks_placed,
    explorers[P], in_temple[P], sealed[P] (the number sealed while sending, -1: not yet),
    len(order), order..., row[4] (card id, -1: empty slot), len(deck), deck (top first)...,
    len(pending), (kind, player, arg (-1: none)) per pending decision...,
    counts[P][5] (treasures held by kind), per player: len(totems), totem ids...,
    per player: len(copies), copied totem ids..., len(offer), offer..., len(used), used...,
    per column: len(chambers), covered (0/1) top first...

The kernel keeps a game in a `Board` of arrays (reused from game to game):

    sc        (N_SCALARS,)   scalars, indexed by the S_* constants below
    explorers (4,)           explorers in hand; in_temple (4,): sent and not yet back in the camp
    sealed    (4,)           numbers sealed in the current send (-1: not yet)
    order     (4,)           the order of taking of this round (sc[S_NORDER] entries)
    row       (4,)           the revealed cards by slot (-1: empty)
    deck      (DECK_CAP,)    card ids; the deck is deck[sc[S_DTOP]:sc[S_DEND]], top first
    pend      (PEND_CAP, 3)  the decision queue (kind, player, arg), pend[sc[S_HEAD]:sc[S_TAIL]];
                             inserting in front moves the head back (it starts at PEND_MID)
    counts    (4, 5)         treasures held by kind
    totems    (4, TOTEM_CAP) totem ids held, in the order taken (ntotems (4,) of them)
    copies    (4, TOTEM_CAP) totem ids copied (ncopies (4,))
    offer     (TOTEM_CAP,)   totems lying above the temple (sc[S_NOFFER]), in order
    used      (TOTEM_CAP,)   totems taken during the game (sc[S_NUSED]), in order
    covered   (5, CHAMBER_CAP) 1 where a rock lies (chambers beyond a column's length unused)
    opts      (OPT_CAP,)     scratch: the codes of the legal actions at hand

The components become `Tables` of arrays indexed by card id or totem id (see `_tables`).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from functools import cache

import numba
import numpy as np

from games.cibola.components import TREASURES, Components
from games.cibola.rules import (
    CARDS_PER_ROUND,
    SLOTS,
    ChooseTotem,
    CopyTotem,
    MoveRock,
    PlaceRock,
    Send,
    Take,
)
from geomsim.rules import Action, Playouts

# -- codes ------------------------------------------------------------------------------------
CODE_BASE = 1 << 20
CHAMBER_STRIDE = 64
SEND, TAKE, ROCK, TOTEM, MOVE, COPY = 0, 1, 2, 3, 4, 5
KINDS = {"take": TAKE, "rock": ROCK, "totem": TOTEM, "move": MOVE, "copy": COPY}
STAGES = {"send": 0, "obtain": 1, "round-end": 2, "final": 3, "over": 4}
ST_SEND, ST_OBTAIN, ST_ROUND_END, ST_FINAL, ST_OVER = 0, 1, 2, 3, 4
# Totem effect kinds (components.EFFECTS) as numbers.
EFFECT_CODES = {"treasure-bonus": 1, "treasure-value": 2, "cancel": 3, "explorer-points": 4,
                "move-rock": 5, "take-explorers": 6, "copy": 7}
E_BONUS, E_VALUE, E_CANCEL, E_EXPLORER, E_MOVE, E_TAKE_EXPLORERS, E_COPY = 1, 2, 3, 4, 5, 6, 7
SYMBOL_CODES = {None: 0, "rock": 1, "totem": 2}
SYM_ROCK, SYM_TOTEM = 1, 2

# -- capacities -------------------------------------------------------------------------------
MAX_PLAYERS = 4
COLUMNS = len(TREASURES)
DECK_CAP = 64
TOTEM_CAP = 16
CHAMBER_CAP = 16
ID_CAP = 1024
PEND_CAP = 128
PEND_MID = 64  # the queue starts here: room for decisions inserted in front
OPT_CAP = COLUMNS * CHAMBER_CAP + TOTEM_CAP + 8

# Indices into Board.sc.
S_P, S_ROUND, S_STAGE, S_TORCH, S_CAMP, S_LAST, S_PLACED = 0, 1, 2, 3, 4, 5, 6
S_DTOP, S_DEND, S_HEAD, S_TAIL, S_NORDER, S_NOFFER, S_NUSED = 7, 8, 9, 10, 11, 12, 13
N_SCALARS = 14

Board = namedtuple("Board", "sc explorers in_temple sealed order row deck pend counts totems "
                            "ntotems copies ncopies offer used covered opts")
Tables = namedtuple("Tables", "card_counts card_symbol col_values col_len col_majority "
                              "totem_effect totem_treasure totem_amount rocks")


# -- encoding (Python) ------------------------------------------------------------------------
def _record(state) -> list[int]:
    """The state as one flat list of ints (layout in the module docstring)."""
    p = state.num_players
    rec = [p, state.round, STAGES[state.stage], state.torch, state.camp,
           -1 if state.last_taker is None else state.last_taker, state.rocks_placed]
    rec += state.explorers
    rec += state.in_temple
    if state.sealed is not None:
        choices = state.sealed.choices
        rec += [choices.get(q, -1) for q in range(p)]
    else:
        rec += [-1] * p
    rec.append(len(state.order))
    rec += state.order
    rec += [-1 if c is None else c for c in state.row]
    deck = state.deck.cards
    rec.append(len(deck))
    rec += deck
    rec.append(len(state.pending))
    for kind, player, arg in state.pending:
        rec += (KINDS[kind], player, -1 if arg is None else arg)
    for c in state.counts:
        rec += c
    for held in state.totems:
        rec.append(len(held))
        rec += held
    for held in state.copies:
        rec.append(len(held))
        rec += held
    rec.append(len(state.offer))
    rec += state.offer
    rec.append(len(state.used))
    rec += state.used
    for column in state.covered:
        rec.append(len(column))
        rec += column
    return rec


def encode(state) -> np.ndarray:
    """The record the kernel starts a game from (hidden parts included: deck order, sealed
    numbers)."""
    return np.array(_record(state), dtype=np.int64)


_TABLES: dict[int, tuple[Components, Tables]] = {}


def _tables_of(components: Components) -> Tables:
    """The tables of `components`, made once per components object (kept alive with them)."""
    known = _TABLES.get(id(components))
    if known is None or known[0] is not components:
        known = _TABLES[id(components)] = (components, _tables(components))
    return known[1]


def _tables(components: Components) -> Tables:
    """The components as arrays indexed by card id / totem id; `ValueError` beyond capacity."""
    cards, totems, columns = components.cards, components.totems, components.columns
    if len(cards) > DECK_CAP or max(c.id for c in cards) >= ID_CAP:
        raise ValueError(f"cibola playouts: at most {DECK_CAP} cards with ids below {ID_CAP}")
    if len(totems) > TOTEM_CAP or max((t.id for t in totems), default=0) >= ID_CAP:
        raise ValueError(f"cibola playouts: at most {TOTEM_CAP} totems with ids below {ID_CAP}")
    if max(len(c.values) for c in columns) > CHAMBER_CAP:
        raise ValueError(f"cibola playouts: at most {CHAMBER_CAP} chambers a column")
    card_counts = np.zeros((ID_CAP, COLUMNS), np.int64)
    card_symbol = np.zeros(ID_CAP, np.int64)
    for c in cards:
        card_counts[c.id] = c.counts
        card_symbol[c.id] = SYMBOL_CODES[c.symbol]
    col_values = np.zeros((COLUMNS, CHAMBER_CAP), np.int64)
    col_len = np.zeros(COLUMNS, np.int64)
    col_majority = np.zeros(COLUMNS, np.int64)
    for i, column in enumerate(columns):
        col_values[i, :len(column.values)] = column.values
        col_len[i] = len(column.values)
        col_majority[i] = column.scoring == "majority"
    effect = np.zeros(ID_CAP, np.int64)
    treasure = np.full(ID_CAP, -1, np.int64)
    amount = np.zeros(ID_CAP, np.int64)
    for t in totems:
        e = t.effect
        effect[t.id] = EFFECT_CODES[t.kind]
        treasure[t.id] = TREASURES.index(e["treasure"]) if "treasure" in e else -1
        amount[t.id] = e.get("points", e.get("count", e.get("step", 0)))
    return Tables(card_counts, card_symbol, col_values, col_len, col_majority, effect, treasure,
                  amount, components.rocks)


# -- decoding ---------------------------------------------------------------------------------
@cache
def decode(code: int) -> Action:
    """The action a code stands for (equal to the one `legal_actions` lists)."""
    kind, payload = divmod(int(code), CODE_BASE)
    if kind == SEND:
        return Send(payload)
    if kind == TAKE:
        return Take(SLOTS[payload])
    if kind == ROCK:
        column, chamber = divmod(payload, CHAMBER_STRIDE)
        return PlaceRock(TREASURES[column], chamber + 1)
    if kind == TOTEM:
        return ChooseTotem(payload)
    if kind == MOVE:
        where, down = divmod(payload, 2)
        column, chamber = divmod(where, CHAMBER_STRIDE)
        return MoveRock(TREASURES[column], chamber + 1, "down" if down else "up")
    if kind == COPY:
        return CopyTotem(payload)
    raise ValueError(f"cibola playouts: no action has code {code}")


# -- the kernel (numba) -----------------------------------------------------------------------
@numba.njit(cache=True)
def _new_board() -> Board:
    return Board(np.zeros(N_SCALARS, np.int64), np.zeros(MAX_PLAYERS, np.int64),
                 np.zeros(MAX_PLAYERS, np.int64), np.zeros(MAX_PLAYERS, np.int64),
                 np.zeros(MAX_PLAYERS, np.int64), np.zeros(CARDS_PER_ROUND, np.int64),
                 np.zeros(DECK_CAP, np.int64), np.zeros((PEND_CAP, 3), np.int64),
                 np.zeros((MAX_PLAYERS, COLUMNS), np.int64),
                 np.zeros((MAX_PLAYERS, TOTEM_CAP), np.int64), np.zeros(MAX_PLAYERS, np.int64),
                 np.zeros((MAX_PLAYERS, TOTEM_CAP), np.int64), np.zeros(MAX_PLAYERS, np.int64),
                 np.zeros(TOTEM_CAP, np.int64), np.zeros(TOTEM_CAP, np.int64),
                 np.zeros((COLUMNS, CHAMBER_CAP), np.int64), np.zeros(OPT_CAP, np.int64))


@numba.njit(cache=True)
def _read_list(rec: np.ndarray, at: int, out: np.ndarray) -> tuple[int, int]:
    """Copy a length-prefixed list of `rec` at `at` into `out`; its length and the next index."""
    n = rec[at]
    for i in range(n):
        out[i] = rec[at + 1 + i]
    return n, at + 1 + n


@numba.njit(cache=True)
def _load(b: Board, rec: np.ndarray, at: int) -> None:
    """Fill the board from the record starting at `rec[at]` (layout: module docstring)."""
    sc = b.sc
    p = rec[at]
    for i in range(7):
        sc[i] = rec[at + i]
    at += 7
    for q in range(p):
        b.explorers[q] = rec[at + q]
        b.in_temple[q] = rec[at + p + q]
        b.sealed[q] = rec[at + 2 * p + q]
    at += 3 * p
    sc[S_NORDER], at = _read_list(rec, at, b.order)
    for i in range(CARDS_PER_ROUND):
        b.row[i] = rec[at + i]
    at += CARDS_PER_ROUND
    sc[S_DEND], at = _read_list(rec, at, b.deck)
    sc[S_DTOP] = 0
    n = rec[at]
    at += 1
    sc[S_HEAD], sc[S_TAIL] = PEND_MID, PEND_MID + n
    for i in range(n):
        for j in range(3):
            b.pend[PEND_MID + i, j] = rec[at + 3 * i + j]
    at += 3 * n
    for q in range(p):
        for t in range(COLUMNS):
            b.counts[q, t] = rec[at + q * COLUMNS + t]
    at += p * COLUMNS
    for q in range(p):
        b.ntotems[q], at = _read_list(rec, at, b.totems[q])
    for q in range(p):
        b.ncopies[q], at = _read_list(rec, at, b.copies[q])
    sc[S_NOFFER], at = _read_list(rec, at, b.offer)
    sc[S_NUSED], at = _read_list(rec, at, b.used)
    for c in range(COLUMNS):
        _, at = _read_list(rec, at, b.covered[c])


@numba.njit(cache=True)
def _open_chambers(b: Board, t: Tables, column: int) -> int:
    n = 0
    for i in range(t.col_len[column]):
        n += b.covered[column, i] == 0
    return n


@numba.njit(cache=True)
def _options(b: Board, t: Tables, kind: int, arg: int) -> int:
    """Write the codes of the legal actions of a decision (kind, arg) into b.opts; their number.
    Same sets as CibolaState._legal_actions (a zero means the decision is skipped)."""
    opts, n = b.opts, 0
    if kind == TAKE:
        for s in range(CARDS_PER_ROUND):
            if b.row[s] >= 0:
                opts[n] = TAKE * CODE_BASE + s
                n += 1
    elif kind == ROCK:
        if t.rocks - b.sc[S_PLACED] <= 0:
            return 0
        for c in range(COLUMNS):
            # `cibola/symbol/last-chamber`: a column's last open chamber is never covered.
            if _open_chambers(b, t, c) >= 2:
                for i in range(t.col_len[c]):
                    if b.covered[c, i] == 0:
                        opts[n] = ROCK * CODE_BASE + c * CHAMBER_STRIDE + i
                        n += 1
    elif kind == TOTEM:
        for i in range(b.sc[S_NOFFER]):
            opts[n] = TOTEM * CODE_BASE + b.offer[i]
            n += 1
    elif kind == MOVE:
        step = t.totem_amount[arg]
        for c in range(COLUMNS):
            if _open_chambers(b, t, c) < 2:
                continue
            for i in range(t.col_len[c]):
                j = i + step
                if b.covered[c, i] == 1 and 0 <= j < t.col_len[c] and b.covered[c, j] == 0:
                    opts[n] = MOVE * CODE_BASE + (c * CHAMBER_STRIDE + i) * 2 + (1 if step > 0 else 0)
                    n += 1
    elif kind == COPY:
        for i in range(b.sc[S_NUSED]):
            u = b.used[i]
            if t.totem_effect[u] != E_COPY:
                opts[n] = COPY * CODE_BASE + u
                n += 1
    return n


@numba.njit(cache=True)
def _push_front(b: Board, kind: int, player: int, arg: int) -> None:
    h = b.sc[S_HEAD] - 1
    b.pend[h, 0], b.pend[h, 1], b.pend[h, 2] = kind, player, arg
    b.sc[S_HEAD] = h


@numba.njit(cache=True)
def _push_back(b: Board, kind: int, player: int, arg: int) -> None:
    e = b.sc[S_TAIL]
    b.pend[e, 0], b.pend[e, 1], b.pend[e, 2] = kind, player, arg
    b.sc[S_TAIL] = e + 1


@numba.njit(cache=True)
def _clear_queue(b: Board) -> None:
    b.sc[S_HEAD] = PEND_MID
    b.sc[S_TAIL] = PEND_MID


@numba.njit(cache=True)
def _start_round(b: Board) -> None:
    """Reveal up to 4 cards and open the sealed send (CibolaState._start_round)."""
    sc = b.sc
    sc[S_ROUND] += 1
    for s in range(CARDS_PER_ROUND):
        if sc[S_DTOP] < sc[S_DEND]:
            b.row[s] = b.deck[sc[S_DTOP]]
            sc[S_DTOP] += 1
        else:
            b.row[s] = -1
    sc[S_STAGE], sc[S_NORDER], sc[S_LAST] = ST_SEND, 0, -1
    for q in range(sc[S_P]):
        b.sealed[q] = -1


@numba.njit(cache=True)
def _set_order(b: Board) -> None:
    """Most explorers sent first; ties clockwise from the torch keeper (obtain_order)."""
    p, torch = b.sc[S_P], b.sc[S_TORCH]
    for i in range(p):
        b.order[i] = (torch + i) % p
    for i in range(1, p):  # a stable insertion sort keeps the seat order among ties
        q = b.order[i]
        j = i - 1
        while j >= 0 and b.sealed[b.order[j]] < b.sealed[q]:
            b.order[j + 1] = b.order[j]
            j -= 1
        b.order[j + 1] = q
    b.sc[S_NORDER] = p


@numba.njit(cache=True)
def _reveal_sends(b: Board, t: Tables) -> None:
    """Sends revealed, the camp shared among zero-senders, the takes queued (_reveal_sends)."""
    sc = b.sc
    p = sc[S_P]
    zero = 0
    for q in range(p):
        b.explorers[q] -= b.sealed[q]
        b.in_temple[q] = b.sealed[q]
        zero += b.sealed[q] == 0
    if zero > 0:
        each = sc[S_CAMP] // zero
        for q in range(p):
            if b.sealed[q] == 0:
                b.explorers[q] += each
        sc[S_CAMP] -= each * zero
    _set_order(b)
    cards = 0
    for s in range(CARDS_PER_ROUND):
        cards += b.row[s] >= 0
    _clear_queue(b)
    if p == 2:  # `cibola/obtain/two-players`: they alternate until the row is empty
        for i in range(cards):
            _push_back(b, TAKE, b.order[i % 2], -1)
    else:
        for i in range(min(cards, p)):
            _push_back(b, TAKE, b.order[i], -1)
    sc[S_STAGE] = ST_OBTAIN
    _advance(b, t)


@numba.njit(cache=True)
def _discard_leftovers(b: Board, t: Tables) -> None:
    """Explorers back to the camp; cards left go to the box, the top sender places their rocks."""
    sc = b.sc
    for q in range(sc[S_P]):
        sc[S_CAMP] += b.in_temple[q]
        b.in_temple[q] = 0
    for s in range(CARDS_PER_ROUND):
        c = b.row[s]
        if c >= 0:
            b.row[s] = -1
            if t.card_symbol[c] == SYM_ROCK:
                _push_back(b, ROCK, b.order[0], c)


@numba.njit(cache=True)
def _end_round(b: Board, t: Tables) -> None:
    """The last taker takes the torch; a new round, or the final copies when the deck is out."""
    sc = b.sc
    if sc[S_LAST] >= 0:
        sc[S_TORCH] = sc[S_LAST]
    if sc[S_DTOP] < sc[S_DEND]:
        _start_round(b)
        return
    sc[S_STAGE] = ST_FINAL
    for q in range(sc[S_P]):
        for i in range(b.ntotems[q]):
            if t.totem_effect[b.totems[q, i]] == E_COPY:
                _push_back(b, COPY, q, b.totems[q, i])


@numba.njit(cache=True)
def _advance(b: Board, t: Tables) -> None:
    """Skip impossible decisions and pass the ends of stages until someone decides (_advance)."""
    sc = b.sc
    while True:
        if sc[S_HEAD] < sc[S_TAIL]:
            h = sc[S_HEAD]
            if _options(b, t, b.pend[h, 0], b.pend[h, 2]) > 0:
                return
            sc[S_HEAD] = h + 1
            if sc[S_HEAD] == sc[S_TAIL]:
                _clear_queue(b)
        elif sc[S_STAGE] == ST_OBTAIN:
            _discard_leftovers(b, t)
            sc[S_STAGE] = ST_ROUND_END
        elif sc[S_STAGE] == ST_ROUND_END:
            _end_round(b, t)
            if sc[S_STAGE] == ST_SEND:
                return
        elif sc[S_STAGE] == ST_FINAL:
            sc[S_STAGE] = ST_OVER
            return
        else:
            return


@numba.njit(cache=True)
def _take(b: Board, t: Tables, player: int, slot: int) -> None:
    """Sent explorers to the camp, the card to the player; its symbol becomes a decision."""
    sc = b.sc
    sc[S_CAMP] += b.in_temple[player]
    b.in_temple[player] = 0
    c = b.row[slot]
    b.row[slot] = -1
    for k in range(COLUMNS):
        b.counts[player, k] += t.card_counts[c, k]
    sc[S_LAST] = player
    if t.card_symbol[c] == SYM_ROCK:
        _push_front(b, ROCK, player, c)
    elif t.card_symbol[c] == SYM_TOTEM:
        _push_front(b, TOTEM, player, c)


@numba.njit(cache=True)
def _perform(b: Board, t: Tables, player: int, totem: int) -> None:
    """An immediate totem acts at once; end totems act in scoring (_perform)."""
    effect = t.totem_effect[totem]
    if effect == E_MOVE:
        _push_front(b, MOVE, player, totem)
    elif effect == E_TAKE_EXPLORERS:
        n = min(t.totem_amount[totem], b.sc[S_CAMP])
        b.sc[S_CAMP] -= n
        b.explorers[player] += n


@numba.njit(cache=True)
def _choose_totem(b: Board, t: Tables, player: int, totem: int) -> None:
    sc = b.sc
    k = 0
    while b.offer[k] != totem:
        k += 1
    for i in range(k, sc[S_NOFFER] - 1):
        b.offer[i] = b.offer[i + 1]
    sc[S_NOFFER] -= 1
    b.totems[player, b.ntotems[player]] = totem
    b.ntotems[player] += 1
    b.used[sc[S_NUSED]] = totem
    sc[S_NUSED] += 1
    _perform(b, t, player, totem)


@numba.njit(cache=True)
def _apply(b: Board, t: Tables, player: int, code: int) -> None:
    """Apply a decision of the queue's head (not a send): pop it, act, advance (_apply)."""
    b.sc[S_HEAD] += 1
    if b.sc[S_HEAD] == b.sc[S_TAIL]:
        _clear_queue(b)
    kind, payload = code // CODE_BASE, code % CODE_BASE
    if kind == TAKE:
        _take(b, t, player, payload)
    elif kind == ROCK:
        b.covered[payload // CHAMBER_STRIDE, payload % CHAMBER_STRIDE] = 1
        b.sc[S_PLACED] += 1
    elif kind == TOTEM:
        _choose_totem(b, t, player, payload)
    elif kind == MOVE:
        where = payload // 2
        column, here = where // CHAMBER_STRIDE, where % CHAMBER_STRIDE
        b.covered[column, here] = 0
        b.covered[column, here + (1 if payload % 2 else -1)] = 1
    else:
        b.copies[player, b.ncopies[player]] = payload
        b.ncopies[player] += 1
        _perform(b, t, player, payload)
    _advance(b, t)


@numba.njit(cache=True)
def _effect_ids(b: Board, player: int, out: np.ndarray) -> int:
    """The player's totems then copied totems (CibolaState._effects), into `out`; how many."""
    n = 0
    for i in range(b.ntotems[player]):
        out[n] = b.totems[player, i]
        n += 1
    for i in range(b.ncopies[player]):
        out[n] = b.copies[player, i]
        n += 1
    return n


@numba.njit(cache=True)
def _score(b: Board, t: Tables, scores: np.ndarray) -> None:
    """Final points per player (CibolaState.score_sheet)."""
    p = b.sc[S_P]
    counts = b.counts[:p].copy()
    effects = np.zeros(2 * TOTEM_CAP, np.int64)
    for q in range(p):
        n = _effect_ids(b, q, effects)
        for k in range(n):
            e = effects[k]
            if t.totem_effect[e] == E_CANCEL:
                i = t.totem_treasure[e]
                counts[q, i] = max(0, counts[q, i] - t.totem_amount[e])
    for q in range(p):
        n = _effect_ids(b, q, effects)
        per_explorer = 0
        for k in range(n):
            if t.totem_effect[effects[k]] == E_EXPLORER:
                per_explorer += t.totem_amount[effects[k]]
        x = b.explorers[q]
        total = x // 2 + x * per_explorer
        for c in range(COLUMNS):
            first = 0
            while b.covered[c, first] == 1:
                first += 1
            value, bonus = t.col_values[c, first], 0
            for k in range(n):
                e = effects[k]
                if t.totem_treasure[e] == c:
                    if t.totem_effect[e] == E_VALUE:
                        value = t.totem_amount[e]
                    elif t.totem_effect[e] == E_BONUS:
                        bonus += t.totem_amount[e]
            have = counts[q, c]
            if t.col_majority[c] == 0:
                total += have * (value + bonus)
            else:
                best = 0
                for r in range(p):
                    best = max(best, counts[r, c])
                if have == best and have > 0:
                    total += value
                total += have * bonus
        scores[q] = total


@numba.njit(cache=True)
def _winners(b: Board, scores: np.ndarray, winners: np.ndarray) -> None:
    """The most points; ties to more explorers left; still tied: all (CibolaState.winners)."""
    p = b.sc[S_P]
    best = 0
    for q in range(1, p):
        if scores[q] > scores[best] or (scores[q] == scores[best]
                                        and b.explorers[q] > b.explorers[best]):
            best = q
    for q in range(p):
        winners[q] = scores[q] == scores[best] and b.explorers[q] == b.explorers[best]


@numba.njit(cache=True)
def _play(b: Board, t: Tables, log: np.ndarray, pos: int) -> int:
    """Play the loaded game to the end, logging rows from `pos`; the next row, or -1 when the
    log is full. Sealed sends are logged in ascending player order."""
    sc = b.sc
    cap = log.shape[0]
    while sc[S_STAGE] != ST_OVER:
        if sc[S_STAGE] == ST_SEND:
            for q in range(sc[S_P]):
                if b.sealed[q] < 0:
                    if pos >= cap:
                        return -1
                    n = b.explorers[q] + 1
                    b.sealed[q] = np.random.randint(0, n)
                    log[pos, 0], log[pos, 1], log[pos, 2] = q, SEND * CODE_BASE + b.sealed[q], n
                    pos += 1
            _reveal_sends(b, t)
        else:
            if sc[S_HEAD] >= sc[S_TAIL] or pos >= cap:
                return -1 if pos >= cap else pos
            h = sc[S_HEAD]
            player = b.pend[h, 1]
            n = _options(b, t, b.pend[h, 0], b.pend[h, 2])
            code = b.opts[np.random.randint(0, n)]
            log[pos, 0], log[pos, 1], log[pos, 2] = player, code, n
            pos += 1
            _apply(b, t, player, code)
    return pos


@numba.njit(cache=True)
def play_batch(records: np.ndarray, starts: np.ndarray, t: Tables, seed: int, log: np.ndarray,
               offsets: np.ndarray, scores: np.ndarray, winners: np.ndarray) -> int:
    """Play every game whose record starts at `starts[g]` to the end; 0, or -1 if `log` is full."""
    np.random.seed(seed)
    b = _new_board()
    pos = 0
    for g in range(starts.shape[0]):
        offsets[g] = pos
        b.covered[:] = 0
        _load(b, records, starts[g])
        pos = _play(b, t, log, pos)
        if pos < 0:
            return -1
        _score(b, t, scores[g])
        _winners(b, scores[g], winners[g])
    offsets[starts.shape[0]] = pos
    return 0


# -- entry point ------------------------------------------------------------------------------
def random_playouts(states: Sequence, seed: int = 0) -> Playouts:
    """Play copies of `states` (one player count, one set of components) to the end at random."""
    if not states:
        return Playouts(np.zeros((0, 0)), np.zeros((0, 0), bool), np.zeros((0, 3), np.int64),
                        np.zeros(1, np.int64), decode)
    players, components = states[0].num_players, states[0].components
    if any(s.num_players != players or s.components is not components for s in states):
        raise ValueError("cibola playouts: one batch holds states of one player count and one "
                         "set of components")
    tables = _tables_of(components)
    records: list[int] = []
    starts = []
    for s in states:
        starts.append(len(records))
        records += _record(s)
    games = len(states)
    # Per round at most: a send per player, and per card a take, a rock or totem, a move.
    rounds = len(components.cards) // CARDS_PER_ROUND + 2
    per_game = rounds * (players + 3 * CARDS_PER_ROUND) + 4 * len(components.totems) + 16
    log = np.empty((games * per_game, 3), np.int64)
    offsets = np.empty(games + 1, np.int64)
    scores = np.zeros((games, players))
    winners = np.zeros((games, players), np.bool_)
    if play_batch(np.array(records, np.int64), np.array(starts, np.int64), tables, seed, log,
                  offsets, scores, winners) < 0:
        raise RuntimeError("cibola playouts: the log outgrew its bound (a bug in the bound)")
    return Playouts(scores, winners, log[:offsets[-1]].copy(), offsets, decode)

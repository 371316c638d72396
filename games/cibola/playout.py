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
up) and COPY 5 (totem id). `decode(code)` gives the `Action` the rules list; `code(action)` is
its inverse.

State layout. `encode(state)` writes one int64 record, read in this order by `_load`:

    P, round, stage (STAGES), torch, camp, last_taker (-1: none), rocks_placed,
    explorers[P], in_temple[P], sealed[P] (the number sealed while sending, -1: not yet),
    len(order), order..., row[4] (card id, -1: empty slot), len(deck), deck (top first)...,
    len(pending), (kind (KINDS), player, arg (-1: none)) per pending decision...,
    counts[P][5] (treasures held by kind), per player: len(totems), totem ids...,
    per player: len(copies), copied totem ids..., len(offer), offer..., len(used), used...,
    per column: len(chambers), covered (0/1) top first...

The kernel keeps a game in one int64 array `b` (reused from game to game; numba passes one
array to a function far more cheaply than a tuple of many), in sections at fixed offsets:

    b[S_*]                  scalars: players, round, stage, torch, camp, last taker, rocks
                            placed, deck top/end, queue head/tail, lengths of order/offer/used
    b[EXPLORERS + q]        explorers in player q's hand; b[IN_TEMPLE + q]: sent, not yet in
                            the camp; b[SEALED + q]: number sealed in this send (-1: not yet)
    b[ORDER + i]            the order of taking of this round (b[S_NORDER] players)
    b[ROW + s]              the revealed card in slot s (-1: empty)
    b[COUNTS + 5 q + k]     treasures of kind k held by player q
    b[TOTEMS + 16 q + i]    totem ids player q took, in order (b[NTOTEMS + q] of them)
    b[COPIES + 16 q + i]    totem ids player q copied (b[NCOPIES + q])
    b[OFFER + i]            totems lying above the temple, in order (b[S_NOFFER])
    b[USED + i]             totems taken during the game, in order (b[S_NUSED])
    b[COVERED + 16 c + i]   1 where a rock lies on chamber i (from the top) of column c
    b[DECK + i]             card ids; the deck is i in [b[S_DTOP], b[S_DEND]), top first
    b[PEND + 3 h + j]       the decision queue: (kind, player, arg) at h in [b[S_HEAD],
                            b[S_TAIL]); inserting in front moves the head back (from PEND_MID)
    b[OPTS + i]             scratch: the codes of the legal actions at hand

Only what play and scoring need is kept: not the card ids in hands, the box, the boxed totems.
The components become one int64 array `t` of tables indexed by card id, column or totem id
(offsets T_*, see `_tables`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numba
import numpy as np

from games.cibola import GAME
from games.cibola.components import TREASURES, Components
from games.cibola.rules import (
    CAMP_SHARES,
    CARDS_PER_ROUND,
    SLOTS,
    ChooseTotem,
    CibolaState,
    CopyTotem,
    MoveRock,
    PlaceRock,
    Send,
    Take,
)
from geomsim.compiled import compiling
from geomsim.rules import Action, Playouts, State, playout_seed

# -- codes ------------------------------------------------------------------------------------
CODE_BASE = 1 << 20
CHAMBER_STRIDE = 64
SEND, TAKE, ROCK, TOTEM, MOVE, COPY = 0, 1, 2, 3, 4, 5
# Decisions of the queue (`CibolaState.pending` kinds), numbered as their actions' codes.
KINDS = {"take": TAKE, "rock": ROCK, "totem": TOTEM, "move": MOVE, "copy": COPY}
STAGES = {"send": 0, "obtain": 1, "round-end": 2, "final": 3, "over": 4}
ST_SEND, ST_OBTAIN, ST_ROUND_END, ST_FINAL, ST_OVER = 0, 1, 2, 3, 4
# Totem effect kinds (components.EFFECTS) as numbers.
EFFECT_CODES = {"treasure-bonus": 1, "treasure-value": 2, "cancel": 3, "explorer-points": 4,
                "move-rock": 5, "take-explorers": 6, "copy": 7}
E_BONUS, E_VALUE, E_CANCEL, E_EXPLORER, E_MOVE, E_TAKE_EXPLORERS, E_COPY = 1, 2, 3, 4, 5, 6, 7
SYMBOL_CODES = {None: 0, "rock": 1, "totem": 2}
SHARE_EQUAL, SHARE_FIRST = CAMP_SHARES.index("equal"), CAMP_SHARES.index("first")
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
OPT_CAP = COLUMNS * CHAMBER_CAP + TOTEM_CAP

# -- the board's sections (see the module docstring) -------------------------------------------
S_P, S_ROUND, S_STAGE, S_TORCH, S_CAMP, S_LAST, S_PLACED = 0, 1, 2, 3, 4, 5, 6
S_DTOP, S_DEND, S_HEAD, S_TAIL, S_NORDER, S_NOFFER, S_NUSED = 7, 8, 9, 10, 11, 12, 13
EXPLORERS = 16
IN_TEMPLE = EXPLORERS + MAX_PLAYERS
SEALED = IN_TEMPLE + MAX_PLAYERS
ORDER = SEALED + MAX_PLAYERS
ROW = ORDER + MAX_PLAYERS
COUNTS = ROW + CARDS_PER_ROUND
NTOTEMS = COUNTS + MAX_PLAYERS * COLUMNS
NCOPIES = NTOTEMS + MAX_PLAYERS
TOTEMS = NCOPIES + MAX_PLAYERS
COPIES = TOTEMS + MAX_PLAYERS * TOTEM_CAP
OFFER = COPIES + MAX_PLAYERS * TOTEM_CAP
USED = OFFER + TOTEM_CAP
COVERED = USED + TOTEM_CAP
DECK = COVERED + COLUMNS * CHAMBER_CAP
PEND = DECK + DECK_CAP
OPTS = PEND + 3 * PEND_CAP
BOARD_SIZE = OPTS + OPT_CAP

# -- the tables' sections -------------------------------------------------------------------------
T_CARD_COUNTS = 0                                # [5 id + k]: treasures of kind k on card id
T_CARD_SYMBOL = T_CARD_COUNTS + ID_CAP * COLUMNS  # [id]: SYMBOL_CODES
T_COL_VALUES = T_CARD_SYMBOL + ID_CAP             # [16 c + i]: value of chamber i of column c
T_COL_LEN = T_COL_VALUES + COLUMNS * CHAMBER_CAP  # [c]: chambers of column c
T_COL_MAJORITY = T_COL_LEN + COLUMNS              # [c]: 1 when column c scores by majority
T_EFFECT = T_COL_MAJORITY + COLUMNS               # [id]: EFFECT_CODES of totem id
T_TREASURE = T_EFFECT + ID_CAP                    # [id]: the totem's treasure column, -1: none
T_AMOUNT = T_TREASURE + ID_CAP                    # [id]: its points, count or step
T_ROCKS = T_AMOUNT + ID_CAP                       # rocks in the box
T_SHARE = T_ROCKS + 1                             # the option camp_share: CAMP_SHARES index
TABLES_SIZE = T_SHARE + 1


# -- encoding (Python) ------------------------------------------------------------------------
def _record(state: CibolaState) -> list[int]:
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


def encode(state: CibolaState) -> np.ndarray:
    """The record the kernel starts a game from (hidden parts included: deck order, sealed
    numbers)."""
    return np.array(_record(state), dtype=np.int64)


_TABLES: dict[int, tuple[Components, np.ndarray]] = {}


def _tables_of(components: Components) -> np.ndarray:
    """The tables of `components`, made once per components object; the last few are kept (with
    their components, so that an id is not reused while cached)."""
    known = _TABLES.get(id(components))
    if known is None or known[0] is not components:
        if len(_TABLES) >= 8:
            del _TABLES[next(iter(_TABLES))]
        known = _TABLES[id(components)] = (components, _tables(components))
    return known[1]


def _tables(components: Components) -> np.ndarray:
    """The components as one array of tables (offsets T_*); `ValueError` beyond capacity."""
    cards, totems, columns = components.cards, components.totems, components.columns
    if len(cards) > DECK_CAP or max(c.id for c in cards) >= ID_CAP:
        raise ValueError(f"cibola playouts: at most {DECK_CAP} cards with ids below {ID_CAP}")
    if len(totems) > TOTEM_CAP or max((t.id for t in totems), default=0) >= ID_CAP:
        raise ValueError(f"cibola playouts: at most {TOTEM_CAP} totems with ids below {ID_CAP}")
    if max(len(c.values) for c in columns) > CHAMBER_CAP:
        raise ValueError(f"cibola playouts: at most {CHAMBER_CAP} chambers a column")
    t = np.zeros(TABLES_SIZE, np.int64)
    for c in cards:
        t[T_CARD_COUNTS + COLUMNS * c.id: T_CARD_COUNTS + COLUMNS * (c.id + 1)] = c.counts
        t[T_CARD_SYMBOL + c.id] = SYMBOL_CODES[c.symbol]
    for i, column in enumerate(columns):
        at = T_COL_VALUES + CHAMBER_CAP * i
        t[at: at + len(column.values)] = column.values
        t[T_COL_LEN + i] = len(column.values)
        t[T_COL_MAJORITY + i] = column.scoring == "majority"
    t[T_TREASURE: T_TREASURE + ID_CAP] = -1
    for totem in totems:
        e = totem.effect
        t[T_EFFECT + totem.id] = EFFECT_CODES[totem.kind]
        t[T_TREASURE + totem.id] = TREASURES.index(e["treasure"]) if "treasure" in e else -1
        t[T_AMOUNT + totem.id] = e.get("points", e.get("count", e.get("step", 0)))
    t[T_ROCKS] = components.rocks
    return t


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


def code(action: Action) -> int:
    """The code of an action of the rules (the inverse of `decode`)."""
    if isinstance(action, Send):
        return SEND * CODE_BASE + action.explorers
    if isinstance(action, Take):
        return TAKE * CODE_BASE + SLOTS.index(action.slot)
    if isinstance(action, (ChooseTotem, CopyTotem)):
        return KINDS[action.kind] * CODE_BASE + action.totem
    if isinstance(action, (PlaceRock, MoveRock)):
        where = TREASURES.index(action.column) * CHAMBER_STRIDE + action.chamber - 1
        if isinstance(action, PlaceRock):
            return ROCK * CODE_BASE + where
        return MOVE * CODE_BASE + 2 * where + (action.direction == "down")
    raise ValueError(f"cibola playouts: no code for action kind {action.kind!r}")


# -- the kernel (numba) -----------------------------------------------------------------------
@numba.njit(cache=True)
def _copy(dst: np.ndarray, to: int, src: np.ndarray, at: int, n: int) -> None:
    """dst[to:to + n] = src[at:at + n], element by element: a slice assignment between arrays
    has numba compile its shape-error message (numba's string formatting), about a third of the
    kernel's first compilation."""
    for i in range(n):
        dst[to + i] = src[at + i]


@numba.njit(cache=True)
def _read_list(rec: np.ndarray, at: int, b: np.ndarray, to: int) -> int:
    """Copy the length-prefixed list at rec[at] to b[to:]; the index after it in `rec`."""
    n: int = rec[at]
    _copy(b, to, rec, at + 1, n)
    return at + 1 + n


@numba.njit(cache=True)
def _load(b: np.ndarray, rec: np.ndarray, at: int) -> None:
    """Set the board to the record starting at rec[at] (layout: module docstring)."""
    # Offsets as int(...): numba would compile `_copy` and `_read_list` once per literal.
    b[:OPTS] = 0
    p = rec[at]
    _copy(b, int(0), rec, at, int(7))
    at += 7
    _copy(b, int(EXPLORERS), rec, at, p)
    _copy(b, int(IN_TEMPLE), rec, at + p, p)
    _copy(b, int(SEALED), rec, at + 2 * p, p)
    at += 3 * p
    b[S_NORDER] = rec[at]
    at = _read_list(rec, at, b, int(ORDER))
    _copy(b, int(ROW), rec, at, int(CARDS_PER_ROUND))
    at += CARDS_PER_ROUND
    b[S_DTOP], b[S_DEND] = 0, rec[at]
    at = _read_list(rec, at, b, int(DECK))
    n = rec[at]
    b[S_HEAD], b[S_TAIL] = PEND_MID, PEND_MID + n
    _copy(b, int(PEND + 3 * PEND_MID), rec, at + 1, 3 * n)
    at += 1 + 3 * n
    _copy(b, int(COUNTS), rec, at, p * COLUMNS)
    at += p * COLUMNS
    for q in range(p):
        b[NTOTEMS + q] = rec[at]
        at = _read_list(rec, at, b, TOTEMS + TOTEM_CAP * q)
    for q in range(p):
        b[NCOPIES + q] = rec[at]
        at = _read_list(rec, at, b, COPIES + TOTEM_CAP * q)
    b[S_NOFFER] = rec[at]
    at = _read_list(rec, at, b, int(OFFER))
    b[S_NUSED] = rec[at]
    at = _read_list(rec, at, b, int(USED))
    for c in range(COLUMNS):
        at = _read_list(rec, at, b, COVERED + CHAMBER_CAP * c)


@numba.njit(cache=True)
def _open_chambers(b: np.ndarray, t: np.ndarray, column: int) -> int:
    """Chambers of `column` without a rock."""
    n = 0
    at = COVERED + CHAMBER_CAP * column
    for i in range(t[T_COL_LEN + column]):
        n += b[at + i] == 0
    return n


@numba.njit(cache=True)
def _options(b: np.ndarray, t: np.ndarray, kind: int, arg: int) -> int:
    """Write the codes of the legal actions of a decision (kind, arg) to b[OPTS:]; their number.
    Same sets as CibolaState._legal_actions (none: the decision is skipped)."""
    n = 0
    if kind == TAKE:
        for s in range(CARDS_PER_ROUND):
            if b[ROW + s] >= 0:
                b[OPTS + n] = TAKE * CODE_BASE + s
                n += 1
    elif kind == ROCK:
        if t[T_ROCKS] - b[S_PLACED] <= 0:
            return 0
        for c in range(COLUMNS):
            # `cibola/symbol/last-chamber`: a column's last open chamber is never covered.
            if _open_chambers(b, t, c) >= 2:
                for i in range(t[T_COL_LEN + c]):
                    if b[COVERED + CHAMBER_CAP * c + i] == 0:
                        b[OPTS + n] = ROCK * CODE_BASE + c * CHAMBER_STRIDE + i
                        n += 1
    elif kind == TOTEM:
        for i in range(b[S_NOFFER]):
            b[OPTS + n] = TOTEM * CODE_BASE + b[OFFER + i]
            n += 1
    elif kind == MOVE:
        step = t[T_AMOUNT + arg]
        down = 1 if step > 0 else 0
        for c in range(COLUMNS):
            if _open_chambers(b, t, c) < 2:
                continue
            at, size = COVERED + CHAMBER_CAP * c, t[T_COL_LEN + c]
            for i in range(size):
                j = i + step
                if b[at + i] == 1 and 0 <= j < size and b[at + j] == 0:
                    b[OPTS + n] = MOVE * CODE_BASE + (c * CHAMBER_STRIDE + i) * 2 + down
                    n += 1
    elif kind == COPY:
        for i in range(b[S_NUSED]):
            u = b[USED + i]
            if t[T_EFFECT + u] != E_COPY:
                b[OPTS + n] = COPY * CODE_BASE + u
                n += 1
    return n


@numba.njit(cache=True)
def _push_front(b: np.ndarray, kind: int, player: int, arg: int) -> None:
    h = b[S_HEAD] - 1
    b[PEND + 3 * h], b[PEND + 3 * h + 1], b[PEND + 3 * h + 2] = kind, player, arg
    b[S_HEAD] = h


@numba.njit(cache=True)
def _push_back(b: np.ndarray, kind: int, player: int, arg: int) -> None:
    e = b[S_TAIL]
    b[PEND + 3 * e], b[PEND + 3 * e + 1], b[PEND + 3 * e + 2] = kind, player, arg
    b[S_TAIL] = e + 1


@numba.njit(cache=True)
def _pop_front(b: np.ndarray) -> None:
    """Drop the queue's head; an emptied queue starts again at PEND_MID."""
    b[S_HEAD] += 1
    if b[S_HEAD] == b[S_TAIL]:
        b[S_HEAD], b[S_TAIL] = PEND_MID, PEND_MID


@numba.njit(cache=True)
def _start_round(b: np.ndarray) -> None:
    """Reveal up to 4 cards and open the sealed send (CibolaState._start_round)."""
    b[S_ROUND] += 1
    for s in range(CARDS_PER_ROUND):
        if b[S_DTOP] < b[S_DEND]:
            b[ROW + s] = b[DECK + b[S_DTOP]]
            b[S_DTOP] += 1
        else:
            b[ROW + s] = -1
    b[S_STAGE], b[S_NORDER], b[S_LAST] = ST_SEND, 0, -1
    b[SEALED: SEALED + b[S_P]] = -1


@numba.njit(cache=True)
def _set_order(b: np.ndarray) -> None:
    """Most explorers sent first; ties clockwise from the torch keeper (obtain_order)."""
    p, torch = b[S_P], b[S_TORCH]
    for i in range(p):
        b[ORDER + i] = (torch + i) % p
    for i in range(1, p):  # a stable insertion sort keeps the seat order among ties
        q = b[ORDER + i]
        j = i - 1
        while j >= 0 and b[SEALED + b[ORDER + j]] < b[SEALED + q]:
            b[ORDER + j + 1] = b[ORDER + j]
            j -= 1
        b[ORDER + j + 1] = q
    b[S_NORDER] = p


@numba.njit(cache=True)
def _reveal_sends(b: np.ndarray, t: np.ndarray) -> None:
    """Sends revealed, the camp shared among zero-senders, the takes queued (_reveal_sends)."""
    p = b[S_P]
    zero = 0
    for q in range(p):
        b[EXPLORERS + q] -= b[SEALED + q]
        b[IN_TEMPLE + q] = b[SEALED + q]
        zero += b[SEALED + q] == 0
    share = t[T_SHARE]
    if zero > 0 and share == SHARE_EQUAL:  # `cibola/send/camp-share`
        each = b[S_CAMP] // zero
        for q in range(p):
            if b[SEALED + q] == 0:
                b[EXPLORERS + q] += each
        b[S_CAMP] -= each * zero
    elif zero > 0 and share == SHARE_FIRST:  # all to the first zero-sender from the torch keeper
        for i in range(p):
            q = (b[S_TORCH] + i) % p
            if b[SEALED + q] == 0:
                b[EXPLORERS + q] += b[S_CAMP]
                b[S_CAMP] = 0
                break
    _set_order(b)
    cards = 0
    for s in range(CARDS_PER_ROUND):
        cards += b[ROW + s] >= 0
    b[S_HEAD], b[S_TAIL] = PEND_MID, PEND_MID
    if p == 2:  # `cibola/obtain/two-players`: they alternate until the row is empty
        for i in range(cards):
            _push_back(b, TAKE, b[ORDER + i % 2], -1)
    else:
        for i in range(min(cards, p)):
            _push_back(b, TAKE, b[ORDER + i], -1)
    b[S_STAGE] = ST_OBTAIN
    _advance(b, t)


@numba.njit(cache=True)
def _discard_leftovers(b: np.ndarray, t: np.ndarray) -> None:
    """Explorers back to the camp; cards left go to the box, the top sender places their rocks."""
    for q in range(b[S_P]):
        b[S_CAMP] += b[IN_TEMPLE + q]
        b[IN_TEMPLE + q] = 0
    for s in range(CARDS_PER_ROUND):
        c = b[ROW + s]
        if c >= 0:
            b[ROW + s] = -1
            if t[T_CARD_SYMBOL + c] == SYM_ROCK:
                _push_back(b, ROCK, b[ORDER], c)


@numba.njit(cache=True)
def _end_round(b: np.ndarray, t: np.ndarray) -> None:
    """The last taker takes the torch; a new round, or the final copies when the deck is out."""
    if b[S_LAST] >= 0:
        b[S_TORCH] = b[S_LAST]
    if b[S_DTOP] < b[S_DEND]:
        _start_round(b)
        return
    b[S_STAGE] = ST_FINAL
    for q in range(b[S_P]):
        for i in range(b[NTOTEMS + q]):
            totem = b[TOTEMS + TOTEM_CAP * q + i]
            if t[T_EFFECT + totem] == E_COPY:
                _push_back(b, COPY, q, totem)


@numba.njit(cache=True)
def _advance(b: np.ndarray, t: np.ndarray) -> None:
    """Skip impossible decisions and pass the ends of stages until someone decides (_advance)."""
    while True:
        if b[S_HEAD] < b[S_TAIL]:
            h = PEND + 3 * b[S_HEAD]
            if _options(b, t, b[h], b[h + 2]) > 0:
                return
            _pop_front(b)
        elif b[S_STAGE] == ST_OBTAIN:
            _discard_leftovers(b, t)
            b[S_STAGE] = ST_ROUND_END
        elif b[S_STAGE] == ST_ROUND_END:
            _end_round(b, t)
            if b[S_STAGE] == ST_SEND:
                return
        elif b[S_STAGE] == ST_FINAL:
            b[S_STAGE] = ST_OVER
            return
        else:
            return


@numba.njit(cache=True)
def _take(b: np.ndarray, t: np.ndarray, player: int, slot: int) -> None:
    """Sent explorers to the camp, the card to the player; its symbol becomes a decision."""
    b[S_CAMP] += b[IN_TEMPLE + player]
    b[IN_TEMPLE + player] = 0
    c = b[ROW + slot]
    b[ROW + slot] = -1
    for k in range(COLUMNS):
        b[COUNTS + COLUMNS * player + k] += t[T_CARD_COUNTS + COLUMNS * c + k]
    b[S_LAST] = player
    symbol = t[T_CARD_SYMBOL + c]
    if symbol == SYM_ROCK:
        _push_front(b, ROCK, player, c)
    elif symbol == SYM_TOTEM:
        _push_front(b, TOTEM, player, c)


@numba.njit(cache=True)
def _perform(b: np.ndarray, t: np.ndarray, player: int, totem: int) -> None:
    """An immediate totem acts at once; end totems act in scoring (_perform)."""
    effect = t[T_EFFECT + totem]
    if effect == E_MOVE:
        _push_front(b, MOVE, player, totem)
    elif effect == E_TAKE_EXPLORERS:
        n = min(t[T_AMOUNT + totem], b[S_CAMP])
        b[S_CAMP] -= n
        b[EXPLORERS + player] += n


@numba.njit(cache=True)
def _choose_totem(b: np.ndarray, t: np.ndarray, player: int, totem: int) -> None:
    """The totem leaves the offer (the others keep their order) for the player's hand."""
    k = 0
    while b[OFFER + k] != totem:
        k += 1
    for i in range(k, b[S_NOFFER] - 1):
        b[OFFER + i] = b[OFFER + i + 1]
    b[S_NOFFER] -= 1
    b[TOTEMS + TOTEM_CAP * player + b[NTOTEMS + player]] = totem
    b[NTOTEMS + player] += 1
    b[USED + b[S_NUSED]] = totem
    b[S_NUSED] += 1
    _perform(b, t, player, totem)


@numba.njit(cache=True)
def _apply(b: np.ndarray, t: np.ndarray, player: int, code: int) -> None:
    """Apply the decision at the queue's head (not a send): pop it, act, advance (_apply)."""
    _pop_front(b)
    kind, payload = code // CODE_BASE, code % CODE_BASE
    if kind == TAKE:
        _take(b, t, player, payload)
    elif kind == ROCK:
        b[COVERED + CHAMBER_CAP * (payload // CHAMBER_STRIDE) + payload % CHAMBER_STRIDE] = 1
        b[S_PLACED] += 1
    elif kind == TOTEM:
        _choose_totem(b, t, player, payload)
    elif kind == MOVE:
        where = payload // 2
        at = COVERED + CHAMBER_CAP * (where // CHAMBER_STRIDE) + where % CHAMBER_STRIDE
        b[at] = 0
        b[at + (1 if payload % 2 else -1)] = 1
    else:
        b[COPIES + TOTEM_CAP * player + b[NCOPIES + player]] = payload
        b[NCOPIES + player] += 1
        _perform(b, t, player, payload)
    _advance(b, t)


@numba.njit(cache=True)
def _effects(b: np.ndarray, player: int, out: np.ndarray) -> int:
    """The player's totems then copied totems (CibolaState._effects), into `out`; how many."""
    n: int = b[NTOTEMS + player]
    _copy(out, int(0), b, TOTEMS + TOTEM_CAP * player, n)
    m: int = b[NCOPIES + player]
    _copy(out, n, b, COPIES + TOTEM_CAP * player, m)
    return n + m


@numba.njit(cache=True)
def _score(b: np.ndarray, t: np.ndarray, scores: np.ndarray) -> None:
    """Final points per player (CibolaState.score_sheet)."""
    p = b[S_P]
    counts = b[COUNTS: COUNTS + p * COLUMNS].copy()
    effects = np.empty(2 * TOTEM_CAP, np.int64)
    for q in range(p):  # `cibola/totem/cancel-skulls` before any majority is judged
        for k in range(_effects(b, q, effects)):
            e = effects[k]
            if t[T_EFFECT + e] == E_CANCEL:
                i = COLUMNS * q + t[T_TREASURE + e]
                counts[i] = max(0, counts[i] - t[T_AMOUNT + e])
    for q in range(p):
        n = _effects(b, q, effects)
        per_explorer = 0
        for k in range(n):
            if t[T_EFFECT + effects[k]] == E_EXPLORER:
                per_explorer += t[T_AMOUNT + effects[k]]
        x = b[EXPLORERS + q]
        total = x // 2 + x * per_explorer
        for c in range(COLUMNS):
            first = 0  # `cibola/score/visible-value`: the first open chamber from the top
            while b[COVERED + CHAMBER_CAP * c + first] == 1:
                first += 1
            value, bonus = t[T_COL_VALUES + CHAMBER_CAP * c + first], 0
            for k in range(n):
                e = effects[k]
                if t[T_TREASURE + e] == c:
                    if t[T_EFFECT + e] == E_VALUE:
                        value = t[T_AMOUNT + e]
                    elif t[T_EFFECT + e] == E_BONUS:
                        bonus += t[T_AMOUNT + e]
            have = counts[COLUMNS * q + c]
            if t[T_COL_MAJORITY + c] == 0:
                total += have * (value + bonus)
            else:
                best = 0
                for r in range(p):
                    best = max(best, counts[COLUMNS * r + c])
                if have == best and have > 0:
                    total += value
                total += have * bonus
        scores[q] = total


@numba.njit(cache=True)
def _winners(b: np.ndarray, scores: np.ndarray, winners: np.ndarray) -> None:
    """The most points; ties to more explorers left; still tied: all (CibolaState.winners)."""
    best = 0
    for q in range(1, b[S_P]):
        if scores[q] > scores[best] or (scores[q] == scores[best]
                                        and b[EXPLORERS + q] > b[EXPLORERS + best]):
            best = q
    for q in range(b[S_P]):
        winners[q] = scores[q] == scores[best] and b[EXPLORERS + q] == b[EXPLORERS + best]


@numba.njit(cache=True)
def _play(b: np.ndarray, t: np.ndarray, log: np.ndarray, pos: int) -> int:
    """Play the loaded game to the end, logging rows from `pos`; the next row, or -1 when the
    log is full. Sealed sends are logged in ascending player order."""
    cap = log.shape[0]
    while b[S_STAGE] != ST_OVER:
        if b[S_STAGE] == ST_SEND:
            for q in range(b[S_P]):
                if b[SEALED + q] < 0:
                    if pos >= cap:
                        return -1
                    n = b[EXPLORERS + q] + 1
                    b[SEALED + q] = np.random.randint(0, n)
                    log[pos, 0], log[pos, 1], log[pos, 2] = q, SEND * CODE_BASE + b[SEALED + q], n
                    pos += 1
            _reveal_sends(b, t)
        else:
            if b[S_HEAD] >= b[S_TAIL]:  # nobody to move: the state was over already
                return pos
            if pos >= cap:
                return -1
            h = PEND + 3 * b[S_HEAD]
            player = b[h + 1]
            n = _options(b, t, b[h], b[h + 2])
            code = b[OPTS + np.random.randint(0, n)]
            log[pos, 0], log[pos, 1], log[pos, 2] = player, code, n
            pos += 1
            _apply(b, t, player, code)
    return pos


@numba.njit(cache=True)
def play_batch(records: np.ndarray, starts: np.ndarray, t: np.ndarray, seed: int,
               log: np.ndarray, offsets: np.ndarray, scores: np.ndarray,
               winners: np.ndarray) -> int:
    """Play every game whose record starts at records[starts[g]] to the end, writing the log
    rows, offsets, scores and winners; 0, or -1 if `log` is full."""
    np.random.seed(seed)
    b = np.zeros(BOARD_SIZE, np.int64)
    pos = int(0)  # not a literal: a literal 0 compiles _play twice
    for g in range(starts.shape[0]):
        offsets[g] = pos
        _load(b, records, starts[g])
        pos = _play(b, t, log, pos)
        if pos < 0:
            return -1
        _score(b, t, scores[g])
        _winners(b, scores[g], winners[g])
    offsets[starts.shape[0]] = pos
    return 0


# -- entry point ------------------------------------------------------------------------------
def game_playouts(states: Sequence[State], seed: int = 0) -> Playouts:
    """`GAME.random_playouts`: `states` must be Treasures of Cibola states (the kernel reads
    their fields), else `ValueError`."""
    return random_playouts(GAME.own_states(states, CibolaState), seed)


def random_playouts(states: Sequence[CibolaState], seed: int = 0) -> Playouts:
    """Play copies of `states` (one player count, one set of components) to the end at random."""
    seed = playout_seed(seed, "cibola")
    if not states:
        return Playouts(np.zeros((0, 0)), np.zeros((0, 0), bool), np.zeros((0, 3), np.int64),
                        np.zeros(1, np.int64), decode)
    players, components, options = states[0].num_players, states[0].components, states[0].options
    for s in states:
        if s.num_players != players or (s.components is not components
                                        and s.components != components) or s.options != options:
            raise ValueError("cibola playouts: one batch holds states of one player count, "
                             "one set of components and one set of options")
    tables = _tables_of(components).copy()
    # The options the kernel reads; the others are in each state's record (explorers, deck,
    # revealed totems) or in its components (the temple's columns).
    tables[T_SHARE] = CAMP_SHARES.index(options["camp_share"])
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
    with compiling("the Treasures of Cibola random player", play_batch):
        filled = play_batch(np.array(records, np.int64), np.array(starts, np.int64), tables, seed,
                            log, offsets, scores, winners)
    if filled < 0:
        raise RuntimeError("cibola playouts: the log outgrew its bound (a bug in the bound)")
    return Playouts(scores, winners, log[:offsets[-1]].copy(), offsets, decode)

"""Every rule of Anasazi (rulebook sections 3.0 setup placement, 4.0-4.3 play, 5.0-5.1 end).

`AnasaziGame` makes `AnasaziState`s. The state plays the setup phase (two base camps each, in
turn order from the first player, then three tower looks each) and then turns of two actions
(build a base camp or lead an expedition, in any mix). The decisions an action opens (which
tower to look at, which treasure to take from whom) are separate actions of the same player,
made before anything else. The geometric rules are judged in `games.anasazi.legality` (exactly
for `check`/`apply`, in batches for sampling legal actions); the interpretations are listed in
docs/assumptions/anasazi-rules.md.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from games.anasazi import legality as lg
from games.anasazi import validation
from games.anasazi.actions import (
    ACTION_TYPES, BuildCamp, ExtendMarker, LookTower, Pass, PlaceMarker, TakeTreasure, extend,
    parse_action,
)
from games.anasazi.components import (
    COLOURS, OBJECTIVES, OPTIONS, TRACK_SPACES, VARIANTS, Setup, Sizes, Table, TableView,
    options_in_force, sizes_under,
)
from games.anasazi.legality import Board, Camp
from geomsim.geometry import Pose
from geomsim.reading import DataError, cut, decode, require
from geomsim.rules import (
    Action, ActionSpace, ContinuousActionSpace, Event, FiniteActionSpace, Game, Rule, State,
    Violation, read_state_json,
)

STATE = "games.anasazi.rules:AnasaziState"
LEGALITY = "games.anasazi.legality"

# Rule ids that live here (the geometric ones are named in legality.py).
SETUP_TABLE = "anasazi/3.0/table"
SETUP_CAMPS = "anasazi/3.0/setup-camps"
SETUP_LOOKS = "anasazi/3.0/setup-looks"
SECRET_OBJECTIVE = "anasazi/3.0/secret-objective"
SECRET_TOWERS = "anasazi/3.0/secret-towers"
TURN = "anasazi/4.0/turn"
CAMPS_LEFT = "anasazi/4.1/camps-left"
CAMP_LOOK = "anasazi/4.3/camp-look"
MESA_LOOK = "anasazi/4.3/mesa-look"
TOUCH_PUEBLO = "anasazi/4.2/touch-pueblo"
DIVIDED_PUEBLO = "anasazi/4.2/divided-pueblo"
OWN_CAMP_TREASURE = "anasazi/4.2/own-camp-treasure"
END_ON_CAMP = "anasazi/4.2/end-on-camp"
NO_TRIAL = "anasazi/4.2/no-trial"
END_MARKERS = "anasazi/5.0/end-markers"
END_TOWERS = "anasazi/5.0/end-towers"
BONUS = "anasazi/5.1/bonus"
TREASURE_VALUE = "anasazi/5.1/treasure-value"
OBJECTIVE_DOUBLE = "anasazi/5.1/objective-double"
WINNER = "anasazi/5.1/winner"


def _rule(id: str, section: str, enforced_by: str, text: str) -> Rule:
    return Rule(id, section, " ".join(text.split()), enforced_by)


RULES: dict[str, Rule] = {r.id: r for r in (
    _rule(SETUP_TABLE, "3.0", "games.anasazi.layout:check_table", """First, place the tile with
        the large mesa in the centre of the play area. Then place the 12 mesa tiles that have a
        symbol on their back in a circle around the central mesa. Finally place the remaining 15
        mesa tiles in a second circle. Place all the mesas far enough apart that it is always
        possible to place a base camp between any two mesas. Place the 6 expedition base camps
        outside the outer circle of mesas. The distance between each base camp and a mesa must
        be smaller than the length of an expedition marker. (A given setup, JSON or `Setup`,
        is checked alike.)"""),
    _rule(SETUP_CAMPS, "3.0", f"{STATE}._setup_violations", """Each player receives the 7 base
        camp markers of one colour. Starting with the first player (and continuing clockwise),
        each player places a base camp anywhere in a valley between the mesas until each player
        has placed two base camps (see section 4.1 Building a Base Camp)."""),
    _rule(SETUP_LOOKS, "3.0", f"{STATE}._look_violations", """Starting with the first player (and
        continuing clockwise), each player secretly looks at the background colour of any three
        towers."""),
    _rule(SECRET_OBJECTIVE, "3.0", f"{STATE}.observe", """(After each player has placed two base
        camps:) Shuffle the objective cards and give each player one card at random. You may
        examine your card at any time, but you must keep it hidden from the other players."""),
    _rule(SECRET_TOWERS, "3.0", f"{STATE}.observe", """Shuffle the 16 wooden towers, upright, so
        that the colour markings are underneath and kept secret."""),
    _rule(TURN, "4.0", f"{STATE}._turn_violations", """Anasazi is played in turns, starting with
        the first player and continuing clockwise. During your turn you perform 2 actions of your
        choice. You may perform the same action twice, or each action once, during your turn:
        4.1 Building a Base Camp, 4.2 Leading an Expedition."""),
    _rule(CAMPS_LEFT, "4.1", f"{STATE}._camp_violations", """If you choose to build a base camp,
        take one of your own base camp markers (each player receives the 7 base camp markers of
        one colour)."""),
    _rule(lg.CAMP_VALLEY, "4.1", f"{LEGALITY}:camp_violations", """Place it in any valley
        (directly on the play area) between any mesas, anywhere on the play area. You may not
        build a base camp on a mesa."""),
    _rule(lg.CAMP_PLAY_AREA, "4.1", f"{LEGALITY}:camp_violations", """You must place your base
        camp entirely on the play area."""),
    _rule(lg.CAMP_ON_CAMP, "4.1", f"{LEGALITY}:camp_violations", """You may not build a base camp
        on another base camp."""),
    _rule(lg.CAMP_DIRECTLY, "4.1", f"{LEGALITY}:camp_violations", """Place it in any valley
        (directly on the play area): not on an expedition marker nor on an expedition base camp
        tile."""),
    _rule(CAMP_LOOK, "4.1", f"{STATE}._look_violations", """After building a base camp, you may
        secretly look at the background colour of any wooden tower anywhere on the play area.
        (4.3: Each time you choose to build a new base camp, you may look at any tower anywhere
        on the play area.)"""),
    _rule(lg.EXPEDITION_CAMP, "4.2", f"{LEGALITY}:marker_violations", """Take an expedition marker
        from the supply and place it at the end of any one of the expeditions of your choice.
        Each expedition starts from one of the 6 expedition base camp tiles on the edge of the
        play area."""),
    _rule(lg.COVER_EXPLORER, "4.2", f"{LEGALITY}:marker_violations", """Each expedition marker
        shows a small "explorer" near one end. The explorer always shows the current end of the
        expedition. When you add an expedition marker, you must place it so that it fully covers
        the explorer of the last marker of the expedition. (The first marker covers the start
        mark of its expedition base camp.)"""),
    _rule(lg.ONE_PER_CAMP, "4.2", f"{LEGALITY}:marker_violations", """Each expedition starts from
        one of the 6 expedition base camp tiles on the edge of the play area. Only one expedition
        may start from each base camp."""),
    _rule(lg.MARKER_PLAY_AREA, "4.2", f"{LEGALITY}:marker_violations", """You may not place an
        expedition marker that hangs over the edge of the play area."""),
    _rule(TOUCH_PUEBLO, "4.2", f"{STATE}._lay_marker", """If you place an expedition marker that
        touches the border of a pueblo containing a treasure cube, you take the treasure and place
        it face up in front of you. If the pueblo contains a tower instead, remove the tower and
        place it on the first empty space of the corresponding colour track on the score
        tile."""),
    _rule(DIVIDED_PUEBLO, "4.2", f"{LEGALITY}:touched_sectors", """Pueblos with two sectors
        separated by a line are two separate spaces! To collect the treasure and remove the tower
        at the same time, the expedition marker must touch both sectors, not just one of
        them!"""),
    _rule(lg.EXPLORER_VISIBLE, "4.2", f"{LEGALITY}:marker_violations", """You may move an
        expedition in circles, even crossing its own path or the path of other expeditions. In
        the latter case, each of the crossing expeditions must have its own separate end. After
        placing an expedition marker, the explorer at the end of each expedition must be clearly
        visible!"""),
    _rule(NO_TRIAL, "4.2", f"{STATE}._lay_marker", """You may not place an expedition marker just
        "to see if it fits" or to test the distance, and then place it elsewhere! If it is clearly
        obvious that a marker will reach a pueblo, the treasure and/or tower must be removed
        first."""),
    _rule(lg.OTHER_CAMP, "4.2", f"{LEGALITY}:marker_violations", """You may place expedition
        markers only over your own base camps. You may never place an expedition marker that
        covers (even partially) another player's base camp."""),
    _rule(OWN_CAMP_TREASURE, "4.2", f"{STATE}._take_violations", """The first time you place an
        expedition marker that covers any part of one of your base camps, you may immediately take
        any treasure of your choice from any other player and add it to your collection. You may
        do this each time one of your base camps is covered for the first time."""),
    _rule(END_ON_CAMP, "4.2", f"{LEGALITY}:end_camps", """If the end of an expedition marker sits
        on a base camp (that is, it has not fully crossed the base camp), any player (not only the
        owner of the base camp) may play a tile to continue that expedition."""),
    _rule(lg.NEW_CAMP, "4.2", f"{LEGALITY}:marker_violations", """You may not place an expedition
        marker on a base camp on the turn in which you placed that base camp. You must wait at
        least until your next turn."""),
    _rule(MESA_LOOK, "4.3", f"{STATE}._look_violations", """Each time you lead an expedition onto
        a mesa, and if it is the first expedition marker placed on that mesa, you may look at any
        tower on that mesa (if there is still a tower on that mesa tile)."""),
    _rule(END_MARKERS, "5.0", f"{STATE}._check_end", """The game ends immediately if all
        expedition markers have been placed."""),
    _rule(END_TOWERS, "5.0", f"{STATE}._check_end", """The game ends immediately if each of the 4
        towers of one colour has been moved to the score tile (so that only one empty space of
        that colour remains on the track)."""),
    _rule(BONUS, "5.1", f"{STATE}.bonus_winners", """When the game is over, the "bonus" treasures
        on the score tile are distributed. For each colour, the player with the most treasure
        cubes of that colour takes the corresponding "bonus" treasure. If two or more players are
        tied for the majority in a given colour, nobody takes the "bonus" treasure."""),
    _rule(TREASURE_VALUE, "5.1", f"{STATE}.treasure_values", """Each treasure is worth a number of
        victory points equal to the number of empty spaces of its colour on the score tile."""),
    _rule(OBJECTIVE_DOUBLE, "5.1", f"{STATE}.scores", """Any treasure you have that matches your
        objective card is worth double the normal number of victory points!"""),
    _rule(WINNER, "5.1", f"{STATE}.winners", """The player with the most victory points wins the
        game! In case of a tie, the player among those tied with the most treasures is the
        winner."""),
)}

# Sampling of legal actions: candidates per expedition and rounds before giving up.
SAMPLES_PER_EXPEDITION = 48
PER_EXPEDITION = 2  # legal markers taken from one expedition's candidates
SAMPLE_ROUNDS = 6
CAMP_SAMPLES = 8  # candidate base camps per legal one wanted (about half the play area is valley)
CAMP_SHARE = 0.3  # how often the sampler offers a base camp when both kinds are possible

# What the legality of a base camp or marker depends on (`AnasaziState._position`): the board,
# the phase, the player to move, the actions left, the open decisions, the player.
Position = tuple[Board, str, int, int, tuple[str, ...], int]


@functools.lru_cache(maxsize=16)
def _random_setup(players: int, seed: int, sizes: Sizes = Sizes()) -> Setup:
    """`layout.random_setup`, kept for the setups used last (a setup is immutable, and making
    one takes longer than a random game: replays and harnesses start from the same seed)."""
    from games.anasazi import layout

    return layout.random_setup(players, seed, sizes)


def _under_options(setup: Setup, options: Mapping[str, Any] | None) -> Setup:
    """`setup` with `options` laid over its own: size options on its table's sizes (another
    table, judged again by the setup rules), the others in its options."""
    if not options:
        return setup
    table = _resized(setup.table, sizes_under(setup.table.sizes, options))
    return dataclasses.replace(setup, table=table, options={**setup.options, **options})


# Tables with other sizes, by (id of the table, sizes): one object for one table and sizes, so
# that what is derived per table (geometry, compiled arrays, the setup rules' verdict) is made once.
_RESIZED: dict[tuple[int, Sizes], tuple[Table, Table]] = {}


def _resized(table: Table, sizes: Sizes) -> Table:
    """`table` with `sizes` (itself when they are its own)."""
    if sizes == table.sizes:
        return table
    key = (id(table), sizes)
    found = _RESIZED.get(key)
    if found is None or found[0] is not table:
        if len(_RESIZED) >= 64:
            _RESIZED.clear()
        found = _RESIZED[key] = (table, dataclasses.replace(table, sizes=sizes))
    return found[1]


def _geometry_sizes(options: Mapping[str, Any]) -> Sizes:
    """The sizes a random table is laid out and judged with: the marker's (the setup rules
    read them); the supplies are set on the table afterwards."""
    return sizes_under(Sizes(), {n: v for n, v in options.items() if n in ("marker_length", "marker_width")})


class AnasaziGame(Game):
    """Anasazi (Phalanx Games, 2006) for 2 to 4 players."""

    name = "anasazi"
    min_players = 2
    max_players = 4
    rules = RULES
    action_types = ACTION_TYPES
    hidden_information = True
    playout_requires = ("numba",)
    options, variants = OPTIONS, VARIANTS
    # 2: the random table of every seed changed (the layout of 2026-12-03, night): rows of
    # batches played on the tables before do not mix with rows played on these.
    rules_version = 2

    def new_state(self, players: int, seed: int | None = None, setup: Any = None,
                  options: Mapping[str, Any] | None = None, check_setup: bool = True) -> AnasaziState:
        """A state at the start of setup: a random setup from `seed`, or `setup` (a Setup or its
        JSON dict, either checked against every setup rule), under `options` laid over the
        setup's (`games.anasazi.components.OPTIONS`). `check_setup=False` skips the table's setup
        rules, for laboratory tables that break them on purpose; say so where it is used."""
        from games.anasazi import layout  # pymunk and the layout code load only when needed

        self.check_players(players)
        options = dict(options or {})
        if setup is None:
            if seed is None:
                raise ValueError("give a seed or a setup")
            # Random tables meet the setup rules, with the marker sizes the options give.
            setup = _under_options(_random_setup(players, seed, _geometry_sizes(options)), options)
        else:
            if isinstance(setup, dict):  # coordinates and counts bounded, whatever check_setup says
                validation.check_table_data(setup, "")
            setup = _under_options(setup if isinstance(setup, Setup) else Setup.from_json(setup),
                                   options)
            try:
                layout.load_setup(setup, check_setup)
            except DataError:
                raise
            except ValueError as e:  # the setup rules, broken by a piece: name its field
                raise validation.table_error(setup.table, layout.check_table(setup.table), str(e)) from None
        require(setup.players == players, "players", f"the setup is for {setup.players} players, not {players}")
        options_in_force(setup.table.sizes, setup.options)  # setup_camps within base_camps
        return AnasaziState(self, setup)

    def make_setup(self, players: int, seed: int, options: Mapping[str, Any] | None = None
                   ) -> dict[str, Any]:
        """A random setup from `seed` as the JSON dict `new_state(setup=...)` accepts."""
        from games.anasazi import layout

        self.check_players(players)
        if not options:
            return layout.make_setup(players, seed)
        return self.new_state(players, seed, options=options).setup.to_json()

    def parse_action(self, text: str) -> Action:
        """The action written as `text` (see games.anasazi.actions)."""
        return parse_action(text)

    def state_from_json(self, text: str) -> AnasaziState:
        """The state that `AnasaziState.to_json` wrote."""
        return AnasaziState.from_json(self, text)



class AnasaziState(State):
    """A moment of a game of Anasazi, setup phase included."""

    def __init__(self, game: AnasaziGame, setup: Setup):
        self.game = game
        self.num_players = setup.players
        self.history = []
        self.table: Table = setup.table
        self.seed = setup.seed
        self.first_player = setup.first_player
        self.initial_treasures = dict(setup.treasures)
        self.towers = dict(setup.towers)  # the colour of every tower, hidden ones included
        self.objectives = tuple(setup.objectives)
        self.options = options_in_force(setup.table.sizes, setup.options)
        self.phase = "camps"  # "camps", "looks" (setup), "play", "over"
        self.current = setup.first_player
        self.step = 0  # setup placements made (phase "camps") or setup looks made ("looks")
        self.actions_left = self.options["actions_per_turn"]
        self.pending: list[str] = []  # decisions opened: "take", "look", "look:<mesa id>"
        self.fresh: list[int] = []  # base camps placed in the current turn
        self.camps: list[Camp] = []
        self.covered: list[bool] = []  # per base camp: has a marker ever covered it
        self.expeditions: dict[str, list[Pose]] = {e.id: [] for e in self.table.expedition_camps}
        contents = {sid: ("tower", c) for sid, c in setup.towers.items()}
        contents.update({sid: ("treasure", c) for sid, c in setup.treasures.items()})
        self.contents: dict[str, tuple[str, str]] = {s.id: contents[s.id] for s in self.table.sectors}
        self.track = {c: 0 for c in COLOURS}
        self.hands = [{c: 0 for c in COLOURS} for _ in range(self.num_players)]
        self.seen: list[set[str]] = [set() for _ in range(self.num_players)]
        self.setup_looked: list[str] = []  # towers the current player looked at in setup
        self.visited: set[str] = set()  # mesas an expedition marker has been laid on
        self.ended = ""  # why the game ended ("markers", "towers:<colour>"), "" while it goes on
        self.bonus: dict[str, int | None] = {}  # who took each bonus treasure, once over
        self._setup: Setup | None = setup
        self._deal_text: str | None = None  # see to_json
        self._laid_text: _Laid | None = None
        self._board: tuple[int, Board] | None = None  # see board()
        self._laid_changes = 0  # see board()

    # -- who decides ---------------------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        """The player to move, or () when the game is over."""
        return () if self.phase == "over" else (self.current,)

    def turn_of(self, player: int) -> AnasaziState:
        """A clone in which `player` may build or lay a marker now, for looking ahead (reach
        analysis, search bots). `self` is not changed.

        When `player` is to move in play with actions left, that turn goes on: the open
        decisions (a tower look, a treasure take) are declined by passing. Otherwise (another
        player's turn, setup, the end) the clone is at the start of a turn of `player`: two
        actions, no decision open, no base camp built this turn; the table, the hands and the
        history stay as they are (the other players are taken to leave the table alone).
        A game that is over has no turn to give: `ValueError` (the game stops where it ends).
        """
        player = self._resolve_player(player)
        if self.phase == "over":
            raise ValueError(f"the game is over ({self.ended}): player {player} has no turn")
        other = self.clone()
        while other.phase == "play" and other.current == player and other.pending:
            other.apply(Pass(), player)
        if (other.phase != "play" or other.current != player or other.pending
                or other.actions_left <= 0):
            other.phase, other.current = "play", player
            other.actions_left = self.options["actions_per_turn"]
            if other.fresh:
                other._laid_changed()
            other.pending, other.fresh = [], []
            other.mark_origin()  # changed other than by apply: undo cannot go back past here
        return other

    def seat_order(self) -> list[int]:
        """Players in turn order from the first player (clockwise = increasing numbers)."""
        return [(self.first_player + i) % self.num_players for i in range(self.num_players)]

    def turn_order(self) -> list[int]:
        """Turn positions: the first player (drawn at setup) moves first, then clockwise."""
        return self.seat_order()

    @property
    def setup(self) -> Setup:
        """The setup this game started from, the whole truth (every tower colour and objective
        card: not a player's view; determinized states carry their drawn ones)."""
        if self._setup is None:
            self._setup = Setup(self.table, self.num_players, self.towers, self.initial_treasures,
                                self.objectives, self.first_player, self.seed, self.options)
        return self._setup

    @property
    def sizes(self) -> Sizes:
        """The table's piece sizes and supplies."""
        return self.table.sizes

    def board(self) -> Board:
        """What lies on the table now, for the geometric rules (the same object until a piece
        is laid or a turn ends: what the rules derive from it is kept there, and what they
        derive piece by piece is carried over to the next board)."""
        # `_laid_changes` counts the changes of `camps`, `expeditions` and `fresh`, which only
        # this class's methods make (`_laid_changed`): one number to compare where the lengths
        # of every list cost a tenth of a fresh marker check.
        key = self._laid_changes
        if self._board is None or self._board[0] != key:
            board = Board(self.table, tuple(self.camps),
                          {e: tuple(p) for e, p in self.expeditions.items() if p},
                          frozenset(self.fresh))
            # What was derived piece by piece for the board before is extended, not remade.
            self._board = (key, board.follow(self._board and self._board[1]))
        return self._board[1]

    def _laid_changed(self) -> None:
        """Say that `camps`, `expeditions` or `fresh` changed: the next `board()` is new."""
        self._laid_changes += 1

    def markers_left(self) -> int:
        """Expedition markers still in the supply."""
        return self.table.sizes.markers - sum(map(len, self.expeditions.values()))

    def camps_left(self, player: int) -> int:
        """Base camp markers `player` has not built yet."""
        return self.table.sizes.base_camps_per_player - [c.owner for c in self.camps].count(player)

    def towers_on_table(self, mesa: str | None = None) -> list[str]:
        """The sectors that still hold a tower (on one mesa, if given), in the table's order."""
        geo = lg.table_geometry(self.table)
        # Towers stand on the small sectors only (the setup says so), until moved to the track.
        found = [sid for sid in geo.small_ids if sid in self.contents]
        if mesa is not None:
            found = [sid for sid in found if geo.sector_mesa[sid] == mesa]
        return found

    # -- legal actions -------------------------------------------------------------------------
    def _legal_actions(self, player: int) -> ActionSpace:
        if self.phase == "camps":
            return ContinuousActionSpace(lambda rng, k: self._sample_main(player, rng, k, False))
        if self.phase == "looks":
            return FiniteActionSpace(_look(s) for s in self.towers_on_table()
                                     if s not in self.setup_looked)
        if self.pending:
            return FiniteActionSpace(self._follow_ups(player) + [Pass()])
        return ContinuousActionSpace(lambda rng, k: self._sample_main(player, rng, k, True))

    def _follow_ups(self, player: int) -> list[Action]:
        decision = self.pending[0]
        if decision == "take":
            return [TakeTreasure(c, q) for q in range(self.num_players) if q != player
                    for c in COLOURS if self.hands[q][c] > 0]
        return [_look(s) for s in self.towers_on_table(_look_scope(decision))]

    def _has_options(self, decision: str) -> bool:
        """Whether a decision offers anything but a pass (a treasure to take, a tower to see)."""
        if decision == "take":
            return any(self.hands[q][c] > 0 for q in range(self.num_players) if q != self.current
                       for c in COLOURS)
        return bool(self.towers_on_table(_look_scope(decision)))

    def _sample_main(self, player: int, rng: np.random.Generator, k: int, markers: bool
                     ) -> list[Action]:
        """Up to `k` distinct legal base camps and markers, found by the batched checks."""
        camps_ok = self.camps_left(player) > 0
        n_camps = k if not markers else int(rng.binomial(k, CAMP_SHARE)) if camps_ok else 0
        found: list[Action] = []
        if camps_ok:
            found += self.sample_camps(rng, n_camps)
        if markers:
            found += self.sample_markers(player, rng, k - len(found))
        if len(found) < k and camps_ok:  # no marker found: offer more camps instead
            found += [a for a in self.sample_camps(rng, k - len(found)) if a not in found]
        found = found[:k]
        # The samplers judged these with the rules' own formulas on this board (tests hold them
        # to the exact check): `apply` of these very objects, in this very position, need not
        # judge them again.
        self._proof = (self._position(player), {id(a): a for a in found})
        return found

    _proof: tuple[Position, dict[int, Action]] | None = None  # see _proven

    def _position(self, player: int) -> Position:
        """What the legality of a base camp or marker by `player` depends on: the board (the
        very object: a new one is made whenever a piece is laid) and the turn."""
        return (self.board(), self.phase, self.current, self.actions_left, tuple(self.pending),
                player)

    def legality_key(self, player: int) -> Position | None:
        """What decides which actions of `player` are legal now, while the choice is a base
        camp or a marker (the board and the turn: `geomsim.bots.ISMCTSBot` keeps its verdicts
        per key); None while a tower look or a take is to decide (those read the contents and
        the hands)."""
        if self.pending or self.phase not in ("camps", "play"):
            return None
        return self._position(player)

    def _proven(self, action: Action, player: int) -> bool:
        """Whether the sampler returned this very object in this very position (see
        `geomsim.rules.State._proven`)."""
        proof = self._proof
        if proof is None or proof[1].get(id(action)) is not action:
            return False
        position = self._position(player)
        return position[0] is proof[0][0] and position[1:] == proof[0][1:]

    def sample_camps(self, rng: np.random.Generator, k: int) -> list[BuildCamp]:
        """Up to `k` legal base camp placements drawn uniformly over the play area."""
        if k <= 0:
            return []
        board, sizes = self.board(), self.sizes
        reach = sizes.play_area_radius - sizes.base_camp_radius
        found: list[BuildCamp] = []
        n = CAMP_SAMPLES * k
        for _ in range(SAMPLE_ROUNDS):
            u = rng.random((2, n))
            z = (reach * np.sqrt(u[0])) * np.exp((2j * np.pi) * u[1])  # uniform over the disc
            found += [BuildCamp(c.real, c.imag) for c in lg.first_legal_camps(board, z,
                                                                               k - len(found))]
            if len(found) >= k:
                break
        return found

    def sample_markers(self, player: int, rng: np.random.Generator, k: int) -> list[PlaceMarker]:
        """Up to `k` legal markers on random expeditions (started ones and free expedition base
        camps alike), by construction covering the explorer, filtered by the batched check."""
        if k <= 0:
            return []
        board = self.board()
        ids = list(self.expeditions)
        found: list[PlaceMarker] = []
        for _ in range(SAMPLE_ROUNDS):
            for i in rng.permutation(len(ids)):
                ctx = lg.marker_context(board, player, ids[i])
                # The first legal ones of a batch, as many as are still wanted (the batch's
                # random numbers are drawn all the same).
                found += [PlaceMarker(ids[i], a, b, h) for a, b, h in lg.first_legal_marker_poses(
                    ctx, rng, SAMPLES_PER_EXPEDITION, min(PER_EXPEDITION, k - len(found)))]
                if len(found) >= k:
                    return found[:k]
        return found

    def arbitrary_actions(self, player: int, rng: np.random.Generator, k: int) -> list[Action]:
        """Well-formed actions, mostly illegal: camps anywhere, markers near and far from the
        explorers (absolute and relative), looks at any sector, takes, passes (test input for
        `check`)."""
        R = self.sizes.play_area_radius
        board = self.board()
        ids = list(self.expeditions) + ["E9"]
        sectors = [s.id for s in self.table.sectors]
        out: list[Action] = []
        for _ in range(k):
            roll = rng.integers(6)
            if roll == 0:
                out.append(BuildCamp(*(float(v) for v in rng.uniform(-1.1 * R, 1.1 * R, 2))))
            elif roll == 1:
                e = str(rng.choice(ids))
                if e in self.expeditions:
                    near = extend(board, e, float(rng.uniform(0, 360)))
                    jitter = rng.normal(0.0, 4.0, 2)
                    out.append(PlaceMarker(e, near.x + float(jitter[0]), near.y + float(jitter[1]),
                                           near.heading))
                else:
                    x, y = (float(v) for v in rng.uniform(-R, R, 2))
                    out.append(PlaceMarker(e, x, y, 0.0))
            elif roll == 2:  # relative markers, the offsets sometimes out of range
                out.append(ExtendMarker(str(rng.choice(ids)), float(rng.uniform(0, 360)),
                                        float(rng.uniform(-4.0, 66.0)), float(rng.uniform(-6.0, 6.0))))
            elif roll == 3:
                out.append(LookTower(str(rng.choice(sectors))))
            elif roll == 4:
                out.append(TakeTreasure(str(rng.choice(COLOURS)), int(rng.integers(self.num_players + 1))))
            else:
                out.append(Pass())
        return out

    # -- checking ------------------------------------------------------------------------------
    def _violations(self, action: Action, player: int) -> list[Violation]:
        if type(action) is PlaceMarker and self.phase == "play" and not self.pending:
            # The common question first (a search asks it thousands of times a second): a
            # marker in a turn with no decision open, which no turn rule forbids.
            return self._marker_violations(action, player)
        found = self._turn_violations(action, player)
        if found:
            return found
        if isinstance(action, BuildCamp):
            return self._camp_violations(action, player)
        if isinstance(action, ExtendMarker):
            found = lg.expedition_violations(self.board(), action.expedition)
            if found:
                return found
            action = action.resolve(self)
        if isinstance(action, PlaceMarker):
            return self._marker_violations(action, player)
        if isinstance(action, LookTower):
            return self._look_violations(action, player)
        if isinstance(action, TakeTreasure):
            return self._take_violations(action, player)
        return []  # a pass that the turn allows

    def _marker_violations(self, marker: PlaceMarker, player: int) -> list[Violation]:
        """The geometric rules' verdict on `marker`, kept per board (`lg.judged_marker`)."""
        return list(lg.judged_marker(self.board(), player, marker.expedition, marker.x,
                                     marker.y, marker.heading, lambda: marker.pose))

    def _turn_violations(self, action: Action, player: int) -> list[Violation]:
        """Whether this kind of action may be taken now (phase, open decisions)."""
        if self.phase in ("camps", "looks"):
            return self._setup_violations(action)
        if self.pending:
            if isinstance(action, Pass) or (
                    isinstance(action, TakeTreasure) == (self.pending[0] == "take")
                    and isinstance(action, (TakeTreasure, LookTower))):
                return []
            return [Violation(TURN, f"first decide the {describe_decision(self.pending[0])} "
                              f"(or pass) before any other action, not {action}",
                              {"pending": list(self.pending)})]
        if isinstance(action, (BuildCamp, PlaceMarker, ExtendMarker)):
            return []
        return [Violation(TURN, f"{action} is not an action of a turn now: build a base camp or "
                          f"lead an expedition ({self.actions_left} action(s) left this turn)",
                          {"actions_left": self.actions_left})]

    def _setup_violations(self, action: Action) -> list[Violation]:
        """In setup, base camps first (two each, in turn order), then three tower looks each."""
        if self.phase == "camps" and not isinstance(action, BuildCamp):
            return [Violation(SETUP_CAMPS, f"setup: place a base camp first, not {action} "
                              f"({self.options['setup_camps'] * self.num_players - self.step} "
                              "setup base camp(s) to go)" + self.option_note("setup_camps"),
                              {"step": self.step})]
        if self.phase == "looks" and not isinstance(action, LookTower):
            return [Violation(SETUP_LOOKS, f"setup: look at a tower, not {action} "
                              f"({self.options['setup_looks'] - len(self.setup_looked)} look(s) to "
                              "go)" + self.option_note("setup_looks"),
                              {"looked": list(self.setup_looked)})]
        return []

    def _camp_violations(self, action: BuildCamp, player: int) -> list[Violation]:
        found = []
        if self.camps_left(player) <= 0:
            found.append(Violation(CAMPS_LEFT, f"player {player} has built all "
                                   f"{self.sizes.base_camps_per_player} base camps",
                                   {"built": self.sizes.base_camps_per_player}))
        board, x, y = self.board(), action.x, action.y
        return found + board.memo(("camp violations", x, y),
                                  lambda: lg.camp_violations(board, x, y))

    def _look_violations(self, action: LookTower, player: int) -> list[Violation]:
        """A look names a tower on the table; in setup a new one; after a marker one on the
        mesa entered."""
        if self.phase == "looks":
            rule, scope = SETUP_LOOKS, None
        else:
            scope = _look_scope(self.pending[0])
            rule = CAMP_LOOK if scope is None else MESA_LOOK
        if action.sector not in self.contents or self.contents[action.sector][0] != "tower":
            return [Violation(rule, f"no tower stands on {action.sector}",
                              {"sector": action.sector, "towers": sorted(self.towers_on_table())})]
        if self.phase == "looks" and action.sector in self.setup_looked:
            return [Violation(rule, f"player {player} has already looked at {action.sector} in "
                              "setup: look at three different towers",
                              {"looked": list(self.setup_looked)})]
        if scope is not None and lg.table_geometry(self.table).sector_mesa[action.sector] != scope:
            return [Violation(rule, f"the tower on {action.sector} is not on mesa {scope}, the mesa "
                              "the expedition entered", {"sector": action.sector, "mesa": scope,
                                                         "towers": self.towers_on_table(scope)})]
        return []

    def _take_violations(self, action: TakeTreasure, player: int) -> list[Violation]:
        """A take names another player who holds a treasure of that colour."""
        q = action.source
        if q == player or q >= self.num_players:
            return [Violation(OWN_CAMP_TREASURE, f"take from another player (0 to "
                              f"{self.num_players - 1}, not {player}), not from {q}",
                              {"source": q})]
        if self.hands[q][action.colour] <= 0:
            return [Violation(OWN_CAMP_TREASURE, f"player {q} has no {action.colour} treasure",
                              {"source": q, "treasures": dict(self.hands[q])})]
        return []

    # -- applying ------------------------------------------------------------------------------
    def _apply(self, action: Action, player: int) -> list[Event]:
        if isinstance(action, BuildCamp):
            events = self._build_camp(action, player)
        elif isinstance(action, PlaceMarker):
            events = self._lay_marker(action, player)
        elif isinstance(action, ExtendMarker):
            events = self._lay_marker(action.resolve(self), player)
        elif isinstance(action, LookTower):
            events = self._look(action, player)
        elif isinstance(action, TakeTreasure):
            self.hands[action.source][action.colour] -= 1
            self.hands[player][action.colour] += 1
            self.pending.pop(0)
            events = [Event("treasure-taken", player, {"colour": action.colour,
                                                       "from": action.source})]
        else:
            self.pending.pop(0)
            events = [Event("passed", player)]
        return events + self._advance()

    def _build_camp(self, action: BuildCamp, player: int) -> list[Event]:
        self.camps.append(Camp(player, action.x, action.y))
        self._laid_changed()
        self.covered.append(False)
        if self.phase == "camps":
            self.step += 1
        else:
            self.fresh.append(len(self.camps) - 1)
            self.actions_left -= 1
            self.pending.append("look")
        return [Event("camp-built", player, {"camp": len(self.camps) - 1, "at": [action.x, action.y]})]

    def _lay_marker(self, action: PlaceMarker, player: int) -> list[Event]:
        """Lay the marker for good (no trial placements) and carry out at once what it touches:
        treasures taken, towers to the track, own camps covered, mesas entered."""
        pose, before = action.pose, self.board()
        self.expeditions[action.expedition].append(pose)
        self._laid_changed()
        self.actions_left -= 1
        events = [Event("marker-laid", player, {"expedition": action.expedition,
                                                "pose": [pose.x, pose.y, pose.heading],
                                                "markers_left": self.markers_left()})]
        # Kept per board: a search lays the same marker on the same board again and again.
        sectors, mesas, covered = before.memo(
            ("laid", pose.x, pose.y, pose.heading),
            lambda: (*lg.touched(self.table, pose), lg.covered_camps(before, pose)))
        for sid in sectors:
            events += self._collect(sid, player)
        for i in covered:
            if not self.covered[i]:
                self.covered[i] = True
                events.append(Event("camp-covered", player, {"camp": i, "owner": self.camps[i].owner}))
                if self.camps[i].owner == player and self.options["camp_theft"]:
                    self.pending.append("take")
        for mesa in mesas:
            if mesa not in self.visited:
                self.visited.add(mesa)
                self.pending.append(f"look:{mesa}")
        return events + self._check_end()

    def _collect(self, sector: str, player: int) -> list[Event]:
        """Take what lies on a touched sector: a treasure to the hand, a tower to the track."""
        item = self.contents.pop(sector, None)
        if item is None:
            return []
        kind, colour = item
        if kind == "treasure":
            self.hands[player][colour] += 1
            return [Event("treasure-found", player, {"sector": sector, "colour": colour})]
        self.track[colour] += 1
        return [Event("tower-moved", player, {"sector": sector, "colour": colour,
                                              "space": self.track[colour]})]

    def _check_end(self) -> list[Event]:
        """The game ends at once when the markers run out or a colour's towers are all placed;
        the decisions the last marker opened that can still change the score (takes) remain."""
        if self.markers_left() <= 0:
            self.ended = "markers"
        for c in COLOURS:
            if self.track[c] >= self.options["towers_to_end"]:
                self.ended = f"towers:{c}"
        if self.ended:
            self.pending = [d for d in self.pending if d == "take"]
        return []

    def _look(self, action: LookTower, player: int) -> list[Event]:
        self.seen[player].add(action.sector)
        if self.phase == "looks":
            self.setup_looked.append(action.sector)
        else:
            self.pending.pop(0)
        return [Event("tower-seen", player, {"sector": action.sector})]

    def _advance(self) -> list[Event]:
        """Drop decisions without options, then move to the next player, phase or the end."""
        while self.pending and not self._has_options(self.pending[0]):
            self.pending.pop(0)
        if self.pending:
            return []
        if self.phase == "camps":
            order = self.seat_order()
            if self.step < self.options["setup_camps"] * self.num_players:
                self.current = order[self.step % self.num_players]
                return []
            # Objective cards are dealt only now (3.0): nobody knows theirs while placing camps.
            self.phase, self.step, self.current = "looks", 0, self.first_player
            return [Event("objectives-dealt", None)]
        if self.phase == "looks":
            if len(self.setup_looked) < self.options["setup_looks"] and self.towers_on_table():
                return []
            self.step += 1
            self.setup_looked = []
            if self.step < self.num_players:
                self.current = self.seat_order()[self.step]
            else:
                self.phase, self.current = "play", self.first_player
                self.actions_left = self.options["actions_per_turn"]
            return []
        if self.ended:
            return self._finish()
        if self.actions_left <= 0:
            self.current = (self.current + 1) % self.num_players
            if self.fresh:
                self._laid_changed()
            self.actions_left, self.fresh = self.options["actions_per_turn"], []
        return []

    def _finish(self) -> list[Event]:
        self.phase = "over"
        self.bonus = self.bonus_winners()
        return [Event("game-over", None, {"reason": self.ended, "bonus": dict(self.bonus),
                                          "scores": self.scores()})]

    # -- scoring -------------------------------------------------------------------------------
    def bonus_winners(self) -> dict[str, int | None]:
        """For each colour, the player with strictly the most treasures of it (None on a tie;
        None for every colour under the option bonus_treasures=false)."""
        if not self.options["bonus_treasures"]:
            return {c: None for c in COLOURS}
        out: dict[str, int | None] = {}
        for c in COLOURS:
            counts = [h[c] for h in self.hands]
            best = max(counts)
            out[c] = counts.index(best) if best > 0 and counts.count(best) == 1 else None
        return out

    def treasure_values(self) -> dict[str, int]:
        """Points of one treasure of each colour: the empty spaces of its track."""
        return {c: TRACK_SPACES - self.track[c] for c in COLOURS}

    def holdings(self) -> list[dict[str, int]]:
        """Each player's treasures by colour, the bonus treasures included once the game is over."""
        held = [dict(h) for h in self.hands]
        for c, p in self.bonus.items():
            if p is not None:
                held[p][c] += 1
        return held

    def figures(self) -> dict[str, Any]:
        """Numbers for batch analysis: treasures held and towers placed by colour, towers moved,
        markers laid, expeditions started, base camps built and camps first covered; how the game
        ended ("markers" or "towers"), once over."""
        found: dict[str, Any] = {f"{c} treasures held": sum(h[c] for h in self.hands)
                                 for c in COLOURS}
        found.update({f"{c} towers placed": self.track[c] for c in COLOURS})
        found["markers laid"] = sum(len(m) for m in self.expeditions.values())
        found["expeditions started"] = sum(1 for m in self.expeditions.values() if m)
        found["base camps built"] = len(self.camps)
        found["camps covered"] = sum(self.covered)
        found["towers moved"] = sum(self.track.values())
        if self.ended:
            found["ending"] = self.ended.partition(":")[0]  # "markers" or "towers"
        return found

    def objectives_dealt(self) -> bool:
        """Whether the objective cards are dealt: once every player placed two setup base camps."""
        return self.phase != "camps"

    def scores(self) -> list[float]:
        """Victory points. Once the game is over, the final score: each treasure (bonus ones
        included) at its colour's value, doubled for the player's objective card. During play,
        the points every player can count: no objective doubled (the cards are secret) and no
        bonus yet; `evaluate(player)` adds that player's own objective, `revealed_scores()`
        every one (the whole truth)."""
        return self._points(range(self.num_players) if self.phase == "over" else ())

    def revealed_scores(self) -> list[float]:
        """The whole truth, not a player's view: the points now with every dealt objective card
        doubled, hidden or not (for referees and analysis)."""
        return self._points(range(self.num_players) if self.objectives_dealt() else ())

    def outcome_scores(self) -> list[float]:
        """The final score if the game ended now: every dealt objective card doubled and the
        bonus treasures (`anasazi/5.1/bonus`) given for the majorities held now."""
        if self.phase == "over":
            return self.scores()
        values, doubled = self.treasure_values(), self.objectives_dealt()
        held = [dict(h) for h in self.hands]
        for c, p in self.bonus_winners().items():
            if p is not None:
                held[p][c] += 1
        return [float(sum(n * values[c] * (2 if doubled and c == self.objectives[p] else 1)
                          for c, n in h.items())) for p, h in enumerate(held)]

    def evaluate(self, player: int) -> float:
        """The points of `player` now as that player can count them: their own objective card
        doubled once dealt (what greedy and search bots maximise)."""
        return self._points([player] if self.objectives_dealt() else ())[player]

    def _points(self, doubled: Any) -> list[float]:
        """Points of the treasures held now, doubled for the objective cards of the players in
        `doubled`."""
        values = self.treasure_values()
        doubled, times = set(doubled), self.options["objective_multiplier"]
        return [float(sum(n * values[c] * (times if p in doubled and c == self.objectives[p] else 1)
                          for c, n in held.items()))
                for p, held in enumerate(self.holdings())]

    def winners(self) -> list[int]:
        """The players with most points; on a tie those of them with most treasures."""
        if self.phase != "over":
            return []
        scores = self.scores()
        counts = [sum(h.values()) for h in self.holdings()]
        best = max(scores)
        tied = [p for p in range(self.num_players) if scores[p] == best]
        most = max(counts[p] for p in tied)
        return [p for p in tied if counts[p] == most]

    # -- views ---------------------------------------------------------------------------------
    def view(self, player: int | None = None) -> TableView:
        """What `player` sees on the table now (None: what every player sees), as sound as
        `observe(player)`: the colours of the towers that player has seen (every one once the
        game is over); the other towers as ``("tower", None)``."""
        over = self.phase == "over"
        seen = self.seen[player] if player is not None else set()
        known = {s: self.towers[s] for s in self.contents if s in self.towers and (over or s in seen)}
        return self._table_view({s: item if item[0] == "treasure" or s in known else ("tower", None)
                                 for s, item in self.contents.items()}, known)

    def revealed_view(self) -> TableView:
        """The whole truth of the table, not a player's view: every tower's colour, hidden or not
        (for referees and revealed drawings)."""
        return self._table_view(dict(self.contents), {s: self.towers[s] for s in self.contents
                                                      if s in self.towers})

    def _table_view(self, contents: dict[str, tuple[str, str | None]], known: dict[str, str]
                    ) -> TableView:
        bonus = tuple(c for c in COLOURS if self.bonus.get(c) is None)
        return TableView(base_camps=[(c.owner, c.x, c.y) for c in self.camps],
                         expeditions={e: list(p) for e, p in self.expeditions.items() if p},
                         contents=contents, track=dict(self.track), bonus=bonus,
                         known_towers=known)

    def player_views(self, player: int) -> dict[str, Any]:
        """The engine's views of `player` and `view(player)` (see `State.player_views`)."""
        views = super().player_views(player)
        view = self.view(player)
        # Its fields as they are, the poses as lists (`dataclasses.asdict` deep-copies: slow).
        views["view"] = {**vars(view), "expeditions": {e: [[p.x, p.y, p.heading] for p in poses]
                                                       for e, poses in view.expeditions.items()}}
        return views

    # -- hidden information --------------------------------------------------------------------
    def observe(self, player: int) -> dict[str, Any]:
        """What `player` may know: everything on the table, but only the tower colours that
        player has seen (or that lie on the track) and only their own objective card once dealt
        (after the setup base camps), until the game is over and every card is shown."""
        over = self.phase == "over"
        seen = self.seen[player]
        data = self._public()
        data["contents"] = {s: _CONTENT_TEXT[item] if item[0] == "treasure" or over or s in seen
                            else item[0] for s, item in self.contents.items()}
        dealt = self.objectives_dealt()
        data["objectives"] = [o if over or (p == player and dealt) else None
                              for p, o in enumerate(self.objectives)]
        data["observer"] = player
        return data

    def determinize(self, player: int, rng: np.random.Generator) -> AnasaziState:
        """A full state consistent with `observe(player)`: the towers `player` has not seen are
        shuffled among themselves, the other players' objective cards drawn from the cards left
        (every player's, `player`'s too, before the cards are dealt). It has no seed: the true
        one deals the true towers and cards again."""
        self.board()  # made before the copy: the determinizations share it and what it keeps
        other = self.clone()
        other.seed, other._setup, other._deal_text = None, None, None
        if self.phase == "over":
            return other
        unseen = [s for s in self.towers_on_table() if s not in self.seen[player]]
        # Sorted: what is drawn depends on the colours left, not on where they truly lie.
        colours = sorted(self.towers[s] for s in unseen)
        other.towers = dict(self.towers)
        for s, i in zip(unseen, rng.permutation(len(unseen)).tolist()):
            other.towers[s] = colours[i]
            other.contents[s] = ("tower", colours[i])
        known = player if self.objectives_dealt() else None
        pool = list(OBJECTIVES)
        if known is not None:
            pool.remove(self.objectives[known])
        drawn = [pool[i] for i in rng.permutation(len(pool)).tolist()]
        other.objectives = tuple(self.objectives[p] if p == known else drawn.pop()
                                 for p in range(self.num_players))
        return other

    # -- copying and JSON ----------------------------------------------------------------------
    def clone(self) -> AnasaziState:
        """An independent copy (the table and the laid pieces, immutable, are shared)."""
        other = copy.copy(self)
        # Attribute by attribute, not in a loop over names: a search clones at every iteration.
        other._proof = None  # a proof is of this state's position only
        other.history = self.history[:]
        other.pending, other.fresh, other.camps = self.pending[:], self.fresh[:], self.camps[:]
        other.covered, other.setup_looked = self.covered[:], self.setup_looked[:]
        # towers and treasures: never changed in place
        other.contents, other.track, other.bonus = (self.contents.copy(), self.track.copy(),
                                                    self.bonus.copy())
        other.expeditions = {e: p[:] for e, p in self.expeditions.items()}
        other.hands = [h.copy() for h in self.hands]
        other.seen = [s.copy() for s in self.seen]
        other.visited = self.visited.copy()
        return other

    def _scalars(self) -> dict[str, Any]:
        """The public parts of the state but the laid pieces (every player sees them)."""
        return {
            "players": self.num_players, "first_player": self.first_player, "phase": self.phase,
            "current": self.current, "step": self.step, "actions_left": self.actions_left,
            "pending": list(self.pending), "fresh": list(self.fresh), "covered": list(self.covered),
            "track": dict(self.track), "hands": [dict(h) for h in self.hands],
            "looked": [sorted(s) for s in self.seen], "setup_looked": list(self.setup_looked),
            "visited": sorted(self.visited), "ended": self.ended, "bonus": dict(self.bonus),
        }

    def _public(self) -> dict[str, Any]:
        """The parts of the state every player sees; laid pieces in their text form
        (``[owner, "x,y"]`` for a base camp, ``"x,y heading h"`` for a marker)."""
        laid = self._laid()
        data = self._scalars()
        data.update(camps=[list(c) for c in laid.camps],
                    expeditions={e: list(ps) for e, ps in laid.expeditions.items()},
                    table=_table_text(self.table).digest)
        return data

    def _private(self) -> dict[str, Any]:
        """The state's scalar data with the sector contents as the setup's towers and treasures
        less the sectors emptied."""
        data = self._scalars()
        data["removed"] = [s for s in lg.table_geometry(self.table).sector_ids
                           if s not in self.contents]
        return data

    def _deal(self) -> dict[str, Any]:
        """What setup dealt (tower colours, treasures, objective cards): fixed in a game."""
        geo = lg.table_geometry(self.table)
        deal = {"seed": self.seed, "objectives": list(self.objectives),
                "towers": [self.towers[s] for s in geo.small_ids],
                "treasures": [self.initial_treasures[s] for s in geo.treasure_ids]}
        options = self.setup.options  # the rule options not the rulebook's (sizes: the table's)
        return {**deal, "options": dict(options)} if options else deal

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data, hidden parts included: what `observe` shows
        (every tower colour and objective card revealed), the scores, and the table's geometry."""
        data = self._public()
        data.update(contents={s: _CONTENT_TEXT[item] for s, item in self.contents.items()},
                    objectives=list(self.objectives), seed=self.seed, scores=self.scores(),
                    towers=dict(self.towers), table=self.table.to_json())
        return data

    def to_json(self) -> str:
        """The whole state and its history as JSON text (exact round trip).

        Layout: ``{"state": {...}, "deal": {...}, "camps": [...], "expeditions": {...},
        "history": [...], "table": {...}}``. What never changes is written once and reused:
        the table's text per table, the deal's per game (until a determinization deals anew),
        each laid piece's, and each history entry's (the engine's `history_json`). A state is
        written at every step of the test harness.
        """
        if self._deal_text is None:
            self._deal_text = _dumps(self._deal())
        return (f'{{"state": {_dumps(self._private())}, "deal": {self._deal_text}, '
                f'{self._laid().json}, "history": {self.history_json()}, '
                f'"table": {_table_text(self.table).text}}}')

    def _laid(self) -> _Laid:
        """The texts of the laid pieces, remade only when a piece was laid."""
        pieces = [self.camps, *self.expeditions.values()]
        laid = self._laid_text
        # List equality tests items by identity first, at C speed; equal pieces, equal texts.
        if laid is None or laid.pieces != pieces or laid.ids != tuple(self.expeditions):
            laid = self._laid_text = _Laid(self.camps, self.expeditions)
        return laid

    @classmethod
    def from_json(cls, game: AnasaziGame, text: str) -> AnasaziState:
        """The state `to_json` wrote, checked (`games.anasazi.validation`); `DataError` naming
        the field otherwise."""
        data, entries = read_state_json(text, validation.StateDoc, "anasazi state")
        table = _table_from_text(bytes(data["table"]).decode())
        laid = _laid_from_json(bytes(data["camps"]), bytes(data["expeditions"]))
        validation.check_deal(data["deal"], lg.table_geometry(table))
        self = cls._from_parts(game, data, laid, table)
        validation.check_state(self, table)
        self._history_from_json(None, entries)
        return self

    @classmethod
    def _from_parts(cls, game: AnasaziGame, parts: dict[str, Any], laid: _Laid, table: Table) -> AnasaziState:
        d, deal = parts["state"], parts["deal"]
        self = cls.__new__(cls)
        self.game, self.num_players, self.table = game, d["players"], table
        self.seed, self.first_player = deal["seed"], d["first_player"]
        geo = lg.table_geometry(table)
        self.towers = dict(zip(geo.small_ids, deal["towers"]))
        self.initial_treasures = dict(zip(geo.treasure_ids, deal["treasures"]))
        self.objectives = tuple(deal["objectives"])
        self.options = options_in_force(table.sizes, deal.get("options"))
        for name in ("phase", "current", "step", "actions_left", "ended"):
            setattr(self, name, d[name])
        for name in ("pending", "fresh", "setup_looked", "covered"):
            setattr(self, name, list(d[name]))
        self.camps = list(laid.pieces[0])
        self.expeditions = {e: list(p) for e, p in zip(laid.ids, laid.pieces[1:])}
        removed = set(d["removed"])
        self.contents = {s: ("tower", self.towers[s]) if s in self.towers
                         else ("treasure", self.initial_treasures[s])
                         for s in geo.sector_ids if s not in removed}
        self.track, self.hands = dict(d["track"]), [dict(h) for h in d["hands"]]
        self.seen = [set(s) for s in d["looked"]]
        self.visited = set(d["visited"])
        self.bonus = dict(d["bonus"])
        self._setup = None
        self._deal_text, self._laid_text = None, laid
        self._board, self._laid_changes = None, 0
        return self


class _Laid:
    """The laid pieces (copies of the lists, camps first) and their texts: the "camps" and
    "expeditions" members of the state's JSON, and the readable forms `observe` shows."""

    def __init__(self, camps: list[Camp], expeditions: dict[str, list[Pose]]):
        self.ids = tuple(expeditions)
        # One list, compared with the state's in one go (`AnasaziState._laid`).
        self.pieces: list[list[Any]] = [list(camps), *(list(p) for p in expeditions.values())]
        camps_json = ", ".join(map(_camp_text, camps))
        expeditions_json = ", ".join(f'{_dumps(e)}: [{", ".join(map(_pose_text, poses))}]'
                                     for e, poses in expeditions.items())
        self.json = f'"camps": [{camps_json}], "expeditions": {{{expeditions_json}}}'

    @functools.cached_property
    def camps(self) -> list[tuple[int, str]]:
        return [(c.owner, f"{c.x!r},{c.y!r}") for c in self.pieces[0]]

    @functools.cached_property
    def expeditions(self) -> dict[str, list[str]]:
        return {e: [f"{p.x!r},{p.y!r} heading {p.heading!r}" for p in poses]
                for e, poses in zip(self.ids, self.pieces[1:])}


# The laid pieces read back, by their text (a state is read at every step of the test harness);
# an entry enters only once it writes that very text.
_MEMO_SIZE = 100_000  # texts kept by each of the caches of what JSON reads back
_LAID: lg.Recent[bytes, _Laid] = lg.Recent(_MEMO_SIZE)


def _laid_from_json(camps: bytes, expeditions: bytes) -> _Laid:
    """The laid pieces read from the raw JSON of "camps" and "expeditions" (checked against
    the schema); kept by their text once it is the text they write."""
    key = b'"camps": ' + camps + b', "expeditions": ' + expeditions
    laid = _LAID.get(key)
    if laid is None:
        laid = _Laid([Camp(o, x, y) for o, x, y in decode(camps, validation.CampsDoc, at="camps")],
                     {e: [Pose(*p) for p in ps]
                      for e, ps in decode(expeditions, validation.ExpeditionsDoc, at="expeditions").items()})
        if laid.json.encode() == key:
            _LAID.put(key, laid)
    return laid


# What lies on a sector, as observations write it: "red tower", "blue treasure".
_CONTENT_TEXT = {(kind, colour): f"{colour} {kind}" for kind in ("tower", "treasure")
                 for colour in COLOURS}


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, allow_nan=False)


def _pose_text(pose: Pose) -> str:
    # What json.dumps writes for finite floats (their repr), without its overhead.
    return f"[{pose.x!r}, {pose.y!r}, {pose.heading!r}]"


def _camp_text(camp: Camp) -> str:
    return f"[{int(camp.owner)}, {camp.x!r}, {camp.y!r}]"


@functools.lru_cache(maxsize=4096)
def _look(sector: str) -> LookTower:
    """The look at `sector` (actions are immutable: one per sector serves every state)."""
    return LookTower(sector)


def _look_scope(decision: str) -> str | None:
    """The mesa a look decision is limited to (None: any tower)."""
    return decision.split(":", 1)[1] if ":" in decision else None


def describe_decision(decision: str) -> str:
    """An open decision ("take", "look", "look:M3") in words."""
    if decision == "take":
        return "treasure to take for covering your base camp"
    scope = _look_scope(decision)
    return "tower to look at" + (f" on mesa {scope}" if scope else "")


# -- the table's JSON text, made once per table --------------------------------------------------
@dataclass(frozen=True)
class _TableText:
    table: Table
    text: str
    digest: str  # a short fingerprint (public: everyone sees the table)


_BY_TABLE: lg.Recent[int, tuple[Table, _TableText]] = lg.Recent(64)
_BY_TEXT: lg.Recent[str, _TableText] = lg.Recent(64)


def _table_text(table: Table) -> _TableText:
    """The JSON text of `table` (made once, kept for the tables used last)."""
    return _BY_TABLE.of_table(table, lambda: _remember(
        table, json.dumps(table.to_json(), sort_keys=True, allow_nan=False)))


def _table_from_text(text: str) -> Table:
    """The table written as `text` (parsed once, then shared: tables are immutable)."""
    hit = _BY_TEXT.get(text)
    if hit is None:
        table = _read_table(decode(text, Any, "table"))
        hit = _BY_TABLE.of_table(table, lambda: _remember(table, text))
    return hit.table


def _read_table(data: Any, path: str = "table") -> Table:
    """A table from its JSON data, checked against the schema (coordinates and counts bounded,
    pieces well formed; not the setup rules: a laboratory table may break them on purpose);
    `DataError` at `path` otherwise."""
    validation.check_table_data(data, path)
    try:
        return Table.from_json(data)
    except ValueError as e:
        raise DataError(path, cut(str(e))) from None


def _remember(table: Table, text: str) -> _TableText:
    return _BY_TEXT.put(text, _TableText(table, text, hashlib.sha1(text.encode()).hexdigest()[:16]))

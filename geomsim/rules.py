"""The rules interface every geomsim game meets.

A `Game` makes `State`s. A state says who must decide (`to_move`), what they may do
(`legal_actions`), whether an action is legal and why not (`check`), and applies it (`apply`).
Several players in `to_move()` decide simultaneously: each applies a sealed choice and the state
resolves when the last one has decided; until then no observation reveals a sealed choice.

Games subclass `State` and implement the underscored hooks (`_violations`, `_apply`, ...); the
base class keeps the contract: turn checks, `IllegalAction` with the state unchanged, history,
JSON, cloning.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import html
import importlib
import importlib.util
import inspect
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import msgspec
import numpy as np
import orjson

from geomsim import options as opts
from geomsim.options import Option, Variant
from geomsim.reading import MAX_HISTORY, DataError, convert_error, cut, decode, dumps, index, join, short

ENGINE_TURN_RULE = "engine/turn"
ENGINE_FORM_RULE = "engine/form"

Player = int
JSON = Any


@dataclass(frozen=True)
class Rule:
    """A written rule: its id (``game/section/name``), rulebook section and text."""

    id: str
    section: str
    text: str
    enforced_by: str = ""  # the function that enforces it, "module:function", for the docs


@dataclass(frozen=True)
class Violation:
    """Why an action is illegal: the rule id, a plain-words message, and numbers that help."""

    rule: str
    message: str
    details: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


@dataclass(frozen=True)
class Verdict:
    """The outcome of `State.check`: legal when it holds no violations."""

    violations: tuple[Violation, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the action is legal."""
        return not self.violations

    def __bool__(self) -> bool:
        return self.ok

    @property
    def rules(self) -> tuple[str, ...]:
        """The ids of the rules broken, in order."""
        return tuple(v.rule for v in self.violations)

    def __str__(self) -> str:
        return "legal" if self.ok else "; ".join(map(str, self.violations))

    def _repr_html_(self) -> str:
        """The verdict as a small table for notebooks: each rule broken and why."""
        if self.ok:
            return "<p><b>legal</b></p>"
        rows = "".join(f"<tr><td><code>{html.escape(v.rule)}</code></td><td>{html.escape(v.message)}"
                       f"</td></tr>" for v in self.violations)
        return f"<table><tr><th>rule broken</th><th>why</th></tr>{rows}</table>"


# The verdict of every legal action: a verdict never changes, so one serves them all.
LEGAL = Verdict()


class IllegalAction(ValueError):
    """Raised by `State.apply` for an illegal action; the state is left unchanged."""

    def __init__(self, verdict: Verdict):
        self.verdict = verdict
        super().__init__(str(verdict))

    @property
    def rule(self) -> str:
        """The id of the first rule broken."""
        return self.verdict.violations[0].rule


@dataclass(frozen=True)
class Event:
    """Something that happened when an action was applied (a treasure taken, a round ended)."""

    kind: str
    player: Player | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        """This event as JSON-able data."""
        return {"kind": self.kind, "player": self.player, "data": dict(self.data)}

    @classmethod
    def from_json(cls, obj: JSON, path: str = "", players: int = 2**31) -> Event:
        """The event that `to_json` wrote (in a game of `players` players), checked:
        `DataError` naming the field otherwise."""
        if not isinstance(obj, dict) or set(obj) - {"kind", "player", "data"}:
            raise DataError(path, f"expected an event {{kind, player, data}}, got {short(obj)}")
        kind, player, data = obj.get("kind"), obj.get("player"), obj.get("data", {})
        if not isinstance(kind, str):
            raise DataError(join(path, "kind"), f"expected a string, got {short(kind)}")
        if player is not None:
            index(player, players, join(path, "player"), "player")
        if not isinstance(data, dict):
            raise DataError(join(path, "data"), f"expected a mapping, got {short(data)}")
        try:  # what is read must write back: no number JSON can hold but the writer cannot
            dumps(data)
        except ValueError as e:
            raise DataError(join(path, "data"), str(e)) from None
        return cls(kind, player, data)


class Action:
    """Base of a game's actions: frozen dataclasses with a one-line text form.

    Subclasses set `kind` and `text`, the text form as a `str.format` template over the fields
    (``"rock {column} {chamber}"``), or override `__str__`; where a field is not plain JSON,
    they override `to_json`/`from_json`.
    """

    kind: ClassVar[str] = "action"
    text: ClassVar[str] = ""

    def __str__(self) -> str:
        """The one-line text form: `text` filled with the fields."""
        if not self.text:
            return repr(self)
        return self.text.format_map({f.name: getattr(self, f.name) for f in _fields(type(self))})

    def to_json(self) -> JSON:
        """This action as JSON-able data, tagged with its kind."""
        # Shallow on purpose: `asdict` deep-copies, and actions are written at every step.
        return {"kind": self.kind, **{f.name: getattr(self, f.name) for f in _fields(type(self))}}

    @classmethod
    def from_json(cls, obj: JSON) -> Action:
        """The action that `to_json` wrote; `DataError` naming the field for a field missing,
        unknown or refused by the action's own checks."""
        fields = {f.name for f in _fields(cls)}
        return construct(cls, {k: v for k, v in obj.items() if k != "kind"}, fields)


A = TypeVar("A", bound=Action)
S = TypeVar("S", bound="State")


def construct(cls: type[A], values: Mapping[str, Any], fields: set[str]) -> A:
    """``cls(**values)`` for an action read back; `DataError` naming the field for a field
    missing or unknown, a `ValueError` of the action's own checks as a `DataError` too."""
    unknown = sorted(set(values) - fields, key=str)
    if unknown:
        raise DataError(str(unknown[0]), f"unknown field of a {cls.kind} action "
                        f"(fields: {', '.join(sorted(fields)) or 'none'})")
    missing = sorted(fields - set(values))
    if missing:
        raise DataError(missing[0], f"missing field of a {cls.kind} action")
    try:  # msgspec checks each field against its type annotation, then the action its own
        return msgspec.convert(dict(values), cls)
    except DataError:
        raise
    except msgspec.ValidationError as e:
        raise convert_error(e, f"{cls.kind} action") from None
    except (ValueError, TypeError, OverflowError) as e:
        raise DataError("", f"{cls.kind} action: {cut(str(e))}") from None


# Typed as a plain callable: mypy takes a class for unhashable where functools.cache wants
# Hashable arguments (python/mypy#11470).
_fields: Callable[[type], tuple[dataclasses.Field[Any], ...]] = functools.cache(dataclasses.fields)


class ActionSpace(ABC):
    """The legal actions of one player now: finite (iterable) or continuous (sampled)."""

    finite: bool

    @abstractmethod
    def sample(self, rng: np.random.Generator, k: int = 1) -> list[Action]:
        """Up to `k` legal actions drawn with `rng` (fewer, or none, when fewer exist or are found)."""

    def is_empty(self) -> bool:
        """True when this space holds no action."""
        return not self.sample(np.random.default_rng(0), 1)


class FiniteActionSpace(ActionSpace):
    """A finite list of legal actions, in a fixed order."""

    finite = True

    def __init__(self, actions: Iterable[Action]):
        self._actions = list(actions)

    def __iter__(self) -> Iterator[Action]:
        return iter(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def __contains__(self, action: object) -> bool:
        return action in self._actions

    def __getitem__(self, i: int) -> Action:
        return self._actions[i]

    def is_empty(self) -> bool:
        return not self._actions

    def sample(self, rng: np.random.Generator, k: int = 1) -> list[Action]:
        if not self._actions:
            return []
        if k == 1:
            # What `choice(n, size=1, replace=False)` draws (one bounded integer), without its
            # overhead: the same action from the same random numbers.
            return [self._actions[int(rng.integers(len(self._actions)))]]
        picks = rng.choice(len(self._actions), size=min(k, len(self._actions)), replace=False)
        return [self._actions[i] for i in picks]

    def __repr__(self) -> str:
        return f"FiniteActionSpace({len(self._actions)} actions)"


class ContinuousActionSpace(ActionSpace):
    """A continuous set of legal actions, known through a sampler of legal actions.

    `sampler(rng, k)` returns up to `k` actions that are legal; `discrete` may list the finite
    actions that stand beside the continuous ones (e.g. "pass").
    """

    finite = False

    def __init__(
        self,
        sampler: Callable[[np.random.Generator, int], list[Action]],
        discrete: Sequence[Action] = (),
    ):
        self._sampler = sampler
        self.discrete = list(discrete)

    def sample(self, rng: np.random.Generator, k: int = 1) -> list[Action]:
        found = list(self._sampler(rng, k))
        if self.discrete and len(found) < k:
            picks = rng.permutation(len(self.discrete))[: k - len(found)]
            found += [self.discrete[i] for i in picks]
        return found[:k]

    def __repr__(self) -> str:
        return f"ContinuousActionSpace(+{len(self.discrete)} discrete)"


EMPTY_SPACE = FiniteActionSpace(())


def read_state_json(text: str | bytes, schema: type[msgspec.Struct] | None = None,
                    what: str = "state") -> tuple[dict[str, Any], bytes]:
    """A state's JSON text read by a real parser, whatever its layout: the data but the history,
    checked against `schema` (a msgspec Struct with a ``history: msgspec.Raw`` field) when
    given, and the raw JSON of the history, for `State._history_from_json`. `DataError`
    naming the field path or the limit otherwise."""
    if schema is not None:
        doc = decode(text, schema, what)
        data = {f: getattr(doc, f) for f in doc.__struct_fields__}
    else:
        data = decode(text, dict[str, msgspec.Raw], what)
        data = {k: v if k == "history" else decode(v, Any, what, at=k) for k, v in data.items()}
    history = data.pop("history", None)
    return data, b"[]" if history is None else bytes(history)


def playout_seed(seed: object, game: str) -> int:
    """`seed` as compiled kernels' generators (numba's) take it, 0 to 2**32 - 1; `ValueError`
    otherwise, where numba would keep only the low 32 bits (and other seeds give the same games)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"{game} playouts: seed must be a whole number 0 to 2**32 - 1, not {seed!r}")
    return int(seed)


@dataclass(frozen=True)
class Playouts:
    """Games that a game's compiled random player played to the end (`Game.random_playouts`).

    Decision `k` of game `i` is row `offsets[i] + k` of `log`: the player, the action's code,
    which `decode(code)` turns into the `Action` the rules interface would apply, and the number
    of legal actions the player chose among (the size of `legal_actions(player)`; 0 where that
    space is continuous).
    """

    scores: np.ndarray   # (games, players) final scores, as `State.scores()`
    winners: np.ndarray  # (games, players) bool, as `State.winners()`
    log: np.ndarray      # (decisions, 3) int: player, action code, legal actions (0: continuous)
    offsets: np.ndarray  # (games + 1,) int: where each game's decisions start in `log`
    decode: Callable[[int], Action]

    @property
    def decisions(self) -> np.ndarray:
        """The number of decisions of each game."""
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def actions(self, game: int) -> list[tuple[Player, Action]]:
        """The decisions of game `game`, as (player, action) pairs to replay through `apply`."""
        rows = self.log[self.offsets[game]:self.offsets[game + 1]]
        return [(int(player), self.decode(int(code))) for player, code, _ in rows]


class Encoding(ABC):
    """A game's fixed integer action ids and observation tensor, for one player count.

    Ids are stable across versions and player counts (an action keeps its id; more players add
    ids at the end); each game documents its layout in docs/ecosystem.md. For a continuous game
    the ids name a documented discretisation of its actions, whose legality `legal_ids` judges
    with the rules (`State.check`).
    """

    players: int
    num_distinct_actions: int
    observation_shape: tuple[int, ...]
    max_game_length: int  # a bound on the decisions of any game (each simultaneous one counts)
    exhaustive: bool = True  # every legal action has an id (False for a discretisation)

    @abstractmethod
    def action_id(self, action: Action) -> int:
        """The id of `action`; `ValueError` when it has none (outside the discretisation)."""

    @abstractmethod
    def action_from_id(self, i: int) -> Action:
        """The action with id `i`; `ValueError` for an id out of range."""

    @abstractmethod
    def observation_tensor(self, state: State, player: Player) -> np.ndarray:
        """What `player` may know of `state` as a float32 array of `observation_shape`: a
        function of `state.observe(player)` alone."""

    def legal_ids(self, state: State, player: Player) -> list[int]:
        """The ids of the legal actions of `player` in `state`, ascending (finite spaces)."""
        space = state.legal_actions(player)
        if not isinstance(space, FiniteActionSpace):
            raise NotImplementedError(f"{state.game.name}: legal ids of a continuous space need "
                                      "a discretisation (override Encoding.legal_ids)")
        return sorted(self.action_id(a) for a in space)

    def check_id(self, i: int) -> int:
        """`i` as an int when it is an id of this encoding, else `ValueError`."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not (
                0 <= i < self.num_distinct_actions):
            raise ValueError(f"action id must be 0 to {self.num_distinct_actions - 1}, not {i!r}")
        return int(i)


HistoryEntry = tuple[Player, Action, list[Event]]


class _EntryDoc(msgspec.Struct, forbid_unknown_fields=True):
    """A history entry as `entry_json` writes it."""

    player: int
    action: dict[str, Any]
    events: list[dict[str, Any]]


def entry_json(entry: HistoryEntry) -> str:
    """The canonical JSON text of a history entry."""
    player, action, events = entry
    return dumps({"player": player, "action": action.to_json(), "events": [e.to_json() for e in events]})


# Entries read back, by game, number of players and text: a state is read at every step of the test harness and
# its history only grows. An entry enters once it writes that very text again.
_ENTRIES: dict[tuple[Game, int, bytes], tuple[HistoryEntry, str]] = {}
_ENTRIES_KEPT = 200_000


def read_action(game: Game, obj: JSON, path: str = "") -> Action:
    """`game.action_from_json(obj)`, any refusal a `DataError` within `path`."""
    try:
        return game.action_from_json(obj)
    except DataError as e:
        raise e.within(path) from None
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as e:
        raise DataError(path, f"not a {game.name} action: {cut(str(e))}") from None


def read_entry(game: Game, players: int, raw: bytes, i: int) -> tuple[HistoryEntry, str]:
    """History entry `i` from its raw JSON, and its canonical text; `DataError` naming
    ``history[i]`` when it is not an entry of `game` for `players` players."""
    key = (game, players, raw)
    hit = _ENTRIES.get(key)
    if hit is not None:
        return hit
    where = f"history[{i}]"
    try:
        doc = decode(raw, _EntryDoc, "history entry")
        player = index(doc.player, players, "player", "player")
        action = read_action(game, doc.action, "action")
        events = [Event.from_json(e, f"events[{j}]", players) for j, e in enumerate(doc.events)]
    except DataError as e:
        raise e.within(where) from None
    entry = (player, action, events)
    text = entry_json(entry)
    if text.encode() == raw:
        if len(_ENTRIES) >= _ENTRIES_KEPT:
            _ENTRIES.clear()
        _ENTRIES[key] = (entry, text)
    return entry, text


# Histories read last, per game and number of players: a state read back is mostly a state
# read before with some entries more (the harness reads one at every step), so only the entries
# after a history seen before are parsed.
# Each: the raw history without its closing bracket, its entries and their texts.
_HISTORIES: dict[tuple[Game, int], list[tuple[bytes, list[HistoryEntry], list[str]]]] = {}
_HISTORIES_KEPT = 8


def read_history(game: Game, players: int, raw: bytes) -> tuple[list[HistoryEntry], list[str]]:
    """The entries of a history's raw JSON (an array) and their canonical texts; `DataError`
    naming ``history[i]`` or the limit otherwise."""
    recent = _HISTORIES.setdefault((game, players), [])
    entries: list[HistoryEntry] = []
    texts: list[str] = []
    tail = raw
    for body, seen_entries, seen_texts in recent:
        rest = _after_prefix(raw, body)
        if rest is not None and len(seen_entries) > len(entries):
            entries, texts, tail = list(seen_entries), list(seen_texts), rest
    items = decode(tail, list[msgspec.Raw], "history", at="history")
    if len(entries) + len(items) > MAX_HISTORY:
        raise DataError("history", f"{len(entries) + len(items):,} entries is over the limit of {MAX_HISTORY:,}")
    for i, item in enumerate(items, len(entries)):
        entry, text = read_entry(game, players, bytes(item), i)
        entries.append(entry)
        texts.append(text)
    if items or not recent:
        recent.insert(0, (raw.rstrip()[:-1].rstrip(), entries, texts))
        del recent[_HISTORIES_KEPT:]
    return list(entries), texts


def _after_prefix(raw: bytes, body: bytes) -> bytes | None:
    """When the array `raw` starts with the entries of `body` (an array read before, without
    its closing bracket): the array of the entries after them (``b"[...]"``); else None."""
    if len(body) > len(raw) or not raw.startswith(body):
        return None
    rest = raw[len(body):].lstrip()
    if body.rstrip() == b"[":  # an empty history is a prefix of every one
        return b"[" + rest
    if rest.startswith(b","):
        return b"[" + rest[1:]
    return b"[]" if rest.startswith(b"]") and not rest[1:].strip() else None


def win_shares(players: int, winners: Sequence[Player]) -> list[float]:
    """1/k to each of k winners, 0 to the others (all 0 before the end, when nobody has won)."""
    return [1 / len(winners) if p in winners else 0.0 for p in range(players)]


class _Origin:
    """The earliest moment `State.undo` can return to, as a way to remake it. Shared, never
    changed, by the copies of a state (deep copies too)."""

    def __init__(self, make: Callable[[], State]):
        self._make = make

    def start(self) -> State:
        """A fresh state at that moment (its history is as long as the origin's)."""
        return self._make()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Origin:
        return self


def _again(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[[], State]:
    """The call `args[0].method(*args[1:], **kwargs)` to make again (the game's own method),
    with the arguments as they are now: the caller may change its setup dict afterwards."""
    kept = [_kept(a) for a in args[1:]]
    return functools.partial(getattr(type(args[0]), method), args[0], *kept,
                             **{k: _kept(v) for k, v in kwargs.items()})


def _kept(value: Any) -> Any:
    """A copy of JSON data (dicts and lists, which their owner may change), else `value`."""
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def _with_origin(make: Callable[..., State], recipe: Callable[..., Callable[[], State] | None]
                 ) -> Callable[..., State]:
    """`make` (a state factory) whose states remember how to be made again (for undo)."""

    @functools.wraps(make)
    def made(*args: Any, **kwargs: Any) -> State:
        state = make(*args, **kwargs)
        again = recipe(*args, **kwargs)
        if again is None:
            kept = state.clone()
            again = kept.clone
        state.__dict__["_origin"] = _Origin(again)
        return state

    return made


class Parts(Mapping[str, Any]):
    """A game's parts beside its rules, by role, each named ``"module:attribute"`` and imported
    the first time it is asked for (numba, matplotlib and pymunk load only then).

    The game's package assembles them (``games/<name>/__init__.py``), so that its rules module
    imports none of its faces. `ROLES` lists the roles and what each attribute is.
    """

    ROLES: ClassVar[dict[str, str]] = {
        "random_playouts": "(states, seed) -> Playouts: the compiled random player",
        "encoding": "(players) -> Encoding: action ids and observation tensor of the game",
        "state_encoding": "(state) -> Encoding: the same for one state's own components",
        "draw": "(state, ax=None, **options) -> Axes: the drawing of a moment",
        "text": "(state) -> str: the text board",
        "choice_figures": "(state, player) -> {name: number}: figures of the choice faced now",
        "bots": "{spec name: (factory, help line)}: the game's own players",
        "expectations": "{kind: fn(state, spec)}: scenario expectation kinds",
        "outputs": "{kind: fn}: scenario output kinds",
        "web": "GameWeb: the hooks of `geomsim serve`",
    }

    def __init__(self, **named: str):
        unknown = sorted(set(named) - set(self.ROLES))
        if unknown:
            raise ValueError(f"unknown part roles {', '.join(unknown)} (known: {', '.join(self.ROLES)})")
        self._names = dict(named)
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, role: str) -> Any:
        found = self._loaded.get(role)
        if found is None:
            module, _, attribute = self._names[role].partition(":")
            found = self._loaded[role] = getattr(importlib.import_module(module), attribute)
        return found

    def __contains__(self, role: object) -> bool:
        return role in self._names  # without importing the part

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Parts({', '.join(f'{k}={v!r}' for k, v in self._names.items())})"


class Game(ABC):
    """A game: its facts, its rules, and a factory of states; its other faces (drawing, ids,
    compiled player, bots, web page) are `parts` its package gives it."""

    name: str
    min_players: int
    max_players: int
    rules: Mapping[str, Rule]
    action_types: Sequence[type[Action]] = ()
    hidden_information: bool = False  # True when some player may not know part of a state
    # Bumped whenever a rule's behaviour changes, so batches of different rules never mix.
    rules_version: int = 1
    # Modules `random_playouts` imports that are optional (``pip install 'geomsim[fast]'``).
    playout_requires: tuple[str, ...] = ()
    parts: Parts = Parts()
    # What a designer may change (`geomsim.options`): by name, declared by the game as data;
    # the variants always hold ``official`` (every default).
    options: Mapping[str, Option]
    variants: Mapping[str, Variant]
    options, variants = opts.declare(())

    def __init__(self, parts: Parts | None = None):
        if parts is not None:
            self.parts = parts

    @abstractmethod
    def new_state(self, players: int, seed: int | None = None, setup: JSON | None = None,
                  options: Mapping[str, Any] | None = None) -> State:
        """A state at the start of play: a random setup from `seed`, or an explicit `setup`;
        `options` (see `resolve_options`) change rules from the rulebook's, over those the
        setup names."""

    def make_setup(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> JSON:
        """A random setup from `seed` (under `options`) as JSON-able data that
        `new_state(setup=...)` accepts."""
        raise NotImplementedError(f"{self.name} has no setup data")

    def resolve_options(self, options: Mapping[str, Any] | None = None,
                        variant: str | None = None) -> dict[str, Any]:
        """Every option's value in force: the defaults, then `variant`'s, then `options`;
        `DataError` (one line naming the option and its allowed values) otherwise."""
        return opts.resolve(self.options, options, self.variants, variant)

    def options_text(self, values: Mapping[str, Any]) -> str:
        """One caption line of the options in `values` that differ from the rulebook, or ""."""
        return opts.caption(self.options, values)

    @abstractmethod
    def parse_action(self, text: str) -> Action:
        """The action written in text form; `ValueError` naming what is wrong otherwise."""

    @abstractmethod
    def state_from_json(self, text: str) -> State:
        """The state that `State.to_json` wrote."""

    def action_from_json(self, obj: JSON) -> Action:
        """The action that `Action.to_json` wrote; `DataError` naming the field otherwise."""
        if not isinstance(obj, dict):
            raise DataError("", f"expected a {self.name} action (a mapping with a kind), got {short(obj)}")
        for kind in self.action_types:
            if kind.kind == obj.get("kind"):  # a kind that is not text equals none of them
                return kind.from_json(obj)
        known = ", ".join(k.kind for k in self.action_types)
        raise DataError("kind", f"unknown {self.name} action kind {short(obj.get('kind'))} (known: {known})")

    def random_playouts(self, states: Sequence[State], seed: int = 0) -> Playouts:
        """Play copies of `states` to the end, each decision uniform among the legal actions, in
        a compiled kernel: the fast path of random simulation. `states` are left unchanged, and
        `geomsim.testing.check_playouts` replays the games through the rules interface."""
        self.require_playouts()
        return self.parts["random_playouts"](states, seed)  # type: ignore[no-any-return]

    def bots(self) -> Mapping[str, tuple[Callable[[str | None], Any], str]]:
        """Players of this game alone, by spec name: (factory of the spec's argument, help
        line); `geomsim.bots.make_bot` finds them beside the engine's bots. None by default."""
        return dict(self.parts["bots"]) if "bots" in self.parts else {}

    def expectations(self) -> Mapping[str, Any]:
        """Scenario expectation kinds this game adds: {kind: fn(state, spec) -> (ok, message)}."""
        return dict(self.parts["expectations"]) if "expectations" in self.parts else {}

    def outputs(self) -> Mapping[str, Any]:
        """Scenario output kinds this game adds (see `geomsim.scenario`)."""
        return dict(self.parts["outputs"]) if "outputs" in self.parts else {}

    def web(self) -> Any:
        """The hooks of `geomsim serve` for this game (a `geomsim.web.hooks.GameWeb`), or None."""
        return self.parts["web"] if "web" in self.parts else None

    def has_random_playouts(self) -> bool:
        """Whether this game implements `random_playouts` and what it needs is installed."""
        try:
            self.require_playouts()
        except NotImplementedError:
            return False
        return True

    def own_states(self, states: Sequence[State], cls: type[S]) -> list[S]:
        """`states` as this game's state class `cls`; `ValueError` if one is another's (a
        compiled player reads its own states' fields)."""
        foreign = [type(s).__name__ for s in states if not isinstance(s, cls)]
        if foreign:
            raise ValueError(f"{self.name} playouts: a batch holds {cls.__name__}s only, "
                             f"not {foreign[0]}")
        return [s for s in states if isinstance(s, cls)]

    def require_playouts(self) -> None:
        """Raise `NotImplementedError`, saying why, unless `random_playouts` can run here."""
        if type(self).random_playouts is Game.random_playouts and "random_playouts" not in self.parts:
            raise NotImplementedError(f"{self.name} has no compiled random player")
        missing = [m for m in self.playout_requires if importlib.util.find_spec(m) is None]
        if missing:
            raise NotImplementedError(f"the compiled random player of {self.name} needs "
                                      f"{', '.join(missing)}: pip install 'geomsim[fast]'")

    def check_players(self, players: int) -> None:
        """Raise `ValueError` unless this game can be played by `players` players."""
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players, "
                f"not {players!r}"
            )

    # -- ids, tensors and bounds for RL libraries (see `Encoding`, docs/ecosystem.md) -----------
    def encoding(self, players: int) -> Encoding:
        """The action ids and observation tensor of games of `players` players."""
        if "encoding" not in self.parts:
            raise NotImplementedError(f"{self.name} has no action ids or observation tensor")
        self.check_players(players)
        return self.parts["encoding"](players)  # type: ignore[no-any-return]

    def num_distinct_actions(self, players: int | None = None) -> int:
        """How many action ids games of `players` (default: the most) players use."""
        return self.encoding(self._players(players)).num_distinct_actions

    def action_id(self, action: Action, players: int | None = None) -> int:
        """The fixed id of `action` (the same for every player count that has it)."""
        return self.encoding(self._players(players)).action_id(action)

    def action_from_id(self, i: int, players: int | None = None) -> Action:
        """The action with id `i`."""
        return self.encoding(self._players(players)).action_from_id(i)

    def observation_shape(self, players: int | None = None) -> tuple[int, ...]:
        """The shape of `State.observation_tensor` in games of `players` players."""
        return self.encoding(self._players(players)).observation_shape

    def max_game_length(self, players: int | None = None) -> int:
        """A bound on the number of decisions of a game of `players` players."""
        return self.encoding(self._players(players)).max_game_length

    def _players(self, players: int | None) -> int:
        if players is None:
            return self.max_players
        self.check_players(players)
        return players

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """States a game makes remember how to be made again, so that `State.undo` can replay
        from there: from the seed (and setup), from the JSON text read, else from a copy."""
        super().__init_subclass__(**kwargs)
        if "new_state" in cls.__dict__:
            signature = inspect.signature(cls.__dict__["new_state"])

            def seeded(*args: Any, **kw: Any) -> Callable[[], State] | None:
                bound = signature.bind(*args, **kw)
                bound.apply_defaults()
                if bound.arguments.get("seed") is None:  # unseeded parts may be drawn afresh
                    return None
                return _again("new_state", args, kw)
            cls.new_state = _with_origin(cls.__dict__["new_state"], seeded)  # type: ignore[method-assign]
        if "state_from_json" in cls.__dict__:
            cls.state_from_json = _with_origin(  # type: ignore[method-assign]
                cls.__dict__["state_from_json"], lambda *args, **kw: _again("state_from_json", args, kw))

    def __repr__(self) -> str:
        return f"<Game {self.name} ({self.min_players}-{self.max_players} players)>"


def new_state_under(game: Game, players: int, seed: int | None = None, setup: JSON | None = None,
                    options: Mapping[str, Any] | None = None) -> State:
    """`game.new_state(players, seed, setup, options)`, the options passed only when some are
    given: a game made before options (a plugin's) plays its rules as they are."""
    if options:
        return game.new_state(players, seed=seed, setup=setup, options=options)
    return game.new_state(players, seed=seed, setup=setup)


def _state_from_json(game: Game, text: str) -> State:
    """`game.state_from_json(text)`: how a pickled state is read back (see `State.__reduce__`)."""
    return game.state_from_json(text)


# The methods of `State` that take a player as their first argument and show that player's view.
_PLAYER_METHODS = ("observe", "determinize", "player_views", "evaluate")
F = TypeVar("F", bound=Callable[..., Any])


def _player_checked(method: F) -> F:
    """`method(self, player, ...)` called with `player` as `State._player` makes it."""

    @functools.wraps(method)
    def checked(self: State, player: Any, *args: Any, **kwargs: Any) -> Any:
        return method(self, self._player(player), *args, **kwargs)

    return checked  # type: ignore[return-value]


class State(ABC):
    """A moment of a game. Subclasses implement the underscored hooks."""

    game: Game
    num_players: int

    # -- hooks a game implements ------------------------------------------------------------
    @abstractmethod
    def to_move(self) -> tuple[Player, ...]:
        """The players who must decide now: () when the game is over; several = simultaneous."""

    @abstractmethod
    def _legal_actions(self, player: Player) -> ActionSpace:
        """The legal actions of `player`, who is to move."""

    @abstractmethod
    def _violations(self, action: Action, player: Player) -> list[Violation]:
        """Every rule that `action` by `player` (who is to move) breaks; empty when legal."""

    @abstractmethod
    def _apply(self, action: Action, player: Player) -> list[Event]:
        """Carry out the legal `action` by `player`; return what happened."""

    @abstractmethod
    def scores(self) -> list[float]:
        """One score per player (final when the game is over)."""

    @abstractmethod
    def winners(self) -> list[Player]:
        """The winning players after the rulebook's tie-break ([] before the end)."""

    @abstractmethod
    def to_dict(self) -> JSON:
        """The whole state as JSON-able data (hidden information included)."""

    @abstractmethod
    def observe(self, player: Player) -> JSON:
        """What `player` may know now, as JSON-able data: hidden information removed."""

    @abstractmethod
    def determinize(self, player: Player, rng: np.random.Generator) -> State:
        """A full state consistent with `observe(player)`, hidden parts drawn with `rng`."""

    # -- options --------------------------------------------------------------------------------
    @property
    def options(self) -> dict[str, Any]:
        """The options in force, every one by name (`Game.options`): a plain dict, part of the
        setup and state JSON (only the values that are not the defaults are written)."""
        found: dict[str, Any] | None = self.__dict__.get("_options")
        if found is None:
            found = self.__dict__["_options"] = self.game.resolve_options()
        return found

    @options.setter
    def options(self, values: Mapping[str, Any]) -> None:
        self.__dict__["_options"] = dict(values)

    def option_note(self, *names: str) -> str:
        """`` (option towers_to_end=3)`` for those of `names` (the options a rule depends on)
        that are not the rulebook's, to end a violation's message; "" otherwise."""
        return opts.note(self.game.options, self.options, *names)

    def changed_options(self) -> dict[str, Any]:
        """The options in force that differ from the rulebook's (what the JSON writes)."""
        return opts.changed(self.game.options, self.options)

    # -- the contract, shared by every game -------------------------------------------------
    def is_over(self) -> bool:
        """True when nobody is to move any more."""
        return not self.to_move()

    def legal_actions(self, player: Player | None = None) -> ActionSpace:
        """The legal actions of `player` (empty for a player who is not to move)."""
        player = self._resolve_player(player)
        if player not in self.to_move():
            return EMPTY_SPACE
        return self._legal_actions(player)

    def check(self, action: Action, player: Player | None = None) -> Verdict:
        """Whether `action` by `player` is legal now, and if not, every rule it breaks."""
        # `to_move` asked once (a search checks thousands of actions a second).
        movers = self.to_move()
        if player is None and len(movers) == 1:
            player = movers[0]
        else:
            player = self._resolve_player(player, movers)
        if player not in movers:
            who = "nobody" if self.is_over() else ", ".join(map(str, movers))
            return Verdict(
                (Violation(ENGINE_TURN_RULE, f"player {player} is not to move (to move: {who})",
                           {"player": player, "to_move": list(movers)}),)
            )
        types = self.game.action_types
        if not isinstance(action, (types if type(types) is tuple else tuple(types)) or Action):
            return Verdict((Violation(ENGINE_FORM_RULE, f"not a {self.game.name} action: {action!r}"),))
        found = self._violations(action, player)
        return Verdict(tuple(self._noted(found))) if found else LEGAL

    def _noted(self, violations: Sequence[Violation]) -> list[Violation]:
        """`violations`, each of a rule that an option in force changed (not the rulebook's)
        ending with ``(option NAME=VALUE)``, unless its message names an option already."""
        changed = self.changed_options()
        if not changed:
            return list(violations)
        found = []
        for v in violations:
            names = [n for n in changed if v.rule in self.game.options[n].rules]
            if names and "(option " not in v.message:
                v = Violation(v.rule, v.message + self.option_note(*names), v.details)
            found.append(v)
        return found

    def apply(self, action: Action, player: Player | None = None) -> list[Event]:
        """Carry out `action`; raise `IllegalAction` (state unchanged) if it is illegal."""
        player = self._resolve_player(player)
        if not self._proven(action, player):
            verdict = self.check(action, player)
            if not verdict.ok:
                raise IllegalAction(verdict)
        events = self._apply(action, player)
        self.history.append((player, action, events))
        return events

    def _proven(self, action: Action, player: Player) -> bool:
        """True only when this state's own sampler has just proven this very `action` object
        legal for `player` in this very position, so that `apply` need not check it a second
        time. The default proves nothing; a game whose sampler proves what it returns keeps the
        proof private and tied to the position (an action from outside is always checked)."""
        return False

    def _resolve_player(self, player: Player | None,
                        movers: tuple[Player, ...] | None = None) -> Player:
        """`player` checked (`_player`), or when None the one player to move (`movers`, if
        the caller has them, else `to_move()`); `ValueError` otherwise."""
        if player is None:
            if movers is None:
                movers = self.to_move()
            if len(movers) != 1:
                raise ValueError(
                    "name the player: " + ("the game is over" if not movers else
                                           f"players {', '.join(map(str, movers))} are to move")
                )
            return movers[0]
        return self._player(player)

    def _player(self, player: object) -> Player:
        """`player` as a player index of this game (an int, or a numpy integer); otherwise the
        one line every method taking a player gives (`check`, `apply`, `legal_actions`,
        `observe`, `determinize`, ...): a `ValueError` naming it and the players there are."""
        if type(player) is int and 0 <= player < self.num_players:
            return player  # the usual case, answered first (a check of an action asks it)
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not (
            0 <= player < self.num_players
        ):
            raise ValueError(f"unknown player {short(player, 40)}: players are 0 to {self.num_players - 1}")
        return int(player)

    def clone(self) -> State:
        """An independent copy."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        """`clone()` where a game defines its own (faster, sharing what never changes), else a
        deep copy of every attribute."""
        if type(self).clone is not State.clone:
            return self.clone()
        other = type(self).__new__(type(self))
        memo[id(self)] = other
        other.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return other

    def __copy__(self) -> State:
        """A shallow copy (the attributes shared), as `copy.copy` makes of a plain object: not by
        way of `__reduce__`, which writes the whole state as JSON (games' `clone` starts from
        `copy.copy`, and search bots clone at every iteration)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its JSON text, read back by `Game.state_from_json`: the exact round trip,
        and what a game shares between states (tables, components) is found again, not copied."""
        return _state_from_json, (self.game, self.to_json())

    # States are mutable: equality and the hash are those of the position now, as its JSON form
    # (history included). A state whose hash was taken and that is then played on no longer
    # matches it: keep clones, not the playing state, in sets and dict keys.
    def __eq__(self, other: object) -> bool:
        """True when `other` is a state of the same game and class writing the same JSON."""
        if not isinstance(other, State):
            return NotImplemented
        return self is other or (type(self) is type(other) and self.to_json() == other.to_json())

    def __hash__(self) -> int:
        """A hash of the JSON form, the same in every process (unlike `hash` of a str)."""
        digest = hashlib.blake2b(self.to_json().encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big", signed=True)

    def to_json(self) -> str:
        """The whole state, history included, as JSON text (exact round trip)."""
        return dumps({**self.to_dict(), "history": orjson.Fragment(self.history_json())})

    # -- history: written as JSON once per entry, read back once per entry text ---------------
    @property
    def history(self) -> list[tuple[Player, Action, list[Event]]]:
        """(player, action, events) of every action applied, oldest first."""
        found: list[tuple[Player, Action, list[Event]]] = self.__dict__["_history"]
        return found

    @history.setter
    def history(self, value: list[tuple[Player, Action, list[Event]]]) -> None:
        self.__dict__.update(_history=value, _history_text=None)

    def history_json(self) -> str:
        """The history as JSON text. Each entry is encoded once: the text of the entries
        written before is kept while they stay (states are written at every step, and
        histories only grow), and a history read back is its entries' texts as read."""
        history = self.history
        text, done, last = self.__dict__.get("_history_text") or ("", 0, None)
        if done > len(history) or (done and history[done - 1] is not last):
            text, done = "", 0  # changed other than by appending: write it all again
        if done < len(history):
            new = [entry_json(entry) for entry in history[done:]]
            text = ",".join(([text] if done else []) + new)
            self._history_text = (text, len(history), history[-1])
        return "[" + text + "]"

    def set_history(self, history: list[tuple[Player, Action, list[Event]]],
                    texts: Sequence[str] | None = None) -> None:
        """Replace the history; `texts`, the JSON text of each entry as read back, spare
        `history_json` from encoding the entries again."""
        self.history = history
        if texts is not None:
            if len(texts) != len(history):
                raise ValueError(f"{len(texts)} texts for {len(history)} history entries")
            if history:
                self._history_text = (",".join(texts), len(history), history[-1])

    def _history_from_json(self, data: JSON, history: bytes | None = None) -> None:
        """Restore `history` (for `Game.state_from_json`) from its raw JSON as `read_state_json`
        split it off, or from `data["history"]`: each entry checked (a player of this game, an
        action `action_from_json` reads, events), `DataError` naming ``history[i]`` otherwise."""
        if history is None:
            history = msgspec.json.encode((data or {}).get("history", []))
        self.set_history(*read_history(self.game, self.num_players, history))

    def _copy_history(self, other: State) -> None:
        """Give `other`, a shallow copy of this state, a history list of its own (the entries,
        immutable, and their JSON text are shared)."""
        other.__dict__["_history"] = list(self.__dict__["_history"])

    def player_views(self, player: Player) -> dict[str, JSON]:
        """Everything `player` may call to look at this state for their own view, by name, as
        JSON-able data: `observe(player)`, who is to move, `scores()`, `winners()`,
        `evaluate(player)` and, when it is their move in a finite space, their legal actions.
        None of them may show what `player` may not know: the harness checks that each is the
        same in every determinization for `player`. A game adds its own views (Anasazi:
        `view(player)`); a method that shows the whole truth says so in its name."""
        player = self._player(player)
        views: dict[str, JSON] = {
            "observe": self.observe(player), "to_move": list(self.to_move()),
            "scores": list(self.scores()), "winners": list(self.winners()),
        }
        if type(self).evaluate is not State.evaluate:  # else it is a score, checked already
            views["evaluate"] = self.evaluate(player)
        if player in self.to_move():
            space = self.legal_actions(player)
            if isinstance(space, FiniteActionSpace):
                views["legal_actions"] = [str(a) for a in space]
        return views

    def evaluate(self, player: Player) -> float:
        """A heuristic value of this state for `player` (greedy bots); the score by default."""
        return float(self.scores()[self._player(player)])

    def turn_order(self) -> list[Player]:
        """The players in the order they take turns as the game stands now: at the start of a
        game, who moves first, second, ... (turn position 0 is the first mover). By default the
        seats clockwise (increasing numbers) from the first player to move; a game whose first
        decision is simultaneous says whose turn comes first."""
        movers = self.to_move()
        first = movers[0] if movers else 0
        return [(first + i) % self.num_players for i in range(self.num_players)]

    def outcome_scores(self) -> list[float]:
        """The scores the rules would give if the game ended now with everything hidden revealed
        (the whole truth, not a player's view): what batch metrics trace the lead with. The
        scores by default; a game whose end adds points (secret objectives, bonuses) says so."""
        return [float(s) for s in self.scores()]

    def returns_finite(self) -> bool:
        """True when every score is a finite number."""
        return all(math.isfinite(s) for s in self.scores())

    def draw(self, ax: Any = None, **options: Any) -> Any:
        """Draw this moment on a matplotlib Axes (a new figure when `ax` is None); `options` go
        to the game's drawing (``reveal=True`` shows hidden information)."""
        if "draw" not in self.game.parts:
            raise NotImplementedError(f"{self.game.name} has no drawing")
        return self.game.parts["draw"](self, ax, **options)

    def choice_figures(self, player: Player) -> Mapping[str, float]:
        """Figures of the choice `player` faces now, for batch analysis (a continuous game's
        legal share of sampled poses, say); none by default."""
        if "choice_figures" not in self.game.parts:
            return {}
        return self.game.parts["choice_figures"](self, player)  # type: ignore[no-any-return]

    def arbitrary_actions(self, player: Player, rng: np.random.Generator, k: int) -> list[Action]:
        """Up to `k` well-formed actions for `player`, legal or not: test input for `check`."""
        return []

    def __str__(self) -> str:
        """The game's text board of this moment, or the short `repr`."""
        if "text" in self.game.parts:
            return self.game.parts["text"](self)  # type: ignore[no-any-return]
        return repr(self)

    def __repr__(self) -> str:
        movers = ", ".join(map(str, self.to_move())) or "nobody (over)"
        return (f"<{self.game.name} state, {self.num_players} players, {len(self.history)} actions,"
                f" to move: {movers}>")

    # -- ids, tensors and returns for RL libraries (see `Encoding`, docs/ecosystem.md) ----------
    @property
    def encoding(self) -> Encoding:
        """The action ids and observation tensor of this state's game, components and player
        count."""
        if "state_encoding" in self.game.parts:
            return self.game.parts["state_encoding"](self)  # type: ignore[no-any-return]
        return self.game.encoding(self.num_players)

    def legal_action_ids(self, player: Player | None = None) -> list[int]:
        """The ids of `player`'s legal actions, ascending ([] for a player not to move)."""
        player = self._resolve_player(player)
        if player not in self.to_move():
            return []
        return self.encoding.legal_ids(self, player)

    def legal_action_mask(self, player: Player | None = None) -> np.ndarray:
        """A boolean array over every action id: True where the action is legal for `player`."""
        enc = self.encoding
        mask = np.zeros(enc.num_distinct_actions, dtype=bool)
        mask[self.legal_action_ids(player)] = True
        return mask

    def observation_tensor(self, player: Player) -> np.ndarray:
        """What `player` may know now as a float32 array (layout: the game's `Encoding`)."""
        return self.encoding.observation_tensor(self, self._resolve_player(player))

    def returns(self) -> list[float]:
        """Each player's return: 1/k to each of k winners, 0 otherwise (all 0 before the end).
        The raw points are `scores()`."""
        return win_shares(self.num_players, self.winners())

    # -- undo: replayed from the state's origin (the moment it was made, read or drawn) --------
    def undo(self) -> tuple[Player, Action, list[Event]]:
        """Take back the last action: this state becomes exactly (JSON-equal) what it was before
        it, and the history entry taken back is returned. `ValueError` when nothing can be taken
        back: the history is empty, or the action came before the moment this state was made,
        read from JSON or determinized (undo replays the actions since then; `apply` pays
        nothing for it)."""
        origin: _Origin | None = self.__dict__.get("_origin")
        history = self.history
        if not history:
            raise ValueError("nothing to undo: no action has been applied")
        state = origin.start() if origin is not None else None
        if state is None or len(state.history) > len(history) - 1:
            raise ValueError("cannot undo an action applied before this state was made, read "
                             "from JSON or determinized")
        for player, action, _ in history[len(state.history):-1]:
            state._apply(action, player)
        state.set_history(history[:-1])
        last = history[-1]
        self.__dict__.clear()
        self.__dict__.update(state.__dict__, _origin=origin)
        return last

    def pop(self) -> Action:
        """Take back the last action and return it (as python-chess's `Board.pop`)."""
        return self.undo()[1]

    def mark_origin(self) -> None:
        """Make this moment the earliest `undo` returns to: for code that changes a state other
        than through `apply` (a search's look-ahead position, a determinization)."""
        kept = self.clone()
        self.__dict__["_origin"] = _Origin(kept.clone)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A determinization becomes its own origin for `undo` (its hidden parts differ). The
        methods of a player's view take only a player of the game (`_player`), whatever the
        game's own code would make of another value."""
        super().__init_subclass__(**kwargs)
        for name in _PLAYER_METHODS:
            if name in cls.__dict__:
                setattr(cls, name, _player_checked(cls.__dict__[name]))
        if "determinize" in cls.__dict__:
            determinize = cls.__dict__["determinize"]

            @functools.wraps(determinize)
            def drawn(self: State, player: Player, rng: np.random.Generator) -> State:
                other: State = determinize(self, player, rng)
                other.mark_origin()
                return other

            cls.determinize = drawn  # type: ignore[method-assign]

    # -- notebooks ------------------------------------------------------------------------------
    def _repr_svg_(self) -> str | None:
        """The drawing, as SVG (Jupyter shows it); None for a game without a drawing."""
        found = self._figure_bytes("svg").get("svg")
        return None if found is None else found.decode()

    def _repr_png_(self) -> bytes | None:
        """The drawing, as PNG bytes; None for a game without a drawing."""
        return self._figure_bytes("png").get("png")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Jupyter's display: the state drawn once, as SVG and PNG (asked for `_repr_svg_` and
        `_repr_png_` in turn, Jupyter would draw it twice); empty without a drawing."""
        mimes = {"image/svg+xml": "svg", "image/png": "png"}
        wanted = [fmt for mime, fmt in mimes.items()
                  if (not include or mime in include) and not (exclude and mime in exclude)]
        found = self._figure_bytes(*wanted) if wanted else {}
        return {mime: data.decode() if fmt == "svg" else data
                for mime, fmt in mimes.items() if (data := found.get(fmt)) is not None}

    def _figure_bytes(self, *formats: str) -> dict[str, bytes]:
        """The drawing rendered in each of `formats` (drawn once); empty without a drawing."""
        try:
            ax = self.draw()
        except NotImplementedError:
            return {}
        from geomsim.plotting import figure_bytes  # matplotlib loads only when drawn

        return {fmt: figure_bytes(ax, fmt) for fmt in formats}

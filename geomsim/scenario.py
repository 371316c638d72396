"""Scenario files: scripted positions, expectations and outputs, for any geomsim game.

A scenario (YAML, safe-loaded) names a game, players, a seed or an explicit setup, a list of
steps in the game's action text form, expectations checked after any step, and outputs
(diagrams, game logs, states, and whatever a game contributes). The format is described in
``docs/scenarios.md``; its JSON Schema is ``geomsim/scenario_schema.json``.

    scenario = load_scenario("scenarios/cibola/example-round.yaml")   # ScenarioError if malformed
    report = run_scenario(scenario, out="out")                       # Report: .ok, str(report)
    state = scenario.state_at("after-sending")                       # the state after a step

A game may contribute expectation kinds and output kinds: ``game.expectations()`` returns
``{kind: fn(state, spec) -> (ok, message)}`` and ``game.outputs()`` returns
``{kind: fn(state, path, spec) -> None}``; a function may carry a ``schema`` attribute (a JSON
Schema of its mapping) that ``geomsim check`` applies.

Every error in a file is a `ScenarioError` whose text names the file, the line and the field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import click
import jsonschema
import yaml

from geomsim.files import write_text
from geomsim.registry import UnknownGame, load_game
from geomsim.rules import Action, Event, Game, IllegalAction, State

SCHEMA_PATH = Path(__file__).with_name("scenario_schema.json")
LOG_FORMAT = "geomsim-log"
LOG_VERSION = 1
DIAGRAM_SUFFIXES = (".png", ".svg", ".pdf")
END = "end"

FieldPath = tuple[str | int, ...]
GameLoader = Callable[[str], Game]


# -- errors and line numbers ---------------------------------------------------------------
class ScenarioError(ValueError):
    """A malformed scenario or log: names the file, the line and the field."""

    def __init__(self, file: str, line: int | None, field: str | None, message: str):
        self.file, self.line, self.field, self.message = file, line, field, message
        where = file + (f":{line}" if line else "")
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


def field_name(path: FieldPath) -> str:
    """A field path as text: ``steps[2].expect[0].rule``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@dataclass
class Source:
    """A YAML document and the line of each of its nodes (values and keys)."""

    file: str
    data: Any
    lines: dict[FieldPath, int] = field(default_factory=dict)
    key_lines: dict[FieldPath, int] = field(default_factory=dict)

    def line(self, path: FieldPath, key: bool = False) -> int | None:
        """The line of the field at `path` (of its key when `key`), else of its nearest parent."""
        if key and path in self.key_lines:
            return self.key_lines[path]
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)

    def error(self, path: FieldPath, message: str, key: bool = False) -> ScenarioError:
        """A `ScenarioError` at the field `path`."""
        return ScenarioError(self.file, self.line(path, key), field_name(path) or None, message)


def parse_yaml(text: str, file: str = "<string>") -> Source:
    """Safe-load YAML text, keeping the line of every node; `ScenarioError` when it is not YAML."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
        source = Source(file, data)
        if node is not None:
            _index(loader, node, data, (), source)
        return source
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        column = f" (column {mark.column + 1})" if mark else ""
        problem = e.problem or e.context or "cannot read"
        raise ScenarioError(file, mark.line + 1 if mark else None, None,
                            f"bad YAML{column}: {problem}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(file, None, None, f"bad YAML: {e}") from None
    finally:
        loader.dispose()


def _index(loader: yaml.SafeLoader, node: yaml.Node, value: Any, path: FieldPath,
           source: Source) -> None:
    """Record the line of each node under `node`; reject duplicate keys and non-finite numbers."""
    source.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            child = path + (key,)
            source.key_lines[child] = key_node.start_mark.line + 1
            if key in seen:
                raise source.error(child, f"duplicate field {key!r}", key=True)
            seen.add(key)
            _index(loader, value_node, value[key], child, source)
    elif isinstance(node, yaml.SequenceNode):
        for i, (child_node, item) in enumerate(zip(node.value, value)):
            _index(loader, child_node, item, path + (i,), source)
    elif isinstance(value, float) and not math.isfinite(value):
        raise source.error(path, f"{value!r} is not allowed: give a finite number")


# -- JSON Schema ---------------------------------------------------------------------------
@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (kinds of expectations and outputs in ``$defs``)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _validator(part: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator of `part` that resolves references into the scenario schema."""
    root = schema()
    return jsonschema.Draft202012Validator({**part, "$defs": root["$defs"]})


@cache
def _top_validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(schema())


def _check_schema(source: Source, instance: Any, validator: Any, base: FieldPath) -> None:
    """Raise a `ScenarioError` for the first (by line) schema error of `instance`."""
    errors = list(validator.iter_errors(instance))
    if not errors:
        return
    def where(e: jsonschema.ValidationError) -> tuple[int, int]:
        return (source.line(base + tuple(e.absolute_path)) or 0, -len(e.absolute_path))
    error = min(errors, key=where)
    path, message, key = _explain(error)
    raise source.error(base + path, message, key)


def _explain(error: jsonschema.ValidationError) -> tuple[FieldPath, str, bool]:
    """A plain message for a schema error, and the field it is about."""
    path = tuple(error.absolute_path)
    kind, instance = error.validator, error.instance
    if kind == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in known]
        return path + (extra[0],), f"unknown field {extra[0]!r} (known: {', '.join(known)})", True
    if kind == "required":
        missing = [r for r in error.validator_value if r not in instance]
        return path, f"missing field {missing[0]!r}", False
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(_TYPE_WORDS[t] for t in ([wanted] if isinstance(wanted, str) else wanted))
        return path, f"expected {wanted}, got {_describe(instance)}", False
    if kind == "not" and "description" in error.validator_value:
        last = error.validator_value.get("required", [None])[-1]
        return path + ((last,) if last else ()), error.validator_value["description"], bool(last)
    if kind == "pattern" and path and path[-1] == "diagram":
        return path, f"{instance!r}: a diagram is a .png, .svg or .pdf file", False
    if kind == "minProperties":
        return path, "empty mapping", False
    return path, error.message, False


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "nothing"}


def _describe(value: Any) -> str:
    """The YAML type and value of `value`, for messages."""
    words = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number", type(None): "nothing"}
    text = repr(value)
    return f"{words.get(type(value), type(value).__name__)} {text if len(text) < 40 else text[:37] + '...'}"


# -- the scenario model --------------------------------------------------------------------
@dataclass(frozen=True)
class Expectation:
    """One expectation, checked after step `step` (0: before any step)."""

    kind: str
    spec: Mapping[str, Any]  # the mapping as written, its "player" resolved to an index
    line: int | None
    field: str
    step: int
    player: int | None = None
    action: Action | None = None  # legal / illegal: the action probed
    text: str = ""  # legal / illegal: the action as written
    final: bool = False  # from the top-level `expect`, checked after the last step


@dataclass(frozen=True)
class Step:
    """One step: an action applied (or none), then expectations checked."""

    index: int  # 1-based
    line: int | None
    name: str | None
    player: int | None
    action: Action | None
    text: str | None
    note: str
    expectations: tuple[Expectation, ...]


@dataclass(frozen=True)
class Output:
    """A file to write from the state after step `at`."""

    kind: str
    filename: str
    at: int
    spec: Mapping[str, Any]
    line: int | None


@dataclass
class Scenario:
    """A loaded, validated scenario."""

    path: Path
    game: Game
    players: int
    names: tuple[str, ...]
    seed: int | None
    setup: Any
    steps: tuple[Step, ...]
    final: tuple[Expectation, ...]  # the top-level `expect`, checked after the last step
    outputs: tuple[Output, ...]
    description: str = ""
    _initial: State | None = field(default=None, repr=False)

    def new_state(self) -> State:
        """A fresh state at the start of the scenario (before step 1)."""
        if self._initial is None:
            self._initial = self.game.new_state(self.players, seed=self.seed, setup=self.setup)
        return self._initial.clone()

    def step_number(self, step: int | str) -> int:
        """The number of a step given by number (0 = the start) or by name ("end": the last)."""
        if isinstance(step, str):
            if step == END:
                return len(self.steps)
            for s in self.steps:
                if s.name == step:
                    return s.index
            known = ", ".join(s.name for s in self.steps if s.name) or "none"
            raise KeyError(f"no step named {step!r} (named steps: {known})")
        if isinstance(step, bool) or not 0 <= step <= len(self.steps):
            raise KeyError(f"no step {step!r}: steps are 0 (the start) to {len(self.steps)}")
        return step

    def state_at(self, step: int | str) -> State:
        """The state after `step` (a number, 0 = the start, or a name); `IllegalAction` if a step fails."""
        number = self.step_number(step)
        state = self.new_state()
        for s in self.steps[:number]:
            if s.action is not None:
                state.apply(s.action, s.player)
        return state

    def who(self, player: int | None) -> str:
        """A player as text: "player 1 (Karolina)"."""
        if player is None:
            return "the player to move"
        name = f" ({self.names[player]})" if self.names else ""
        return f"player {player}{name}"

    def label(self, player: int) -> str:
        """A player as written in steps: its name, or its index."""
        return self.names[player] if self.names else str(player)

    def where(self, step: int) -> str:
        """A step as text for reports: "step 3", or "start" for step 0."""
        return f"step {step}" if step else "start"


# -- loading -------------------------------------------------------------------------------
STEP_FIELDS = ("action", "player", "name", "note", "expect")


def load_scenario(path: str | Path, *, load: GameLoader | None = None) -> Scenario:
    """Read and validate a scenario file; `ScenarioError` (file, line, field) if malformed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(str(path), None, None, f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    return build_scenario(parse_yaml(text, str(path)), path, load=load)


def parse_scenario(text: str, path: str | Path = "<string>", *, load: GameLoader | None = None) -> Scenario:
    """A scenario from YAML text (`path` names it in errors and anchors a setup file)."""
    return build_scenario(parse_yaml(text, str(path)), Path(path), load=load)


def build_scenario(source: Source, path: Path, *, load: GameLoader | None = None) -> Scenario:
    """Validate the data of a scenario file and build the `Scenario`."""
    data = source.data
    load = load or load_game
    if not isinstance(data, dict):
        found = "the file is empty" if data is None else f"found {_describe(data)}"
        raise ScenarioError(source.file, source.line(()) or 1, None,
                            f"a scenario is a mapping with game, players and steps; {found}")
    _normalise_steps(source)
    _check_schema(source, data, _top_validator(), ())
    game = _game(source, data["game"], load)
    players = data["players"]
    try:
        game.check_players(players)
    except ValueError as e:
        raise source.error(("players",), str(e)) from None
    names = tuple(data.get("names", ()))
    if names and len(names) != players:
        raise source.error(("names",), f"{len(names)} names for {players} players")
    builder = _Builder(source, game, players, names)
    setup = _setup(source, path, data.get("setup"))
    seed = data.get("seed", 0)  # also with a setup: a game may draw what the setup leaves out
    steps = tuple(builder.step(i, s) for i, s in enumerate(data.get("steps", [])))
    builder.named = {s.name: s.index for s in steps if s.name}
    final = builder.expectations(data.get("expect", []), ("expect",), len(steps), has_action=False)
    outputs = tuple(builder.output(i, o, len(steps)) for i, o in enumerate(data.get("outputs", [])))
    scenario = Scenario(path, game, players, names, seed, setup, steps, final, outputs,
                        data.get("description", ""))
    try:
        scenario.new_state()
    except (ValueError, KeyError, TypeError, IndexError) as e:
        what = ("setup",) if setup is not None else ("seed",)
        raise source.error(what, f"{game.name} rejects it: {_reason(e)}") from None
    return scenario


def _reason(error: BaseException) -> str:
    """An exception as a short reason (KeyError quotes its key)."""
    return f"missing {error}" if isinstance(error, KeyError) else str(error)


def _normalise_steps(source: Source) -> None:
    """Turn the short step forms ("text", {PLAYER: text}) into mappings of the step fields."""
    data = source.data
    steps, names = data.get("steps"), data.get("names")
    names = names if isinstance(names, list) else []
    if not isinstance(steps, list):
        return
    for i, step in enumerate(steps):
        here = ("steps", i)
        if isinstance(step, str):
            steps[i] = {"action": step}
            source.lines[here + ("action",)] = source.lines[here]
        elif isinstance(step, dict) and len(step) == 1:
            (key, value), = step.items()
            if key in STEP_FIELDS:
                continue
            is_player = (isinstance(key, int) and not isinstance(key, bool)) or key in names
            if not is_player and isinstance(value, str):
                raise source.error(here + (key,), f"{key!r} is neither a player (an index"
                                   f"{' or one of ' + ', '.join(names) if names else ''}) nor a step "
                                   f"field ({', '.join(STEP_FIELDS)})", key=True)
            if is_player:
                steps[i] = {"player": key, "action": value}
                source.lines[here + ("player",)] = source.key_lines[here + (key,)]
                source.lines[here + ("action",)] = source.lines[here + (key,)]


def _game(source: Source, name: str, load: GameLoader) -> Game:
    try:
        return load(name)
    except UnknownGame as e:
        raise source.error(("game",), str(e).strip('"')) from None
    except Exception as e:  # a game that fails to import: say which and why, in one line
        raise source.error(("game",), f"cannot load game {name!r}: {type(e).__name__}: {e}") from None


def _setup(source: Source, path: Path, setup: Any) -> Any:
    """The setup data: embedded; or read from a JSON file named relative to the scenario
    (``setup: FILE``); or a file's data changed by the fields given beside ``from: FILE``
    (mappings merged key by key, other values replaced)."""
    if isinstance(setup, str):
        return _setup_file(source, path, setup, ("setup",))
    if isinstance(setup, dict) and "from" in setup:
        if not isinstance(setup["from"], str):
            raise source.error(("setup", "from"), f"expected a file name, got {_describe(setup['from'])}")
        base = _setup_file(source, path, setup["from"], ("setup", "from"))
        if not isinstance(base, dict):
            raise source.error(("setup", "from"), "the file does not hold a mapping")
        return merge(base, {k: v for k, v in setup.items() if k != "from"})
    return setup


def _setup_file(source: Source, path: Path, name: str, where: FieldPath) -> Any:
    file = path.parent / name
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except OSError as e:
        raise source.error(where, f"cannot read setup file {str(file)!r}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise source.error(where, f"{file}: line {e.lineno}, column {e.colno}: {e.msg}") from None


def merge(base: Any, changes: Any) -> Any:
    """`base` with `changes` applied: mappings merged key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(changes, dict):
        return {**base, **{k: merge(base.get(k), v) for k, v in changes.items()}}
    return changes


_PREFIX = re.compile(r"^\s*([^:\s][^:]*?)\s*:\s*(.*)$", re.S)
_PATH_TOKEN = re.compile(r"""([^.\[\]"']+)|\[(\d+)\]|\["([^"]*)"\]|\['([^']*)'\]""")


class _Builder:
    """Builds steps, expectations and outputs, checking them against the game."""

    def __init__(self, source: Source, game: Game, players: int, names: tuple[str, ...]):
        self.source, self.game, self.players, self.names = source, game, players, names
        self.named: dict[str, int] = {}
        self.seen_names: set[str] = set()
        self.expect_kinds = {**CORE_EXPECTATIONS, **_hooks(game, "expectations")}
        self.output_kinds = {**CORE_OUTPUTS, **_hooks(game, "outputs")}

    def error(self, path: FieldPath, message: str, key: bool = False) -> ScenarioError:
        return self.source.error(path, message, key)

    def player(self, path: FieldPath, value: Any) -> int:
        """A player index from an index or a name."""
        if isinstance(value, str) and value in self.names:
            return self.names.index(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < self.players:
            return value
        names = f" or one of {', '.join(self.names)}" if self.names else ""
        raise self.error(path, f"unknown player {value!r}: players are 0 to {self.players - 1}{names}")

    def split(self, text: str) -> tuple[Any, str]:
        """Split "PLAYER: action" into its player (index or name) and action text."""
        match = _PREFIX.match(text)
        if match:
            prefix = match.group(1)
            if prefix.isdigit():
                return int(prefix), match.group(2)
            if prefix in self.names:
                return prefix, match.group(2)
        return None, text

    def action(self, path: FieldPath, text: str, player_path: FieldPath, player: Any
               ) -> tuple[int | None, Action, str]:
        """Parse "[PLAYER:] action text" (and a separate player field) into player and action."""
        prefix, body = self.split(text)
        who = None if prefix is None else self.player(path, prefix)
        if player is not None:
            field_player = self.player(player_path, player)
            if who is not None and who != field_player:
                raise self.error(path, f"the text names player {prefix} but the field player is {player}")
            who = field_player
        try:
            action = self.game.parse_action(body)
        except Exception as e:  # parse_action should raise ValueError; report any as one line
            raise self.error(path, f"cannot parse {self.game.name} action {body!r}: {_reason(e)}") from None
        return who, action, body

    def step(self, i: int, data: dict[str, Any]) -> Step:
        here = ("steps", i)
        name = data.get("name")
        if name is not None and (name == END or name in self.seen_names):
            raise self.error(here + ("name",), f"step name {name!r} is "
                             + ("reserved" if name == END else "used twice"))
        if name is not None:
            self.seen_names.add(name)
        player, action, text = None, None, None
        if "action" in data:
            player, action, text = self.action(here + ("action",), data["action"],
                                               here + ("player",), data.get("player"))
        elif "player" in data:
            raise self.error(here + ("player",), "a player without an action")
        expectations = self.expectations(data.get("expect", []), here + ("expect",), i + 1,
                                          has_action=action is not None)
        return Step(i + 1, self.source.line(here), name, player, action, text, data.get("note", ""),
                    expectations)

    def expectations(self, data: Any, here: FieldPath, step: int, has_action: bool
                     ) -> tuple[Expectation, ...]:
        items = [(here, data)] if isinstance(data, dict) else [(here + (j,), e) for j, e in enumerate(data)]
        found = tuple(self.expectation(path, spec, step, has_action) for path, spec in items)
        return tuple(replace(e, final=True) for e in found) if here == ("expect",) else found

    def _kind(self, path: FieldPath, spec: dict[str, Any], kinds: Mapping[str, Any], what: str) -> str:
        found = [k for k in spec if k in kinds]
        if not found:
            known = ", ".join(sorted(kinds))
            raise self.error(path, f"no {what} kind in fields {', '.join(map(str, spec))} (known: {known})")
        if len(found) > 1:
            raise self.error(path + (found[1],), f"two {what} kinds in one mapping: {found[0]}, {found[1]}", True)
        return found[0]

    def expectation(self, path: FieldPath, spec: dict[str, Any], step: int, has_action: bool) -> Expectation:
        kind = self._kind(path, spec, self.expect_kinds, "expectation")
        _check_schema(self.source, spec, _kind_validator(self.expect_kinds[kind], kind, "kinds"), path)
        resolved = dict(spec)
        player = None
        if "player" in spec:
            player = resolved["player"] = self.player(path + ("player",), spec["player"])
        if "winner" in spec:
            resolved["winner"] = self.player(path + ("winner",), spec["winner"])
        for key in ("winners", "to_move"):
            if key in spec:
                resolved[key] = [self.player(path + (key, j), p) for j, p in enumerate(spec[key])]
        action, text = None, ""
        if kind in ("legal", "illegal"):
            player, action, text = self.action(path + (kind,), spec[kind], path + ("player",), spec.get("player"))
            for j, rule in enumerate(_as_list(spec.get("rule", []))):
                if rule not in self.game.rules and not rule.startswith("engine/"):
                    where = path + ("rule",) + ((j,) if isinstance(spec["rule"], list) else ())
                    raise self.error(where, f"unknown {self.game.name} rule {rule!r}")
        if kind == "property":
            self.property_spec(path, spec)
            if (spec.get("of") == "observe") != ("player" in spec):
                raise self.error(path, "give a player exactly when 'of' is observe")
        if kind == "event" and not has_action:
            raise self.error(path, "an event expectation belongs to a step with an action")
        return Expectation(kind, resolved, self.source.line(path), field_name(path), step, player,
                           action, text)

    def property_spec(self, path: FieldPath, spec: dict[str, Any]) -> None:
        try:
            property_path(spec["property"])
        except ValueError as e:
            raise self.error(path + ("property",), str(e)) from None
        if not any(k in spec for k in COMPARATORS):
            raise self.error(path, f"give one of {', '.join(COMPARATORS)}")

    def output(self, i: int, spec: Any, steps: int) -> Output:
        path = ("outputs", i)
        kind = self._kind(path, spec, self.output_kinds, "output")
        _check_schema(self.source, spec, _kind_validator(self.output_kinds[kind], kind, "outputs"), path)
        filename = spec[kind]
        if not isinstance(filename, str):
            raise self.error(path + (kind,), f"expected a file name, got {_describe(filename)}")
        pure = PurePosixPath(filename)
        if pure.is_absolute() or ".." in pure.parts or not pure.name:
            raise self.error(path + (kind,), f"{filename!r}: give a relative file name inside the output folder")
        at = spec.get("at", END)
        if isinstance(at, str) and at != END and at not in self.named:
            known = ", ".join(self.named) or "none"
            raise self.error(path + ("at",), f"no step named {at!r} (named steps: {known}; or a number, or end)")
        number = steps if at == END else self.named[at] if isinstance(at, str) else at
        if not 0 <= number <= steps:
            raise self.error(path + ("at",), f"no step {at}: steps are 0 (the start) to {steps}")
        return Output(kind, filename, number, dict(spec), self.source.line(path))


def _hooks(game: Game, name: str) -> dict[str, Any]:
    """The expectation or output kinds that `game` contributes (``game.expectations()``...)."""
    hook = getattr(game, name, None)
    return dict(hook()) if callable(hook) else {}


def _kind_validator(fn: Any, kind: str, group: str) -> Any:
    """The schema validator of a kind: the core schema, or the game function's `schema`."""
    core = schema()["$defs"][group].get(kind)
    if core is not None and fn in (CORE_EXPECTATIONS.get(kind), CORE_OUTPUTS.get(kind)):
        return _validator(core)
    contributed = getattr(fn, "schema", None) or {"type": "object"}
    props = contributed.get("properties")
    if props is not None:  # every kind may carry a note
        contributed = {**contributed, "properties": {**props, "note": {"type": "string"}}}
    return _validator(contributed)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


# -- evaluating expectations ---------------------------------------------------------------
@dataclass
class Moment:
    """What an expectation sees: the state after a step and the events of that step."""

    scenario: Scenario
    state: State
    events: list[Event]


Outcome = tuple[bool, str]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _same(a: float, b: float) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


def _resolve(moment: Moment, exp: Expectation) -> int:
    """The player of a legal / illegal probe (the one to move when the file names none)."""
    if exp.player is not None:
        return exp.player
    movers = moment.state.to_move()
    if len(movers) != 1:
        raise ValueError("name the player: " + ("the game is over" if not movers else
                         f"players {', '.join(map(str, movers))} are to move"))
    return movers[0]


def expect_legal(moment: Moment, exp: Expectation) -> Outcome:
    player = _resolve(moment, exp)
    verdict = moment.state.check(exp.action, player)
    what = f"{moment.scenario.label(player)}: {exp.text}"
    if verdict.ok:
        return True, f"{what!r} is legal"
    return False, f"{what!r} is illegal, expected legal: {verdict}"


def expect_illegal(moment: Moment, exp: Expectation) -> Outcome:
    player = _resolve(moment, exp)
    verdict = moment.state.check(exp.action, player)
    what = f"{moment.scenario.label(player)}: {exp.text}"
    wanted = _as_list(exp.spec.get("rule", []))
    by = f" by {', '.join(wanted)}" if wanted else ""
    if verdict.ok:
        return False, f"{what!r} is legal, expected illegal{by}"
    missing = [r for r in wanted if r not in verdict.rules]
    if missing:
        return False, f"{what!r} is illegal by {', '.join(verdict.rules)}, expected{by}: {verdict}"
    return True, f"{what!r} is illegal: {verdict}"


def expect_score(moment: Moment, exp: Expectation) -> Outcome:
    actual = moment.state.scores()[exp.player]
    text = f"score of {moment.scenario.who(exp.player)} is {_num(actual)}"
    wanted = exp.spec["score"]
    return (True, text) if _same(actual, wanted) else (False, f"{text}, expected {_num(wanted)}")


def expect_scores(moment: Moment, exp: Expectation) -> Outcome:
    actual, wanted = list(moment.state.scores()), exp.spec["scores"]
    text = f"scores are {', '.join(map(_num, actual))}"
    ok = len(actual) == len(wanted) and all(map(_same, actual, wanted))
    return (True, text) if ok else (False, f"{text}, expected {', '.join(map(_num, wanted))}")


def _players(scenario: Scenario, players: Sequence[int]) -> str:
    return ", ".join(scenario.who(p) for p in players) or "nobody"


def expect_winners(moment: Moment, exp: Expectation) -> Outcome:
    wanted = sorted([exp.spec["winner"]] if "winner" in exp.spec else exp.spec["winners"])
    actual = sorted(moment.state.winners())
    over = "" if moment.state.is_over() else " (the game is not over)"
    text = f"winners: {_players(moment.scenario, actual)}{over}"
    return (True, text) if actual == wanted else (False, f"{text}, expected {_players(moment.scenario, wanted)}")


def expect_over(moment: Moment, exp: Expectation) -> Outcome:
    over = moment.state.is_over()
    text = "the game is over" if over else "the game is not over"
    if over == exp.spec["over"]:
        return True, text
    return False, f"{text}, expected it {'' if exp.spec['over'] else 'not '}to be"


def expect_to_move(moment: Moment, exp: Expectation) -> Outcome:
    actual, wanted = sorted(moment.state.to_move()), sorted(exp.spec["to_move"])
    text = f"to move: {_players(moment.scenario, actual)}"
    return (True, text) if actual == wanted else (False, f"{text}, expected {_players(moment.scenario, wanted)}")


COMPARATORS = ("equals", "contains", "length", "at_least", "at_most")


def property_path(text: str) -> list[str | int]:
    """Parse ``a.b[2].c`` (or ``a.b.2.c``; keys with dots or commas quoted: ``a["0,-1"]``) into
    keys and indices; `ValueError` if malformed."""
    parts: list[str | int] = []
    pos = 0
    for match in _PATH_TOKEN.finditer(text):
        between = text[pos:match.start()]
        if between not in ("", ".") or (between == "" and pos and match.group(1)):
            break
        word, index, quoted = match.group(1), match.group(2), match.group(3) or match.group(4)
        if word is None and index is None and quoted is None:
            quoted = ""  # [""] names the empty key
        parts.append(word if word is not None else int(index) if index is not None else quoted)
        pos = match.end()
    else:
        if pos == len(text) and parts:
            return parts
    raise ValueError(f"malformed property path {text!r}: write keys and indices like players[1].score")


def lookup(data: Any, parts: Sequence[str | int]) -> Any:
    """The value at `parts` in JSON-like data; `LookupError` naming where the path stops."""
    for done, part in enumerate(parts):
        here = _path_text(parts[:done])
        if isinstance(data, Mapping):
            if str(part) not in data:
                keys = ", ".join(map(str, list(data)[:12])) or "none"
                raise LookupError(f"no key {str(part)!r} in {here} (keys: {keys})")
            data = data[str(part)]
        elif isinstance(data, (list, tuple)):
            try:
                data = data[int(part)]
            except (ValueError, IndexError):
                raise LookupError(f"no item {part!r} in {here} (a list of {len(data)})") from None
        else:
            raise LookupError(f"{here} is {_describe(data)}, not a mapping or a list")
    return data


def _path_text(parts: Sequence[str | int]) -> str:
    return field_name(tuple(parts)) or "the root"


def plain(value: Any) -> Any:
    """JSON-like data with tuples as lists, string keys and numpy scalars as Python numbers."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def expect_property(moment: Moment, exp: Expectation) -> Outcome:
    spec = exp.spec
    source = moment.state.observe(exp.player) if spec.get("of") == "observe" else moment.state.to_dict()
    of = f"observe({exp.player})" if spec.get("of") == "observe" else "state"
    try:
        value = plain(lookup(plain(source), property_path(spec["property"])))
    except LookupError as e:
        return False, f"{of} {spec['property']}: {e.args[0]}"
    text = f"{of} {spec['property']} is {_short(value)}"
    problems = [p for p in (_compare(value, k, spec[k]) for k in COMPARATORS if k in spec) if p]
    return (False, f"{text}: {'; '.join(problems)}") if problems else (True, text)


def _compare(value: Any, how: str, wanted: Any) -> str | None:
    """Why `value` fails the comparison `how` with `wanted`, or None when it holds."""
    try:
        if how == "equals":
            ok = value == plain(wanted) or (_is_number(value) and _is_number(wanted) and _same(value, wanted))
            return None if ok else f"expected {_short(plain(wanted))}"
        if how == "contains":
            return None if plain(wanted) in value else f"expected it to contain {_short(plain(wanted))}"
        if how == "length":
            return None if len(value) == wanted else f"length {len(value)}, expected {wanted}"
        if how == "at_least":
            return None if value >= wanted else f"expected at least {_num(wanted)}"
        return None if value <= wanted else f"expected at most {_num(wanted)}"
    except TypeError:
        return f"cannot compare {_describe(value)} ({how} {_short(wanted)})"


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def expect_event(moment: Moment, exp: Expectation) -> Outcome:
    spec = exp.spec
    data = plain(spec.get("data", {}))

    def matches(e: Event) -> bool:
        if e.kind != spec["event"] or ("player" in spec and e.player != spec["player"]):
            return False
        got = plain(e.data)
        return all(k in got and got[k] == v for k, v in data.items())

    found = [e for e in moment.events if matches(e)]
    what = f"event {spec['event']!r}" + (f" of {moment.scenario.who(spec['player'])}" if "player" in spec else "") \
        + (f" with {_short(data)}" if data else "")
    count = spec.get("count")
    ok = len(found) == count if count is not None else bool(found)
    text = f"{len(found)} x {what}"
    if ok:
        return True, text
    kinds = ", ".join(sorted({e.kind for e in moment.events})) or "none"
    expected = f"exactly {count}" if count is not None else "at least 1"
    return False, f"{text}, expected {expected} (events of this step: {kinds})"


CORE_EXPECTATIONS: dict[str, Callable[[Moment, Expectation], Outcome]] = {
    "legal": expect_legal, "illegal": expect_illegal, "score": expect_score, "scores": expect_scores,
    "winner": expect_winners, "winners": expect_winners, "over": expect_over, "to_move": expect_to_move,
    "property": expect_property, "event": expect_event,
}


def evaluate(moment: Moment, exp: Expectation) -> Outcome:
    """Check one expectation at a moment: (passes, what was found)."""
    core = CORE_EXPECTATIONS.get(exp.kind)
    if core is not None:
        return core(moment, exp)
    fn = _hooks(moment.scenario.game, "expectations")[exp.kind]
    spec = {k: v for k, v in exp.spec.items() if k != "note"}
    ok, message = fn(moment.state, spec)
    return bool(ok), str(message)


# -- outputs -------------------------------------------------------------------------------
def write_diagram(scenario: Scenario, state: State, path: Path, spec: Mapping[str, Any]) -> None:
    """Draw the table (`state.draw`) and save it."""
    from geomsim.plotting import save

    ax = state.draw(**dict(spec.get("options", {})))
    at = spec["_at"]
    name = next((f" ({s.name})" for s in scenario.steps if s.index == at and s.name), "")
    caption(ax.figure, spec.get("title") or f"{scenario.path.stem}: {scenario.where(at)}{name}")
    save(ax, path)


def caption(fig: Any, text: str) -> Any:
    """Write (or rewrite) a one-line caption at the foot of a figure: the game's own titles stay.
    As the figure's x label, the layout makes room for it below everything drawn."""
    return fig.supxlabel(text, fontsize=9)


def write_state(scenario: Scenario, state: State, path: Path, spec: Mapping[str, Any]) -> None:
    """Save the state as JSON (`state.to_json`)."""
    write_text(path, state.to_json() + "\n")


def write_log_output(scenario: Scenario, state: State, path: Path, spec: Mapping[str, Any]) -> None:
    """Save the game log of the actions so far (JSON Lines)."""
    write_log(path, state, seed=scenario.seed, setup=scenario.setup, names=scenario.names,
              source=str(scenario.path))


CORE_OUTPUTS: dict[str, Callable[..., None]] = {
    "diagram": write_diagram, "log": write_log_output, "state": write_state,
}


def write_output(scenario: Scenario, output: Output, state: State, folder: Path) -> Path:
    """Write one output of `scenario` from `state` into `folder`; return its path."""
    path = folder / output.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    core = CORE_OUTPUTS.get(output.kind)
    if core is not None:
        core(scenario, state, path, {**output.spec, "_at": output.at})
    else:
        fn = _hooks(scenario.game, "outputs")[output.kind]
        fn(state, path, {k: v for k, v in output.spec.items() if k != "note"})
    return path


# -- running and reports -------------------------------------------------------------------
@dataclass(frozen=True)
class Result:
    """The outcome of one expectation, step or output: "pass", "fail" or "skip"."""

    status: str
    line: int | None
    where: str
    message: str
    rules: tuple[str, ...] = ()
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.status != "fail"

    def __str__(self) -> str:
        label = {"pass": "pass", "fail": "FAIL", "skip": "skip"}[self.status]
        note = f"  [{self.note}]" if self.note else ""
        return f"{label:4s}  line {self.line or '?':<4}  {self.where:9s}  {self.message}{note}"


@dataclass
class Report:
    """What running a scenario found: one result per expectation, and the outputs written."""

    scenario: Scenario
    results: list[Result] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no expectation, step or output failed."""
        return all(r.ok for r in self.results)

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def failures(self) -> list[Result]:
        return [r for r in self.results if r.status == "fail"]

    def summary(self) -> str:
        skipped = self.count("skip")
        return (f"{self.count('pass')} passed, {self.count('fail')} failed"
                + (f", {skipped} not run" if skipped else ""))

    def format(self, verbose: bool = True) -> str:
        s = self.scenario
        title = f"{s.path}: {s.game.name}, {s.players} players" + (f" - {s.description.strip().splitlines()[0]}"
                                                                      if s.description.strip() else "")
        lines = [title]
        lines += [f"  {r}" for r in self.results if verbose or r.status != "pass"]
        lines += [f"  wrote {p}" for p in self.written]
        lines.append(f"  {self.summary()}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def run_scenario(scenario: Scenario, out: str | Path | None = None) -> Report:
    """Play the steps, check every expectation, and write the outputs into `out` (None: none)."""
    report = Report(scenario)
    state = scenario.new_state()
    wanted = {o.at for o in scenario.outputs} if out is not None else set()
    moments = {0: state.clone()} if 0 in wanted else {}
    stopped = False
    for step in scenario.steps:
        events: list[Event] = []
        if step.action is not None:
            failure = _apply(report, state, step)
            if failure is not None:
                report.results.append(failure)
                stopped = True
                break
            events = state.history[-1][2]
        _check_all(report, Moment(scenario, state, events), step.expectations)
        if step.index in wanted:
            moments[step.index] = state.clone()
    if stopped:
        left = [e for s in scenario.steps[step.index:] for e in s.expectations] + list(scenario.final)
        left += list(step.expectations)
        if left:
            report.results.append(Result("skip", left[0].line, scenario.where(step.index),
                                         f"{len(left)} expectation(s) not checked after the failed step"))
    else:
        _check_all(report, Moment(scenario, state, []), scenario.final)
    if out is not None:
        _write_outputs(report, moments, Path(out))
    return report


def _apply(report: Report, state: State, step: Step) -> Result | None:
    """Apply a step's action; the failure result when it cannot be applied."""
    scenario = report.scenario
    who = f"{scenario.label(step.player)}: " if step.player is not None else ""
    try:
        state.apply(step.action, step.player)
    except IllegalAction as e:
        return Result("fail", step.line, scenario.where(step.index),
                      f"{(who + step.text)!r} is illegal: {e.verdict} (the scenario stops here)",
                      e.verdict.rules, step.note)
    except ValueError as e:  # no player named while several (or none) are to move
        return Result("fail", step.line, scenario.where(step.index),
                      f"{(who + step.text)!r} cannot be applied: {e} (the scenario stops here)", (), step.note)
    return None


def _check_all(report: Report, moment: Moment, expectations: Sequence[Expectation]) -> None:
    for exp in expectations:
        where = END if exp.final else report.scenario.where(exp.step)
        try:
            ok, message = evaluate(moment, exp)
        except Exception as e:  # a broken expectation hook, or no player to resolve: a failure
            ok, message = False, f"{exp.kind}: {type(e).__name__}: {e}"
        rules = tuple(_as_list(exp.spec.get("rule", []))) if exp.kind == "illegal" else ()
        report.results.append(Result("pass" if ok else "fail", exp.line, where, message, rules,
                                     exp.spec.get("note", "")))


def _write_outputs(report: Report, moments: dict[int, State], out: Path) -> None:
    scenario = report.scenario
    folder = out / scenario.game.name / scenario.path.stem
    for output in scenario.outputs:
        where = "output"
        if output.at not in moments:
            at = END if output.at == len(scenario.steps) else scenario.where(output.at)
            report.results.append(Result("skip", output.line, where, f"{output.filename}: {at} was not reached"))
            continue
        try:
            report.written.append(write_output(scenario, output, moments[output.at], folder))
        except Exception as e:  # a game without drawing, a failing hook: report, go on
            report.results.append(Result("fail", output.line, where,
                                         f"cannot write {output.filename}: {type(e).__name__}: {e}"))


# -- game logs -----------------------------------------------------------------------------
def log_lines(state: State, *, seed: int | None = None, setup: Any = None, names: Sequence[str] = (),
              source: str | None = None) -> Iterator[str]:
    """The JSON Lines of a game log: a header, then one line per applied action."""
    header: dict[str, Any] = {"format": LOG_FORMAT, "version": LOG_VERSION, "game": state.game.name,
                              "players": state.num_players}
    if names:
        header["names"] = list(names)
    header["seed"] = seed
    if setup is not None:
        header["setup"] = setup
    if source:
        header["scenario"] = source
    yield json.dumps(header, sort_keys=True, allow_nan=False)
    for number, (player, action, events) in enumerate(state.history, 1):
        yield json.dumps({"step": number, "player": player, "action": str(action),
                          "action_json": action.to_json(), "events": [e.to_json() for e in events]},
                         sort_keys=True, allow_nan=False)


def write_log(path: str | Path, state: State, **header: Any) -> Path:
    """Write the game log of `state` (see `log_lines`) atomically."""
    return write_text(path, "\n".join(log_lines(state, **header)) + "\n")


@dataclass
class GameLog:
    """A game log read back: the header and the logged (player, action) pairs."""

    path: Path
    game: Game
    players: int
    seed: int | None
    setup: Any
    names: tuple[str, ...]
    moves: list[tuple[int, Action, str, int]]  # player, action, its text, line of the log

    def frames(self) -> Iterator[tuple[str, State]]:
        """The state at the start and after each move, with a title: (title, state)."""
        state = self.game.new_state(self.players, seed=self.seed, setup=self.setup)
        yield f"{self.game.name}: start", state
        for number, (player, action, text, line) in enumerate(self.moves, 1):
            try:
                state.apply(action, player)
            except IllegalAction as e:
                raise ScenarioError(str(self.path), line, "action", f"{text!r} is illegal: {e}") from None
            who = self.names[player] if self.names else f"player {player}"
            yield f"{self.game.name} {number}: {who}: {text}", state


def read_log(path: str | Path, *, load: GameLoader | None = None) -> GameLog:
    """Read a game log; `ScenarioError` (file, line, field) if malformed."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(str(path), None, None, f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as e:
            raise ScenarioError(str(path), number, None, f"not JSON: {e.msg} at column {e.colno}") from None
    if not records or not isinstance(records[0][1], dict) or records[0][1].get("format") != LOG_FORMAT:
        raise ScenarioError(str(path), 1, None, f"not a geomsim game log (the first line is a header "
                                                f"with \"format\": \"{LOG_FORMAT}\")")
    header_line, header = records[0]

    def bad(line: int, name: str, message: str) -> ScenarioError:
        return ScenarioError(str(path), line, name, message)

    try:
        game = (load or load_game)(header.get("game"))
    except UnknownGame as e:
        raise bad(header_line, "game", str(e).strip('"')) from None
    players = header.get("players")
    try:
        game.check_players(players)
    except ValueError as e:
        raise bad(header_line, "players", str(e)) from None
    moves = []
    for line, record in records[1:]:
        if not isinstance(record, dict) or not isinstance(record.get("action_json"), dict):
            raise bad(line, "action_json", "each line after the header logs one action")
        player = record.get("player")
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < players:
            raise bad(line, "player", f"unknown player {player!r}")
        try:
            action = game.action_from_json(record["action_json"])
        except (ValueError, KeyError, TypeError) as e:
            raise bad(line, "action_json", _reason(e)) from None
        moves.append((player, action, str(action), line))
    return GameLog(path, game, players, header.get("seed"), header.get("setup"),
                   tuple(header.get("names", ())), moves)


def replay(log: GameLog, output: str | Path, fps: float = 2.0, options: Mapping[str, Any] | None = None,
           dpi: int = 100) -> list[Path]:
    """Draw a logged game move by move: a GIF (``.gif``) or numbered PNGs in a folder.

    The first frame is drawn on the figure the game's `draw` makes (its preferred size); the
    others redraw the same Axes, so every frame has the same size."""
    from geomsim.plotting import save

    output = Path(output)
    options = dict(options or {})
    frames = log.frames()
    title, state = next(frames)
    ax = state.draw(**options)
    fig = ax.figure
    caption(fig, title)

    def pictures() -> Iterator[None]:
        yield None  # the first frame, drawn above
        for title, state in frames:
            ax.clear()
            state.draw(ax=ax, **options)
            caption(fig, title)
            yield None

    if output.suffix.lower() == ".gif":
        from matplotlib.animation import PillowWriter

        tmp = output.with_name(f".{output.stem}.partial.gif")
        output.parent.mkdir(parents=True, exist_ok=True)
        writer = PillowWriter(fps=fps)
        try:
            with writer.saving(fig, str(tmp), dpi):
                for _ in pictures():
                    writer.grab_frame()
            tmp.replace(output)
        finally:
            tmp.unlink(missing_ok=True)
        return [output]
    return [save(fig, output / f"{number:04d}.png", dpi=dpi) for number, _ in enumerate(pictures())]


# -- command line --------------------------------------------------------------------------
def _user_error(message: str) -> click.ClickException:
    from geomsim.cli import UserError

    return UserError(message)


def _load_all(files: Sequence[Path]) -> tuple[list[Scenario], int]:
    """Load each file; print one line per malformed one; return the scenarios and the errors."""
    scenarios, errors = [], 0
    for file in files:
        try:
            scenarios.append(load_scenario(file))
        except ScenarioError as e:
            click.echo(f"geomsim: error: {e}", err=True)
            errors += 1
    return scenarios, errors


def _expand(files: Sequence[Path]) -> list[Path]:
    """Files as given; a folder stands for the *.yaml files below it."""
    found: list[Path] = []
    for f in files:
        found += sorted(f.rglob("*.yaml")) if f.is_dir() else [f]
    return found


@click.command("run")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=Path("out"),
              show_default=True, help="Folder for outputs (each scenario writes into OUT/GAME/NAME/).")
@click.option("--no-outputs", is_flag=True, help="Check expectations only; write no files.")
@click.option("-q", "--quiet", is_flag=True, help="Show only failures and the summaries.")
@click.pass_context
def run_command(ctx: click.Context, files: tuple[Path, ...], out: Path, no_outputs: bool, quiet: bool) -> None:
    """Run scenario FILES (or folders of them): report each expectation and write the outputs.

    Exit code 1 when an expectation fails, 2 when a file is malformed.
    """
    scenarios, errors = _load_all(_expand(files))
    failed = 0
    for scenario in scenarios:
        report = run_scenario(scenario, None if no_outputs else out)
        click.echo(report.format(verbose=not quiet))
        failed += not report.ok
    if len(scenarios) > 1:
        click.echo(f"{len(scenarios)} scenarios: {len(scenarios) - failed} passed, {failed} failed"
                   + (f"; {errors} malformed" if errors else ""))
    ctx.exit(2 if errors else 1 if failed else 0)


@click.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.pass_context
def check_command(ctx: click.Context, files: tuple[Path, ...]) -> None:
    """Validate scenario FILES without running them (exit code 2 if one is malformed)."""
    scenarios, errors = _load_all(_expand(files))
    for s in scenarios:
        count = sum(len(step.expectations) for step in s.steps) + len(s.final)
        click.echo(f"{s.path}: ok ({s.game.name}, {s.players} players, {len(s.steps)} steps, "
                   f"{count} expectations, {len(s.outputs)} outputs)")
    ctx.exit(2 if errors else 0)


@click.command("replay")
@click.argument("log_file", metavar="LOG", type=click.Path(path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="A .gif file, or a folder for numbered PNG frames.")
@click.option("--fps", type=click.FloatRange(min=0.1, max=60), default=2.0, show_default=True,
              help="Frames per second of a GIF.")
@click.option("--reveal", is_flag=True, help="Show hidden information (passed to the game's drawing).")
def replay_command(log_file: Path, output: Path, fps: float, reveal: bool) -> None:
    """Draw the game logged in LOG (JSON Lines) move by move: a GIF or a folder of PNG frames."""
    if output.suffix and output.suffix.lower() != ".gif":
        raise _user_error(f"{output}: give a .gif file or a folder for PNG frames")
    try:
        log = read_log(log_file)
        written = replay(log, output, fps=fps, options={"reveal": True} if reveal else None)
    except ScenarioError as e:
        raise _user_error(str(e)) from None
    except NotImplementedError as e:
        raise _user_error(f"{log_file}: {e}") from None
    what = str(written[0]) if len(written) == 1 else f"{len(written)} frames in {output}"
    click.echo(f"wrote {what}")

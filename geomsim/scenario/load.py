"""Loading a scenario file: YAML and schema checks, then the game's own checks of every step."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from geomsim import registry
from geomsim.reading import DataError, cut, path_parts, read_file, short
from geomsim.registry import UnknownGame
from geomsim.rules import Action, Game
from geomsim.scenario.expect import COMPARATORS, CORE_EXPECTATIONS, analysis_bots, property_path
from geomsim.scenario.model import (
    END,
    Expectation,
    GameLoader,
    Output,
    Scenario,
    Step,
    as_list,
    contributed_kinds,
)
from geomsim.scenario.run import CORE_OUTPUTS
from geomsim.scenario.source import (
    FieldPath,
    ScenarioError,
    Source,
    check_schema,
    describe,
    field_name,
    parse_yaml,
    part_validator,
    read_text,
    reason,
    schema,
    top_validator,
)

STEP_FIELDS = ("action", "player", "name", "note", "expect")


def load_scenario(path: str | Path, *, load: GameLoader | None = None,
                  options: Mapping[str, Any] | None = None, variant: str | None = None) -> Scenario:
    """Read and validate a scenario file; `ScenarioError` (file, line, field) if malformed.
    `variant`, then `options` (``{name: value}``, or ``{name: "text"}`` as the command line's
    ``--option`` gives them), are laid over the file's own ``variant:`` and ``options:``."""
    path = Path(path)
    return build_scenario(parse_yaml(read_text(path), str(path)), path, load=load,
                          options=options, variant=variant)


def parse_scenario(text: str, path: str | Path = "<string>", *, load: GameLoader | None = None,
                   options: Mapping[str, Any] | None = None, variant: str | None = None) -> Scenario:
    """A scenario from YAML text (`path` names it in errors and anchors a setup file)."""
    return build_scenario(parse_yaml(text, str(path)), Path(path), load=load, options=options,
                          variant=variant)


def build_scenario(source: Source, path: Path, *, load: GameLoader | None = None,
                   options: Mapping[str, Any] | None = None, variant: str | None = None) -> Scenario:
    """Validate the data of a scenario file and build the `Scenario` (`variant` and `options`
    laid over the file's ``variant:`` and ``options:``)."""
    data = source.data
    load = load or registry.load_game
    if not isinstance(data, dict):
        found = "the file is empty" if data is None else f"found {describe(data)}"
        raise ScenarioError(source.file, source.line(()) or 1, None,
                            f"a scenario is a mapping with game, players and steps; {found}")
    _normalise_steps(source)
    check_schema(source, data, top_validator(), ())
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
    chosen = _options(source, game, data, options or {}, variant)
    scenario = Scenario(path, game, players, names, seed, setup, steps, final, outputs,
                        data.get("description", ""), chosen)
    what = ("setup",) if setup is not None else ("seed",)
    try:
        scenario.new_state()
    except DataError as e:  # names the field of the setup: point at its line
        raise source.error(what + path_parts(e.path), f"{game.name} rejects it: {e.problem}") from None
    except (ValueError, KeyError, TypeError, IndexError) as e:
        raise source.error(what, f"{game.name} rejects it: {cut(reason(e))}") from None
    return scenario


def _options(source: Source, game: Game, data: Mapping[str, Any], given: Mapping[str, Any],
             variant: str | None) -> dict[str, Any]:
    """The options the file's ``variant:`` and ``options:`` choose, then `variant`'s and `given`
    (values, or texts as ``--option`` writes them), each checked: an error names the line and
    the option (or, for the caller's, the option and its allowed values)."""
    found: dict[str, Any] = {}
    if "variant" in data:
        try:
            found = {**game.variants[data["variant"]].values}
        except KeyError:
            raise source.error(("variant",), f"unknown {game.name} variant {data['variant']!r} "
                               f"(variants: {', '.join(game.variants)})") from None
    for name, value in (data.get("options") or {}).items():
        try:
            found[name] = game.resolve_options({name: value})[name]
        except DataError as e:
            raise source.error(("options", name), e.problem, key=name not in game.options) from None
    if variant is not None:
        found.update(game.variants[variant].values if variant in game.variants
                     else game.resolve_options(None, variant))  # the latter: its one-line error
    for name, value in given.items():
        option = game.options.get(name)
        if option is None:
            raise DataError(f"options.{str(name)[:40]}",
                            f"unknown {game.name} option (options: {', '.join(game.options) or 'none'})")
        found[name] = option.parse(value) if isinstance(value, str) else option.check(value)
    return found


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
            raise source.error(("setup", "from"), f"expected a file name, got {describe(setup['from'])}")
        base = _setup_file(source, path, setup["from"], ("setup", "from"))
        if not isinstance(base, dict):
            raise source.error(("setup", "from"), "the file does not hold a mapping")
        return merge(base, {k: v for k, v in setup.items() if k != "from"})
    return setup


def _setup_file(source: Source, path: Path, name: str, where: FieldPath) -> Any:
    file = path.parent / name
    try:
        return read_file(file)
    except OSError as e:
        raise source.error(where, f"cannot read setup file {str(file)!r}: {e.strerror}") from None
    except DataError as e:
        raise source.error(where, str(e)) from None


def merge(base: Any, changes: Any) -> Any:
    """`base` with `changes` applied: mappings merged key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(changes, dict):
        return {**base, **{k: merge(base.get(k), v) for k, v in changes.items()}}
    return changes


_PREFIX = re.compile(r"^\s*([^:\s][^:]*?)\s*:\s*(.*)$", re.S)


class _Builder:
    """Builds steps, expectations and outputs, checking them against the game."""

    def __init__(self, source: Source, game: Game, players: int, names: tuple[str, ...]):
        self.source, self.game, self.players, self.names = source, game, players, names
        self.named: dict[str, int] = {}
        self.seen_names: set[str] = set()
        self.expect_kinds = {**CORE_EXPECTATIONS, **contributed_kinds(game, "expectations")}
        self.output_kinds = {**CORE_OUTPUTS, **contributed_kinds(game, "outputs")}

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
            why = cut(reason(e))
            # The game's parser quotes the text already (Notation does): quote it once.
            quoted = why if why.startswith(f"{self.game.name} action") else \
                f"{self.game.name} action {short(body)}: {why}"
            raise self.error(path, f"cannot parse {quoted}") from None
        return who, action, body

    def step(self, i: int, data: dict[str, Any]) -> Step:
        here = ("steps", i)
        name = data.get("name")
        if name is not None and (name == END or name in self.seen_names):
            raise self.error(here + ("name",), f"step name {name!r} is "
                             + ("reserved" if name == END else "used twice"))
        if name is not None:
            self.seen_names.add(name)
        player, action, text = None, None, ""
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
        check_schema(self.source, spec, _kind_validator(self.expect_kinds[kind], kind, "kinds"), path)
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
            for j, rule in enumerate(as_list(spec.get("rule", []))):
                if rule not in self.game.rules and not rule.startswith("engine/"):
                    where = path + ("rule",) + ((j,) if isinstance(spec["rule"], list) else ())
                    raise self.error(where, f"unknown {self.game.name} rule {rule!r}")
        if kind == "property":
            self.property_spec(path, spec)
            if (spec.get("of") == "observe") != ("player" in spec):
                raise self.error(path, "give a player exactly when 'of' is observe")
        if kind == "analysis":
            self.analysis_spec(path, spec, resolved)
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

    def analysis_spec(self, path: FieldPath, spec: dict[str, Any], resolved: dict[str, Any]) -> None:
        """An ``analysis`` expectation names bots that play this game, one figure (a turn
        position, a player, a bot of the line-up or a metric) and a bound or another figure."""
        from geomsim.scenario.claims import BOUNDS, MEASURES, VERSUS

        bots = self.analysis_batch(path + ("analysis",), spec["analysis"])
        self.figure(path, spec, bots, resolved)
        versus = [k for k in VERSUS if k in spec]
        if len(versus) + any(k in spec for k in BOUNDS) != 1 or len(versus) > 1:
            raise self.error(path, f"give one of {', '.join(BOUNDS + VERSUS)}")
        if versus:
            other = spec[versus[0]]
            other_bots = (self.analysis_batch(path + (versus[0], "analysis"), other["analysis"])
                          if "analysis" in other else bots)
            resolved[versus[0]] = dict(other)
            if not any(k in other for k in MEASURES):  # the same figure of the other batch
                resolved[versus[0]].update({k: spec[k] for k in MEASURES if k in spec})
            self.figure(path + (versus[0],), resolved[versus[0]], other_bots, resolved[versus[0]])
        else:
            for key in ("margin", "by", "ratio"):
                if key in spec:
                    raise self.error(path + (key,), f"{key} goes with more_than or less_than")
        if "by" in spec and "ratio" in spec:
            raise self.error(path + ("ratio",), "give by or ratio, not both")
        if "between" in spec and spec["between"][0] > spec["between"][1]:
            raise self.error(path + ("between",), "give the lower bound first")

    def analysis_batch(self, path: FieldPath, batch: dict[str, Any]) -> list[str]:
        """The bots of an ``analysis`` mapping, each one that plays this game."""
        from geomsim.bots import make_bot

        self.analysis_options(path, batch)
        bots = analysis_bots(batch)
        for bot in bots:
            try:
                make_bot(bot, self.game)
            except ValueError as e:
                raise self.error(path + ("bots",), str(e)) from None
        if not bots or len(bots) > self.players:
            raise self.error(path + ("bots",), f"name 1 to {self.players} bots, not {len(bots)}")
        return bots

    def figure(self, path: FieldPath, spec: dict[str, Any], bots: list[str],
               resolved: dict[str, Any]) -> None:
        """The one figure a claim measures: turn, seat, bot or metric."""
        from geomsim.scenario.claims import MEASURES

        asked = [k for k in MEASURES if k in spec]
        if len(asked) != 1:
            raise self.error(path, "name what to measure with one of turn, seat, bot or metric, "
                             "not " + (", ".join(asked) or "none"))
        if "turn" in spec and spec["turn"] >= self.players:
            raise self.error(path + ("turn",), f"turn positions are 0 to {self.players - 1}")
        if "seat" in spec:
            resolved["seat"] = self.player(path + ("seat",), spec["seat"])
        if "bot" in spec and spec["bot"] not in bots:
            raise self.error(path + ("bot",), f"{spec['bot']!r} is not in the line-up "
                             f"({', '.join(bots)})")
        if "metric" in spec:
            try:
                property_path(spec["metric"])
            except ValueError as e:
                raise self.error(path + ("metric",), str(e)) from None

    def analysis_options(self, path: FieldPath, mapping: dict[str, Any]) -> None:
        """The options of an ``analysis`` mapping, each allowed by the game (they go over the
        file's own when the batch plays)."""
        for name, value in (mapping.get("options") or {}).items():
            try:
                self.game.resolve_options({name: value})
            except DataError as e:
                raise self.error(path + ("options", name), e.problem,
                                 key=name not in self.game.options) from None

    def output(self, i: int, spec: Any, steps: int) -> Output:
        path = ("outputs", i)
        kind = self._kind(path, spec, self.output_kinds, "output")
        check_schema(self.source, spec, _kind_validator(self.output_kinds[kind], kind, "outputs"), path)
        filename = spec[kind]
        if not isinstance(filename, str):
            raise self.error(path + (kind,), f"expected a file name, got {describe(filename)}")
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


def _kind_validator(fn: Any, kind: str, group: str) -> Any:
    """The schema validator of a kind: the core schema, or the game function's `schema`."""
    core = schema()["$defs"][group].get(kind)
    if core is not None and fn in (CORE_EXPECTATIONS.get(kind), CORE_OUTPUTS.get(kind)):
        return part_validator(core)
    contributed = getattr(fn, "schema", None) or {"type": "object"}
    props = contributed.get("properties")
    if props is not None:  # every kind may carry a note
        contributed = {**contributed, "properties": {**props, "note": {"type": "string"}}}
    return part_validator(contributed)


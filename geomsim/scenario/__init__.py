"""Scenario files: scripted positions, expectations and outputs, for any geomsim game.

A scenario (YAML, safe-loaded) names a game, players, a seed or an explicit setup, a list of
steps in the game's action text form, expectations checked after any step, and outputs
(diagrams, game logs, states, and whatever a game contributes). The format is described in
``docs/scenarios.md``; its JSON Schema is ``geomsim/scenario/schema.json``.

    scenario = load_scenario("scenarios/cibola/example-round.yaml")   # ScenarioError if malformed
    report = run_scenario(scenario, out="out")                       # Report: .ok, str(report)
    state = scenario.state_at("after-sending")                       # the state after a step

A game may contribute expectation kinds and output kinds: ``game.expectations()`` returns
``{kind: fn(state, spec) -> (ok, message)}`` and ``game.outputs()`` returns
``{kind: fn(state, path, spec) -> None}``; a function may carry a ``schema`` attribute (a JSON
Schema of its mapping) that ``geomsim check`` applies.

Every error in a file is a `ScenarioError` whose text names the file, the line and the field.

Modules: `source` (errors, YAML with line numbers, the schema), `model` (the loaded scenario),
`load`, `expect` (expectation kinds), `run` (outputs, reports), `log` (game logs, replay),
and `commands`, the old path of the commands now in `geomsim.cli.scenario`.
"""

from geomsim.scenario.expect import CORE_EXPECTATIONS, Moment, evaluate
from geomsim.scenario.load import build_scenario, load_scenario, parse_scenario
from geomsim.scenario.log import GameLog, log_lines, read_log, replay, write_log
from geomsim.scenario.model import END, Expectation, Output, Scenario, Step
from geomsim.scenario.run import (
    CORE_OUTPUTS,
    Report,
    Result,
    run_scenario,
    write_output,
)
from geomsim.scenario.source import ScenarioError, parse_yaml, schema

__all__ = [
    "CORE_EXPECTATIONS", "CORE_OUTPUTS", "END", "Expectation", "GameLog", "Moment", "Output",
    "Report", "Result", "Scenario", "ScenarioError", "Step", "build_scenario", "evaluate",
    "load_scenario", "log_lines", "parse_scenario", "parse_yaml", "read_log", "replay",
    "run_scenario", "schema", "write_log", "write_output",
]

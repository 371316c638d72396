"""Running a scenario: steps applied, expectations checked, outputs written, a report."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from geomsim.files import WriteError, make_folder, write_text
from geomsim.rules import Action, Event, IllegalAction, State
from geomsim.scenario.expect import Moment, evaluate
from geomsim.scenario.log import write_log
from geomsim.scenario.model import (
    END,
    Expectation,
    Output,
    Scenario,
    Step,
    as_list,
    contributed_kinds,
)

HEADER_WIDTH = 96  # the run header wraps a scenario's description to this many columns


# -- outputs -------------------------------------------------------------------------------
def write_diagram(scenario: Scenario, state: State, path: Path, spec: Mapping[str, Any]) -> None:
    """Draw the table (`state.draw`) and save it."""
    from geomsim.plotting import caption, save

    ax = state.draw(**dict(spec.get("options", {})))
    at = spec["_at"]
    name = next((f" ({s.name})" for s in scenario.steps if s.index == at and s.name), "")
    caption(ax.figure, spec.get("title") or f"{scenario.path.stem}: {scenario.where(at)}{name}")
    save(ax, path)


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
    make_folder(path.parent, path)
    core = CORE_OUTPUTS.get(output.kind)
    if core is not None:
        core(scenario, state, path, {**output.spec, "_at": output.at})
    else:
        fn = contributed_kinds(scenario.game, "outputs")[output.kind]
        fn(state, path, {k: v for k, v in output.spec.items() if k != "note"})
    return path


# -- running and reports -------------------------------------------------------------------
@dataclass(frozen=True)
class Result:
    """The outcome of one expectation, step or output: "pass", "fail", "skip", or for a batch
    claim too few games to tell, "undecided"."""

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
        label = {"pass": "pass", "fail": "FAIL", "skip": "skip", "undecided": "UNDECIDED"}[self.status]
        note = f"  [{self.note}]" if self.note else ""
        return f"{label:4s}  line {self.line or '?':<4}  {self.where:9s}  {self.message}{note}"


@dataclass
class Report:
    """What running a scenario found: one result per expectation, and the outputs written."""

    scenario: Scenario
    results: list[Result] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    claims: list[tuple[int, Any]] = field(default_factory=list)  # (result index, Claim)

    @property
    def ok(self) -> bool:
        """True when no expectation, step or output failed."""
        return all(r.ok for r in self.results)

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def failures(self) -> list[Result]:
        return [r for r in self.results if r.status == "fail"]

    @property
    def undecided(self) -> bool:
        """True when a batch claim had too few games to be decided."""
        return any(r.status == "undecided" for r in self.results)

    def summary(self) -> str:
        skipped, undecided = self.count("skip"), self.count("undecided")
        return (f"{self.count('pass')} passed, {self.count('fail')} failed"
                + (f", {undecided} undecided" if undecided else "")
                + (f", {skipped} not run" if skipped else ""))

    def format(self, verbose: bool = True) -> str:
        s = self.scenario
        lines = [f"{s.path}: {s.game.name}, {s.players} players"]
        lines += textwrap.wrap(" ".join(s.description.split()), HEADER_WIDTH, initial_indent="  ",
                               subsequent_indent="  ", break_long_words=False)
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
            failure = _apply(report, state, step, step.action)
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
    _settle_claims(report)
    if out is not None:
        _write_outputs(report, moments, Path(out))
    return report


def _apply(report: Report, state: State, step: Step, action: Action) -> Result | None:
    """Apply a step's action; the failure result when it cannot be applied."""
    scenario = report.scenario
    who = f"{scenario.label(step.player)}: " if step.player is not None else ""
    try:
        state.apply(action, step.player)
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
            found = evaluate(moment, exp)
        except LookupError as e:  # a batch without the figure asked for
            found = (False, f"{exp.kind}: {e.args[0]}")
        except Exception as e:  # a broken expectation hook, or no player to resolve: a failure
            found = (False, f"{exp.kind}: {type(e).__name__}: {e}")
        if not isinstance(found, tuple):  # a batch claim: decided with the others at the end
            report.claims.append((len(report.results), found))
            found = (True, "")
        ok, message = found
        rules = tuple(as_list(exp.spec.get("rule", []))) if exp.kind == "illegal" else ()
        report.results.append(Result("pass" if ok else "fail", exp.line, where, message, rules,
                                     exp.spec.get("note", "")))


def _settle_claims(report: Report) -> None:
    """Decide the scenario's batch claims together (Holm's adjustment over them)."""
    if not report.claims:
        return
    from geomsim.scenario.claims import settle

    verdicts = settle([c for _, c in report.claims])
    for (i, _), (status, message) in zip(report.claims, verdicts):
        report.results[i] = replace(report.results[i], status=status, message=message)


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
        except WriteError as e:  # a full disk, a read-only folder: the message names the file
            report.results.append(Result("fail", output.line, where, str(e)))
        except Exception as e:  # a game without drawing, a failing hook: report, go on
            report.results.append(Result("fail", output.line, where,
                                         f"cannot write {output.filename}: {type(e).__name__}: {e}"))

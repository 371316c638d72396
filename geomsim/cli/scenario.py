"""The `geomsim run`, `check` and `replay` commands: one module, since run and check share how
files and folders are loaded and how a malformed one is reported."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from geomsim.cli.common import OutputPath, UserError, command, option_flags
from geomsim.errors import InputError
from geomsim.scenario.load import load_scenario
from geomsim.scenario.log import read_log, replay
from geomsim.scenario.model import Scenario
from geomsim.scenario.run import run_scenario
from geomsim.scenario.source import ScenarioError


def _load_all(files: Sequence[Path], options: Mapping[str, str] | None = None,
              variant: str | None = None) -> tuple[list[Scenario], int]:
    """Load each file (a folder: the *.yaml files below it), under `variant` and `options`
    (texts by name, as ``--option`` gives them); print one line per malformed file or empty
    folder; return the scenarios and the number of errors."""
    scenarios, errors = [], 0
    for file in _expand(files):
        if file.is_dir():
            click.echo(f"geomsim: error: no scenario files in {file} (none named *.yaml below it)",
                       err=True)
            errors += 1
            continue
        try:
            scenarios.append(load_scenario(file, options=options, variant=variant))
        except ScenarioError as e:
            click.echo(f"geomsim: error: {e}", err=True)
            errors += 1
        except InputError as e:  # an --option or --variant this scenario's game refuses
            click.echo(f"geomsim: error: {file}: {e}", err=True)
            errors += 1
    return scenarios, errors


def _assignments(texts: Sequence[str]) -> dict[str, str]:
    """``--option NAME=VALUE`` texts by name (each game's loader checks the values)."""
    found = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise UserError(f"--option: expected NAME=VALUE, got {text!r}")
        found[name.strip()] = value
    return found


def _expand(files: Sequence[Path]) -> list[Path]:
    """Files as given; a folder stands for the *.yaml files below it (itself when there are none)."""
    found: list[Path] = []
    for f in files:
        found += (sorted(f.rglob("*.yaml")) or [f]) if f.is_dir() else [f]
    return found


@command("run")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out", type=OutputPath(folder=True), default=Path("out"),
              show_default=True, help="Folder for outputs (each scenario writes into OUT/GAME/NAME/).")
@click.option("--no-outputs", is_flag=True, help="Check expectations only; write no files.")
@click.option("-q", "--quiet", is_flag=True,
              help="Show only the scenarios that fail (their failed expectations) and a one-line total.")
@option_flags
@click.pass_context
def run_command(ctx: click.Context, files: tuple[Path, ...], out: Path, no_outputs: bool, quiet: bool,
                option_texts: tuple[str, ...], variant: str | None) -> None:
    """Run scenario FILES (or folders of them): report each expectation and write the outputs.
    --variant and --option change the rules of every scenario (over its own ``options:``).

    Exit code 1 when an expectation fails, 2 when a file is malformed, 3 when nothing failed
    but a batch claim was undecided (too few games: its line says about how many more).
    """
    scenarios, errors = _load_all(_expand(files), _assignments(option_texts), variant)
    failed = undecided = 0
    for scenario in scenarios:
        report = run_scenario(scenario, None if no_outputs else out)
        if not (quiet and report.ok and not report.undecided):
            click.echo(report.format(verbose=not quiet))
        failed += not report.ok
        undecided += report.ok and report.undecided
    if len(scenarios) > 1 or quiet:
        click.echo(f"{len(scenarios)} scenario{'s' * (len(scenarios) != 1)}: "
                   f"{len(scenarios) - failed - undecided} passed, {failed} failed"
                   + (f", {undecided} undecided" if undecided else "")
                   + (f"; {errors} malformed" if errors else ""))
    ctx.exit(2 if errors else 1 if failed else 3 if undecided else 0)


@command("check")
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


@command("replay")
@click.argument("log_file", metavar="LOG", type=click.Path(path_type=Path))
@click.option("-o", "--output", required=True, type=OutputPath((".gif",), folder=True),
              help="A .gif file, or a folder for numbered PNG frames.")
@click.option("--fps", type=click.FloatRange(min=0.1, max=60), default=2.0, show_default=True,
              help="Frames per second of a GIF.")
@click.option("--reveal", is_flag=True, help="Show hidden information (passed to the game's drawing).")
def replay_command(log_file: Path, output: Path, fps: float, reveal: bool) -> None:
    """Draw the game logged in LOG (JSON Lines) move by move: a GIF or a folder of PNG frames."""
    try:
        log = read_log(log_file)
        written = replay(log, output, fps=fps, options={"reveal": True} if reveal else None)
    except NotImplementedError as e:
        raise InputError(f"{log_file}: {e}") from None
    what = str(written[0]) if len(written) == 1 else f"{len(written)} frames in {output}"
    click.echo(f"wrote {what}")

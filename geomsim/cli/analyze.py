"""`geomsim analyze`: a batch of games from the command line's options (the batch engine is
`geomsim.analysis`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from geomsim import stats
from geomsim.analysis import (
    ROWS,
    Interrupted,
    Stopped,
    check_resume,
    dask_pool,
    local_pool,
    ready_compiled,
    resolve_game,
    run_batch,
    scenario_start,
    write_summary,
)
from geomsim.batch import Batch, lineup_of
from geomsim.bots import make_bot, split_bots
from geomsim.cli.common import IN_FILE, SEED, OutputPath, UserError, chosen_options, command, option_flags
from geomsim.reading import MAX_SEED


def _default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _batch_from_options(game_name: str, players: int | None, bots: str, games: int, seed: int,
                        scenario: Path | None, fixed_seats: bool, max_steps: int,
                        compiled: bool = False, option_texts: Sequence[str] = (),
                        variant: str | None = None) -> Batch:
    """The batch the options ask for, each checked in one line before any game is played."""
    try:
        game = resolve_game(game_name)
    except Exception as e:
        raise UserError(str(e) if ":" not in game_name else f"{game_name}: {e}") from None
    options = chosen_options(game, option_texts, variant)
    if options and scenario is not None:
        raise UserError("--option/--variant with --from: the scenario's own options: rule its games")
    start = None if scenario is None else scenario_start(scenario, game_name)
    if start is not None and players not in (None, start[0]):
        raise UserError(f"--players {players}: the scenario {scenario} has {start[0]} players")
    players = players or (start[0] if start else game.max_players)
    if seed + games - 1 > MAX_SEED:  # game i plays seed + i
        raise UserError(f"--seed {seed} with --games {games}: the last game's seed "
                        f"{seed + games - 1} is over {MAX_SEED}")
    specs = split_bots(bots)
    try:
        game.check_players(players)
        lineup = lineup_of(specs, players)
        for spec in set(lineup):
            make_bot(spec, game, outside=True)  # the command line may seat outside bots
    except ValueError as e:
        raise UserError(str(e)) from None
    if compiled:
        try:
            game.require_playouts()
        except NotImplementedError as e:
            raise UserError(f"--compiled: {e}") from None
    if options:  # a setup the options refuse, in one line before any game
        try:
            game.new_state(players, seed=seed, options=options)
        except ValueError as e:
            raise UserError(str(e)) from None
    if compiled and set(lineup) != {"random"}:
        raise UserError(f"--compiled plays random players only, not {', '.join(sorted(set(lineup) - {'random'}))}")
    return Batch(game_name, players, lineup, seed, games, not fixed_seats,
                 None if start is None else start[1],
                 None if scenario is None else str(scenario), max_steps, compiled, options)


def _kept(written: int, total: int, output: Path) -> str:
    """Where the rows of a stopped batch are, and how to go on."""
    return (f"{written} of {total} games are in {output / ROWS}; run the same command with "
            "--resume to continue")


@contextmanager
def batch_stops(output: Callable[[], Path]) -> Iterator[None]:
    """Say where the rows are when a batch writing into `output()` (asked when it stops) is
    interrupted (exit code 130) or stopped (one error line), and how to go on."""
    try:
        yield
    except Interrupted as e:
        click.echo(f"geomsim: interrupted: {_kept(e.written, e.total, output())}", err=True)
        raise click.exceptions.Exit(130) from None
    except Stopped as e:
        raise UserError(f"{e.reason}; {_kept(e.written, e.total, output())}") from None


@command("analyze")
@click.argument("game_name", metavar="GAME")
@click.option("--players", "-p", type=int, default=None,
              help="Number of players (default: the scenario's, else the game's maximum).")
@click.option("--bots", "-b", default="random", show_default=True,
              help="Comma-separated bots by seat, repeated to fill the seats: random, greedy[:K], "
                   "ismcts[:N|:Ts][:D] (see docs/analysis.md), or package.module:callable "
                   "for a bot from outside geomsim.")
@click.option("--games", "-n", type=click.IntRange(min=1), default=100, show_default=True,
              help="Number of games.")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True,
              help="Seed of the first game; game i uses seed + i.")
@click.option("--from", "scenario", type=IN_FILE,
              help="Start every game where this scenario's steps end.")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: one per core; 1 runs in this process).")
@click.option("--scheduler", metavar="ADDRESS",
              help="Run on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786).")
@click.option("-o", "--output", type=OutputPath(folder=True),
              default=Path("results"), show_default=True, help="Folder for rows, summary and plot.")
@click.option("--worker-timeout", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="With --scheduler: seconds to wait for a Dask worker, at the start or when "
                   "the cluster has none left.")
@click.option("--resume", is_flag=True, help="Continue the batch in the output folder.")
@click.option("--force", is_flag=True, help="Start over, replacing the rows in the output folder.")
@click.option("--fixed-seats", is_flag=True,
              help="Keep each bot in its seat (default: rotate the line-up by one seat a game).")
@click.option("--chunk", type=click.IntRange(min=1), default=None,
              help="Games per task (default: automatic, about 0.1 s of play a task).")
@click.option("--max-steps", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Stop a game after this many decisions (it is recorded as unfinished).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr (default: when stderr is a terminal).")
@click.option("--no-plot", is_flag=True, help="Skip analysis.png.")
@click.option("--compiled", is_flag=True,
              help="Play random line-ups with the game's compiled random player: the same law of "
                   "games, many times faster, to the end (--max-steps does not apply), without "
                   "game figures (every game).")
@click.option("--report", "report", is_flag=True,
              help="Also write OUTPUT/report.html (see geomsim report).")
@click.option("--per-setup", type=click.IntRange(min=2), default=None, metavar="K",
              help="Play each setup K times (bot seeds differ) to estimate each setup's "
                   "turn-position win rates: GAMES // K setups, in OUTPUT/setup-SEED/.")
@option_flags
def analyze_command(game_name: str, players: int | None, bots: str, games: int, seed: int,
                    scenario: Path | None, workers: int | None, scheduler: str | None,
                    output: Path, worker_timeout: float, resume: bool, force: bool,
                    fixed_seats: bool, chunk: int | None, max_steps: int, progress: bool | None,
                    no_plot: bool, compiled: bool, report: bool, per_setup: int | None,
                    option_texts: tuple[str, ...], variant: str | None) -> None:
    """Play many games of GAME with bots and summarize who wins.

    Writes OUTPUT/games.jsonl (one row per game, as games finish), summary.json, summary.md,
    metrics.json, metrics.md and analysis.png (and report.html with --report). Ctrl-C keeps
    the rows written; --resume continues.
    """
    if workers is not None and scheduler is not None:
        raise UserError("give --workers or --scheduler, not both")
    if resume and force:
        raise UserError("give --resume or --force, not both")
    batch = _batch_from_options(game_name, players, bots, games, seed, scenario, fixed_seats,
                                max_steps, compiled, option_texts, variant)
    if per_setup is not None:
        if scenario is not None:
            raise UserError("--per-setup with --from: a scenario's start is one table already")
        _per_setup(batch, per_setup, output, workers, resume, force, progress)
        return
    check_resume(output, batch, resume, force)
    if compiled:  # once here, not once per worker
        ready_compiled(resolve_game(game_name), batch.players)
    pool = (dask_pool(scheduler, worker_timeout) if scheduler
            else local_pool(workers or _default_workers()))
    with batch_stops(lambda: output):
        rows = run_batch(batch, output, pool, resume=resume, chunk=chunk, progress=progress)
    pool.close()
    summary = write_summary(output, rows, plot=not no_plot)
    click.echo(stats.summary_markdown(summary))
    _write_metrics_and_report(output, rows, report)
    click.echo(f"wrote {output / ROWS}, summary.json, summary.md"
               + ("" if no_plot else ", analysis.png") + ", metrics.json, metrics.md"
               + (", report.html" if report else ""))


def _write_metrics_and_report(output: Path, rows: Sequence[dict[str, Any]], report: bool) -> None:
    """The batch's metrics (`geomsim.metrics`), printed, and with `report` its report."""
    from geomsim.metrics import metrics_markdown, write_metrics

    click.echo(metrics_markdown(write_metrics(output, rows, rows[0].get("versions") if rows else None)))
    if report:
        from geomsim.report import write_report

        write_report(output, output / "report.html")


def _per_setup(batch: Batch, per_setup: int, output: Path, workers: int | None, resume: bool,
               force: bool, progress: bool | None) -> None:
    """``--per-setup K``: GAMES // K setups (seeds SEED, SEED + 1, ...) each played K times;
    OUTPUT/setups.md and setups.json hold each setup's turn-position win rates."""
    import json

    from geomsim import fair
    from geomsim.files import write_text

    game = resolve_game(batch.game)
    setups = range(batch.seed, batch.seed + max(1, batch.games // per_setup))
    pool = local_pool(workers or _default_workers())

    def play(one: Batch, name: str) -> list[dict[str, Any]]:
        check_resume(output / name, one, resume, force)
        return run_batch(one, output / name, pool, resume=resume, progress=progress)

    try:
        estimates = fair.play_setups(game, batch, setups, per_setup, play)
    except Interrupted as e:
        click.echo(f"geomsim: interrupted after {e.written} games of a setup; run the same "
                   "command with --resume to continue", err=True)
        raise click.exceptions.Exit(130) from None
    except Stopped as e:
        raise UserError(f"{e.reason}; run the same command with --resume to continue") from None
    finally:
        pool.close()
    found = fair.fairest(estimates)
    text = "\n".join([f"# {game.name}: {len(estimates)} setups, {per_setup} games each", "",
                      *fair.estimate_lines(estimates), "", *fair.choice_lines(found)]) + "\n"
    write_text(output / "setups.json", json.dumps({"setups": estimates, "fairest": found}) + "\n")
    write_text(output / "setups.md", text)
    click.echo(text)
    click.echo(f"wrote {output}/setups.md, setups.json")

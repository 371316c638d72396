"""`geomsim compare`: variants of a game's rules side by side on the same seeds (the engine is
`geomsim.compare`)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from geomsim.analysis import check_resume, dask_pool, local_pool, run_batch
from geomsim.cli.analyze import _batch_from_options, _default_workers, batch_stops
from geomsim.cli.common import SEED, OutputPath, UserError, command
from geomsim.reading import DataError


@command("compare")
@click.argument("game_name", metavar="GAME")
@click.option("--variant", "variants", multiple=True, metavar="NAME",
              help="A named variant to compare (repeatable; `official` is the rulebook's).")
@click.option("--options", "option_sets", multiple=True, metavar="A=1,B=2",
              help="A set of option values to compare, as one variant (repeatable).")
@click.option("--sweep", metavar="NAME=LO:HI[:STEP]",
              help="Compare every value of a numeric option from LO to HI (included).")
@click.option("--option", "option_texts", multiple=True, metavar="NAME=VALUE",
              help="An option every variant plays with (repeatable).")
@click.option("--players", "-p", type=int, default=None, help="Number of players.")
@click.option("--bots", "-b", default="random", show_default=True,
              help="Comma-separated bots by seat, as for analyze.")
@click.option("--games", "-n", type=click.IntRange(min=2), default=100, show_default=True,
              help="Games per variant (the same seeds in each).")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Seed of the first game.")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: one per core; 1 runs in this process).")
@click.option("--scheduler", metavar="ADDRESS", help="Run on this Dask scheduler.")
@click.option("-o", "--output", type=OutputPath(folder=True), default=Path("compare"),
              show_default=True, help="Folder: one sub-folder per variant and the comparison.")
@click.option("--resume", is_flag=True, help="Continue the comparison in the output folder.")
@click.option("--force", is_flag=True, help="Start over, replacing the rows in the output folder.")
@click.option("--compiled", is_flag=True, help="Play random line-ups with the compiled player.")
@click.option("--max-steps", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Stop a game after this many decisions (recorded as unfinished).")
@click.option("--metric", "metrics", multiple=True, metavar="NAME",
              help="Plot only these metrics (repeatable; default: all).")
@click.option("--no-plot", is_flag=True, help="Skip compare.png (and the report's picture).")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar on stderr.")
def compare_command(game_name: str, variants: tuple[str, ...], option_sets: tuple[str, ...],
                    sweep: str | None, option_texts: tuple[str, ...], players: int | None,
                    bots: str, games: int, seed: int, workers: int | None, scheduler: str | None,
                    output: Path, resume: bool, force: bool, compiled: bool, max_steps: int,
                    metrics: tuple[str, ...], no_plot: bool, progress: bool | None) -> None:
    """Play GAME under two or more variants with the same bots on the same seeds, and compare.

    Writes OUTPUT/<variant>/ (each variant's batch, as analyze writes it), compare.md,
    compare.json, compare.png, report.html and report.pdf: every metric under each variant with its 95%
    interval, and each variant's paired difference to the first with its interval and p-value
    (Holm-corrected over the table).
    """
    from geomsim import compare

    if resume and force:
        raise UserError("give --resume or --force, not both")
    if workers is not None and scheduler is not None:
        raise UserError("give --workers or --scheduler, not both")
    base = _batch_from_options(game_name, players, bots, games, seed, None, False, max_steps,
                               compiled, option_texts, None)
    from geomsim.analysis import resolve_game

    game = resolve_game(game_name)
    try:
        arms = compare.arms_of(game, variants, option_sets, sweep, base.options)
        for arm in arms:  # a setup an option refuses, in one line before any game
            game.new_state(base.players, seed=seed, options=dict(arm.options))
    except (DataError, ValueError) as e:
        raise UserError(str(e)) from None
    batches = compare.arm_batches(base, arms)
    folders = [output / compare.folder(a) for a in arms]
    for batch, out in zip(batches, folders):
        check_resume(out, batch, resume, force)
    pool = (dask_pool(scheduler, worker_timeout=30.0) if scheduler
            else local_pool(workers or _default_workers()))
    rows = []
    playing = folders[0]
    with batch_stops(lambda: playing):
        for arm, batch, playing in zip(arms, batches, folders):
            click.echo(f"{arm.label}: {batch.games} games in {playing}", err=True)
            rows.append(run_batch(batch, playing, pool, resume=resume, progress=progress))
    pool.close()
    try:
        found = compare.comparison(arms, rows)
    except ValueError as e:  # rows of other versions left in an arm's folder (--resume)
        raise UserError(str(e)) from None
    line = "geomsim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    from geomsim.compare_report import write_comparison

    write_comparison(output, game.name, found, line, metrics, plot=not no_plot)
    click.echo(compare.comparison_markdown(game.name, found))
    click.echo(f"wrote {output}/compare.md, compare.json, report.html, report.pdf"
               + ("" if no_plot else ", compare.png"))

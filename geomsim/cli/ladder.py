"""`geomsim ladder`: a tournament of bots with paired seeds, rated with intervals (the engine
is `geomsim.ladder`; the games are played by `geomsim.analysis`'s batches)."""

from __future__ import annotations

from pathlib import Path

import click

from geomsim.analysis import check_resume, dask_pool, local_pool, resolve_game
from geomsim.batch import Batch
from geomsim.bots import make_bot, split_bots
from geomsim.cli.analyze import _default_workers, batch_stops
from geomsim.cli.common import SEED, OutputPath, UserError, command
from geomsim.ladder import (
    LADDER_JSON,
    LADDER_MD,
    LADDER_PNG,
    ladder_batch,
    ladder_markdown,
    ladder_summary,
    rotation,
    run_ladder,
    write_ladder,
)
from geomsim.reading import MAX_SEED


def _ladder_from_options(game_name: str, players: int | None, bots: str, deals: int, seed: int,
                         max_steps: int) -> Batch:
    """The ladder's batch the options ask for, each checked in one line before any game."""
    try:
        game = resolve_game(game_name)
    except Exception as e:
        raise UserError(str(e) if ":" not in game_name else f"{game_name}: {e}") from None
    specs = split_bots(bots)
    if len(specs) < 2:
        raise UserError("--bots: name at least two bots to rank")
    twice = sorted({b for b in specs if specs.count(b) > 1})
    if twice:
        raise UserError(f"--bots: {', '.join(twice)} named twice")
    players = players or min(max(len(specs), game.min_players), game.max_players)
    try:
        game.check_players(players)
        for spec in specs:
            make_bot(spec, game, outside=True)
    except ValueError as e:
        raise UserError(str(e)) from None
    games = deals * len(rotation(specs, players))
    if seed + games - 1 > MAX_SEED:
        raise UserError(f"--seed {seed} with -n {deals}: the last game's seed {seed + games - 1} "
                        f"is over {MAX_SEED}")
    return ladder_batch(game_name, players, specs, seed, deals, max_steps)


@command("ladder")
@click.argument("game_name", metavar="GAME")
@click.option("--bots", "-b", required=True,
              help="Comma-separated bots to rank (at least two): random, greedy[:K], "
                   "ismcts[:N|:Ts][:D], the game's own (see geomsim analyze GAME --help), or "
                   "package.module:callable for a bot from outside geomsim.")
@click.option("--deals", "-n", type=click.IntRange(min=1), default=20, show_default=True,
              help="Deals (seeds) at most; each is played once by every line-up of the rotation.")
@click.option("--players", "-p", type=int, default=None,
              help="Players a game (default: the number of bots, within the game's range).")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True,
              help="Seed of the first game (a deal is the setup of its round's first seed).")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: one per core; 1 runs in this process).")
@click.option("--scheduler", metavar="ADDRESS",
              help="Run on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786).")
@click.option("--worker-timeout", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="With --scheduler: seconds to wait for a Dask worker.")
@click.option("-o", "--output", type=OutputPath(folder=True), default=Path("ladder"),
              show_default=True, help="Folder for rows, ladder.json, ladder.md and ladder.png.")
@click.option("--resume", is_flag=True, help="Continue the ladder in the output folder.")
@click.option("--force", is_flag=True, help="Start over, replacing the rows in the output folder.")
@click.option("--stop-when-separated", is_flag=True,
              help="Play rounds of --every deals and stop once every two bots adjacent in rating "
                   "have 95% intervals that do not overlap (at most -n deals).")
@click.option("--every", type=click.IntRange(min=1), default=10, show_default=True,
              help="With --stop-when-separated: deals between two looks at the intervals.")
@click.option("--max-steps", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Stop a game after this many decisions (its players rank equal).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr (default: when stderr is a terminal).")
@click.option("--no-plot", is_flag=True, help="Skip ladder.png.")
def ladder_command(game_name: str, bots: str, deals: int, players: int | None, seed: int,
                   workers: int | None, scheduler: str | None, worker_timeout: float,
                   output: Path, resume: bool, force: bool, stop_when_separated: bool,
                   every: int, max_steps: int, progress: bool | None, no_plot: bool) -> None:
    """Rank bots of GAME: a tournament on paired seeds, every bot in every turn position.

    Each deal is played by every line-up of a balanced rotation; ratings are a Bradley-Terry
    fit of each game's rank order on the Elo scale (random at 0), with 95% bootstrap intervals
    over deals, beside win rates and decision times. Writes OUTPUT/games.jsonl (as games
    finish), ladder.json, ladder.md and ladder.png. Ctrl-C keeps the rows; --resume continues.
    """
    if workers is not None and scheduler is not None:
        raise UserError("give --workers or --scheduler, not both")
    if resume and force:
        raise UserError("give --resume or --force, not both")
    batch = _ladder_from_options(game_name, players, bots, deals, seed, max_steps)
    check_resume(output, batch, resume, force)
    pool = (dask_pool(scheduler, worker_timeout) if scheduler
            else local_pool(workers or _default_workers()))
    try:
        with batch_stops(lambda: output):
            rows, played, early = run_ladder(batch, output, pool, resume, stop_when_separated,
                                             every, progress)
    finally:
        pool.close()
    summary = ladder_summary(played, rows, early)
    write_ladder(output, summary, plot=not no_plot)
    click.echo(ladder_markdown(summary))
    click.echo(f"wrote {output / 'games.jsonl'}, {LADDER_JSON}, {LADDER_MD}"
               + ("" if no_plot else f", {LADDER_PNG}"))

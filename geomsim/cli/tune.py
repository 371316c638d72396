"""`geomsim tune`: search a game's options for a variant that meets a designer's objectives
(the engine is `geomsim.tune`, with optuna)."""

from __future__ import annotations

from pathlib import Path

import click

from geomsim.analysis import Interrupted, Stopped, local_pool, run_batch
from geomsim.batch import Batch
from geomsim.cli.analyze import _batch_from_options
from geomsim.cli.common import SEED, OutputPath, UserError, command
from geomsim.reading import DataError


@command("tune")
@click.argument("game_name", metavar="GAME")
@click.option("--objective", "objective_texts", multiple=True, required=True,
              metavar="'METRIC>=X' | 'METRIC<=X' | 'METRIC in LO..HI'",
              help="A goal on a metric (repeatable), e.g. 'Balance>=0.95', 'Duration Moves in 20..30'.")
@click.option("--search", "search_texts", multiple=True, required=True, metavar="NAME=LO:HI | NAME",
              help="An option to search (repeatable): a number range, or every value of a listed one.")
@click.option("--option", "option_texts", multiple=True, metavar="NAME=VALUE",
              help="An option every trial plays with (repeatable).")
@click.option("--trials", "-k", type=click.IntRange(min=1), default=20, show_default=True,
              help="Trials in the study (a resumed study plays only the missing ones).")
@click.option("--games", "-n", type=click.IntRange(min=2), default=100, show_default=True,
              help="Games per trial (the same seeds in every trial).")
@click.option("--players", "-p", type=int, default=None, help="Number of players.")
@click.option("--bots", "-b", default="random", show_default=True, help="Bots by seat, as for analyze.")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Seed of the first game.")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes per trial (1 plays in this process).")
@click.option("--compiled", is_flag=True, help="Play random line-ups with the compiled player.")
@click.option("--max-steps", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Stop a game after this many decisions (recorded as unfinished).")
@click.option("-o", "--output", type=OutputPath(folder=True), default=Path("tune"),
              show_default=True, help="Folder of the study (study.db), its trials and tune.md.")
def tune_command(game_name: str, objective_texts: tuple[str, ...], search_texts: tuple[str, ...],
                 option_texts: tuple[str, ...], trials: int, games: int, players: int | None,
                 bots: str, seed: int, workers: int, compiled: bool, max_steps: int,
                 output: Path) -> None:
    """Search GAME's options for the variant closest to the objectives, then re-measure it.

    Each trial plays a batch under options the study picks; its score is the distance to
    satisfying every objective. The study is kept in OUTPUT/study.db (run again to resume);
    OUTPUT/tune.md lists the best variants with their metrics and 95% intervals, and says
    whether each objective holds, fails or is undecided for the best one on fresh seeds.
    """
    from geomsim import tune
    from geomsim.analysis import resolve_game

    try:
        import optuna  # noqa: F401
    except ImportError:
        raise UserError("geomsim tune needs optuna: pip install 'geomsim[tune]'") from None

    base = _batch_from_options(game_name, players, bots, games, seed, None, False, max_steps,
                               compiled, option_texts, None)
    game = resolve_game(game_name)
    try:
        objectives = [tune.parse_objective(t) for t in objective_texts]
        searches = [tune.parse_search(game, t) for t in search_texts]
    except DataError as e:
        raise UserError(str(e)) from None
    output.mkdir(parents=True, exist_ok=True)
    pool = local_pool(workers)

    def play(batch: Batch, folder: Path) -> list[dict[str, object]]:
        folder.mkdir(parents=True, exist_ok=True)
        return run_batch(batch, folder, pool, progress=False)

    try:
        study = tune.tune(game, base, objectives, searches, trials, output, play, seed)
        best = tune.best_trials(study, 1)[0]
        fresh = tune.remeasure(base, best.user_attrs["options"], play, output)
    except (DataError, ValueError) as e:
        raise UserError(str(e)) from None
    except Interrupted:
        click.echo(f"geomsim: interrupted: the study in {output} resumes when run again", err=True)
        raise click.exceptions.Exit(130) from None
    except Stopped as e:
        raise UserError(f"{e.reason}; the study in {output} resumes when run again") from None
    finally:
        pool.close()
    found = tune.report(game.name, objectives, study, fresh)
    tune.write_report(output, found)
    click.echo(tune.report_markdown(found))
    click.echo(f"wrote {output}/tune.md, tune.json ({output}/study.db holds the study)")

"""Batch analysis speed: games per second with 1 and 2 local workers for each installed game,
and the overhead of a Dask cluster over local processes.

    .venv/bin/python benchmarks/bench_analysis.py                 # every game that loads
    .venv/bin/python benchmarks/bench_analysis.py --games anasazi --bots greedy --seconds 20

Each batch goes through `geomsim.analysis.run_batch` (rows written to a temporary folder, as
`geomsim analyze` does). Pools are started and warmed up (one task per worker) before the clock
starts, so the figures are steady-state rates; pool start-up times are printed apart.
The number of games per batch is chosen so that one worker takes about `--seconds`.
Target: 2 workers >= 1.8 x one worker for Anasazi (on 2 otherwise idle cores).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import geomsim
from geomsim.analysis import Batch, Pool, dask_pool, lineup_of, local_pool, run_batch, run_games


def timed_batch(batch: Batch, pool: Pool, chunk: int | None = None) -> float:
    """Wall seconds to play `batch` on `pool` (rows written to a temporary folder)."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        run_batch(batch, Path(out), pool, chunk=chunk, progress=False)
        return time.perf_counter() - start


def warm(pool: Pool, batch: Batch, workers: int) -> None:
    """Run one game per worker so imports and caches are paid before timing."""
    futures = [pool.executor.submit(run_games, batch.game, batch.players,
                                    [(batch.seed + i, batch.lineup(batch.seed + i))], None,
                                    batch.max_steps) for i in range(workers)]
    for f in futures:
        f.result()


def started(make) -> tuple[Pool, float]:
    start = time.perf_counter()
    pool = make()
    return pool, time.perf_counter() - start


def size_batch(game: str, players: int, bots: tuple[str, ...], seconds: float) -> Batch:
    """A batch that one worker plays in about `seconds` (probed for at least 0.5 s)."""
    timed_batch(Batch(game, players, bots, seed=20_000, games=1), local_pool(1))  # imports
    probe, spent = 1, 0.0
    while spent < 0.5:
        probe *= 2
        spent = timed_batch(Batch(game, players, bots, seed=10_000, games=probe), local_pool(1))
    games = max(8, int(seconds * probe / spent))
    return Batch(game, players, bots, seed=0, games=games)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished (joined) children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def bench_game(name: str, players: int, bots: list[str], seconds: float, dask: bool) -> None:
    """Print one row: 1 and 2 local workers (automatic chunks); then Dask if asked.

    CPU per game counts the main process and the workers (joined at the end), so it holds
    on a loaded machine too; 2 x (CPU per game, 1 worker) / (CPU per game, 2 workers) is the
    speed-up that 2 idle cores would give.
    """
    lineup = lineup_of(bots, players)
    batch = size_batch(name, players, lineup, seconds)
    cpu = cpu_seconds()
    one = timed_batch(batch, local_pool(1))
    cpu1 = (cpu_seconds() - cpu) / batch.games
    cpu = cpu_seconds()
    pool, start2 = started(lambda: local_pool(2))
    warm(pool, batch, 2)
    two = timed_batch(batch, pool)
    pool.close()
    cpu2 = (cpu_seconds() - cpu) / (batch.games + 2)
    pool = local_pool(2)
    warm(pool, batch, 2)
    single = timed_batch(batch, pool, chunk=1)
    pool.close()
    rate1, rate2 = batch.games / one, batch.games / two
    print(f"| {name} | {players} | {','.join(bots)} | {batch.games} | {rate1:,.1f} | {rate2:,.1f} | "
          f"{rate2 / rate1:.2f} | {1000 * cpu1:.2f} | {1000 * cpu2:.2f} | "
          f"{min(2.0, 2 * cpu1 / cpu2):.2f} | {batch.games / single:,.1f} | {1000 * start2:.0f} |")
    if dask:
        bench_dask(batch, {None: two, 1: single})


def bench_dask(batch: Batch, local: dict[int | None, float]) -> None:
    """Dask with one game a task and with automatic chunks, against local processes alike."""
    from distributed import LocalCluster

    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    pool = dask_pool(cluster.scheduler_address)
    up = time.perf_counter() - start
    warm(pool, batch, 2)
    for size in (None, 1):
        wall = timed_batch(batch, pool, chunk=size)
        DASK_ROWS.append(f"| {batch.game} | {size or 'auto'} | {batch.games / wall:,.1f} | "
                         f"{batch.games / local[size]:,.1f} | {wall / local[size]:.2f} | {up:.1f} |")
    pool.close()
    cluster.close()


DASK_ROWS: list[str] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(geomsim.list_games()),
                        help="comma-separated game names (default: all installed)")
    parser.add_argument("--bots", default="random", help="bots, as for geomsim analyze")
    parser.add_argument("--players", type=int, default=None, help="default: each game's maximum")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="length of the one-worker batch (default 10)")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask comparison")
    args = parser.parse_args()
    try:
        import distributed  # noqa: F401
        dask = not args.no_dask
    except ImportError:
        dask = False
        print("(Dask is not installed: pip install 'geomsim[distributed]' to compare it)")
    print(f"cores available: {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
    print("| game | players | bots | games | 1 worker games/s | 2 workers games/s | speed-up | "
          "CPU ms/game, 1 worker | CPU ms/game, 2 workers | speed-up on 2 idle cores | "
          "2 workers, 1 game a task, games/s | pool start ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.games.split(","):
        try:
            game = geomsim.load_game(name)
        except Exception as e:
            print(f"| {name} | cannot load: {type(e).__name__}: {e} |")
            continue
        bench_game(name, args.players or game.max_players, args.bots.split(","), args.seconds,
                   dask)
    if DASK_ROWS:
        print("\nDask LocalCluster (2 worker processes, 1 thread each) against 2 local processes:")
        print("| game | games/task | Dask games/s | local games/s | Dask time / local | cluster start s |")
        print("|---|---:|---:|---:|---:|---:|")
        print("\n".join(DASK_ROWS))
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

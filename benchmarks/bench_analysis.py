"""Batch analysis speed: games per second with 1 and 2 local workers for each installed game,
and the overhead of a Dask cluster over local processes.

    .venv/bin/python benchmarks/bench_analysis.py                 # every game that loads
    .venv/bin/python benchmarks/bench_analysis.py --games anasazi --bots greedy --seconds 8
    .venv/bin/python benchmarks/bench_analysis.py --games anasazi --dask-only --per-thread 2,4,8

Each batch goes through `geomsim.analysis.run_batch` (rows written to a temporary folder, as
`geomsim analyze` does). Pools are started and warmed up (one game per worker) before the clock
starts, so rates are steady-state; pool start-up is printed apart. One worker plays a batch in
about `--seconds`; configurations alternate `--repeat` times and the best rate of each is kept
(the machine is shared: the best run is the least disturbed one).

CPU per game counts this process and its workers (joined at the end), so it is meaningful on a
loaded machine too; 2 x CPU(1 worker) / CPU(2 workers) is the speed-up 2 idle cores would give
(the CPU of this process — dispatch, rows, JSON — is the batch machinery's own cost).
Targets: 2 workers >= 1.8 x one worker for Anasazi; Dask <= 1.10 x the time of local
processes on one-game tasks of about 80 ms (Anasazi, 4 random players, on this machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import geomsim
from geomsim.analysis import (
    DASK_TASKS_PER_THREAD,
    Batch,
    Pool,
    dask_pool,
    local_pool,
    run_batch,
    run_games,
)
from geomsim.batch import lineup_of


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


def cpu_seconds() -> tuple[float, float]:
    """CPU time of this process, and of its finished (joined) children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def size_batch(game: str, players: int, bots: tuple[str, ...], seconds: float) -> Batch:
    """A batch that one worker plays in about `seconds` (probed for at least 0.5 s)."""
    timed_batch(Batch(game, players, bots, seed=20_000, games=1), local_pool(1))  # imports
    probe, spent = 1, 0.0
    while spent < 0.5:
        probe *= 2
        spent = timed_batch(Batch(game, players, bots, seed=10_000, games=probe), local_pool(1))
    return Batch(game, players, bots, seed=0, games=max(8, int(seconds * probe / spent)))


def cpu_per_game(batch: Batch, workers: int) -> tuple[float, float]:
    """CPU seconds per game of this process and of the workers (a fresh pool, then joined)."""
    main, kids = cpu_seconds()
    pool = local_pool(workers)
    timed_batch(batch, pool)
    pool.close()
    main_after, kids_after = cpu_seconds()
    return (main_after - main) / batch.games, (kids_after - kids) / batch.games


def bench_game(name: str, players: int, bots: list[str], seconds: float, repeat: int,
               dask: bool, per_thread: Sequence[int], dask_only: bool) -> None:
    """Print one row: 1 and 2 local workers (automatic chunks and one game a task)."""
    batch = size_batch(name, players, lineup_of(bots, players), seconds)
    if dask_only:
        bench_dask(batch, repeat, per_thread)
        return
    start = time.perf_counter()
    two = local_pool(2)
    started = time.perf_counter() - start
    warm(two, batch, 2)
    best = {"1": 0.0, "2": 0.0, "2, 1 a task": 0.0}
    for _ in range(repeat):
        best["1"] = max(best["1"], batch.games / timed_batch(batch, local_pool(1)))
        best["2"] = max(best["2"], batch.games / timed_batch(batch, two))
        best["2, 1 a task"] = max(best["2, 1 a task"], batch.games / timed_batch(batch, two, 1))
    two.close()
    cpu1 = sum(cpu_per_game(batch, 1))
    main2, workers2 = cpu_per_game(batch, 2)
    cpu2 = main2 + workers2
    print(f"| {name} | {players} | {','.join(bots)} | {batch.games} | {best['1']:,.1f} | "
          f"{best['2']:,.1f} | {best['2'] / best['1']:.2f} | {1000 * cpu1:.2f} | "
          f"{1000 * cpu2:.2f} | {1000 * main2:.3f} | {min(2.0, 2 * cpu1 / cpu2):.2f} | "
          f"{best['2, 1 a task']:,.1f} | {1000 * started:.0f} |", flush=True)
    if dask:
        bench_dask(batch, repeat, per_thread)


DASK_ROWS: list[str] = []


def bench_dask(batch: Batch, repeat: int, per_thread: Sequence[int]) -> None:
    """Dask (2 worker processes) against 2 local processes, alternated `repeat` times: median
    rates, and the median of each round's Dask time over its local time; Dask keeping each of
    `per_thread` tasks per worker thread in flight (`Pool.capacity`)."""
    from distributed import LocalCluster

    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    dask = dask_pool(cluster.scheduler_address)
    up = time.perf_counter() - start
    local = local_pool(2)
    warm(dask, batch, 2)
    warm(local, batch, 2)
    pools = {"local": local, **{f"dask {k}": replace(dask, capacity=2 * k) for k in per_thread}}
    for chunk in (None, 1):
        seconds: dict[str, list[float]] = {name: [] for name in pools}
        for _ in range(repeat):
            for name, pool in pools.items():
                seconds[name].append(timed_batch(batch, pool, chunk))
        rate = {name: batch.games / statistics.median(t) for name, t in seconds.items()}
        tasks = batch.games if chunk == 1 else None
        for k in per_thread:
            dask_rate = rate[f"dask {k}"]
            # Each round's Dask time over the local time of the same round: the load of a
            # shared machine drifts between rounds more than within one.
            ratio = statistics.median(d / s for d, s in zip(seconds[f"dask {k}"], seconds["local"]))
            extra = ("" if tasks is None else
                     f"{1000 * (1 / dask_rate - 1 / rate['local']) * batch.games / tasks:+.2f}")
            DASK_ROWS.append(f"| {batch.game} | {chunk or 'auto'} | {k} | {dask_rate:,.1f} | "
                             f"{rate['local']:,.1f} | {ratio:.2f} | {extra} | {up:.1f} |")
    local.close()
    dask.close()
    cluster.close()


def bench_latency(latency: float, seconds: float, repeat: int, per_thread: Sequence[int]) -> None:
    """Dask against local processes on tasks that wait `latency` seconds each (about `seconds`
    of waiting in all): what is left is the cost of scheduling, not of computing."""
    os.environ["GEOMSIM_TEST_SLOW"] = str(latency)  # read by the workers as they start
    batch = Batch("tests.test_analysis:SLOW_BID", 2, ("random", "random"),
                  games=max(8, int(seconds / latency)))
    print(f"load average {os.getloadavg()[0]:.1f}; {batch.games} games sleeping {latency} s each")
    bench_dask(batch, repeat, per_thread)
    print("| game | games/task | tasks in flight per thread | Dask games/s | local games/s | "
          "Dask time / local | extra ms per task | cluster start s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(DASK_ROWS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(geomsim.list_games()),
                        help="comma-separated game names (default: all installed)")
    parser.add_argument("--bots", default="random", help="bots, as for geomsim analyze")
    parser.add_argument("--players", type=int, default=None, help="default: each game's maximum")
    parser.add_argument("--seconds", type=float, default=4.0,
                        help="length of a one-worker batch (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each configuration")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask comparison")
    parser.add_argument("--dask-only", action="store_true", help="only the Dask comparison")
    parser.add_argument("--per-thread", default=f"2,{DASK_TASKS_PER_THREAD}",
                        help="Dask tasks in flight per worker thread to compare "
                             f"(default 2,{DASK_TASKS_PER_THREAD}: the old and the current cap)")
    parser.add_argument("--latency", type=float, default=None, metavar="SECONDS",
                        help="instead of real games, compare Dask on one-game tasks that sleep "
                             "SECONDS (the tests' slowed toy game; run from the project folder "
                             "with PYTHONPATH=.): scheduling round trips without CPU contention")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.seconds, args.repeat, args.no_dask = "cibola", 0.2, 1, True
    if args.latency is not None:
        bench_latency(args.latency, args.seconds, args.repeat,
                      [int(k) for k in args.per_thread.split(",")])
        return
    try:
        import distributed  # noqa: F401
        dask = not args.no_dask
    except ImportError:
        dask = False
        print("(Dask is not installed: pip install 'geomsim[distributed]' to compare it)")
    print(f"cores available: {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
    print("| game | players | bots | games | 1 worker games/s | 2 workers games/s | speed-up | "
          "CPU ms/game, 1 worker | CPU ms/game, 2 workers | of which main process | "
          "speed-up on 2 idle cores | 2 workers, 1 game a task, games/s | pool start ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.games.split(","):
        try:
            game = geomsim.load_game(name)
        except Exception as e:
            print(f"| {name} | cannot load: {type(e).__name__}: {e} |")
            continue
        bench_game(name, args.players or game.max_players, args.bots.split(","), args.seconds,
                   args.repeat, dask, [int(k) for k in args.per_thread.split(",")],
                   args.dask_only)
    if DASK_ROWS:
        print("\nDask LocalCluster (2 worker processes, 1 thread each) against 2 local processes:")
        print("| game | games/task | tasks in flight per thread | Dask games/s | local games/s | "
              "Dask time / local | extra ms per task | cluster start s |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(DASK_ROWS))
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

"""Where a Dask task's cost goes: CPU per one-game task of each process of a Dask cluster started
as a user of ``geomsim analyze --scheduler`` starts one, against two local processes.

    python benchmarks/bench_dask_costs.py                                # 4 random players
    python benchmarks/bench_dask_costs.py --bots greedy:16,random --rounds 24

The cluster is ``dask scheduler`` and ``dask worker --nworkers 2 --nthreads 1`` (two workers,
each with its nanny), on this machine. Rounds alternate: local processes, Dask with Dask's own
housekeeping periods, Dask with geomsim's batch periods (`geomsim.dask_workers`); each plays
`--games` games of one game a task through `run_batch`, on seeds no other variant plays (a
process keeps the setups of the seeds it played last). Printed: median wall time of a round,
CPU ms a game of each part (the client is this process: it also writes the rows), and each Dask
variant's time over the local time of the same round. Target (issue #14): Dask <= 1.10 x local
on one-game tasks of about 80 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psutil

from geomsim.analysis import dask_pool, local_pool, run_batch
from geomsim.batch import Batch, lineup_of
from geomsim.dask_workers import BATCH_PERIODS_MS

DASK_PERIODS_MS = {"tick": 20, "memory_monitor": 100, "monitor": 500}  # Dask's defaults


def set_periods(periods: dict[str, float], dask_worker: Any) -> None:
    """Set the housekeeping periods of a worker or a nanny (run there by `client.run`)."""
    for name, period in periods.items():
        dask_worker.periodic_callbacks[name].callback_time = period


def start_cluster(folder: Path) -> tuple[subprocess.Popen, subprocess.Popen, str]:
    """A scheduler and two one-thread workers in processes of their own, as a user starts them."""
    file = folder / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    module = [sys.executable, "-m"]
    scheduler = subprocess.Popen([*module, "distributed.cli.dask_scheduler", "--scheduler-file",
                                  str(file), "--no-dashboard", "--port", "0"], **quiet)
    while not file.exists() or not file.read_text().strip().endswith("}"):
        time.sleep(0.1)
    address = json.loads(file.read_text())["address"]
    workers = subprocess.Popen([*module, "distributed.cli.dask_worker", address, "--nworkers",
                                "2", "--nthreads", "1", "--no-dashboard"], **quiet)
    return scheduler, workers, address


def cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


class Meter:
    """CPU seconds so far of this process, the scheduler, the nannies, the workers' event loops
    and their other threads (the task's), and the local pool's processes."""

    def __init__(self, scheduler: int, workers: int, local_pids: set[int]) -> None:
        self.me, self.scheduler = psutil.Process(), psutil.Process(scheduler)
        nannies = psutil.Process(workers)  # `dask worker --nworkers 2` hosts both nannies
        spawned = [p for p in nannies.children(recursive=True)
                   if "spawn_main" in " ".join(p.cmdline())]
        self.nannies = [nannies] + [p for p in nannies.children(recursive=True)
                                    if p not in spawned]
        self.workers = spawned
        self.local = [psutil.Process(pid) for pid in local_pids]

    def read(self) -> dict[str, float]:
        loops = tasks = 0.0
        for worker in self.workers:
            for thread in worker.threads():
                spent = thread.user_time + thread.system_time
                if thread.id == worker.pid:
                    loops += spent
                else:
                    tasks += spent
        return {"client": cpu(self.me), "scheduler": cpu(self.scheduler),
                "nannies": sum(map(cpu, self.nannies)), "worker loops": loops,
                "worker tasks": tasks, "local workers": sum(map(cpu, self.local))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="random", help="as for geomsim analyze")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=30, help="games a round")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--smoke", action="store_true",
                        help="one round of two games, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.rounds, args.games = 1, 2
    bots = lineup_of(args.bots.split(","), args.players)
    with tempfile.TemporaryDirectory() as folder:
        scheduler, workers, address = start_cluster(Path(folder))
        try:
            dask, local = dask_pool(address), local_pool(2)
            client = dask.executor._client
            client.wait_for_workers(2, timeout=60)
            for pool in (dask, local):
                pool.executor.submit(sum, [1]).result()
            meter = Meter(scheduler.pid, workers.pid,
                          set(getattr(local.executor, "_processes", {})))
            seconds: dict[str, list[float]] = defaultdict(list)
            spent: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
            variants = {"local": None, "dask, Dask's periods": DASK_PERIODS_MS,
                        "dask, batch periods": BATCH_PERIODS_MS}
            for round_ in range(args.rounds):
                order = list(variants) if round_ % 2 == 0 else list(variants)[::-1]
                for name in order:
                    # Seeds of their own: a worker keeps the setups of its last 16 seeds, so
                    # a variant playing seeds another just played would skip their layouts.
                    first = 5000 + (round_ * len(variants) + list(variants).index(name)) * args.games
                    batch = Batch("anasazi", args.players, bots, seed=first, games=args.games)
                    periods = variants[name]
                    if periods is not None:
                        client.run(set_periods, periods)
                        client.run(set_periods, periods, nanny=True)
                    with tempfile.TemporaryDirectory() as out:
                        before, start = meter.read(), time.perf_counter()
                        run_batch(batch, Path(out), local if periods is None else dask, chunk=1,
                                  progress=False)
                        seconds[name].append(time.perf_counter() - start)
                        after = meter.read()
                    for part in before:
                        spent[name][part].append(1000 * (after[part] - before[part]) / args.games)
            report(seconds, spent, args)
            dask.close()
            local.close()
        finally:
            workers.terminate()
            workers.wait()
            scheduler.terminate()
            scheduler.wait()


def report(seconds: dict[str, list[float]], spent: dict[str, dict[str, list[float]]],
           args: argparse.Namespace) -> None:
    parts = list(next(iter(spent.values())))
    print(f"anasazi, {args.players} players, {args.bots}; {args.rounds} rounds of {args.games} "
          f"one-game tasks; CPU ms a game, medians over rounds\n")
    print("| variant | round s | " + " | ".join(parts) + " | all | time / local (quartiles) |")
    print("|---|---:|" + "---:|" * (len(parts) + 2))
    for name, walls in seconds.items():
        ratios = [w / l for w, l in zip(walls, seconds["local"])]
        low, mid, high = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        totals = [sum(values) for values in zip(*spent[name].values())]
        print(f"| {name} | {statistics.median(walls):.2f} | "
              + " | ".join(f"{statistics.median(spent[name][p]):.1f}" for p in parts)
              + f" | {statistics.median(totals):.1f} | {mid:.3f} ({low:.3f}-{high:.3f}) |")


if __name__ == "__main__":
    main()

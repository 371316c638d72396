"""What a geomsim batch changes on the Dask workers it plays on, for as long as it plays.

Two defaults of a Dask worker cost geomsim's games, which are pure Python over many small
numpy and shapely objects, 9-15% more of the worker's CPU a game (benchmarks/README.md, "Dask:
what a worker costs"): the sampling profiler, which walks the stack of the running task every
10 ms for the dashboard's profile page, and the `MALLOC_TRIM_THRESHOLD_=65536` a Nanny gives
its worker so that freed memory goes back to the system at once. `BatchWorkers` pauses the
one and raises the other while a batch runs, and puts both back when the batch ends (a batch
killed with SIGKILL cannot: the worker keeps them until it restarts).

The housekeeping of an idle worker and of its nanny takes about 2% of a core each: the
event-loop tick every 20 ms, the memory monitor every 100 ms, the system monitor every 500 ms
("Dask: one game a task, where the cost goes", benchmarks/README.md). On cores the games
need, `BatchWorkers` and `BatchNannies` run them at `BATCH_PERIODS_MS` instead, and give the
old periods back at the end.

Only `geomsim.analysis.dask_pool` imports this module (Dask is an optional extra).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Any

from distributed import NannyPlugin, WorkerPlugin
from distributed.core import Status

M_TRIM_THRESHOLD = -1  # mallopt's parameter (glibc's malloc.h)
BATCH_TRIM_THRESHOLD = 32 * 1024 * 1024  # the largest glibc's own sliding threshold reaches
GLIBC_TRIM_THRESHOLD = 128 * 1024  # glibc's default, where no environment variable sets one
# Periods of a batch's housekeeping, in ms (Dask's defaults: 20, 100, 500). The tick still
# notices a loop blocked for Dask's 3 s limit; memory limits are still enforced, at most
# 0.5 s late.
BATCH_PERIODS_MS = {"tick": 500, "memory_monitor": 500, "monitor": 2000}


def _slow_housekeeping(server: Any) -> dict[str, float]:
    """Set the periodic callbacks of `server` (a Worker or Nanny) named in `BATCH_PERIODS_MS`
    to those periods; return the periods they had."""
    kept = {}
    for name, period in BATCH_PERIODS_MS.items():
        callback = server.periodic_callbacks.get(name)
        if callback is not None:
            kept[name] = callback.callback_time
            callback.callback_time = max(period, callback.callback_time)
    return kept


def _restore_housekeeping(server: Any, kept: dict[str, float]) -> None:
    """Give the periodic callbacks of `server` the periods `_slow_housekeeping` returned."""
    for name, period in kept.items():
        callback = server.periodic_callbacks.get(name)
        if callback is not None:
            callback.callback_time = period


def _mallopt() -> Any:
    """glibc's `mallopt`, or None (another C library, or none found)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "mallopt", None) if name else None
    except OSError:
        return None


def _trim_threshold_of_environment() -> int:
    """The trim threshold this worker process started with."""
    try:
        return int(os.environ.get("MALLOC_TRIM_THRESHOLD_", GLIBC_TRIM_THRESHOLD))
    except ValueError:
        return GLIBC_TRIM_THRESHOLD


class BatchWorkers(WorkerPlugin):
    """Pause the worker's sampling profiler, keep freed memory (up to 32 MiB) in the process
    and slow its housekeeping while a geomsim batch runs; put all back at teardown."""

    name = "geomsim-batch"

    def setup(self, worker: Any) -> None:
        """Called on every worker, now and as workers join."""
        profiler = worker.periodic_callbacks.get("profile")
        self._profiling = profiler is not None and profiler.is_running()
        if self._profiling:
            profiler.stop()
        mallopt = _mallopt()
        if mallopt is not None:
            mallopt(M_TRIM_THRESHOLD, BATCH_TRIM_THRESHOLD)
        self._periods = _slow_housekeeping(worker)

    def teardown(self, worker: Any) -> None:
        """Called when the batch unregisters the plugin (or the worker closes)."""
        profiler = worker.periodic_callbacks.get("profile")
        if getattr(self, "_profiling", False) and profiler is not None \
                and worker.status == Status.running:
            profiler.start()
        mallopt = _mallopt()
        if mallopt is not None:
            mallopt(M_TRIM_THRESHOLD, _trim_threshold_of_environment())
        _restore_housekeeping(worker, getattr(self, "_periods", {}))


class BatchNannies(NannyPlugin):
    """Slow the housekeeping of each worker's nanny while a geomsim batch runs."""

    name = "geomsim-batch-nannies"

    def setup(self, nanny: Any) -> None:
        """Called on every nanny, now and as nannies join."""
        self._periods = _slow_housekeeping(nanny)

    def teardown(self, nanny: Any) -> None:
        """Called when the batch unregisters the plugin (or the nanny closes)."""
        _restore_housekeeping(nanny, getattr(self, "_periods", {}))

"""Batches of games: `geomsim analyze`.

A batch plays games ``seed, seed + 1, ...`` of one game with a line-up of bots, on any
`concurrent.futures.Executor`: in-process (``--workers 1``), local processes (the default) or a
Dask cluster (``--scheduler ADDRESS``, needs ``pip install geomsim[distributed]``).

Files in the output folder:
- ``batch.json``: the batch's parameters (checked when resuming);
- ``games.jsonl``: one row per game (`GameResult.to_row`), appended and flushed as each game
  finishes, so an interrupted batch keeps its rows; when the batch completes the file is
  rewritten sorted by seed, so a finished file is the same whatever the workers;
- ``summary.json``, ``summary.md``, ``analysis.png``: win rates by seat and by bot with Wilson
  95% intervals, score distributions, game length and the game's figures, computed from the rows
  sorted by seed (independent of completion order).

Reproducibility: game i uses seed S + i for its setup, and each seat's bot draws from a stream
derived from that seed (`geomsim.bots.bot_rngs`), so rows do not depend on the number of workers
or on the order in which games finish (only their ``seconds`` does).
"""

from __future__ import annotations

import importlib
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from geomsim import stats
from geomsim.batch import Batch
from geomsim.bots import make_bot, play_compiled, play_game, versions_of
from geomsim.compiled import load_compiled
from geomsim.errors import InputError
from geomsim.files import WriteError, read_bytes, write_error, write_text
from geomsim.moved import moved
from geomsim.reading import read_input
from geomsim.registry import load_game
from geomsim.rules import Game

ROWS = "games.jsonl"
BATCH = "batch.json"
MAX_ROW_BYTES = 1 << 20  # a row is a few hundred bytes: a longer line is not a row

# Moved to geomsim.stats; importable from here, with a DeprecationWarning, until the next release.
_MOVED_TO_STATS = frozenset({"Z95", "wilson", "describe", "Summary", "summarize", "summary_markdown"})


def __getattr__(name: str) -> Any:
    """The names that moved (statistics to `geomsim.stats`, `lineup_of` to `geomsim.batch`,
    the command to `geomsim.cli.analyze`), still found here for one release."""
    if name in _MOVED_TO_STATS:
        warnings.warn(f"geomsim.analysis.{name} moved to geomsim.stats.{name}; import it from "
                      "there (the old name goes in the next release)", DeprecationWarning,
                      stacklevel=2)
        return getattr(stats, name)
    if name == "lineup_of":
        from geomsim.batch import lineup_of

        return moved("geomsim.analysis.lineup_of", "geomsim.batch.lineup_of", lineup_of)
    if name == "analyze_command":
        from geomsim.cli.analyze import analyze_command

        return moved("geomsim.analysis.analyze_command", "geomsim.cli.analyze.analyze_command",
                     analyze_command)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- the batch -------------------------------------------------------------------------------------


def resolve_game(spec: str) -> Game:
    """The game registered as `spec`, or the `Game` object at ``module:attribute``."""
    if ":" not in spec:
        return load_game(spec)
    module, _, attribute = spec.partition(":")
    game = getattr(importlib.import_module(module), attribute)
    if not isinstance(game, Game):
        raise TypeError(f"{spec} is not a geomsim Game")
    return game


def batch_record(batch: Batch) -> dict[str, Any]:
    """What ``batch.json`` records: the batch's parameters and the versions that play it."""
    return {**batch.record(), "versions": versions_of(resolve_game(batch.game))}


class GameFailed(RuntimeError):
    """A game of the batch raised: the message names its seed."""


def run_games(game_spec: str, players: int, tasks: Sequence[tuple[int, Sequence[str]]],
              start: str | None, max_steps: int, compiled: bool = False, by_turn: bool = False,
              options: Mapping[str, Any] | None = None, deals: Mapping[int, int] | None = None
              ) -> list[dict[str, Any]]:
    """Play the games `tasks` = [(seed, line-up)] and return their rows (a worker's task);
    `compiled`: by the game's compiled random player (`geomsim.bots.play_compiled`);
    `by_turn`: each line-up lists the bots by turn position, not by seat; `options`: the rule
    options of each new game; `deals`: the seed of each game's setup (`Batch.deal`, a
    ladder's paired seeds), its decisions timed. Bots from outside geomsim
    (``package.module:callable``) are seated: the command that made the batch checked its specs.

    A top-level function of picklable arguments, so it runs in spawned processes and on Dask.
    """
    game = resolve_game(game_spec)
    first = None if start is None else game.state_from_json(start)
    rows = []
    for seed, bots in tasks:
        try:
            if compiled:  # loaded before the first game: no game's seconds count the load
                ready_compiled(game, players)
            result = (play_compiled(game, players, seed, first, options) if compiled
                      else play_game(game, players, [make_bot(b, game, outside=True) for b in bots],
                                     seed, first, max_steps, by_turn=by_turn, options=options,
                                     deal=None if deals is None else deals[seed],
                                     timed=deals is not None))
            rows.append(result.to_row())
        except Exception as e:
            raise GameFailed(f"game of seed {seed} ({', '.join(bots)}): "
                             f"{type(e).__name__}: {e}") from None
    return rows


# The games whose compiled player this process has compiled or loaded (the objects: two games
# may share a name, as a test's variant of a game does).
_READY: weakref.WeakSet[Game] = weakref.WeakSet()


def ready_compiled(game: Game, players: int) -> None:
    """Compile `game`'s compiled random player in this process, or load it from numba's cache,
    once: before a pool starts its workers (the line saying it compiles is written once, and the
    workers load the cache), and in each worker before its first game (no game's seconds count
    the load)."""
    if game not in _READY:
        load_compiled(game, players)
        _READY.add(game)


# -- executors -------------------------------------------------------------------------------------


class InlineExecutor(Executor):
    """Runs each task at once in this process (``--workers 1``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as e:
            future.set_exception(e)
        return future


def _worker_init(parent: int) -> None:
    """Worker initializer: Ctrl-C is handled by the main process alone, SIGTERM (as `abandon`
    sends) ends the worker quietly, and the worker ends when the main process does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the batch's SIGTERM handler, which raises KeyboardInterrupt
    # and would print a worker's traceback.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # started with them held (`Pool.submit`)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    die_with_parent(parent)


def die_with_parent(parent: int, poll: float = 0.2) -> None:
    """End this process (`os._exit`) within `poll` seconds of process `parent` ending, also by
    SIGKILL, which no handler of the parent can catch (POSIX; elsewhere nothing is done).

    A watchdog thread sees the parent end as this process's parent pid changing (it is
    re-parented to init or a subreaper). Linux's parent-death signal (``PR_SET_PDEATHSIG``)
    is not used: it fires when the *thread* that forked the worker ends, and a pool's workers
    are forked by whichever thread first submits to it.
    """
    if os.name != "posix":
        return
    ppid = os.getppid()  # `parent` itself, or the fork server that started this worker
    try:
        os.kill(parent, 0)
    except ProcessLookupError:  # the parent ended before the watch began
        os._exit(1)
    except PermissionError:
        pass

    def watch() -> None:
        while os.getppid() == ppid:
            time.sleep(poll)
        os._exit(1)

    threading.Thread(target=watch, name="geomsim-parent-watch", daemon=True).start()


class PoolLost(Exception):
    """The workers or the scheduler of a batch are gone (killed, out of memory, no workers)."""


def _nothing() -> None:
    pass


def _no_reason(e: BaseException) -> None:
    return None


TASK_SECONDS = 0.1  # automatic chunks aim at tasks this long: scheduling costs stay below 1-2%


@dataclass
class Pool:
    """An executor, how many tasks to keep in flight on it, and how to stop it at once.

    `check` is called while waiting for tasks (every `CHECK_SECONDS`) and raises `PoolLost`
    when the pool can no longer finish them; `lost` says why the pool died when a task's
    result raised that exception (None: the task itself failed).
    """

    executor: Executor
    capacity: int
    close: Callable[[], None] = _nothing
    abandon: Callable[[], None] = _nothing
    check: Callable[[], None] = _nothing
    lost: Callable[[BaseException], str | None] = _no_reason
    task_seconds: float = TASK_SECONDS  # the play an automatic chunk packs into a task
    threads: int = 1  # tasks that run at once
    forks: bool = False  # its workers are forked from this process when the first task goes out
    processes: bool = False  # its workers are processes this one starts (when tasks go out)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """`executor.submit`; a pool that starts processes starts them with Ctrl-C and SIGTERM
        held (`_signals_held`)."""
        if not self.processes:
            return self.executor.submit(fn, *args)
        with _signals_held():
            return self.executor.submit(fn, *args)


_HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM in this thread while it may start workers: a worker starts with
    them held (pending, not lost) until its initializer has set its own handlers, instead of
    running this process's handlers (a KeyboardInterrupt raised in a worker just forked
    unwinds it through a copy of this process's stack)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


CHECK_SECONDS = 1.0
LOCAL_TASKS_PER_WORKER = 2  # a task queued behind the running one: no worker waits for the next
TAIL_TASKS_PER_THREAD = 2  # the last games of a batch go out in at least this many tasks a thread
DASK_TASKS_PER_THREAD = 8  # Dask needs more to hide its round trips (benchmarks/README.md)
DASK_TASK_SECONDS = 1.0  # a Dask task costs about 10-12 ms of CPU (client, scheduler, worker)


def local_pool(workers: int, mp_context: Any = None) -> Pool:
    """In-process for one worker, else a `ProcessPoolExecutor` of `workers` processes, which
    end with this process (`die_with_parent`)."""
    if workers <= 1:
        return Pool(InlineExecutor(), 1)
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=mp_context,
                                   initializer=_worker_init, initargs=(os.getpid(),))

    def abandon() -> None:
        # Running games are dropped (their seeds are redone on --resume), not waited for.
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()

    def lost(e: BaseException) -> str | None:
        return ("a worker process ended abruptly (killed, or out of memory)"
                if isinstance(e, BrokenProcessPool) else None)

    method = (mp_context or multiprocessing.get_context()).get_start_method()
    return Pool(executor, LOCAL_TASKS_PER_WORKER * workers, lambda: executor.shutdown(wait=True),
                abandon, lost=lost, threads=workers, forks=method == "fork", processes=True)


def dask_pool(address: str, worker_timeout: float = 30.0) -> Pool:
    """The executor of a Dask client connected to the scheduler at `address`.

    Waits up to `worker_timeout` seconds for a worker to join, and fails a batch whose cluster
    has had no worker that long, or whose scheduler is gone (`PoolLost`).
    """
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'geomsim[distributed]'") from None
    _quiet_dask()
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"--scheduler {address}: cannot connect: {e}") from None
    try:
        client.wait_for_workers(1, timeout=worker_timeout)
    except (TimeoutError, OSError):
        client.close()
        raise InputError(f"--scheduler {address}: no worker joined within {worker_timeout:g} s "
                         f"(start one with: dask worker {address})") from None
    threads = sum(client.nthreads().values()) or 1
    from geomsim.dask_workers import BatchNannies, BatchWorkers

    client.register_plugin(BatchWorkers())
    client.register_plugin(BatchNannies())
    executor = client.get_executor(pure=False)
    idle_since: list[float] = []

    def check() -> None:
        if client.status not in ("running", "connecting"):
            raise PoolLost(f"lost the Dask scheduler at {address}")
        if client.scheduler_info().get("workers"):
            idle_since.clear()
            return
        idle_since[:] = idle_since or [time.monotonic()]
        if time.monotonic() - idle_since[0] > worker_timeout:
            raise PoolLost(f"the Dask scheduler at {address} has had no worker for "
                           f"{worker_timeout:g} s")

    def release() -> None:
        # The workers get their profiler, memory trimming and housekeeping back, the nannies
        # their housekeeping (geomsim.dask_workers).
        if client.status == "running":
            try:
                client.unregister_worker_plugin(BatchWorkers.name)
                client.unregister_worker_plugin(BatchNannies.name, nanny=True)
            except Exception:  # a cluster going away: nothing left to put back
                pass
        client.close()

    def close() -> None:
        executor.shutdown(wait=True)
        release()

    def abandon() -> None:
        executor.shutdown(wait=False)
        release()

    def lost(e: BaseException) -> str | None:
        from concurrent.futures import CancelledError

        from distributed.scheduler import KilledWorker

        if isinstance(e, KilledWorker):
            return f"Dask workers died playing the same task again and again ({e})"
        if not isinstance(e, (CancelledError, OSError, TimeoutError)):
            return None
        if client.status != "running":
            return f"lost the Dask scheduler at {address}"
        return f"the Dask cluster at {address} lost a task ({type(e).__name__}: {e})"

    return Pool(executor, DASK_TASKS_PER_THREAD * threads, close, abandon, check, lost,
                DASK_TASK_SECONDS, threads)


def _quiet_dask() -> None:
    """Keep Dask's own logging (reconnection attempts, tracebacks of a lost scheduler) off the
    terminal: a batch reports a lost cluster in one line of its own."""
    import logging

    import distributed  # noqa: F401 (it sets up its loggers on import)

    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.startswith("distributed"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


# -- rows on disk ----------------------------------------------------------------------------------


def read_rows(path: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The complete rows of a ``games.jsonl``; a partly written last line is dropped.

    Every row is written as one line ending in a newline, so text after the last newline is a
    row cut short by a kill (NUL bytes at the end: blocks a power loss left unwritten). With
    `repair` the file is truncated to its complete rows, so that appending continues on a fresh
    line. A bad complete line (not JSON, not a row, a seed seen before) is an `InputError`
    naming the file and the line.
    """
    try:
        data = read_bytes(path, MAX_ROWS_BYTES)
    except FileNotFoundError:
        return []
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    end = data.rstrip(b"\0").rfind(b"\n") + 1
    rows: list[dict[str, Any]] = []
    lines: dict[int, int] = {}  # seed -> line
    for number, line in enumerate(data[:end].split(b"\n")[:-1], 1):
        if not line.strip():
            continue
        try:
            row = _parse_row(line)
            if row["seed"] in lines:
                raise ValueError(f"seed {row['seed']} is also the row of line {lines[row['seed']]}")
        except ValueError as e:
            raise InputError(f"{path}: line {number}: {e}") from None
        lines[row["seed"]] = number
        rows.append(row)
    if repair and end != len(data):
        try:
            with open(path, "r+b") as f:
                f.truncate(end)
        except OSError as e:
            raise write_error(path, e) from None
    return rows


MAX_ROWS_BYTES = 2**31  # a games.jsonl: a million rows of two kilobytes

ROW_FIELDS = {"game": str, "seed": int, "players": int, "bots": list, "scores": list,
              "winners": list, "length": int, "finished": bool}


def _parse_row(line: bytes) -> dict[str, Any]:
    """The row of one line of ``games.jsonl``; `ValueError` saying what is wrong with it (the
    fields the summary reads, and their types)."""
    if len(line) > MAX_ROW_BYTES:
        raise ValueError(f"{len(line):,} bytes, more than a row may have ({MAX_ROW_BYTES:,})")
    try:
        row = json.loads(line)
    except (ValueError, RecursionError):
        raise ValueError("not a JSON row") from None
    if not isinstance(row, dict):
        raise ValueError("not a JSON object (a row is one)")
    for name, kind in ROW_FIELDS.items():
        if name not in row:
            raise ValueError(f"the row has no {name!r}")
        value = row[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{name}: {value!r:.40} is not {'an' if kind is int else 'a'} "
                             f"{kind.__name__}")
    _check_seats(row)
    return row


def _check_seats(row: dict[str, Any]) -> None:
    """One bot and one finite score per player; winners among the players."""
    players = row["players"]
    if players < 1 or not (len(row["bots"]) == len(row["scores"]) == players):
        raise ValueError(f"players {players}: bots and scores must name one per player")
    if not all(isinstance(b, str) for b in row["bots"]):
        raise ValueError("bots: each is a bot spec (text)")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
               for x in row["scores"]):
        raise ValueError("scores: each is a finite number")
    if not all(type(w) is int and 0 <= w < players for w in row["winners"]):
        raise ValueError(f"winners: each is a player from 0 to {players - 1}")
    if not isinstance(row.get("figures", {}), dict):
        raise ValueError("figures: not a JSON object")


def _row_line(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, allow_nan=False) + "\n"


def write_sorted(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Rewrite the rows file sorted by seed, atomically."""
    write_text(path, "".join(_row_line(r) for r in sorted(rows, key=lambda r: r["seed"])))


# -- running ---------------------------------------------------------------------------------------


class Interrupted(Exception):
    """The batch was stopped by Ctrl-C or SIGTERM; `written` rows are on disk."""

    def __init__(self, written: int, total: int):
        self.written, self.total = written, total
        super().__init__(f"interrupted after {written} of {total} games")


MAX_CHUNK = 256


@dataclass
class _Chunker:
    """Cuts the seeds to play into tasks: `size` games each, or sized from the games played.

    Automatic sizing starts at one game a task and then packs about `task_seconds` of play
    into each, never so many that fewer than `slots` tasks remain for the workers at the end.
    """

    seeds: Sequence[int]
    slots: int
    size: int | None = None
    task_seconds: float = TASK_SECONDS
    played: int = 0
    seconds: float = 0.0

    @property
    def sized(self) -> bool:
        """Whether tasks are cut to their size yet (given, or learnt from a game played)."""
        return bool(self.size or self.played)

    def record(self, rows: Sequence[dict[str, Any]]) -> None:
        """Learn the time per game from finished rows."""
        self.played += len(rows)
        self.seconds += sum(r.get("seconds", 0.0) for r in rows)

    def __iter__(self) -> Iterator[list[int]]:
        i = 0
        while i < len(self.seeds):
            size = self.size or self._auto(len(self.seeds) - i)
            yield list(self.seeds[i:i + size])
            i += size

    def _auto(self, left: int) -> int:
        if not self.played:
            return 1
        per_game = max(self.seconds / self.played, 1e-6)
        return max(1, min(MAX_CHUNK, int(self.task_seconds / per_game), left // self.slots))


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Let SIGTERM (as sent by job schedulers) stop a batch as cleanly as Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    owner = os.getpid()

    def handler(signum: int, frame: Any) -> None:
        if os.getpid() != owner:
            # A worker forked while this handler was installed, terminated (`abandon`) before
            # its initializer reset it: raising here would unwind the worker through a copy of
            # this process's stack (the fork returns into `executor.submit`), and the copy would
            # go on running the caller's code (a second "interrupted" batch, test session...).
            # It ends as SIGTERM's default action would.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            os._exit(128 + signal.SIGTERM)  # not reached: SIGTERM ends the process first
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_batch(batch: Batch, out: Path, pool: Pool, resume: bool = False, chunk: int | None = None,
              progress: bool | None = None) -> list[dict[str, Any]]:
    """Play the batch's games into ``out/games.jsonl`` and return all its rows, sorted by seed.

    With `resume`, the complete rows already there are kept and only missing seeds are played;
    otherwise the file is started afresh. Rows are appended as games finish (and synced to the
    disk at least every `SYNC_SECONDS`); at the end the file is rewritten sorted by seed. Each
    task plays `chunk` games (None: sized automatically, see `_Chunker`). Raises `Interrupted`
    on Ctrl-C or SIGTERM, `Stopped` when the pool dies, a game raises or the rows cannot be
    written: pending games are cancelled, written rows kept.
    """
    from tqdm import tqdm

    path = out / ROWS
    rows = read_rows(path, repair=True) if resume else []
    _check_rows_fit(batch, rows, path)
    done = {r["seed"] for r in rows}
    todo = [s for s in batch.seeds() if s not in done]
    write_text(out / BATCH, json.dumps(batch_record(batch), indent=1) + "\n")
    if batch.compiled and pool.forks and todo:
        # Loaded once here, the compiled player is in every worker forked from this process;
        # else each worker loads numba and its cache (about a second of CPU each).
        with suppress(Exception):  # a player that cannot run fails in the workers, as a game
            ready_compiled(resolve_game(batch.game), batch.players)  # naming its seed
    bar = tqdm(total=batch.games, initial=batch.games - len(todo), unit="game", file=sys.stderr,
               disable=(not sys.stderr.isatty()) if progress is None else not progress,
               dynamic_ncols=True, smoothing=0.1)
    try:
        f = open(path, "a" if resume else "w", encoding="utf-8")
    except OSError as e:
        raise write_error(path, e) from None
    pending: set[Future[Any]] = set()
    try:
        with _sigterm_as_interrupt():
            chunker = _Chunker(todo, TAIL_TASKS_PER_THREAD * pool.threads, chunk, pool.task_seconds)
            _play(batch, pool, chunker, pending, f, rows, bar)
        _append(f, [], sync=True)
    except KeyboardInterrupt:
        _abandon(pool, pending)
        raise Interrupted(len(rows), batch.games) from None
    except (GameFailed, PoolLost, WriteError) as e:
        _abandon(pool, pending)
        raise Stopped(str(e), len(rows), batch.games) from None
    except BaseException:
        _abandon(pool, pending)
        raise
    finally:
        bar.close()
        with suppress(OSError):  # synced above, or failed already: the first error is reported
            f.close()
    write_sorted(path, rows)
    return sorted(rows, key=lambda r: r["seed"])


SYNC_SECONDS = 1.0  # a power loss costs at most the rows of about this long (redone on --resume)


def _play(batch: Batch, pool: Pool, chunker: _Chunker, pending: set[Future[Any]], f: Any,
          rows: list[dict[str, Any]], bar: Any) -> None:
    """Keep `pool.capacity` tasks in flight (one a thread until a game is timed: the first
    tasks are single games); append each finished task's rows to `f`."""
    work = iter(chunker)
    synced = time.monotonic()
    while True:
        for seeds in work:
            tasks = [(s, batch.lineup(s)) for s in seeds]
            deals = {s: batch.deal(s) for s in seeds} if batch.lineups else None
            pending.add(pool.submit(run_games, batch.game, batch.players, tasks,
                                    batch.start, batch.max_steps, batch.compiled,
                                    batch.rotate, dict(batch.options) or None, deals))
            if len(pending) >= (pool.capacity if chunker.sized else pool.threads):
                break
        if not pending:
            break
        finished, still = wait(pending, timeout=CHECK_SECONDS, return_when=FIRST_COMPLETED)
        pending.intersection_update(still)
        if not finished:
            pool.check()
        for future in finished:
            try:
                done_rows = future.result()
            except Exception as e:
                reason = pool.lost(e)
                if reason is None:
                    raise
                raise PoolLost(reason) from None
            _append(f, done_rows, sync=False)
            rows.extend(done_rows)
            chunker.record(done_rows)
            bar.update(len(done_rows))
        if time.monotonic() - synced > SYNC_SECONDS:
            _append(f, [], sync=True)
            synced = time.monotonic()


def _append(f: Any, rows: Sequence[dict[str, Any]], sync: bool) -> None:
    """Append rows to the open rows file, flushed (and with `sync` on the disk); a failure
    is a `WriteError` naming the file."""
    try:
        f.write("".join(_row_line(row) for row in rows))
        f.flush()  # the rows of a task finish together: in the file before the next wait
        if sync:
            os.fsync(f.fileno())
    except OSError as e:
        raise write_error(f.name, e) from None


def _abandon(pool: Pool, pending: set[Future[Any]]) -> None:
    for future in pending:
        future.cancel()
    pool.abandon()


def _check_rows_fit(batch: Batch, rows: Sequence[dict[str, Any]], path: Path) -> None:
    """Refuse to resume with a batch that would leave rows out: the rows, the summary and
    ``batch.json`` must describe the same games (a batch may grow, never shrink)."""
    seeds = batch.seeds()
    outside = [r["seed"] for r in rows if r["seed"] not in seeds]
    if outside:
        needed = max(outside) - batch.seed + 1
        raise InputError(f"{path} holds {len(rows)} games, up to seed {max(outside)}, more than "
                         f"this batch of {batch.games} from seed {batch.seed}: resume with --games "
                         f"{needed} or more, or start over with --force")


class Stopped(Exception):
    """The batch stopped before its end (a game failed, the pool died, a write failed);
    `written` rows are on disk and ``--resume`` continues."""

    def __init__(self, reason: str, written: int, total: int):
        self.reason, self.written, self.total = reason, written, total
        super().__init__(f"{reason}; {written} of {total} games are kept")


# -- plots -----------------------------------------------------------------------------------------


def plot_summary(summary: dict[str, Any], rows: Sequence[dict[str, Any]]) -> Any:
    """A figure of four panels: win rate by bot and by turn position (by player number for rows
    without their turn order), 95% CI; scores by bot; lengths."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 7.5), layout="constrained")
    axes = fig.subplots(2, 2)
    fig.suptitle(f"{summary['game']}: {summary['games']} games, {summary['players']} players")
    _rate_panel(axes[0, 0], summary["by_bot"], "bot", summary["even_chance"], "Win rate by bot")
    if summary.get("by_turn"):
        turns = [{**t, "label": f"{stats.ordinal(t['turn'] + 1)} to move"} for t in summary["by_turn"]]
        _rate_panel(axes[0, 1], turns, "label", summary["even_chance"], "Win rate by turn position")
    else:
        seats = [{**s, "label": f"player {s['seat']}"} for s in summary["by_seat"]]
        _rate_panel(axes[0, 1], seats, "label", summary["even_chance"], "Win rate by player number")
    _score_panel(axes[1, 0], summary, rows)
    _length_panel(axes[1, 1], rows)
    return fig


def _rate_panel(ax: Any, entries: Sequence[dict[str, Any]], key: str, even: float, title: str) -> None:
    x = np.arange(len(entries))
    rate = np.array([e["win_rate"] for e in entries])
    low = np.array([e["ci95"][0] for e in entries])
    high = np.array([e["ci95"][1] for e in entries])
    ax.bar(x, rate, color="#1f77b4", alpha=0.8)
    # Wilson's bounds may fall a rounding error inside a rate of 0 or 1.
    ax.errorbar(x, rate, yerr=np.maximum([rate - low, high - rate], 0.0), fmt="none",
                ecolor="black", capsize=4)
    ax.axhline(even, color="grey", linestyle="--", linewidth=1,
               label=f"even chance {stats.pct(even)}")
    ax.set_xticks(x, [f"{e[key]}\n{stats.pct(e['win_rate'])}" for e in entries])
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper right")


def _score_panel(ax: Any, summary: dict[str, Any], rows: Sequence[dict[str, Any]]) -> None:
    names = [b["bot"] for b in summary["by_bot"]]
    scores: dict[str, list[float]] = {n: [] for n in names}
    for r in rows:
        for s, name in enumerate(r["bots"]):
            scores[name].append(r["scores"][s])
    ax.boxplot([scores[n] for n in names], tick_labels=names)
    ax.set_ylabel("final score")
    ax.set_title("Scores by bot")


def _length_panel(ax: Any, rows: Sequence[dict[str, Any]]) -> None:
    from geomsim.plotting import whole_numbers

    lengths = np.array([r["length"] for r in rows])
    bins = np.arange(lengths.min(), lengths.max() + 2) - 0.5 if np.ptp(lengths) < 40 else 30
    ax.hist(lengths, bins=bins, color="#2ca02c", alpha=0.8)
    whole_numbers(ax.xaxis, ax.yaxis)
    ax.set_xlabel("actions per game")
    ax.set_ylabel("games")
    ax.set_title("Game length")


def write_summary(out: Path, rows: Sequence[dict[str, Any]], plot: bool = True) -> dict[str, Any]:
    """Write ``summary.json``, ``summary.md`` and (with `plot`) ``analysis.png``; return the summary."""
    summary = stats.summarize(rows)
    write_text(out / "summary.json", json.dumps(summary, indent=1, allow_nan=False) + "\n")
    write_text(out / "summary.md", stats.summary_markdown(summary))
    if plot and summary.get("games"):
        from geomsim.plotting import save

        save(plot_summary(summary, rows), out / "analysis.png")
    return summary


# -- scenarios -------------------------------------------------------------------------------------


def scenario_start(path: Path, game_spec: str) -> tuple[int, str]:
    """The players and the JSON of the state at the end of a scenario's steps (``--from``).

    The scenario's ``game`` is resolved like GAME (a registered name or ``module:attribute``)
    and must be the same game.
    """
    from geomsim.scenario import load_scenario

    try:
        scenario = load_scenario(path, load=resolve_game)
        state = scenario.state_at("end")
    except (ValueError, KeyError) as e:  # ScenarioError, IllegalAction: one line each
        raise InputError(f"--from {path}: {e}") from None
    game = resolve_game(game_spec)
    if scenario.game is not game and scenario.game.name != game.name:
        raise InputError(f"--from {path}: the scenario plays {scenario.game.name}, not {game.name}")
    if state.is_over():
        raise InputError(f"--from {path}: the game is already over at the end of the scenario")
    return scenario.players, state.to_json()


# -- resuming --------------------------------------------------------------------------------------


def check_resume(out: Path, batch: Batch, resume: bool, force: bool) -> None:
    """Refuse to mix batches: resume only the same batch; never overwrite rows unasked."""
    rows = out / ROWS
    if not resume:
        if rows.exists() and rows.stat().st_size and not force:
            raise InputError(f"{rows} already holds games: add --resume to continue that batch "
                              "or --force to start over")
        return
    recorded = out / BATCH
    if not recorded.exists():
        if rows.exists() and rows.stat().st_size:
            raise InputError(f"--resume: {recorded} is missing, cannot tell which batch {rows} holds")
        return
    old = read_input(recorded)
    if not isinstance(old, dict):
        raise InputError(f"{recorded}: line 1: not a batch record (a JSON object)")
    new = batch_record(batch)
    for key, value in new.items():
        if key not in ("games", "start_name") and old.get(key) != value:
            raise InputError(f"--resume: {out} holds another batch: {key} was {old.get(key)!r}, "
                              f"now {value!r}")

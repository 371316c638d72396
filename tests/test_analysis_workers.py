"""Local workers of a compiled batch (issue 30, two workers under load): forked workers inherit
the compiled random player the main process loaded once, instead of each loading numba and its
cache again."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from geomsim.analysis import Stopped, local_pool, run_batch
from geomsim.batch import Batch
from tests.toygames import GridGame

LOADS = "GEOMSIM_TEST_LOADS"
_loaded = False  # per process: whether this process "compiled" the player yet


class LoadOnceGrid(GridGame):
    """Tic-tac-toe whose compiled player writes the pid of each process that loads it (the
    first call in a process), as numba loads a kernel once per process."""

    def random_playouts(self, states, seed: int = 0):  # type: ignore[no-untyped-def]
        global _loaded
        if not _loaded:
            _loaded = True
            with open(os.environ[LOADS], "a") as f:
                f.write(f"{os.getpid()}\n")
        return super().random_playouts(states, seed)


LOAD_ONCE = LoadOnceGrid()
SPEC = "tests.test_analysis_workers:LOAD_ONCE"


def loads(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(f"{__name__}._loaded", False)
    monkeypatch.setenv(LOADS, str(tmp_path / "loads"))
    return tmp_path / "loads"


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_forked_workers_inherit_the_player_the_main_process_loaded(fresh: Path,
                                                                   tmp_path: Path) -> None:
    pool = local_pool(2, multiprocessing.get_context("fork"))
    rows = run_batch(Batch(SPEC, 2, ("random", "random"), games=8, compiled=True), tmp_path / "b",
                     pool, progress=False)
    pool.close()
    assert len(rows) == 8
    assert loads(fresh) == [os.getpid()]  # loaded here alone, not again in each worker


def test_only_a_forking_pool_has_the_player_loaded_first() -> None:
    """Spawned workers start afresh: loading the player here would only cost this process."""
    spawned = local_pool(2, multiprocessing.get_context("spawn"))
    assert not spawned.forks and not local_pool(1).forks
    spawned.close()


class BrokenGrid(GridGame):
    """Tic-tac-toe whose compiled player always fails."""

    def random_playouts(self, states, seed: int = 0):  # type: ignore[no-untyped-def]
        raise RuntimeError("no kernel here")


BROKEN = BrokenGrid()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_a_player_that_fails_to_load_stops_the_batch_naming_a_game(tmp_path: Path) -> None:
    pool = local_pool(2, multiprocessing.get_context("fork"))
    with pytest.raises(Stopped, match=r"game of seed [01] .*RuntimeError: no kernel here"):
        run_batch(Batch("tests.test_analysis_workers:BROKEN", 2, ("random", "random"), games=2,
                        compiled=True), tmp_path, pool, progress=False)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_a_process_forked_under_the_batch_sigterm_handler_ends_by_sigterm() -> None:
    """A worker is forked while run_batch's SIGTERM handler is installed and keeps it until its
    initializer runs; a SIGTERM then (`abandon` terminating a worker still starting) must end it,
    not raise KeyboardInterrupt in it: raised right after fork() it unwound the worker through a
    copy of the caller's stack, which went on as a second pytest reporting `Interrupted`."""
    import signal

    from geomsim.analysis import _sigterm_as_interrupt

    with _sigterm_as_interrupt():
        pid = os.fork()
        if pid == 0:  # the child, with the inherited handler
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                signal.pthread_sigmask(signal.SIG_BLOCK, [])  # let the handler run
            except BaseException:
                os._exit(3)  # the handler raised: the child would have run on in this stack
            os._exit(4)
        _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status


_STARTED = "GEOMSIM_TEST_STARTED"


def _slow_init(parent: int) -> None:
    """A worker's initializer that is slow to set its handlers: it writes its pid, then waits
    (the window between fork() and the real initializer, widened), then initializes."""
    import time

    from geomsim import analysis

    with open(os.environ[_STARTED], "a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(1.0)
    analysis._REAL_WORKER_INIT(parent)  # type: ignore[attr-defined]


def test_a_ctrl_c_at_a_workers_start_waits_for_its_handlers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker gets Ctrl-C (SIGINT, sent to the whole process group) before its initializer
    has set it to be ignored: held since the fork, it is ignored then, and the worker serves
    its tasks. (Run at once it raised KeyboardInterrupt in the worker: the pool broke, or the
    worker unwound through a copy of the caller's stack.)"""
    import signal
    import time

    from geomsim import analysis

    started = tmp_path / "started"
    monkeypatch.setenv(_STARTED, str(started))
    monkeypatch.setattr(analysis, "_REAL_WORKER_INIT", analysis._worker_init, raising=False)
    monkeypatch.setattr(analysis, "_worker_init", _slow_init)
    pool = local_pool(2, multiprocessing.get_context("fork"))
    try:
        first = pool.submit(os.getpid)
        deadline = time.monotonic() + 20
        while len(loads(started)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        workers = loads(started)
        assert len(workers) == 2
        for pid in workers:
            os.kill(pid, signal.SIGINT)
        served = {first.result(timeout=20)}
        served |= {pool.submit(os.getpid).result(timeout=20) for _ in range(6)}
        assert served <= set(workers)
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # ours back
    finally:
        pool.close()

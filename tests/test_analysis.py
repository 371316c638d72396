"""Batch analysis: reproducible rows on any executor, resume without loss, summary and CLI."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from geomsim import cli
from geomsim.analysis import (
    TASK_SECONDS,
    Batch,
    InlineExecutor,
    Pool,
    Stopped,
    _Chunker,
    dask_pool,
    local_pool,
    read_rows,
    run_batch,
    write_summary,
)
from geomsim.batch import lineup_of
from geomsim.errors import InputError
from geomsim.stats import summarize, summary_markdown, wilson
from tests.toygames import BidGame, GridGame

ROOT = Path(__file__).resolve().parents[1]
BID = "tests.toygames:BID"
GRID = "tests.toygames:GRID"


class SlowBid(BidGame):
    """The sealed-bid toy game, slowed down (only) when GEOMSIM_TEST_SLOW is set: games then
    last long enough to interrupt a batch mid-way; rows are the same as the fast game's."""

    def new_state(self, players: int = 2, seed: int | None = None, setup=None):
        time.sleep(float(os.environ.get("GEOMSIM_TEST_SLOW", 0)))
        return super().new_state(players, seed, setup)


SLOW_BID = SlowBid()


class NeedyGrid(GridGame):
    """Tic-tac-toe whose compiled random player needs a module that is not installed."""

    playout_requires = ("geomsim_no_such_module",)


NEEDY_GRID = NeedyGrid()


def _rows(out: Path) -> list[dict]:
    """The rows of a batch without their timings (the only field that may differ)."""
    rows = read_rows(out / "games.jsonl")
    for row in rows:
        row.pop("seconds")
    return rows


def _batch(game: str = BID, games: int = 12, bots: tuple[str, ...] = ("greedy", "random"),
           **kw) -> Batch:
    return Batch(game, 2, bots, seed=kw.pop("seed", 100), games=games, **kw)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The rows of a 12-game batch played in this process."""
    out = tmp_path_factory.mktemp("reference")
    run_batch(_batch(), out, local_pool(1), progress=False)
    return _rows(out)


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- reproducibility on every executor -------------------------------------------------------------
def test_rows_are_sorted_by_seed_and_complete(reference: list[dict]) -> None:
    assert [r["seed"] for r in reference] == list(range(100, 112))
    assert all(r["finished"] and r["game"] == "toy-bid" for r in reference)


def test_two_spawned_workers_give_the_rows_of_one(reference: list[dict], tmp_path: Path) -> None:
    pool = local_pool(2, multiprocessing.get_context("spawn"))
    run_batch(_batch(), tmp_path, pool, progress=False)
    pool.close()
    assert _rows(tmp_path) == reference


def test_a_dask_cluster_gives_the_rows_of_local_processes(reference: list[dict],
                                                         tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="dask is an optional extra: "
                                      "pip install 'geomsim[distributed]'")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster:
        pool = dask_pool(cluster.scheduler_address)
        run_batch(_batch(), tmp_path, pool, chunk=3, progress=False)
        pool.close()
    assert _rows(tmp_path) == reference


def test_a_dask_batch_pauses_the_workers_profiler_and_packs_a_second_a_task(tmp_path: Path
                                                                          ) -> None:
    """Dask's sampling profiler, its housekeeping and its per-task cost slow geomsim's games
    (benchmarks/README.md): while a batch holds the cluster its workers do not profile, they
    and their nannies run their housekeeping at `BATCH_PERIODS_MS`, and automatic chunks pack
    a second of play, not a tenth; closing the batch gives all of it back."""
    distributed = pytest.importorskip("distributed")
    from geomsim.analysis import DASK_TASK_SECONDS
    from geomsim.dask_workers import BATCH_PERIODS_MS

    def periods(dask_worker: Any) -> dict[str, float]:  # a worker, or a nanny
        return {name: dask_worker.periodic_callbacks[name].callback_time
                for name in BATCH_PERIODS_MS}

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        client = distributed.Client(cluster.scheduler_address)
        (nanny,) = cluster.workers.values()

        def housekeeping() -> tuple[list[bool], list[dict[str, float]], dict[str, float]]:
            profiling = client.run(lambda dask_worker:
                                   dask_worker.periodic_callbacks["profile"].is_running())
            return list(profiling.values()), list(client.run(periods).values()), periods(nanny)

        dask_default = housekeeping()
        assert dask_default[0] == [True]
        assert all(dask_default[2][name] < BATCH_PERIODS_MS[name] for name in BATCH_PERIODS_MS)
        pool = dask_pool(cluster.scheduler_address)
        assert housekeeping() == ([False], [BATCH_PERIODS_MS], BATCH_PERIODS_MS)
        assert pool.task_seconds == DASK_TASK_SECONDS > TASK_SECONDS
        chunker = _Chunker(list(range(1000)), slots=2, task_seconds=pool.task_seconds)
        next(iter(chunker))
        chunker.record([{"seconds": 0.01}] * 4)
        assert len(next(iter(chunker))) == round(DASK_TASK_SECONDS / 0.01)
        pool.close()
        assert housekeeping() == dask_default
        client.close()


def test_a_scheduler_without_workers_is_refused_after_a_bounded_wait(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster:
        start = time.monotonic()
        with pytest.raises(InputError, match="no worker joined within 0.5 s "
                           r"\(start one with: dask worker \S+\)$"):
            dask_pool(cluster.scheduler_address, worker_timeout=0.5)
        assert time.monotonic() - start < 5


def test_a_cluster_left_without_workers_stops_the_batch(tmp_path: Path) -> None:
    """The workers leave during the batch: it stops after `worker_timeout`, rows kept."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        pool = dask_pool(cluster.scheduler_address, worker_timeout=0.5)
        cluster.scale(0)
        with pytest.raises(Stopped, match="has had no worker for 0.5 s; 0 of 12 games are kept"):
            run_batch(_batch(), tmp_path, pool, progress=False)


@pytest.fixture
def dask_scheduler(tmp_path: Path):
    """A Dask scheduler and one worker of 2 threads (playing slowed games) in processes of
    their own, so that a test can kill the scheduler: (its process, its address)."""
    pytest.importorskip("distributed")
    file = tmp_path / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GEOMSIM_TEST_SLOW": "0.4"}
    quiet = {"cwd": ROOT, "env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    options = ["--scheduler-file", str(file), "--no-dashboard"]
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--port", "0", *options], **quiet)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--nthreads",
                               "2", "--death-timeout", "10", *options], **quiet)
    try:
        deadline = time.monotonic() + 30
        while not file.exists() or not file.read_text().strip().endswith("}"):
            assert time.monotonic() < deadline and scheduler.poll() is None
            time.sleep(0.05)
        yield scheduler, json.loads(file.read_text())["address"]
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait()


def test_a_killed_dask_scheduler_stops_the_batch_in_one_line(reference: list[dict],
                                                             dask_scheduler, tmp_path: Path,
                                                             capsys) -> None:
    """No tracebacks of Dask's reconnection attempts: one line, rows kept, --resume (here on
    local processes) finishes the batch."""
    scheduler, address = dask_scheduler
    argv, process = _slow_batch(tmp_path / "out", "--scheduler", address)
    scheduler.kill()
    _stopped_then_resumed(reference, tmp_path / "out", argv[:-2], process, 2,
                          f"error: lost the Dask scheduler at {address};")


def test_scheduler_without_dask_says_how_to_install(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, _, err = run(["analyze", BID, "-n", "2", "--scheduler", "tcp://nowhere:1",
                        "-o", str(tmp_path)], capsys)
    assert code == 2 and "pip install 'geomsim[distributed]'" in err


def test_lineups_rotate_so_each_bot_plays_each_seat_equally() -> None:
    batch = Batch(BID, 3, lineup_of(["greedy", "random"], 3), games=6)
    assert batch.bots == ("greedy", "random", "greedy")
    seats = [batch.lineup(s) for s in batch.seeds()]
    for seat in range(3):
        assert sorted(line[seat] for line in seats) == ["greedy"] * 4 + ["random"] * 2
    fixed = Batch(BID, 3, batch.bots, games=6, rotate=False)
    assert {tuple(fixed.lineup(s)) for s in fixed.seeds()} == {batch.bots}


def test_automatic_chunks_grow_to_a_tenth_of_a_second_of_play() -> None:
    chunker = _Chunker(list(range(1000)), slots=4)
    tasks = iter(chunker)
    assert next(tasks) == [0]  # nothing known yet: one game
    chunker.record([{"seconds": 0.001}] * 4)
    assert len(next(tasks)) == round(TASK_SECONDS / 0.001)
    chunker.record([{"seconds": 10.0}])
    assert len(next(tasks)) == 1  # slow games: one a task
    chunker.record([{"seconds": 0.0}] * 10_000)
    sizes = [len(t) for t in tasks]
    assert sum(sizes) == 1000 - 1 - 100 - 1 and max(sizes) <= (1000 - 102) // 4
    assert [len(t) for t in _Chunker(list(range(10)), 2, size=4)] == [4, 4, 2]


def test_a_deep_queue_fills_once_the_first_games_are_timed(tmp_path: Path) -> None:
    """Until a game is timed a pool gets one single-game task a thread, not a queue of them
    (each task costs Dask milliseconds of scheduling); then tasks are sized, and the last ones
    are spread over two a thread, not over the whole queue."""
    sizes: list[int] = []

    class Recording(InlineExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            sizes.append(len(args[2]))
            return super().submit(fn, *args, **kwargs)

    pool = Pool(Recording(), capacity=16, threads=2)
    run_batch(_batch(games=400, bots=("random", "random")), tmp_path, pool, progress=False)
    assert sizes[:2] == [1, 1] and sizes[2] > 1
    assert sizes[-1] >= 1 and sum(sizes) == 400
    assert max(sizes[2:]) <= (400 - 2) // 4  # the tail spread over 2 tasks a thread


# -- interruption and resume -----------------------------------------------------------------------
def test_resume_drops_a_partial_last_line_and_redoes_it(reference: list[dict], tmp_path: Path) -> None:
    """A batch killed while writing a row: the cut row is redone, none is lost or doubled."""
    path = tmp_path / "games.jsonl"
    run_batch(_batch(games=5), tmp_path, local_pool(1), progress=False)
    lines = path.read_text().splitlines(keepends=True)
    random.Random(0).shuffle(lines)  # rows land in completion order
    path.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
    assert len(read_rows(path)) == 4
    run_batch(_batch(), tmp_path, local_pool(1), resume=True, progress=False)
    assert _rows(tmp_path) == reference


def _ctrl_c_as_in_a_shell() -> None:
    """SIGINT as an interactive shell leaves it to its commands: a test suite started in the
    background (``pytest &``) runs with SIGINT ignored, and its children inherit that, so a
    Ctrl-C test would see the batch play to its end."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _slow_batch(out: Path, *options: str, slow: float = 0.4) -> tuple[list[str], subprocess.Popen]:
    """`geomsim analyze` of the reference batch, slowed down, in a subprocess: its argv (for
    resuming) and the process, returned once two rows are written."""
    argv = [sys.executable, "-m", "geomsim.cli", "analyze", "tests.test_analysis:SLOW_BID",
            "-n", "12", "-s", "100", "-b", "greedy,random", "-o", str(out), "--no-plot", *options]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GEOMSIM_TEST_SLOW": str(slow)}
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_as_in_a_shell)
    path = out / "games.jsonl"
    deadline = time.monotonic() + 30
    while not (path.exists() and path.read_text().count("\n") >= 2):
        assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
        time.sleep(0.02)
    return argv, process


def _stopped_then_resumed(reference: list[dict], out: Path, argv: list[str],
                          process: subprocess.Popen, code: int, reason: str) -> None:
    """The batch ended with `code` and one line giving `reason` and the rows kept; resuming
    in this process (one worker) finishes it with the reference rows."""
    _, err = process.communicate(timeout=30)
    kept = len(read_rows(out / "games.jsonl"))
    assert process.returncode == code and 2 <= kept < 12, err
    assert err.strip().splitlines() == [
        f"geomsim: {reason} {kept} of 12 games are in {out}/games.jsonl; run the same command "
        "with --resume to continue"]
    assert cli.main(argv[3:] + ["--resume", "-w", "1"]) == 0
    assert _rows(out) == reference


def test_ctrl_c_keeps_rows_and_resume_finishes_the_batch(reference: list[dict], tmp_path: Path,
                                                         capsys) -> None:
    """A real batch of two worker processes, interrupted by SIGINT, then resumed."""
    argv, process = _slow_batch(tmp_path, "-w", "2")
    process.send_signal(signal.SIGINT)
    _stopped_then_resumed(reference, tmp_path, argv, process, 130, "interrupted:")


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _running(pid: int) -> bool:
    """True while `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_workers_end_when_the_batch_is_killed(tmp_path: Path) -> None:
    """kill -9 of `geomsim analyze` gives its process no chance to stop the pool: the workers
    see it end and exit by themselves (they stayed alive under PID 1)."""
    _, process = _slow_batch(tmp_path, "-w", "2")
    workers = _children(process.pid)
    assert len(workers) >= 2
    process.kill()
    process.wait(timeout=10)  # not communicate(): live workers would hold its pipes open
    deadline = time.monotonic() + 5
    try:
        while any(_running(pid) for pid in workers):
            assert time.monotonic() < deadline, [pid for pid in workers if _running(pid)]
            time.sleep(0.05)
    finally:
        for pid in filter(_running, workers):  # a failed test leaves no orphans behind
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_a_killed_worker_stops_the_batch_in_one_line(reference: list[dict], tmp_path: Path,
                                                     capsys) -> None:
    argv, process = _slow_batch(tmp_path, "-w", "2")
    os.kill(_children(process.pid)[0], signal.SIGKILL)
    _stopped_then_resumed(reference, tmp_path, argv, process, 2,
                          "error: a worker process ended abruptly (killed, or out of memory);")


def test_resume_may_extend_a_batch(reference: list[dict], tmp_path: Path) -> None:
    run_batch(_batch(games=7), tmp_path, local_pool(1), progress=False)
    run_batch(_batch(), tmp_path, local_pool(1), resume=True, progress=False)
    assert _rows(tmp_path) == reference


def test_resume_refuses_another_batch(tmp_path: Path, capsys) -> None:
    args = ["analyze", BID, "-n", "3", "-w", "1", "-o", str(tmp_path), "--no-plot"]
    assert run(args, capsys)[0] == 0
    code, _, err = run(args + ["-b", "greedy", "--resume"], capsys)
    assert code == 2 and "holds another batch: bots was ['random', 'random']" in err


def test_existing_rows_need_resume_or_force(tmp_path: Path, capsys) -> None:
    args = ["analyze", BID, "-n", "3", "-w", "1", "-o", str(tmp_path), "--no-plot"]
    assert run(args, capsys)[0] == 0
    code, _, err = run(args, capsys)
    assert code == 2 and "add --resume to continue that batch or --force to start over" in err
    assert run(args + ["--force", "-n", "2"], capsys)[0] == 0
    assert len(read_rows(tmp_path / "games.jsonl")) == 2


def test_a_failing_game_names_its_seed_and_keeps_rows(tmp_path: Path, capsys) -> None:
    code, _, err = run(["analyze", GRID, "-n", "3", "-w", "1", "-b", "greedy:0",
                        "-o", str(tmp_path)], capsys)
    assert code == 2 and "candidate samples must be a positive integer" in err
    code, _, err = run(["analyze", "tests.test_analysis:BROKEN", "-n", "3", "-s", "5", "-w", "1",
                        "-o", str(tmp_path)], capsys)
    assert code == 2 and "game of seed 6" in err and "--resume" in err
    assert [r["seed"] for r in read_rows(tmp_path / "games.jsonl")] == [5]


# -- broken result folders -------------------------------------------------------------------------
def _good_row(seed: int = 3) -> dict:
    return {"game": "toy-bid", "seed": seed, "players": 2, "bots": ["random", "greedy"],
            "scores": [3.0, 1.0], "winners": [0], "length": 6, "finished": True, "figures": {}}


@pytest.mark.parametrize("change, message", [
    (lambda r: r.pop("seed"), "line 2: the row has no 'seed'"),
    (lambda r: r.update(seed="7"), "line 2: seed: '7' is not an int"),
    (lambda r: r.update(seed=True), "line 2: seed: True is not an int"),
    (lambda r: r.update(scores=[1.0]), "line 2: players 2: bots and scores must name one per player"),
    (lambda r: r.update(scores=[1.0, float("nan")]), "line 2: scores: each is a finite number"),
    (lambda r: r.update(winners=[2]), "line 2: winners: each is a player from 0 to 1"),
    (lambda r: r.update(bots=["random", 3]), "line 2: bots: each is a bot spec (text)"),
    (lambda r: r.update(figures=[]), "line 2: figures: not a JSON object"),
    (lambda r: r.update(seed=3), "line 2: seed 3 is also the row of line 1"),
])
def test_a_malformed_row_is_one_line_naming_the_file_and_line(change, message, tmp_path) -> None:
    row = _good_row(4)
    change(row)
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(_good_row()) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(InputError) as caught:
        read_rows(path)
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize("line, message", [
    ("[1, 2]", "line 1: not a JSON object (a row is one)"),
    ("{" * 100_000, "line 1: not a JSON row"),
    (json.dumps({**_good_row(), "figures": {"x": "y" * (1 << 20)}}), "more than a row may have"),
])
def test_a_line_that_is_no_row_is_refused_at_once(line, message, tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=re.escape(message)):
        read_rows(path)


def test_nul_bytes_left_by_a_power_loss_are_a_cut_row(tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(json.dumps(_good_row()).encode() + b"\n" + b"\0" * 4096)
    assert [r["seed"] for r in read_rows(path, repair=True)] == [3]
    assert path.read_bytes().endswith(b"}\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_stops_the_batch_naming_the_rows_file(tmp_path: Path) -> None:
    (tmp_path / "games.jsonl").symlink_to("/dev/full")  # every write: "No space left on device"
    with pytest.raises(Stopped) as caught:
        run_batch(_batch(), tmp_path, local_pool(1), progress=False)
    assert str(caught.value) == (f"cannot write {tmp_path}/games.jsonl: No space left on device; "
                                 "0 of 12 games are kept")


def test_a_broken_batch_record_is_one_line_naming_it(tmp_path, capsys) -> None:
    args = ["analyze", BID, "-n", "3", "-w", "1", "-o", str(tmp_path), "--no-plot", "--resume"]
    assert run(args, capsys)[0] == 0
    (tmp_path / "batch.json").write_text('{"game": "toy-bid",\n  "players": }\n')
    code, _, err = run(args, capsys)
    assert code == 2 and err.strip() == (f"geomsim: error: {tmp_path}/batch.json: line 2, "
                                         "column 14: not JSON: invalid character")


def test_resume_never_shrinks_a_batch_below_its_rows(reference: list[dict], tmp_path: Path,
                                                     capsys) -> None:
    """--resume --games 5 on 12 rows would leave batch.json at 5 games while rows and summary
    keep 12: refused, and nothing in the folder changes."""
    args = ["analyze", BID, "-s", "100", "-b", "greedy,random", "-w", "1", "-o", str(tmp_path),
            "--no-plot"]
    assert run(args + ["-n", "12"], capsys)[0] == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, _, err = run(args + ["-n", "5", "--resume"], capsys)
    assert code == 2 and err.strip() == (
        f"geomsim: error: {tmp_path}/games.jsonl holds 12 games, up to seed 111, more than this "
        "batch of 5 from seed 100: resume with --games 12 or more, or start over with --force")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    (tmp_path / "games.jsonl").write_text("\n".join(lines[:3]) + "\n")  # an interrupted batch
    assert run(args + ["-n", "5", "--resume"], capsys)[0] == 0  # whose rows fit: it may shrink
    assert json.loads((tmp_path / "batch.json").read_text())["games"] == 5
    assert _rows(tmp_path) == reference[:5]


class BrokenGrid(GridGame):
    """Tic-tac-toe that fails to set up the game of seed 6."""

    def new_state(self, players: int = 2, seed: int | None = None, setup=None):
        if seed == 6:
            raise RuntimeError("no board for seed 6")
        return super().new_state(players, seed, setup)


BROKEN = BrokenGrid()


# -- summary ---------------------------------------------------------------------------------------
def test_wilson_interval_matches_the_published_formula() -> None:
    low, high = wilson(5, 10)  # statsmodels proportion_confint(5, 10, method="wilson")
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert wilson(0, 20)[0] == 0.0 and 0 < wilson(0, 20)[1] < 0.2
    assert wilson(30, 100)[1] - wilson(30, 100)[0] < wilson(3, 10)[1] - wilson(3, 10)[0]


def test_summary_is_independent_of_row_order(reference: list[dict]) -> None:
    shuffled = list(reference)
    random.Random(1).shuffle(shuffled)
    assert summarize(shuffled) == summarize(reference)


def test_summary_shares_wins_and_counts_each_bot_seat(reference: list[dict]) -> None:
    summary = summarize(reference)
    assert sum(s["wins"] for s in summary["by_seat"]) == pytest.approx(len(reference))
    assert sum(b["wins"] for b in summary["by_bot"]) == pytest.approx(len(reference))
    greedy = next(b for b in summary["by_bot"] if b["bot"] == "greedy")
    assert greedy["games"] == len(reference)  # one greedy seat per game
    assert greedy["ci95"][0] <= greedy["win_rate"] <= greedy["ci95"][1]
    assert summary["length"]["min"] == min(r["length"] for r in reference)


def test_summary_describes_numeric_game_figures() -> None:
    rows = [{"seed": i, "game": "g", "players": 2, "bots": ["a", "b"], "scores": [i, 0],
             "winners": [0], "length": 3, "finished": True,
             "figures": {"treasures": i, "note": "x"}} for i in range(4)]
    summary = summarize(rows)
    assert summary["figures"]["treasures"]["mean"] == 1.5
    assert "note" not in summary["figures"]
    assert "| treasures | 1.5 |" in summary_markdown(summary)


def test_summary_tables_show_win_counts_and_large_numbers_exactly() -> None:
    """1,000 games: bot a wins 885 alone and shares 115 (942.5 wins), seat 0 then 999.5 with
    one shared win; 3 significant digits showed 942 and 1e+03."""
    def row(i: int, winners: list[int], bots: list[str]) -> dict:
        return {"seed": i, "game": "g", "players": 2, "bots": bots, "scores": [999.5, 1234.25],
                "winners": winners, "length": 3, "finished": True}

    rows = [row(i, [0] if i < 885 else [0, 1], ["a", "b"]) for i in range(1000)]
    table = summary_markdown(summarize(rows))
    assert "| a | 1000 | 942.5 | 94.2% |" in table and "| b | 1000 | 57.5 | 5.8% |" in table
    assert "| 999.5 | 0 | 999.5 | 999.5 | 999.5 |" in table  # score mean, std, min, median, max
    assert "| 1234.2 | 0 | 1234.2 |" in table
    rows = [row(i, [0] if i else [0, 1], ["a", "b"]) for i in range(1000)]
    assert "| 0 | 1000 | 999.5 | 100.0% |" in summary_markdown(summarize(rows))
    thirds = [{**row(i, [0, 1, 2], ["a", "b", "c"]), "players": 3, "scores": [1, 1, 1]}
              for i in range(1000)]
    assert "| a | 1000 | 333.33 | 33.3% |" in summary_markdown(summarize(thirds))
    assert "e+" not in table


def test_summary_files_and_plot_are_written(reference: list[dict], tmp_path: Path) -> None:
    summary = write_summary(tmp_path, reference)
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    assert "| greedy |" in (tmp_path / "summary.md").read_text()
    assert (tmp_path / "analysis.png").read_bytes()[:4] == b"\x89PNG"


# -- the command -----------------------------------------------------------------------------------
def test_analyze_command_prints_the_summary_and_writes_files(tmp_path: Path, capsys) -> None:
    code, out, _ = run(["analyze", GRID, "-n", "6", "-b", "ismcts:10,random", "-w", "1",
                        "-o", str(tmp_path)], capsys)
    assert code == 0
    assert "## Win rate by bot" in out and "| ismcts:10 |" in out
    assert {p.name for p in tmp_path.iterdir()} >= {"games.jsonl", "batch.json", "summary.json",
                                                    "summary.md", "analysis.png"}


@pytest.mark.parametrize("args, message", [
    (["nosuchgame"], "unknown game 'nosuchgame'"),
    ([BID, "-p", "3"], "toy-bid is played by 2 to 2 players, not 3"),
    ([BID, "-b", "random,random,random"], "3 bots for 2 players"),
    ([BID, "-b", "chess"], "unknown bot 'chess'"),
    ([BID, "-w", "2", "--scheduler", "tcp://x:1"], "give --workers or --scheduler, not both"),
    ([BID, "--compiled"], "--compiled: toy-bid has no compiled random player"),
    ([GRID, "--compiled", "-b", "random,greedy"], "--compiled plays random players only, not greedy"),
    (["tests.test_analysis:NEEDY_GRID", "--compiled"], "--compiled: the compiled random player of "
     "toy-grid needs geomsim_no_such_module: pip install 'geomsim[fast]'"),
])
def test_analyze_reports_bad_input_in_one_line(args: list[str], message: str, tmp_path: Path,
                                               capsys) -> None:
    code, _, err = run(["analyze", *args, "-o", str(tmp_path)], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) <= 2


def test_from_scenario_starts_every_game_at_its_end(tmp_path: Path, capsys) -> None:
    scenario = tmp_path / "grid.yaml"
    scenario.write_text(f"game: {GRID}\nplayers: 2\nseed: 0\nsteps:\n  - mark 4\n  - mark 0\n")
    code, _, err = run(["analyze", GRID, "--from", str(scenario), "-n", "8", "-w", "1",
                        "-o", str(tmp_path / "out"), "--no-plot"], capsys)
    assert code == 0, err
    rows = read_rows(tmp_path / "out" / "games.jsonl")
    assert len(rows) == 8 and all(r["length"] <= 7 for r in rows)
    assert len({r["length"] for r in rows}) > 1  # the bots' seeds still vary the games
    code, _, err = run(["analyze", BID, "--from", str(scenario), "-o", str(tmp_path / "b")], capsys)
    assert code == 2 and "the scenario plays toy-grid, not toy-bid" in err


def test_compiled_batches_are_played_by_the_compiled_random_player(tmp_path: Path, capsys) -> None:
    from tests.toygames import GRID as grid

    code, _, err = run(["analyze", GRID, "--compiled", "-n", "12", "-w", "1", "--no-plot",
                        "-o", str(tmp_path / "one")], capsys)
    assert code == 0, err
    rows = _rows(tmp_path / "one")
    for row in rows:
        played = grid.random_playouts([grid.new_state(2, seed=row["seed"])], seed=row["seed"])
        assert row["scores"] == played.scores[0].tolist()
        assert row["length"] == played.decisions[0] and row["bots"] == ["random", "random"]
    assert len({r["length"] for r in rows}) > 1
    pool = local_pool(2, multiprocessing.get_context("spawn"))
    run_batch(Batch(GRID, 2, ("random", "random"), games=12, compiled=True), tmp_path / "two",
              pool, progress=False)
    pool.close()
    assert _rows(tmp_path / "two") == rows
    code, _, err = run(["analyze", GRID, "-n", "12", "-w", "1", "--resume", "--no-plot",
                        "-o", str(tmp_path / "one")], capsys)
    assert code == 2 and "compiled was True, now False" in err


# -- the real games --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, games", [("cibola", 16), ("anasazi", 4), ("aztekz", 4)])
def test_a_real_game_gives_the_same_rows_on_one_and_two_workers(name: str, games: int,
                                                                tmp_path: Path) -> None:
    from tests.test_bots import real_game

    game = real_game(name)
    batch = Batch(name, game.min_players + 1, lineup_of(["greedy:4", "random"], game.min_players + 1),
                  seed=7, games=games)
    run_batch(batch, tmp_path / "one", local_pool(1), progress=False)
    # Spawned workers hash strings with other seeds: a game whose play depended on set or
    # hash order would give other rows there.
    pool = local_pool(2, multiprocessing.get_context("spawn"))
    run_batch(batch, tmp_path / "two", pool, progress=False)
    pool.close()
    one = _rows(tmp_path / "one")
    assert one == _rows(tmp_path / "two")
    assert [r["seed"] for r in one] == list(range(7, 7 + games)) and all(r["finished"] for r in one)
    summary = write_summary(tmp_path / "one", one, plot=False)
    assert summary["games"] == games and {b["bot"] for b in summary["by_bot"]} == {"greedy:4", "random"}


def test_a_rotating_batch_seats_every_bot_in_every_turn_position():
    """Cibola's first player is the torch keeper, drawn at setup: rotating by player number
    would not rotate turn positions; `rotate` seats the line-up by turn position."""
    from geomsim.analysis import run_games

    batch = Batch("cibola", 3, ("greedy", "random", "random"), seed=5, games=6)
    rows = run_games("cibola", 3, [(s, batch.lineup(s)) for s in batch.seeds()], None, 100_000,
                     by_turn=batch.rotate)
    positions = [r["turn_order"].index(r["bots"].index("greedy")) for r in rows]
    assert sorted(positions) == [0, 0, 1, 1, 2, 2]
    assert len({r["turn_order"][0] for r in rows}) > 1  # the first player does vary


def test_rows_of_other_rules_do_not_mix(tmp_path):
    from geomsim.batch import require_one_kind

    rows = [{"game": "g", "players": 2, "seed": s, "versions": {"rows": 2, "rules": "g/1"},
             "options": {}} for s in range(3)]
    require_one_kind(rows, "x")
    rows[2]["options"] = {"towers_to_end": 3}
    with pytest.raises(ValueError, match="x: rows of incompatible batches: .*towers_to_end=3"):
        require_one_kind(rows, "x")
    rows[2]["options"], rows[1]["versions"] = {}, {"rows": 2, "rules": "g/2"}
    with pytest.raises(ValueError, match="rules g/1.*rules g/2"):
        require_one_kind(rows, "x")


def test_resume_refuses_a_batch_played_by_other_rules(tmp_path):
    from geomsim.analysis import BATCH, batch_record, check_resume
    from geomsim.errors import InputError

    batch = Batch("cibola", 2, ("random", "random"), games=2)
    record = batch_record(batch)
    assert record["versions"]["rules"] == "cibola/1" and record["versions"]["rows"] == 2
    (tmp_path / BATCH).write_text(json.dumps({**record, "versions": {**record["versions"],
                                                                     "rules": "cibola/0"}}))
    with pytest.raises(InputError, match="versions was"):
        check_resume(tmp_path, batch, resume=True, force=False)

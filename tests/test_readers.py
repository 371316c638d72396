"""Readers and specs that must bound what they accept (issue 25, item 3): bot budgets, files
that are not regular files, seeds, and scenario text that YAML builds into something JSON and
the rest of geomsim cannot hold (recursive aliases, keys that are equal once built, lone
surrogates, integers Python will not convert)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geomsim.bots import MAX_ITERATIONS, MAX_ROLLOUT_DEPTH, MAX_SAMPLES, MAX_SECONDS, make_bot
from geomsim.cli.common import SEED
from geomsim.files import TooLarge, read_bytes
from geomsim.reading import MAX_JSON_BYTES, MAX_SEED, DataError, read_file
from geomsim.registry import load_game
from geomsim.scenario import ScenarioError
from geomsim.scenario.source import parse_yaml, schema

ROOT = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = 500 * 2**20  # as tests/test_hostile.py: a reader that reads without end fails here


# -- bot budgets -----------------------------------------------------------------------------
@pytest.mark.parametrize("spec, words", [
    ("ismcts:1e300s", f"seconds must be a positive number at most {MAX_SECONDS:g}, not '1e300'"),
    ("ismcts:infs", "seconds must be a positive number at most"),
    (f"ismcts:{MAX_SECONDS * 1.01}s", "seconds must be a positive number at most"),
    ("ismcts:1000000000", f"iterations must be a positive integer at most {MAX_ITERATIONS:,}"),
    (f"ismcts:{MAX_ITERATIONS + 1}", f"iterations must be a positive integer at most {MAX_ITERATIONS:,}"),
    (f"ismcts:10:{MAX_ROLLOUT_DEPTH + 1}", f"rollout depth must be a positive integer at most {MAX_ROLLOUT_DEPTH:,}"),
    (f"greedy:{MAX_SAMPLES + 1}", f"candidate samples must be a positive integer at most {MAX_SAMPLES:,}"),
    ("ismcts:" + "9" * 5000, "iterations must be a positive integer at most"),
])
def test_a_budget_over_its_cap_is_refused_in_one_line(spec, words):
    with pytest.raises(ValueError) as e:
        make_bot(spec)
    message = str(e.value)
    assert words in message and message.startswith("bot ") and "\n" not in message and len(message) < 200


def test_the_planners_placements_are_capped():
    anasazi = load_game("anasazi")
    with pytest.raises(ValueError, match=f"bot planner:{MAX_SAMPLES + 1}: placements per expedition "
                                         f"must be a positive integer at most {MAX_SAMPLES:,}"):
        make_bot(f"planner:{MAX_SAMPLES + 1}", anasazi)
    assert make_bot(f"planner:{MAX_SAMPLES}", anasazi).samples == MAX_SAMPLES


def test_budgets_at_their_caps_are_taken():
    assert make_bot(f"ismcts:{MAX_SECONDS:g}s").seconds == MAX_SECONDS
    assert make_bot(f"ismcts:{MAX_ITERATIONS}:{MAX_ROLLOUT_DEPTH}").iterations == MAX_ITERATIONS
    assert make_bot(f"greedy:{MAX_SAMPLES}").samples == MAX_SAMPLES


# -- files that are not regular files ---------------------------------------------------------
@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    """A FIFO no one writes to: opening it for reading the usual way waits for ever."""
    path = tmp_path / "setup.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_before_it_is_read(device):
    with pytest.raises(OSError, match="not a regular file but a device"):
        read_bytes(device, 100)


def test_a_fifo_and_a_folder_are_refused(fifo, tmp_path):
    with pytest.raises(OSError, match=r"not a regular file but a pipe \(FIFO\)"):
        read_bytes(fifo, 100)
    with pytest.raises(IsADirectoryError, match="not a regular file but a folder"):
        read_bytes(tmp_path, 100)


def test_a_file_reporting_a_smaller_size_is_read_no_further_than_the_limit():
    """/proc files are regular and report 0 bytes: the limit holds on what is read."""
    with pytest.raises(TooLarge, match="more than 10 bytes is over the limit of 10 bytes") as e:
        read_bytes("/proc/self/maps", 10)
    assert e.value.size is None
    assert len(read_bytes("/proc/self/maps", 10**6)) > 10


def test_a_file_over_the_limit_is_refused_from_its_size(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:  # sparse: refused from its size, never read
        f.truncate(MAX_JSON_BYTES + 1)
    with pytest.raises(DataError, match=f"{MAX_JSON_BYTES + 1:,} bytes is over the limit of {MAX_JSON_BYTES:,}"):
        read_file(path)
    assert read_bytes(path, MAX_JSON_BYTES + 1)[:4] == b"\0" * 4


def test_a_nul_in_a_file_name_is_an_os_error():
    with pytest.raises(OSError, match="a file name cannot hold a NUL character"):
        read_file("a\0b.json")


def test_json_with_a_lone_surrogate_is_refused(tmp_path):
    path = tmp_path / "setup.json"
    path.write_text('{"a": "x\\ud800"}')
    with pytest.raises(DataError, match=str(path)):
        read_file(path)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (120, 120))


RUN = """
import contextlib, io, json, sys
from geomsim import cli
for args in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(args)
    print(json.dumps({"args": args, "code": code, "stderr": err.getvalue()}), flush=True)
"""


def _commands(cases: list[list[str]], cwd: Path) -> list[dict]:
    """`geomsim ARGS` for each case, in one subprocess under a memory limit with stdin closed
    and a time limit: a reader that reads a device to its end or waits on a FIFO fails the test
    rather than eating the machine or hanging it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(cases)], capture_output=True, text=True,
                          cwd=cwd, env=env, preexec_fn=_limited, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_reader_of_a_users_file_refuses_devices_and_fifos(tmp_path, fifo):
    """Scenario setup: and from:, a scenario itself, setup --from, reach --setup and --state,
    serve --setup, analyze --from: one line naming the file, at once."""
    setup = tmp_path / "anasazi.json"
    setup.write_text(json.dumps(load_game("anasazi").make_setup(2, 0)))
    scenarios = {"setup-device.yaml": "game: cibola\nplayers: 2\nsetup: /dev/zero\n",
                 "setup-fifo.yaml": f"game: cibola\nplayers: 2\nsetup: {fifo.name}\n",
                 "from-random.yaml": "game: cibola\nplayers: 2\nsetup: {from: /dev/urandom}\n",
                 "setup-stdin.yaml": "game: cibola\nplayers: 2\nsetup: /dev/stdin\n",
                 "setup-nul.yaml": 'game: cibola\nplayers: 2\nsetup: "a\\0b.json"\n'}
    for name, text in scenarios.items():
        (tmp_path / name).write_text(text)
    cases = [["check", name] for name in scenarios] + [
        ["check", "/dev/zero"], ["check", str(fifo)],
        ["setup", "cibola", "--from", "/dev/zero"], ["setup", "cibola", "--from", str(fifo)],
        ["reach", "--setup", "/dev/urandom", "--map"], ["reach", "--setup", str(fifo), "--map"],
        ["reach", "--setup", str(setup), "--state", str(fifo), "--map"],
        ["serve", "--setup", str(fifo)], ["serve", "--setup", "/dev/zero"],
        ["analyze", "cibola", "--from", str(fifo), "-n", "1", "-o", "out"]]
    results = _commands(cases, tmp_path)
    assert len(results) == len(cases)
    for r in results:
        lines = r["stderr"].splitlines()
        assert r["code"] == 2 and len(lines) == 1, r
        assert "not a regular file but" in lines[0] or "cannot hold a NUL character" in lines[0], r
        assert "Error" not in lines[0], r
    by_file = {r["args"][1]: r["stderr"] for r in results if r["args"][0] == "check"}
    assert ":3: setup: cannot read setup file '/dev/zero': not a regular file but a device" in by_file["setup-device.yaml"]
    assert ":3: setup.from: cannot read setup file '/dev/urandom'" in by_file["from-random.yaml"]
    assert ":3: setup: cannot read setup file 'a\\x00b.json': a file name cannot hold a NUL" in by_file["setup-nul.yaml"]


def test_game_logs_and_batch_folders_are_read_as_regular_files_only(tmp_path):
    """`replay` reads a game log, `report` a batch's rows and record, `analyze --resume` both:
    a FIFO or a device in their place is one line naming it, at once, never a wait."""
    for folder in ("rows-fifo", "record-fifo"):
        (tmp_path / folder).mkdir()
    os.mkfifo(tmp_path / "game.jsonl")
    os.mkfifo(tmp_path / "rows-fifo" / "games.jsonl")
    row = {"game": "cibola", "seed": 0, "players": 2, "bots": ["random", "random"],
           "scores": [1, 2], "winners": [1], "length": 3, "finished": True}
    (tmp_path / "record-fifo" / "games.jsonl").write_text(json.dumps(row) + "\n")
    os.mkfifo(tmp_path / "record-fifo" / "batch.json")
    cases = [["replay", "game.jsonl", "-o", "game.gif"], ["replay", "/dev/zero", "-o", "game.gif"],
             ["report", "rows-fifo", "-o", "r.html"], ["report", "record-fifo", "-o", "r.html"],
             ["analyze", "cibola", "-n", "1", "-o", "rows-fifo", "--resume"]]
    results = _commands(cases, tmp_path)
    assert len(results) == len(cases)
    for r in results:
        lines = r["stderr"].splitlines()
        assert r["code"] == 2 and len(lines) == 1 and "not a regular file but" in lines[0], r


# -- seeds ---------------------------------------------------------------------------------------
def test_the_seed_type_takes_exactly_what_compiled_playouts_take():
    assert SEED.convert("0", None, None) == 0 and SEED.convert(str(MAX_SEED), None, None) == 2**32 - 1
    for bad in ("-1", str(2**32)):
        with pytest.raises(click.BadParameter):
            SEED.convert(bad, None, None)
    seeds = list(_fields(schema(), "seed"))
    assert len(seeds) >= 2 and all((s["minimum"], s["maximum"]) == (0, MAX_SEED) for s in seeds)


def _fields(part: object, name: str):
    """Every schema of a field called `name` within the schema `part`."""
    if isinstance(part, dict):
        for key, value in part.items():
            if key == name and isinstance(value, dict) and "type" in value:
                yield value
            yield from _fields(value, name)
    elif isinstance(part, list):
        for value in part:
            yield from _fields(value, name)


def test_every_command_with_a_seed_refuses_one_out_of_range(tmp_path):
    setup = tmp_path / "anasazi.json"
    setup.write_text(json.dumps(load_game("anasazi").make_setup(2, 0)))
    commands = [["setup", "cibola", "-o", "x.png"], ["analyze", "cibola", "-n", "1", "-o", "out"],
                ["serve"], ["reach", "--setup", str(setup), "--map"]]
    cases = [[*c, "--seed", seed] for c in commands for seed in ("-1", str(2**32))]
    for r in _commands(cases, tmp_path):
        lines = r["stderr"].splitlines()
        assert r["code"] == 2 and "is not in the range 0<=x<=4294967295" in lines[-1], r
    assert not any(tmp_path.glob("x.png")) and not (tmp_path / "out").exists()


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_a_scenario_seed_is_taken_exactly_in_range(seed):
    from geomsim.scenario.source import check_schema, top_validator

    source = parse_yaml(f"game: cibola\nplayers: 2\nseed: {seed}\n", "s.yaml")
    if 0 <= seed <= MAX_SEED:
        check_schema(source, source.data, top_validator(), ())
    else:
        with pytest.raises(ScenarioError, match=r"s.yaml:3: seed: "):
            check_schema(source, source.data, top_validator(), ())


def test_a_batch_whose_last_seed_is_out_of_range_is_refused(tmp_path):
    """Game i of a batch plays seed + i: the last one must be a seed too."""
    (r,) = _commands([["analyze", "cibola", "-s", str(MAX_SEED - 1), "-n", "3", "-o", "out"]], tmp_path)
    assert r["code"] == 2 and r["stderr"].strip() == (
        f"geomsim: error: --seed {MAX_SEED - 1} with --games 3: the last game's seed "
        f"{MAX_SEED + 1} is over {MAX_SEED}")
    assert not (tmp_path / "out").exists()


def test_a_users_file_that_cannot_be_read_is_an_input_error_even_under_debug(tmp_path, fifo):
    """`--debug` lets what a command did not handle through as a traceback: every command that
    reads a user's JSON file handles a file it cannot read (`geomsim.reading.read_input`)."""
    setup = tmp_path / "anasazi.json"
    setup.write_text(json.dumps(load_game("anasazi").make_setup(2, 0)))
    (tmp_path / "batch").mkdir()
    (tmp_path / "batch" / "games.jsonl").write_text("")
    os.mkfifo(tmp_path / "batch" / "batch.json")
    cases = [["--debug", "setup", "cibola", "--from", str(fifo)],
             ["--debug", "reach", "--setup", "/dev/zero", "--map"],
             ["--debug", "serve", "--setup", str(fifo)],
             ["--debug", "analyze", "cibola", "-n", "1", "-o", "batch", "--resume"]]
    results = _commands(cases, tmp_path)
    assert len(results) == len(cases)
    for r in results:
        lines = r["stderr"].splitlines()
        assert r["code"] == 2 and len(lines) == 1 and "not a regular file but" in lines[0], r

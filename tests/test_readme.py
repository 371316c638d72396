"""Every command and the Python API block of the README run as written, after the Quick start
(issue 19): a newcomer who copies them meets no file the Quick start never wrote.

No test here depends on another having run (issue 25): each fixture makes, in the worker that
asks for it, the folder a newcomer has at that point of the README, so the tests pass in any
order, on any worker, whatever pytest-xdist does with groups.

The Quick start's main job, the Python block and the servers run in subprocesses, as a newcomer
runs them (the installed `geomsim` script included); the command-line block's commands run in
this process through `geomsim.cli.main`, the function that script calls, with the same words and
folder: a subprocess a command would cost a second of imports and add nothing (issue 30, item 5)."""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# What a newcomer's clone holds beside the README that its commands name.
TRACKED = ("scenarios", "examples")
# Where every command of the README writes: a clone's root keeps nothing else (issue 31).
OUT = "out"


def blocks(kind: str) -> list[str]:
    """The fenced blocks of `kind` (``sh``, ``python``, or ``""`` for bare fences) in the README."""
    return [m.group(2) for m in re.finditer(r"^```(\w*)\n(.*?)^```", README, re.M | re.S)
            if m.group(1) == kind]


def quick_start() -> tuple[str, str]:
    """The Quick start's two commands: the main job and the tests."""
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"^```sh\n(.*?)\n```", section, re.M | re.S)
    assert len(found) == 2, "the Quick start holds exactly two commands"
    return found[0].strip(), found[1].strip()


def cli_commands() -> list[str]:
    """The commands of the README's command-line block, without their comments."""
    section = README.split("## Command line", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```", section, re.M | re.S).group(1)
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def server_commands() -> list[str]:
    """The `geomsim serve` commands of the README's other shell blocks (they run until stopped)."""
    quick = set(quick_start())
    lines = [line.split("  #", 1)[0].strip() for b in blocks("sh") if b.strip() not in quick
             for line in b.splitlines()]
    return [line for line in lines if line.startswith("geomsim serve")]


def main_job() -> str:
    """The Quick start's first command with its install step left out (the tests run installed)."""
    steps = [s.strip() for s in quick_start()[0].split("&&")]
    assert steps[0].startswith("pip install ")
    return " && ".join(steps[1:])


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory) -> Path:
    """A folder as a newcomer's clone has it after the Quick start's main job."""
    here = tmp_path_factory.mktemp("newcomer")
    for name in TRACKED:
        (here / name).symlink_to(ROOT / name)
    run(main_job(), here)
    assert left_outside_out(here) == []
    return here


def left_outside_out(here: Path) -> list[str]:
    """What the README's commands left in a clone's root besides its own files and ``out/``."""
    return sorted(p.name for p in here.iterdir() if p.name not in {*TRACKED, OUT})


def _written(command: str) -> set[str]:
    """The files and folders a command of the README names as its outputs."""
    words = shlex.split(command)
    return {words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--output", "--json", "--out")}


def prerequisites(command: str, earlier: list[str]) -> list[str]:
    """The commands of `earlier` (in order) that write what `command` reads, and theirs."""
    words = set(shlex.split(command))
    direct = [c for c in earlier if _written(c) & words and c != command]
    found: list[str] = []
    for c in direct:
        for needed in [*prerequisites(c, earlier[:earlier.index(c)]), c]:
            if needed not in found:
                found.append(needed)
    return found


def clone_after(newcomer: Path, tmp_path: Path, commands: list[str]) -> Path:
    """A copy of the newcomer's folder, `commands` run in it (what a command reads is there)."""
    here = tmp_path / "clone"
    shutil.copytree(newcomer, here, symlinks=True)
    for command in commands:
        run_cli(command, here)
    return here


def run_cli(command: str, cwd: Path) -> None:
    """Run a `geomsim ...` line of the README in this process, in `cwd`, as bash would hand
    its words to the `geomsim` script (globs expanded there; a glob matching nothing stays)."""
    from geomsim.cli import main

    words = shlex.split(command)
    assert words[0] == "geomsim" and not {"|", "&&", ";", ">"} & set(words), command
    before = os.getcwd()
    os.chdir(cwd)
    try:
        argv = [found for word in words[1:]
                for found in (sorted(glob.glob(word)) or [word] if glob.has_magic(word) else [word])]
        code = main(argv)
    finally:
        os.chdir(before)
    assert code == 0, f"{command!r} failed ({code})"


def _env() -> dict[str, str]:
    # BROWSER: `--open` hands the address to `true` instead of starting a browser.
    return {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", "BROWSER": "true"}


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = _env()
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"{command!r} failed ({done.returncode}):\n{done.stderr[-2000:]}"
    return done


def test_the_quick_start_holds_two_commands_and_ci_runs_the_second():
    main, tests = quick_start()
    assert main.startswith("pip install . && geomsim ")
    assert tests.endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci


def test_ci_runs_the_tests_in_a_fresh_virtual_environment_it_makes():
    """CI must see what a newcomer's pip resolves today, not this machine's site-packages: the
    script makes a new venv and activates it before the README's test command."""
    ci = (ROOT / ".ci" / "run").read_text()
    _, tests = quick_start()
    made, used, ran = (ci.find('-m venv "$venv"'), ci.find('source "$venv/bin/activate"'),
                       ci.find(tests))
    assert 0 <= made < used < ran, "a fresh venv is made and activated before the tests run"
    assert "mktemp -d" in ci and "--system-site-packages" not in ci


def test_the_main_job_writes_a_setup_diagram_and_runs_the_sample(newcomer):
    assert (newcomer / "out" / "setup.png").stat().st_size > 10_000
    assert (newcomer / "out" / "anasazi" / "sample" / "game.jsonl").exists()


@pytest.mark.parametrize("command", cli_commands())
def test_every_cli_command_runs_as_written_after_the_quick_start(command, newcomer, tmp_path):
    """Each command of the block, in a copy of the newcomer's folder where the commands before
    it that write what it reads have run (each apart, so that no test takes long)."""
    assert command.startswith("geomsim "), command
    earlier = cli_commands()[:cli_commands().index(command)]
    here = clone_after(newcomer, tmp_path, prerequisites(command, earlier))
    run_cli(command, here)
    for name in _written(command):
        assert (here / name).exists(), f"{command!r} wrote no {name}"
    assert left_outside_out(here) == [], f"{command!r} wrote outside {OUT}/"


def test_the_prerequisites_of_a_command_are_the_commands_that_write_what_it_reads():
    commands = cli_commands()
    drawn = next(c for c in commands if "--from out/setup.json" in c)
    assert prerequisites(drawn, commands[:commands.index(drawn)]) == [
        next(c for c in commands if "--json out/setup.json" in c)]
    report = next(c for c in commands if c.startswith("geomsim report"))
    assert [p.split()[2] for p in prerequisites(report, commands[:commands.index(report)])] == ["cibola"]


def test_the_python_api_block_runs(newcomer):
    (code,) = [b for b in blocks("python") if "load_game" in b][:1]
    done = run(f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}", newcomer)
    assert "legal" in done.stdout
    assert (newcomer / OUT / "moment.png").exists() and left_outside_out(newcomer) == []


def test_every_server_command_serves_its_page(newcomer, tmp_path):
    """Each `geomsim serve` line of the README starts, prints its address, and answers there
    with the page (on a free port where the line names none, so that runs do not collide)."""
    pytest.importorskip("starlette")
    commands = server_commands()
    assert commands, "the README shows how to start the web app"
    cli = cli_commands()
    here = clone_after(newcomer, tmp_path, [c for c in cli if any(c in prerequisites(s, cli)
                                                                  for s in commands)])
    for command in commands:
        if "--port" not in command:
            command += " --port 0"
        server = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=here, env=_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = server.stdout.readline()
            url = re.search(r"http://\S+", line)  # with the token: /?token=...
            assert url, f"{command!r} printed {line!r}; stderr: {server.stderr.read()[-2000:]}"
            page = _get(url.group(0))
            assert "<html" in page.lower(), page[:200]
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert left_outside_out(here) == []


def _get(url: str, seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                return answer.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)

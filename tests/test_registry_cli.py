"""Game lookup, the command line's error handling, and the engine's independence of games."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import geomsim
from geomsim import cli as cli_module
from geomsim.cli import common as cli_common
from geomsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_unknown_game_lists_known_ones():
    with pytest.raises(geomsim.UnknownGame, match="unknown game 'chess'; known games: anasazi, aztekz, cibola"):
        geomsim.load_game("chess")


def test_list_games_names_the_three_games():
    assert geomsim.list_games() == ["anasazi", "aztekz", "cibola"]


def test_engine_imports_no_game():
    for path in (ROOT / "geomsim").rglob("*.py"):  # the engine and its packages (web, scenario)
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "games" or n.startswith("games.") for n in names), \
                f"{path.name} imports {names}"


def test_version(capsys):
    assert main(["--version"]) == 0
    assert geomsim.__version__ in capsys.readouterr().out


def test_help_lists_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "games" in out and "setup" in out


def test_games_lists_player_counts_rules_and_compiled_players(capsys):
    assert main(["games"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert all(lines[g].endswith("rules, compiled random player")
               for g in ("cibola", "aztekz", "anasazi"))
    assert "2-4 players" in lines["anasazi"]


def test_unknown_game_is_one_line_exit_2(capsys):
    assert main(["setup", "chess"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["geomsim: error: unknown game 'chess'; known games: anasazi, aztekz, cibola"]


def test_bad_option_is_exit_2(capsys):
    assert main(["setup", "--players", "many", "anasazi"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_malformed_json_names_line_and_column(tmp_path, capsys):
    bad = tmp_path / "setup.json"
    bad.write_text('{"players": 2,\n  "mesas": [1, 2,]\n}')
    assert main(["setup", "cibola", "--from", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: line 2, column" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("players, problem", [(None, "missing"),
                                              ("four", "expected the number of players, got 'four'"),
                                              (True, "expected the number of players, got True")])
def test_setup_file_without_a_player_count_names_the_field(tmp_path, capsys, players, problem):
    data = tmp_path / "setup.json"
    assert main(["setup", "cibola", "-s", "1", "--json", str(data)]) == 0
    setup = json.loads(data.read_text())
    if players is None:
        del setup["players"]
    else:
        setup["players"] = players
    data.write_text(json.dumps(setup))
    capsys.readouterr()
    assert main(["setup", "cibola", "--from", str(data), "-o", str(tmp_path / "s.png")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"geomsim: error: {data}: players: {problem}; give it in the file or with --players")


def test_console_script_has_no_traceback():
    run = subprocess.run([sys.executable, "-m", "geomsim.cli", "setup", "nope"],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and "unknown game 'nope'" in run.stderr


def test_bad_player_count_is_one_line(capsys):
    assert main(["setup", "anasazi", "--players", "9"]) == 2
    assert capsys.readouterr().err.strip() == (
        "geomsim: error: setup: anasazi is played by 2 to 4 players, not 9")


@pytest.mark.parametrize("name", ["anasazi", "cibola", "aztekz"])
def test_setup_writes_a_diagram_and_data_that_draw_again(tmp_path, name, capsys):
    data, picture = tmp_path / "setup.json", tmp_path / "setup.png"
    assert main(["setup", name, "-p", "3", "-s", "4", "--json", str(data), "-o", str(picture)]) == 0
    assert picture.read_bytes().startswith(b"\x89PNG")
    again = tmp_path / "again.svg"
    assert main(["setup", name, "--from", str(data), "-o", str(again)]) == 0
    assert again.read_text().startswith("<?xml")


def test_a_broken_command_module_is_reported_not_hidden(tmp_path, monkeypatch, capsys):
    (tmp_path / "brokencmd.py").write_text("import geomsim_no_such_package\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli_module.LAZY_COMMANDS, "broken", "brokencmd:command")
    monkeypatch.setitem(cli_module.LAZY_COMMANDS, "absent", "geomsim_absent_pkg.cli:command")
    assert main(["broken"]) == 2
    assert "geomsim_no_such_package" in capsys.readouterr().err
    assert main(["absent"]) == 2
    assert "No such command 'absent'" in capsys.readouterr().err


GAME_COMMAND = """
from geomsim.commands import Command, Option, echo
from geomsim.errors import InputError

def run(count, label, loud, seed):
    if count == 13:
        raise InputError(f"--count: {count} is unlucky")
    echo(f"{label} x{count} seed {seed}" + ("!" if loud else ""))

command = Command("lucky", \"\"\"Say a label COUNT times.

    Longer help.\"\"\", run, (
    Option(("--count", "-c"), "int", default=2, show_default=True, range=(1, 20), help="How many."),
    Option(("--name", "label"), required=True, help="The label."),
    Option(("--loud",), "flag", help="Shout."),
    Option(("--seed",), "seed", default=0, help="A seed."),
))
"""


def test_a_game_command_declared_as_data_runs_as_a_click_command(tmp_path, monkeypatch, capsys):
    """A game's command is `geomsim.commands` data (no click in the game); the command line makes
    it a click command: options typed and ranged, help, and an InputError as one line, exit 2."""
    (tmp_path / "luckycmd.py").write_text(GAME_COMMAND)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli_module.LAZY_COMMANDS, "lucky", "luckycmd:command")
    assert main(["lucky", "--name", "x", "-c", "3", "--loud", "--seed", "9"]) == 0
    assert capsys.readouterr().out == "x x3 seed 9!\n"
    assert main(["--help"]) == 0
    assert "lucky    Say a label COUNT times." in capsys.readouterr().out
    assert main(["lucky", "--help"]) == 0
    shown = capsys.readouterr().out
    assert "Longer help." in shown and "-c, --count INTEGER RANGE  How many.  [default: 2; 1<=x<=20]" in shown
    assert main(["lucky", "--name", "x", "-c", "13"]) == 2
    assert capsys.readouterr().err == "geomsim: error: --count: 13 is unlucky\n"
    for argv, problem in ((["lucky", "-c", "3"], "Missing option '--name'"),
                          (["lucky", "--name", "x", "-c", "21"], "21 is not in the range 1<=x<=20"),
                          (["lucky", "--name", "x", "--seed", "-1"], "-1 is not in the range 0<=x<=4294967295")):
        assert main(argv) == 2
        assert problem in capsys.readouterr().err


def test_a_command_entry_that_is_not_a_command_is_named(tmp_path, monkeypatch, capsys):
    (tmp_path / "notacmd.py").write_text("command = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli_module.LAZY_COMMANDS, "odd", "notacmd:command")
    assert main(["odd"]) == 2
    assert capsys.readouterr().err.strip() == (
        "geomsim: error: command odd: notacmd:command is not a click command")


# -- outputs: checked before any work, written as ordinary files --------------------------------
@pytest.mark.parametrize("argv, message", [
    (["setup", "anasazi", "-o", "x.jpg"], "x.jpg: give a name ending in .png, .svg, .pdf"),
    (["setup", "anasazi", "--json", "x.jpg"], "x.jpg: give a name ending in .json"),
    (["setup", "anasazi", "-o", ""], "give a name, not an empty one"),
    (["analyze", "anasazi", "-o", ""], "give a name, not an empty one"),
    (["run", "scenarios", "--out", ""], "give a name, not an empty one"),
    (["replay", "game.jsonl", "-o", "x.png"], "x.png: give a name ending in .gif (or a folder"),
    (["replay", "game.jsonl", "-o", ""], "give a name, not an empty one"),
    (["rules", "--coverage", "x.html"], "x.html: give a name ending in .md"),
    (["reach", "--setup", "pyproject.toml", "--map", "-o", "x.jpg"], "give a name ending in .png"),
    (["reach", "--setup", "pyproject.toml", "--json", "x.txt"], "give a name ending in .json"),
])
def test_an_output_the_command_cannot_write_is_refused_before_any_work(argv, message, capsys,
                                                                      monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the command started work")

    monkeypatch.setattr(cli_common, "load_game", no_work)
    monkeypatch.chdir(ROOT)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_setup_without_outputs_writes_the_diagram_and_data_here(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    umask = os.umask(0o022)
    try:
        assert main(["setup", "cibola", "-s", "3"]) == 0
    finally:
        os.umask(umask)
    assert capsys.readouterr().out.split() == ["wrote", "cibola-setup-3.json", "wrote",
                                               "cibola-setup-3.png"]
    assert (tmp_path / "cibola-setup-3.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "cibola-setup-3.png").stat().st_mode & 0o777 == 0o644  # not a private 0600
    assert main(["setup", "cibola", "--from", "cibola-setup-3.json"]) == 0
    assert capsys.readouterr().out.strip() == "wrote cibola-setup-3.png"  # the data is the source


def test_an_unwritable_output_is_one_line_naming_it(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["setup", "cibola", "-o", str(tmp_path / "file" / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"geomsim: error: cannot write {tmp_path}/file/x.png: "
                                        f"{tmp_path}/file is a file, not a folder"]


def test_run_of_a_folder_without_scenarios_says_so(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["run", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"geomsim: error: no scenario files in {tmp_path}/empty (none named *.yaml below it)")


def test_the_run_header_shows_the_whole_description_wrapped(tmp_path, capsys):
    words = " ".join(f"word{i}" for i in range(60))
    scenario = tmp_path / "long.yaml"
    scenario.write_text(f"description: |\n  First line, cut\n  mid-sentence. {words}.\n"
                        "game: cibola\nplayers: 3\nseed: 0\nexpect:\n  - to_move: [0, 1, 2]\n")
    assert main(["run", str(scenario), "--no-outputs"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[1:out.index(next(line for line in out if line.startswith("  pass")))]
    assert " ".join(" ".join(header).split()) == f"First line, cut mid-sentence. {words}."
    assert len(header) > 1 and all(len(line) <= 96 for line in header)


def test_python_dash_m_geomsim_is_the_command_line():
    out = subprocess.run([sys.executable, "-m", "geomsim", "games"], capture_output=True,
                         text=True, check=True)
    assert all(name in out.stdout for name in geomsim.list_games())

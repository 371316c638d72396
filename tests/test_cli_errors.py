"""Errors are one line (issue 31): a usage error too, where click would print a ``Usage:`` line
first; the line ends by naming the command's help."""

from __future__ import annotations

import pytest

from geomsim.cli import main


@pytest.mark.parametrize("argv, problem, command", [
    (["setup", "anasazi", "-p", "x"], "Invalid value for '--players' / '-p': 'x' is not a valid "
                                      "integer.", "geomsim setup"),
    (["setup"], "Missing argument 'GAME'.", "geomsim setup"),
    (["setup", "anasazi", "--colour", "red"], "--colour", "geomsim setup"),
    (["setup", "anasazi", "-o", "x.jpg"], "Invalid value for '-o' / '--output': x.jpg: give a "
                                          "name ending in .png, .svg, .pdf", "geomsim setup"),
    (["analyze", "cibola", "-n", "0"], "Invalid value for '--games' / '-n': 0 is not in the "
                                       "range x>=1.", "geomsim analyze"),
    (["nosuch"], "No such command 'nosuch'.", "geomsim"),
])
def test_a_usage_error_is_one_line(argv, problem, command, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    # click's words vary between releases: the problem is in the line, the line is alone
    assert captured.err.startswith("geomsim: error: ") and problem in captured.err
    assert captured.err.endswith(f" (see {command} --help)\n") and captured.err.count("\n") == 1


def test_other_errors_name_no_help(capsys):
    assert main(["setup", "nosuchgame"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("geomsim: error: ") and "--help" not in err

"""The examples of the docs run as written and print what the docs show (issue 31: docs/reach.md
showed a pueblo that seed 3 no longer divides, and a sector the command refused)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from geomsim.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _blocks(section: str) -> list[str]:
    return re.findall(r"^```\n(.*?)^```", section, re.M | re.S)


def test_the_reach_commands_run_and_print_what_docs_reach_shows(tmp_path, monkeypatch, capsys):
    text = (DOCS / "reach.md").read_text(encoding="utf-8")
    commands, transcript = _blocks(text.split("## Command line", 1)[1].split("\n## ", 1)[0])[:2]
    monkeypatch.chdir(tmp_path)
    for line in commands.splitlines():
        command = shlex.split(line.split("  #", 1)[0])
        assert command[0] == "geomsim" and main(command[1:]) == 0, (line, capsys.readouterr().err)
    capsys.readouterr()
    said, *shown = transcript.splitlines(keepends=True)
    assert said.startswith("$ geomsim ")
    assert main(shlex.split(said[2:])[1:]) == 0
    assert capsys.readouterr().out == "".join(shown)

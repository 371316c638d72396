"""The example scripts run."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_moments_example_draws_each_discrete_game(tmp_path):
    module = runpy.run_path(str(ROOT / "examples" / "moments.py"))
    module["main"](tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aztekz-moment.png", "cibola-moment.png"]


def test_referee_example_judges_placements_and_reach(capsys):
    runpy.run_path(str(ROOT / "examples" / "referee.py"))["main"](7)
    out = capsys.readouterr().out.splitlines()
    assert out[1].endswith(": legal")
    assert "anasazi/4.2/play-area: the marker hangs" in out[2]
    assert "anasazi/4.2/cover-explorer" in out[3]
    assert " reaches " in out[4] and "marker(s), margin ±" in out[4]


def test_random_games_example_tells_each_seat_its_share():
    table = runpy.run_path(str(ROOT / "examples" / "random_games.py"))["seat_table"](3, 300)
    lines = table.splitlines()
    shares = [float(line.split()[1].rstrip("%")) for line in lines[2:5]]
    assert lines[0].startswith("300 random 3-player games") and abs(sum(shares) - 100) < 0.5
    assert lines[5].startswith("game 0 begins 0: send")


def test_notebook_runs_and_shows_drawings_boards_and_tables():
    """examples/notebook.ipynb, executed as Jupyter would (nbclient), cannot rot."""
    import pytest

    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pyspiel")
    nb = nbformat.read(ROOT / "examples" / "notebook.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    kinds = {k for o in outputs for k in o.get("data", {})}
    assert {"image/svg+xml", "image/png", "text/html"} <= kinds
    text = "".join(o.get("text", "") for o in outputs)
    assert "Treasures of Cibola, 3 players: round 1, send" in text and "Aztekz, 2 players" in text
    html = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    assert "<code>cibola/round/stages</code>" in html and "<h3>cibola: 10 games, 2 players</h3>" in html

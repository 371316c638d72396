"""A compiled batch compiles (or loads) its player once, before the workers start, and no game's
``seconds`` counts that (issue 31: "Duration Seconds max 174.6 s", a compile line per worker)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from geomsim import analysis, cli
from geomsim.analysis import read_rows
from tests.toygames import GridGame

COMPILE_SECONDS = 0.4


class ColdGrid(GridGame):
    """Tic-tac-toe whose compiled player takes COMPILE_SECONDS at its first call in a process,
    as numba's kernels do, and says so in the file named by GEOMSIM_TEST_COMPILES."""

    compiled_here = False

    def random_playouts(self, states, seed: int = 0):
        if not ColdGrid.compiled_here:
            time.sleep(COMPILE_SECONDS)
            with open(os.environ["GEOMSIM_TEST_COMPILES"], "a", encoding="utf-8") as f:
                f.write(f"compiled in process {os.getpid()}\n")
            ColdGrid.compiled_here = True
        return super().random_playouts(states, seed)


COLD_GRID = ColdGrid()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_compiled_batch_compiles_once_and_times_games_only(tmp_path: Path, monkeypatch,
                                                             workers: str) -> None:
    said = tmp_path / "compiles.txt"
    monkeypatch.setenv("GEOMSIM_TEST_COMPILES", str(said))
    monkeypatch.setattr(ColdGrid, "compiled_here", False)
    monkeypatch.setattr(analysis, "_READY", set(), raising=False)  # a new process, as far as the batch knows
    assert cli.main(["analyze", "tests.test_compiled_batches:COLD_GRID", "--compiled", "-n", "8",
                     "-w", workers, "--chunk", "1", "--no-plot", "-o", str(tmp_path / "out")]) == 0
    assert said.read_text().splitlines() == [f"compiled in process {os.getpid()}"]
    seconds = [r["seconds"] for r in read_rows(tmp_path / "out" / "games.jsonl")]
    assert len(seconds) == 8 and max(seconds) < COMPILE_SECONDS / 2


def test_a_compiled_batch_says_its_player_does_not_record_the_ending(tmp_path: Path) -> None:
    """The kernels return scores and decisions only: the Ending metric says so, not "unknown"."""
    from geomsim.metrics import metric_lines, metrics

    assert cli.main(["analyze", "tests.toygames:GRID", "--compiled", "-n", "4", "-w", "1",
                     "--no-plot", "-o", str(tmp_path)]) == 0
    found = dict(metric_lines(metrics(read_rows(tmp_path / "games.jsonl"))))
    assert found["Ending"].startswith("not recorded by the compiled player 100.0%")

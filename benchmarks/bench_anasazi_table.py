"""Benchmark of the Anasazi table: building a random layout and drawing its setup diagram.

Run by hand:  .venv/bin/python benchmarks/bench_anasazi_table.py [--seeds 30]
Prints a table of median and worst times after imports (targets: layout < 50 ms, PNG < 150 ms).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from games.anasazi.draw import draw_table
from games.anasazi.layout import check_table, random_setup, random_table
from geomsim.plotting import save

TARGETS_MS = {"layout (random_table)": 50.0, "PNG (draw_table + save)": 150.0}


def timed(fn: Callable[[], object], repeat: int) -> list[tuple[float, float]]:
    """(wall, CPU) times in ms of `repeat` calls: on a shared machine the CPU time of this
    process is the steadier figure."""
    out = []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        out.append(((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="layouts to time")
    parser.add_argument("--draws", type=int, default=10, help="diagrams to time per format")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.seeds, args.draws = 1, 1

    rows: dict[str, list[tuple[float, float]]] = {}
    seeds = iter(range(10**6))
    rows["layout (random_table)"] = timed(lambda: random_table(next(seeds)), args.seeds)
    tables = [random_table(s) for s in range(5)]
    rows["  of which check_table"] = timed(lambda: check_table(tables[0]), args.seeds)
    rows["setup (random_setup)"] = timed(lambda: random_setup(4, next(seeds)), args.seeds)
    setup = random_setup(4, 7)
    out = Path(tempfile.mkdtemp())
    first = timed(lambda: save(draw_table(setup), out / "first.png"), 1)
    rows["PNG, first draw (font caches)"] = first
    for suffix in ("png", "svg", "pdf"):
        name = "PNG (draw_table + save)" if suffix == "png" else f"{suffix.upper()} (draw + save)"
        rows[name] = timed(lambda: save(draw_table(setup), out / f"t.{suffix}"), args.draws)
    rows["draw_table alone (no render)"] = timed(lambda: draw_table(setup), args.draws)

    print(f"{'what':34s} {'wall median':>11s} {'wall worst':>10s} {'CPU median':>10s} "
          f"{'target':>8s}   (ms)")
    for name, times in rows.items():
        wall, cpu = [t[0] for t in times], [t[1] for t in times]
        target = TARGETS_MS.get(name)
        print(f"{name:34s} {statistics.median(wall):11.1f} {max(wall):10.1f} "
              f"{statistics.median(cpu):10.1f} {'< %g' % target if target else '':>8s}")


if __name__ == "__main__":
    main()

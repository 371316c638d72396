"""Benchmark of the Anasazi table: building a random layout and drawing its setup diagram.

Run by hand:  .venv/bin/python benchmarks/bench_anasazi_table.py [--seeds 30] [--fresh 5]
Prints a table of median and worst times after imports (targets: layout <= 10 ms, PNG <= 1.1x
the anchor), then, in fresh processes (`--fresh` of each, alternating): the first diagram
against the matplotlib-collections anchor (the table's polygons as one PolyCollection, the
same figure size and dpi, saved to PNG; both timed from before matplotlib's import, the setup
read from JSON), and a whole `geomsim setup` process. Targets: first diagram <= 1.5x the
anchor; `geomsim setup` <= 1.0 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from games.anasazi.draw import draw_table
from games.anasazi.layout import check_table, random_setup, random_table
from geomsim.plotting import save

TARGETS_MS = {"layout (random_table)": 10.0}

# Run in a fresh process: print the CPU ms from before matplotlib's import to the saved PNG,
# and from after the imports.
ANCHOR = """
import json, sys, time
start = time.process_time()
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
imported = time.process_time()
table = json.load(open(sys.argv[1]))
rings = [m["polygon"]["shell"] for m in table["mesas"]]
rings += [s["polygon"]["shell"] for p in table["pueblos"] for s in p["sectors"]]
rings += [e["polygon"]["shell"] for e in table["expedition_camps"]]
fig = Figure(figsize=(11.0, 8.0), layout="constrained")
FigureCanvasAgg(fig)
ax = fig.add_subplot()
ax.set_aspect("equal")
ax.add_collection(PolyCollection(rings, facecolors="#a5542c", edgecolors="black"))
ax.autoscale_view()
fig.savefig(sys.argv[2], dpi=120)
print((time.process_time() - start) * 1000, (time.process_time() - imported) * 1000)
"""
FIRST = """
import json, sys, time
from games.anasazi.components import Setup
setup = Setup.from_json(json.load(open(sys.argv[1])))
start = time.process_time()
from games.anasazi.draw import draw_table
from geomsim.plotting import save
imported = time.process_time()
save(draw_table(setup), sys.argv[2])
print((time.process_time() - start) * 1000, (time.process_time() - imported) * 1000)
"""


def fresh(code: str, *args: str) -> tuple[float, float]:
    """The two figures a fresh Python process prints for `code`."""
    # -P: the working directory must not come before PYTHONPATH (it may be another checkout).
    out = subprocess.run([sys.executable, "-P", "-c", code, *args], check=True,
                         capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    whole, drawn = out.stdout.split()[-2:]
    return float(whole), float(drawn)


def whole_process(out: Path) -> tuple[float, float]:
    """Wall and CPU ms of a whole `geomsim setup anasazi` process (a random table, drawn to
    PNG); the CPU is the child's (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-m", "geomsim.cli", "setup", "anasazi", "-p", "4", "-s",
                    "7", "-o", str(out)], check=True, capture_output=True,
                   env=dict(os.environ, MPLBACKEND="Agg"))
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return wall, cpu


def fresh_rows(setup_json: Path, out: Path, repeat: int) -> None:
    """Print the fresh-process rows: medians of `repeat` runs each, alternating."""
    anchor, first, whole = [], [], []
    for _ in range(repeat):
        anchor.append(fresh(ANCHOR, str(setup_json), str(out / "anchor.png")))
        first.append(fresh(FIRST, str(setup_json), str(out / "first.png")))
        whole.append(whole_process(out / "setup.png"))
    (a, a1), (f, f1), (w, wc) = ([statistics.median(c) for c in zip(*v)]
                                 for v in (anchor, first, whole))
    print(f"\nfresh processes, median of {repeat}; CPU ms from before matplotlib's import, and "
          f"from after the imports:")
    print(f"  anchor (one PolyCollection, PNG)   {a:8.1f} {a1:8.1f}")
    print(f"  first diagram (draw_table, PNG)    {f:8.1f} {f1:8.1f}   {f / a:.2f}x and "
          f"{f1 / a1:.2f}x the anchor (target <= 1.5x)")
    print(f"  whole `geomsim setup` process      {w:8.1f} wall, {wc:.1f} CPU ms (target <= 1000)")


def timed(fn: Callable[[], object], repeat: int) -> list[tuple[float, float]]:
    """(wall, CPU) times in ms of `repeat` calls: on a shared machine the CPU time of this
    process is the steadier figure."""
    out = []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        out.append(((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000))
    return out


def steady_anchor(setup, out: Path) -> float:
    """CPU ms of the anchor drawn in this process: the table's polygons as one PolyCollection
    on a figure of the diagram's size, saved to PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure

    start = time.process_time()
    table = setup.table
    polys = [m.polygon for m in table.mesas] + [s.polygon for s in table.sectors] \
        + [e.polygon for e in table.expedition_camps]
    fig = Figure(figsize=(11.0, 8.0), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.add_collection(PolyCollection([list(p.exterior.coords) for p in polys],
                                     facecolors="#a5542c", edgecolors="black"))
    ax.autoscale_view()
    fig.savefig(out / "anchor.png", dpi=120)
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="layouts to time")
    parser.add_argument("--draws", type=int, default=10, help="diagrams to time per format")
    parser.add_argument("--fresh", type=int, default=5, help="fresh processes of each kind")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.seeds, args.draws, args.fresh = 1, 1, 1

    rows: dict[str, list[tuple[float, float]]] = {}
    seeds = iter(range(10**6))
    rows["layout (random_table)"] = timed(lambda: random_table(next(seeds)), args.seeds)
    tables = [random_table(s) for s in range(5)]
    rows["  of which check_table"] = timed(lambda: check_table(tables[0]), args.seeds)
    rows["setup (random_setup)"] = timed(lambda: random_setup(4, next(seeds)), args.seeds)
    setup = random_setup(4, 7)
    out = Path(tempfile.mkdtemp())
    setup_json = out / "setup.json"
    setup_json.write_text(json.dumps(setup.to_json()))
    first = timed(lambda: save(draw_table(setup), out / "first.png"), 1)
    rows["PNG, first draw (font caches)"] = first
    rows["anchor PNG (one PolyCollection)"] = [(fresh_anchor_ms, fresh_anchor_ms)
                                               for fresh_anchor_ms in [steady_anchor(setup, out)
                                                                       for _ in range(args.draws)]]
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
              f"{statistics.median(cpu):10.1f} {'<= %g' % target if target else '':>8s}")
    anchor = statistics.median(t[1] for t in rows["anchor PNG (one PolyCollection)"])
    png = statistics.median(t[1] for t in rows["PNG (draw_table + save)"])
    print(f"steady PNG: {png / anchor:.2f}x the anchor (target <= 1.1x)")
    fresh_rows(setup_json, out, args.fresh)


if __name__ == "__main__":
    main()

"""Anasazi random games from seeds: the layout against its anchors, measured in one run.

    PYTHONPATH=. python benchmarks/bench_anasazi_seeds.py [--seeds 60] [--before OLD_LAYOUT.py]

Seed by seed, in turn (CPU time of this process, medians): the layout (`random_table`) and its
parts (the pymunk relaxation, placing the pueblos, the rules judged per table); anchor 1, a
bare pymunk relaxation of the same tiles (a fresh space, the 28 mesas as convex polygons
inflated by half the valley and the six camps, 12 steps: what any pymunk layout pays); a
compiled game from the seed (`play_compiled`, layout included) and, anchor 2, a compiled game
from a table made before the clock starts. With `--before`, the layout module of another
version (say `git show main:games/anasazi/layout.py > /tmp/old_layout.py`) is loaded from that
file and its `random_table`, and a compiled game from a seed laid out by it, are timed in the
same turns. Targets (issue 30): a layout in at most 3 ms and 300 compiled games a second from
seeds on a quiet core; on a loaded one, read the ratios to the anchors.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pymunk

from games.anasazi import GAME
from games.anasazi import layout as L
from games.anasazi import rules as R
from games.anasazi.components import Sizes
from geomsim.bots import play_compiled

SIZES, OPTIONS = Sizes(), L.LayoutOptions()


def tiles(seed: int) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The mesa outlines, starting centres and camp squares of the seed's first attempt."""
    rng = np.random.default_rng([seed, 0, 0])
    outlines = L.mesa_outlines(rng, OPTIONS)
    camps, _ = L.camp_squares(rng, SIZES, OPTIONS)
    return outlines, L.start_positions(rng, OPTIONS), camps


def load_before(path: str) -> ModuleType:
    """The layout module of another version, from a file (it imports this version's
    components, as it did its own)."""
    spec = importlib.util.spec_from_file_location("layout_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def bare_relaxation(outlines: list[np.ndarray], centres: np.ndarray, camps: np.ndarray) -> None:
    """Anchor 1: the tiles in a fresh pymunk space, 12 steps, nothing measured."""
    space = pymunk.Space()
    clearance = SIZES.valley_gap / 2 + OPTIONS.slop
    bodies = [pymunk.Body(body_type=pymunk.Body.STATIC)] \
        + [pymunk.Body(mass=1.0, moment=math.inf) for _ in outlines[1:]]
    for body, centre in zip(bodies, centres.tolist()):
        body.position = centre
    space.add(*bodies, *(pymunk.Poly(b, o.tolist(), radius=clearance)
                         for b, o in zip(bodies, outlines)),
              *(pymunk.Poly(space.static_body, s.tolist(), radius=clearance) for s in camps))
    for _ in range(12):
        space.step(1 / 60)


def cpu_ms(fn: Callable[[], Any]) -> float:
    """CPU ms of one call."""
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=60, help="seeds timed")
    parser.add_argument("--smoke", action="store_true",
                        help="a few seeds, only to prove the script runs (the tests do)")
    parser.add_argument("--before", help="a layout module of another version, timed alike")
    args = parser.parse_args()
    if args.smoke:
        args.seeds = 2
    before = load_before(args.before) if args.before else None
    ready = GAME.new_state(4, seed=10**6)
    play_compiled(GAME, 4, 10**6, ready)  # numba's cache loaded before the clock
    parts: dict[str, float] = {}

    def timed_part(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                parts[name] = parts.get(name, 0.0) + (time.process_time() - start) * 1000
        return wrapper

    names = {"relax": "relax", "place_pueblos": "place_pueblos",
             "judge": "_settled_problems"}
    rows: dict[str, list[float]] = {k: [] for k in (
        "layout (random_table)", *(f"  of which {v}" for v in names.values()),
        "anchor 1: bare pymunk relaxation", "compiled game from a seed",
        "anchor 2: compiled game, ready table")}
    if before is not None:
        rows["layout before (--before)"] = []
        rows["compiled game from a seed, layout before"] = []
    kept = {v: getattr(L, v) for v in names.values()}

    def before_table(seed: int, sizes: Any = SIZES, options: Any = None) -> Any:
        assert before is not None
        return before.random_table(seed, sizes)

    def this_turn(seed: int) -> None:
        """This version's layout (and its parts), anchor 1, its game from the seed, anchor 2."""
        outlines, centres, camps = tiles(seed)
        for v, fn in kept.items():
            setattr(L, v, timed_part(v, fn))
        parts.clear()
        rows["layout (random_table)"].append(cpu_ms(lambda: L.random_table(seed)))
        for v, fn in kept.items():
            setattr(L, v, fn)
            rows[f"  of which {v}"].append(parts.get(v, 0.0))
        rows["anchor 1: bare pymunk relaxation"].append(
            cpu_ms(lambda: bare_relaxation(outlines, centres, camps)))
        R._random_setup.cache_clear()  # the game below lays its table out
        rows["compiled game from a seed"].append(
            cpu_ms(lambda: play_compiled(GAME, 4, 2 * 10**6 + seed)))
        rows["anchor 2: compiled game, ready table"].append(
            cpu_ms(lambda: play_compiled(GAME, 4, seed, ready)))

    def before_turn(seed: int) -> None:
        """The other version's layout and its game from the seed."""
        assert before is not None
        rows["layout before (--before)"].append(cpu_ms(lambda: before.random_table(seed)))
        # what random_setup calls; with the other version's own options (an options object
        # of this version is not its default: it would judge every table by check_table)
        now, L.random_table = L.random_table, before_table
        try:
            # the same seed as the game of this version (other seeds' tables take other
            # numbers of attempts: 2-3% apart over 60 seeds), its setup forgotten
            R._random_setup.cache_clear()
            rows["compiled game from a seed, layout before"].append(
                cpu_ms(lambda: play_compiled(GAME, 4, 2 * 10**6 + seed)))
        finally:
            L.random_table = now

    for seed in range(args.seeds):
        turns = [this_turn] if before is None else [this_turn, before_turn]
        # each version first every other seed: a layout timed right after a compiled game
        # runs on cold caches (always timing the other version there read 1.20x for 1.12x)
        for turn in turns[::-1] if seed % 2 else turns:
            turn(seed)
    median = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{args.seeds} seeds, CPU ms medians; load average {os.getloadavg()[0]:.1f}")
    print("| what | CPU ms | per second |")
    print("|---|---:|---:|")
    for name, ms in median.items():
        print(f"| {name} | {ms:.2f} | {1000 / max(ms, 1e-9):,.0f} |")
    layout, bare = median["layout (random_table)"], median["anchor 1: bare pymunk relaxation"]
    seeds, ready_ms = median["compiled game from a seed"], median["anchor 2: compiled game, ready table"]
    print(f"layout / bare pymunk relaxation: {layout / bare:.2f}x; game from a seed / game from a "
          f"ready table: {seeds / ready_ms:.1f}x")
    if before is not None:
        old, old_seeds = median["layout before (--before)"], \
            median["compiled game from a seed, layout before"]
        print(f"before / now: layout {old / layout:.2f}x, compiled game from a seed "
              f"{old_seeds / seeds:.2f}x")
    print(f"targets on a quiet core: layout <= 3 ms ({layout:.1f} here), >= 300 games/s from "
          f"seeds ({1000 / seeds:.0f} here)")


if __name__ == "__main__":
    main()

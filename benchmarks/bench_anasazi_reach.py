"""Benchmark of Anasazi reach analysis: one-marker queries and full reach maps.

Run by hand:  .venv/bin/python benchmarks/bench_anasazi_reach.py [--seeds 3] [--steps 24]

Tables of 4 players from random setups, played a few random actions on (base camps and
expeditions on the table), then:
- one-marker queries `reach(state, e, s, max_markers=1)` for every expedition and every sector
  within 80 mm of its end (the queries that need a search; farther ones end at the distance
  bound), with the margin (the default) and without;
- full reach maps `reach_map(state, m)` for m = 1, 2, 3, 5 (`--maps`).
Targets: a one-marker query in 10 ms or less (median), a map at max_markers=1 under 1 s, at
3 in 300 ms, at 5 in 2 s.
Wall and CPU (this process) times in ms; CPU is the steadier figure on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from collections import Counter

import numpy as np
import shapely

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi.reach import reach, reach_map
from games.anasazi.actions import PlaceMarker


MAP_TARGETS_MS = {1: 1000.0, 3: 300.0, 5: 2000.0}


def timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000, out


def played(seed: int, steps: int):
    """A 4-player state after setup and `steps` random actions (markers preferred)."""
    state = GAME.new_state(4, seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    while not state.is_over() and done < 8 + 12 + steps:
        p = state.to_move()[0]
        acts = state.legal_actions(p).sample(rng, 4)
        markers = [a for a in acts if isinstance(a, PlaceMarker)]
        state.apply((markers or acts)[0], p)
        done += 1
    return state


def row(name: str, times: list[tuple[float, float]], target: float | None = None) -> str:
    wall = sorted(t[0] for t in times)
    cpu = sorted(t[1] for t in times)
    p90 = wall[min(len(wall) - 1, int(0.9 * len(wall)))]
    flag = "" if target is None else ("  ok" if statistics.median(cpu) <= target else "  SLOW")
    return (f"{name:38s} {len(times):5d} {statistics.median(wall):9.2f} {p90:9.2f} "
            f"{wall[-1]:9.2f} {statistics.median(cpu):9.2f}{flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="tables to time")
    parser.add_argument("--steps", type=int, default=24, help="random actions played first")
    parser.add_argument("--maps", default="1,2,3,5", help="max_markers of the reach maps timed")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.seeds, args.steps, args.maps = 1, 4, "1"

    one, one_m = [], []
    maps: dict[int, list[tuple[float, float]]] = {int(m): [] for m in args.maps.split(",")}
    statuses: Counter[str] = Counter()
    for seed in range(args.seeds):
        state = played(seed, args.steps)
        geo_sectors = state.table.sectors
        for camp in state.table.expedition_camps:
            ex, ey, _ = lg.expedition_end(state.board(), camp.id)
            gaps = shapely.distance([s.polygon for s in geo_sectors], shapely.Point(ex, ey))
            for sector, gap in zip(geo_sectors, gaps):
                if gap > 80:
                    continue
                w, c, r = timed(lambda: reach(state, camp.id, sector.id, 1, with_margin=False))
                one.append((w, c))
                statuses[r.status] += 1
                w, c, _ = timed(lambda: reach(state, camp.id, sector.id, 1))
                one_m.append((w, c))
        for m in maps:
            w, c, _ = timed(lambda: reach_map(state, m))
            maps[m].append((w, c))

    print(f"{'query':38s} {'n':>5s} {'median':>9s} {'p90':>9s} {'max':>9s} {'cpu med':>9s}  (ms)")
    print(row("one marker, no margin", one, 10.0))
    print(row("one marker, with margin", one_m, 10.0))
    for m, times in maps.items():
        print(row(f"reach map, max_markers={m}", times, MAP_TARGETS_MS.get(m)))
    print("one-marker verdicts:", dict(statuses))


if __name__ == "__main__":
    main()

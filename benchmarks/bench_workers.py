"""Two workers against one, with the anchor in the same run: `geomsim analyze anasazi --compiled`
(`-w 1` and `-w 2`, whole processes) against a bare `ProcessPoolExecutor` of 2 processes over
the same games (`play_compiled` of the same seeds, in chunks, nothing written) and against one
process playing them in a loop.

    PYTHONPATH=. python benchmarks/bench_workers.py [--games 300] [--rounds 3]

Each round runs the four commands in turn as fresh processes (imports, worker start and, for
geomsim, rows and summary included, as a user sees them); a speed-up is the one-process wall
time over the two-process wall time of the same round, whose load is the closest. Target
(issue 30): geomsim's speed-up at least 0.9 x the anchor's. The CPU columns (user + system of
the process and its children) show what the machinery costs whatever the load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The anchor: the same games, no rows, no summary; `workers` 1 is a plain loop.
ANCHOR = """
import sys
from concurrent.futures import ProcessPoolExecutor
from games.anasazi import GAME
from geomsim.bots import play_compiled

def play(seeds):
    return [play_compiled(GAME, 4, s).length for s in seeds]

games, workers = int(sys.argv[1]), int(sys.argv[2])
chunks = [list(range(i, min(i + 16, games))) for i in range(0, games, 16)]
if workers == 1:
    done = [play(c) for c in chunks]
else:
    with ProcessPoolExecutor(workers) as pool:
        done = list(pool.map(play, chunks))
print(sum(map(len, done)))
"""


def run(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, children included) of a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def commands(games: int, out: Path) -> dict[str, list[str]]:
    """The four commands of a round, by name."""
    cli = [sys.executable, "-m", "geomsim", "analyze", "anasazi", "-p", "4", "-n", str(games),
           "--compiled", "--no-progress", "--no-plot", "--force", "-o", str(out)]
    return {"anchor 1": [sys.executable, "-c", ANCHOR, str(games), "1"],
            "anchor 2": [sys.executable, "-c", ANCHOR, str(games), "2"],
            "geomsim -w 1": cli + ["-w", "1"],
            "geomsim -w 2": cli + ["-w", "2"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games a run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the four runs")
    parser.add_argument("--smoke", action="store_true",
                        help="a few games, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp())
    runs = commands(args.games, out)
    if args.smoke:  # one game in each one-process command: each process costs seconds of imports
        args.games, args.rounds = 1, 1
        runs = {name: command for name, command in commands(1, out).items() if "2" not in name}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for name, command in runs.items():
            times[name].append(run(command))
        loads.append(os.getloadavg()[0])
    print(f"{args.games} games of Anasazi (4 random players, compiled) a run, {args.rounds} rounds; "
          f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
    print("| run | wall s, median | CPU s, median | CPU ms a game |")
    print("|---|---:|---:|---:|")
    for name, t in times.items():
        wall, cpu = statistics.median(w for w, _ in t), statistics.median(c for _, c in t)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {1000 * cpu / args.games:.1f} |")
    if args.smoke:
        return
    speed = {kind: [one[0] / two[0] for one, two in zip(times[f"{kind} 1" if kind == "anchor"
                                                               else f"{kind} -w 1"],
                                                         times[f"{kind} 2" if kind == "anchor"
                                                               else f"{kind} -w 2"])]
             for kind in ("anchor", "geomsim")}
    share = [g / a for g, a in zip(speed["geomsim"], speed["anchor"])]
    print(f"speed-up of 2 processes, per round: anchor {', '.join(f'{s:.2f}' for s in speed['anchor'])}"
          f"; geomsim {', '.join(f'{s:.2f}' for s in speed['geomsim'])}")
    print(f"geomsim's speed-up / the anchor's, median of the rounds: {statistics.median(share):.2f} "
          "(target >= 0.9)")


if __name__ == "__main__":
    main()

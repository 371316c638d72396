"""Speed of the Anasazi rules: the batched marker check, the exact check, random games.

    .venv/bin/python benchmarks/bench_anasazi_rules.py [--games 50] [--poses 10000]

Prints a table of wall and CPU times (the machine is shared: CPU time is what a quiet core
shows). Targets: batched check <= 2 µs per pose on a full table; random 4-player games >= 100
per second per core.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from games.anasazi import GAME
from games.anasazi import legality as lg
from games.anasazi.actions import PlaceMarker
from games.anasazi.layout import random_setup


def timed(fn, repeat: int = 1) -> tuple[float, float]:
    """Wall and CPU seconds of `repeat` calls of `fn`, per call."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - wall) / repeat, (time.process_time() - cpu) / repeat


def full_table(seed: int = 1, markers_left: int = 10):
    """A 4-player game played at random until few markers are left (the table full of base
    camps and markers), on the first seed from `seed` whose game lasts that long."""
    while True:
        state = GAME.new_state(4, seed=seed)
        rng = np.random.default_rng(seed)
        while not state.is_over() and (state.markers_left() > markers_left or state.pending):
            state.apply(state.legal_actions().sample(rng, 1)[0])
        if not state.is_over():
            return state
        seed += 1


def random_game(setup, seed: int) -> int:
    """One random game from `setup` to the end; the number of actions."""
    state = GAME.new_state(setup.players, setup=setup)
    rng = np.random.default_rng(seed)
    n = 0
    while not state.is_over():
        state.apply(state.legal_actions().sample(rng, 1)[0])
        n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="random games per player count")
    parser.add_argument("--poses", type=int, default=10_000, help="poses per batched check")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.games, args.poses = 1, 100
    rows = []

    state = full_table()
    board = state.board()
    player = state.current
    markers = sum(len(p) for p in board.expeditions.values())
    started = [e for e, p in board.expeditions.items() if p]
    ctx = lg.marker_context(board, player, started[0])
    ctx_all = lg.marker_context(board, player, started[0], near_target=False)
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-400, 400, args.poses), rng.uniform(-400, 400, args.poses)
    h = rng.uniform(0, 360, args.poses)
    # poses that cover the explorer, as the sampler and reach analysis draw them
    tx, ty, tr = ctx.target
    half_along, half_across = lg.cover_room(board.sizes, tr)
    qa, qc = rng.uniform(-half_along, half_along, args.poses), rng.uniform(-half_across, half_across, args.poses)
    c, s = np.cos(np.radians(h)), np.sin(np.radians(h))
    cx, cy = tx - (qa * c - qc * s), ty - (qa * s + qc * c)
    note = f"{len(board.camps)} camps, {markers} markers"
    for label, context, px, py in (("batched check, covering poses, near obstacles", ctx, cx, cy),
                                   ("batched check, covering poses, all obstacles", ctx_all, cx, cy),
                                   ("batched check, random poses, all obstacles", ctx_all, x, y)):
        wall, cpu = timed(lambda: lg.check_markers(context, px, py, h), repeat=20)
        rows.append((label + f" ({note})", wall / args.poses * 1e6, cpu / args.poses * 1e6,
                     "µs/pose", "<= 2"))
    cams = rng.uniform(-380, 380, (2, args.poses))
    wall, cpu = timed(lambda: lg.check_camps(board, cams[0], cams[1]), repeat=5)
    rows.append(("batched check, base camps", wall / args.poses * 1e6, cpu / args.poses * 1e6, "µs/camp", ""))
    found = lg.legal_marker_poses(ctx, rng, 200)
    actions = [PlaceMarker(started[0], *map(float, p)) for p in zip(*found)][:50]
    actions += [PlaceMarker(started[0], float(a), float(b), float(c))
                for a, b, c in zip(x[:50], y[:50], h[:50])]
    for a in actions:
        a.pose  # (made with the action, not by the check)
    # The first pass judges poses never seen; later passes find the board's memo.
    wall, cpu = timed(lambda: [state.check(a) for a in actions], repeat=1)
    rows.append((f"exact check (state.check), {len(actions)} fresh markers (first pass)",
                 wall / len(actions) * 1e6, cpu / len(actions) * 1e6, "µs/action", ""))
    wall, cpu = timed(lambda: [state.check(a) for a in actions], repeat=4)
    rows.append((f"exact check (state.check), the same {len(actions)} again (memo hits)",
                 wall / len(actions) * 1e6, cpu / len(actions) * 1e6, "µs/action", ""))
    wall, cpu = timed(lambda: state.legal_actions().sample(rng, 1), repeat=50)
    rows.append(("sample one legal action", wall * 1e6, cpu * 1e6, "µs", ""))

    for players in (2, 3, 4):
        wall0, cpu0 = time.perf_counter(), time.process_time()
        setups = [random_setup(players, seed) for seed in range(args.games)]
        setup_wall, setup_cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        steps = [random_game(setup, seed) for seed, setup in enumerate(setups)]
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        rows.append((f"random games, {players} players ({np.mean(steps):.0f} actions each)",
                     args.games / wall, args.games / cpu, "games/s",
                     ">= 100" if players == 4 else ""))
        rows.append((f"  actions/s, {players} players", sum(steps) / wall, sum(steps) / cpu,
                     "actions/s", ""))
        rows.append((f"  random setup (layout, not in the games/s), {players} players",
                     setup_wall / args.games * 1e3, setup_cpu / args.games * 1e3, "ms", ""))

    width = max(len(r[0]) for r in rows)
    print(f"{'what':{width}s}  {'wall':>10s}  {'CPU':>10s}  unit        target")
    for label, wall, cpu, unit, target in rows:
        print(f"{label:{width}s}  {wall:10.2f}  {cpu:10.2f}  {unit:10s}  {target}")


if __name__ == "__main__":
    main()

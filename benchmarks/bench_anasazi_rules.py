"""Speed of the Anasazi rules: the batched marker check, the exact check, random games.

    .venv/bin/python benchmarks/bench_anasazi_rules.py [--games 50] [--poses 10000]

Prints a table of wall and CPU times (the machine is shared: CPU time is what a quiet core
shows). Targets: batched check <= 2 µs per pose on a full table; a fresh legal exact check
(`state.check`) <= 10 µs, quoted with its anchor (the compiled loop called on one pose, in the
same run); random 4-player games >= 100 per second per core.
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
    # Single exact checks, each action judged once (a pose never seen: no memo hit), legal
    # poses and random ones (mostly illegal: shapely's numbers) apart, then the legal ones again
    # (memo hits). The anchor: the compiled loop (`fused.markers_ok`) called on one pose, as
    # many times, interleaved with the checks (issue 30: a fresh legal check <= 10 µs).
    n_single = 50 if args.smoke else 2000
    found = lg.legal_marker_poses(ctx, rng, 40 * n_single)
    legal = [PlaceMarker(started[0], *map(float, p)) for p in zip(*found)]
    rounds = 5
    assert len(legal) >= rounds * n_single, "too few legal poses drawn"
    wild = [PlaceMarker(started[0], float(a), float(b), float(c))
            for a, b, c in zip(*rng.uniform((-400, -400, 0), (400, 400, 360), (n_single // 10, 3)).T)]
    for a in legal + wild:
        a.pose  # (made with the action, not by the check)
    one = [np.array([float(v[0])]) for v in found]  # the first legal pose, x, y, heading
    turn, ok = np.radians(one[2]), np.empty(1, bool)
    from games.anasazi import fused  # the `fast` extra (numba)

    def anchor() -> None:
        for _ in range(n_single):
            fused.markers_ok(one[0], one[1], turn, True, ctx.limits, ctx.obstacle_limits, ok)

    anchor()  # compiled (or loaded from numba's cache) before timing
    best = {"anchor": (np.inf, np.inf), "fresh": (np.inf, np.inf), "memo": (np.inf, np.inf)}
    for r in range(rounds):  # each round a new slice of legal poses: every one fresh
        batch = legal[r * n_single:(r + 1) * n_single]
        for name, fn in (("anchor", anchor), ("fresh", lambda: [state.check(a) for a in batch]),
                         ("memo", lambda: [state.check(a) for a in batch])):
            wall, cpu = timed(fn)
            best[name] = min(best[name][0], wall / n_single), min(best[name][1], cpu / n_single)
    wall, cpu = timed(lambda: [state.check(a) for a in wild])
    anchor_cpu = best["anchor"][1]
    rows.append(("single check anchor: the compiled loop on one pose", best["anchor"][0] * 1e6,
                 anchor_cpu * 1e6, "µs/pose", ""))
    for label, (w, c), target in (
            (f"exact check (state.check), {n_single} fresh legal markers (first pass)",
             best["fresh"], "<= 10"),
            (f"exact check (state.check), the same {n_single} again (memo hits)", best["memo"], ""),
            (f"exact check (state.check), {len(wild)} fresh random markers (mostly illegal)",
             (wall / len(wild), cpu / len(wild)), "")):
        rows.append((label, w * 1e6, c * 1e6, "µs/action", f"{target} ({c / anchor_cpu:.1f}x anchor)"))
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

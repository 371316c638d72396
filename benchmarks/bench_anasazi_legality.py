"""Anasazi marker legality against its anchors measured in the same run, and what its users
spend (issue 30, item 1).

    python benchmarks/bench_anasazi_legality.py [--poses 10000] [--repeat 15] [--users 3]

- batched: `check_markers` (the compiled loop when numba is installed, and the numpy path)
  against the anchor, a plain fused numba loop written here (sincos, covering, play area,
  obstacle discs; no early exit, no wrapper) on the same poses and obstacles. Target: the
  default path within 2x of the anchor.
- single: `state.check` of poses never judged before (the first pass, legal ones and random,
  mostly illegal, ones apart) and of the same poses again (memo hits), against the anchor
  called on one pose. Target: a fresh legal check <= 10 µs (quote it with the anchor).
- users: a reach question, a planner decision and the choice figures on the same table (CPU
  ms a call; compare runs of this script on two trees, `PYTHONPATH=<tree>`).

CPU times (the machine is shared), the best of `--repeat` interleaved rounds.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_anasazi_rules import full_table  # noqa: E402

from games.anasazi import legality as lg  # noqa: E402
from games.anasazi.actions import PlaceMarker  # noqa: E402
from geomsim.bots import make_bot  # noqa: E402
from geomsim.registry import load_game  # noqa: E402


@numba.njit(cache=True)
def anchor(x, y, h, tx, ty, ha, hb, a, b, far, ox, oy, limit, out):  # pragma: no cover
    """The plain fused loop: every test of every pose, no early exit."""
    for i in range(len(x)):
        t = h[i] * (math.pi / 180.0)
        c, s = math.cos(t), math.sin(t)
        dx, dy = tx - x[i], ty - y[i]
        ok = (abs(dx * c + dy * s) <= ha) & (abs(dy * c - dx * s) <= hb)
        u, v = abs(x[i] * c + y[i] * s), abs(y[i] * c - x[i] * s)
        ok &= u * (u + 2 * a) + v * (v + 2 * b) + (a * a + b * b) <= far
        for j in range(len(ox)):
            dx, dy = ox[j] - x[i], oy[j] - y[i]
            ex = max(abs(dx * c + dy * s) - a, 0.0)
            ey = max(abs(dy * c - dx * s) - b, 0.0)
            ok &= ex * ex + ey * ey > limit[j]
        out[i] = ok


def anchor_args(ctx):
    """The anchor's numbers for a marker context (made here: the tree measured may predate
    the context's own arrays)."""
    a, b = ctx.sizes.marker_length / 2.0, ctx.sizes.marker_width / 2.0
    tx, ty, tr = ctx.target
    rows = np.array([r[:3] for r in ctx.rows], float).reshape(-1, 3)
    return (tx, ty, a - tr + lg.EPS, b - tr + lg.EPS, a, b, (ctx.sizes.play_area_radius + lg.EPS) ** 2,
            rows[:, 0].copy(), rows[:, 1].copy(), (rows[:, 2] - lg.EPS) ** 2)


def best_cpu(fns: dict[str, object], repeat: int) -> dict[str, float]:
    """The best CPU seconds of each function over `repeat` interleaved rounds."""
    best = dict.fromkeys(fns, math.inf)
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.process_time_ns()
            fn()
            best[name] = min(best[name], (time.process_time_ns() - start) * 1e-9)
    return best


def once_each(fn, items) -> float:
    """CPU seconds a call of `fn` over `items`, each once (never seen before: no memo hits)."""
    start = time.process_time_ns()
    for item in items:
        fn(item)
    return (time.process_time_ns() - start) * 1e-9 / len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poses", type=int, default=10_000, help="poses per batched check")
    parser.add_argument("--repeat", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--single", type=int, default=2000, help="fresh poses per single check row")
    parser.add_argument("--users", type=int, default=3, help="calls of each user")
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.poses, args.repeat, args.single, args.users = 200, 2, 20, 1
    has_fused = "fused" in inspect.signature(lg.check_markers).parameters
    rows: list[tuple[str, float, str, str]] = []

    state = full_table()
    board, player = state.board(), state.current
    expedition = next(e for e, p in board.expeditions.items() if p)
    rng = np.random.default_rng(0)
    n = args.poses
    x, y, h = rng.uniform(-400, 400, n), rng.uniform(-400, 400, n), rng.uniform(0, 360, n)
    ctx_near = lg.marker_context(board, player, expedition)
    ctx_all = lg.marker_context(board, player, expedition, near_target=False)
    tx, ty, tr = ctx_near.target
    ha, hb = lg.cover_room(board.sizes, tr)
    qa, qc = rng.uniform(-ha, ha, n), rng.uniform(-hb, hb, n)
    c, s = np.cos(np.radians(h)), np.sin(np.radians(h))
    cx, cy = tx - (qa * c - qc * s), ty - (qa * s + qc * c)
    out = np.empty(n, bool)
    note = f"{len(board.camps)} camps, {sum(map(len, board.expeditions.values()))} markers"
    for label, ctx, px, py in (("covering poses, near obstacles", ctx_near, cx, cy),
                               ("covering poses, all obstacles", ctx_all, cx, cy),
                               ("random poses, all obstacles", ctx_all, x, y)):
        extra = anchor_args(ctx)
        fns = {"anchor": lambda: anchor(px, py, h, *extra, out),
               "default": lambda: lg.check_markers(ctx, px, py, h).ok}
        if has_fused:
            fns["numpy"] = lambda: lg.check_markers(ctx, px, py, h, fused=False).ok
        anchor(px, py, h, *extra, out)  # compiled (or loaded) before timing
        assert (lg.check_markers(ctx, px, py, h).ok == out).all(), "the anchor disagrees"
        best = best_cpu(fns, args.repeat)
        m = len(ctx.rows)
        for name, t in best.items():
            rows.append((f"batched {label} ({m} obstacles), {name}", t / n * 1e9, "ns/pose",
                         f"{t / best['anchor']:.2f}x anchor"))

    # Single checks: poses never judged before, then the same poses again.
    legal = lg.legal_marker_poses(ctx_near, rng, 40 * args.single)
    fresh = [PlaceMarker(expedition, *map(float, p)) for p in zip(*legal)][:args.single]
    wild = [PlaceMarker(expedition, float(a), float(b), float(c))
            for a, b, c in zip(*rng.uniform((-400, -400, 0), (400, 400, 360), (args.single, 3)).T)]
    for act in fresh + wild:
        act.pose  # (made once an action is made: not the check's cost)
    one = [np.array([v]) for v in (cx[0], cy[0], h[0])]
    extra = anchor_args(ctx_near)
    t_anchor = best_cpu({"a": lambda: anchor(*one, *extra, out[:1])}, 200)["a"]
    t_fresh = once_each(state.check, fresh)
    t_memo = once_each(state.check, fresh)
    t_wild = once_each(state.check, wild)
    rows.append(("single: anchor on one pose", t_anchor * 1e6, "µs", ""))
    for label, t in (("state.check, fresh legal poses (first pass)", t_fresh),
                     ("state.check, the same poses again (memo hits)", t_memo),
                     ("state.check, fresh random poses (mostly illegal)", t_wild)):
        rows.append((f"single: {label}", t * 1e6, "µs", f"{t / t_anchor:.1f}x anchor"))

    # Users of the path.
    game = load_game("anasazi")
    turn = state.turn_of(state.first_player)
    geo = lg.table_geometry(state.table)
    sectors = geo.sectors[1].centre
    # A sector a few markers away from the expedition's end: a question with a search.
    sector = geo.sector_ids[int(np.argsort(np.abs(sectors - complex(tx, ty)))[3])]
    from games.anasazi import reach
    from games.anasazi.choice import choice_figures

    planner = make_bot("planner", game)
    users = {"reach (2 markers, one sector)": lambda: reach.reach(state, expedition, sector, 2),
             "planner decision": lambda: planner.choose(turn, turn.current, np.random.default_rng(1)),
             "choice figures": lambda: choice_figures(turn, turn.first_player)}
    for fn in users.values():
        fn()  # warm: tables' geometry, compiled code
    for label, t in best_cpu(users, args.users).items():
        rows.append((f"user: {label}", t * 1e3, "ms", ""))

    width = max(len(r[0]) for r in rows)
    print(f"fused path: {'yes' if has_fused else 'no (this tree predates it)'}; {note}")
    print(f"{'what':{width}s}  {'CPU':>10s}  {'unit':8s}  ratio")
    for label, value, unit, ratio in rows:
        print(f"{label:{width}s}  {value:10.2f}  {unit:8s}  {ratio}")


if __name__ == "__main__":
    main()

"""The compiled Anasazi player's arrays of a table (`TableArrays`), made once per new table: a
game from a seed pays them after its layout.

    PYTHONPATH=. python benchmarks/bench_anasazi_table_arrays.py [--tables 60] [--before OLD.py]

Random tables made before the clock; each timed in turn (CPU time of this process, medians over
five passes): `TableArrays(table)` and its convex-ring test `_convex_rings`. With `--before`, a
playout module of another version (say `git show main:games/anasazi/playout.py >
/tmp/old_playout.py`) lends its `_convex_rings` (only that function's source is taken from the
file: loading the module would compile its own numba kernels), timed alike in the same turns.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from games.anasazi import layout as L
from games.anasazi import playout as P


def function_from(path: str, name: str) -> Callable[..., Any]:
    """The function `name` of the module file at `path`, defined alone (numpy as np in scope)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    found: list[ast.stmt] = [node for node in tree.body
                             if isinstance(node, ast.FunctionDef) and node.name == name]
    if not found:
        raise SystemExit(f"{path} has no function {name}")
    scope: dict[str, Any] = {"np": np}
    exec(compile(ast.Module(body=found, type_ignores=[]), path, "exec"), scope)
    return scope[name]  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=60, help="random tables timed")
    parser.add_argument("--before", help="a playout module of another version")
    parser.add_argument("--smoke", action="store_true", help="two tables, one pass")
    args = parser.parse_args()
    tables = [L.random_table(seed) for seed in range(2 if args.smoke else args.tables)]
    versions = {"now": P._convex_rings}
    if args.before:
        versions["before"] = function_from(args.before, "_convex_rings")
    rows: dict[str, list[float]] = {}
    for _ in range(1 if args.smoke else 5):
        for table in tables:
            for name, convex in versions.items():
                P._convex_rings = convex
                start = time.process_time()
                arrays = P.TableArrays(table)
                rows.setdefault(f"TableArrays, {name}", []).append(time.process_time() - start)
                start = time.process_time()
                convex(arrays.verts, arrays.rings)
                rows.setdefault(f"_convex_rings, {name}", []).append(time.process_time() - start)
    P._convex_rings = versions["now"]
    median = {k: statistics.median(v) * 1000 for k, v in rows.items()}
    print(f"{len(tables)} tables, CPU ms medians")
    print("| what | CPU ms |\n|---|---:|")
    for name, ms in median.items():
        print(f"| {name} | {ms:.3f} |")
    if args.before:
        print(f"before / now: TableArrays {median['TableArrays, before'] / median['TableArrays, now']:.2f}x, "
              f"_convex_rings {median['_convex_rings, before'] / median['_convex_rings, now']:.2f}x")


if __name__ == "__main__":
    main()

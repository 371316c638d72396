"""Saying so when a compiled random player is about to compile.

A game's kernel (numba, ``cache=True``) compiles on its first call after an install or a change
of its source: 5-15 s of CPU a game on this machine, silent otherwise. Later processes load numba's
on-disk cache in a second or two. `compiling` writes one line to stderr before a cold first call
and one after it, so that nobody waits in silence.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from geomsim.rules import Game


def is_cached(kernel: Any) -> bool | None:
    """Whether numba holds a valid on-disk cache of `kernel` (a ``numba.njit(cache=True)``
    dispatcher) for some signature; None when it cannot tell (no cache, or numba's internals
    moved)."""
    try:
        return bool(kernel._cache._cache_file._load_index())
    except Exception:  # numba's cache internals are not public API: only a notice depends on them
        return None


def is_compiled(kernel: Any) -> bool:
    """Whether `kernel` already holds compiled code in this process."""
    return bool(getattr(kernel, "overloads", None))


@contextmanager
def compiling(what: str, kernel: Any, stream: TextIO | None = None) -> Iterator[None]:
    """Run the body, writing a line to `stream` (stderr) before and after it when `kernel` has
    neither code in this process nor numba's cache on disk: the body will compile it."""
    cold = not is_compiled(kernel) and is_cached(kernel) is False
    out = sys.stderr if stream is None else stream
    if cold:
        print(f"geomsim: compiling {what} with numba, once per install (a few seconds)...",
              file=out, flush=True)
    start = time.perf_counter()
    yield
    if cold:
        print(f"geomsim: compiled {what} in {time.perf_counter() - start:.0f} s; later runs load it "
              "from numba's cache", file=out, flush=True)


def load_compiled(game: Game, players: int) -> None:
    """Compile, or load from numba's cache, `game`'s compiled random player in this process
    (one game of `players` from seed 0), so that processes forked from it afterwards (a local
    pool's workers) hold it already instead of each loading it again."""
    game.random_playouts([game.new_state(players, seed=0)], seed=0)


_PREPARE = """
import importlib, sys
from geomsim.registry import load_game
module, _, name = sys.argv[1].rpartition(":")
game = getattr(importlib.import_module(module), name) if module else load_game(name)
game.random_playouts([game.new_state(game.max_players, seed=0)], seed=0)
from geomsim.compiled import KERNELS
for target in KERNELS:
    module, _, name = target.partition(":")
    getattr(importlib.import_module(module), name)()
"""

# Other compiled code of a game ("module:function" of a function that compiles it or loads it
# from numba's cache), registered when the game's modules are imported: `prepare` calls each
# in the game's process after its compiled player.
KERNELS: list[str] = []


def register(target: str) -> None:
    """Have `prepare` also call ``module:function`` `target`, which compiles (or loads) other
    compiled code of the game that registers it."""
    if target not in KERNELS:
        KERNELS.append(target)


def prepare(games: Sequence[str], timeout: float = 600.0) -> dict[str, str]:
    """Compile (or load from numba's cache) the compiled random player of each game in
    `games` (registered names, or ``module:attribute`` of a `Game`), each in a process of its own and all at once, so that processes started afterwards
    (a pool's workers, test workers) load the cache instead of each compiling the same code.
    Returns {game: why it failed} for those that could not be prepared (empty when all were)."""
    import subprocess

    started = {name: subprocess.Popen([sys.executable, "-c", _PREPARE, name],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for name in games}
    failed = {}
    for name, process in started.items():
        try:
            _, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            failed[name] = f"not ready after {timeout:g} s"
            continue
        if process.returncode:
            failed[name] = (err.strip().splitlines() or [f"exit code {process.returncode}"])[-1]
    return failed

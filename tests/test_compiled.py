"""The notice before a compiled random player compiles (issue 19: no silent minute)."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest

from geomsim.compiled import compiling, is_cached

pytest.importorskip("numba")

KERNEL = "import numba\n\n@numba.njit(cache=True)\ndef kernel(x):\n    return x + 1\n"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def _run(kernel) -> str:
    out = io.StringIO()
    with compiling("the toy kernel", kernel, out):
        assert kernel(1) == 2
    return out.getvalue()


def test_a_cold_kernel_says_it_compiles_once_and_a_cached_one_says_nothing(tmp_path):
    path = tmp_path / "toykernel.py"
    path.write_text(KERNEL)
    kernel = _load(path, "toykernel_first")
    assert is_cached(kernel) is False
    said = _run(kernel).splitlines()
    assert len(said) == 2
    assert said[0].startswith("geomsim: compiling the toy kernel with numba, once per install")
    assert said[1].startswith("geomsim: compiled the toy kernel in ")
    assert _run(kernel) == ""  # compiled in this process
    again = _load(path, "toykernel_again")  # as a later process finds it: numba's cache on disk
    assert is_cached(again) is True
    assert _run(again) == ""


def test_a_kernel_whose_cache_cannot_be_read_compiles_silently():
    assert is_cached(lambda x: x) is None


@pytest.mark.parametrize("name, other", [("anasazi", "cibola"), ("cibola", "aztekz"),
                                         ("aztekz", "anasazi")])
def test_a_compiled_player_refuses_another_games_states_by_name(name: str, other: str) -> None:
    """`Game.own_states`: a batch of playouts holding another game's state is one `ValueError`
    naming both state classes, before any kernel runs (each game raised AttributeError, or
    said it in words of its own)."""
    from geomsim import load_game

    game, foreign = load_game(name), load_game(other).new_state(2, seed=0)
    mine = type(game.new_state(2, seed=0)).__name__
    with pytest.raises(ValueError, match=f"^{name} playouts: a batch holds {mine}s only, "
                                         f"not {type(foreign).__name__}$"):
        game.random_playouts([game.new_state(2, seed=0), foreign], seed=0)


TOY_GAME = KERNEL + """
from tests.toygames import BidGame

class CompiledBids(BidGame):
    def random_playouts(self, states, seed=0):
        return kernel(1)

GAME = CompiledBids()
"""


def test_prepare_leaves_a_games_kernels_in_numbas_cache_and_names_what_failed(tmp_path, monkeypatch):
    """`prepare` compiles in processes of its own: afterwards a new process finds the cache."""
    import subprocess
    import sys

    from geomsim.compiled import prepare

    (tmp_path / "toy_compiled_game.py").write_text(TOY_GAME)
    root = Path(__file__).resolve().parents[1]
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{root}")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))  # empty: the toy compiles
    probe = "import toy_compiled_game, geomsim.compiled as c; print(c.is_cached(toy_compiled_game.kernel))"

    def cached() -> str:
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        return done.stdout.strip() or done.stderr[-500:]
    assert cached() == "False"
    assert prepare(["toy_compiled_game:GAME"]) == {}
    assert cached() == "True"
    failed = prepare(["chess"])
    assert list(failed) == ["chess"] and "unknown game 'chess'" in failed["chess"]

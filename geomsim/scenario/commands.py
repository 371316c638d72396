"""The old place of the `geomsim run`, `check` and `replay` commands, now in
`geomsim.cli.scenario`: their names are still found here, with a DeprecationWarning, for one
release."""

from __future__ import annotations

from typing import Any

from geomsim.moved import moved

_MOVED = frozenset({"run_command", "check_command", "replay_command"})


def __getattr__(name: str) -> Any:
    """A command that moved to `geomsim.cli.scenario`, still found here for one release."""
    if name in _MOVED:
        from geomsim.cli import scenario

        return moved(f"{__name__}.{name}", f"geomsim.cli.scenario.{name}", getattr(scenario, name))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

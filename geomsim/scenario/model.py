"""A loaded scenario: its steps, expectations and outputs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geomsim.rules import Action, Game, State, new_state_under

END = "end"

GameLoader = Callable[[str], Game]


@dataclass(frozen=True)
class Expectation:
    """One expectation, checked after step `step` (0: before any step)."""

    kind: str
    spec: Mapping[str, Any]  # the mapping as written, its "player" resolved to an index
    line: int | None
    field: str
    step: int
    player: int | None = None
    action: Action | None = None  # legal / illegal: the action probed
    text: str = ""  # legal / illegal: the action as written
    final: bool = False  # from the top-level `expect`, checked after the last step


@dataclass(frozen=True)
class Step:
    """One step: an action applied (or none), then expectations checked."""

    index: int  # 1-based
    line: int | None
    name: str | None
    player: int | None
    action: Action | None
    text: str  # the action as written ("" without an action)
    note: str
    expectations: tuple[Expectation, ...]


@dataclass(frozen=True)
class Output:
    """A file to write from the state after step `at`."""

    kind: str
    filename: str
    at: int
    spec: Mapping[str, Any]
    line: int | None


@dataclass
class Scenario:
    """A loaded, validated scenario."""

    path: Path
    game: Game
    players: int
    names: tuple[str, ...]
    seed: int | None
    setup: Any
    steps: tuple[Step, ...]
    final: tuple[Expectation, ...]  # the top-level `expect`, checked after the last step
    outputs: tuple[Output, ...]
    description: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)  # chosen by the file (`options:`)
    _initial: State | None = field(default=None, repr=False)

    def new_state(self) -> State:
        """A fresh state at the start of the scenario (before step 1)."""
        if self._initial is None:
            self._initial = new_state_under(self.game, self.players, self.seed, self.setup,
                                            self.options)
        return self._initial.clone()

    def step_number(self, step: int | str) -> int:
        """The number of a step given by number (0 = the start) or by name ("end": the last)."""
        if isinstance(step, str):
            if step == END:
                return len(self.steps)
            for s in self.steps:
                if s.name == step:
                    return s.index
            known = ", ".join(s.name for s in self.steps if s.name) or "none"
            raise KeyError(f"no step named {step!r} (named steps: {known})")
        if isinstance(step, bool) or not 0 <= step <= len(self.steps):
            raise KeyError(f"no step {step!r}: steps are 0 (the start) to {len(self.steps)}")
        return step

    def state_at(self, step: int | str) -> State:
        """The state after `step` (a number, 0 = the start, or a name); `IllegalAction` if a step fails."""
        number = self.step_number(step)
        state = self.new_state()
        for s in self.steps[:number]:
            if s.action is not None:
                state.apply(s.action, s.player)
        return state

    def who(self, player: int | None) -> str:
        """A player as text: "player 1 (Karolina)"."""
        if player is None:
            return "the player to move"
        name = f" ({self.names[player]})" if self.names else ""
        return f"player {player}{name}"

    def label(self, player: int) -> str:
        """A player as written in steps: its name, or its index."""
        return self.names[player] if self.names else str(player)

    def where(self, step: int) -> str:
        """A step as text for reports: "step 3", or "start" for step 0."""
        return f"step {step}" if step else "start"


def contributed_kinds(game: Game, name: str) -> dict[str, Any]:
    """The expectation or output kinds that `game` contributes (``game.expectations()``...)."""
    hook = getattr(game, name, None)
    return dict(hook()) if callable(hook) else {}


def as_list(value: Any) -> list[Any]:
    """A value as a list: itself if it is one."""
    return value if isinstance(value, list) else [value]

"""Integer action ids and observation tensors: what RL libraries (PettingZoo, OpenSpiel) need.

A game's `Encoding` (``game.encoding(players)``, defined in `geomsim.rules`) gives each action a
fixed id and each player's view of a state a float32 tensor; `Layout` names the sections of a
flat tensor, so that each game documents its tensor by listing them (docs/ecosystem.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

# `Encoding`, the interface `Game.encoding` returns, is part of the rules interface: its home is
# `geomsim.rules`, and it is found here too, beside the helpers that build one.
from geomsim.rules import Action, Encoding

__all__ = ["Encoding", "Layout", "ListedEncoding", "made_once", "one_hot"]


class Layout:
    """The named sections of a flat float32 tensor, in order: ``Layout([("round", 1), ...])``."""

    def __init__(self, sections: Iterable[tuple[str, int | Sequence[int]]]):
        self.sections: dict[str, tuple[slice, tuple[int, ...]]] = {}
        at = 0
        for name, shape in sections:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            size = int(np.prod(shape))
            self.sections[name] = (slice(at, at + size), shape)
            at += size
        self.size = at

    def empty(self) -> np.ndarray:
        """A zero tensor of this layout."""
        return np.zeros(self.size, dtype=np.float32)

    def view(self, tensor: np.ndarray, name: str) -> np.ndarray:
        """The section `name` of `tensor`, shaped, as a view (writing it writes the tensor)."""
        where, shape = self.sections[name]
        return tensor[where].reshape(shape)

    def describe(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """(name, offset, shape) of each section, for the docs."""
        return [(name, where.start, shape) for name, (where, shape) in self.sections.items()]


class ListedEncoding(Encoding):
    """An encoding whose ids are positions in a fixed list of actions (the game documents the
    list's order, which keeps ids stable)."""

    def __init__(self, actions: Sequence[Action]):
        self.actions = tuple(actions)
        self.ids = {a: i for i, a in enumerate(self.actions)}
        if len(self.ids) != len(self.actions):
            raise ValueError("an action is listed twice")
        self.num_distinct_actions = len(self.actions)

    def action_id(self, action: Action) -> int:
        try:
            return self.ids[action]
        except (KeyError, TypeError):
            raise ValueError(f"{action} has no action id") from None

    def action_from_id(self, i: int) -> Action:
        return self.actions[self.check_id(i)]


def one_hot(out: np.ndarray, index: int | None) -> None:
    """Set `out[index]` to 1 (nothing for None): the one-hot sections of a layout."""
    if index is not None:
        out[index] = 1.0


_MADE: dict[tuple[int, int], tuple[object, Encoding]] = {}


def made_once(components: object, players: int, make: Callable[[], Encoding]) -> Encoding:
    """`make()`, the encoding for `components` and `players`, made once per pair and then
    reused (components may hold dicts, so they are told apart by identity)."""
    made = _MADE.get((id(components), players))
    if made is None or made[0] is not components:
        if len(_MADE) > 64:
            _MADE.clear()
        made = _MADE[(id(components), players)] = (components, make())
    return made[1]

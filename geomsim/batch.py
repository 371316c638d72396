"""What a batch plays: `Batch` (a game, a line-up of bots, seeds) and `lineup_of`.

Kept below `geomsim.analysis` (which plays batches) and `geomsim.scenario` (whose ``analysis``
expectations play small ones), so that neither imports the other for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Batch:
    """What to play: `games` games of `game` from seed `seed` with a line-up of bots.

    `bots` has one spec per seat; with `rotate`, game i seats them shifted by i places, so
    each bot plays each seat equally often over `players` consecutive games.
    `start` is the JSON of a state to start every game from (a scenario's end), `start_name`
    names where it came from; `options` are the rule options each new game is made with.
    """

    game: str
    players: int
    bots: tuple[str, ...]
    seed: int = 0
    games: int = 100
    rotate: bool = True
    start: str | None = None
    start_name: str | None = None
    max_steps: int = 100_000
    compiled: bool = False  # random line-ups played by the game's compiled random player
    options: Mapping[str, Any] = field(default_factory=dict)  # rule options chosen (geomsim.options)

    def lineup(self, seed: int) -> list[str]:
        """The bot spec of each seat in the game of `seed`."""
        shift = (seed - self.seed) % self.players if self.rotate else 0
        return [self.bots[(s + shift) % self.players] for s in range(self.players)]

    def seeds(self) -> range:
        """The seeds of the batch's games, in order."""
        return range(self.seed, self.seed + self.games)

    def record(self) -> dict[str, Any]:
        """The parameters as written to ``batch.json`` (the start state by its hash)."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["start"] = None if self.start is None else _digest(self.start)
        data["options"] = dict(self.options)
        if not data["options"]:  # a batch of the official rules records as it did before options
            del data["options"]
        return data


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def lineup_of(bots: Sequence[str], players: int) -> tuple[str, ...]:
    """One bot spec per seat from a list given for fewer seats (repeated in turn)."""
    if not bots:
        raise ValueError("--bots: name at least one bot")
    if len(bots) > players:
        raise ValueError(f"--bots: {len(bots)} bots for {players} players")
    return tuple(bots[s % len(bots)] for s in range(players))

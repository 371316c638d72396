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

    `bots` has one spec per seat; with `rotate`, game i seats them by turn position (who
    moves first, second, ...: `State.turn_order`) shifted by i places, so each bot plays each
    turn position equally often over `players` consecutive games; without, bot s sits at
    player number s in every game.
    `start` is the JSON of a state to start every game from (a scenario's end), `start_name`
    names where it came from; `options` are the rule options each new game is made with.
    `lineups` (a ladder's rotation, `geomsim.ladder`): when given, game i plays line-up
    ``lineups[i % R]`` by turn position (R line-ups; `bots` then lists the distinct bots), on
    the deal of the first seed of its round of R games (`deal`), so every line-up of a round
    meets the same setup: paired seeds. The games are timed decision by decision.
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
    lineups: tuple[tuple[str, ...], ...] = ()

    def lineup(self, seed: int) -> list[str]:
        """The bot specs of the game of `seed`: by turn position when the batch rotates
        (`play_game(..., by_turn=True)`), else by seat."""
        if self.lineups:
            return list(self.lineups[(seed - self.seed) % len(self.lineups)])
        shift = (seed - self.seed) % self.players if self.rotate else 0
        return [self.bots[(s + shift) % self.players] for s in range(self.players)]

    def deal(self, seed: int) -> int:
        """The seed whose setup the game of `seed` is played on: its own, or with `lineups` the
        first seed of its round."""
        return seed - (seed - self.seed) % len(self.lineups) if self.lineups else seed

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
        if self.lineups:
            data["lineups"] = [list(lineup) for lineup in self.lineups]
        else:  # the record of a batch without them is as before (it resumes as before)
            del data["lineups"]
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


def kind_of(row: dict[str, Any]) -> tuple[str, str]:
    """What must agree between rows that are summarised together: the game, the players, the
    versions of the rules and of the row format, and the options in force (as text)."""
    versions = row.get("versions") or {}
    rules = f"{row['game']}, {row['players']} players, rules {versions.get('rules', 'unrecorded')}, "
    rules += f"rows v{versions.get('rows', 1)}"
    options = ", ".join(f"{k}={v}" for k, v in sorted((row.get("options") or {}).items()))
    return rules, options or "official rules"


def require_one_kind(rows: Sequence[dict[str, Any]], where: str) -> None:
    """Refuse rows of incompatible batches (`kind_of` differs): one line naming both kinds."""
    if not rows:
        return
    first = kind_of(rows[0])
    for row in rows[1:]:
        if (other := kind_of(row)) != first:
            raise ValueError(f"{where}: rows of incompatible batches: seed {rows[0]['seed']} is "
                             f"{'; '.join(first)}, seed {row['seed']} is {'; '.join(other)}")

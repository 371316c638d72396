"""Game logs (JSON Lines) written, read back and replayed as pictures."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from geomsim import registry
from geomsim.files import TooLarge, atomic_path, read_bytes, write_text
from geomsim.notation import rounded
from geomsim.reading import MAX_HISTORY, MAX_JSON_BYTES, DataError, convert, decode, short
from geomsim.registry import UnknownGame
from geomsim.rules import Action, Game, IllegalAction, State, read_action
from geomsim.scenario.model import GameLoader
from geomsim.scenario.source import ScenarioError, reason

LOG_FORMAT = "geomsim-log"
LOG_VERSION = 1


def log_lines(state: State, *, seed: int | None = None, setup: Any = None, names: Sequence[str] = (),
              source: str | None = None) -> Iterator[str]:
    """The JSON Lines of a game log: a header, then one line per applied action."""
    header: dict[str, Any] = {"format": LOG_FORMAT, "version": LOG_VERSION, "game": state.game.name,
                              "players": state.num_players}
    if names:
        header["names"] = list(names)
    header["seed"] = seed
    if setup is not None:
        header["setup"] = setup
    if source:
        header["scenario"] = source
    yield json.dumps(header, sort_keys=True, allow_nan=False)
    for number, (player, action, events) in enumerate(state.history, 1):
        yield json.dumps({"step": number, "player": player, "action": str(action),
                          "action_json": action.to_json(), "events": [e.to_json() for e in events]},
                         sort_keys=True, allow_nan=False)


def write_log(path: str | Path, state: State, **header: Any) -> Path:
    """Write the game log of `state` (see `log_lines`) atomically."""
    return write_text(path, "\n".join(log_lines(state, **header)) + "\n")


class _Header(msgspec.Struct):
    """What `read_log` reads of a log's first line (other fields are left alone)."""

    game: str
    players: int
    names: list[str] = []
    seed: int | None = None
    setup: Any = None


@dataclass
class GameLog:
    """A game log read back: the header and the logged (player, action) pairs."""

    path: Path
    game: Game
    players: int
    seed: int | None
    setup: Any
    names: tuple[str, ...]
    moves: list[tuple[int, Action, str, int]]  # player, action, its text, line of the log

    def frames(self) -> Iterator[tuple[str, State]]:
        """The state at the start and after each move, with a title: (title, state); the move
        in the title rounded for reading (0.01, a heading 0.1 degree)."""
        try:
            state = self.game.new_state(self.players, seed=self.seed, setup=self.setup)
        except ValueError as e:
            where = "setup" if self.setup is not None else "seed"
            raise ScenarioError(str(self.path), 1, where, f"{self.game.name} rejects it: {reason(e)}") from None
        yield f"{self.game.name}: start", state
        for number, (player, action, text, line) in enumerate(self.moves, 1):
            try:
                state.apply(action, player)
            except IllegalAction as e:
                raise ScenarioError(str(self.path), line, "action", f"{text!r} is illegal: {e}") from None
            who = self.names[player] if self.names else f"player {player}"
            yield f"{self.game.name} {number}: {who}: {rounded(text)}", state


def read_log(path: str | Path, *, load: GameLoader | None = None) -> GameLog:
    """Read a game log; `ScenarioError` (file, line, field) if malformed."""
    path = Path(path)
    try:
        lines = read_bytes(path, MAX_JSON_BYTES).splitlines()
    except TooLarge as e:
        raise ScenarioError(str(path), None, None, f"{e.strerror} for a game log") from None
    except OSError as e:
        raise ScenarioError(str(path), None, None, f"cannot read: {e.strerror or e}") from None
    if len(lines) > MAX_HISTORY + 1:
        raise ScenarioError(str(path), None, None, f"{len(lines):,} lines is over the limit of "
                                                   f"{MAX_HISTORY + 1:,} (a header and {MAX_HISTORY:,} moves)")
    records: list[tuple[int, Any]] = []  # line number, the JSON on it
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            records.append((number, decode(text, what="line")))
        except DataError as e:
            raise ScenarioError(str(path), number, None, e.problem.removeprefix("line: ")) from None
    if not records or not isinstance(records[0][1], dict) or records[0][1].get("format") != LOG_FORMAT:
        raise ScenarioError(str(path), 1, None, f"not a geomsim game log (the first line is a header "
                                                f"with \"format\": \"{LOG_FORMAT}\")")
    header_line, header = records[0]
    try:
        convert(header, _Header)
    except DataError as e:
        raise ScenarioError(str(path), header_line, e.path or None, e.problem) from None

    def bad(line: int, name: str, message: str) -> ScenarioError:
        return ScenarioError(str(path), line, name, message)

    try:
        game = (load or registry.load_game)(header.get("game"))
    except UnknownGame as e:
        raise bad(header_line, "game", str(e).strip('"')) from None
    players = header.get("players")
    try:
        game.check_players(players)
    except ValueError as e:
        raise bad(header_line, "players", str(e)) from None
    moves = []
    for line, record in records[1:]:
        if not isinstance(record, dict) or not isinstance(record.get("action_json"), dict):
            raise bad(line, "action_json", "each line after the header logs one action")
        player = record.get("player")
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < players:
            raise bad(line, "player", f"unknown player {short(player)}")
        try:
            action = read_action(game, record["action_json"], "action_json")
        except DataError as e:
            raise bad(line, e.path, e.problem) from None
        moves.append((player, action, str(action), line))
    return GameLog(path, game, players, header.get("seed"), header.get("setup"),
                   tuple(header.get("names", ())), moves)


def replay(log: GameLog, output: str | Path, fps: float = 2.0, options: Mapping[str, Any] | None = None,
           dpi: int = 120) -> list[Path]:
    """Draw a logged game move by move: a GIF (``.gif``) or numbered PNGs in a folder.

    Every frame is the game's own drawing of that moment on a figure of its own, as
    `State.draw` makes it for a single picture (title, no axis ticks), with the move as caption."""
    from geomsim.plotting import caption, save

    output = Path(output)
    options = dict(options or {})

    def pictures() -> Iterator[Any]:
        for title, state in log.frames():
            fig = state.draw(**options).figure
            caption(fig, title)
            yield fig

    if output.suffix.lower() == ".gif":
        from PIL import Image  # matplotlib's own dependency

        frames = []
        for fig in pictures():
            fig.set_dpi(dpi)
            fig.canvas.draw()
            # Paletted at once: a long game's frames would otherwise hold 4 bytes a pixel each.
            rgb = Image.fromarray(np.asarray(fig.canvas.buffer_rgba())).convert("RGB")
            frames.append(rgb.convert("P", palette=Image.Palette.ADAPTIVE))
        with atomic_path(output) as tmp:
            frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:],
                           duration=round(1000 / fps), loop=0)
        return [output]
    return [save(fig, output / f"{number:04d}.png", dpi=dpi) for number, fig in enumerate(pictures())]

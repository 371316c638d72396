"""The table in a browser, served on this machine: how the game begins (`start_from`), the
listening socket (`bind`), the token of a run and the page's address; the command is
`geomsim.cli.serve`."""

from __future__ import annotations

import secrets
import socket
from pathlib import Path
from typing import Any

import geomsim
from geomsim.errors import InputError
from geomsim.moved import moved
from geomsim.reading import read_input
from geomsim.rules import IllegalAction
from geomsim.web.session import Session, Start

DEFAULT_PORT = 8765


def start_from(scenario: Path | None, setup_file: Path | None, game_name: str | None,
               players: int | None, seed: int) -> Start:
    """How the served game begins: a scenario's steps, a setup file, or a game from a seed."""
    if scenario is not None:
        if setup_file is not None or game_name is not None:
            raise InputError("give a scenario file, or --game/--setup, not both")
        from geomsim.scenario import load_scenario

        sc = load_scenario(scenario)  # a ScenarioError is an InputError
        steps = tuple((s.player, s.action) for s in sc.steps if s.action is not None)
        start = Start(sc.game, sc.players, sc.seed, sc.setup, steps, title=scenario.name)
        try:
            Session(start)  # plays the steps, as every tab will
        except IllegalAction as e:
            raise InputError(f"{scenario}: a step is illegal, so the game cannot start: {e}") from None
        return start
    if setup_file is not None:
        setup = read_input(setup_file)
        if players is None:
            players = setup.get("players") if isinstance(setup, dict) else None
        games = [_game(game_name)] if game_name else [geomsim.load_game(n)
                                                      for n in geomsim.list_games()]
        problems = []
        for game in games:
            try:
                n = players if players is not None else game.max_players
                game.new_state(n, seed=seed, setup=setup)
                return Start(game, n, seed, setup, title=setup_file.name)
            except (ValueError, KeyError, TypeError) as e:
                problems.append(f"{game.name}: {e}")
        raise InputError(f"{setup_file}: no game accepts this setup ({'; '.join(problems)})")
    game = _game(game_name or geomsim.list_games()[0])
    n = players if players is not None else game.max_players
    try:
        game.check_players(n)
    except ValueError as e:
        raise InputError(str(e)) from None
    return Start(game, n, seed=seed, title=f"{game.name}, {n} players, seed {seed}")


def _game(name: str) -> geomsim.Game:
    """The game called `name`, or an `InputError` listing the known games."""
    try:
        return geomsim.load_game(name)
    except geomsim.UnknownGame as e:
        raise InputError(str(e)) from None


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port` (port 0: a free one), or a one-line error."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, _, proto, _, address = infos[0]
        # Made as TCP by name: asyncio sets TCP_NODELAY only on sockets whose proto says so,
        # and without it every small response waits ~40 ms for the client's delayed ACK.
        sock = socket.socket(family, socket.SOCK_STREAM, proto or socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as e:
        raise InputError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(64)
    return sock


def new_token(no_token: bool = False) -> str | None:
    """The token of a run: the page and its API answer only to it (None with `no_token`)."""
    return None if no_token else secrets.token_urlsafe(24)


def page_url(host: str, sock: socket.socket, token: str | None) -> str:
    """The address of the page served on `sock`, with the run's token."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{sock.getsockname()[1]}/" + (f"?token={token}" if token else "")


def serve(app: Any, sock: socket.socket) -> None:
    """Serve `app` on the listening socket `sock` until Ctrl+C."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])


def __getattr__(name: str) -> Any:
    """`serve_command`, moved to `geomsim.cli.serve`, still found here for one release."""
    if name == "serve_command":
        from geomsim.cli.serve import serve_command

        return moved(f"{__name__}.{name}", "geomsim.cli.serve.serve_command", serve_command)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

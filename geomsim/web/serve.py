"""``geomsim serve``: the table in a browser, served on this machine."""

from __future__ import annotations

import secrets
import socket
import threading
import webbrowser
from pathlib import Path

import click

import geomsim
from geomsim.cli import UserError, game_option, read_json
from geomsim.rules import IllegalAction
from geomsim.web.session import Session, Start

DEFAULT_PORT = 8765


def start_from(scenario: Path | None, setup_file: Path | None, game_name: str | None,
               players: int | None, seed: int) -> Start:
    """How the served game begins: a scenario's steps, a setup file, or a game from a seed."""
    if scenario is not None:
        if setup_file is not None or game_name is not None:
            raise UserError("give a scenario file, or --game/--setup, not both")
        from geomsim.scenario import ScenarioError, load_scenario

        try:
            sc = load_scenario(scenario)
        except ScenarioError as e:
            raise UserError(str(e)) from None
        steps = tuple((s.player, s.action) for s in sc.steps if s.action is not None)
        start = Start(sc.game, sc.players, sc.seed, sc.setup, steps, title=scenario.name)
        try:
            Session(start)  # plays the steps, as every tab will
        except IllegalAction as e:
            raise UserError(f"{scenario}: a step is illegal, so the game cannot start: {e}") from None
        return start
    if setup_file is not None:
        setup = read_json(setup_file)
        if players is None:
            players = setup.get("players") if isinstance(setup, dict) else None
        games = [game_option(game_name)] if game_name else [geomsim.load_game(n)
                                                              for n in geomsim.list_games()]
        problems = []
        for game in games:
            try:
                n = players if players is not None else game.max_players
                game.new_state(n, seed=seed, setup=setup)
                return Start(game, n, seed, setup, title=setup_file.name)
            except (ValueError, KeyError, TypeError) as e:
                problems.append(f"{game.name}: {e}")
        raise UserError(f"{setup_file}: no game accepts this setup ({'; '.join(problems)})")
    game = game_option(game_name or geomsim.list_games()[0])
    n = players if players is not None else game.max_players
    try:
        game.check_players(n)
    except ValueError as e:
        raise UserError(str(e)) from None
    return Start(game, n, seed=seed, title=f"{game.name}, {n} players, seed {seed}")


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
        raise UserError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(64)
    return sock


@click.command("serve")
@click.argument("scenario", required=False,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--setup", "setup_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Start from this setup JSON (as `geomsim setup --json` writes it).")
@click.option("--game", "game_name", help="The game (default: the first installed; with --setup: the one "
              "that accepts the setup).")
@click.option("--players", "-p", type=int, default=None, help="Number of players.")
@click.option("--seed", "-s", type=geomsim.cli.SEED, default=0, show_default=True, help="Seed of the setup.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (127.0.0.1: this machine only).")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the browser.")
@click.option("--no-token", is_flag=True,
              help="Serve without a token: any program of this machine may play (docs/web.md).")
def serve_command(scenario: Path | None, setup_file: Path | None, game_name: str | None,
                  players: int | None, seed: int, host: str, port: int, open_browser: bool,
                  no_token: bool) -> None:
    """Play and referee a game in the browser: SCENARIO's steps, a --setup file, or a --game
    from a --seed. Each browser tab has its own game. The address printed carries a token made
    for this run: the page and its API answer only to it (and to the cookie it sets)."""
    import uvicorn

    from geomsim.web.app import make_app

    token = None if no_token else secrets.token_urlsafe(24)
    start = start_from(scenario, setup_file, game_name, players, seed)
    app = make_app(start, token=token, hosts=[host])
    sock = bind(host, port)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/" + (f"?token={token}" if token else "")
    click.echo(f"geomsim serve: {url} (Ctrl+C to stop)")
    if open_browser:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])

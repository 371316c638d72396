"""`geomsim serve`: the table in a browser (the server's parts are `geomsim.web.serve`)."""

from __future__ import annotations

import threading
import webbrowser
from pathlib import Path

import click

from geomsim.cli.common import IN_FILE, SEED, chosen_options, command, option_flags
from geomsim.web.serve import DEFAULT_PORT, bind, new_token, page_url, serve, start_from
from geomsim.web.session import Start


@command("serve")
@click.argument("scenario", required=False, type=IN_FILE)
@click.option("--setup", "setup_file", type=IN_FILE,
              help="Start from this setup JSON (as `geomsim setup --json` writes it).")
@click.option("--game", "game_name", help="The game (default: the first installed; with --setup: the one "
              "that accepts the setup).")
@click.option("--players", "-p", type=int, default=None, help="Number of players.")
@click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Seed of the setup.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (127.0.0.1: this machine only).")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the browser.")
@click.option("--no-token", is_flag=True,
              help="Serve without a token: any program of this machine may play (docs/web.md).")
@option_flags
def serve_command(scenario: Path | None, setup_file: Path | None, game_name: str | None,
                  players: int | None, seed: int, host: str, port: int, open_browser: bool,
                  no_token: bool, option_texts: tuple[str, ...], variant: str | None) -> None:
    """Play and referee a game in the browser: SCENARIO's steps, a --setup file, or a --game
    from a --seed. Each browser tab has its own game. The address printed carries a token made
    for this run: the page and its API answer only to it (and to the cookie it sets)."""
    import uvicorn  # noqa: F401 (without the web extra, say so before any work)

    from geomsim.web.app import make_app

    token = new_token(no_token)
    start = _with_options(start_from(scenario, setup_file, game_name, players, seed),
                          option_texts, variant)
    app = make_app(start, token=token, hosts=[host])
    sock = bind(host, port)
    url = page_url(host, sock, token)
    click.echo(f"geomsim serve: {url} (Ctrl+C to stop)")
    if open_browser:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    serve(app, sock)


def _with_options(start: Start, option_texts: tuple[str, ...], variant: str | None) -> Start:
    """`start` under the options `--variant`/`--option` chose, laid over its setup's (a game
    from a seed gets the setup of that seed), checked by making its first state."""
    import dataclasses

    from geomsim.options import with_options

    options = chosen_options(start.game, option_texts, variant)
    if not options:
        return start
    setup = (start.game.make_setup(start.players, start.seed or 0, options) if start.setup is None
             else with_options(start.setup, options))
    start = dataclasses.replace(start, setup=setup)
    start.new_state()
    return start

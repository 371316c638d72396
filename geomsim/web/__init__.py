"""The table in a browser: `geomsim serve`, a small Starlette app over the rules interface.

`make_app(start)` builds the ASGI app; `Session` keeps one tab's game (snapshots for undo and
stepping, a version counter against stale requests, bots, the expectations to save); a game adds
its board drawing, placement tools and analyses through ``game.web()`` returning a `GameWeb`
(see `geomsim.web.hooks`). The page (static/) is plain HTML, CSS and JavaScript: no build step,
nothing fetched from elsewhere. See docs/web.md.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from geomsim.web.hooks import Board, GameWeb, WebError, web_hooks
from geomsim.web.session import Session, Start

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["Board", "GameWeb", "Session", "Start", "WebError", "make_app", "web_hooks"]


def make_app(start: Start, *, token: str | None = None, hosts: Iterable[str] = ()) -> "Starlette":
    """The ASGI app serving games that begin as `start`, with `token` (None: none) and the
    Host names it answers to besides this machine's (see `geomsim.web.app.make_app`;
    Starlette is imported only when an app is made)."""
    from geomsim.web.app import make_app as make

    return make(start, token=token, hosts=hosts)

"""The ASGI app: the page, its static files, and a JSON API over `Session`s.

Every tab makes its own session (``POST /api/sessions``) and keeps its id for the tab's life;
the API then reads and changes that session only. Requests are JSON bodies of at most
`MAX_BODY` bytes; NaN and infinities are refused; any error is ``{"error": one line}`` with an
HTTP status (400 bad input, 404 unknown session, 409 stale version, 413 too large, 422 illegal
action, 500 a bug), and the traceback goes to the server's log only.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from geomsim.registry import UnknownGame, list_games, load_game
from geomsim.rules import IllegalAction
from geomsim.web.hooks import WebError, figure_bytes
from geomsim.web.session import Session, Start, illegal, verdict_json

MAX_BODY = 64 * 1024  # bytes of a request body
MAX_SESSIONS = 64  # sessions kept; the least recently used goes first
LOG = logging.getLogger("geomsim.web")
STATIC = ("geomsim.web", "static")


class Sessions:
    """The sessions of the open tabs, by id (thread-safe; the oldest dropped past `limit`)."""

    def __init__(self, start: Start, limit: int = MAX_SESSIONS):
        self.start, self.limit = start, limit
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, start: Start | None = None) -> Session:
        """A new session from `start` (default: the game the server was started with)."""
        session = Session(start or self.start, id=secrets.token_urlsafe(12))
        with self._lock:
            self._by_id[session.id] = session
            while len(self._by_id) > self.limit:
                self._by_id.popitem(last=False)
        return session

    def get(self, id: str) -> Session:
        with self._lock:
            session = self._by_id.get(id)
            if session is None:
                raise WebError("unknown session (the server was restarted or the tab is old): "
                               "reload the page", status=404)
            self._by_id.move_to_end(id)
        return session


def _refuse_constant(name: str) -> float:
    raise WebError(f"malformed JSON: {name} is not a number this app accepts")


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object body, at most `MAX_BODY` bytes, without NaN or infinities."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise WebError(f"request body too large: {declared} bytes (at most {MAX_BODY})", status=413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise WebError(f"request body too large (at most {MAX_BODY} bytes)", status=413)
    if not body.strip():
        return {}
    try:
        data = json.loads(body, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError) as e:
        if isinstance(e, WebError):
            raise
        raise WebError(f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise WebError(f"the request body must be a JSON object, not {type(data).__name__}")
    return data


def number(data: dict[str, Any], name: str, default: float | None = None) -> float:
    """A finite number field of a request."""
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise WebError(f"{name} must be a finite number, not {value!r}")
    return float(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def reply(data: Any, status: int = 200) -> Response:
    """A JSON response (numpy numbers and tuples written as plain JSON)."""
    text = json.dumps(data, default=_json_default, allow_nan=False)
    return Response(text, status_code=status, media_type="application/json")


def make_app(start: Start) -> Starlette:
    """The web app serving games that begin as `start` (each tab its own session)."""
    sessions = Sessions(start)

    def in_session(handler: Callable[[Session, dict[str, Any]], Any], *, changes: bool = True,
                   view: bool = True) -> Callable[[Request], Awaitable[Response]]:
        """An endpoint that runs `handler(session, body)` under the session's lock; a changing
        request must carry the session's current version. Replies the handler's dict, with the
        view after it when `view`."""
        async def endpoint(request: Request) -> Response:
            body = await read_json(request) if request.method == "POST" else dict(request.query_params)
            session = sessions.get(request.path_params["sid"])

            def run() -> Any:
                with session.lock:
                    if changes:
                        session.expect_version(body.get("version"))
                    out = handler(session, body) or {}
                    if view and isinstance(out, dict):
                        out["view"] = session.view()
                    return out
            out = await run_in_threadpool(run)
            return out if isinstance(out, Response) else reply(out)
        return endpoint

    async def index(request: Request) -> Response:
        return FileResponse(_static_path("index.html"))

    async def new_session(request: Request) -> Response:
        body = await read_json(request)
        chosen = _start_of(body, start) if body.get("game") is not None else None
        session = await run_in_threadpool(sessions.new, chosen)
        view = await run_in_threadpool(_locked_view, session)
        return reply({"session": session.id, "view": view})

    async def games(request: Request) -> Response:
        found = []
        for name in list_games():
            try:
                game = load_game(name)
            except Exception:  # a broken plugin should not hide the others
                continue
            found.append({"name": name, "min": game.min_players, "max": game.max_players})
        return reply({"games": found})

    def do_view(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        return s.view()

    def do_options(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        viewer = body.get("viewer")
        s.viewer = None if viewer in (None, "") else s.player_of(viewer)
        reveal = body.get("reveal", False)
        if not isinstance(reveal, bool):
            raise WebError("reveal must be true or false")
        s.reveal = reveal
        return {}

    def do_preview(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        clock = time.perf_counter()
        tool = body.get("tool")
        if not isinstance(tool, str):
            raise WebError("preview needs a tool")
        x, y = number(body, "x"), number(body, "y")
        heading = number(body, "heading", 0.0)
        action = s.hooks.tool_action(s.state, tool, body.get("params") or {}, x, y, heading)
        player, verdict = s.check(action, s.player_of(body.get("player")))
        return {"action": str(action), "player": player, "ok": verdict.ok,
                "violations": verdict_json(verdict),
                "overlays": s.hooks.overlays(s.state, action, player, verdict),
                "seconds": time.perf_counter() - clock}

    def do_check(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        action = s.parse(body.get("action"))
        player, verdict = s.check(action, s.player_of(body.get("player")))
        return {"action": str(action), "player": player, "ok": verdict.ok,
                "violations": verdict_json(verdict)}

    def do_apply(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        action = s.parse(body.get("action"))
        try:
            n = s.play(s.player_of(body.get("player")), action)
        except IllegalAction as e:
            raise illegal(e) from None
        record = s.records[n - 1]
        return {"applied": f"{record.player}: {record.text}",
                "events": [] if s.sealed(n) else [s.hooks.describe(e) for e in record.events],
                "offers": s.hooks.offers(s.state)}

    def do_undo(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        s.undo()
        return {}

    def do_back(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        s.move(-1)
        return {}

    def do_forward(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        s.move(+1)
        return {}

    def do_seats(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        s.set_seats(body.get("seats"))
        return {"played": s.play_bots()}

    def do_bots(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        return {"played": s.play_bots()}

    def do_expect(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        added = s.add_verdict(s.player_of(body.get("player")), s.parse(body.get("action")))
        return {"added": added.words}

    def do_tick(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        s.tick(body.get("id"), body.get("ticked"))
        return {}

    def do_analysis(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        name, params = body.get("name"), body.get("params") or {}
        if not isinstance(name, str) or not isinstance(params, dict):
            raise WebError("analysis needs a name and params (an object)")
        viewer = s.viewer
        target = body.get("target")
        if target is None:
            return {"analysis": s.hooks.analysis(s.state, name, params, viewer)}
        if not isinstance(target, str) or len(target) > 100:
            raise WebError("target must be the id of a board element")
        return {"analysis": s.hooks.pick(s.state, name, params, target, viewer)}

    def download(kind: str) -> Callable[[Session, dict[str, Any]], Response]:
        def make(s: Session, body: dict[str, Any]) -> Response:
            stem = f"{s.game.name}-step{s.cursor}"
            if kind == "scenario":
                return _attachment(s.scenario_yaml().encode(), f"{stem}.yaml", "application/yaml")
            if kind == "setup":
                text = json.dumps(s.setup_data(), indent=1, allow_nan=False) + "\n"
                return _attachment(text.encode(), f"{s.game.name}-setup.json", "application/json")
            data = figure_bytes(s.state, kind, s.reveal)
            return _attachment(data, f"{stem}.{kind}", "image/png" if kind == "png" else "image/svg+xml")
        return make

    api = [
        Route("/api/games", games, methods=["GET"]),
        Route("/api/sessions", new_session, methods=["POST"]),
        Route("/api/s/{sid}/view", in_session(do_view, changes=False, view=False), methods=["GET"]),
        Route("/api/s/{sid}/options", in_session(do_options, changes=False), methods=["POST"]),
        Route("/api/s/{sid}/preview", in_session(do_preview, view=False), methods=["POST"]),
        Route("/api/s/{sid}/check", in_session(do_check, view=False), methods=["POST"]),
        Route("/api/s/{sid}/apply", in_session(do_apply), methods=["POST"]),
        Route("/api/s/{sid}/undo", in_session(do_undo), methods=["POST"]),
        Route("/api/s/{sid}/back", in_session(do_back), methods=["POST"]),
        Route("/api/s/{sid}/forward", in_session(do_forward), methods=["POST"]),
        Route("/api/s/{sid}/seats", in_session(do_seats), methods=["POST"]),
        Route("/api/s/{sid}/bots", in_session(do_bots), methods=["POST"]),
        Route("/api/s/{sid}/expect", in_session(do_expect), methods=["POST"]),
        Route("/api/s/{sid}/tick", in_session(do_tick), methods=["POST"]),
        Route("/api/s/{sid}/analysis", in_session(do_analysis, view=False), methods=["POST"]),
    ]
    for kind, name in (("scenario", "scenario.yaml"), ("setup", "setup.json"),
                       ("png", "moment.png"), ("svg", "moment.svg")):
        api.append(Route(f"/api/s/{{sid}}/{name}", in_session(download(kind), changes=False,
                                                              view=False), methods=["GET"]))
    routes = [Route("/", index), *api, Mount("/static", StaticFiles(packages=[STATIC]), name="static")]
    app = Starlette(routes=routes, exception_handlers={Exception: _error, WebError: _error,
                                                       404: _error, 405: _error})
    app.state.sessions = sessions
    return app


def _locked_view(session: Session) -> Any:
    with session.lock:
        return session.view()


def _attachment(data: bytes, filename: str, media: str) -> Response:
    return Response(data, media_type=media,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _start_of(body: dict[str, Any], served: Start) -> Start:
    """A new game chosen in the page: a game name, players, a seed."""
    name = body.get("game")
    if not isinstance(name, str):
        raise WebError("game must be a game name")
    try:
        game = load_game(name)
    except UnknownGame as e:
        raise WebError(str(e)) from None
    players, seed = body.get("players", game.max_players), body.get("seed", 0)
    for field_name, value in (("players", players), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise WebError(f"{field_name} must be a whole number, not {value!r}")
    try:
        game.check_players(players)
    except ValueError as e:
        raise WebError(str(e)) from None
    return Start(game, players, seed=seed, title=f"{name}, {players} players, seed {seed}")


def _static_path(name: str) -> str:
    from importlib.resources import files

    return str(files(STATIC[0]).joinpath(STATIC[1], name))


async def _error(request: Request, exc: Exception) -> Response:
    """Every error as one JSON line; a bug's traceback only in the server's log."""
    if isinstance(exc, WebError):
        return reply({"error": str(exc), **exc.extra}, exc.status)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return reply({"error": getattr(exc, "detail", "") or f"HTTP {status}"}, status)
    LOG.error("error serving %s", request.url.path, exc_info=exc)
    return reply({"error": f"internal error ({type(exc).__name__}: {exc}); the game is unchanged"}, 500)

"""The ASGI app: the page, its static files, and a JSON API over `Session`s.

Every tab makes its own session (``POST /api/sessions``) and keeps its id for the tab's life;
the API then reads and changes that session only. Requests are JSON bodies of at most
`MAX_BODY` bytes nested at most `MAX_DEPTH` deep; NaN and infinities are refused; any error is
``{"error": one line}`` with an HTTP status (400 bad input, 403 refused by `Guard`, 404 unknown
session, 409 stale version, 413 too large, 415 not JSON, 422 illegal action, 503 full, 500 a
bug), and the traceback goes to the server's log only.

`Guard` protects the server as Jupyter does (docs/web.md, "How the server is protected"): a
token exchanged for a cookie, the Host header, the Origin of changing requests, JSON only;
sessions belong to the browser that made them.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request, cookie_parser
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from geomsim.notation import rounded
from geomsim.reading import MAX_SEED
from geomsim.registry import UnknownGame, list_games, load_game
from geomsim.rules import IllegalAction
from geomsim.web.hooks import WebError, figure_bytes
from geomsim.web.session import BotRunner, Session, Start, illegal, verdict_json

MAX_BODY = 64 * 1024  # bytes of a request body
MAX_DEPTH = 32  # arrays and objects nested in a request body
MAX_SESSIONS = 64  # sessions kept in all; past it a new one is refused, none dropped
MAX_PER_CLIENT = 16  # sessions of one client; its own least recently used goes first
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
WILDCARD_HOSTS = ("0.0.0.0", "[::]", "")
SAFE_METHODS = frozenset({"GET", "HEAD"})
TOKEN_COOKIE, CLIENT_COOKIE = "geomsim-token", "geomsim-client"  # the port appended
CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
LOG = logging.getLogger("geomsim.web")
STATIC = ("geomsim.web", "static")


class Sessions:
    """The sessions of the open tabs, by id and owner (thread-safe). A client (see `Guard`)
    keeps at most `per_client` sessions, its own least recently used dropped past it; past
    `limit` sessions in all a new one is refused: no client can drop another's game."""

    def __init__(self, start: Start, limit: int | None = None, per_client: int | None = None):
        self.start = start
        self.limit = MAX_SESSIONS if limit is None else limit
        self.per_client = MAX_PER_CLIENT if per_client is None else per_client
        self._by_id: OrderedDict[str, tuple[str, Session]] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, owner: str, start: Start | None = None) -> Session:
        """A new session of `owner` from `start` (default: the game the server was started
        with)."""
        session = Session(start or self.start, id=secrets.token_urlsafe(12))
        with self._lock:
            own = [id for id, (who, _) in self._by_id.items() if who == owner]
            if len(own) >= self.per_client:
                self._by_id.pop(own[0])[1].closed = True
            elif len(self._by_id) >= self.limit:
                raise WebError(f"the server holds {self.limit} games already, none of them "
                               "yours to replace: restart it for more", status=503)
            self._by_id[session.id] = (owner, session)
        return session

    def get(self, id: str, owner: str) -> Session:
        """The session `id` if `owner` made it (else "unknown", as for an id never made)."""
        with self._lock:
            found = self._by_id.get(id)
            if found is None or not secrets.compare_digest(found[0], owner):
                raise WebError("unknown session (the server was restarted or the tab is old): "
                               "reload the page", status=404)
            self._by_id.move_to_end(id)
        return found[1]


class Guard:
    """The server's protection, as a pure ASGI middleware (docs/web.md, "How the server is
    protected"). Every request: the Host must be this machine's or the address listened on
    (against DNS rebinding). Changing requests: an `Origin` only of this server (not ``null``),
    and a body only as ``Content-Type: application/json``. With a `token`: the page ``/`` needs it in the
    query (``/?token=...``, answered with an HttpOnly, SameSite=Strict cookie) or the cookie;
    everything else but ``/static/`` needs the cookie or ``Authorization: token ...``. Each
    browser gets a client cookie of its own, the owner of its sessions (scope
    ``"geomsim.client"``). No CORS headers anywhere."""

    def __init__(self, app: ASGIApp, token: str | None = None, hosts: Iterable[str] = ()):
        self.app, self.token = app, token
        given = {_host_name(h) for h in hosts}
        self.hosts = frozenset(LOCAL_HOSTS) | given
        self.any_address = bool(given & set(WILDCARD_HOSTS))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        cookies = cookie_parser(headers.get("cookie", ""))
        port = scope.get("server", ("", ""))[1]
        token_cookie, client_cookie = f"{TOKEN_COOKIE}-{port}", f"{CLIENT_COOKIE}-{port}"
        refusal = self._refusal(scope, headers)
        path = scope["path"]
        query_token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        page, cookie_ok = path == "/", self._is_token(cookies.get(token_cookie))
        allowed = (self.token is None or cookie_ok or self._is_token(_auth_token(headers))
                   or path.startswith("/static/") or (page and self._is_token(query_token)))
        if refusal is None and not allowed:
            refusal = 403, ("this page needs the token: open the address `geomsim serve` printed "
                            "(http://host:port/?token=...)" if page else
                            "no token: open the page at the address `geomsim serve` printed, or "
                            "send Authorization: token ...")
        if refusal is not None:
            status, words = refusal
            answer: Response = (PlainTextResponse(f"geomsim serve: {words}\n", status) if page
                                else reply({"error": words}, status))
            await answer(scope, receive, send)
            return
        client = cookies.get(client_cookie, "")
        new_cookies = []
        if page and not CLIENT_ID.fullmatch(client):
            client = secrets.token_urlsafe(16)
            new_cookies.append(_cookie(client_cookie, client))
        if page and self.token is not None and not cookie_ok:
            new_cookies.append(_cookie(token_cookie, self.token))
        # Scripted clients without a client cookie share one owner.
        scope["geomsim.client"] = client if CLIENT_ID.fullmatch(client) else "scripted"

        async def send_with_cookies(message: Message) -> None:
            if message["type"] == "http.response.start" and new_cookies:
                out = MutableHeaders(scope=message)
                for cookie in new_cookies:
                    out.append("set-cookie", cookie)
            await send(message)
        await self.app(scope, receive, send_with_cookies if new_cookies else send)

    def _refusal(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        """The status and words refusing the request whatever its token (None: not refused)."""
        host = headers.get("host", "")
        name = _host_name(host)
        if not (name in self.hosts or (self.any_address and _is_ip(name))):
            return 403, (f"Host {host[:100]!r} refused: this server answers to "
                         f"{', '.join(sorted(self.hosts))} only")
        if scope["method"] in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"{scope['scheme']}://{host}".lower():
            return 403, f"cross-origin request refused (Origin {origin[:100]!r})"
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        bodiless = (not media and headers.get("content-length", "0") == "0"
                    and "transfer-encoding" not in headers)
        if media != "application/json" and not bodiless:
            return 415, f"send JSON as Content-Type: application/json, not {media[:60]!r}"
        return None

    def _is_token(self, given: str | None) -> bool:
        return (self.token is not None and given is not None
                and secrets.compare_digest(given.encode("utf-8", "replace"), self.token.encode()))


def _host_name(host: str) -> str:
    """The name of a Host header or address, without its port, lower case, IPv6 in brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[:host.find("]") + 1]
    if host.count(":") > 1:  # a bare IPv6 address, as `--host ::1` gives it
        return f"[{host}]"
    return host.split(":", 1)[0]


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def _auth_token(headers: Headers) -> str | None:
    """The token of an ``Authorization: token T`` (or ``Bearer T``) header."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() in ("token", "bearer") else None


def _cookie(name: str, value: str) -> str:
    return f"{name}={value}; Path=/; HttpOnly; SameSite=Strict"


def _refuse_constant(name: str) -> float:
    raise WebError(f"malformed JSON: {name} is not a number this app accepts")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise WebError(f"malformed JSON: {text[:40]} is too large a number")
    return value


def _too_deep(body: bytes) -> bool:
    """Whether arrays and objects nest deeper than `MAX_DEPTH` in JSON text `body` (brackets
    inside strings do not count); json.loads would recurse once a level."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    for bracket in re.findall(rb"[\[\]{}]", re.sub(rb'"(?:[^"\\]|\\.)*"', b"", body)):
        depth += 1 if bracket in b"[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


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
    if _too_deep(body):
        raise WebError(f"malformed JSON: nested more than {MAX_DEPTH} deep")
    try:
        data = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite_float)
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
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise OverflowError
    except OverflowError:  # also an integer too large for a float
        raise WebError(f"{name} must be a finite number, not {value!r:.40}") from None
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


def make_app(start: Start, *, token: str | None = None, hosts: Iterable[str] = ()) -> Starlette:
    """The web app serving games that begin as `start` (each tab its own session), guarded by
    `Guard`: with `token` every request but the static files needs it (None: no token); the
    Host header must name this machine or one of `hosts` (the address listened on)."""
    sessions = Sessions(start)
    bots = BotRunner()

    def in_session(handler: Callable[[Session, dict[str, Any]], Any], *, changes: bool = True,
                   view: bool = True) -> Callable[[Request], Awaitable[Response]]:
        """An endpoint that runs `handler(session, body)` under the session's lock; a changing
        request must carry the session's current version. Replies the handler's dict, with the
        view after it when `view`."""
        async def endpoint(request: Request) -> Response:
            body = await read_json(request) if request.method == "POST" else dict(request.query_params)
            session = sessions.get(request.path_params["sid"], _client(request))

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
        # No Referer with the token in it, and no copy of a page answered to a token kept.
        return FileResponse(_static_path("index.html"), headers={
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})

    async def new_session(request: Request) -> Response:
        body = await read_json(request)
        chosen = _start_of(body, start) if body.get("game") is not None else None
        deal = body.get("deal", False)
        if not isinstance(deal, bool):
            raise WebError("deal must be true or false")
        session = await run_in_threadpool(sessions.new, _client(request), chosen)
        if deal and session.hooks.in_setup(session.state):
            await run_in_threadpool(_locked_deal, session)
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
        return {"action": str(action), "label": rounded(str(action)), "player": player,
                "ok": verdict.ok, "violations": verdict_json(verdict),
                "overlays": s.hooks.overlays(s.state, action, player, verdict),
                "seconds": time.perf_counter() - clock}

    def do_check(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        action = s.parse(body.get("action"))
        player, verdict = s.check(action, s.player_of(body.get("player")))
        return {"action": str(action), "label": rounded(str(action)), "player": player,
                "ok": verdict.ok, "violations": verdict_json(verdict)}

    def do_apply(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        action = s.parse(body.get("action"))
        try:
            n = s.play(s.player_of(body.get("player")), action, bots=False)
        except IllegalAction as e:
            raise illegal(e) from None
        bots.start(s)
        events = s.records[n - 1].events
        return {"applied": s.applied(n),
                "events": [] if s.sealed(n) else [s.hooks.describe(e) for e in events],
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

    def do_deal(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        played = s.deal()
        bots.start(s)
        return {"dealt": played}

    def do_seats(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        s.set_seats(body.get("seats"))
        bots.start(s)
        return {"thinking": s.thinking}

    def do_bots(s: Session, body: dict[str, Any]) -> dict[str, Any]:
        bots.start(s)
        return {"thinking": s.thinking}

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
        Route("/api/s/{sid}/deal", in_session(do_deal), methods=["POST"]),
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

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        bots.close()

    app = Starlette(routes=routes, exception_handlers={Exception: _error, WebError: _error,
                                                       404: _error, 405: _error},
                    middleware=[Middleware(Guard, token=token, hosts=tuple(hosts))],
                    lifespan=lifespan)
    app.state.sessions, app.state.bots = sessions, bots
    return app


def _client(request: Request) -> str:
    """The client a request comes from, as `Guard` found it (the owner of its sessions)."""
    return str(request.scope.get("geomsim.client", "scripted"))


def _locked_view(session: Session) -> Any:
    with session.lock:
        return session.view()


def _locked_deal(session: Session) -> None:
    with session.lock:
        session.deal()


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
            raise WebError(f"{field_name} must be a whole number, not {value!r:.40}")
    if not 0 <= seed <= MAX_SEED:
        raise WebError(f"seed must be 0 to 2**32 - 1, not {str(seed)[:40]}")
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
        return reply({"error": _one_line(str(exc)), **exc.extra}, exc.status)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return reply({"error": _one_line(getattr(exc, "detail", "") or f"HTTP {status}")}, status)
    LOG.error("error serving %s", request.url.path, exc_info=exc)
    return reply({"error": _one_line(f"internal error ({type(exc).__name__}: {exc}); "
                                     "the game is unchanged")}, 500)


def _one_line(text: str, limit: int = 500) -> str:
    """`text` on one line of at most `limit` characters (a message may quote a request's text)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."

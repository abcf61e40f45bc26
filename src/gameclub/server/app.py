"""The club's ASGI app: ``create_app(settings)`` builds it; ``serve()`` runs it under uvicorn.

Routes: the JSON API under ``/api`` (:mod:`gameclub.server.api`), the
WebSocket at ``/ws`` (:mod:`gameclub.server.ws`), the static front end
(``gameclub/web``) at ``/static/``, and its ``index.html`` at ``/`` and at
every page path the front end routes itself (``/game/...``, ``/invite/...``).
Nothing is built at import time: the database is opened, migrated and its
games in progress resumed in the lifespan.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
import sys
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gameclub.games import GameError
from gameclub.server import api
from gameclub.server.club import Club
from gameclub.server.limits import RequestLimits
from gameclub.server.settings import Settings
from gameclub.server.ws import websocket_endpoint

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).resolve().parent.parent / "web"

_NO_FRONT_END = """<!doctype html><meta charset="utf-8"><title>gameclub</title>
<p>The gameclub server is running, but its front end (gameclub/web/index.html) is missing.</p>
"""

#: What the page may load: only its own scripts, styles, images and socket (no inline code).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
    " frame-ancestors 'none'"
)
#: Headers on every page: no framing by other sites, no MIME sniffing, no referrer leaks.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
}


class StaticFront(StaticFiles):
    """The front end's files, revalidated on every load (``no-cache``): no build step
    means no hashed names, so a stale module must never outlive a deploy."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response


#: Allocations between two young-generation collections (CPython's default is 700). Much
#: higher and the older generation's collections, which walk every survivor of ten young
#: ones, get long (tens of milliseconds with 20,000 at 200 games).
GC_GEN0_THRESHOLD = 5_000


def tune_gc() -> None:
    """Make garbage collection pauses rare and short in the serving process.

    Called once start-up is over: everything alive then (the modules, numba's
    compiled kernels, SQLAlchemy's compiled statements, the resumed games)
    lives as long as the process, so it is frozen out of every later
    collection (``gc.freeze``); without that, each full collection walks
    hundreds of thousands of objects and stalls every game for tens to
    hundreds of milliseconds. Young collections run a few times less often:
    almost all garbage of a move is freed by reference counting anyway.
    """
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)


def _load_kernels() -> None:
    from gameclub.games import GAMES, Setup

    for kind in GAMES.values():
        start = kind.start_text(Setup(kind.default_rules))
        position = kind.position(kind.default_rules, None, start)
        position.view(live=True)
        # What every move calls (each compiled on its first call otherwise, for
        # seconds, on the event loop: a stall that also lets a node's leases lapse).
        position.forced_move()
        position.outcome()
        position.delta_view()
    # Build what the forms offer once, here, rather than in the first request.
    api.options_body()


class NodeHeader:
    """Name the node that answered (``X-Gameclub-Node``) on every HTTP response of a
    node of several: what a proxy's logs and a load test need to tell nodes apart."""

    def __init__(self, app: ASGIApp, node: str) -> None:
        self.app = app
        self.header = (b"x-gameclub-node", node.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def named(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), self.header]}
            await send(message)

        await self.app(scope, receive, named)


async def healthz(request: Request) -> Response:
    """200 while this process can serve (its database answers and, on a node of several,
    Redis too); 503 with what is wrong otherwise. For proxies' health checks."""
    club = request.app.state.club
    problems = []
    try:
        await asyncio.wait_for(club.db.ping(), timeout=2)
    except Exception as exc:
        problems.append(f"database: {type(exc).__name__}")
    if club.cluster is not None:
        try:
            await asyncio.wait_for(club.cluster.redis.ping(), timeout=2)
        except Exception as exc:
            problems.append(f"redis: {type(exc).__name__}")
    if problems:
        return JSONResponse({"ok": False, "problems": problems}, status_code=503)
    return JSONResponse({"ok": True})


def create_app(
    settings: Settings | None = None, *, ai_executor: Executor | None = None
) -> Starlette:
    """The club's app. ``ai_executor`` replaces the engine's own process pool (tests share one)."""
    settings = settings or Settings.from_env()
    if settings.redis_url is not None and settings.node_id is None:
        # A node of several has a name from the start (its header, its channel).
        settings = replace(settings, node_id=f"n{secrets.token_hex(4)}")
    web_dir = settings.web_dir or WEB_DIR

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Load the move-generation kernel before serving: its first call loads
        # numba's compiled code, which would otherwise stall the event loop.
        log.info("loading the move generator (the first start after an install compiles it)")
        await asyncio.to_thread(_load_kernels)
        club = await Club.start(settings, ai_executor)
        app.state.club = club
        if settings.tune_gc:
            tune_gc()
        # uvicorn picks uvloop when it is installed (uvicorn[standard]); say which it is.
        log.info("serving on %s", type(asyncio.get_running_loop()).__module__)
        try:
            yield
        finally:
            await club.stop()

    async def index(request: Request) -> Response:
        page = web_dir / "index.html"
        if not page.is_file():
            return HTMLResponse(_NO_FRONT_END, headers=SECURITY_HEADERS)
        return FileResponse(page, headers={**SECURITY_HEADERS, "Cache-Control": "no-cache"})

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        *api.routes,
        WebSocketRoute("/ws", websocket_endpoint),
        Mount("/static", app=StaticFront(directory=web_dir, check_dir=False), name="static"),
        Route("/", index, methods=["GET"]),
        # Pages the front end routes by itself all get index.html.
        Route("/{page:path}", index, methods=["GET"]),
    ]
    middleware = []
    if settings.redis_url is not None and settings.node_id is not None:
        middleware.append(Middleware(NodeHeader, node=settings.node_id))
    if settings.trusted_proxies:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        # The client's address as the configured proxies report it (uvicorn's own
        # reading of X-Forwarded-For, given only the proxies we were told of).
        middleware.append(
            Middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))
        )
    # Inside the proxy headers' middleware, so that the budgets count the real client.
    middleware.append(
        Middleware(
            RequestLimits,
            settings=settings,
            client_of=lambda scope: api.client_of(HTTPConnection(scope)),
        )
    )
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={
            GameError: api.error_response,
            HTTPException: api.http_error_response,
        },
    )
    app.state.settings = settings
    return app


def check_services(settings: Settings) -> str | None:
    """What a node of several cannot reach at start (Redis, the database), or ``None``."""
    import redis
    from sqlalchemy import create_engine, text

    from gameclub.server.store.db import sync_url

    try:
        client = redis.Redis.from_url(
            settings.redis_url or "", socket_connect_timeout=3, socket_timeout=3
        )
        client.ping()
        client.close()
    except (redis.RedisError, OSError, ValueError) as exc:
        return f"cannot reach Redis at {settings.redis_url}: {exc}"
    connect_args = {} if settings.database_url.startswith("sqlite") else {"connect_timeout": 5}
    try:
        engine = create_engine(sync_url(settings.database_url), connect_args=connect_args)
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        engine.dispose()
    except Exception as exc:
        return f"cannot reach the database at {settings.database_url}: {exc}".splitlines()[0]
    return None


def serve(
    host: str | None = None,
    port: int | None = None,
    database_url: str | None = None,
    redis_url: str | None = None,
) -> None:
    """Run the club under uvicorn until interrupted (``gameclub serve``).

    With a Redis URL (or ``GAMECLUB_REDIS_URL``) the process is one node of a club
    of several (docs/server.md, "Several nodes"); it exits at once, with status 2
    and a line saying why, when it cannot reach Redis or the database.
    """
    import uvicorn

    settings = Settings.from_env(
        host=host, port=port, database_url=database_url, redis_url=redis_url, tune_gc=True
    )
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if settings.redis_url is not None:
        problem = check_services(settings)
        if problem is not None:
            print(f"gameclub: {problem}", file=sys.stderr, flush=True)
            raise SystemExit(2)
    app = create_app(settings)
    print(
        f"gameclub: serving http://{settings.host}:{settings.port} "
        f"(database {settings.database_url}"
        + (f", node of the club on Redis {settings.redis_url})" if settings.redis_url else ")"),
        flush=True,
    )
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        # Frames above this are refused by the protocol layer itself; the
        # app's own, smaller limit answers politely below it.
        ws_max_size=64 * 1024,
        # Game states are small and sent often: compressing each one costs more
        # CPU than the bytes it saves on the loopback or a LAN.
        ws_per_message_deflate=False,
        # One log line per HTTP request is noise at club scale; errors still log.
        access_log=False,
        # uvicorn would believe X-Forwarded-For from 127.0.0.1 (any local client);
        # the app believes it only from Settings.trusted_proxies.
        proxy_headers=False,
        log_level="info",
    )

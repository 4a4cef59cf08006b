"""`create_app(settings)`: builds the engine, applies migrations, wires routers, mounts the page."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from sqlalchemy import orm
from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from backend import VERSION
from backend.api.routes import (
    account,
    active_note,
    admin,
    agent_proposals,
    assistant,
    attachments,
    conversations,
    documents,
    events,
    folders,
    inline,
    invitations,
    key_sessions,
    oidc,
    proposals,
    search,
    session,
    setup,
    tokens,
    transfer,
    trash,
    workspaces,
)
from backend.assistant.deliveries import purge_expired
from backend.assistant.llm import agent_for
from backend.assistant.model import ChatModel
from backend.config import Settings
from backend.db import build_engine, build_sessionmaker, utcnow
from backend.delivery.web import mount_web
from backend.errors import install_error_handlers
from backend.limits.guards import BodyLimitMiddleware, NoSniffMiddleware
from backend.limits.throttle import Throttle
from backend.live import Hub
from backend.logging import RequestLogMiddleware, configure_logging
from backend.migrations import upgrade_to_head
from backend.oauth import urls as oauth_urls
from backend.oauth.routes import mount_oauth
from backend.oauth.store import purge_idle_clients
from backend.outside_agents.server import mount_mcp
from backend.services import documents as documents_service
from backend.services.attachments import purge_unreferenced
from backend.services.caches import INFO_KEY as CACHES_INFO_KEY
from backend.services.caches import Caches
from backend.services.revisions import purge_deleted
from backend.services.setup import announce as announce_setup
from backend.services.users import Passwords

log = logging.getLogger("ambient.app")
# How often a running server forgets the history of notes deleted KEEP_DAYS days ago (it
# also does at start-up): a deleted note's history lives at most this much past its 30 days.
HISTORY_PURGE_SECONDS = 3600.0


def purge_at_start(maker: orm.sessionmaker[orm.Session]) -> None:
    """What expired while the server was down: delivery rows (they grant nothing any more)
    and the history of notes deleted more than 30 days ago."""
    now = utcnow()
    with maker() as db:
        purge_expired(db, now=now)
    _purge_history(maker, now=now)


def _purge_history(maker: orm.sessionmaker[orm.Session], now: datetime | None = None) -> None:
    with maker() as db:
        purge_deleted(db, now=now or utcnow())
    with maker() as db:  # OAuth clients unused for 30 days (SPEC §19)
        purge_idle_clients(db, now=now or utcnow())
    with maker() as db:  # attachments no note refers to for 30 days (SPEC §18)
        purge_unreferenced(db, now=now or utcnow())


async def _purge_history_periodically(maker: orm.sessionmaker[orm.Session]) -> None:
    """The lifespan's task: purge deleted notes' history every HISTORY_PURGE_SECONDS, in a
    worker thread (it writes); a failed purge is logged and tried again next time."""
    while True:
        await asyncio.sleep(HISTORY_PURGE_SECONDS)
        try:
            await asyncio.to_thread(_purge_history, maker)
        except Exception:
            log.exception("purging deleted notes' history failed")


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
CROSS_ORIGIN = "Cross-origin requests that change data are not allowed."


class HealthOut(BaseModel):
    status: str


def create_app(settings: Settings) -> FastAPI:
    """Build the whole app from `settings`: nothing is built at import time.

    Steps: 1. refuse insecure settings; 2. logging; 3. database engine, migrations and the
    purge of expired delivery rows and of deleted notes' history (the lifespan purges that
    hourly too); 4. demo seed; 5. the FastAPI app, error handlers and middleware; 6. API
    routers; 7. the page, mounted last.
    """
    settings.check_secure()
    configure_logging(settings.log_level)

    engine = build_engine(settings.resolved_database_url())
    upgrade_to_head(engine)
    # One set of caches per app, reached through its sessions (backend/services/caches.py).
    caches = Caches()
    sessionmaker = build_sessionmaker(engine, info={CACHES_INFO_KEY: caches})
    documents_service.follow_commits(sessionmaker)
    purge_at_start(sessionmaker)
    passwords = Passwords()
    if settings.demo:
        from backend.seed import seed_demo

        with sessionmaker() as db:
            seed_demo(db, passwords=passwords)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await app.state.live.start()  # live notes: the event fan-out (and its listener)
        if not settings.demo:  # no account yet: log the one-time setup code (SPEC §17)
            await asyncio.to_thread(announce_setup, sessionmaker, secret_key=settings.secret_key)
        purging = asyncio.create_task(
            _purge_history_periodically(sessionmaker), name="ana-history-purge"
        )
        try:
            async with app.state.mcp_sessions.run():  # the /mcp transport's task group
                yield
        finally:
            purging.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await purging
            await app.state.live.stop()
        engine.dispose()

    app = FastAPI(
        title="Ambient Note Awareness",
        version=VERSION,
        summary="Markdown notes in workspaces, with an assistant that knows which note is open.",
        docs_url=None,  # served below from packaged files, never from a CDN
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = sessionmaker
    app.state.caches = caches
    app.state.passwords = passwords
    # One language-model client per app (None: offline); its model is resolved on first use.
    app.state.model = ChatModel.from_settings(settings)
    app.state.agent = agent_for(app.state.model)
    app.state.live = Hub(
        sessionmaker,
        database_url=settings.resolved_database_url(),
        queue_size=settings.events_queue_size,
        per_user=settings.events_streams_per_user,
    )

    app.state.throttle = Throttle(settings.route_rate_limit, settings.rate_limit_storage)

    install_error_handlers(app)
    # Innermost first. A request meets: nosniff, the log, the Host check, the body limit,
    # the same-origin guard, then the routes (each refusal is logged and carries nosniff).
    app.add_middleware(SameOriginMiddleware, settings=settings)
    app.add_middleware(BodyLimitMiddleware, note_limit=settings.max_note_bytes)
    app.add_middleware(
        TrustedHostMiddleware, allowed_hosts=settings.allowed_host_list(), www_redirect=False
    )
    app.add_middleware(RequestLogMiddleware)  # logs the guards' 400/403/413 too
    app.add_middleware(NoSniffMiddleware)
    mount_api_docs(app)

    @app.get("/api/health", response_model=HealthOut, tags=["health"], summary="Liveness")
    def health() -> HealthOut:
        return HealthOut(status="ok")

    routers = (
        session,
        workspaces,
        invitations,
        documents,
        folders,
        trash,
        search,
        key_sessions,
        assistant,
        proposals,
        inline,
        tokens,
        active_note,
        conversations,
        events,
        agent_proposals,
        oidc,
        account,
        admin,
        setup,
        transfer,
        attachments,
    )
    for module in routers:
        app.include_router(module.router)
    # /mcp for the user's own agents, under the same cross-origin rule
    app.state.mcp_sessions = mount_mcp(app, lambda scope: _same_origin(scope, settings))
    mount_oauth(app)  # OAuth 2.1 for /mcp (SPEC §19): metadata, registration, consent, tokens
    mount_web(app, settings)
    return app


DOCS_ASSETS = "/api/docs/assets"
# Swagger UI's initialiser is an inline script; everything else comes from this origin.
DOCS_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
)


def mount_api_docs(app: FastAPI) -> None:
    """/api/docs: Swagger UI from the files the fastapi-offline package installs (no CDN)."""
    assets = Path(importlib.util.find_spec("fastapi_offline").origin).parent / "static"
    app.mount(DOCS_ASSETS, StaticFiles(directory=assets), name="api-docs-assets")

    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=app.openapi_url or "/api/openapi.json",
            title=f"{app.title} - API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )
        page.headers["Content-Security-Policy"] = DOCS_CSP
        return page


class SameOriginMiddleware:
    """Refuse state-changing requests whose Origin (or Referer) is another origin (403).

    Requests with neither header (curl, scripts) pass: browsers always send Origin on
    cross-origin POST/PUT/PATCH/DELETE, so a forged browser request cannot omit it.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = (
            scope["type"] == "http"
            and scope["method"] not in SAFE_METHODS
            and scope["path"] not in oauth_urls.COOKIELESS  # no cookie read: no CSRF there
            and not _same_origin(scope, self.settings)
        )
        if refused:
            response = JSONResponse({"detail": CROSS_ORIGIN}, status_code=403)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_tuple(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            return None
        return scheme, parts.hostname.lower(), parts.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        return None


def _same_origin(scope: Scope, settings: Settings) -> bool:
    headers = Headers(scope=scope)
    claimed = headers.get("origin")
    if claimed is None:
        claimed = headers.get("referer")
        if claimed is None:
            return True
    source = _origin_tuple(claimed)
    host = headers.get("host")
    if source is None or not host:
        return False  # includes "Origin: null" (sandboxed frames, file://)
    schemes = {scope.get("scheme", "http")}
    # X-Forwarded-Proto only from a proxy the operator named (as for the cookie's Secure
    # flag); under `serve` uvicorn has already rewritten the scheme from such a proxy.
    client = scope.get("client")
    forwarded = headers.get("x-forwarded-proto")
    if forwarded and settings.trusts_proxy(client[0] if client else None):
        schemes.add(forwarded.split(",")[0].strip().lower())
    return any(_origin_tuple(f"{scheme}://{host}") == source for scheme in schemes)

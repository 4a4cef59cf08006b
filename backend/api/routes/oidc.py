"""Sign-in with OpenID Connect (issue 31, docs/oidc.md): the providers the page offers, the
redirect to the provider and its way back.

Failures never answer 500 nor show the provider's words: the browser goes back to the page at
`/#signin-error=<code>` (codes in docs/oidc.md), and the log says the code alone.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field

from backend.api.deps import SESSION_COOKIE, SessionDep, SettingsDep
from backend.api.routes.session import cookie_is_secure, set_session_cookie
from backend.config import Settings
from backend.db import utcnow
from backend.services import oidc as oidc_service
from backend.services import sessions as sessions_service

router = APIRouter(tags=["session"])
log = logging.getLogger("ambient.oidc")
audit = logging.getLogger("ambient.audit")

STATE_COOKIE = "ana_oidc"
STATE_COOKIE_PATH = "/api/oidc"
PROVIDER_ID = "oidc"
LOGIN_PATH = "/api/oidc/login"
CALLBACK_ROUTE = "oidc_callback"


class ProviderOut(BaseModel):
    id: str = Field(description='Always "oidc" (one provider per installation).')
    name: str = Field(description="The button's label (ANA_OIDC_NAME).")
    url: str = Field(description="Where the button goes: the sign-in starts there.")


class ProvidersOut(BaseModel):
    providers: list[ProviderOut]


@router.get(
    "/api/session/providers",
    response_model=ProvidersOut,
    summary="Other ways to sign in",
    description="The identity providers the sign-in page offers beside the password: empty "
    "unless OpenID Connect is configured (docs/oidc.md). No sign-in needed.",
)
def providers(settings: SettingsDep) -> ProvidersOut:
    if not settings.oidc_enabled():
        return ProvidersOut(providers=[])
    return ProvidersOut(
        providers=[ProviderOut(id=PROVIDER_ID, name=settings.oidc_name, url=LOGIN_PATH)]
    )


def _client(request: Request, settings: Settings) -> oidc_service.OidcClient:
    """The app's provider client (discovery and keys cached in it), made on first use."""
    client: oidc_service.OidcClient | None = getattr(request.app.state, "oidc_client", None)
    if client is None:
        client = oidc_service.OidcClient(settings)
        request.app.state.oidc_client = client
    return client


def _back_to_page(request: Request, settings: Settings, code: str) -> RedirectResponse:
    log.info("oidc sign-in refused", extra={"fields": {"reason": code}})
    response = RedirectResponse(f"/#signin-error={code}", status_code=302)
    _clear_state(response, request, settings)
    return response


def _clear_state(response: RedirectResponse, request: Request, settings: Settings) -> None:
    response.delete_cookie(
        STATE_COOKIE,
        path=STATE_COOKIE_PATH,
        httponly=True,
        samesite="lax",
        secure=cookie_is_secure(request, settings),
    )


@router.get(
    LOGIN_PATH,
    # A browser navigation (a redirect), not a JSON API: docs/oidc.md describes it.
    include_in_schema=False,
    response_class=RedirectResponse,
    status_code=302,
    summary="Sign in at the identity provider",
    description="302 to the provider's authorization endpoint (code flow with PKCE), with a "
    "short signed cookie holding the state; `/#signin-error=off` when OpenID Connect is not "
    "configured, `/#signin-error=provider` when the provider cannot be reached.",
)
async def login(request: Request, settings: SettingsDep) -> RedirectResponse:
    if not settings.oidc_enabled():
        return _back_to_page(request, settings, "off")
    redirect_uri = str(request.url_for(CALLBACK_ROUTE))
    try:
        url, state = await _client(request, settings).begin(
            redirect_uri=redirect_uri, secret_key=settings.secret_key
        )
    except oidc_service.OidcRefused as refused:
        return _back_to_page(request, settings, refused.code)
    response = RedirectResponse(url, status_code=302)
    response.set_cookie(
        STATE_COOKIE,
        state,
        max_age=oidc_service.STATE_SECONDS,
        path=STATE_COOKIE_PATH,
        httponly=True,
        samesite="lax",
        secure=cookie_is_secure(request, settings),
    )
    return response


@router.get(
    "/api/oidc/callback",
    # A browser navigation (a redirect), not a JSON API: docs/oidc.md describes it.
    include_in_schema=False,
    name=CALLBACK_ROUTE,
    response_class=RedirectResponse,
    status_code=302,
    summary="The identity provider's way back",
    description="Where the provider sends the browser back: the code is exchanged and the ID "
    "token validated, the user found by the provider's (issuer, subject) or created on first "
    "sign-in, then signed in as with a password and sent to `/`. Any refusal sends the "
    "browser to `/#signin-error=<code>` (state, denied, provider, token, domain, disabled, "
    "setup, off).",
)
async def callback(request: Request, db: SessionDep, settings: SettingsDep) -> RedirectResponse:
    if not settings.oidc_enabled():
        return _back_to_page(request, settings, "off")
    params = {k: v for k, v in request.query_params.items()}
    now = utcnow()
    try:
        identity = await _client(request, settings).finish(
            params=params,
            cookie=request.cookies.get(STATE_COOKIE),
            secret_key=settings.secret_key,
        )
        oidc_service.check_domain(identity, settings.oidc_domain_list())

        def find_user() -> tuple[int, str, bool, bool]:
            user, created = oidc_service.user_for_identity(db, identity, now=now)
            return user.id, user.username, user.disabled, created

        user_id, username, disabled, created = await anyio.to_thread.run_sync(find_user)
    except oidc_service.OidcRefused as refused:
        return _back_to_page(request, settings, refused.code)
    if created:
        audit.info(
            "user created",
            extra={"fields": {"who": "oidc", "what": "user.create", "whom": username}},
        )
    if disabled:
        return _back_to_page(request, settings, "disabled")

    ttl = timedelta(hours=settings.session_ttl_hours)
    old = request.cookies.get(SESSION_COOKIE)

    def open_session() -> str:
        # As the password sign-in does: the new sign-in replaces the browser's old one.
        if old:
            sessions_service.delete_session(db, token=old, secret=settings.secret_key)
        return sessions_service.create_session(
            db,
            user_id=user_id,
            ttl=ttl,
            now=utcnow(),
            secret=settings.secret_key,
            user_agent=request.headers.get("user-agent"),
        )

    token = await anyio.to_thread.run_sync(open_session)
    response = RedirectResponse("/", status_code=302)
    _clear_state(response, request, settings)
    set_session_cookie(response, request, settings, token)  # as a password sign-in
    request.state.user_id = user_id
    log.info("oidc sign-in", extra={"fields": {"user_id": user_id, "created": created}})
    return response

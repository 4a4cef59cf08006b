"""Sign in and out: an HttpOnly, SameSite=Lax cookie backed by a user_sessions row, throttled."""

from __future__ import annotations

from datetime import timedelta

import anyio.to_thread
from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from backend.api.deps import (
    NOT_SIGNED_IN,
    SESSION_COOKIE,
    CurrentUser,
    OptionalUser,
    PasswordsDep,
    SessionDep,
    SettingsDep,
)
from backend.config import Settings
from backend.db import utcnow
from backend.errors import Forbidden, Unauthorized, error_responses
from backend.limits.throttle import Throttle, client_address
from backend.models import User
from backend.services import sessions as sessions_service
from backend.services import users as users_service

router = APIRouter(prefix="/api/session", tags=["session"])

WRONG_CREDENTIALS = "The username or password is not correct."
DISABLED = "This account is disabled. Ask an administrator to enable it."


class SignIn(BaseModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class SessionOut(BaseModel):
    username: str
    admin: bool = Field(description="Whether this user administers the installation (SPEC §17).")


def cookie_is_secure(request: Request, settings: Settings) -> bool:
    """Explicit setting, else Secure when the request came over HTTPS (or a trusted proxy
    says so).

    X-Forwarded-Proto is believed only from a direct peer named in trusted_proxies: anyone
    else could send it to set the flag. (Under `serve`, uvicorn already rewrote the scheme
    from a trusted proxy's header, and the peer is then the forwarded client.)
    """
    if settings.cookie_secure is not None:
        return settings.cookie_secure
    if request.url.scheme == "https":
        return True
    if not settings.trusts_proxy(request.client.host if request.client else None):
        return False
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return forwarded == "https"


def set_session_cookie(
    response: Response, request: Request, settings: Settings, token: str
) -> None:
    """The sign-in cookie for `token` (shared with the first-run setup, which signs in too)."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(timedelta(hours=settings.session_ttl_hours).total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=cookie_is_secure(request, settings),
    )


@router.post(
    "",
    response_model=SessionOut,
    summary="Sign in",
    description="After 5 failed attempts for one username, or 20 from one client address, "
    "within a minute, further attempts get 429 with Retry-After until the minute has passed.",
    responses=error_responses(401, 403, 422, 429),
)
async def sign_in(
    body: SignIn,
    request: Request,
    response: Response,
    db: SessionDep,
    settings: SettingsDep,
    passwords: PasswordsDep,
) -> SessionOut:
    # Async on purpose: the throttle answers 429 on the event loop, before any thread or
    # argon2 work, and a request waits for the password slot there too, holding no worker
    # thread; the password check then runs in a worker thread, one at a time. Only failures
    # count (SPEC §12): correct sign-ins never use up the limit for one another.
    throttle: Throttle = request.app.state.throttle
    address = client_address(request)
    throttle.check_sign_in(body.username, address)
    old = request.cookies.get(SESSION_COOKIE)
    ttl = timedelta(hours=settings.session_ttl_hours)

    def authenticate() -> User | None:
        return users_service.authenticate(
            db, username=body.username, password=body.password, passwords=passwords
        )

    async with throttle.password_slot():
        # Again in the slot: failures recorded while this request waited count now.
        throttle.check_sign_in(body.username, address)
        user = await anyio.to_thread.run_sync(authenticate)
        if user is None:  # counted before the next request's check in the slot
            throttle.sign_in_failed(body.username, address)
            raise Unauthorized(WRONG_CREDENTIALS)
    throttle.sign_in_succeeded(body.username)
    if user.disabled:
        raise Forbidden(DISABLED)

    def open_session(user: User) -> tuple[str, int, bool, str]:
        if old:  # a new sign-in replaces the old session rather than leaving it valid
            sessions_service.delete_session(db, token=old, secret=settings.secret_key)
        token = sessions_service.create_session(
            db,
            user_id=user.id,
            ttl=ttl,
            now=utcnow(),
            secret=settings.secret_key,
            user_agent=request.headers.get("user-agent"),
        )
        return user.username, user.id, user.admin, token

    signed_in = await anyio.to_thread.run_sync(open_session, user)
    username, user_id, admin, token = signed_in
    set_session_cookie(response, request, settings, token)
    request.state.user_id = user_id
    return SessionOut(username=username, admin=admin)


@router.get(
    "", response_model=SessionOut, summary="Who is signed in", responses=error_responses(401)
)
def who_am_i(user: CurrentUser) -> SessionOut:
    return SessionOut(username=user.username, admin=user.admin)


@router.delete(
    "",
    status_code=204,
    response_class=Response,
    summary="Sign out",
    responses=error_responses(401, 403),
)
def sign_out(
    request: Request, user: OptionalUser, db: SessionDep, settings: SettingsDep
) -> Response:
    secure = cookie_is_secure(request, settings)
    if user is None:
        # Still clear a stale cookie, so the browser stops sending it.
        response: Response = JSONResponse({"detail": NOT_SIGNED_IN}, status_code=401)
    else:
        # Also revokes the key sessions opened under this sign-in (SPEC §12).
        sessions_service.delete_session(
            db, token=request.cookies.get(SESSION_COOKIE, ""), secret=settings.secret_key
        )
        response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure)
    return response

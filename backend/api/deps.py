"""Annotated dependencies shared by the routers: settings, DB session, current user, note paths."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated
from urllib.parse import unquote_to_bytes

import anyio
import anyio.to_thread
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from backend.assistant.model import ChatModel
from backend.assistant.turns import Agent
from backend.config import Settings
from backend.db import utcnow
from backend.errors import BadPath, BadRequest, Forbidden, TooLarge, Unauthorized
from backend.models import User
from backend.services import sessions as sessions_service
from backend.services import workspaces as workspaces_service
from backend.services.documents import valid_path
from backend.services.users import Passwords

SESSION_COOKIE = "ana_session"
NOT_SIGNED_IN = "You are not signed in, or your session has expired. Please sign in."
_READ_CHUNK_LIMIT = 64 * 1024


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_db(request: Request) -> AsyncIterator[Session]:
    """One DB session per request, closed afterwards (services commit their own writes).

    Opening a Session touches no connection, so it is made on the event loop (a sync
    dependency costs a thread-pool round trip each way). Closing one whose transaction is
    still open rolls back and returns a connection, so that runs in a worker thread as
    FastAPI runs a sync dependency's exit: shielded from cancellation and with its own
    limiter, never waiting behind busy workers. A session whose route ended its transaction
    (services commit their writes; read routes end their read) holds no connection, and
    closing it does no I/O: that stays on the event loop, one thread round trip fewer.
    """
    db = request.app.state.sessionmaker()
    try:
        yield db
    finally:
        if db.in_transaction():
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(db.close, limiter=anyio.CapacityLimiter(1))
        else:
            db.close()


async def get_passwords(request: Request) -> Passwords:
    return request.app.state.passwords


async def get_model(request: Request) -> ChatModel | None:
    """The app's one language-model client (built in create_app), or None when offline."""
    return request.app.state.model


async def get_agent(request: Request) -> Agent:
    """The app's chat agent: on the configured model, else the offline one."""
    return request.app.state.agent


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_db)]
PasswordsDep = Annotated[Passwords, Depends(get_passwords)]
ModelDep = Annotated[ChatModel | None, Depends(get_model)]
AgentDep = Annotated[Agent, Depends(get_agent)]


def _sign_in(
    request: Request, db: Session, workspace_id: str | None
) -> tuple[User | None, str | None]:
    """The cookie's user (or None) and their role in `workspace_id` (None: not a member)."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None, None
    secret = request.app.state.settings.secret_key
    user, role = sessions_service.member_for_token(
        db, token=token, now=utcnow(), secret=secret, workspace_id=workspace_id
    )
    # End the check's read now, in this worker thread: its open transaction would hold a
    # pooled connection while the route waits for a worker thread of its own, and with every
    # worker waiting for a connection that wait never ends (requests then failed after the
    # pool's 30 s under load). Nothing is pending, and loaded objects stay loaded.
    if db.in_transaction():
        db.commit()
    if user is not None:
        request.state.user_id = user.id  # for the request log line
        # The sign-in this request runs under: key sessions opened now are tied to it.
        request.state.user_session_id = sessions_service.token_id(token, secret)
        request.state.signed_in = user  # a later optional_user in this request reuses it
    return user, role


def optional_user(request: Request, db: SessionDep) -> User | None:
    """The signed-in user from the session cookie, or None."""
    known: User | None = getattr(request.state, "signed_in", None)
    if known is not None:  # member_workspace ran first: same cookie, same DB session
        return known
    return _sign_in(request, db, None)[0]


async def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    """The signed-in user; 401 otherwise."""
    if user is None:
        raise Unauthorized(NOT_SIGNED_IN)
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]


def _workspace_with_role(needed: str) -> Callable[..., str]:
    def dependency(ws: str, request: Request, db: SessionDep) -> str:
        user, role = _sign_in(request, db, ws)
        if user is None:
            raise Unauthorized(NOT_SIGNED_IN)
        if not workspaces_service.allows(role, needed):
            raise Forbidden(workspaces_service.refusal(role, needed))
        request.state.role = role
        return ws

    dependency.__doc__ = (
        f"The `{{ws}}` path parameter when the user's role allows what a {needed} may do; 401 "
        "when not signed in, 403 otherwise (also when unknown). The sign-in and the role are "
        "one query, in one worker thread."
    )
    return dependency


member_workspace = _workspace_with_role(workspaces_service.READER)
MemberWorkspace = Annotated[str, Depends(member_workspace)]
# Changing notes: editors and owners (SPEC §17); a reader gets 403 and nothing changes.
EditorWorkspace = Annotated[str, Depends(_workspace_with_role(workspaces_service.EDITOR))]
# Managing the workspace, its members and its invitations.
OwnerWorkspace = Annotated[str, Depends(_workspace_with_role(workspaces_service.OWNER))]


async def admin_user(user: CurrentUser) -> User:
    """The signed-in user when an administrator; 403 otherwise."""
    if not user.admin:
        raise Forbidden("Only an administrator can do that.")
    return user


AdminUser = Annotated[User, Depends(admin_user)]


def per_user(route: str) -> Callable[..., Awaitable[None]]:
    """A dependency that counts the signed-in user's calls of `route` (backend.limits.throttle: 429
    past route_rate_limit, with Retry-After)."""

    async def dependency(request: Request, user: CurrentUser) -> None:
        request.app.state.throttle.hit_route(route, user.id)

    return dependency


async def note_path(request: Request, path: str) -> str:
    """The `{path}` parameter, checked against ambient.paths (400 with its message)."""
    raw = request.scope.get("raw_path")
    if isinstance(raw, bytes):
        try:
            unquote_to_bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise BadPath("The path is not valid UTF-8.") from None
    return valid_path(path)


NotePath = Annotated[str, Depends(note_path)]


MAX_REVISION = 2**31 - 1


def parse_if_match(value: str | None) -> int | None:
    """`"3"` (or bare 3) → 3; absent → None; anything else → 400."""
    if value is None:
        return None
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise BadRequest('If-Match must be one revision in quotes, like "3".')
    # Revisions are 32-bit in the database: a larger one cannot exist, so it is simply stale
    # (409), never a value the database refuses (which would be a 500 on PostgreSQL).
    return min(int(text), MAX_REVISION)


def is_create_only(value: str | None) -> bool:
    """If-None-Match: `*` means create only; no header means no condition; others → 400."""
    if value is None:
        return False
    if value.strip() == "*":
        return True
    raise BadRequest("Only If-None-Match: * (create only) is supported when saving a note.")


async def note_body(request: Request, settings: SettingsDep) -> str:
    """The request body as text: at most max_note_bytes (413) and valid UTF-8 (400).

    Content-Length is checked first, then the stream is read with a running count, so an
    oversized or lying body is never buffered whole.
    """
    limit = settings.max_note_bytes
    too_large = f"The note is larger than the limit of {limit:,} bytes."
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise BadRequest("The Content-Length header is not a number.")
        if int(declared) > limit:
            raise TooLarge(too_large)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(too_large)
        chunks.append(chunk)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("The note text is not valid UTF-8.") from None


NoteBody = Annotated[str, Depends(note_body)]

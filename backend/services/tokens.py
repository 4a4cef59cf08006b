"""Personal access tokens: random, shown once, stored as SHA-256, checked on every MCP request.

The list and revocation also cover OAuth grants (backend.oauth, SPEC §19), which the page
shows beside the tokens."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.orm import Session

from ambient.paths import character_problem, under_folder
from backend.db import storable, utcnow
from backend.errors import BadRequest, NotFound
from backend.models import User
from backend.models.oauth import OAuthGrant
from backend.models.outside_agents import PersonalAccessToken

TOKEN_PREFIX = "ana_pat_"  # makes a leaked token easy to recognise (and to scan for)
MAX_TOKEN_CHARS = 256
MAX_EXPIRES_IN_DAYS = 365
# Writing last_used_at on every request would be one UPDATE per MCP call; once a minute is
# precise enough for "last used" in the panel.
LAST_USED_RESOLUTION = timedelta(minutes=1)
NOT_FOUND = "There is no such token."

READ, PROPOSE, WRITE = "read", "propose", "write"
SCOPES = (READ, PROPOSE, WRITE)  # each allows what the ones before it allow


@dataclass(frozen=True)
class Authority:
    """What one MCP request may do: the token's user, scope and reach (SPEC §14)."""

    user_id: int
    token_id: str
    name: str
    scope: str
    workspace_id: str | None
    folder: str | None

    def allows(self, scope: str) -> bool:
        return SCOPES.index(self.scope) >= SCOPES.index(scope)

    def reaches(self, workspace_id: str, path: str | None = None) -> bool:
        """Is the workspace (and the NFC note path, when given) within the token's reach?"""
        if self.workspace_id is not None and workspace_id != self.workspace_id:
            return False
        return path is None or under_folder(path, self.folder)


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a token, or None. A token's name is shown to other members as
    its agent's name, so it follows the paths' character policy: no NUL or other control
    character, no bidirectional control or zero-width character (ambient.paths)."""
    if not storable(name):
        return "A token name must be valid Unicode text without a NUL character."
    problem = character_problem(name)
    return None if problem is None else f"A token name cannot contain {problem}."


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(
    db: Session,
    *,
    user_id: int,
    name: str,
    expires_in_days: int,
    now: datetime,
    scope: str = READ,
    workspace_id: str | None = None,
    folder: str | None = None,
) -> tuple[PersonalAccessToken, str]:
    """Store a new token and return (row, raw token); the raw token is not stored.

    The caller has checked that the user is a member of `workspace_id` and that `folder`
    is normalized (ambient.paths.normalize_folder); the route has refused a bad `name`
    (name_problem) with its own 422, so this is only the last guard.
    """
    problem = name_problem(name)
    if problem is not None:
        raise BadRequest(problem)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = PersonalAccessToken(
        id=str(uuid.uuid4()),
        user_id=user_id,
        name=name,
        token_sha256=token_sha256(token),
        created_at=now,
        expires_at=now + timedelta(days=expires_in_days),
        last_used_at=None,
        scope=scope,
        workspace_id=workspace_id,
        folder=folder,
    )
    db.add(row)
    db.commit()
    return row, token


def list_tokens(db: Session, *, user_id: int) -> list[PersonalAccessToken]:
    """The user's tokens, newest first (expired ones too, so the user can see and remove them)."""
    return list(
        db.scalars(
            select(PersonalAccessToken)
            .where(PersonalAccessToken.user_id == user_id)
            .order_by(PersonalAccessToken.created_at.desc(), PersonalAccessToken.id)
        )
    )


def revoke_token(db: Session, *, user_id: int, token_id: str) -> None:
    """Delete the token at once; another user's token id looks like a missing one (404)."""
    if not storable(token_id, max_length=36):
        raise NotFound(NOT_FOUND)
    result = cast(
        CursorResult[Any],
        db.execute(  # a DELETE's result: it has a rowcount
            delete(PersonalAccessToken).where(
                PersonalAccessToken.id == token_id, PersonalAccessToken.user_id == user_id
            )
        ),
    )
    db.commit()
    if result.rowcount == 0 and not _revoke_grant(db, user_id=user_id, grant_id=token_id):
        raise NotFound(NOT_FOUND)


def _revoke_grant(db: Session, *, user_id: int, grant_id: str) -> bool:
    """Revoke the user's OAuth grant with this id (SPEC §19: grants are revoked where tokens
    are); False when there is none."""
    from backend.oauth import store  # store builds on this module: imported when used

    return store.revoke_grant(db, grant_id=grant_id, user_id=user_id, now=utcnow())


def list_grants(db: Session, *, user_id: int) -> list[tuple[OAuthGrant, str]]:
    """The user's live OAuth grants with their client's name, newest first (SPEC §19)."""
    from backend.oauth import store

    return store.list_grants(db, user_id=user_id)


def authority_for_token(db: Session, *, token: str, now: datetime) -> Authority | None:
    """What the token allows, or None when it is unknown, revoked or expired.

    Records the use (at most once per LAST_USED_RESOLUTION).
    """
    if not token or not storable(token, max_length=MAX_TOKEN_CHARS):
        return None
    found = db.execute(
        select(PersonalAccessToken, User.disabled)
        .join(User, User.id == PersonalAccessToken.user_id)
        .where(PersonalAccessToken.token_sha256 == token_sha256(token))
    ).first()
    if found is None or found.disabled:  # a disabled user's tokens stop at once (SPEC §17)
        return None
    row: PersonalAccessToken = found.PersonalAccessToken
    if row.expires_at <= now:
        return None
    authority = Authority(
        user_id=row.user_id,
        token_id=row.id,
        name=row.name,
        scope=row.scope,
        workspace_id=row.workspace_id,
        folder=row.folder,
    )
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_RESOLUTION:
        db.execute(
            update(PersonalAccessToken)
            .where(PersonalAccessToken.id == row.id)
            .values(last_used_at=now)
        )
        db.commit()
    return authority

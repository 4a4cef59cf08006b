"""Personal access tokens: random, shown once, stored as SHA-256, checked on every MCP request."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.orm import Session

from backend.db import storable
from backend.errors import NotFound
from backend.models import User
from backend.models.outside_agents import PersonalAccessToken

TOKEN_PREFIX = "ana_pat_"  # makes a leaked token easy to recognise (and to scan for)
MAX_TOKEN_CHARS = 256
MAX_EXPIRES_IN_DAYS = 365
# Writing last_used_at on every request would be one UPDATE per MCP call; once a minute is
# precise enough for "last used" in the panel.
LAST_USED_RESOLUTION = timedelta(minutes=1)
NOT_FOUND = "There is no such token."


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(
    db: Session, *, user_id: int, name: str, expires_in_days: int, now: datetime
) -> tuple[PersonalAccessToken, str]:
    """Store a new token and return (row, raw token); the raw token is not stored."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = PersonalAccessToken(
        id=str(uuid.uuid4()),
        user_id=user_id,
        name=name,
        token_sha256=token_sha256(token),
        created_at=now,
        expires_at=now + timedelta(days=expires_in_days),
        last_used_at=None,
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
    result = cast(CursorResult[Any], db.execute(  # a DELETE's result: it has a rowcount
        delete(PersonalAccessToken).where(
            PersonalAccessToken.id == token_id, PersonalAccessToken.user_id == user_id
        )
    ))
    db.commit()
    if result.rowcount == 0:
        raise NotFound(NOT_FOUND)


def user_for_token(db: Session, *, token: str, now: datetime) -> User | None:
    """The token's user, or None when the token is unknown, revoked or expired.

    Records the use (at most once per LAST_USED_RESOLUTION).
    """
    if not token or not storable(token, max_length=MAX_TOKEN_CHARS):
        return None
    row = db.execute(
        select(User, PersonalAccessToken.id, PersonalAccessToken.expires_at,
               PersonalAccessToken.last_used_at)
        .join(PersonalAccessToken, PersonalAccessToken.user_id == User.id)
        .where(PersonalAccessToken.token_sha256 == token_sha256(token))
    ).first()
    if row is None or row.expires_at <= now:
        return None
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_RESOLUTION:
        db.execute(
            update(PersonalAccessToken)
            .where(PersonalAccessToken.id == row.id)
            .values(last_used_at=now)
        )
        db.commit()
    user: User = row.User
    return user

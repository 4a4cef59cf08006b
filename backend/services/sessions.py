"""Sign-in sessions: a random cookie token whose SHA-256 is the user_sessions row id."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.db import storable
from backend.models import User, UserSession


def token_id(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_session(db: Session, *, user_id: int, ttl: timedelta, now: datetime) -> str:
    """Store a new session and return the raw token for the cookie (it is not stored)."""
    token = secrets.token_urlsafe(32)
    db.add(UserSession(id=token_id(token), user_id=user_id, created_at=now, expires_at=now + ttl))
    # Opportunistic clean-up keeps the table from growing without a background job.
    db.execute(
        delete(UserSession).where(UserSession.user_id == user_id, UserSession.expires_at <= now)
    )
    db.commit()
    return token


def user_for_token(db: Session, *, token: str, now: datetime) -> User | None:
    """The signed-in user for a cookie token, or None when unknown or expired."""
    if not token or not storable(token, max_length=256):
        return None
    row = db.execute(
        select(User, UserSession.expires_at)
        .join(UserSession, UserSession.user_id == User.id)
        .where(UserSession.id == token_id(token))
    ).first()
    if row is None or row.expires_at <= now:
        return None
    return row.User


def delete_session(db: Session, *, token: str) -> None:
    db.execute(delete(UserSession).where(UserSession.id == token_id(token)))
    db.commit()

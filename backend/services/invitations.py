"""Invitation links (SPEC §17): a secret shown once, kept only as its SHA-256, used a few times."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.db import storable
from backend.errors import Conflict, NotFound
from backend.models import Membership, User, Workspace
from backend.models.people import Invitation
from backend.services.workspaces import ROLES, audit

NOT_VALID = (
    "This invitation link is not valid: it may have expired, been used up or been revoked. "
    "Ask for a new one."
)
NO_SUCH_INVITATION = "There is no such invitation."
USERNAME_TAKEN = "That username is taken. Choose another, or sign in first and open the link again."
MAX_SECRET_CHARS = 128


def secret_sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _live(now: datetime) -> Any:
    """The condition of an invitation that may still be used."""
    return (
        Invitation.revoked_at.is_(None)
        & (Invitation.expires_at > now)
        & (Invitation.uses < Invitation.max_uses)
    )


def create(
    db: Session,
    *,
    workspace_id: str,
    role: str,
    expires_in_days: int,
    max_uses: int,
    created_by: int,
    now: datetime,
) -> tuple[Invitation, str]:
    """Store a new invitation and return (row, secret); the secret itself is not stored."""
    secret = secrets.token_urlsafe(32)
    invitation = Invitation(
        id=str(uuid.uuid4()),
        workspace_id=workspace_id,
        role=role,
        secret_sha256=secret_sha256(secret),
        created_by=created_by,
        created_at=now,
        expires_at=now + timedelta(days=expires_in_days),
        max_uses=max_uses,
        uses=0,
    )
    db.add(invitation)
    db.commit()
    audit("invitation.create", actor=created_by, workspace=workspace_id, role=role)
    return invitation, secret


@dataclass(frozen=True)
class Listed:
    invitation: Invitation
    invited_by: str | None


def list_live(db: Session, *, workspace_id: str, now: datetime) -> list[Listed]:
    """The workspace's invitations that may still be used, newest first."""
    rows = db.execute(
        select(Invitation, User.username)
        .outerjoin(User, User.id == Invitation.created_by)
        .where(Invitation.workspace_id == workspace_id, _live(now))
        .order_by(Invitation.created_at.desc(), Invitation.id)
    )
    return [Listed(invitation, username) for invitation, username in rows]


def revoke(
    db: Session, *, workspace_id: str, invitation_id: str, actor: int, now: datetime
) -> None:
    """Revoke one of the workspace's invitations (NotFound when it has none with that id)."""
    if not storable(invitation_id, max_length=36):
        raise NotFound(NO_SUCH_INVITATION)
    result = cast(
        CursorResult[Any],
        db.execute(
            update(Invitation)
            .where(Invitation.id == invitation_id, Invitation.workspace_id == workspace_id)
            # An earlier revocation keeps its time.
            .values(revoked_at=func.coalesce(Invitation.revoked_at, now))
        ),
    )
    if result.rowcount != 1:
        db.rollback()
        raise NotFound(NO_SUCH_INVITATION)
    db.commit()
    audit("invitation.revoke", actor=actor, workspace=workspace_id)


@dataclass(frozen=True)
class Found:
    invitation: Invitation
    workspace_name: str
    invited_by: str | None


def find(db: Session, *, secret: str, now: datetime) -> Found:
    """The live invitation with this secret; NotFound (one message for every reason) else."""
    if not storable(secret, max_length=MAX_SECRET_CHARS):
        raise NotFound(NOT_VALID)
    row = db.execute(
        select(Invitation, Workspace.name, User.username)
        .join(Workspace, Workspace.id == Invitation.workspace_id)
        .outerjoin(User, User.id == Invitation.created_by)
        .where(Invitation.secret_sha256 == secret_sha256(secret), _live(now))
    ).one_or_none()
    if row is None:
        raise NotFound(NOT_VALID)
    invitation, name, username = row
    return Found(invitation, name, username)


def use(db: Session, *, secret: str, user_id: int, now: datetime) -> tuple[str, str]:
    """Count one use and make the user a member, in the open transaction (the caller commits):
    (workspace id, the user's role there now). A member already there keeps the higher of
    the two roles. NotFound when the link cannot be used: two uses of its last place never
    both count, the update is the check."""
    if not storable(secret, max_length=MAX_SECRET_CHARS):
        raise NotFound(NOT_VALID)
    digest = secret_sha256(secret)
    counted = cast(
        CursorResult[Any],
        db.execute(
            update(Invitation)
            .where(Invitation.secret_sha256 == digest, _live(now))
            .values(uses=Invitation.uses + 1)
        ),
    )
    if counted.rowcount != 1:
        db.rollback()
        raise NotFound(NOT_VALID)
    invitation = db.scalars(select(Invitation).where(Invitation.secret_sha256 == digest)).one()
    workspace_id, role = invitation.workspace_id, invitation.role
    membership = db.scalar(
        select(Membership)
        .where(Membership.workspace_id == workspace_id, Membership.user_id == user_id)
        .with_for_update()
    )
    if membership is None:
        db.add(Membership(workspace_id=workspace_id, user_id=user_id, role=role))
    elif ROLES.index(role) > ROLES.index(membership.role):
        membership.role = role
    else:
        role = membership.role
    return workspace_id, role


def join_with_new_account(
    db: Session, *, secret: str, username: str, password_hash: str, now: datetime
) -> tuple[User, str, str]:
    """Create the account (its name and password already checked) and use the link for it, in
    one transaction: (the user, workspace id, role). Conflict when the username is taken;
    NotFound when the link cannot be used, and then no account is left behind either."""
    if db.scalar(select(User.id).where(User.username == username)) is not None:
        db.rollback()
        raise Conflict(USERNAME_TAKEN)
    account = User(username=username, password_hash=password_hash)
    db.add(account)
    try:
        db.flush()
    except IntegrityError:  # taken a moment ago by another request
        db.rollback()
        raise Conflict(USERNAME_TAKEN) from None
    workspace_id, role = use(db, secret=secret, user_id=account.id, now=now)
    db.commit()
    return account, workspace_id, role

"""Accounts (SPEC §17): a user's own sign-ins and password, and what administrators change.

Every change writes one audit line (logger "ambient.audit": action, actor, target; never a
password, a code or a token). Ending a sign-in deletes its user_sessions row and the key
sessions opened under it, and closes its event streams at the commit (`events.session_ended`).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.errors import Conflict, NotFound
from backend.models import KeySession, Membership, User, UserSession, Workspace
from backend.services import events
from backend.services import users as users_service
from backend.services import workspaces as workspaces_service

audit_log = logging.getLogger("ambient.audit")

NO_SUCH_USER = "There is no user with that name."
NAME_TAKEN = "That username is taken."
NO_SUCH_SIGN_IN = "There is no such sign-in of yours."
NOT_YOURSELF = "You cannot disable your own account."
LAST_ADMIN = "This would leave no enabled administrator."


def audit(action: str, *, actor: str, target: str | None = None, **fields: object) -> None:
    """One structured audit line; callers pass names and flags only, never a secret."""
    audit_log.info(
        "account change",
        extra={"fields": {"action": action, "actor": actor, "target": target, **fields}},
    )


# --- a user's own sign-ins ---------------------------------------------------------------


def public_session_id(row_id: str) -> str:
    """The id a sign-in is shown under: derived from the row id (itself the HMAC of the
    cookie token), so the list never shows the value the database keys the sign-in by."""
    return hashlib.sha256(f"public:{row_id}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SignInView:
    id: str
    created_at: datetime
    last_seen_at: datetime | None
    user_agent: str | None
    current: bool


def list_sign_ins(
    db: Session, *, user_id: int, current_row_id: str | None, now: datetime
) -> list[SignInView]:
    """The user's unexpired sign-ins, most recently seen first."""
    rows = db.scalars(
        select(UserSession)
        .where(UserSession.user_id == user_id, UserSession.expires_at > now)
        .order_by(UserSession.created_at.desc())
    ).all()
    views = [
        SignInView(
            id=public_session_id(row.id),
            created_at=row.created_at,
            last_seen_at=row.last_seen_at,
            user_agent=row.user_agent,
            current=row.id == current_row_id,
        )
        for row in rows
    ]
    db.rollback()  # end the read: the request's session then holds no connection
    return sorted(views, key=lambda v: v.last_seen_at or v.created_at, reverse=True)


def _end_rows(db: Session, row_ids: list[str]) -> None:
    """In the open transaction: the sign-ins, their key sessions and (at commit) streams."""
    if not row_ids:
        return
    db.execute(delete(KeySession).where(KeySession.user_session_id.in_(row_ids)))
    db.execute(delete(UserSession).where(UserSession.id.in_(row_ids)))
    for row_id in row_ids:
        events.session_ended(db, user_session_id=row_id)


def _sign_in_ids(db: Session, user_id: int) -> list[str]:
    return list(db.scalars(select(UserSession.id).where(UserSession.user_id == user_id)))


def end_sign_ins(db: Session, *, user_id: int, keep_row_id: str | None = None) -> int:
    """End every sign-in of the user except `keep_row_id` (in the open transaction); the count."""
    ids = [row_id for row_id in _sign_in_ids(db, user_id) if row_id != keep_row_id]
    _end_rows(db, ids)
    return len(ids)


def end_one_sign_in(db: Session, *, user: User, public_id: str) -> None:
    """End the user's sign-in shown as `public_id` (NotFound when none), and commit."""
    match = [r for r in _sign_in_ids(db, user.id) if public_session_id(r) == public_id]
    if not match:
        db.rollback()
        raise NotFound(NO_SUCH_SIGN_IN)
    _end_rows(db, match)
    db.commit()
    audit("sign-in ended", actor=user.username, target=user.username)


def end_other_sign_ins(db: Session, *, user: User, keep_row_id: str | None) -> int:
    """End all the user's sign-ins but `keep_row_id`, and commit; the count."""
    count = end_sign_ins(db, user_id=user.id, keep_row_id=keep_row_id)
    db.commit()
    audit("other sign-ins ended", actor=user.username, target=user.username, count=count)
    return count


def set_password(
    db: Session, *, user: User, password_hash: str, keep_row_id: str | None, actor: str
) -> int:
    """Store a new password hash and end every other sign-in of the user; commit. The count
    of sign-ins ended."""
    user.password_hash = password_hash
    count = end_sign_ins(db, user_id=user.id, keep_row_id=keep_row_id)
    db.commit()
    audit("password changed", actor=actor, target=user.username, sign_ins_ended=count)
    return count


# --- administrators ----------------------------------------------------------------------


def list_users(db: Session) -> list[User]:
    users = list(db.scalars(select(User).order_by(User.username)))
    return users


def get_user(db: Session, username: str) -> User:
    user = users_service.get_by_username(db, username=username)
    if user is None:
        raise NotFound(NO_SUCH_USER)
    return user


def create_account(
    db: Session,
    *,
    username: str,
    password: str,
    passwords: users_service.Passwords,
    admin: bool,
    actor: str,
) -> User:
    """A new account after the rules (422) and the unique name (409); audited."""
    users_service.check_new_account(username, password)
    if users_service.get_by_username(db, username=username) is not None:
        db.rollback()
        raise Conflict(NAME_TAKEN)
    try:
        user = users_service.create_user(
            db, username=username, password=password, passwords=passwords, admin=admin
        )
    except IntegrityError:  # made at the same moment by another request
        db.rollback()
        raise Conflict(NAME_TAKEN) from None
    audit("user created", actor=actor, target=username, admin=admin)
    return user


def _enabled_admins(db: Session) -> int:
    """How many enabled administrators there are, their rows locked (PostgreSQL) until the
    commit: two administrators demoting each other at once cannot both pass the check."""
    ids = db.scalars(
        select(User.id).where(User.admin.is_(True), User.disabled.is_(False)).with_for_update()
    ).all()
    return len(ids)


def change_user(
    db: Session,
    *,
    actor: User | None,
    username: str,
    disabled: bool | None = None,
    admin: bool | None = None,
) -> User:
    """Disable/enable and grant/remove administration; commit; audited. `actor` None: the
    command line (no one is signed in). A disabled user's sign-ins, key sessions and event
    streams end in the same transaction; its tokens stop because every use checks."""
    actor_name = actor.username if actor is not None else "(command line)"
    user = get_user(db, username)
    if disabled and actor is not None and user.id == actor.id:
        db.rollback()
        raise Conflict(NOT_YOURSELF)
    was_counted = user.admin and not user.disabled
    will_count = (user.admin if admin is None else admin) and not (
        user.disabled if disabled is None else disabled
    )
    if was_counted and not will_count and _enabled_admins(db) <= 1:
        db.rollback()
        raise Conflict(LAST_ADMIN)
    actions: list[str] = []
    if disabled is not None and disabled != user.disabled:
        user.disabled = disabled
        actions.append("user disabled" if disabled else "user enabled")
        if disabled:
            end_sign_ins(db, user_id=user.id)
            db.execute(delete(KeySession).where(KeySession.user_id == user.id))
            events.access_changed(db, user_id=user.id)
    if admin is not None and admin != user.admin:
        user.admin = admin
        actions.append("user made admin" if admin else "user admin removed")
    db.commit()
    for action in actions:
        audit(action, actor=actor_name, target=user.username)
    return user


# --- workspaces from the command line -----------------------------------------------------


def create_workspace(db: Session, *, name: str, owner: str) -> Workspace:
    """A workspace named `name` owned by `owner`: the same rules, id and audit line as
    `POST /api/workspaces` (services.workspaces.create_owned)."""
    user = get_user(db, owner)
    return workspaces_service.create_owned(
        db, name=workspaces_service.clean_name(name), owner_id=user.id
    )


def list_workspaces(db: Session) -> list[tuple[Workspace, list[str]]]:
    """Every workspace with its owners' usernames, by id."""
    rows = db.execute(
        select(Workspace, User.username)
        .outerjoin(
            Membership,
            (Membership.workspace_id == Workspace.id)
            & (Membership.role == workspaces_service.OWNER),
        )
        .outerjoin(User, User.id == Membership.user_id)
        .order_by(Workspace.id, User.username)
    ).all()
    out: dict[str, tuple[Workspace, list[str]]] = {}
    for workspace, username in rows:
        entry = out.setdefault(workspace.id, (workspace, []))
        if username is not None:
            entry[1].append(username)
    return list(out.values())

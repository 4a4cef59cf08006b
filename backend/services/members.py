"""A workspace's members and their roles (SPEC §17): list, change a role, remove."""

from __future__ import annotations

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from backend.errors import Conflict, NotFound, Unprocessable
from backend.models import Membership, User, Workspace
from backend.services import users
from backend.services.workspaces import OWNER, ROLES, audit, end_access

NO_SUCH_MEMBER = "There is no member with that username in this workspace."
LAST_OWNER = (
    "A workspace needs at least one owner: make another member an owner first, "
    "or delete the workspace."
)
BAD_ROLE = "A role is one of owner, editor or reader."


def list_members(db: Session, *, workspace_id: str) -> list[tuple[str, str]]:
    """(username, role) of every member, by username."""
    rows = db.execute(
        select(User.username, Membership.role)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.workspace_id == workspace_id)
        .order_by(User.username)
    )
    return [(username, role) for username, role in rows]


def _member(db: Session, *, workspace_id: str, username: str) -> tuple[int, str]:
    """The member's user id and role; NotFound when no such user is a member."""
    user = users.get_by_username(db, username=username)
    if user is None:
        raise NotFound(NO_SUCH_MEMBER)
    role: str | None = db.scalar(
        select(Membership.role).where(
            Membership.workspace_id == workspace_id, Membership.user_id == user.id
        )
    )
    if role is None:
        raise NotFound(NO_SUCH_MEMBER)
    return user.id, role


def _lock(db: Session, *, workspace_id: str) -> None:
    """Serialise changes of the workspace's members: on PostgreSQL, lock its row until the
    commit (SQLite writes one transaction at a time anyway, and skips FOR UPDATE)."""
    db.execute(select(Workspace.id).where(Workspace.id == workspace_id).with_for_update())


def _keep_an_owner(db: Session, *, workspace_id: str) -> None:
    """After the change, in its transaction: undo it (409) when no owner is left. The count
    comes after the write, so on SQLite the transaction already holds the write lock and on
    PostgreSQL the workspace's row lock keeps a parallel change waiting."""
    owners = db.scalar(
        select(func.count())
        .select_from(Membership)
        .where(Membership.workspace_id == workspace_id, Membership.role == OWNER)
    )
    if not owners:
        db.rollback()
        raise Conflict(LAST_OWNER)


def set_role(db: Session, *, workspace_id: str, username: str, role: str, actor: int) -> str:
    """Give the member `role`; the last owner keeps theirs (Conflict). When the role changes,
    their key sessions and event streams of the workspace end at the commit (they come back
    under the new role); the same role again changes nothing."""
    if role not in ROLES:
        raise Unprocessable(BAD_ROLE)
    _lock(db, workspace_id=workspace_id)
    user_id, current = _member(db, workspace_id=workspace_id, username=username)
    if current == role:  # nothing changes, so nothing of the member's ends
        db.rollback()
        return role
    db.execute(
        update(Membership)
        .where(Membership.workspace_id == workspace_id, Membership.user_id == user_id)
        .values(role=role)
    )
    _keep_an_owner(db, workspace_id=workspace_id)
    end_access(db, user_id=user_id, workspace_id=workspace_id)
    db.commit()
    audit("member.role", actor=actor, workspace=workspace_id, target=username, role=role)
    return role


def remove(db: Session, *, workspace_id: str, username: str, actor: int) -> None:
    """End the membership; the last owner stays (Conflict). At the commit the member's key
    sessions and event streams of the workspace end; their tokens stop reaching it."""
    _lock(db, workspace_id=workspace_id)
    user_id, _role = _member(db, workspace_id=workspace_id, username=username)
    db.execute(
        delete(Membership).where(
            Membership.workspace_id == workspace_id, Membership.user_id == user_id
        )
    )
    _keep_an_owner(db, workspace_id=workspace_id)
    end_access(db, user_id=user_id, workspace_id=workspace_id)
    db.commit()
    audit("member.remove", actor=actor, workspace=workspace_id, target=username)

"""Workspaces and membership: membership decides access."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.db import storable
from backend.errors import Forbidden
from backend.models import KeySession, Membership, Workspace
from backend.services import events

NOT_ALLOWED = "You do not have access to this workspace."
READ_ONLY = "You can read this workspace but not change it: your role here is reader."
OWNERS_ONLY = "Only an owner of this workspace can do that."

# SPEC §17, weakest first: each role may do what the ones before it may.
READER, EDITOR, OWNER = "reader", "editor", "owner"
ROLES = (READER, EDITOR, OWNER)


def allows(role: str | None, needed: str) -> bool:
    """Does a membership with `role` (None: no membership) allow what `needed` allows?"""
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)


def refusal(role: str | None, needed: str) -> str:
    """The message for a member with `role` who tried what only `needed` may do."""
    if role not in ROLES:
        return NOT_ALLOWED
    return READ_ONLY if role == READER else OWNERS_ONLY


def list_for_user(db: Session, *, user_id: int) -> list[tuple[Workspace, str]]:
    """The user's workspaces with the user's role in each, by id."""
    rows = db.execute(
        select(Workspace, Membership.role)
        .join(Membership, Membership.workspace_id == Workspace.id)
        .where(Membership.user_id == user_id)
        .order_by(Workspace.id)
    )
    return [(workspace, role) for workspace, role in rows]


def role_of(db: Session, *, user_id: int, workspace_id: str) -> str | None:
    """The user's role in the workspace, or None when not a member (or no such workspace)."""
    if not storable(workspace_id, max_length=64):
        return None
    role: str | None = db.scalar(
        select(Membership.role).where(
            Membership.user_id == user_id, Membership.workspace_id == workspace_id
        )
    )
    return role


def is_member(db: Session, *, user_id: int, workspace_id: str) -> bool:
    return role_of(db, user_id=user_id, workspace_id=workspace_id) is not None


def require_role(db: Session, *, user_id: int, workspace_id: str, needed: str = READER) -> str:
    """The user's role when it allows `needed`; Forbidden otherwise (an unknown workspace looks
    like one the user is not a member of)."""
    role = role_of(db, user_id=user_id, workspace_id=workspace_id)
    if not allows(role, needed):
        raise Forbidden(refusal(role, needed))
    assert role is not None
    return role


def require_member(db: Session, *, user_id: int, workspace_id: str) -> None:
    """Raise Forbidden unless the user is a member; an unknown workspace looks the same."""
    require_role(db, user_id=user_id, workspace_id=workspace_id, needed=READER)


def require_editor(db: Session, *, user_id: int, workspace_id: str) -> None:
    """Raise Forbidden unless the user may change the workspace's notes (editor or owner)."""
    require_role(db, user_id=user_id, workspace_id=workspace_id, needed=EDITOR)


def create_workspace(
    db: Session,
    *,
    workspace_id: str,
    name: str,
    member_ids: list[int],
    roles: dict[int, str] | None = None,
) -> Workspace:
    """A workspace with these members: the first is its owner, the others editors, unless
    `roles` says otherwise."""
    workspace = Workspace(id=workspace_id, name=name)
    db.add(workspace)
    db.flush()
    for index, user_id in enumerate(member_ids):
        role = (roles or {}).get(user_id, OWNER if index == 0 else EDITOR)
        db.add(Membership(workspace_id=workspace_id, user_id=user_id, role=role))
    db.commit()
    return workspace


def add_member(db: Session, *, workspace_id: str, user_id: int, role: str = EDITOR) -> None:
    if not is_member(db, user_id=user_id, workspace_id=workspace_id):
        db.add(Membership(workspace_id=workspace_id, user_id=user_id, role=role))
        db.commit()


def end_access(db: Session, *, user_id: int, workspace_id: str) -> None:
    """The member's role changed or ended, in the open transaction: at its commit the member's
    key sessions of the workspace are gone and their event streams of it end (SPEC §17).
    Tokens need nothing: every call checks the membership anew."""
    db.execute(
        delete(KeySession).where(
            KeySession.user_id == user_id, KeySession.workspace_id == workspace_id
        )
    )
    events.access_changed(db, user_id=user_id, workspace_id=workspace_id)

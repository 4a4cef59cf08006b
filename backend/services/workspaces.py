"""Workspaces and membership: membership decides access."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.db import storable
from backend.errors import Forbidden
from backend.models import Membership, Workspace

NOT_ALLOWED = "You do not have access to this workspace."


def list_for_user(db: Session, *, user_id: int) -> list[Workspace]:
    return list(
        db.scalars(
            select(Workspace)
            .join(Membership, Membership.workspace_id == Workspace.id)
            .where(Membership.user_id == user_id)
            .order_by(Workspace.id)
        )
    )


def is_member(db: Session, *, user_id: int, workspace_id: str) -> bool:
    if not storable(workspace_id, max_length=64):
        return False
    found = db.scalar(
        select(Membership.user_id).where(
            Membership.user_id == user_id, Membership.workspace_id == workspace_id
        )
    )
    return found is not None


def require_member(db: Session, *, user_id: int, workspace_id: str) -> None:
    """Raise Forbidden unless the user is a member; an unknown workspace looks the same."""
    if not is_member(db, user_id=user_id, workspace_id=workspace_id):
        raise Forbidden(NOT_ALLOWED)


def create_workspace(
    db: Session, *, workspace_id: str, name: str, member_ids: list[int]
) -> Workspace:
    workspace = Workspace(id=workspace_id, name=name)
    db.add(workspace)
    db.flush()
    for user_id in member_ids:
        db.add(Membership(workspace_id=workspace_id, user_id=user_id))
    db.commit()
    return workspace


def add_member(db: Session, *, workspace_id: str, user_id: int) -> None:
    if not is_member(db, user_id=user_id, workspace_id=workspace_id):
        db.add(Membership(workspace_id=workspace_id, user_id=user_id))
        db.commit()

"""Workspaces and membership: membership decides access."""

from __future__ import annotations

import logging
import re
import unicodedata

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ambient.paths import character_problem
from backend.db import storable
from backend.errors import Conflict, Forbidden, Unprocessable
from backend.models import KeySession, Membership, Workspace
from backend.services import events

audit_log = logging.getLogger("ambient.audit")

NOT_ALLOWED = "You do not have access to this workspace."
READ_ONLY = "You can read this workspace but not change it: your role here is reader."
OWNERS_ONLY = "Only an owner of this workspace can do that."

# SPEC §17, weakest first: each role may do what the ones before it may.
READER, EDITOR, OWNER = "reader", "editor", "owner"
ROLES = (READER, EDITOR, OWNER)

MAX_NAME = 200
MAX_ID = 64
# The slug leaves room for a "-NNN" suffix within the id's 64 characters.
MAX_SLUG = 48
DEFAULT_SLUG = "workspace"
# How many times a create tries the next free id after another create took the one it chose.
CREATE_ATTEMPTS = 5
NAME_RULE = f"A workspace name has 1 to {MAX_NAME} characters."
WRONG_CONFIRM = (
    "The confirmation does not match the workspace's name: type its name exactly to delete it."
)


def audit(
    action: str,
    *,
    actor: int | None,
    workspace: str,
    target: str | None = None,
    role: str | None = None,
) -> None:
    """One line on the "ambient.audit" logger for a change to a workspace, its members or its
    invitations (SPEC §17). Never a secret: the fields are ids, usernames and roles."""
    fields: dict[str, object] = {"action": action, "actor": actor, "workspace": workspace}
    if target is not None:
        fields["target"] = target
    if role is not None:
        fields["role"] = role
    audit_log.info("audit", extra={"fields": fields})


def clean_name(name: str) -> str:
    """The workspace name as stored (stripped); Unprocessable (422) when it breaks a rule."""
    if not storable(name):
        raise Unprocessable("A workspace name must be valid Unicode text without a NUL character.")
    stripped = name.strip()
    if not 1 <= len(stripped) <= MAX_NAME:
        raise Unprocessable(NAME_RULE)
    problem = character_problem(stripped)
    if problem is not None:
        raise Unprocessable(f"A workspace name cannot contain {problem}.")
    return stripped


def slug_for(name: str) -> str:
    """The id a new workspace named `name` would like: lowercase ASCII letters, digits and '-',
    from the name's NFKD form ("Café Crème" → "cafe-creme"); "workspace" when nothing is left."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug[:MAX_SLUG].rstrip("-") or DEFAULT_SLUG


def _free_id(db: Session, base: str) -> str:
    """`base`, else the first of base-2, base-3... that no workspace has."""
    taken = set(
        db.scalars(
            select(Workspace.id).where((Workspace.id == base) | Workspace.id.like(f"{base}-%"))
        )
    )
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def create_owned(db: Session, *, name: str, owner_id: int) -> Workspace:
    """A new workspace named `name` (already clean) with `owner_id` as its owner; its id is the
    name's slug made unique. Two creates racing for one id: the loser takes the next one."""
    base = slug_for(name)
    for _attempt in range(CREATE_ATTEMPTS):
        workspace_id = _free_id(db, base)  # a slug holds no LIKE wildcard
        workspace = Workspace(id=workspace_id, name=name)
        db.add(workspace)
        try:
            db.flush()
        except IntegrityError:  # another create took this id since the lookup
            db.rollback()
            continue
        db.add(Membership(workspace_id=workspace_id, user_id=owner_id, role=OWNER))
        db.commit()
        audit("workspace.create", actor=owner_id, workspace=workspace_id, role=OWNER)
        return workspace
    raise Conflict("Another workspace was created with the same name at the same time. Try again.")


def rename(db: Session, *, workspace_id: str, name: str, actor: int) -> Workspace:
    """Give the workspace a new (already clean) name; its id stays."""
    db.execute(update(Workspace).where(Workspace.id == workspace_id).values(name=name))
    db.commit()
    workspace = db.get(Workspace, workspace_id, populate_existing=True)
    assert workspace is not None
    audit("workspace.rename", actor=actor, workspace=workspace_id)
    return workspace


def delete_workspace(db: Session, *, workspace_id: str, confirm: str, actor: int) -> None:
    """Delete the workspace when `confirm` is exactly its name (Unprocessable otherwise).

    Everything that belongs to it goes with it (the foreign keys cascade: notes, history,
    members, invitations, key sessions, tokens restricted to it, conversations, delivery
    credentials, publications, events); at the commit every open stream of it gets `reset`.
    """
    workspace = db.scalar(select(Workspace).where(Workspace.id == workspace_id).with_for_update())
    if workspace is None or confirm != workspace.name:
        db.rollback()
        raise Unprocessable(WRONG_CONFIRM)
    db.execute(delete(Workspace).where(Workspace.id == workspace_id))
    events.workspace_deleted(db, workspace_id=workspace_id)
    db.commit()
    audit("workspace.delete", actor=actor, workspace=workspace_id)


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

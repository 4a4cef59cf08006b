"""A note's history as the API shows it (SPEC §15): list, read and restore revisions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ambient.pointer import sha256_prefix
from backend.db import utcnow
from backend.errors import Conflict, NotFound
from backend.models import Document, User
from backend.models.history import NoteRevision
from backend.services import documents, revisions
from backend.services.source import Source

NO_HISTORY = "There is no note, and no history of a deleted note, at that path."
NO_REVISION = "That revision of the note is not kept."


class NoHistory(NotFound):
    """Neither a note nor a deleted note's kept history at that path."""


@dataclass(frozen=True)
class Entry:
    """One revision in the list: the current text first, then the kept ones."""

    revision: int
    saved_at: datetime
    bytes: int
    sha256: str
    kind: str
    name: str | None
    user_id: int | None
    username: str | None
    action: str
    path: str
    current: bool


def _target(db: Session, *, workspace_id: str, path: str) -> tuple[Document | None, str]:
    """(the note at `path` or None when it was deleted, the uid whose history to show)."""
    doc = documents.find_document(db, workspace_id=workspace_id, path=path)
    if doc is not None:
        return doc, doc.uid
    uid = revisions.deleted_uid(db, workspace_id=workspace_id, path=documents.valid_path(path))
    if uid is None:
        raise NoHistory(NO_HISTORY)
    return None, uid


def list_revisions(db: Session, *, workspace_id: str, path: str) -> list[Entry]:
    """Newest first: the current revision (when the note exists), then the kept ones;
    NoHistory when `path` names neither a note nor a deleted one's history."""
    doc, uid = _target(db, workspace_id=workspace_id, path=path)
    rows = revisions.rows_for(db, uid=uid)
    ids = {r.user_id for r in rows} | ({doc.saved_by} if doc is not None else set())
    known = select(User.id, User.username).where(User.id.in_(ids - {None}))
    names: dict[int | None, str] = {uid_: name for uid_, name in db.execute(known).all()}
    out: list[Entry] = []
    if doc is not None:
        out.append(
            Entry(
                doc.revision,
                doc.updated_at,
                doc.bytes,
                sha256_prefix(doc.content.encode("utf-8")),
                doc.source_kind,
                doc.source_name,
                doc.saved_by,
                names.get(doc.saved_by),
                doc.action,
                doc.path,
                True,
            )
        )
    out += [
        Entry(
            r.revision,
            r.saved_at,
            r.bytes,
            r.sha256,
            r.source_kind,
            r.source_name,
            r.user_id,
            names.get(r.user_id),
            r.action,
            r.path,
            False,
        )
        for r in rows
    ]
    return out


def revision_text(db: Session, *, workspace_id: str, path: str, revision: int) -> str:
    """The text of revision `revision` of the note at `path` (NoHistory as above; NotFound
    when that revision is not kept)."""
    doc, uid = _target(db, workspace_id=workspace_id, path=path)
    if doc is not None and doc.revision == revision:
        return doc.content
    row = revisions.row_at(db, uid=uid, revision=revision)
    if row is None:
        raise NotFound(NO_REVISION)
    return revisions.text_of(db, row)


def restore(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    revision: int,
    user_id: int,
    max_bytes: int,
    if_match: int | None = None,
    now: datetime | None = None,
) -> Document:
    """Save revision `revision`'s text as a new revision (a deleted note comes back with its
    history); Conflict and nothing changed when `if_match` is not the current revision."""
    now = now or utcnow()
    source = Source.page(user_id, action="restore")
    text = revision_text(db, workspace_id=workspace_id, path=path, revision=revision)
    size = documents.check_text(text, max_bytes=max_bytes)
    doc, uid = _target(db, workspace_id=workspace_id, path=path)
    if doc is None:
        if if_match is not None:
            db.rollback()
            raise Conflict(f"The note was deleted after revision {if_match} was read.")
        last = db.scalar(
            select(func.max(NoteRevision.revision)).where(NoteRevision.document_uid == uid)
        )
        revisions.revive(db, uid=uid)
        created = documents.insert_note(
            db,
            workspace_id=workspace_id,
            path=documents.valid_path(path),
            content=text,
            size=size,
            source=source,
            now=now,
            uid=uid,
            revision=(last or 0) + 1,
        )
        if created is None:
            raise Conflict("A note was created at that path meanwhile; nothing was changed.")
        return created
    if if_match is not None and doc.revision != if_match:
        db.rollback()
        raise Conflict(
            f"The note has changed since revision {if_match} was read (it is now at revision "
            f"{doc.revision}); nothing was restored."
        )
    head = documents.head_of(db, workspace_id=workspace_id, path=doc.path)
    old_text, read_revision = doc.content, doc.revision
    db.rollback()  # ends the read and expires `doc`
    if head is None or head.revision != read_revision:
        raise Conflict("The note changed while restoring; nothing was changed.")
    saved = documents.replace_text(
        db, head=head, old_text=old_text, content=text, size=size, source=source, now=now
    )
    if saved is None:
        raise Conflict("The note changed while restoring; nothing was changed.")
    db.commit()
    return saved

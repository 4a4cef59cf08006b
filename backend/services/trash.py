"""The trash (SPEC §18): the notes deleted in the last 30 days, and bringing one back.

A deleted note is its kept history (services.revisions: its rows get `gone_at`, and the last
one holds the text it had when deleted), so the trash is a view of those rows, one entry per
deleted note (its uid), newest delete first. Several notes deleted at one path are each
listed; a restore by path brings back the newest of them, and `uid` (the entry's `id`)
chooses another. A restore is the note coming back with the same uid, so its whole history
follows it, as `POST …/revisions/{n}/restore` does for a note deleted at a free path.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from backend.db import storable, utcnow
from backend.errors import Conflict, NotFound
from backend.models import Document
from backend.models.history import NoteRevision
from backend.services import documents, revisions
from backend.services.source import Source

NOT_IN_TRASH = "There is no note deleted in the last 30 days at that path."
TAKEN = 'A note already exists at that path; restore it to another path ("to").'


@dataclass(frozen=True)
class Deleted:
    """A note in the trash: its uid, its path and size when deleted, its last revision."""

    uid: str
    path: str
    deleted_at: datetime
    bytes: int
    revision: int


def cutoff(now: datetime) -> datetime:
    """Notes deleted before this are no longer in the trash (their history is purged)."""
    return now - timedelta(days=revisions.KEEP_DAYS)


def list_trash(db: Session, *, workspace_id: str, now: datetime | None = None) -> list[Deleted]:
    """The workspace's deleted notes of the last 30 days, the newest delete first."""
    if not storable(workspace_id, max_length=64):
        return []
    since = cutoff(now or utcnow())
    last = (
        select(
            NoteRevision.document_uid.label("uid"),
            func.max(NoteRevision.revision).label("revision"),
        )
        .where(
            NoteRevision.workspace_id == workspace_id,
            NoteRevision.gone_at.is_not(None),
            NoteRevision.gone_at >= since,
        )
        .group_by(NoteRevision.document_uid)
        .subquery()
    )
    rows = db.execute(
        select(
            NoteRevision.document_uid,
            NoteRevision.path,
            NoteRevision.gone_at,
            NoteRevision.bytes,
            NoteRevision.revision,
        )
        .join(
            last,
            and_(
                NoteRevision.document_uid == last.c.uid,
                NoteRevision.revision == last.c.revision,
            ),
        )
        .order_by(NoteRevision.gone_at.desc(), NoteRevision.id.desc())
    ).all()
    return [
        Deleted(uid, path, gone_at, size, revision)
        for uid, path, gone_at, size, revision in rows
        if gone_at is not None  # always, by the query: for the type checker
    ]


def restore(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    user_id: int,
    max_bytes: int,
    to: str | None = None,
    uid: str | None = None,
    now: datetime | None = None,
) -> Document:
    """Bring the note last deleted at `path` (or the one `uid` names) back at `to` (default:
    `path`) with its last text and its history; NotFound when the trash holds no such note,
    Conflict (nothing changed) when a note exists where it would go."""
    path = documents.valid_path(path)
    dest = documents.valid_path(to) if to is not None else path
    now = now or utcnow()
    entry = next(
        (
            e
            for e in list_trash(db, workspace_id=workspace_id, now=now)
            if e.path == path and (uid is None or e.uid == uid)
        ),
        None,
    )
    if entry is None:
        db.rollback()
        raise NotFound(NOT_IN_TRASH)
    if documents.find_document(db, workspace_id=workspace_id, path=dest) is not None:
        db.rollback()
        raise Conflict(TAKEN)
    text = revisions.text_at(db, uid=entry.uid, revision=entry.revision) or ""
    size = documents.check_text(text, max_bytes=max_bytes)
    revisions.revive(db, uid=entry.uid)
    doc = documents.insert_note(
        db,
        workspace_id=workspace_id,
        path=dest,
        content=text,
        size=size,
        source=Source.page(user_id, action="restore"),
        now=now,
        uid=entry.uid,
        revision=entry.revision + 1,
    )
    if doc is None:  # created there meanwhile (the revive is rolled back with the insert)
        raise Conflict(TAKEN)
    return doc

"""Note history (SPEC §15): the text each change replaced, compressed, with who and when.

Storage: every kept text is zstd-compressed. A *keyframe* row holds a whole text; the other
rows hold a delta, i.e. the text compressed with its keyframe's text as a raw-content
dictionary, so an edit of a 1 MiB note costs about the size of the edit. A new keyframe is
written every KEYFRAME_EVERY rows, or when a delta grows past half its keyframe's size.
Reading a revision decompresses at most two bodies.

Typing is not history: a page save by the same user within COALESCE of the first save of the
run replaces the current revision's text without keeping it (see `coalesces`).
Retention: the newest KEEP_AT_LEAST rows and every row of the last KEEP_DAYS days are kept;
older rows are pruned when a note's row count passes KEEP_AT_LEAST, never a keyframe that a
kept row still needs. A deleted note's rows are kept KEEP_DAYS days after the delete.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import zstandard
from sqlalchemy import Row, delete, func, select, update
from sqlalchemy.orm import Session

from ambient.pointer import sha256_prefix
from backend.models import path_key
from backend.models.history import NoteRevision
from backend.services.source import Source

COALESCE = timedelta(minutes=5)
KEEP_AT_LEAST = 100
KEEP_DAYS = 30
KEYFRAME_EVERY = 50
_SMALL = 4096  # below this a whole text costs about what a delta does
_LEVEL = 3
_MAX_WINDOW = 1 << 27


@dataclass(frozen=True)
class Head:
    """The current revision of a note, without its text (what a write decides on)."""

    id: int
    uid: str
    workspace_id: str
    path: str
    revision: int
    bytes: int
    updated_at: datetime
    saved_by: int | None
    source_kind: str
    source_name: str | None
    action: str
    run_started_at: datetime | None


def coalesces(head: Head, source: Source, now: datetime) -> bool:
    """Whether a save by `source` may replace `head`'s text without keeping it.

    Only page edits by the same signed-in user, while the run that `head` began is younger
    than COALESCE. A change by anyone or anything else, a restore, a create or a rename on
    either side, always keeps the replaced text.
    """
    return (
        source.kind == "page"
        and source.action == "edit"
        and source.user_id is not None
        and head.source_kind == "page"
        and head.action == "edit"
        and head.saved_by == source.user_id
        and head.run_started_at is not None
        and now - head.run_started_at < COALESCE
    )


def _compress(data: bytes, base: bytes | None) -> bytes:
    if base is None:
        return zstandard.ZstdCompressor(level=_LEVEL).compress(data)
    dictionary = zstandard.ZstdCompressionDict(base, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    return zstandard.ZstdCompressor(level=_LEVEL, dict_data=dictionary).compress(data)


def _decompress(body: bytes, base: bytes | None) -> bytes:
    if base is None:
        return zstandard.ZstdDecompressor(max_window_size=_MAX_WINDOW).decompress(body)
    dictionary = zstandard.ZstdCompressionDict(base, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    return zstandard.ZstdDecompressor(dict_data=dictionary, max_window_size=_MAX_WINDOW).decompress(
        body
    )


def _encode(db: Session, uid: str, data: bytes) -> tuple[int | None, bytes]:
    """(base_id, body) for a new row of note `uid`: a delta when a fitting keyframe exists."""
    if len(data) >= _SMALL:
        keyframe = db.scalar(
            select(NoteRevision)
            .where(NoteRevision.document_uid == uid, NoteRevision.base_id.is_(None))
            .order_by(NoteRevision.revision.desc())
            .limit(1)
        )
        if keyframe is not None:
            newer = (
                db.scalar(
                    select(func.count()).where(
                        NoteRevision.document_uid == uid, NoteRevision.revision > keyframe.revision
                    )
                )
                or 0
            )
            base = _decompress(keyframe.body, None)
            if newer < KEYFRAME_EVERY and len(base) >= _SMALL:
                body = _compress(data, base)
                if len(body) <= len(keyframe.body) // 2:
                    return keyframe.id, body
    return None, _compress(data, None)


def keep(db: Session, *, head: Head, text: str, gone_at: datetime | None = None) -> None:
    """Store `text`, the text of revision `head.revision`, as history (in the open transaction)."""
    data = text.encode("utf-8")
    base_id, body = _encode(db, head.uid, data)
    db.add(
        NoteRevision(
            workspace_id=head.workspace_id,
            document_uid=head.uid,
            revision=head.revision,
            path=head.path,
            path_sha256=path_key(head.path),
            saved_at=head.updated_at,
            user_id=head.saved_by,
            source_kind=head.source_kind,
            source_name=head.source_name,
            action=head.action,
            bytes=len(data),
            sha256=sha256_prefix(data),
            base_id=base_id,
            body=body,
            gone_at=gone_at,
        )
    )
    db.flush()


def text_of(db: Session, row: NoteRevision) -> str:
    """The full text a history row holds."""
    base = None
    if row.base_id is not None:
        keyframe = db.get(NoteRevision, row.base_id)
        if keyframe is None:  # prune never drops a keyframe that a kept row still needs
            raise LookupError(f"history row {row.id} lost its keyframe {row.base_id}")
        base = _decompress(keyframe.body, None)
    return _decompress(row.body, base).decode("utf-8")


_LISTED = (
    NoteRevision.revision,
    NoteRevision.saved_at,
    NoteRevision.bytes,
    NoteRevision.sha256,
    NoteRevision.source_kind,
    NoteRevision.source_name,
    NoteRevision.user_id,
    NoteRevision.action,
    NoteRevision.path,
)


def rows_for(db: Session, *, uid: str) -> list[Row[Any]]:
    """A note's history rows, newest first: the listed columns only (no body), as plain
    rows, since building an ORM object per row was most of a listing's cost."""
    return list(
        db.execute(
            select(*_LISTED)
            .where(NoteRevision.document_uid == uid)
            .order_by(NoteRevision.revision.desc())
        )
    )


def row_at(db: Session, *, uid: str, revision: int) -> NoteRevision | None:
    return db.scalar(
        select(NoteRevision).where(
            NoteRevision.document_uid == uid, NoteRevision.revision == revision
        )
    )


def deleted_uid(db: Session, *, workspace_id: str, path: str) -> str | None:
    """The most recently deleted note whose last path was `path` (its history is kept)."""
    return db.scalar(
        select(NoteRevision.document_uid)
        .where(
            NoteRevision.workspace_id == workspace_id,
            NoteRevision.path_sha256 == path_key(path),
            NoteRevision.gone_at.is_not(None),
        )
        .order_by(NoteRevision.gone_at.desc(), NoteRevision.revision.desc())
        .limit(1)
    )


def mark_gone(db: Session, *, uid: str, now: datetime) -> None:
    db.execute(
        update(NoteRevision)
        .where(NoteRevision.document_uid == uid)
        .values(gone_at=now)
        .execution_options(synchronize_session=False)
    )


def revive(db: Session, *, uid: str) -> None:
    """A deleted note restored: its history is its own again."""
    db.execute(
        update(NoteRevision)
        .where(NoteRevision.document_uid == uid)
        .values(gone_at=None)
        .execution_options(synchronize_session=False)
    )


def prune(db: Session, *, uid: str, now: datetime) -> None:
    """Drop rows beyond the retention rule (in the open transaction)."""
    count = db.scalar(select(func.count()).where(NoteRevision.document_uid == uid)) or 0
    if count <= KEEP_AT_LEAST:
        return
    rows = db.execute(
        select(NoteRevision.id, NoteRevision.base_id, NoteRevision.saved_at)
        .where(NoteRevision.document_uid == uid)
        .order_by(NoteRevision.revision.desc())
    ).all()
    cutoff = now - timedelta(days=KEEP_DAYS)
    kept = [r for i, r in enumerate(rows) if i < KEEP_AT_LEAST or r.saved_at >= cutoff]
    needed = {r.id for r in kept} | {r.base_id for r in kept if r.base_id is not None}
    dropped = [r.id for r in rows if r.id not in needed]
    if dropped:
        db.execute(delete(NoteRevision).where(NoteRevision.id.in_(dropped)))


def purge_deleted(db: Session, *, now: datetime) -> None:
    """Forget the history of notes deleted more than KEEP_DAYS days ago (commits)."""
    db.execute(delete(NoteRevision).where(NoteRevision.gone_at < now - timedelta(days=KEEP_DAYS)))
    db.commit()

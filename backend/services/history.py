"""A note's history as the API shows it (SPEC §15): list, read and restore revisions."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import and_, bindparam, case, func, select
from sqlalchemy.orm import Session

from ambient.pointer import sha256_prefix
from backend.db import storable, utcnow
from backend.errors import Conflict, NotFound
from backend.models import Document, User, path_key
from backend.models.history import NoteRevision
from backend.services import caches, documents, revisions
from backend.services.caches import Bounded
from backend.services.source import Source

NO_HISTORY = "There is no note, and no history of a deleted note, at that path."
NO_REVISION = "That revision of the note is not kept."


class NoHistory(NotFound):
    """Neither a note nor a deleted note's kept history at that path."""


class Entry(NamedTuple):
    """One revision in the list: the current text first, then the kept ones. (A named tuple:
    a listing builds ~100 of them from rows in the same column order, revisions.rows_for.)"""

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


_AT_PATH = (
    Document.workspace_id == bindparam("workspace_id"),
    Document.path_sha256 == bindparam("path_sha256"),
)


# Built once (with bind parameters), not per request.
def _kept_version(uid: Any) -> tuple[Any, ...]:
    """What changes whenever a note's kept rows do, as scalar subqueries on `uid`.

    Rows are only ever inserted (a new, larger id), deleted (prune, purge) or have `user_id`
    set to null (the user's deletion); a row's listed columns never change otherwise.
    """
    mine = NoteRevision.document_uid == uid
    return (
        select(func.count(NoteRevision.id)).where(mine).scalar_subquery(),
        select(func.sum(NoteRevision.id)).where(mine).scalar_subquery(),
        select(func.max(NoteRevision.id)).where(mine).scalar_subquery(),
        select(func.sum(func.coalesce(NoteRevision.user_id, 0))).where(mine).scalar_subquery(),
    )


_VERSIONS = 4
_NOTE_COLUMNS = (
    Document.uid,
    Document.revision,
    Document.updated_at,
    Document.bytes,
    Document.source_kind,
    Document.source_name,
    Document.saved_by,
    Document.action,
    Document.path,
    select(User.username).where(User.id == Document.saved_by).scalar_subquery(),
    *_kept_version(Document.uid),
)
_LISTED_NOTE = select(*_NOTE_COLUMNS).where(*_AT_PATH)
# With the text, to hash it: when the revision's hash is not known (documents.known_sha256).
_LISTED_NOTE_TEXT = select(Document.content, *_NOTE_COLUMNS).where(*_AT_PATH)
_DELETED_VERSION = select(*_kept_version(bindparam("uid")))


# In the app's caches, the kept part of recently listed histories, uid → (version, entries):
# a listing reads the version with the note (no extra query) and rebuilds the entries only
# when it changed; building ~100 rows into entries was most of a listing's cost.
_KEPT_LISTS = "kept_lists"
_KEPT_LISTS_KEPT = 128


def _kept_lists(db: Session) -> Bounded[str, tuple[tuple[Any, ...], tuple[Entry, ...]]]:
    return caches.of(db).map(_KEPT_LISTS, _KEPT_LISTS_KEPT)


# The note's uid, its text only when `revision` is its current one, else the kept row of
# that revision with its keyframe's key (revisions.decode): one query to open a revision.
_OPENED_NOTE = (
    select(
        Document.uid,
        case((Document.revision == bindparam("revision"), Document.content), else_=None),
        NoteRevision.body,
        NoteRevision.base_id,
        revisions.KEYFRAME.revision,
        revisions.KEYFRAME.sha256,
    )
    .outerjoin(
        NoteRevision,
        and_(
            NoteRevision.document_uid == Document.uid,
            NoteRevision.revision == bindparam("revision"),
        ),
    )
    .outerjoin(revisions.KEYFRAME, revisions.KEYFRAME.id == NoteRevision.base_id)
    .where(*_AT_PATH)
)


def _current(db: Session, statement: Any, workspace_id: str, path: str, **params: Any) -> Any:
    """`statement`'s row for the note at `path` (None when there is none; a Row of the
    statement's columns otherwise, typed Any as the statements vary)."""
    if not storable(workspace_id, max_length=64):
        return None
    where = {"workspace_id": workspace_id, "path_sha256": path_key(path)}
    return db.execute(statement, {**where, **params}).first()


def _history_uid(db: Session, *, workspace_id: str, path: str) -> str:
    uid = revisions.deleted_uid(db, workspace_id=workspace_id, path=path)
    if uid is None:
        raise NoHistory(NO_HISTORY)
    return uid


def history_of(
    db: Session, *, workspace_id: str, path: str
) -> tuple[Entry | None, tuple[Entry, ...]]:
    """(the current revision or None when the note was deleted, the kept ones newest first);
    NoHistory when `path` names neither a note nor a deleted one's history.

    One query when the kept rows are as last listed in this process (the note, its author's
    name and the rows' version), one more for the rows (no bodies) otherwise.
    """
    path = documents.valid_path(path)
    doc = _current(db, _LISTED_NOTE, workspace_id, path)
    sha256 = None if doc is None else documents.known_sha256(db, doc.uid, doc.revision)
    if doc is not None and sha256 is None:  # read again with the text (it may be newer now)
        doc = _current(db, _LISTED_NOTE_TEXT, workspace_id, path)
        if doc is not None:
            sha256 = sha256_prefix(doc.content.encode("utf-8"))
            documents.remember_sha256(db, doc.uid, doc.revision, sha256)
    current = None
    if doc is not None:
        uid, version = doc.uid, tuple(doc[-_VERSIONS:])
        current = Entry(
            doc.revision,
            doc.updated_at,
            doc.bytes,
            sha256 or "",
            doc.source_kind,
            doc.source_name,
            doc.saved_by,
            doc[-_VERSIONS - 1],
            doc.action,
            doc.path,
            True,
        )
    else:
        uid = _history_uid(db, workspace_id=workspace_id, path=path)
        version = tuple(db.execute(_DELETED_VERSION, {"uid": uid}).one())
    listed = _kept_lists(db).get(uid)
    kept = listed[1] if listed is not None and listed[0] == version else None
    if kept is None:
        kept = tuple(Entry._make((*row, False)) for row in revisions.rows_for(db, uid=uid))
        _kept_lists(db).put(uid, (version, kept))
    return current, kept


def list_revisions(db: Session, *, workspace_id: str, path: str) -> list[Entry]:
    """Newest first: the current revision (when the note exists), then the kept ones;
    NoHistory when `path` names neither a note nor a deleted one's history."""
    current, kept = history_of(db, workspace_id=workspace_id, path=path)
    return [*([current] if current is not None else []), *kept]


def revision_text(db: Session, *, workspace_id: str, path: str, revision: int) -> str:
    """The text of revision `revision` of the note at `path` (NoHistory as above; NotFound
    when that revision is not kept).

    One query: the note's text when `revision` is its current one, else the kept row and its
    keyframe's key (the keyframe itself usually from the history store's cache); a deleted
    note's history takes two.
    """
    path = documents.valid_path(path)
    doc = _current(db, _OPENED_NOTE, workspace_id, path, revision=revision)
    if doc is not None and doc[1] is not None:
        return str(doc[1])
    if doc is not None and doc.body is not None:
        return revisions.decode(db, uid=doc.uid, row=doc[2:])
    text = None
    if doc is None:  # a deleted note's history
        uid = _history_uid(db, workspace_id=workspace_id, path=path)
        text = revisions.text_at(db, uid=uid, revision=revision)
    if text is None:
        raise NotFound(NO_REVISION)
    return text


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

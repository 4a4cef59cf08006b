"""Documents (notes) with revisions: every write is one conditional statement, so none is lost."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer

from ambient.paths import PathError, normalize_path
from backend.db import storable, utcnow
from backend.errors import BadPath, BadRequest, Conflict, NotFound, PreconditionFailed, TooLarge
from backend.models import Document, path_key

NOT_FOUND = "There is no note at that path."
_MAX_RETRIES = 5


def valid_path(path: object) -> str:
    """The path in NFC (how it is stored and looked up), or BadPath with ambient.paths' message.

    Every write and lookup below goes through here, so two spellings of one name are one note.
    """
    try:
        return normalize_path(path)
    except PathError as exc:
        raise BadPath(str(exc)) from None


def check_text(content: str, *, max_bytes: int) -> int:
    """The UTF-8 size of `content`, or TooLarge / BadRequest."""
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError:
        raise BadRequest("The note text is not valid Unicode.") from None
    if size > max_bytes:
        raise TooLarge(f"The note is {size:,} bytes; the limit is {max_bytes:,} bytes.")
    if "\x00" in content:
        # PostgreSQL text cannot hold NUL, so refuse it everywhere to behave the same.
        raise BadRequest("The note text contains a NUL character, which cannot be stored.")
    return size


def _where(workspace_id: str, path: str) -> tuple[ColumnElement[bool], ...]:
    return (Document.workspace_id == workspace_id, Document.path_sha256 == path_key(path))


def list_documents(db: Session, *, workspace_id: str) -> list[Document]:
    """Every note in the workspace, by path; the text is not loaded until asked for."""
    if not storable(workspace_id, max_length=64):
        return []
    return list(
        db.scalars(
            select(Document)
            .where(Document.workspace_id == workspace_id)
            .options(defer(Document.content))
            .order_by(Document.path)
        )
    )


def find_document(db: Session, *, workspace_id: str, path: str) -> Document | None:
    path = valid_path(path)
    if not storable(workspace_id, max_length=64):
        return None
    return db.scalar(select(Document).where(*_where(workspace_id, path)))


def get_document(db: Session, *, workspace_id: str, path: str) -> Document:
    """The note at `path`, or NotFound (BadPath for a path that breaks the rules)."""
    doc = find_document(db, workspace_id=workspace_id, path=path)
    if doc is None:
        raise NotFound(NOT_FOUND)
    return doc


def save_document(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    content: str,
    max_bytes: int,
    if_match: int | None = None,
    create_only: bool = False,
    now: datetime | None = None,
) -> tuple[Document, bool]:
    """Write a note; returns (document, created).

    `if_match` updates only that revision (Conflict otherwise, nothing changed);
    `create_only` only creates (PreconditionFailed if it exists); neither creates or overwrites.
    """
    path = valid_path(path)
    size = check_text(content, max_bytes=max_bytes)
    now = now or utcnow()
    if if_match is not None and create_only:
        raise BadRequest("If-Match and If-None-Match cannot be used together.")
    if create_only:
        doc = _insert(db, workspace_id=workspace_id, path=path, content=content, size=size, now=now)
        if doc is None:
            raise PreconditionFailed("A note already exists at that path.")
        return doc, True
    if if_match is not None:
        doc = _update(db, workspace_id, path, content, size, now, expected=if_match)
        if doc is None:
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
        return doc, False
    for _ in range(_MAX_RETRIES):
        doc = _update(db, workspace_id, path, content, size, now, expected=None)
        if doc is not None:
            return doc, False
        doc = _insert(db, workspace_id=workspace_id, path=path, content=content, size=size, now=now)
        if doc is not None:
            return doc, True
        # Someone created it between our UPDATE and INSERT: loop and overwrite theirs.
    raise Conflict("The note kept changing while saving; please try again.")


def _update(
    db: Session,
    workspace_id: str,
    path: str,
    content: str,
    size: int,
    now: datetime,
    *,
    expected: int | None,
) -> Document | None:
    """One atomic UPDATE ... WHERE [revision = expected] RETURNING; None when no row matched."""
    conditions = list(_where(workspace_id, path))
    if expected is not None:
        conditions.append(Document.revision == expected)
    stmt = (
        update(Document)
        .where(*conditions)
        .values(content=content, bytes=size, revision=Document.revision + 1, updated_at=now)
        .returning(Document)
        .execution_options(synchronize_session=False, populate_existing=True)
    )
    doc = db.scalars(stmt).one_or_none()
    if doc is None:
        db.rollback()
        return None
    db.commit()
    return doc


def _insert(
    db: Session, *, workspace_id: str, path: str, content: str, size: int, now: datetime
) -> Document | None:
    """Insert revision 1; None when the path is already taken (unique constraint)."""
    doc = Document(
        workspace_id=workspace_id,
        path=path,
        path_sha256=path_key(path),
        content=content,
        bytes=size,
        revision=1,
        updated_at=now,
    )
    db.add(doc)
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        return None
    return doc


def _raise_stale(db: Session, *, workspace_id: str, path: str, expected: int) -> None:
    current = db.scalar(select(Document.revision).where(*_where(workspace_id, path)))
    db.rollback()
    if current is None:
        raise Conflict(f"The note was deleted after revision {expected} was read.")
    raise Conflict(
        f"The note has changed since revision {expected} was read "
        f"(it is now at revision {current}); nothing was saved."
    )


def delete_document(
    db: Session, *, workspace_id: str, path: str, if_match: int | None = None
) -> None:
    """Delete a note (only that revision when `if_match` is given)."""
    path = valid_path(path)
    conditions = list(_where(workspace_id, path))
    if if_match is not None:
        conditions.append(Document.revision == if_match)
    result = db.execute(delete(Document).where(*conditions).returning(Document.id))
    if result.first() is None:
        db.rollback()
        if if_match is not None and find_document(db, workspace_id=workspace_id, path=path):
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
        raise NotFound(NOT_FOUND)
    db.commit()


def move_document(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    to: str,
    if_match: int | None = None,
    now: datetime | None = None,
) -> Document:
    """Rename a note; Conflict when a note already exists at `to`. The revision grows by one."""
    path = valid_path(path)
    to = valid_path(to)
    if to == path:
        raise BadRequest("The new path is the same as the current one.")
    if find_document(db, workspace_id=workspace_id, path=to) is not None:
        db.rollback()
        raise Conflict("A note already exists at the new path.")
    conditions = list(_where(workspace_id, path))
    if if_match is not None:
        conditions.append(Document.revision == if_match)
    stmt = (
        update(Document)
        .where(*conditions)
        .values(
            path=to,
            path_sha256=path_key(to),
            revision=Document.revision + 1,
            updated_at=now or utcnow(),
        )
        .returning(Document)
        .execution_options(synchronize_session=False, populate_existing=True)
    )
    try:
        doc = db.scalars(stmt).one_or_none()
    except IntegrityError:
        db.rollback()
        raise Conflict("A note already exists at the new path.") from None
    if doc is None:
        db.rollback()
        if if_match is not None and find_document(db, workspace_id=workspace_id, path=path):
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
        raise NotFound(NOT_FOUND)
    db.commit()
    return doc

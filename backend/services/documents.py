"""Documents (notes): every write is one conditional statement, so none is lost.

Each write keeps the text it replaced (services.revisions) and records its event (services.events).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, event, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer, sessionmaker

from ambient.paths import PathError, normalize_path
from ambient.pointer import sha256_prefix
from backend.db import storable, utcnow
from backend.errors import BadPath, BadRequest, Conflict, NotFound, PreconditionFailed, TooLarge
from backend.models import Document, new_uid, path_key
from backend.services import caches, events, revisions
from backend.services.caches import Bounded
from backend.services.revisions import Head
from backend.services.source import Source

NOT_FOUND = "There is no note at that path."
# A write that lost a race reads again and retries (an `If-Match` write answers 409 instead).
# Many writers on one note can keep beating one another, so a loser waits a little, longer
# each time, before the next try.
_MAX_RETRIES = 40


def _back_off(attempt: int) -> None:
    if attempt:
        time.sleep(random.uniform(0, min(0.002 * attempt, 0.05)))


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


def head_of(db: Session, *, workspace_id: str, path: str) -> Head | None:
    """The note's current revision and who made it, without its text."""
    row = db.execute(select(*_HEAD_COLUMNS).where(*_where(workspace_id, path))).first()
    return None if row is None else Head(**row._asdict())


_HEAD_COLUMNS = (
    Document.id,
    Document.uid,
    Document.workspace_id,
    Document.path,
    Document.revision,
    Document.bytes,
    Document.updated_at,
    Document.saved_by,
    Document.source_kind,
    Document.source_name,
    Document.action,
    Document.run_started_at,
)


def _authorship(
    source: Source, now: datetime, *, run_started_at: datetime | None
) -> dict[str, Any]:
    return {
        "saved_by": source.user_id,
        "source_kind": source.kind,
        "source_name": source.name,
        "action": source.action,
        "run_started_at": run_started_at or now,
        "updated_at": now,
    }


# uid → (revision, sha256 prefix of that revision's text), in the app's caches. A note's
# revision names one text for good (every write makes a new one), so the hash that each write
# computes for its `saved` event is kept once committed, and the history's current entry
# (SPEC §15) need not read and hash the text again after a save; a miss (another process's
# save, a restart) just reads it.
_HASHES = "current_hashes"
_HASHES_KEPT = 1024
_UNCOMMITTED_HASHES = "ana_saved_hashes"  # in Session.info: this transaction's writes


def _hashes(db: Session) -> Bounded[str, tuple[int, str]]:
    return caches.of(db).map(_HASHES, _HASHES_KEPT)


def known_sha256(db: Session, uid: str, revision: int) -> str | None:
    """The sha256 prefix of revision `revision` of note `uid` when the app knows it."""
    known = _hashes(db).get(uid)
    return known[1] if known is not None and known[0] == revision else None


def remember_sha256(db: Session, uid: str, revision: int, sha256: str) -> None:
    """Note a committed revision's text hash (see _HASHES)."""
    _hashes(db).put(uid, (revision, sha256))


def _hashes_committed(db: Session) -> None:
    for uid, revision, sha256 in db.info.pop(_UNCOMMITTED_HASHES, ()):
        remember_sha256(db, uid, revision, sha256)


def _hashes_rolled_back(db: Session, previous_transaction: object) -> None:
    db.info.pop(_UNCOMMITTED_HASHES, None)  # those revisions may be taken by other texts


def follow_commits(maker: sessionmaker[Session]) -> None:
    """Listen on the app's sessionmaker (never on every Session of the process): a committed
    save's text hash becomes known, a rolled-back one is forgotten."""
    event.listen(maker, "after_commit", _hashes_committed)
    event.listen(maker, "after_soft_rollback", _hashes_rolled_back)


def saved_event(db: Session, doc: Document, source: Source, *, data: bytes, now: datetime) -> None:
    """Record the `saved` event of `doc` (in the open transaction); its text's hash becomes
    known (`known_sha256`) when the transaction commits."""
    sha256 = sha256_prefix(data)
    db.info.setdefault(_UNCOMMITTED_HASHES, []).append((doc.uid, doc.revision, sha256))
    events.record(
        db,
        workspace_id=doc.workspace_id,
        kind="saved",
        data={
            "path": doc.path,
            "revision": doc.revision,
            "bytes": len(data),
            "sha256": sha256,
            "source": source.public(),
        },
        now=now,
    )


def replace_text(
    db: Session,
    *,
    head: Head,
    old_text: str | None,
    content: str,
    size: int,
    source: Source,
    now: datetime,
) -> Document | None:
    """Save `content` over revision `head.revision` in one conditional UPDATE, keep the text it
    replaced (unless `old_text` is None: a coalesced save) and record the event. Stays in the
    open transaction; None (rolled back) when the note is no longer at that revision.
    """
    run_started = head.run_started_at if old_text is None else None
    doc = db.scalars(
        update(Document)
        .where(Document.id == head.id, Document.revision == head.revision)
        .values(
            content=content,
            bytes=size,
            revision=Document.revision + 1,
            **_authorship(source, now, run_started_at=run_started),
        )
        .returning(Document)
        .execution_options(synchronize_session=False, populate_existing=True)
    ).one_or_none()
    if doc is None:
        db.rollback()
        return None
    if old_text is not None:
        revisions.keep(db, head=head, text=old_text)
        revisions.prune(db, uid=head.uid, now=now)
    saved_event(db, doc, source, data=content.encode("utf-8"), now=now)
    return doc


def _read_for_write(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    source: Source,
    now: datetime,
    keep_replaced: bool = False,
) -> tuple[Head | None, str | None] | None:
    """(head, the text to keep or None when the save coalesces), or None when the note changed
    between the two reads (the caller reads again); the read transaction ends."""
    head = head_of(db, workspace_id=workspace_id, path=path)
    keep = head is not None and (keep_replaced or not revisions.coalesces(head, source, now))
    old_text = None
    if head is not None and keep:
        old_text = db.scalar(
            select(Document.content).where(
                Document.id == head.id, Document.revision == head.revision
            )
        )
    db.rollback()  # end the read: every write below is conditional on what was read
    if keep and old_text is None:
        return None
    return head, old_text


def save_document(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    content: str,
    max_bytes: int,
    source: Source,
    if_match: int | None = None,
    create_only: bool = False,
    keep_replaced: bool = False,
    now: datetime | None = None,
    then: Callable[[Session, Document], None] | None = None,
) -> tuple[Document, bool]:
    """Write a note; returns (document, created).

    `if_match` updates only that revision (Conflict otherwise, nothing changed);
    `create_only` only creates (PreconditionFailed if it exists); neither creates or overwrites.
    The replaced text goes to the history (SPEC §15) and a `saved` event is published after
    the commit (SPEC §13). `keep_replaced` keeps the replaced text as its own revision even
    when the save would coalesce with it (a save that resolves a conflict: the text it
    overwrites came from elsewhere and must stay in the history). `then(db, document)` runs
    in the save's transaction, before it commits (what the save carries is recorded with it).
    """
    path = valid_path(path)
    size = check_text(content, max_bytes=max_bytes)
    now = now or utcnow()
    if if_match is not None and create_only:
        raise BadRequest("If-Match and If-None-Match cannot be used together.")
    for attempt in range(_MAX_RETRIES):
        _back_off(attempt)
        read = _read_for_write(
            db,
            workspace_id=workspace_id,
            path=path,
            source=source,
            now=now,
            keep_replaced=keep_replaced,
        )
        if read is None:  # the note changed between its two reads
            continue
        head, old_text = read
        if head is None:
            if if_match is not None:
                raise Conflict(f"The note was deleted after revision {if_match} was read.")
            doc = insert_note(
                db,
                workspace_id=workspace_id,
                path=path,
                content=content,
                size=size,
                source=source,
                now=now,
                then=then,
            )
            if doc is not None:
                return doc, True
            if create_only:
                raise PreconditionFailed("A note already exists at that path.")
            continue  # someone created it meanwhile: overwrite theirs (their text is kept)
        if create_only:
            raise PreconditionFailed("A note already exists at that path.")
        if if_match is not None and head.revision != if_match:
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
        doc = replace_text(
            db, head=head, old_text=old_text, content=content, size=size, source=source, now=now
        )
        if doc is not None:
            if then is not None:
                then(db, doc)
            db.commit()
            return doc, False
        if if_match is not None:
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
    raise Conflict("The note kept changing while saving; please try again.")


def insert_note(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    content: str,
    size: int,
    source: Source,
    now: datetime,
    uid: str | None = None,
    revision: int = 1,
    then: Callable[[Session, Document], None] | None = None,
) -> Document | None:
    """Insert the note (revision 1); None when the path is already taken (unique constraint)."""
    if source.action == "edit":
        source = source.as_action("create")
    doc = Document(
        workspace_id=workspace_id,
        path=path,
        path_sha256=path_key(path),
        content=content,
        bytes=size,
        revision=revision,
        uid=uid or new_uid(),
        **_authorship(source, now, run_started_at=None),
    )
    db.add(doc)
    try:
        db.flush()
        saved_event(db, doc, source, data=content.encode("utf-8"), now=now)
        if then is not None:
            then(db, doc)
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
    db: Session,
    *,
    workspace_id: str,
    path: str,
    source: Source,
    if_match: int | None = None,
    now: datetime | None = None,
) -> None:
    """Delete a note (only that revision when `if_match` is given); its history stays 30 days."""
    path = valid_path(path)
    now = now or utcnow()
    for attempt in range(_MAX_RETRIES):
        _back_off(attempt)
        head = head_of(db, workspace_id=workspace_id, path=path)
        if head is None:
            db.rollback()
            raise NotFound(NOT_FOUND)
        if if_match is not None and head.revision != if_match:
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
        text = db.scalar(select(Document.content).where(Document.id == head.id))
        db.rollback()
        gone = db.execute(
            delete(Document)
            .where(Document.id == head.id, Document.revision == head.revision)
            .returning(Document.id)
        ).first()
        if gone is None:
            db.rollback()
            continue
        revisions.keep(db, head=head, text=text or "")
        revisions.mark_gone(db, uid=head.uid, now=now)
        events.record(db, workspace_id=workspace_id, kind="deleted", data={"path": path}, now=now)
        db.commit()
        return
    raise Conflict("The note kept changing while deleting; please try again.")


def move_document(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    to: str,
    source: Source,
    if_match: int | None = None,
    now: datetime | None = None,
) -> Document:
    """Rename a note; Conflict when a note already exists at `to`. The revision grows by one
    and the history follows the note (it is keyed by the note's uid, not its path)."""
    path = valid_path(path)
    to = valid_path(to)
    now = now or utcnow()
    if to == path:
        raise BadRequest("The new path is the same as the current one.")
    source = source.as_action("move")
    for attempt in range(_MAX_RETRIES):
        _back_off(attempt)
        if find_document(db, workspace_id=workspace_id, path=to) is not None:
            db.rollback()
            raise Conflict("A note already exists at the new path.")
        read = _read_for_write(db, workspace_id=workspace_id, path=path, source=source, now=now)
        if read is None:  # the note changed between its two reads
            continue
        head, text = read
        if head is None:
            raise NotFound(NOT_FOUND)
        if if_match is not None and head.revision != if_match:
            _raise_stale(db, workspace_id=workspace_id, path=path, expected=if_match)
        stmt = (
            update(Document)
            .where(Document.id == head.id, Document.revision == head.revision)
            .values(
                path=to,
                path_sha256=path_key(to),
                revision=Document.revision + 1,
                **_authorship(source, now, run_started_at=None),
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
            continue
        revisions.keep(db, head=head, text=text or "")
        revisions.prune(db, uid=head.uid, now=now)
        events.record(
            db,
            workspace_id=workspace_id,
            kind="moved",
            data={"from": path, "to": to, "revision": doc.revision},
            now=now,
        )
        db.commit()
        return doc
    raise Conflict("The note kept changing while renaming; please try again.")

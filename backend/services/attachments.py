"""Attachments (SPEC §18): images and PDFs stored in the database, once per content.

A file's bytes live once per workspace and SHA-256 (`AttachmentBlob`); each path that holds
them is an `Attachment` row. Nothing here commits: the caller does, so an import of many
files is all or nothing. Paths follow the notes' rules (SPEC §6, `documents.valid_path`),
and a path holds a note or an attachment, never both.

An attachment no note refers to any more is purged 30 days after the purge job first finds
it so (`purge_unreferenced`, run at start and hourly beside the notes' history purge).
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal
from urllib.parse import quote

from sqlalchemy import delete, exists, select, update
from sqlalchemy.orm import Session

from ambient.contract import ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES
from ambient.paths import under_folder
from backend.db import dialect_insert, storable, utcnow
from backend.errors import BadPath, BadRequest, Conflict, NotFound, TooLarge, UnsupportedType
from backend.models import Document, path_key
from backend.models.attachments import Attachment, AttachmentBlob
from backend.services.documents import valid_path

__all__ = [
    "ATTACHMENT_TYPES",
    "KEEP_UNREFERENCED_DAYS",
    "MAX_ATTACHMENT_BYTES",
    "AttachmentInfo",
    "content_type_for",
    "delete_attachment",
    "find_attachment",
    "list_attachments",
    "purge_unreferenced",
    "put_attachment",
    "read_attachment",
]

KEEP_UNREFERENCED_DAYS = 30
NOT_FOUND = "There is no attachment at that path."
NOT_ACCEPTED = (
    "Only these files can be attached: " + ", ".join(f".{ext}" for ext in ATTACHMENT_TYPES) + "."
)
OnTaken = Literal["rename", "replace", "error"]
_MAX_FREE_NAME_TRIES = 10_000


@dataclass(frozen=True)
class AttachmentInfo:
    path: str
    bytes: int
    sha256: str  # full hex SHA-256 of the bytes
    content_type: str

    def public(self) -> dict[str, str | int]:
        return {
            "path": self.path,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "contentType": self.content_type,
        }

    @classmethod
    def of(cls, row: Attachment) -> AttachmentInfo:
        return cls(row.path, row.bytes, row.sha256, row.content_type)


def content_type_for(path: str) -> str | None:
    """The type a file at `path` is served as, from its extension (any case); None when it is
    not a kind of file attachments take."""
    _, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        return None
    return ATTACHMENT_TYPES.get(ext.lower())


def check_size(size: int) -> None:
    if size > MAX_ATTACHMENT_BYTES:
        raise TooLarge(f"The file is {size:,} bytes; the limit is {MAX_ATTACHMENT_BYTES:,} bytes.")


def attachment_path(path: object) -> tuple[str, str]:
    """(the path in NFC, its content type), or BadPath / UnsupportedType."""
    normal = valid_path(path)
    content_type = content_type_for(normal)
    if content_type is None:
        raise UnsupportedType(NOT_ACCEPTED)
    return normal, content_type


def _row(db: Session, workspace_id: str, path: str) -> Attachment | None:
    return db.scalar(
        select(Attachment).where(
            Attachment.workspace_id == workspace_id, Attachment.path_sha256 == path_key(path)
        )
    )


def _note_at(db: Session, workspace_id: str, path: str) -> bool:
    return bool(
        db.scalar(
            select(
                exists().where(
                    Document.workspace_id == workspace_id, Document.path_sha256 == path_key(path)
                )
            )
        )
    )


def find_attachment(db: Session, *, workspace_id: str, path: str) -> AttachmentInfo | None:
    """The attachment at `path`, or None (an invalid path finds nothing)."""
    if not storable(workspace_id, max_length=64) or not storable(path):
        return None
    try:
        normal = valid_path(path)
    except BadRequest:
        return None
    row = _row(db, workspace_id, normal)
    return None if row is None else AttachmentInfo.of(row)


def list_attachments(
    db: Session, *, workspace_id: str, folder: str | None = None
) -> list[AttachmentInfo]:
    """Every attachment of the workspace (or inside `folder`), by path."""
    if not storable(workspace_id, max_length=64):
        return []
    rows = db.scalars(
        select(Attachment).where(Attachment.workspace_id == workspace_id).order_by(Attachment.path)
    )
    return [AttachmentInfo.of(r) for r in rows if under_folder(r.path, folder)]


def read_attachment(db: Session, *, workspace_id: str, path: str) -> tuple[AttachmentInfo, bytes]:
    """The attachment at `path` and its bytes, or NotFound."""
    info = find_attachment(db, workspace_id=workspace_id, path=path)
    if info is None:
        raise NotFound(NOT_FOUND)
    data = db.scalar(
        select(AttachmentBlob.data).where(
            AttachmentBlob.workspace_id == workspace_id, AttachmentBlob.sha256 == info.sha256
        )
    )
    if data is None:  # a concurrent delete between the two reads
        raise NotFound(NOT_FOUND)
    return info, bytes(data)


def _keep_blob(db: Session, workspace_id: str, sha256: str, data: bytes) -> None:
    """Store `data` under its hash unless the workspace has it already (a racing upload of
    the same bytes inserting first is fine: its row holds the same bytes)."""
    have = db.scalar(
        select(
            exists().where(
                AttachmentBlob.workspace_id == workspace_id, AttachmentBlob.sha256 == sha256
            )
        )
    )
    if have:
        return
    db.execute(
        dialect_insert(db)(AttachmentBlob)
        .values(workspace_id=workspace_id, sha256=sha256, bytes=len(data), data=data)
        .on_conflict_do_nothing()
    )


def _release_blob(db: Session, workspace_id: str, sha256: str) -> None:
    """Drop the bytes once no path of the workspace holds them."""
    db.execute(
        delete(AttachmentBlob).where(
            AttachmentBlob.workspace_id == workspace_id,
            AttachmentBlob.sha256 == sha256,
            ~exists().where(Attachment.workspace_id == workspace_id, Attachment.sha256 == sha256),
        )
    )


def free_name(path: str, attempt: int) -> str:
    """`attempt` 0: `path`; else `name-<attempt>.ext` in the same folder."""
    if attempt == 0:
        return path
    folder, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    candidate = f"{stem}-{attempt}" + (f".{ext}" if ext else "")
    return f"{folder}/{candidate}" if folder else candidate


def put_attachment(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    data: bytes,
    user_id: int | None,
    now: datetime | None = None,
    on_taken: OnTaken = "rename",
) -> AttachmentInfo:
    """Keep `data` at `path` (in the open transaction; the caller commits).

    The same bytes already at `path`: returned unchanged. A different file (or a note) there:
    `rename` takes the first free `name-1.ext`, `name-2.ext`, ...; `replace` puts the new
    bytes at the path (a note there is never replaced: 409); `error` answers 409.
    BadPath, UnsupportedType (415) and TooLarge (413) as their rules say.
    """
    normal, content_type = attachment_path(path)
    check_size(len(data))
    sha256 = hashlib.sha256(data).hexdigest()
    now = now or utcnow()
    _keep_blob(db, workspace_id, sha256, data)
    for attempt in range(_MAX_FREE_NAME_TRIES):
        candidate = free_name(normal, attempt)
        if attempt:
            try:
                valid_path(candidate)
            except BadRequest:
                raise BadPath("The path is too long to add a number to the file's name.") from None
        existing = _row(db, workspace_id, candidate)
        if existing is not None:
            if existing.sha256 == sha256:
                return AttachmentInfo.of(existing)
            if on_taken == "replace":
                old = existing.sha256
                existing.sha256, existing.bytes = sha256, len(data)
                existing.content_type = content_type
                existing.created_by, existing.created_at = user_id, now
                existing.unreferenced_since = None
                db.flush()
                _release_blob(db, workspace_id, old)
                return AttachmentInfo.of(existing)
            if on_taken == "error":
                raise Conflict("A different file is already attached at that path.")
            continue
        if _note_at(db, workspace_id, candidate):
            if on_taken != "rename":
                raise Conflict("A note already has that path.")
            continue
        # ON CONFLICT, not a savepoint: SQLite's driver would commit a lone savepoint.
        added = db.execute(
            dialect_insert(db)(Attachment)
            .values(
                workspace_id=workspace_id,
                path=candidate,
                path_sha256=path_key(candidate),
                sha256=sha256,
                bytes=len(data),
                content_type=content_type,
                created_by=user_id,
                created_at=now,
            )
            .on_conflict_do_nothing(index_elements=["workspace_id", "path_sha256"])
            .returning(Attachment.id)
        ).scalar()
        if added is not None:
            return AttachmentInfo(candidate, len(data), sha256, content_type)
        # A concurrent upload took the path first: look at it again.
        racer = _row(db, workspace_id, candidate)
        if racer is not None and racer.sha256 == sha256:
            return AttachmentInfo.of(racer)
        if on_taken != "rename":
            raise Conflict("A different file is already attached at that path.")
    raise Conflict("No free name was found for the file.")


def delete_attachment(db: Session, *, workspace_id: str, path: str) -> AttachmentInfo:
    """Remove the attachment at `path` (its bytes too, when no other path holds them)."""
    info = find_attachment(db, workspace_id=workspace_id, path=path)
    if info is None:
        raise NotFound(NOT_FOUND)
    db.execute(
        delete(Attachment).where(
            Attachment.workspace_id == workspace_id,
            Attachment.path_sha256 == path_key(info.path),
        )
    )
    _release_blob(db, workspace_id, info.sha256)
    return info


# --- the purge of attachments no note refers to -------------------------------------------


def _spellings(path: str) -> tuple[str, ...]:
    """How a note may name the file at `path`: its file name as typed, or percent-encoded
    (`my%20photo.png`). Matching the file name anywhere in the text is deliberately loose:
    a false match only keeps a file longer, a missed one would lose a picture."""
    name = posixpath.basename(path)
    return tuple({name, quote(name), quote(name, safe="")})


def referenced_paths(attachments: list[str], texts: list[str]) -> set[str]:
    """The attachment paths whose file name occurs in any of the notes' `texts`."""
    found: set[str] = set()
    wanted = {p: _spellings(p) for p in attachments}
    for text in texts:
        for p, spellings in wanted.items():
            if p not in found and any(s in text for s in spellings):
                found.add(p)
        if len(found) == len(wanted):
            break
    return found


def purge_unreferenced(db: Session, *, now: datetime) -> int:
    """Mark the attachments no note refers to (from `now`), clear the mark of those referred
    to again, and delete those unreferenced for KEEP_UNREFERENCED_DAYS. Commits per workspace
    (a job, not a request). Returns how many were purged."""
    cutoff = now - timedelta(days=KEEP_UNREFERENCED_DAYS)
    purged = 0
    workspaces = list(db.scalars(select(Attachment.workspace_id).distinct()))
    for ws in workspaces:
        rows = list(
            db.execute(
                select(Attachment.path, Attachment.unreferenced_since).where(
                    Attachment.workspace_id == ws
                )
            )
        )
        texts = list(db.scalars(select(Document.content).where(Document.workspace_id == ws)))
        used = referenced_paths([r.path for r in rows], texts)
        for path, since in rows:
            key = path_key(path)
            where = (Attachment.workspace_id == ws, Attachment.path_sha256 == key)
            if path in used:
                if since is not None:
                    db.execute(update(Attachment).where(*where).values(unreferenced_since=None))
            elif since is None:
                db.execute(update(Attachment).where(*where).values(unreferenced_since=now))
            elif since <= cutoff:
                delete_attachment(db, workspace_id=ws, path=path)
                purged += 1
        db.commit()
    return purged

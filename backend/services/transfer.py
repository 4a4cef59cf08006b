"""Notes in and out (SPEC §18): a workspace as a zip, and a zip (an Obsidian vault, a folder of
Markdown) as notes.

Export streams: the zip is written entry by entry into a small buffer that is drained after
each entry, the notes are read from the database a batch at a time, so memory stays flat
however large the workspace is (docs/import-export.md).

Import is checked whole before anything is written: the zip's central directory (never
`extractall`) gives every entry's name, kind, declared sizes and flags, and one bad entry
refuses the import with a message naming it. Then every note is written in one transaction:
all or nothing.
"""

from __future__ import annotations

import hashlib
import unicodedata
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, Literal

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ambient.contract import MAX_ATTACHMENT_BYTES, MAX_IMPORT_BYTES
from ambient.paths import character_problem, under_folder
from ambient.pointer import sha256_prefix
from backend.db import storable, utcnow
from backend.errors import BadPath, BadRequest, Conflict, TooLarge
from backend.models import Document, new_uid, path_key
from backend.models.attachments import Attachment, AttachmentBlob
from backend.services import attachments, documents, events
from backend.services.revisions import Head
from backend.services.source import Source

MAX_ENTRIES = 20_000
MAX_TOTAL_BYTES = MAX_IMPORT_BYTES  # uncompressed, every entry together
MAX_RATIO = 100  # uncompressed / compressed, per entry
# An entry this small is never refused for its ratio: its size alone can do no harm, and a
# short run of repeated text (an empty table, a line of dashes) compresses far past 100.
RATIO_FREE_BYTES = 64 * 1024
# The request body of an import (the zip plus the form's few hundred bytes).
MAX_UPLOAD_BYTES = MAX_IMPORT_BYTES + 64 * 1024
NOTE_SUFFIXES = (".md", ".markdown")
# Already compressed: stored as they are in an export (deflating them again costs time only).
STORED_TYPES = frozenset({"png", "jpg", "jpeg", "gif", "webp", "pdf"})
IGNORED_FOLDERS = ("__MACOSX",)  # and every name starting with "." (.obsidian/, .trash/ ...)
OnConflict = Literal["skip", "rename", "replace"]
ON_CONFLICT: tuple[OnConflict, ...] = ("skip", "rename", "replace")
_S_IFMT = 0o170000
_S_IFLNK = 0o120000
_EXPORT_BATCH = 64  # notes read per query while exporting, and at most
_BATCH_BYTES = 4 * 1024 * 1024  # this much of their text (or one note alone)
_SEND_BYTES = 64 * 1024  # the zip is handed on in pieces of about this size (or one entry)
_INSERT_BATCH = 256  # notes inserted per statement while importing, and at most
_INSERT_BYTES = 8 * 1024 * 1024  # this much of their text
_MAX_ATTEMPTS = 3
_SHOWN_NAME = 200  # characters of an entry's name shown in a message


def shown(name: str) -> str:
    """An entry's name as a message quotes it: control and invisible characters escaped, long
    names cut (a zip's names are the uploader's text, never trusted in a message)."""
    out = []
    for ch in name[:_SHOWN_NAME]:
        out.append(f"\\u{ord(ch):04x}" if character_problem(ch) or ch == '"' else ch)
    return '"' + "".join(out) + ("…" if len(name) > _SHOWN_NAME else "") + '"'


def _refuse(name: str, why: str, *, too_large: bool = False) -> BadRequest | TooLarge:
    message = f"The entry {shown(name)} {why}; nothing was imported."
    return TooLarge(message) if too_large else BadRequest(message)


# --- checking a zip --------------------------------------------------------------------------


@dataclass
class Plan:
    """What a checked zip holds: the notes and attachments (entry, workspace path) and the
    ignored names."""

    notes: list[tuple[zipfile.ZipInfo, str]] = field(default_factory=list)
    attachments: list[tuple[zipfile.ZipInfo, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def open_zip(file: IO[bytes]) -> zipfile.ZipFile:
    """The zip's central directory, or 400 (not a zip, or a damaged one)."""
    try:
        return zipfile.ZipFile(file)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        raise BadRequest("The file is not a readable zip archive; nothing was imported.") from None
    except NotImplementedError:
        raise BadRequest(
            "The zip uses a format this server cannot read; nothing was imported."
        ) from None


def is_ignored(name: str) -> bool:
    """Obsidian's and macOS's own files: a segment starting with "." or a `__MACOSX` folder."""
    segments = name.split("/")
    return segments[0] in IGNORED_FOLDERS or any(s.startswith(".") for s in segments)


def check_archive(zf: zipfile.ZipFile, *, max_note_bytes: int) -> Plan:
    """Check every entry of the central directory before anything is read or written.

    Refuses the whole zip (400, or 413 for a size) naming the first bad entry: an absolute
    path or a `..` (or `.`) segment, a link, an encrypted entry, a path breaking §6's rules,
    a note over `max_note_bytes` or an attachment over MAX_ATTACHMENT_BYTES, more than
    MAX_ENTRIES entries, more than MAX_TOTAL_BYTES uncompressed, a compression ratio above
    MAX_RATIO, or two entries with one path.
    """
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _refuse(
            infos[MAX_ENTRIES].filename,
            f"is one more than the {MAX_ENTRIES:,} entries a zip may hold",
            too_large=True,
        )
    plan = Plan()
    total = 0
    seen: set[str] = set()
    for info in infos:
        name = info.filename
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise _refuse(
                name,
                f"takes the zip past {MAX_TOTAL_BYTES // (1024 * 1024)} MiB uncompressed",
                too_large=True,
            )
        if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
            raise _refuse(name, "has an absolute path")
        if "\\" in name:
            raise _refuse(name, "uses '\\' in its path (a zip's separator is '/')")
        if any(s in (".", "..") for s in name.rstrip("/").split("/")):
            raise _refuse(name, "has a '..' or '.' segment")
        if (info.external_attr >> 16) & _S_IFMT == _S_IFLNK:
            raise _refuse(name, "is a link")
        if info.flag_bits & 0x1:
            raise _refuse(name, "is encrypted")
        if info.file_size > RATIO_FREE_BYTES and (
            info.compress_size == 0 or info.file_size / info.compress_size > MAX_RATIO
        ):
            raise _refuse(
                name, f"is compressed more than {MAX_RATIO} to 1 (a zip bomb?)", too_large=True
            )
        if info.is_dir():
            continue
        is_note = name.lower().endswith(NOTE_SUFFIXES)
        if is_ignored(name) or not (is_note or attachments.content_type_for(name)):
            plan.ignored.append(name)
            continue
        try:
            path = documents.valid_path(name)
        except BadPath as exc:
            raise _refuse(name, f"breaks the path rules ({exc.message})") from None
        limit, what = (
            (max_note_bytes, "a note") if is_note else (MAX_ATTACHMENT_BYTES, "an attachment")
        )
        if info.file_size > limit:
            raise _refuse(
                name,
                f"is {info.file_size:,} bytes; {what} may have at most {limit:,}",
                too_large=True,
            )
        if path in seen:
            raise _refuse(name, "is in the zip twice")
        seen.add(path)
        (plan.notes if is_note else plan.attachments).append((info, path))
    return plan


def read_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The entry's bytes, reading no more than its declared size + 1 (a lying header is
    caught, never believed); 400 naming it when its data is damaged."""
    try:
        with zf.open(info) as stream:
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError):
        raise _refuse(info.filename, "is damaged or cannot be read") from None
    except RuntimeError:  # zipfile's "encrypted, password required"
        raise _refuse(info.filename, "is encrypted") from None
    if len(data) != info.file_size:
        raise _refuse(info.filename, "is not the size its header declares")
    return data


def note_text(info: zipfile.ZipInfo, data: bytes, *, max_note_bytes: int) -> str:
    """The note's text, byte for byte (no newline or BOM handling), or 400 naming the entry."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(info.filename, "is not UTF-8 text") from None
    try:
        documents.check_text(text, max_bytes=max_note_bytes)
    except (BadRequest, TooLarge) as exc:
        raise _refuse(info.filename, f"cannot be a note ({exc.message})") from None
    return text


# --- importing ---------------------------------------------------------------------------------


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    renamed: list[dict[str, str]] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "skipped": self.skipped,
            "replaced": self.replaced,
            "ignored": self.ignored,
            "renamed": self.renamed,
        }


class _Raced(Exception):
    """Another writer changed a note the import decided on: the transaction is rolled back
    and the import starts again from the check of what exists."""


def free_name(path: str, taken: Callable[[str], bool]) -> str:
    """`name-1.md`, `name-2.md` ... beside `path`: the first that `taken` says is free."""
    folder, _, leaf = path.rpartition("/")
    stem, dot, suffix = leaf.rpartition(".")
    if not stem:
        stem, dot, suffix = leaf, "", ""
    for n in range(1, MAX_ENTRIES + 2):
        candidate = f"{stem}-{n}{dot}{suffix}"
        candidate = f"{folder}/{candidate}" if folder else candidate
        if not taken(candidate):
            return documents.valid_path(candidate)
    raise Conflict("No free name was found for an imported note.")  # pragma: no cover


def zip_name(filename: str | None) -> str:
    """The uploaded file's name as the revisions' source name: its last segment, in NFC,
    `import.zip` when it is missing or not a name that can be shown."""
    name = unicodedata.normalize("NFC", (filename or "").replace("\\", "/").rsplit("/", 1)[-1])
    if not name or character_problem(name) or not storable(name) or len(name) > 255:
        return "import.zip"
    return name


def import_zip(
    db: Session,
    *,
    workspace_id: str,
    file: IO[bytes],
    source: Source,
    on_conflict: OnConflict = "skip",
    max_note_bytes: int,
    now: datetime | None = None,
) -> ImportReport:
    """Import a zip into the workspace; every note is written in one transaction that is
    committed at the end (nothing is written when any entry is refused)."""
    if on_conflict not in ON_CONFLICT:
        raise BadRequest("onConflict must be skip, rename or replace.")
    zf = open_zip(file)
    with zf:
        plan = check_archive(zf, max_note_bytes=max_note_bytes)
        for attempt in range(_MAX_ATTEMPTS):
            try:
                return _write(
                    db,
                    zf=zf,
                    plan=plan,
                    workspace_id=workspace_id,
                    source=source,
                    on_conflict=on_conflict,
                    max_note_bytes=max_note_bytes,
                    now=now or utcnow(),
                )
            except _Raced:
                db.rollback()
            except BaseException:
                db.rollback()
                raise
    raise Conflict("Notes kept changing while importing; nothing was imported. Try again.")


def _existing_paths(db: Session, workspace_id: str) -> set[str]:
    return set(db.scalars(select(Document.path).where(Document.workspace_id == workspace_id)))


def _write(
    db: Session,
    *,
    zf: zipfile.ZipFile,
    plan: Plan,
    workspace_id: str,
    source: Source,
    on_conflict: OnConflict,
    max_note_bytes: int,
    now: datetime,
) -> ImportReport:
    report = ImportReport(ignored=list(plan.ignored))
    existing = _existing_paths(db, workspace_id)
    planned = {path for _, path in plan.notes}
    creating: list[tuple[str, str]] = []  # (path, text) waiting for the next batch insert
    waiting = 0  # their bytes
    for info, path in plan.notes:
        if path in existing:
            if on_conflict == "skip":
                report.skipped.append(path)
                continue
            if on_conflict == "replace":
                text = note_text(info, read_entry(zf, info), max_note_bytes=max_note_bytes)
                _replace(
                    db, workspace_id=workspace_id, path=path, text=text, source=source, now=now
                )
                report.replaced.append(path)
                continue
            to = free_name(path, lambda p: p in existing or p in planned)
            planned.add(to)
            report.renamed.append({"from": path, "to": to})
            path = to
        else:
            report.imported.append(path)
        text = note_text(info, read_entry(zf, info), max_note_bytes=max_note_bytes)
        creating.append((path, text))
        waiting += info.file_size
        if len(creating) >= _INSERT_BATCH or waiting >= _INSERT_BYTES:
            _insert(db, workspace_id=workspace_id, notes=creating, source=source, now=now)
            creating, waiting = [], 0
    _insert(db, workspace_id=workspace_id, notes=creating, source=source, now=now)
    _put_attachments(
        db,
        zf=zf,
        plan=plan,
        workspace_id=workspace_id,
        user_id=source.user_id,
        on_conflict=on_conflict,
        report=report,
        now=now,
    )
    db.commit()
    return report


def _put_attachments(
    db: Session,
    *,
    zf: zipfile.ZipFile,
    plan: Plan,
    workspace_id: str,
    user_id: int | None,
    on_conflict: OnConflict,
    report: ImportReport,
    now: datetime,
) -> None:
    """Store the zip's images and PDFs at their paths (in the open transaction). Free paths
    are inserted together (`_insert_attachments`); a taken one goes through
    services.attachments' own rules. A path holding the very same bytes counts as skipped
    whatever `on_conflict` says."""
    if not plan.attachments:
        return
    existing = {a.path for a in attachments.list_attachments(db, workspace_id=workspace_id)}
    free: list[tuple[str, bytes]] = []
    for info, path in plan.attachments:
        if path not in existing:
            free.append((path, read_entry(zf, info)))
            report.imported.append(path)
            continue
        if on_conflict == "skip":
            report.skipped.append(path)
            continue
        before = attachments.find_attachment(db, workspace_id=workspace_id, path=path)
        put = attachments.put_attachment(
            db,
            workspace_id=workspace_id,
            path=path,
            data=read_entry(zf, info),
            user_id=user_id,
            now=now,
            on_taken="replace" if on_conflict == "replace" else "rename",
        )
        if before is not None and before.sha256 == put.sha256:
            report.skipped.append(path)  # the same file is there already
        elif put.path != path:
            report.renamed.append({"from": path, "to": put.path})
        else:
            report.replaced.append(path)
    _insert_attachments(db, workspace_id=workspace_id, files=free, user_id=user_id, now=now)


def _insert_attachments(
    db: Session,
    *,
    workspace_id: str,
    files: list[tuple[str, bytes]],
    user_id: int | None,
    now: datetime,
) -> None:
    """Insert attachments at paths that were free when read (a racer taking one meanwhile
    starts the import again), each file's bytes once (services.attachments' storage)."""
    if not files:
        return
    hashes = [hashlib.sha256(data).hexdigest() for _, data in files]
    have = set(
        db.scalars(
            select(AttachmentBlob.sha256).where(
                AttachmentBlob.workspace_id == workspace_id, AttachmentBlob.sha256.in_(hashes)
            )
        )
    )
    blobs: dict[str, bytes] = {}
    for sha256, (_, data) in zip(hashes, files, strict=True):
        if sha256 not in have:
            blobs.setdefault(sha256, data)
    try:
        if blobs:
            db.execute(
                insert(AttachmentBlob),
                [
                    {"workspace_id": workspace_id, "sha256": h, "bytes": len(d), "data": d}
                    for h, d in blobs.items()
                ],
            )
        db.execute(
            insert(Attachment),
            [
                {
                    "workspace_id": workspace_id,
                    "path": path,
                    "path_sha256": path_key(path),
                    "sha256": sha256,
                    "bytes": len(data),
                    "content_type": attachments.content_type_for(path),
                    "created_by": user_id,
                    "created_at": now,
                }
                for sha256, (path, data) in zip(hashes, files, strict=True)
            ],
        )
    except IntegrityError:  # an upload took one of these paths (or stored these bytes)
        raise _Raced() from None


def _insert(
    db: Session,
    *,
    workspace_id: str,
    notes: Sequence[tuple[str, str]],
    source: Source,
    now: datetime,
) -> None:
    """Insert new notes (revision 1) in one statement and record each one's `saved` event
    (the same event a page's save records, SPEC §13), all in a few statements."""
    if not notes:
        return
    create = source.as_action("create")
    rows = [
        {
            "workspace_id": workspace_id,
            "path": path,
            "path_sha256": path_key(path),
            "content": text,
            "bytes": len(text.encode("utf-8")),
            "revision": 1,
            "uid": new_uid(),
            "saved_by": create.user_id,
            "source_kind": create.kind,
            "source_name": create.name,
            "action": create.action,
            "run_started_at": now,
            "updated_at": now,
        }
        for path, text in notes
    ]
    try:
        db.execute(insert(Document), rows)
    except IntegrityError:  # a note was created at one of these paths meanwhile
        raise _Raced() from None
    events.record_many(
        db,
        workspace_id=workspace_id,
        kind="saved",
        items=[
            {
                "path": row["path"],
                "revision": 1,
                "bytes": row["bytes"],
                "sha256": sha256_prefix(text.encode("utf-8")),
                "source": create.public(),
            }
            for row, (_, text) in zip(rows, notes, strict=True)
        ],
        now=now,
    )


def _replace(
    db: Session, *, workspace_id: str, path: str, text: str, source: Source, now: datetime
) -> None:
    """Save `text` over the note at `path` as a new revision (the replaced text is kept)."""
    head: Head | None = documents.head_of(db, workspace_id=workspace_id, path=path)
    if head is None:
        raise _Raced()
    old = db.scalar(
        select(Document.content).where(Document.id == head.id, Document.revision == head.revision)
    )
    if old is None:
        raise _Raced()
    doc = documents.replace_text(
        db,
        head=head,
        old_text=old,
        content=text,
        size=len(text.encode("utf-8")),
        source=source.as_action("edit"),
        now=now,
    )
    if doc is None:  # replace_text rolled the transaction back
        raise _Raced()


# --- exporting ---------------------------------------------------------------------------------


class _Drain:
    """A write-only stream for ZipFile: it holds what was written until `take` empties it.

    It has no `tell` or `seek`, so zipfile writes each entry's sizes in a data descriptor
    after its data instead of going back to its header: the zip can be sent as it is made.
    """

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> int:
        self._parts.append(bytes(data))
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        self.size = 0
        return data


@dataclass(frozen=True)
class ExportList:
    """What an export sends: note ids and attachment ids, each in batches (path order)."""

    batches: list[list[int]]
    attachment_batches: list[list[int]]

    @property
    def notes(self) -> int:
        return sum(map(len, self.batches))

    @property
    def attachments(self) -> int:
        return sum(map(len, self.attachment_batches))


def _batched(rows: Any, folder: str | None) -> list[list[int]]:
    """(id, path, bytes) rows in batches of at most _EXPORT_BATCH rows and _BATCH_BYTES (or
    one larger row alone), leaving out those outside `folder`."""
    batches: list[list[int]] = []
    size = 0
    for row_id, path, nbytes in rows:
        if not under_folder(path, folder):
            continue
        if not batches or size + nbytes > _BATCH_BYTES or len(batches[-1]) >= _EXPORT_BATCH:
            batches.append([])
            size = 0
        batches[-1].append(row_id)
        size += nbytes
    return batches


def export_list(db: Session, *, workspace_id: str, folder: str | None) -> ExportList:
    """The notes and the attachments to export (by id, in batches: see `_batched`), in path
    order; the read ends here."""
    notes = db.execute(
        select(Document.id, Document.path, Document.bytes)
        .where(Document.workspace_id == workspace_id)
        .order_by(Document.path)
    )
    batches = _batched(notes, folder)
    files = db.execute(
        select(Attachment.id, Attachment.path, Attachment.bytes)
        .where(Attachment.workspace_id == workspace_id)
        .order_by(Attachment.path)
    )
    listing = ExportList(batches, _batched(files, folder))
    db.rollback()
    return listing


def _zip_time(when: datetime) -> tuple[int, int, int, int, int, int]:
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    when = max(when.replace(tzinfo=None), datetime(1980, 1, 1))
    return (when.year, when.month, when.day, when.hour, when.minute, when.second)


def _entry(path: str, when: datetime, *, stored: bool = False) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(path, date_time=_zip_time(when))
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    info.external_attr = 0o100644 << 16
    return info


def export_chunks(
    open_session: Callable[[], Session], *, workspace_id: str, listing: ExportList
) -> Iterator[bytes]:
    """The zip of `listing`, produced as it is sent: what the entries written so far add up
    to is yielded once it passes _SEND_BYTES (a large entry at once). Notes are deflated and
    attachments read a batch at a time, each batch in a short read of its own;
    images and PDFs are stored as they are. A note or attachment deleted meanwhile is left
    out; one changed meanwhile is sent as it is when it is read."""
    sink = _Drain()
    now = utcnow()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for batch in listing.batches:
            with open_session() as db:
                rows = db.execute(
                    select(Document.path, Document.content, Document.updated_at)
                    .where(Document.id.in_(batch))
                    .order_by(Document.path)
                ).all()
                db.rollback()
            for path, content, updated_at in rows:
                zf.writestr(_entry(path, updated_at), content.encode("utf-8"))
                if sink.size >= _SEND_BYTES:
                    yield sink.take()
            del rows
        for batch in listing.attachment_batches:
            with open_session() as db:
                files = db.execute(
                    select(Attachment.path, AttachmentBlob.data)
                    .join(
                        AttachmentBlob,
                        (AttachmentBlob.workspace_id == Attachment.workspace_id)
                        & (AttachmentBlob.sha256 == Attachment.sha256),
                    )
                    .where(Attachment.workspace_id == workspace_id, Attachment.id.in_(batch))
                    .order_by(Attachment.path)
                ).all()
                db.rollback()
            for path, data in files:
                stored = path.rpartition(".")[2].lower() in STORED_TYPES
                zf.writestr(_entry(path, now, stored=stored), bytes(data))
                if sink.size >= _SEND_BYTES:
                    yield sink.take()
            del files
    yield sink.take()


def download_name(workspace_id: str, folder: str | None) -> str:
    """`<ws>.zip`, or `<ws>-<folder's last name>.zip` for a folder."""
    if folder is None:
        return f"{workspace_id}.zip"
    return f"{workspace_id}-{folder.rsplit('/', 1)[-1]}.zip"

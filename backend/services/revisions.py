"""Note history (SPEC §15): the text each change replaced, compressed, with who and when.

Storage: every kept text is zstd-compressed. A *keyframe* row holds a whole text; the other
rows hold a delta, i.e. the text compressed with its keyframe's text as a raw-content
dictionary, so an edit of a 1 MiB note costs about the size of the edit. A new keyframe is
written every KEYFRAME_EVERY rows, or when a delta grows past half its keyframe's size.
Reading a revision decompresses at most two bodies, and usually one: a keyframe never changes
once written, so its decompressed text is kept in a small per-process cache (`_keyframe_cache`,
bounded by bytes) together with its compression dictionary, which spares a kept save and the
opening of a delta revision the keyframe's read, its decompression and the dictionary's load.

Typing is not history: a page save by the same user within COALESCE of the first save of the
run replaces the current revision's text without keeping it (see `coalesces`).
Retention: the newest KEEP_AT_LEAST rows and every row of the last KEEP_DAYS days are kept;
older rows are pruned when a note's row count passes KEEP_AT_LEAST, never a keyframe that a
kept row still needs. A deleted note's rows are kept KEEP_DAYS days after the delete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import zstandard
from sqlalchemy import Row, bindparam, delete, func, select, update
from sqlalchemy.orm import Session, aliased

from ambient.pointer import sha256_prefix
from backend.models import User, path_key
from backend.models.history import NoteRevision
from backend.services import caches
from backend.services.caches import Bounded
from backend.services.source import Source

COALESCE = timedelta(minutes=5)
KEEP_AT_LEAST = 100
KEEP_DAYS = 30
KEYFRAME_EVERY = 50
_SMALL = 4096  # below this a whole text costs about what a delta does
_LEVEL = 3
_MAX_WINDOW = 1 << 27
_CACHE_BYTES = 48 << 20  # per app; a 1 MiB keyframe counts 3 MiB (see _keyframe_cache)


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


_KeyframeKey = tuple[int, str, int, str]  # row id, note uid, revision, sha256 prefix of the text


class _Keyframe:
    """A keyframe's text and its zstd dictionary, compression tables loaded on first use."""

    __slots__ = ("dictionary", "text")

    def __init__(self, text: bytes) -> None:
        self.text = text
        self.dictionary = zstandard.ZstdCompressionDict(
            text, dict_type=zstandard.DICT_TYPE_RAWCONTENT
        )
        # Loading a 1 MiB dictionary into the compressor's tables is most of a delta's cost;
        # done once here, the tables are read-only and shared by every compressor (and thread).
        self.dictionary.precompute_compress(level=_LEVEL)


def _keyframe_cost(entry: _Keyframe) -> int:
    return 3 * len(entry.text)


def _keyframe_cache(limit: int) -> Bounded[_KeyframeKey, _Keyframe]:
    """A keyframe cache of `limit` bytes, as `keyframes` keeps one per app."""
    return Bounded(limit, cost=_keyframe_cost)


def keyframes(db: Session) -> Bounded[_KeyframeKey, _Keyframe]:
    """Decompressed keyframes, at most _CACHE_BYTES, least recently used dropped first.

    A keyframe row is never updated, so a cached text is right in every process for as long
    as the row exists; the key is the row's id with its note, revision and text hash, so a
    row id that SQLite reuses after a rollback or a prune never finds another row's text.
    An entry counts three times its text: the text, the dictionary's copy and its tables.
    """
    return caches.of(db).map("keyframes", _CACHE_BYTES, cost=_keyframe_cost)


def _compress(data: bytes, base: _Keyframe | None) -> bytes:
    if base is None:
        return zstandard.ZstdCompressor(level=_LEVEL).compress(data)
    return zstandard.ZstdCompressor(dict_data=base.dictionary).compress(data)


def _decompress(body: bytes, base: bytes | None) -> bytes:
    if base is None:
        return zstandard.ZstdDecompressor(max_window_size=_MAX_WINDOW).decompress(body)
    # A fresh dictionary per call (referencing `base`, ~0.1 ms): a shared one would build its
    # decompression table lazily from several threads at once.
    dictionary = zstandard.ZstdCompressionDict(base, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    return zstandard.ZstdDecompressor(dict_data=dictionary, max_window_size=_MAX_WINDOW).decompress(
        body
    )


def _keyframe(db: Session, key: _KeyframeKey) -> _Keyframe:
    """The keyframe `key` names, from the cache or read, decompressed and cached."""
    entry = keyframes(db).get(key)
    if entry is not None:
        return entry
    body = db.scalar(select(NoteRevision.body).where(NoteRevision.id == key[0]))
    if body is None:  # prune never drops a keyframe that a kept row still needs
        raise LookupError(f"history keyframe {key[0]} is gone")
    return keyframes(db).put(key, _Keyframe(_decompress(body, None)))


# Built once (with bind parameters): composing these per call, the alias especially, cost
# more than running them.
KEYFRAME = _frame = aliased(NoteRevision, name="keyframe")  # a kept row's keyframe, joined
_LATEST_KEYFRAME = (
    select(
        _frame.id,
        _frame.revision,
        _frame.sha256,
        _frame.bytes,
        func.length(_frame.body),
        select(func.count(NoteRevision.id))
        .where(
            NoteRevision.document_uid == _frame.document_uid,
            NoteRevision.revision > _frame.revision,
        )
        .scalar_subquery(),
    )
    .where(_frame.document_uid == bindparam("uid"), _frame.base_id.is_(None))
    .order_by(_frame.revision.desc())
    .limit(1)
)
_TEXT_AT = (
    select(NoteRevision.body, NoteRevision.base_id, _frame.revision, _frame.sha256)
    .outerjoin(_frame, _frame.id == NoteRevision.base_id)
    .where(NoteRevision.document_uid == bindparam("uid"))
    .where(NoteRevision.revision == bindparam("revision"))
)


def _encode(db: Session, uid: str, data: bytes) -> tuple[int | None, bytes, bool]:
    """(base_id, body, whether body is a keyframe of `data` worth caching) for a new row of
    note `uid`: a delta when a fitting keyframe exists."""
    if len(data) < _SMALL:
        return None, _compress(data, None), False
    latest = db.execute(_LATEST_KEYFRAME, {"uid": uid}).first()
    if latest is not None:
        frame_id, revision, sha256, size, stored, count = latest
        if (count or 0) < KEYFRAME_EVERY and size >= _SMALL:
            base = _keyframe(db, (frame_id, uid, revision, sha256))
            body = _compress(data, base)
            if len(body) <= stored // 2:
                return frame_id, body, False
    return None, _compress(data, None), True


def keep(db: Session, *, head: Head, text: str, gone_at: datetime | None = None) -> None:
    """Store `text`, the text of revision `head.revision`, as history (in the open transaction)."""
    data = text.encode("utf-8")
    base_id, body, keyframe = _encode(db, head.uid, data)
    sha256 = sha256_prefix(data)
    row = NoteRevision(
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
        sha256=sha256,
        base_id=base_id,
        body=body,
        gone_at=gone_at,
    )
    db.add(row)
    db.flush()
    if keyframe:  # the next kept save of this note compresses against it: spare it the read
        keyframes(db).put((row.id, head.uid, head.revision, sha256), _Keyframe(data))


def text_of(db: Session, row: NoteRevision) -> str:
    """The full text a history row holds."""
    base = None
    if row.base_id is not None:
        frame = db.execute(
            select(NoteRevision.revision, NoteRevision.sha256).where(NoteRevision.id == row.base_id)
        ).first()
        if frame is None:  # prune never drops a keyframe that a kept row still needs
            raise LookupError(f"history row {row.id} lost its keyframe {row.base_id}")
        base = _keyframe(db, (row.base_id, row.document_uid, frame.revision, frame.sha256)).text
    return _decompress(row.body, base).decode("utf-8")


def text_at(db: Session, *, uid: str, revision: int) -> str | None:
    """The text of revision `revision` of note `uid`, None when it is not kept: one query for
    the row and its keyframe's key, the keyframe itself usually from the cache."""
    found = db.execute(_TEXT_AT, {"uid": uid, "revision": revision}).first()
    if found is None:
        return None
    return decode(db, uid=uid, row=found)


def decode(db: Session, *, uid: str, row: Sequence[Any]) -> str:
    """The text of a row read as (body, base_id, KEYFRAME.revision, KEYFRAME.sha256) of note
    `uid`, KEYFRAME outer-joined on base_id (as `text_at` reads it)."""
    body, base_id, frame_revision, frame_sha256 = row
    base = None
    if base_id is not None:
        if frame_revision is None:  # prune never drops a keyframe that a kept row still needs
            raise LookupError(f"history row of {uid} lost its keyframe {base_id}")
        base = _keyframe(db, (base_id, uid, frame_revision, frame_sha256)).text
    return _decompress(body, base).decode("utf-8")


# In history.Entry's order (it is built from these rows positionally), the author's username
# joined in.
_ROWS_FOR = (
    select(
        NoteRevision.revision,
        NoteRevision.saved_at,
        NoteRevision.bytes,
        NoteRevision.sha256,
        NoteRevision.source_kind,
        NoteRevision.source_name,
        NoteRevision.user_id,
        User.username,
        NoteRevision.action,
        NoteRevision.path,
    )
    .outerjoin(User, User.id == NoteRevision.user_id)
    .where(NoteRevision.document_uid == bindparam("uid"))
    .order_by(NoteRevision.revision.desc())
)


def rows_for(db: Session, *, uid: str) -> list[Row[Any]]:
    """A note's history rows, newest first: the listed columns only (no body) and the
    author's `username`, as plain rows (revision, saved_at, bytes, sha256, source_kind,
    source_name, user_id, username, action, path), since building an ORM object per row was
    most of a listing's cost."""
    return list(db.execute(_ROWS_FOR, {"uid": uid}))


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

"""The sharing switch and the pointers each window publishes (SPEC §10); never note text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ambient import pointer as codec
from backend.db import storable
from backend.errors import Conflict
from backend.models.outside_agents import ActiveNotePublication, ActiveNoteSharing

# A window publishes at least every 2 minutes while visible; a publication older than this
# belongs to a window that is gone or asleep and no longer names the user's active note.
FRESH_FOR = timedelta(minutes=10)
SHARING_OFF = "Sharing the active note is switched off. Switch it on in the page's settings first."


@dataclass(frozen=True)
class ActiveNote:
    """The user's active note as the latest window published it."""

    workspace_id: str
    window_id: str
    pointer: codec.Pointer
    refreshed_at: datetime


def is_enabled(db: Session, *, user_id: int) -> bool:
    row = db.get(ActiveNoteSharing, user_id)
    return bool(row and row.enabled)


def set_enabled(db: Session, *, user_id: int, enabled: bool, now: datetime) -> None:
    """Switch sharing; switching off forgets every published pointer in the same commit."""
    row = db.get(ActiveNoteSharing, user_id)
    if row is None:
        db.add(ActiveNoteSharing(user_id=user_id, enabled=enabled, updated_at=now))
    else:
        row.enabled = enabled
        row.updated_at = now
    if not enabled:
        db.execute(delete(ActiveNotePublication).where(ActiveNotePublication.user_id == user_id))
    db.commit()


def publish(
    db: Session,
    *,
    user_id: int,
    window_id: str,
    workspace_id: str,
    pointer: codec.Pointer | None,
    now: datetime,
) -> None:
    """Store (or, for None, withdraw) one window's pointer; Conflict while sharing is off.

    Repeating the window's current pointer unchanged (a heartbeat) only refreshes it; anything
    else also makes this window the most recently chosen one.
    """
    try:
        _publish(db, user_id, window_id, workspace_id, pointer, now)
    except IntegrityError:  # the same window's first two publications raced: apply again
        db.rollback()
        _publish(db, user_id, window_id, workspace_id, pointer, now)


def _publish(
    db: Session,
    user_id: int,
    window_id: str,
    workspace_id: str,
    pointer: codec.Pointer | None,
    now: datetime,
) -> None:
    if not is_enabled(db, user_id=user_id):
        raise Conflict(SHARING_OFF)
    # Windows that went away without their null publication are forgotten here.
    db.execute(
        delete(ActiveNotePublication).where(
            ActiveNotePublication.user_id == user_id,
            ActiveNotePublication.refreshed_at <= now - FRESH_FOR,
        )
    )
    row = db.get(ActiveNotePublication, (user_id, window_id))
    if pointer is None:
        if row is not None:
            db.delete(row)
        db.commit()
        return
    meta = codec.meta_json(pointer)
    if row is None:
        db.add(
            ActiveNotePublication(
                user_id=user_id,
                window_id=window_id,
                workspace_id=workspace_id,
                pointer_path=pointer.path,
                pointer_view=pointer.view,
                pointer_meta=meta,
                chosen_at=now,
                refreshed_at=now,
            )
        )
    else:
        same = (row.workspace_id, row.pointer_path, row.pointer_view, row.pointer_meta) == (
            workspace_id,
            pointer.path,
            pointer.view,
            meta,
        )
        if not same:
            row.workspace_id = workspace_id
            row.pointer_path, row.pointer_view, row.pointer_meta = pointer.path, pointer.view, meta
            row.chosen_at = now
        row.refreshed_at = now
    db.commit()


def active_note(db: Session, *, user_id: int, now: datetime) -> ActiveNote | None:
    """The most recently chosen fresh publication of any window, or None.

    None also when sharing is off (its publications are gone then anyway).
    """
    if not is_enabled(db, user_id=user_id):
        return None
    rows = db.scalars(
        select(ActiveNotePublication)
        .where(
            ActiveNotePublication.user_id == user_id,
            ActiveNotePublication.refreshed_at > now - FRESH_FOR,
        )
        .order_by(ActiveNotePublication.chosen_at.desc(), ActiveNotePublication.window_id)
    )
    for row in rows:
        try:
            pointer = codec.from_columns(row.pointer_path, row.pointer_view, row.pointer_meta)
        except codec.PointerError:  # written by an older rule set: as good as absent
            continue
        return ActiveNote(row.workspace_id, row.window_id, pointer, row.refreshed_at)
    return None


def valid_window_id(window_id: object) -> bool:
    return storable(window_id, max_length=64) and bool(window_id)

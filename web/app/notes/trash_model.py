"""The Trash dialog's data (SPEC §18): the deleted notes as rows, and where to restore (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from app.api_model import workspace_url
from app.time_model import parse, within_a_day


def trash_url(ws: str) -> str:
    return f"{workspace_url(ws)}/trash"


def restore_url(ws: str) -> str:
    return f"{workspace_url(ws)}/trash/restore"


@dataclass(frozen=True)
class Trashed:
    """A row of the Trash: the note's path, when it was deleted (words), its size (words)."""

    path: str
    id: str
    deleted: str
    size: str


def size_text(count: int) -> str:
    """1 byte, 512 bytes, 2.0 KB, 1.5 MB."""
    if count == 1:
        return "1 byte"
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def deleted_text(stamp: str, now: datetime) -> str:
    """ "deleted just now", "deleted 3 h ago" or "deleted 2026-11-30 14:05 UTC"."""
    moment = parse(stamp)
    if moment is None:
        return "deleted"
    words = within_a_day(moment, now) or moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"deleted {words}"


def parse_trash(data: object, now: datetime) -> list[Trashed]:
    """`GET …/trash`'s answer as rows, in its order (newest delete first); bad entries skipped."""
    notes = data.get("notes") if isinstance(data, dict) else None
    rows = []
    for entry in notes if isinstance(notes, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            continue
        size = entry.get("bytes")
        rows.append(
            Trashed(
                path=entry["path"],
                id=str(entry.get("id") or ""),
                deleted=deleted_text(str(entry.get("deletedAt") or ""), now),
                size=size_text(size)
                if isinstance(size, int) and not isinstance(size, bool)
                else "",
            )
        )
    return rows


def restore_body(row: Trashed, to: str | None = None) -> dict:
    """The restore request: this very note (its id), at its path or at `to`."""
    body: dict = {"path": row.path}
    if row.id:
        body["id"] = row.id
    if to is not None and to != row.path:
        body["to"] = to
    return body


def free_path(path: str, taken: set[str]) -> str:
    """A path near `path` that no note has: notes.md → notes (restored).md, then (… 2)."""
    head, slash, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    for attempt in range(1, 1000):
        suffix = " (restored)" if attempt == 1 else f" (restored {attempt})"
        candidate = f"{head}{slash}{stem}{suffix}{'.' + ext if ext else ''}"
        if candidate not in taken:
            return candidate
    return path

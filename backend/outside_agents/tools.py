"""What the MCP tools answer: the assistant's document rules, with a token's authority.

The authority here is the token's user and their workspace membership (no delivery row,
no key session). Reading, listing, searching and their wording are the shared service's
(backend.services.notes_reading), so both channels say the same thing for the same case.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from backend.services import active_note as active_note_service
from backend.services import notes_reading as reading
from backend.services import workspaces

SHARING_OFF = "sharing_off"
NO_ACTIVE_NOTE = "no_active_note"

SHARING_OFF_TEXT = (
    "The user has not switched on sharing of their active note with outside agents, so I "
    "cannot tell which note they are looking at. They can switch it on in the notes page "
    "(settings: 'Share my active note'), or name the note so you can use read_document."
)
NO_ACTIVE_NOTE_TEXT = (
    "No note is open in the user's notes page right now (no window has reported one in the "
    "last 10 minutes). Ask the user which note they mean, or list their notes with "
    "list_documents."
)


def _no_access(workspace_id: str, db: Session, user_id: int) -> dict | None:
    """The assistant's not-a-member failure, or None when the user may read the workspace."""
    if workspaces.is_member(db, user_id=user_id, workspace_id=workspace_id):
        return None
    return reading.failure(reading.NOT_MEMBER)


def list_documents(db: Session, *, user_id: int, workspace_id: str) -> dict:
    refused = _no_access(workspace_id, db, user_id)
    if refused:
        return refused
    return reading.list_saved(db, workspace_id)


def read_document(
    db: Session, *, user_id: int, workspace_id: str, path: str, max_bytes: int | None
) -> dict:
    refused = _no_access(workspace_id, db, user_id)
    if refused:
        return refused
    result = reading.read_saved(db, workspace_id, path, reading.clamp_max_bytes(max_bytes))
    if not result["ok"]:
        return result
    framed = reading.frame(result, "Note")
    framed["workspaceId"] = workspace_id
    return framed


def search_notes(db: Session, *, user_id: int, workspace_id: str, query: str) -> dict:
    refused = _no_access(workspace_id, db, user_id)
    if refused:
        return refused
    return reading.search_saved(db, workspace_id, query)


def get_active_note(db: Session, *, user_id: int, max_bytes: int | None, now: datetime) -> dict:
    """The active note's saved copy, compared with the published bytes and sha256.

    `flushed` is not part of the comparison: a publication measures the live text, it
    does not flush saves (that is the per-turn capture's job), and once autosave has
    caught up the saved copy matches what was measured.
    """
    if not active_note_service.is_enabled(db, user_id=user_id):
        return {"ok": False, "reason": SHARING_OFF, "text": SHARING_OFF_TEXT}
    active = active_note_service.active_note(db, user_id=user_id, now=now)
    if active is None:
        return {"ok": False, "reason": NO_ACTIVE_NOTE, "text": NO_ACTIVE_NOTE_TEXT}
    refused = _no_access(active.workspace_id, db, user_id)
    if refused:
        return refused
    pointer = active.pointer
    result = reading.read_saved(
        db, active.workspace_id, pointer.path, reading.clamp_max_bytes(max_bytes)
    )
    if not result["ok"]:
        return result
    reading.compare_with_pointer(result, pointer, need_flushed=False)
    framed = reading.frame(result, reading.ACTIVE_HEADING)
    framed.update(
        workspaceId=active.workspace_id,
        view=pointer.view,
        selection=reading.selection_of(pointer),
        publishedAt=active.refreshed_at.isoformat().replace("+00:00", "Z"),
    )
    return framed

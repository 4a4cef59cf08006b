"""What the MCP tools answer: the assistant's document rules, with a token's authority.

The authority here is the token's user and their workspace membership (no delivery row,
no key session), narrowed by the token's reach (SPEC §14): a workspace outside it answers
like one the user is not a member of, a note outside its folder like a missing note.
Reading, listing, searching and their wording are the shared service's
(backend.services.notes_reading), so both channels say the same thing for the same case.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from ambient.paths import PathError, normalize_path
from backend.services import active_note as active_note_service
from backend.services import notes_reading as reading
from backend.services import workspaces
from backend.services.tokens import WRITE, Authority

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


def no_access(db: Session, auth: Authority, workspace_id: str, path: object = None) -> dict | None:
    """The assistant's failure for a workspace (or note) the token may not reach, else None.

    A workspace outside the token's reach answers as one the user is not a member of; a
    note outside its folder as a missing note (nothing tells the agent that it exists).
    """
    if not auth.reaches(workspace_id) or not workspaces.is_member(
        db, user_id=auth.user_id, workspace_id=workspace_id
    ):
        return reading.failure(reading.NOT_MEMBER)
    if path is None:
        return None
    try:
        nfc = normalize_path(path)
    except PathError:
        return reading.failure(reading.BAD_PATH)
    return None if auth.reaches(workspace_id, nfc) else reading.failure(reading.MISSING_DOCUMENT)


def no_write_access(
    db: Session, auth: Authority, workspace_id: str, path: object = None
) -> dict | None:
    """As `no_access`, and a reader's failure when the user may not change the workspace's
    notes (SPEC §17): a write tool's first check."""
    refused = no_access(db, auth, workspace_id, path)
    if refused is not None:
        return refused
    role = workspaces.role_of(db, user_id=auth.user_id, workspace_id=workspace_id)
    if not workspaces.allows(role, workspaces.EDITOR):
        return reading.failure(reading.READ_ONLY)
    return None


def _reached(auth: Authority, workspace_id: str):
    return lambda path: auth.reaches(workspace_id, path)


def list_documents(db: Session, *, auth: Authority, workspace_id: str) -> dict:
    refused = no_access(db, auth, workspace_id)
    if refused:
        return refused
    return reading.list_saved(db, workspace_id, keep=_reached(auth, workspace_id))


def read_document(
    db: Session, *, auth: Authority, workspace_id: str, path: str, max_bytes: int | None
) -> dict:
    refused = no_access(db, auth, workspace_id, path)
    if refused:
        return refused
    result = reading.read_saved(db, workspace_id, path, reading.clamp_max_bytes(max_bytes))
    if not result["ok"]:
        return result
    framed = with_sha256(reading.frame(result, "Note"), result, auth)
    framed["workspaceId"] = workspace_id
    return framed


def with_sha256(framed: dict, result: dict, auth: Authority) -> dict:
    """Add the whole saved copy's sha256 prefix, which edit_note takes as its baseSha256."""
    framed["sha256"] = result["_sha256"]
    if auth.allows(WRITE):
        framed["text"] += (
            f"\n\n(Saved copy: revision {result['revision']}, sha256 {result['_sha256']}; "
            "give this sha256 as edit_note's baseSha256.)"
        )
    return framed


def search_notes(db: Session, *, auth: Authority, workspace_id: str, query: str) -> dict:
    refused = no_access(db, auth, workspace_id)
    if refused:
        return refused
    return reading.search_saved(db, workspace_id, query, keep=_reached(auth, workspace_id))


def active_or_failure(
    db: Session, auth: Authority, now: datetime
) -> active_note_service.ActiveNote | dict:
    """The user's active note when sharing is on and the token reaches it, else the failure."""
    if not active_note_service.is_enabled(db, user_id=auth.user_id):
        return {"ok": False, "reason": SHARING_OFF, "text": SHARING_OFF_TEXT}
    active = active_note_service.active_note(db, user_id=auth.user_id, now=now)
    if active is None:
        return {"ok": False, "reason": NO_ACTIVE_NOTE, "text": NO_ACTIVE_NOTE_TEXT}
    return no_access(db, auth, active.workspace_id, active.pointer.path) or active


def get_active_note(db: Session, *, auth: Authority, max_bytes: int | None, now: datetime) -> dict:
    """The active note's saved copy, compared with the published bytes and sha256.

    `flushed` is not part of the comparison: a publication measures the live text, it
    does not flush saves (that is the per-turn capture's job), and once autosave has
    caught up the saved copy matches what was measured.
    """
    active = active_or_failure(db, auth, now)
    if isinstance(active, dict):
        return active
    pointer = active.pointer
    result = reading.read_saved(
        db, active.workspace_id, pointer.path, reading.clamp_max_bytes(max_bytes)
    )
    if not result["ok"]:
        return result
    reading.compare_with_pointer(result, pointer, need_flushed=False)
    framed = with_sha256(reading.frame(result, reading.ACTIVE_HEADING), result, auth)
    framed.update(
        workspaceId=active.workspace_id,
        view=pointer.view,
        selection=reading.selection_of(pointer),
        publishedAt=active.refreshed_at.isoformat().replace("+00:00", "Z"),
    )
    return framed

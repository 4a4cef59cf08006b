"""The agent's tools (SPEC §5): each call re-reads the delivery row and acts with its authority."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ambient import edits as edit_rules
from ambient import pointer as codec
from ambient.contract import MAX_NOTE_BYTES
from ambient.paths import PathError, check_path
from backend.db import utcnow
from backend.models import AgentDeliveryCredential
from backend.services import key_sessions, proposals, workspaces
from backend.services.notes_reading import (  # re-exported: the tools' answers and reasons
    ACTIVE_HEADING,
    BAD_PATH,
    CAVEAT,
    DEFAULT_MAX_BYTES,  # noqa: F401 (re-exported)
    EXPIRED,
    KEY_SESSION_INVALID,
    MAX_MAX_BYTES,  # noqa: F401 (re-exported)
    MISSING_DOCUMENT,  # noqa: F401 (re-exported)
    NO_KEY_SESSION,
    NO_POINTER,
    NO_ROW,
    NOT_MEMBER,
    READ_ONLY,
    access_failure_message,  # noqa: F401 (re-exported)
    clamp_max_bytes,
    compare_with_pointer,
    failure,
    frame,
    list_saved,
    read_saved,
    search_saved,
    selection_of,
)

log = logging.getLogger("ambient.assistant.tools")

NO_POINTER_TEXT = (
    "No note is open in the user's workspace right now, so there is no active note to read. "
    "Ask the user which note they mean (by name), or offer to list their notes with "
    "list_documents."
)
AMBIENT_OFF_TEXT = (
    'The user has switched off sharing the open note ("this note") with the assistant for '
    "this conversation, so there is no active note to read. Tell them so: ask them to name "
    'the note, or to switch "this note" back on with the chip above the chat.'
)


class ToolArgumentError(ValueError):
    """The arguments object does not fit the tool's schema (HTTP 422)."""


class UnknownTool(LookupError):
    """No tool has that name (HTTP 404)."""


@dataclass
class ToolContext:
    """Who is calling, for which conversation; the authority itself is re-read on each call."""

    db: Session
    conversation_id: str
    user_id: int
    now: Callable[[], datetime] = utcnow
    # The turn said the user switched "this note" off (X-Ambient-Off): only the wording of
    # the no-note answer changes; the row (without a pointer) is the authority as always.
    ambient_off: bool = False
    max_note_bytes: int = MAX_NOTE_BYTES  # the server's limit (settings), where the caller knows it


@dataclass(frozen=True)
class _Authority:
    workspace_id: str
    ambient_path: str | None
    ambient_view: str | None
    ambient_meta: str | None


def _authorize(ctx: ToolContext) -> _Authority | dict:
    """Re-read the delivery row (never cached) and check everything it stands for."""
    now = ctx.now()
    row = ctx.db.execute(
        select(
            AgentDeliveryCredential.user_id,
            AgentDeliveryCredential.workspace_id,
            AgentDeliveryCredential.key_session_id,
            AgentDeliveryCredential.expires_at,
            AgentDeliveryCredential.ambient_path,
            AgentDeliveryCredential.ambient_view,
            AgentDeliveryCredential.ambient_meta,
        ).where(AgentDeliveryCredential.conversation_id == ctx.conversation_id)
    ).first()
    if row is None or row.user_id != ctx.user_id:
        return failure(NO_ROW)
    if row.expires_at <= now:
        return failure(EXPIRED)
    if row.key_session_id is None:
        return failure(NO_KEY_SESSION)
    key = key_sessions.get_valid(
        ctx.db,
        key_session_id=row.key_session_id,
        user_id=row.user_id,
        workspace_id=row.workspace_id,
        now=now,
    )
    if key is None:
        return failure(KEY_SESSION_INVALID)
    if not workspaces.is_member(ctx.db, user_id=row.user_id, workspace_id=row.workspace_id):
        return failure(NOT_MEMBER)
    return _Authority(row.workspace_id, row.ambient_path, row.ambient_view, row.ambient_meta)


def list_documents(ctx: ToolContext) -> dict:
    auth = _authorize(ctx)
    if isinstance(auth, dict):
        return auth
    return list_saved(ctx.db, auth.workspace_id)


def read_document(ctx: ToolContext, path: str, max_bytes: int | None = None) -> dict:
    auth = _authorize(ctx)
    if isinstance(auth, dict):
        return auth
    result = read_saved(ctx.db, auth.workspace_id, path, clamp_max_bytes(max_bytes))
    return frame(result, "Note") if result["ok"] else result


def _no_pointer(ctx: ToolContext) -> dict:
    if ctx.ambient_off:
        return {"ok": False, "reason": NO_POINTER, "ambientOff": True, "text": AMBIENT_OFF_TEXT}
    return {"ok": False, "reason": NO_POINTER, "text": NO_POINTER_TEXT}


def _active_pointer(ctx: ToolContext, auth: _Authority) -> codec.Pointer | dict:
    """The delivery row's pointer, or read_active_note's failure when there is none."""
    if auth.ambient_path is None:
        return _no_pointer(ctx)
    try:
        check_path(auth.ambient_path)
    except PathError:
        return failure(BAD_PATH)  # the same failure read_document gives for that path
    try:
        return codec.from_columns(auth.ambient_path, auth.ambient_view, auth.ambient_meta)
    except codec.PointerError:  # unreadable metadata: as good as no pointer
        return _no_pointer(ctx)


def read_active_note(ctx: ToolContext, max_bytes: int | None = None) -> dict:
    auth = _authorize(ctx)
    if isinstance(auth, dict):
        return auth
    pointer = _active_pointer(ctx, auth)
    if isinstance(pointer, dict):
        return pointer
    result = read_saved(ctx.db, auth.workspace_id, pointer.path, clamp_max_bytes(max_bytes))
    if not result["ok"]:
        return result
    compare_with_pointer(result, pointer, need_flushed=True)
    result["view"] = pointer.view
    result["selection"] = selection_of(pointer)
    return frame(result, ACTIVE_HEADING)


def _nfc(path: str) -> str:
    """Paths name one note in any Unicode spelling (stored and looked up in NFC)."""
    return unicodedata.normalize("NFC", path) if isinstance(path, str) else path


def propose_edit(ctx: ToolContext, edits: list[dict], path: str | None = None) -> dict:
    """Store a proposal for the note at `path` (default: the active note); never writes it.

    Success carries proposalId, path, baseRevision, a unified diff, and stale/caveat as
    read_active_note would give them for that note (only the pointer's note can be stale).
    """
    auth = _authorize(ctx)
    if isinstance(auth, dict):
        return auth
    role = workspaces.role_of(ctx.db, user_id=ctx.user_id, workspace_id=auth.workspace_id)
    if not workspaces.allows(role, workspaces.EDITOR):
        return failure(READ_ONLY)  # a reader chats with the read tools only (SPEC §17)
    pointer = None
    if path is None:
        pointer = _active_pointer(ctx, auth)
        if isinstance(pointer, dict):
            return pointer
        path = pointer.path
    elif auth.ambient_path is not None and _nfc(auth.ambient_path) == _nfc(path):
        found = _active_pointer(ctx, auth)
        pointer = None if isinstance(found, dict) else found
    try:
        made = proposals.propose(
            ctx.db,
            workspace_id=auth.workspace_id,
            path=path,
            edits=edits,
            max_bytes=ctx.max_note_bytes,
            user_id=ctx.user_id,
            pointer=pointer,
            conversation_id=ctx.conversation_id,
            now=ctx.now(),
        )
    except edit_rules.EditError as exc:
        reason = f"edit_{exc.reason}"
        return {"ok": False, "reason": reason, "edit": exc.index, "text": exc.message}
    if isinstance(made, dict):
        return made
    proposal, doc_path, revision, diff, stale = made.as_tuple()
    caveat = CAVEAT if stale else None
    body = (
        f"Proposed an edit of {doc_path} (proposal {proposal.id}, on revision {revision}). "
        "Nothing changes until the user applies it.\n\n"
        f"{diff or '(The edits change nothing.)'}"
    )
    if stale:
        body = f"{body}\n\n{CAVEAT}"
    return {
        "ok": True,
        "text": body,
        "proposalId": proposal.id,
        "path": doc_path,
        "baseRevision": revision,
        "diff": diff,
        "stale": stale,
        "caveat": caveat,
    }


def search_notes(ctx: ToolContext, query: str) -> dict:
    """Notes of the workspace containing every word of `query` (the search service, SPEC §11)."""
    auth = _authorize(ctx)
    if isinstance(auth, dict):
        return auth
    return search_saved(ctx.db, auth.workspace_id, query)

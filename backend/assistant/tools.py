"""The agent's tools (SPEC §5): each call re-reads the delivery row and acts with its authority."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ambient import edits as edit_rules
from ambient import pointer as codec
from ambient.paths import PathError, check_path
from backend.db import utcnow
from backend.errors import BadPath, NotFound
from backend.models import AgentDeliveryCredential, Document
from backend.services import documents, key_sessions, proposals, search, workspaces

log = logging.getLogger("ambient.assistant.tools")

CAVEAT = (
    "The saved copy is behind what the user has on screen — their most recent keystrokes may "
    "be missing from the text above."
)
DEFAULT_MAX_BYTES = 65_536
MAX_MAX_BYTES = 262_144
NO_POINTER_TEXT = (
    "No note is open in the user's workspace right now, so there is no active note to read. "
    "Ask the user which note they mean (by name), or offer to list their notes with "
    "list_documents."
)
AMBIENT_OFF_TEXT = (
    "The user has switched off sharing the open note (\"this note\") with the assistant for "
    "this conversation, so there is no active note to read. Tell them so: ask them to name "
    "the note, or to switch \"this note\" back on with the chip above the chat."
)

ACTIVE_HEADING = "The note open on the user's screen is"

# Access failure reasons, shared by every document tool.
NO_ROW = "no_delivery_row"
EXPIRED = "expired"
NO_KEY_SESSION = "no_key_session"
KEY_SESSION_INVALID = "key_session_invalid"
NOT_MEMBER = "not_member"
MISSING_DOCUMENT = "missing_document"
BAD_PATH = "bad_path"
NO_POINTER = "no_pointer"

_MESSAGES = {
    NO_ROW: "I can't read this workspace: this conversation has no current access to it. "
    "Send your message again from the workspace so the page can grant access for the turn.",
    EXPIRED: "I can't read this workspace any more: the access granted with the last message "
    "has expired. Send a new message to renew it.",
    NO_KEY_SESSION: "I can't read this workspace: the turn came without a valid key session "
    "for it. Reload the page or switch to the workspace again, then resend your message.",
    KEY_SESSION_INVALID: "I can't read this workspace: its key session has expired or is not "
    "valid for you. Reload the page or switch to the workspace again, then resend your message.",
    NOT_MEMBER: "You do not have access to this workspace.",
    MISSING_DOCUMENT: "There is no note at that path in this workspace.",
    BAD_PATH: "That is not a valid note path: use a workspace-relative path such as "
    "'notes/plan.md'.",
}


def access_failure_message(reason: str) -> str:
    """The one plain-language text every document tool gives for an access failure."""
    return _MESSAGES.get(reason, _MESSAGES[NO_ROW])


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


@dataclass(frozen=True)
class _Authority:
    workspace_id: str
    ambient_path: str | None
    ambient_view: str | None
    ambient_meta: str | None


def failure(reason: str, **extra: Any) -> dict:
    """A document tool's failure answer: the reason and its one plain-language text."""
    return {"ok": False, "reason": reason, "text": access_failure_message(reason), **extra}


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


def clamp_max_bytes(value: int | None) -> int:
    """maxBytes: default 65,536, clamped to [1, 262,144]."""
    if value is None:
        return DEFAULT_MAX_BYTES
    return max(1, min(MAX_MAX_BYTES, value))


def cut_utf8(data: bytes, limit: int) -> bytes:
    """At most `limit` bytes of UTF-8 `data`, never ending inside a character."""
    if len(data) <= limit:
        return data
    end = limit
    while end > 0 and (data[end] & 0xC0) == 0x80:  # data[end] continues a character
        end -= 1
    return data[:end]


def fetch_saved(db: Session, workspace_id: str, path: object) -> Document | dict:
    """The saved note at `path`, or the failure every document tool gives for it."""
    try:
        path = check_path(path)
        return documents.get_document(db, workspace_id=workspace_id, path=path)
    except (PathError, BadPath):
        return failure(BAD_PATH)
    except NotFound:
        return failure(MISSING_DOCUMENT)


def read_saved(db: Session, workspace_id: str, path: object, max_bytes: int) -> dict:
    """The saved note at `path`, cut to `max_bytes`, or the failure for it (unframed).

    The caller has already checked its authority over `workspace_id` (a delivery row here,
    a token's membership for MCP); both channels read through this one function.
    """
    doc = fetch_saved(db, workspace_id, path)
    if isinstance(doc, dict):
        return doc
    data = doc.content.encode("utf-8")
    chunk = cut_utf8(data, max_bytes)
    partial = len(chunk) < len(data)
    return {
        "ok": True,
        "path": doc.path,
        "content": chunk.decode("utf-8"),
        "bytes": len(data),
        "revision": doc.revision,
        "partial": partial,
        "stale": False,
        "caveat": None,
        "_sha256": codec.sha256_prefix(data),
    }


def compare_with_pointer(result: dict, pointer: codec.Pointer, *, need_flushed: bool) -> None:
    """Mark a complete read stale (with the caveat) unless it is what the page measured.

    Only a complete copy can be compared; `need_flushed` also asks that nothing was unsaved.
    """
    if result["partial"]:
        return
    fresh = _fresh(pointer, result["bytes"], result["_sha256"], need_flushed=need_flushed)
    result["stale"] = not fresh
    result["caveat"] = None if fresh else CAVEAT


def selection_of(pointer: codec.Pointer) -> dict | None:
    """The pointer's selection as the tools answer it."""
    if pointer.selection is None:
        return None
    return {"anchor": pointer.selection.anchor, "head": pointer.selection.head}


def frame(result: dict, heading: str) -> dict:
    """A successful read_saved result with its text for the model (the digest dropped)."""
    result = dict(result)
    result.pop("_sha256", None)
    size = f"{result['bytes']:,} bytes"
    if result["partial"]:
        shown = len(result["content"].encode("utf-8"))
        size = f"partial: the first {shown:,} of {result['bytes']:,} bytes"
    text = f"{heading} {result['path']} ({size}, saved copy):\n\n{result['content']}"
    if result["stale"]:
        text = f"{text}\n\n{CAVEAT}"
    result["text"] = text
    return result


def list_documents(ctx: ToolContext) -> dict:
    auth = _authorize(ctx)
    if isinstance(auth, dict):
        return auth
    return list_saved(ctx.db, auth.workspace_id)


def list_saved(
    db: Session, workspace_id: str, keep: Callable[[str], bool] | None = None
) -> dict:
    """The workspace's notes as list_documents answers them (authority already checked).

    `keep` narrows the listing to the paths a caller may reach (an MCP token's folder).
    """
    docs = [
        d for d in documents.list_documents(db, workspace_id=workspace_id)
        if keep is None or keep(d.path)
    ]
    listing = [
        {
            "path": d.path,
            "bytes": d.bytes,
            "revision": d.revision,
            "updatedAt": d.updated_at.isoformat().replace("+00:00", "Z"),
        }
        for d in docs
    ]
    if listing:
        lines = "\n".join(f"- {d['path']} ({d['bytes']:,} bytes)" for d in listing)
        text = f"Notes in workspace {workspace_id} ({len(listing)}):\n{lines}"
    else:
        text = f"Workspace {workspace_id} has no notes yet."
    return {"ok": True, "workspaceId": workspace_id, "documents": listing, "text": text}


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


def _fresh(pointer: codec.Pointer, size: int, sha256: str, *, need_flushed: bool = True) -> bool:
    """Does the complete saved copy match what the page measured (with nothing unsaved)?"""
    matches = size == pointer.bytes and sha256 == pointer.sha256
    return matches and (pointer.flushed or not need_flushed)


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
    pointer = None
    if path is None:
        pointer = _active_pointer(ctx, auth)
        if isinstance(pointer, dict):
            return pointer
        path = pointer.path
    elif auth.ambient_path is not None and _nfc(auth.ambient_path) == _nfc(path):
        found = _active_pointer(ctx, auth)
        pointer = None if isinstance(found, dict) else found
    doc = fetch_saved(ctx.db, auth.workspace_id, path)
    if isinstance(doc, dict):
        return doc
    text, revision, doc_path = doc.content, doc.revision, doc.path
    try:
        new_text = edit_rules.apply_edits(text, edits)
    except edit_rules.EditError as exc:
        reason = f"edit_{exc.reason}"
        return {"ok": False, "reason": reason, "edit": exc.index, "text": exc.message}
    stale, caveat = False, None
    if pointer is not None:
        data = text.encode("utf-8")
        stale = not _fresh(pointer, len(data), codec.sha256_prefix(data))
        caveat = CAVEAT if stale else None
    diff = proposals.unified_diff(doc_path, text, new_text)
    proposal = proposals.create(
        ctx.db,
        conversation_id=ctx.conversation_id,
        user_id=ctx.user_id,
        workspace_id=auth.workspace_id,
        path=doc_path,
        edits=edits,
        base_revision=revision,
        diff=diff,
        now=ctx.now(),
    )
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
    try:
        found = search.search(ctx.db, workspace_id=auth.workspace_id, query=query)
    except search.InvalidQuery as exc:
        return {"ok": False, "reason": "bad_query", "text": exc.message}
    if found:
        lines = "\n".join(f"- {r['path']} (line {r['line']}): {r['snippet']}" for r in found)
        text = f"Notes containing every word of the search ({len(found)}):\n{lines}"
    else:
        text = "No note contains every word of the search."
    return {"ok": True, "results": found, "text": text}

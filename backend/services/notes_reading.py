"""Reading notes for an agent, worded once: the in-app assistant's tools and MCP's both answer
through these (a read, a listing, a search, a failure), so the same case reads the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from ambient import pointer as codec
from ambient.paths import PathError, check_path
from backend.errors import BadPath, NotFound
from backend.models import Document
from backend.services import documents, search

CAVEAT = (
    "The saved copy is behind what the user has on screen — their most recent keystrokes may "
    "be missing from the text above."
)
DEFAULT_MAX_BYTES = 65_536
MAX_MAX_BYTES = 262_144
ACTIVE_HEADING = "The note open on the user's screen is"

# Access failure reasons, shared by every document tool.
NO_ROW = "no_delivery_row"
EXPIRED = "expired"
NO_KEY_SESSION = "no_key_session"
KEY_SESSION_INVALID = "key_session_invalid"
NOT_MEMBER = "not_member"
READ_ONLY = "read_only"
MISSING_DOCUMENT = "missing_document"
BAD_PATH = "bad_path"
NO_POINTER = "no_pointer"
BAD_QUERY = "bad_query"

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
    READ_ONLY: "The user can read this workspace but not change it (their role is reader), "
    "so nothing can be written or proposed here. Nothing was changed.",
    MISSING_DOCUMENT: "There is no note at that path in this workspace.",
    BAD_PATH: "That is not a valid note path: use a workspace-relative path such as "
    "'notes/plan.md'.",
}


def access_failure_message(reason: str) -> str:
    """The one plain-language text every document tool gives for an access failure."""
    return _MESSAGES.get(reason, _MESSAGES[NO_ROW])


def failure(reason: str, **extra: Any) -> dict[str, Any]:
    """A document tool's failure answer: the reason and its one plain-language text."""
    return {"ok": False, "reason": reason, "text": access_failure_message(reason), **extra}


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


def fetch(db: Session, workspace_id: str, path: object) -> Document | dict[str, Any]:
    """The saved note at `path`, or the failure every document tool gives for it."""
    try:
        path = check_path(path)
        return documents.get_document(db, workspace_id=workspace_id, path=path)
    except (PathError, BadPath):
        return failure(BAD_PATH)
    except NotFound:
        return failure(MISSING_DOCUMENT)


def read_saved(db: Session, workspace_id: str, path: object, max_bytes: int) -> dict[str, Any]:
    """The saved note at `path`, cut to `max_bytes`, or the failure for it (unframed).

    The caller has already checked its authority over `workspace_id` (a delivery row here,
    a token's membership for MCP); both channels read through this one function.
    """
    doc = fetch(db, workspace_id, path)
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


def compare_with_pointer(
    result: dict[str, Any], pointer: codec.Pointer, *, need_flushed: bool
) -> None:
    """Mark a complete read stale (with the caveat) unless it is what the page measured.

    Only a complete copy can be compared; `need_flushed` also asks that nothing was unsaved.
    """
    if result["partial"]:
        return
    same = fresh(pointer, result["bytes"], result["_sha256"], need_flushed=need_flushed)
    result["stale"] = not same
    result["caveat"] = None if same else CAVEAT


def selection_of(pointer: codec.Pointer) -> dict[str, int] | None:
    """The pointer's selection as the tools answer it."""
    if pointer.selection is None:
        return None
    return {"anchor": pointer.selection.anchor, "head": pointer.selection.head}


def frame(result: dict[str, Any], heading: str) -> dict[str, Any]:
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


def list_saved(
    db: Session, workspace_id: str, keep: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """The workspace's notes as list_documents answers them (authority already checked).

    `keep` narrows it to the paths a caller may reach (an MCP token's folder, SPEC §14).
    """
    docs = [
        d
        for d in documents.list_documents(db, workspace_id=workspace_id)
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


def fresh(pointer: codec.Pointer, size: int, sha256: str, *, need_flushed: bool = True) -> bool:
    """Does the complete saved copy match what the page measured (with nothing unsaved)?"""
    matches = size == pointer.bytes and sha256 == pointer.sha256
    return matches and (pointer.flushed or not need_flushed)


def search_saved(
    db: Session, workspace_id: str, query: str, keep: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """Notes of the workspace containing every word of `query` (the search service, SPEC §11),
    with one line per note for the model: `- path (line N): snippet`; `keep` as list_saved."""
    try:
        found = search.search(db, workspace_id=workspace_id, query=query)
    except search.InvalidQuery as exc:  # the search's own plain message (empty, too long, ...)
        return {"ok": False, "reason": BAD_QUERY, "text": exc.message}
    found = [r for r in found if keep is None or keep(r["path"])]
    if found:
        lines = "\n".join(f"- {r['path']} (line {r['line']}): {r['snippet']}" for r in found)
        text = (
            f"Notes in workspace {workspace_id} containing every word of the search "
            f"({len(found)}):\n{lines}"
        )
    else:
        text = f"No note in workspace {workspace_id} contains every word of the search."
    return {"ok": True, "workspaceId": workspace_id, "results": found, "text": text}

"""The MCP tool `changes_since` (SPEC §19): section 13's events of a workspace, without text.

The cursor is opaque to the agent: the workspace id and the number of the last event it
has seen (the per-workspace `seq` of note_events, migration 0010), base64url-encoded.
Without a cursor the answer starts from now: no changes, and the cursor of the newest
event. Events are read in `seq` order, which is commit order, so nothing is skipped.

Reach (SPEC §14): an event about a note outside the token's folder is left out; a note
moved out of the folder is reported as `deleted` at the path the agent knew, one moved in
as `saved` at its new path (the agent never learns a path outside its reach).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend.models import Workspace
from backend.models.history import NoteEvent
from backend.outside_agents.tools import no_access
from backend.services.tokens import Authority

BATCH = 500  # most events read per call; `more` says there are further ones
BAD_CURSOR = "bad_cursor"
CURSOR_EXPIRED = "cursor_expired"
BAD_CURSOR_TEXT = (
    "That cursor is not one changes_since gave for this workspace. Call changes_since "
    "without a cursor to start from now."
)
CURSOR_EXPIRED_TEXT = (
    "That cursor is too old: some changes after it are no longer kept. Call changes_since "
    "without a cursor to start from now, and list_documents to see the notes as they are."
)


def encode_cursor(workspace_id: str, seq: int) -> str:
    raw = f"{workspace_id}\n{seq}".encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(workspace_id: str, cursor: str) -> int | None:
    """The event number in `cursor`, or None when it is no cursor of this workspace."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    ws, _, number = raw.partition("\n")
    if ws != workspace_id or not number.isascii() or not number.isdigit():
        return None
    return int(number)


def _failure(reason: str, text: str) -> dict[str, Any]:
    return {"ok": False, "reason": reason, "text": text}


def changes_since(
    db: Session, *, auth: Authority, workspace_id: str, cursor: str | None
) -> dict[str, Any]:
    refused = no_access(db, auth, workspace_id)
    if refused:
        return refused
    newest = db.scalar(select(Workspace.event_seq).where(Workspace.id == workspace_id)) or 0
    if cursor is None:
        return _answer(workspace_id, [], newest, more=False)
    after = decode_cursor(workspace_id, cursor)
    if after is None or after > newest:  # not ours, or from another database
        return _failure(BAD_CURSOR, BAD_CURSOR_TEXT)
    oldest = db.scalar(
        select(func.min(NoteEvent.seq)).where(NoteEvent.workspace_id == workspace_id)
    )
    if after < newest and (oldest is None or after < oldest - 1):
        return _failure(CURSOR_EXPIRED, CURSOR_EXPIRED_TEXT)
    rows = list(
        db.scalars(
            select(NoteEvent)
            .where(NoteEvent.workspace_id == workspace_id, NoteEvent.seq > after)
            .order_by(NoteEvent.seq)
            .limit(BATCH + 1)
        )
    )
    more = len(rows) > BATCH
    rows = rows[:BATCH]
    changes = [c for row in rows if (c := _change(auth, workspace_id, row)) is not None]
    return _answer(workspace_id, changes, rows[-1].seq if rows else after, more=more)


def _change(auth: Authority, workspace_id: str, row: NoteEvent) -> dict[str, Any] | None:
    data = json.loads(row.data)
    if row.kind == "moved":
        was, now = auth.reaches(workspace_id, data["from"]), auth.reaches(workspace_id, data["to"])
        if was and now:
            change = _plain(data["to"], "moved", data.get("revision"), None)
            change["fromPath"] = data["from"]
            return change
        if was:
            return _plain(data["from"], "deleted", None, None)
        if now:
            return _plain(data["to"], "saved", data.get("revision"), None)
        return None
    path = data.get("path")
    if not isinstance(path, str) or not auth.reaches(workspace_id, path):
        return None
    return _plain(path, row.kind, data.get("revision"), data.get("source"))


def _plain(path: str, kind: str, revision: Any, source: Any) -> dict[str, Any]:
    return {"path": path, "kind": kind, "revision": revision, "source": source}


def _answer(workspace_id: str, changes: list[dict[str, Any]], seq: int, *, more: bool) -> dict:
    if changes:
        lines = "\n".join(
            f"- {c['kind']} {c['path']}"
            + (f" (from {c['fromPath']})" if "fromPath" in c else "")
            + (f" revision {c['revision']}" if c["revision"] is not None else "")
            for c in changes
        )
        text = f"Changes in workspace {workspace_id} ({len(changes)}):\n{lines}"
    else:
        text = f"No changes in workspace {workspace_id} since the cursor."
    if more:
        text += "\nThere are more: call changes_since again with the new cursor."
    return {
        "ok": True,
        "workspaceId": workspace_id,
        "changes": changes,
        "cursor": encode_cursor(workspace_id, seq),
        "more": more,
        "text": f"{text}\nNext cursor: {encode_cursor(workspace_id, seq)}",
    }

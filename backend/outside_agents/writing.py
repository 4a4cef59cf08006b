"""What the MCP tools that change notes answer (SPEC §14): proposals, and conditional writes.

`propose_edit` stores a proposal the user applies in the page (the rules of §8: it never
writes). `create_note` and `edit_note` write, but only onto text the agent has seen:
`edit_note` applies when the saved copy still has the `baseSha256` the agent read, each
`find` and `heading` must occur exactly once, and the save is conditional on the revision
read, so a failure of any kind changes nothing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from ambient import edits as edit_rules
from ambient import pointer as codec
from backend.errors import BadRequest, Conflict, PreconditionFailed, TooLarge
from backend.errors import NotFound as NotFoundError
from backend.models import Document
from backend.outside_agents.tools import active_or_failure, no_access, no_write_access
from backend.services import documents, proposals
from backend.services import notes_reading as reading
from backend.services.notes_reading import CAVEAT
from backend.services.source import Source
from backend.services.tokens import Authority

NO_WORKSPACE = "no_workspace"
STALE_BASE = "stale_base"
EXISTS = "exists"
RACE = "race"
NO_PROPOSAL = "no_proposal"

NO_WORKSPACE_TEXT = "Give 'workspaceId' together with 'path' (or leave both out for the open note)."
EXISTS_TEXT = "A note already exists at that path; nothing was changed. Use edit_note to change it."
RACE_TEXT = (
    "The note was saved by someone else at the same moment; nothing was changed. Read it "
    "again and redo the edit."
)
NO_PROPOSAL_TEXT = "There is no such proposal."


def _edit_failure(exc: edit_rules.EditError) -> dict:
    text = f"{exc.message} Nothing was changed."
    return {"ok": False, "reason": f"edit_{exc.reason}", "edit": exc.index, "text": text}


def propose_edit(
    db: Session,
    *,
    auth: Authority,
    workspace_id: str | None,
    path: str | None,
    edits: list[dict],
    summary: str | None,
    max_bytes: int,
    now: datetime,
) -> dict:
    """Store a proposal naming the agent; without `path`, for the user's active note."""
    pointer = None
    if path is None:
        active = active_or_failure(db, auth, now)
        if isinstance(active, dict):
            return active
        workspace_id, path, pointer = active.workspace_id, active.pointer.path, active.pointer
    elif workspace_id is None:
        return {"ok": False, "reason": NO_WORKSPACE, "text": NO_WORKSPACE_TEXT}
    refused = no_write_access(db, auth, workspace_id, path)
    if refused:
        return refused
    try:
        made = proposals.propose(
            db,
            workspace_id=workspace_id,
            path=path,
            edits=edits,
            max_bytes=max_bytes,
            user_id=auth.user_id,
            pointer=pointer,
            token_id=auth.token_id,
            agent_name=auth.name,
            summary=summary,
            now=now,
        )
    except edit_rules.EditError as exc:
        return _edit_failure(exc)
    if isinstance(made, dict):
        return made
    proposal, doc_path, revision, diff, stale = made.as_tuple()
    body = (
        f"Proposed an edit of {doc_path} in workspace {workspace_id} (proposal {proposal.id}). "
        "It is pending: nothing changes until the user applies it in the notes page. "
        "Call get_proposal to learn the outcome.\n\n"
        f"{diff or '(The edits change nothing.)'}"
    )
    if stale:
        body = f"{body}\n\n{CAVEAT}"
    return {
        "ok": True,
        "text": body,
        "proposalId": proposal.id,
        "workspaceId": workspace_id,
        "path": doc_path,
        "baseRevision": revision,
        "diff": diff,
        "status": proposals.PENDING,
        "stale": stale,
        "caveat": CAVEAT if stale else None,
    }


def get_proposal(db: Session, *, auth: Authority, proposal_id: str) -> dict:
    """The status of one of this user's agent proposals (and the revision once applied)."""
    try:
        proposal = proposals.get_agents(db, proposal_id=proposal_id, user_id=auth.user_id)
    except NotFoundError:
        return {"ok": False, "reason": NO_PROPOSAL, "text": NO_PROPOSAL_TEXT}
    if no_access(db, auth, proposal.workspace_id, proposal.path):
        return {"ok": False, "reason": NO_PROPOSAL, "text": NO_PROPOSAL_TEXT}
    status, revision = proposal.status, proposal.applied_revision
    words = {
        proposals.PENDING: "is pending: the user has not applied or discarded it yet",
        proposals.DISCARDED: "was discarded by the user; the note was not changed",
        proposals.APPLIED: "was applied by the user"
        + (f" (the note is now at revision {revision})" if revision else ""),
    }[status]
    return {
        "ok": True,
        "proposalId": proposal.id,
        "workspaceId": proposal.workspace_id,
        "path": proposal.path,
        "status": status,
        "revision": revision,
        "text": f"Proposal {proposal.id} for {proposal.path} {words}.",
    }


def create_note(
    db: Session,
    *,
    auth: Authority,
    workspace_id: str,
    path: str,
    text: str,
    max_bytes: int,
    now: datetime,
) -> dict:
    """Create a note; an existing path answers ok: false and changes nothing."""
    refused = no_write_access(db, auth, workspace_id, path)
    if refused:
        return refused
    try:
        doc = _save_as_agent(
            db, auth, workspace_id, path, text, max_bytes=max_bytes, now=now, create_only=True
        )
    except PreconditionFailed:
        return {"ok": False, "reason": EXISTS, "text": EXISTS_TEXT}
    except (TooLarge, BadRequest) as exc:
        return {"ok": False, "reason": "bad_text", "text": f"{exc} Nothing was created."}
    return _saved(doc, f"Created {doc.path} in workspace {workspace_id}")


def edit_note(
    db: Session,
    *,
    auth: Authority,
    workspace_id: str,
    path: str,
    base_sha256: str,
    edits: list[dict],
    max_bytes: int,
    now: datetime,
) -> dict:
    """Apply the edits when the saved copy still has `base_sha256`; otherwise change nothing."""
    refused = no_write_access(db, auth, workspace_id, path)
    if refused:
        return refused
    doc = reading.fetch(db, workspace_id, path)
    if isinstance(doc, dict):
        return doc
    text, revision, doc_path = doc.content, doc.revision, doc.path
    current = codec.sha256_prefix(text.encode("utf-8"))
    db.rollback()  # end the read: the save below is conditional on what was read
    if current != base_sha256:
        return {
            "ok": False,
            "reason": STALE_BASE,
            "sha256": current,
            "text": f"The note has changed since you read it: its saved copy's sha256 is now "
            f"{current}, not {base_sha256}. Nothing was changed. Read it again (read_document) "
            "and redo the edit on what it says now.",
        }
    try:
        new_text = edit_rules.apply_edits(text, edits, max_bytes=max_bytes, headings=True)
    except edit_rules.EditError as exc:
        return _edit_failure(exc)
    try:
        saved = _save_as_agent(
            db,
            auth,
            workspace_id,
            doc_path,
            new_text,
            max_bytes=max_bytes,
            now=now,
            if_match=revision,
        )
    except Conflict:
        return {"ok": False, "reason": RACE, "text": RACE_TEXT}
    return _saved(saved, f"Edited {saved.path} in workspace {workspace_id}")


def _save_as_agent(
    db: Session,
    auth: Authority,
    workspace_id: str,
    path: str,
    text: str,
    *,
    max_bytes: int,
    now: datetime,
    if_match: int | None = None,
    create_only: bool = False,
) -> Document:
    """Save under the agent's name (its token's), so history and the event stream say who."""
    doc, _ = documents.save_document(
        db,
        workspace_id=workspace_id,
        path=path,
        content=text,
        max_bytes=max_bytes,
        source=Source.agent(auth.user_id, name=auth.name),
        if_match=if_match,
        create_only=create_only,
        now=now,
    )
    return doc


def _saved(doc, what: str) -> dict:
    sha = codec.sha256_prefix(doc.content.encode("utf-8"))
    return {
        "ok": True,
        "path": doc.path,
        "revision": doc.revision,
        "sha256": sha,
        "bytes": doc.bytes,
        "text": f"{what}: revision {doc.revision}, sha256 {sha} (use it as baseSha256 for the "
        "next edit_note).",
    }

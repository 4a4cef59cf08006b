"""Edit proposals (SPEC §8): stored by propose_edit, applied or discarded only by their owner."""

from __future__ import annotations

import difflib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ambient import edits as edit_rules
from ambient import pointer as codec
from backend.db import storable, utcnow
from backend.errors import Conflict, NotFound
from backend.models import Document, path_key
from backend.models.proposals import EditProposal
from backend.services import documents
from backend.services import notes_reading as reading
from backend.services.source import Source

PENDING = "pending"
APPLIED = "applied"
DISCARDED = "discarded"
VIA_SERVER = "server"
VIA_EDITOR = "editor"

NOT_FOUND = "There is no such proposal in this conversation."
_NOT_PENDING = {
    APPLIED: "This proposal has already been applied; nothing was changed.",
    DISCARDED: "This proposal was discarded; nothing was changed.",
}
RACE = (
    "The note was saved by someone else while the proposal was being applied; nothing was "
    "changed. Look at the note and ask again."
)
GONE = "The note no longer exists at that path; nothing was changed."
OTHER_NOTE = (
    "The note at that path is not the one the proposal was made on (it was deleted and "
    "recreated, or another note was moved there); nothing was changed."
)


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of `old` → `new` with a/<path> and b/<path> headers (git's no-EOL mark)."""

    def lines(text: str) -> list[str]:
        out = text.splitlines(keepends=True)
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += "\n\\ No newline at end of file\n"
        return out

    return "".join(
        difflib.unified_diff(lines(old), lines(new), fromfile=f"a/{path}", tofile=f"b/{path}")
    )


@dataclass(frozen=True)
class Proposed:
    """A stored proposal and what every channel words from it."""

    proposal: EditProposal
    path: str
    base_revision: int
    diff: str
    stale: bool  # only the active note's pointer can make it stale (SPEC §3, §8)

    def as_tuple(self) -> tuple[EditProposal, str, int, str, bool]:
        """(proposal, path, base revision, diff, stale): what each channel words."""
        return self.proposal, self.path, self.base_revision, self.diff, self.stale


def propose(
    db: Session,
    *,
    workspace_id: str,
    path: str,
    edits: list[dict[str, Any]],
    max_bytes: int,
    user_id: int,
    pointer: codec.Pointer | None = None,
    conversation_id: str | None = None,
    token_id: str | None = None,
    agent_name: str | None = None,
    summary: str | None = None,
    now: datetime | None = None,
) -> Proposed | dict[str, Any]:
    """The one `propose_edit` (SPEC §8, §14): the assistant's and an outside agent's.

    The caller has checked its authority (a delivery row, or a token's reach and role). Reads
    the saved note, applies the edits to it under `max_bytes` (raising
    `ambient.edits.EditError` for the caller to word), measures staleness against `pointer`
    as `read_active_note` does (unsaved keystrokes make it stale), and stores the proposal
    bound to that note's identity. A missing note or a bad path is the reading failure dict.
    """
    doc = reading.fetch(db, workspace_id, path)
    if isinstance(doc, dict):
        return doc
    text, revision, doc_path, uid = doc.content, doc.revision, doc.path, doc.uid
    new_text = edit_rules.apply_edits(text, edits, max_bytes=max_bytes)
    stale = False
    if pointer is not None:
        data = text.encode("utf-8")
        stale = not reading.fresh(pointer, len(data), codec.sha256_prefix(data))
    diff = unified_diff(doc_path, text, new_text)
    proposal = create(
        db,
        conversation_id=conversation_id,
        user_id=user_id,
        workspace_id=workspace_id,
        path=doc_path,
        edits=edits,
        base_revision=revision,
        document_uid=uid,
        diff=diff,
        now=now,
        token_id=token_id,
        agent_name=agent_name,
        summary=summary,
    )
    return Proposed(proposal, doc_path, revision, diff, stale)


def create(
    db: Session,
    *,
    conversation_id: str | None,
    user_id: int,
    workspace_id: str,
    path: str,
    edits: list[dict[str, Any]],
    base_revision: int,
    diff: str,
    document_uid: str | None = None,
    now: datetime | None = None,
    token_id: str | None = None,
    agent_name: str | None = None,
    summary: str | None = None,
) -> EditProposal:
    """Store a pending proposal (the document itself is not touched).

    The assistant's proposals name their conversation; an outside agent's (SPEC §14) name
    the token instead (`conversation_id` None). It is bound to the note it was made on
    (SPEC §14): `document_uid`, or else the note at `path` when that is still at
    `base_revision`.
    """
    now = now or utcnow()
    if document_uid is None:
        head = documents.head_of(db, workspace_id=workspace_id, path=path)
        if head is not None and head.revision == base_revision:
            document_uid = head.uid
    proposal = EditProposal(
        id=str(uuid.uuid4()),
        conversation_id=conversation_id,
        user_id=user_id,
        workspace_id=workspace_id,
        path=path,
        edits=json.dumps(edits, ensure_ascii=False),
        base_revision=base_revision,
        document_uid=document_uid,
        diff=diff,
        status=PENDING,
        created_at=now,
        updated_at=now,
        token_id=token_id,
        agent_name=agent_name,
        summary=summary,
    )
    db.add(proposal)
    db.commit()
    return proposal


def get_owned(db: Session, *, conversation_id: str, proposal_id: str, user_id: int) -> EditProposal:
    """The proposal when it belongs to this conversation and user; NotFound otherwise."""
    if not storable(proposal_id, max_length=36):
        raise NotFound(NOT_FOUND)
    proposal = db.scalar(
        select(EditProposal).where(
            EditProposal.id == proposal_id,
            EditProposal.conversation_id == conversation_id,
            EditProposal.user_id == user_id,
        )
    )
    if proposal is None:
        raise NotFound(NOT_FOUND)
    return proposal


AGENT_NOT_FOUND = "There is no such proposal."


def get_agents(db: Session, *, proposal_id: str, user_id: int) -> EditProposal:
    """An outside agent's proposal to this user (SPEC §14); NotFound for anyone else's."""
    if not storable(proposal_id, max_length=36):
        raise NotFound(AGENT_NOT_FOUND)
    proposal = db.scalar(
        select(EditProposal).where(
            EditProposal.id == proposal_id,
            EditProposal.user_id == user_id,
            EditProposal.conversation_id.is_(None),
        )
    )
    if proposal is None:
        raise NotFound(AGENT_NOT_FOUND)
    return proposal


def list_agents(db: Session, *, user_id: int, status: str | None) -> list[EditProposal]:
    """The user's proposals from outside agents, oldest first (only `status` when given)."""
    query = select(EditProposal).where(
        EditProposal.user_id == user_id, EditProposal.conversation_id.is_(None)
    )
    if status is not None:
        query = query.where(EditProposal.status == status)
    return list(db.scalars(query.order_by(EditProposal.created_at, EditProposal.id)))


def list_for(db: Session, *, conversation_id: str, user_id: int) -> list[EditProposal]:
    """The conversation's proposals, oldest first."""
    return list(
        db.scalars(
            select(EditProposal)
            .where(
                EditProposal.conversation_id == conversation_id,
                EditProposal.user_id == user_id,
            )
            .order_by(EditProposal.created_at, EditProposal.id)
        )
    )


def edits_of(proposal: EditProposal) -> list[dict[str, Any]]:
    """The stored edits, as propose_edit received them."""
    edits: list[dict[str, Any]] = json.loads(proposal.edits)
    return edits


def _refuse_unless_pending(proposal: EditProposal) -> None:
    if proposal.status != PENDING:
        raise Conflict(_NOT_PENDING.get(proposal.status, _NOT_PENDING[APPLIED]))


def _leave_pending(db: Session, proposal: EditProposal, *, lost: str, **values: Any) -> None:
    """pending → `values` in the open transaction; Conflict when another request got there first.

    `lost` is the message when the row was no longer pending and its status cannot say more.
    """
    moved = db.execute(
        update(EditProposal)
        .where(EditProposal.id == proposal.id, EditProposal.status == PENDING)
        .values(**values)
        .returning(EditProposal.id)
        .execution_options(synchronize_session=False)
    ).first()
    if moved is None:
        db.rollback()
        db.refresh(proposal)
        _refuse_unless_pending(proposal)
        raise Conflict(lost)


def _claim(
    db: Session, proposal: EditProposal, *, via: str, revision: int | None, now: datetime
) -> None:
    """pending → applied in the open transaction (see _leave_pending)."""
    _leave_pending(
        db,
        proposal,
        lost=_NOT_PENDING[APPLIED],
        status=APPLIED,
        applied_via=via,
        applied_revision=revision,
        updated_at=now,
    )


def apply(
    db: Session, *, proposal: EditProposal, max_bytes: int, now: datetime | None = None
) -> Document:
    """Apply the edits to the current saved copy and save it on the revision read.

    Only onto the note it was made on (its uid), never another note now at that path. The
    document's conditional UPDATE and the proposal's pending → applied change commit together,
    so two applies (or an apply and a save) can never both win; a loser changes nothing and
    gets Conflict with a plain message. The save is the assistant's revision (SPEC §15).
    """
    now = now or utcnow()
    _refuse_unless_pending(proposal)
    doc = documents.find_document(db, workspace_id=proposal.workspace_id, path=proposal.path)
    if doc is None:
        db.rollback()
        raise Conflict(GONE)
    if doc.uid != proposal.document_uid or doc.revision < proposal.base_revision:
        db.rollback()
        raise Conflict(OTHER_NOTE)
    head = documents.head_of(db, workspace_id=proposal.workspace_id, path=proposal.path)
    text, read_revision = doc.content, doc.revision
    db.rollback()  # end the read (it expires `doc`): the write below is conditional on it
    if head is None or head.revision != read_revision:
        raise Conflict(RACE)
    try:
        new_text = edit_rules.apply_edits(
            text, edits_of(proposal), max_bytes=min(max_bytes, edit_rules.MAX_RESULT_BYTES)
        )
    except edit_rules.EditError as exc:
        raise Conflict(edit_rules.changed_message(exc)) from None
    size = documents.check_text(new_text, max_bytes=max_bytes)
    _claim(db, proposal, via=VIA_SERVER, revision=head.revision + 1, now=now)
    saved = documents.replace_text(
        db,
        head=head,
        old_text=text,
        content=new_text,
        size=size,
        source=source_of(proposal),
        now=now,
    )
    if saved is None:  # rolled back, the claim with it: the proposal stays pending
        raise Conflict(RACE)
    db.commit()
    proposal.status, proposal.applied_via = APPLIED, VIA_SERVER
    return saved


def source_of(proposal: EditProposal) -> Source:
    """Who an applied proposal's revision names: the assistant, or the agent's token (§14)."""
    if proposal.conversation_id is None:
        return Source.agent(proposal.user_id, name=proposal.agent_name or "agent")
    return Source.assistant(proposal.user_id)


def mark_applied_in_editor(
    db: Session, *, proposal: EditProposal, now: datetime | None = None
) -> None:
    """The page applied the edits in its live editor (autosave saves them): record the outcome."""
    _refuse_unless_pending(proposal)
    _claim(db, proposal, via=VIA_EDITOR, revision=None, now=now or utcnow())
    db.commit()
    proposal.status, proposal.applied_via = APPLIED, VIA_EDITOR


def carried_by_save(
    db: Session, *, proposal_id: str, user_id: int, workspace_id: str, path: str
) -> EditProposal | None:
    """The proposal a page save says it carries (SPEC §15): this user's, applied in the live
    editor of this very note, and not yet carried by an earlier save. None otherwise: the
    save is then the user's own, never guessed to be the assistant's or an agent's."""
    found = db.scalar(
        select(EditProposal)
        .join(Document, Document.uid == EditProposal.document_uid)
        .where(
            EditProposal.id == proposal_id,
            EditProposal.user_id == user_id,
            EditProposal.applied_via == VIA_EDITOR,
            EditProposal.applied_revision.is_(None),
            Document.workspace_id == workspace_id,
            Document.path_sha256 == path_key(path),
        )
    )
    db.rollback()
    return found


def record_carried(proposal_id: str) -> Callable[[Session, Document], None]:
    """The save's `then`: the revision that carried the in-editor apply, in its transaction."""

    def record(db: Session, doc: Document) -> None:
        db.execute(
            update(EditProposal)
            .where(
                EditProposal.id == proposal_id,
                EditProposal.document_uid == doc.uid,
                EditProposal.applied_revision.is_(None),
            )
            .values(applied_revision=doc.revision)
            .execution_options(synchronize_session=False)
        )

    return record


def discard(db: Session, *, proposal: EditProposal, now: datetime | None = None) -> None:
    """pending → discarded; Conflict when it is not pending."""
    _refuse_unless_pending(proposal)
    _leave_pending(
        db, proposal, lost=_NOT_PENDING[DISCARDED], status=DISCARDED, updated_at=now or utcnow()
    )
    db.commit()
    proposal.status = DISCARDED

"""Edit proposals: read, apply and discard (SPEC §8)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from backend.api.deps import CurrentUser, SessionDep, SettingsDep
from backend.assistant import conversations
from backend.errors import error_responses
from backend.models.proposals import EditProposal
from backend.services import proposals as service
from backend.services import workspaces

router = APIRouter(prefix="/api/assistant/conversations", tags=["assistant"])


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


class ProposalOut(_Camel):
    proposal_id: str
    path: str
    status: str = Field(description="pending, applied or discarded.")
    edits: list[dict[str, Any]]
    diff: str = Field(description="Unified diff of the saved copy it was made on → proposed.")
    base_revision: int
    applied_via: str | None = Field(
        description="How it was applied: server (the apply endpoint) or editor (the page's "
        "live editor); null while pending or when discarded."
    )


class ProposalList(_Camel):
    proposals: list[ProposalOut]


class AppliedOut(_Camel):
    path: str
    revision: int


class StatusOut(_Camel):
    proposal_id: str
    status: str


def proposal_out(p: EditProposal) -> ProposalOut:
    """One proposal as every route shows it (here and in a resumed conversation)."""
    return ProposalOut(
        proposal_id=p.id,
        path=p.path,
        status=p.status,
        edits=service.edits_of(p),
        diff=p.diff,
        base_revision=p.base_revision,
        applied_via=p.applied_via,
    )


def _owned(db, conversation_id: str, proposal_id: str, user_id: int) -> EditProposal:
    conv = conversations.get_owned(db, conversation_id=conversation_id, user_id=user_id)
    return service.get_owned(db, conversation_id=conv.id, proposal_id=proposal_id, user_id=user_id)


@router.get(
    "/{conversation_id}/proposals",
    response_model=ProposalList,
    summary="The conversation's edit proposals, oldest first (owner only)",
    responses=error_responses(401, 404),
)
def list_proposals(conversation_id: str, user: CurrentUser, db: SessionDep) -> ProposalList:
    conv = conversations.get_owned(db, conversation_id=conversation_id, user_id=user.id)
    found = service.list_for(db, conversation_id=conv.id, user_id=user.id)
    return ProposalList(proposals=[proposal_out(p) for p in found])


@router.get(
    "/{conversation_id}/proposals/{proposal_id}",
    response_model=ProposalOut,
    summary="One edit proposal (owner only)",
    responses=error_responses(401, 404),
)
def get_proposal(
    conversation_id: str, proposal_id: str, user: CurrentUser, db: SessionDep
) -> ProposalOut:
    return proposal_out(_owned(db, conversation_id, proposal_id, user.id))


@router.post(
    "/{conversation_id}/proposals/{proposal_id}/apply",
    response_model=AppliedOut,
    summary="Apply a pending proposal to the note's current saved copy",
    description="Each find must still occur exactly once; the save is conditional on the "
    "revision read. 409 (nothing changed) when an edit no longer applies, the proposal is not "
    "pending, or another save wins the race.",
    responses=error_responses(401, 403, 404, 409),
)
def apply_proposal(
    conversation_id: str,
    proposal_id: str,
    user: CurrentUser,
    db: SessionDep,
    settings: SettingsDep,
) -> AppliedOut:
    proposal = _owned(db, conversation_id, proposal_id, user.id)
    workspaces.require_editor(db, user_id=user.id, workspace_id=proposal.workspace_id)
    doc = service.apply(db, proposal=proposal, max_bytes=settings.max_note_bytes)
    return AppliedOut(path=doc.path, revision=doc.revision)


@router.post(
    "/{conversation_id}/proposals/{proposal_id}/applied-in-editor",
    response_model=StatusOut,
    summary="Record that the page applied a pending proposal in its live editor",
    description="Changes no document (the page's autosave saves the note); the proposal "
    "becomes applied so a reload shows the outcome. 409 when it is not pending.",
    responses=error_responses(401, 403, 404, 409),
)
def applied_in_editor(
    conversation_id: str, proposal_id: str, user: CurrentUser, db: SessionDep
) -> StatusOut:
    proposal = _owned(db, conversation_id, proposal_id, user.id)
    workspaces.require_editor(db, user_id=user.id, workspace_id=proposal.workspace_id)
    service.mark_applied_in_editor(db, proposal=proposal)
    return StatusOut(proposal_id=proposal.id, status=proposal.status)


@router.post(
    "/{conversation_id}/proposals/{proposal_id}/discard",
    response_model=StatusOut,
    summary="Discard a pending proposal",
    responses=error_responses(401, 404, 409),
)
def discard_proposal(
    conversation_id: str, proposal_id: str, user: CurrentUser, db: SessionDep
) -> StatusOut:
    proposal = _owned(db, conversation_id, proposal_id, user.id)
    service.discard(db, proposal=proposal)
    return StatusOut(proposal_id=proposal.id, status=proposal.status)

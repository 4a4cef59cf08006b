"""Proposals from the user's own agents (SPEC §14): listed, applied and discarded in the page."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from backend.api.deps import CurrentUser, SessionDep, SettingsDep
from backend.api.routes.proposals import AppliedOut, StatusOut
from backend.errors import error_responses
from backend.models.proposals import EditProposal
from backend.services import proposals as service
from backend.services import workspaces

router = APIRouter(prefix="/api/proposals", tags=["agents"])


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


class SourceOut(_Camel):
    kind: Literal["agent"] = "agent"
    name: str | None = Field(description="The name of the token the agent used.")


class AgentProposalOut(_Camel):
    proposal_id: str
    workspace_id: str
    path: str
    source: SourceOut
    summary: str | None
    diff: str = Field(description="Unified diff of the saved copy it was made on → proposed.")
    status: str = Field(description="pending, applied or discarded.")
    created_at: datetime
    edits: list[dict[str, Any]] = Field(description="The edits, for applying in an editor.")
    base_revision: int
    applied_via: str | None = Field(
        description="server (the apply endpoint) or editor (the page's live editor); null "
        "while pending or when discarded."
    )


class AgentProposalList(_Camel):
    proposals: list[AgentProposalOut]


def _out(p: EditProposal) -> AgentProposalOut:
    return AgentProposalOut(
        proposal_id=p.id,
        workspace_id=p.workspace_id,
        path=p.path,
        source=SourceOut(name=p.agent_name),
        summary=p.summary,
        diff=p.diff,
        status=p.status,
        created_at=p.created_at,
        edits=service.edits_of(p),
        base_revision=p.base_revision,
        applied_via=p.applied_via,
    )


@router.get(
    "",
    response_model=AgentProposalList,
    summary="Your proposals from outside agents, oldest first",
    responses=error_responses(401, 422),
)
def list_proposals(
    user: CurrentUser,
    db: SessionDep,
    status: Literal["pending", "applied", "discarded"] | None = Query(default=None),
) -> AgentProposalList:
    found = service.list_agents(db, user_id=user.id, status=status)
    return AgentProposalList(proposals=[_out(p) for p in found])


@router.get(
    "/{proposal_id}",
    response_model=AgentProposalOut,
    summary="One of your proposals from outside agents",
    responses=error_responses(401, 404),
)
def get_proposal(proposal_id: str, user: CurrentUser, db: SessionDep) -> AgentProposalOut:
    return _out(service.get_agents(db, proposal_id=proposal_id, user_id=user.id))


@router.post(
    "/{proposal_id}/apply",
    response_model=AppliedOut,
    summary="Apply an agent's pending proposal to the note's current saved copy",
    description="As the assistant's apply: each find must still occur exactly once and the "
    "save is conditional on the revision read; 409 (nothing changed) otherwise.",
    responses=error_responses(401, 403, 404, 409),
)
def apply_proposal(
    proposal_id: str, user: CurrentUser, db: SessionDep, settings: SettingsDep
) -> AppliedOut:
    proposal = service.get_agents(db, proposal_id=proposal_id, user_id=user.id)
    workspaces.require_editor(db, user_id=user.id, workspace_id=proposal.workspace_id)
    doc = service.apply(db, proposal=proposal, max_bytes=settings.max_note_bytes)
    return AppliedOut(path=doc.path, revision=doc.revision)


@router.post(
    "/{proposal_id}/applied-in-editor",
    response_model=StatusOut,
    summary="Record that the page applied an agent's proposal in its live editor",
    description="Changes no document (the page's autosave saves the note). 409 when it is "
    "not pending.",
    responses=error_responses(401, 403, 404, 409),
)
def applied_in_editor(proposal_id: str, user: CurrentUser, db: SessionDep) -> StatusOut:
    proposal = service.get_agents(db, proposal_id=proposal_id, user_id=user.id)
    workspaces.require_editor(db, user_id=user.id, workspace_id=proposal.workspace_id)
    service.mark_applied_in_editor(db, proposal=proposal)
    return StatusOut(proposal_id=proposal.id, status=proposal.status)


@router.post(
    "/{proposal_id}/discard",
    response_model=StatusOut,
    summary="Discard an agent's pending proposal",
    responses=error_responses(401, 404, 409),
)
def discard_proposal(proposal_id: str, user: CurrentUser, db: SessionDep) -> StatusOut:
    proposal = service.get_agents(db, proposal_id=proposal_id, user_id=user.id)
    service.discard(db, proposal=proposal)
    return StatusOut(proposal_id=proposal.id, status=proposal.status)

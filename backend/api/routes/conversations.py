"""The user's assistant conversations (SPEC §15): list them per workspace, delete one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from backend.api.deps import CurrentUser, SessionDep
from backend.assistant import conversations as stored
from backend.errors import error_responses
from backend.services import conversations as service
from backend.services import workspaces

router = APIRouter(prefix="/api/assistant/conversations", tags=["assistant"])


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


class ConversationSummary(_Camel):
    conversation_id: str
    title: str = Field(
        description=f"The first user message, cut to {service.TITLE_CHARS} characters."
    )
    updated_at: datetime = Field(description="When its last turn began.")
    message_count: int


class ConversationList(_Camel):
    conversations: list[ConversationSummary]


WorkspaceParam = Annotated[
    str,
    Query(alias="workspaceId", min_length=1, max_length=64, description="The workspace slug."),
]


@router.get(
    "",
    response_model=ConversationList,
    summary="The user's conversations in a workspace, newest first",
    description=f"At most the newest {service.MAX_LISTED:,}; each keeps no text but its title.",
    responses=error_responses(401, 403, 422),
)
def list_conversations(
    workspace_id: WorkspaceParam, user: CurrentUser, db: SessionDep
) -> ConversationList:
    workspaces.require_member(db, user_id=user.id, workspace_id=workspace_id)
    found = service.list_for(db, user_id=user.id, workspace_id=workspace_id)
    return ConversationList(
        conversations=[
            ConversationSummary(
                conversation_id=s.conversation_id,
                title=s.title,
                updated_at=s.updated_at,
                message_count=s.message_count,
            )
            for s in found
        ]
    )


@router.delete(
    "/{conversation_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a conversation with its messages and proposals (owner only)",
    responses=error_responses(401, 403, 404),
)
def delete_conversation(conversation_id: str, user: CurrentUser, db: SessionDep) -> Response:
    conv = stored.get_owned(db, conversation_id=conversation_id, user_id=user.id)
    service.delete_conversation(db, conversation_id=conv.id)
    return Response(status_code=204)

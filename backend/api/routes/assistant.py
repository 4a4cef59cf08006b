"""The assistant API (SPEC §4-5): turns, stored conversations, and tools over HTTP."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Body, Depends, Header, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from ambient.contract import AMBIENT_OFF_HEADER, HEADER_NAME, KEY_SESSION_HEADER
from ambient.pointer import MAX_HEADER_BYTES
from backend.api.deps import AgentDep, CurrentUser, SessionDep, SettingsDep, per_user
from backend.api.routes.proposals import ProposalOut, proposal_out
from backend.assistant import conversations, registry, turns
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool
from backend.errors import NotFound, error_responses
from backend.services import proposals

router = APIRouter(prefix="/api/assistant", tags=["assistant"])

MAX_MESSAGE_CHARS = 20_000


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


class TurnIn(_Camel):
    conversation_id: uuid.UUID = Field(description="Client-made UUID of the conversation.")
    workspace_id: str = Field(min_length=1, max_length=64, description="The workspace slug.")
    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)

    @field_validator("message")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        if "\x00" in value:  # PostgreSQL cannot store it; refuse it plainly instead
            raise ValueError("The message must not contain a NUL character.")
        return value


class ToolCallOut(BaseModel):
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any]


class TurnOut(_Camel):
    conversation_id: str
    reply: str
    tool_calls: list[ToolCallOut]


class MessageOut(_Camel):
    role: str
    content: str
    tool_calls: list[ToolCallOut] = Field(
        description="Tool calls with result summaries: no note text is stored."
    )
    created_at: datetime


class ConversationOut(_Camel):
    conversation_id: str
    workspace_id: str
    messages: list[MessageOut]
    proposals: list[ProposalOut] = Field(
        description="The conversation's edit proposals, oldest first, each with its outcome "
        "(`status`, `appliedVia`) and diff: a resumed chat draws every proposal card from "
        "this one answer. A message's `propose_edit` call names its proposal by `proposalId`."
    )


def _sse(events) -> Iterator[str]:
    """Server-sent events: `event: <kind>` and one line of JSON `data` each."""
    try:
        for kind, data in events:
            yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
    finally:
        events.close()


async def _until_gone(chunks: Iterator[str]) -> AsyncIterator[str]:
    """Drive the blocking event source in a worker thread, and close it when the client goes
    away (Stop): the turn then stores what was said and the model's stream is closed."""
    try:
        while True:
            # Cancellation waits for the running step to return, so closing below is safe.
            chunk = await anyio.to_thread.run_sync(next, chunks, None)
            if chunk is None:
                return
            yield chunk
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(chunks.close)


_STREAMED = {
    200: {
        "description": "The turn's JSON form; or, with `Accept: text/event-stream`, server-sent "
        "events: `delta` ({text}) as the reply is written, `tool` ({tool, arguments, result}) "
        "after each tool call, and `done` with the JSON form (its `reply` is the final text).",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


@router.post(
    "/turns",
    response_model=TurnOut,
    summary="Send a message to the assistant",
    responses={**_STREAMED, **error_responses(401, 403, 404, 422, 429)},
    dependencies=[Depends(per_user("turns"))],  # backend.limits.throttle: 429 past route_rate_limit
)
def post_turn(
    request: Request,
    body: TurnIn,
    user: CurrentUser,
    db: SessionDep,
    agent: AgentDep,
    key_session: Annotated[
        str | None,
        Header(alias=KEY_SESSION_HEADER, description="The workspace's key session id."),
    ] = None,
    ambient_note: Annotated[
        str | None,
        Header(
            alias=HEADER_NAME,
            description="The ambient pointer: unpadded base64url JSON, at most "
            f"{MAX_HEADER_BYTES:,} bytes. A bad value is treated as absent.",
        ),
    ] = None,
    ambient_off: Annotated[
        str | None,
        Header(
            alias=AMBIENT_OFF_HEADER,
            description='"1" when the user switched "this note" off for the conversation: no '
            "pointer is used and the assistant says so. Any other value is ignored.",
        ),
    ] = None,
    accept: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Any:
    args = {
        "user_id": user.id,
        "conversation_id": str(body.conversation_id),
        "workspace_id": body.workspace_id,
        "message": body.message,
        "key_session_id": key_session,
        "ambient_header": ambient_note,
        "ambient_off": (ambient_off or "").strip() == "1",
    }
    if "text/event-stream" in (accept or ""):
        # The checks (401/403/404/422) answer before any event; then the reply streams.
        started = turns.start_turn(db, **args)
        events = turns.stream_turn(request.app.state.sessionmaker, started, agent)
        return StreamingResponse(
            _until_gone(_sse(events)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    result = turns.handle_turn(db, agent=agent, **args)
    return TurnOut(
        conversation_id=result.conversation_id,
        reply=result.reply,
        tool_calls=[ToolCallOut(**c) for c in result.tool_calls],
    )


@router.get(
    "/conversations/{conversation_id}",
    response_model=ConversationOut,
    summary="A stored conversation, for its owner",
    responses=error_responses(401, 404),
)
def get_conversation(conversation_id: str, user: CurrentUser, db: SessionDep) -> ConversationOut:
    conv = conversations.get_owned(db, conversation_id=conversation_id, user_id=user.id)
    stored_calls = conversations.message_tool_calls
    messages = [
        MessageOut(
            role=m.role,
            content=m.content,
            tool_calls=[ToolCallOut(**c) for c in _well_formed(stored_calls(m))],
            created_at=m.created_at,
        )
        for m in conversations.list_messages(db, conversation_id=conv.id)
    ]
    found = proposals.list_for(db, conversation_id=conv.id, user_id=user.id)
    return ConversationOut(
        conversation_id=conv.id,
        workspace_id=conv.workspace_id,
        messages=messages,
        proposals=[proposal_out(p) for p in found],
    )


@router.post(
    "/conversations/{conversation_id}/tools/{name}",
    summary="Call a tool with this conversation's delivery authority (owner only)",
    responses=error_responses(401, 404, 422, 429),
    dependencies=[Depends(per_user("tools"))],  # backend.limits.throttle: 429 past route_rate_limit
)
def call_tool(
    conversation_id: str,
    name: str,
    user: CurrentUser,
    db: SessionDep,
    settings: SettingsDep,
    arguments: Annotated[dict[str, Any] | None, Body()] = None,
) -> dict[str, Any]:
    conv = conversations.get_owned(db, conversation_id=conversation_id, user_id=user.id)
    if name not in registry.SPECS:
        raise NotFound("There is no tool with that name.")
    ctx = ToolContext(
        db=db, conversation_id=conv.id, user_id=user.id, max_note_bytes=settings.max_note_bytes
    )
    try:
        return registry.call_tool(ctx, name, arguments or {})
    except UnknownTool:
        raise NotFound("There is no tool with that name.") from None
    except ToolArgumentError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from None


def _well_formed(calls: list) -> list[dict]:
    return [
        c
        for c in calls
        if isinstance(c, dict)
        and isinstance(c.get("tool"), str)
        and isinstance(c.get("arguments"), dict)
        and isinstance(c.get("result"), dict)
    ]

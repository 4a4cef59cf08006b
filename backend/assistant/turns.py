"""One assistant turn, start to finish: ingress rules, the agent, stored messages, logs."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.orm import Session

from backend.assistant import ingress, registry
from backend.assistant.agent import AgentResult, OfflineAgent
from backend.assistant.tools import ToolContext
from backend.config import Settings
from backend.db import utcnow

log = logging.getLogger("ambient.assistant.turn")

HISTORY_MESSAGES = 20
AGENT_FAILED = (
    "Sorry, I ran into a problem while answering and could not finish. Your message is saved; "
    "please try again."
)


class Agent(Protocol):
    name: str

    def run(
        self, ctx: ToolContext, message: str, *, turn_id: str | None, history: list[dict]
    ) -> AgentResult: ...


def make_agent(settings: Settings) -> Agent:
    """The OpenAI-compatible client when a base URL is configured, else the offline agent."""
    if settings.llm_base_url:
        from backend.assistant.llm import LLMAgent

        return LLMAgent.from_settings(settings)
    return OfflineAgent()


@dataclass(frozen=True)
class TurnResult:
    conversation_id: str
    reply: str
    tool_calls: list[dict]


def handle_turn(
    db: Session,
    *,
    user_id: int,
    conversation_id: str,
    workspace_id: str,
    message: str,
    key_session_id: str | None,
    ambient_header: str | None,
    agent: Agent,
    ambient_off: bool = False,
    now: datetime | None = None,
) -> TurnResult:
    """Run one turn. Raises NotFound (another user's conversation) or Forbidden (not a member).

    Order: conversation, membership, purge of expired rows, the delivery row, the user's
    message (stored before the agent runs, so it is kept whatever happens next), the agent,
    the reply. The header value and note text are never logged; a bad header's reason is.
    `ambient_off` (the page's X-Ambient-Off) means the user switched "this note" off: no
    pointer is stored even if one came, and the no-note answers say so.
    """
    started = time.perf_counter()
    turn_id = uuid.uuid4().hex[:12]
    now = now or utcnow()
    cid = ingress.canonical_id(conversation_id)
    ingress.refuse_foreign(db, conversation_id=cid, user_id=user_id)
    ingress.check_member(db, user_id=user_id, workspace_id=workspace_id)
    ingress.open_conversation(
        db, conversation_id=cid, user_id=user_id, workspace_id=workspace_id, now=now
    )
    ingress.purge_expired(db, now=now)
    delivery = ingress.record_delivery(
        db,
        conversation_id=cid,
        user_id=user_id,
        workspace_id=workspace_id,
        key_session_id=key_session_id,
        ambient_header=None if ambient_off else ambient_header,
        now=now,
    )
    history = [
        {"role": m.role, "content": m.content}
        for m in ingress.list_messages(db, conversation_id=cid, last=HISTORY_MESSAGES)
    ]
    ingress.add_message(db, conversation_id=cid, role="user", content=message, now=now)
    ctx = ToolContext(db=db, conversation_id=cid, user_id=user_id, ambient_off=ambient_off)
    try:
        result = agent.run(ctx, message, turn_id=turn_id, history=history)
    except Exception as exc:  # noqa: BLE001 - the turn must answer; only the type is logged
        db.rollback()
        log.error(
            "agent_failed",
            extra={"fields": {"turn_id": turn_id, "error_type": type(exc).__name__}},
        )
        result = AgentResult(reply=AGENT_FAILED, tool_calls=[])
    if "\x00" in result.reply:  # a model's stray NUL: PostgreSQL cannot store it
        result = AgentResult(reply=result.reply.replace("\x00", ""), tool_calls=result.tool_calls)
    stored_calls = [
        {
            "tool": c["tool"],
            "arguments": registry.summarize_arguments(c["tool"], c["arguments"]),
            "result": registry.summarize_result(c["result"]),
        }
        for c in result.tool_calls
    ]
    ingress.add_message(
        db,
        conversation_id=cid,
        role="assistant",
        content=result.reply,
        tool_calls=stored_calls,
        now=utcnow(),
    )
    log.info(
        "turn",
        extra={
            "fields": {
                "turn_id": turn_id,
                "user_id": user_id,
                "agent": agent.name,
                "key_session": "valid" if delivery.granted else "none",
                "pointer": "valid" if delivery.pointer else "none",
                "pointer_reason": delivery.pointer_reason,
                "tools": [c["tool"] for c in result.tool_calls],
                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            }
        },
    )
    return TurnResult(conversation_id=cid, reply=result.reply, tool_calls=result.tool_calls)

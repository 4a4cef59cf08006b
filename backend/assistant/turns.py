"""One assistant turn, start to finish: ingress rules, the agent, stored messages, logs."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.orm import Session

from backend.assistant import conversations, deliveries, registry
from backend.assistant.agent import AgentResult
from backend.assistant.language import language
from backend.assistant.messages import say
from backend.assistant.tools import ToolContext
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


@dataclass(frozen=True)
class TurnResult:
    conversation_id: str
    reply: str
    tool_calls: list[dict]


@dataclass
class StartedTurn:
    """A turn whose checks passed and whose user message is stored; the agent runs next."""

    turn_id: str
    conversation_id: str
    user_id: int
    message: str
    history: list[dict]
    ambient_off: bool
    granted: bool
    pointer: bool
    pointer_reason: str | None
    started: float

    def context(self, db: Session) -> ToolContext:
        return ToolContext(
            db=db,
            conversation_id=self.conversation_id,
            user_id=self.user_id,
            ambient_off=self.ambient_off,
        )


def start_turn(
    db: Session,
    *,
    user_id: int,
    conversation_id: str,
    workspace_id: str,
    message: str,
    key_session_id: str | None,
    ambient_header: str | None,
    ambient_off: bool = False,
    now: datetime | None = None,
) -> StartedTurn:
    """Everything before the agent. Raises NotFound (another user's conversation) or
    Forbidden (not a member).

    Order: conversation, membership, purge of expired rows, the delivery row, the user's
    message (stored before the agent runs, so it is kept whatever happens next).
    `ambient_off` (the page's X-Ambient-Off) means the user switched "this note" off: no
    pointer is stored even if one came, and the no-note answers say so.
    """
    started = time.perf_counter()
    now = now or utcnow()
    cid = conversations.canonical_id(conversation_id)
    conversations.refuse_foreign(db, conversation_id=cid, user_id=user_id)
    conversations.check_member(db, user_id=user_id, workspace_id=workspace_id)
    conversations.open_conversation(
        db, conversation_id=cid, user_id=user_id, workspace_id=workspace_id, now=now
    )
    deliveries.purge_expired(db, now=now)
    delivery = deliveries.record_delivery(
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
        for m in conversations.list_messages(db, conversation_id=cid, last=HISTORY_MESSAGES)
    ]
    conversations.add_message(db, conversation_id=cid, role="user", content=message, now=now)
    return StartedTurn(
        turn_id=uuid.uuid4().hex[:12],
        conversation_id=cid,
        user_id=user_id,
        message=message,
        history=history,
        ambient_off=ambient_off,
        granted=delivery.granted,
        pointer=bool(delivery.pointer),
        pointer_reason=delivery.pointer_reason,
        started=started,
    )


def failed(db: Session, turn: StartedTurn, exc: BaseException) -> AgentResult:
    """An agent that raised: the turn still answers; only the error's type is logged."""
    db.rollback()
    log.error(
        "agent_failed",
        extra={"fields": {"turn_id": turn.turn_id, "error_type": type(exc).__name__}},
    )
    return AgentResult(reply=AGENT_FAILED, tool_calls=[])


def finish_turn(
    db: Session, turn: StartedTurn, result: AgentResult, agent_name: str, *, stopped=False
) -> TurnResult:
    """Store the reply with its tool calls (summaries without note text) and log the turn."""
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
    conversations.add_message(
        db,
        conversation_id=turn.conversation_id,
        role="assistant",
        content=result.reply,
        tool_calls=stored_calls,
        now=utcnow(),
    )
    log.info(
        "turn",
        extra={
            "fields": {
                "turn_id": turn.turn_id,
                "user_id": turn.user_id,
                "agent": agent_name,
                "key_session": "valid" if turn.granted else "none",
                "pointer": "valid" if turn.pointer else "none",
                "pointer_reason": turn.pointer_reason,
                "tools": [c["tool"] for c in result.tool_calls],
                "stopped": stopped,
                "duration_ms": round((time.perf_counter() - turn.started) * 1000, 2),
            }
        },
    )
    return TurnResult(
        conversation_id=turn.conversation_id, reply=result.reply, tool_calls=result.tool_calls
    )


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
    """Run one turn (start_turn, the agent, finish_turn); see start_turn for what it raises.

    The header value and note text are never logged; a bad header's reason is.
    """
    turn = start_turn(
        db,
        user_id=user_id,
        conversation_id=conversation_id,
        workspace_id=workspace_id,
        message=message,
        key_session_id=key_session_id,
        ambient_header=ambient_header,
        ambient_off=ambient_off,
        now=now,
    )
    try:
        result = agent.run(turn.context(db), message, turn_id=turn.turn_id, history=turn.history)
    except Exception as exc:  # noqa: BLE001 - the turn must answer; only the type is logged
        result = failed(db, turn, exc)
    return finish_turn(db, turn, result, agent.name)


def stream_turn(
    sessionmaker: Callable[[], Session], turn: StartedTurn, agent: Agent
) -> Iterator[tuple[str, dict]]:
    """A started turn's events: ("delta", {"text"}) as the reply is written, ("tool", call)
    after each tool call, then ("done", the turn's JSON form). An agent without `stream`
    answers in one delta.

    Closing the generator early (the user pressed Stop and the connection went away) stores
    what was said so far, marked as stopped, with the tool calls made; the model's stream is
    closed with it. Its own database session: the request's may be gone while it streams.
    """
    with sessionmaker() as db:
        said: list[str] = []
        calls: list[dict] = []
        result: AgentResult | None = None
        source = None
        try:
            streaming = getattr(agent, "stream", None)
            if streaming is None:
                result = agent.run(
                    turn.context(db), turn.message, turn_id=turn.turn_id, history=turn.history
                )
                yield "delta", {"text": result.reply}
            else:
                source = streaming(
                    turn.context(db), turn.message, turn_id=turn.turn_id, history=turn.history
                )
                for kind, value in source:
                    if kind == "result":
                        result = value
                    elif kind == "delta":
                        said.append(value)
                        yield "delta", {"text": value}
                    elif kind == "tool":
                        calls.append(value)
                        yield "tool", value
        except Exception as exc:  # noqa: BLE001 - the turn must answer; only the type is logged
            result = failed(db, turn, exc)
        finally:
            if source is not None:
                source.close()
            if result is None:  # stopped: GeneratorExit is on its way up
                lang = language(turn.message)
                text = "".join(said).rstrip()
                stopped = say("turn.stopped", lang)
                reply = f"{text}\n\n{stopped}" if text else stopped
                finish_turn(db, turn, AgentResult(reply, calls), agent.name, stopped=True)
        done = finish_turn(db, turn, result, agent.name)
        yield (
            "done",
            {
                "conversationId": done.conversation_id,
                "reply": done.reply,
                "toolCalls": done.tool_calls,
            },
        )

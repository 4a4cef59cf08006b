"""The chat agent on a configured language model: tool calls looped, run or streamed."""

from __future__ import annotations

import json
import logging
from collections.abc import Generator, Iterator
from typing import Any

from backend.assistant import registry
from backend.assistant.agent import AgentResult, OfflineAgent
from backend.assistant.language import language
from backend.assistant.messages import say
from backend.assistant.model import MALFORMED, ChatModel, ModelFailure
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool
from backend.config import Settings
from backend.tool_arguments import refused

log = logging.getLogger("ambient.assistant.llm")

MAX_ITERATIONS = 6
LOOP = "loop"  # the model kept calling tools: the agent's own failure kind

SYSTEM_PROMPT = """You are the assistant inside a Markdown notes workspace.
Rules for the user's notes:
- Phrases such as "this note", "this", "it", "here", "summarise this", このノート, これ, このメモ \
or この文書 mean the note the user has open. For any request that does not name a note, call \
read_active_note first. Call it again on every new turn: the open note may have changed, so never \
rely on an earlier turn's result.
- A request that names a note by its path uses read_document. list_documents lists the notes.
- If read_active_note says that no note is open, ask the user which note they mean, or offer to \
list their notes.
- To change a note, call propose_edit: it never writes, it stores a proposal the user applies \
or discards. Each find must occur exactly once in the saved copy (read the note first and \
include enough surrounding text); append adds text at the end. Tell the user what you proposed.
- When a tool result carries a caveat, include that sentence verbatim in your reply.
- Reply in the language of the user's latest message."""


def tool_schemas() -> list[dict]:
    """The tools as OpenAI "function" tools with JSON-schema parameters."""
    return [
        {"type": "function", "function": {"name": name, **spec}}
        for name, spec in registry.SPECS.items()
    ]


def _for_model(result: dict) -> str:
    """What the model reads: the result without `content` (its `text` already frames it)."""
    return json.dumps({k: v for k, v in result.items() if k != "content"}, ensure_ascii=False)


def _conversation(message: str, history: list[dict] | None) -> list[dict]:
    """The system prompt, the stored user/assistant messages, then the new message."""
    messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT}]
    messages += [m for m in (history or []) if m.get("role") in ("user", "assistant")]
    messages.append({"role": "user", "content": message})
    return messages


Events = Generator[tuple[str, Any], None, None]


class LLMAgent:
    """Loops chat completions and tool calls (bounded); every failure becomes a clear reply."""

    name = "llm"

    def __init__(self, model: ChatModel) -> None:
        self.model = model  # the app's one client (app.state.model)

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMAgent:
        """An agent with a client of its own (the app builds one in create_app instead)."""
        model = ChatModel.from_settings(settings)
        if model is None:
            raise ValueError("No language model is configured.")
        return cls(model)

    def run(
        self, ctx: ToolContext, message: str, *, turn_id: str | None = None, history=None
    ) -> AgentResult:
        for kind, value in self._events(ctx, message, turn_id, history, streamed=False):
            if kind == "result":
                return value
        raise AssertionError("the turn ended without a result")  # _events always ends so

    def stream(
        self, ctx: ToolContext, message: str, *, turn_id: str | None = None, history=None
    ) -> Iterator[tuple[str, Any]]:
        """Like run, but yields ("delta", text) as the model writes and ("tool", call) after
        each tool call, then ("result", AgentResult). Closing the generator (the user pressed
        Stop) closes the model's stream."""
        return self._events(ctx, message, turn_id, history, streamed=True)

    def _events(self, ctx, message, turn_id, history, *, streamed: bool) -> Events:
        """The one turn loop: a completion, its tool calls answered, until the model replies."""
        lang = language(message)
        calls: list[dict] = []
        messages = _conversation(message, history)
        try:
            for iteration in range(MAX_ITERATIONS):
                fields = {"turn_id": turn_id, "iteration": iteration}
                if streamed:
                    said, tool_calls = yield from self._streamed(messages, fields)
                else:
                    msg = self.model.complete(messages, tools=tool_schemas(), fields=fields)
                    said, tool_calls = msg.get("content"), msg.get("tool_calls")
                if not tool_calls:
                    if not isinstance(said, str) or not said.strip():
                        raise ModelFailure(MALFORMED)
                    yield "result", AgentResult(with_caveats(said, calls), calls)
                    return
                if not isinstance(tool_calls, list):
                    raise ModelFailure(MALFORMED)
                messages.append(
                    {"role": "assistant", "content": said or None, "tool_calls": tool_calls}
                )
                for tc in tool_calls:
                    messages.append(run_tool(ctx, tc, calls, turn_id))
                    yield "tool", calls[-1]
            raise ModelFailure(LOOP)
        except ModelFailure as failure:
            log.warning("llm_failed", extra={"fields": {"turn_id": turn_id, "kind": failure.kind}})
            reply = say(f"model.{failure.kind}", lang, status=failure.status)
            yield "result", AgentResult(reply, calls)

    def _streamed(
        self, messages: list[dict], fields: dict
    ) -> Generator[tuple[str, Any], None, tuple[str, list[dict]]]:
        """Stream one completion: its text deltas are passed on; returns (text, tool calls)."""
        parts: list[str] = []
        pending: dict[int, dict] = {}
        for kind, value in self.model.stream(messages, tools=tool_schemas(), fields=fields):
            if kind == "delta":
                parts.append(value)
                yield "delta", value
            else:
                _merge_tool_delta(pending, value)
        return "".join(parts), [pending[i] for i in sorted(pending)]


def agent_for(model: ChatModel | None) -> LLMAgent | OfflineAgent:
    """The app's agent: the model's when one is configured, else the built-in offline one."""
    return OfflineAgent() if model is None else LLMAgent(model)


def _merge_tool_delta(pending: dict[int, dict], tc: Any) -> None:
    """Assemble streamed tool calls: pieces share an index; name and arguments arrive in parts."""
    index = getattr(tc, "index", None)
    index = index if isinstance(index, int) else len(pending)
    call = pending.setdefault(
        index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
    )
    if getattr(tc, "id", None):
        call["id"] = tc.id
    fn = getattr(tc, "function", None)
    if fn is not None:
        call["function"]["name"] += getattr(fn, "name", None) or ""
        call["function"]["arguments"] += getattr(fn, "arguments", None) or ""


def with_caveats(reply: str, calls: list[dict]) -> str:
    """The caveat must reach the user verbatim even when the model leaves it out."""
    for call in calls:
        caveat = call["result"].get("caveat")
        if caveat and caveat not in reply:
            reply = f"{reply}\n\n{caveat}"
    return reply


def run_tool(ctx: ToolContext, tc: object, calls: list[dict], turn_id) -> dict:
    """Run one tool call of the model; bad names or arguments are answered, not fatal."""
    if not isinstance(tc, dict) or not isinstance(tc.get("function"), dict):
        raise ModelFailure(MALFORMED)
    name = tc["function"].get("name")
    raw = tc["function"].get("arguments") or "{}"
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        args = None
    if not isinstance(name, str):
        raise ModelFailure(MALFORMED)
    try:
        result = registry.call_tool(ctx, name, args, turn_id=turn_id)
    except UnknownTool:
        result = {"ok": False, "text": "There is no tool with that name."}
    except ToolArgumentError as exc:
        result = refused(str(exc))
    calls.append(
        {"tool": name, "arguments": args if isinstance(args, dict) else {}, "result": result}
    )
    return {"role": "tool", "tool_call_id": tc.get("id") or "", "content": _for_model(result)}

"""An OpenAI-compatible chat client (the official `openai` SDK) that replaces the offline agent."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import openai

from backend.assistant import registry
from backend.assistant.agent import AgentResult
from backend.assistant.intent import language
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool
from backend.config import Settings

log = logging.getLogger("ambient.assistant.llm")

MAX_ITERATIONS = 6
OPENAI_BASE_URL = "https://api.openai.com/v1"  # used when only an API key is configured
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
_listed_models: dict[str, str] = {}  # base URL → the first model it listed (successes only)

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

_ERRORS = {
    "timeout": {
        "en": "Sorry, the language model did not answer in time, so I could not reply. Your "
        "message is saved; please try again.",
        "ja": "申し訳ありません。言語モデルが時間内に応答しなかったため、返信できませんでした。"
        "メッセージは保存されています。もう一度お試しください。",
    },
    "unreachable": {
        "en": "Sorry, I could not reach the language model service. Your message is saved; "
        "please try again later.",
        "ja": "申し訳ありません。言語モデルのサービスに接続できませんでした。"
        "メッセージは保存されています。しばらくしてからお試しください。",
    },
    "status": {
        "en": "Sorry, the language model service returned an error (HTTP {status}). Your message "
        "is saved; please try again.",
        "ja": "申し訳ありません。言語モデルのサービスがエラー（HTTP {status}）を返しました。"
        "メッセージは保存されています。もう一度お試しください。",
    },
    "malformed": {
        "en": "Sorry, the language model sent a reply I could not understand. Your message is "
        "saved; please try again.",
        "ja": "申し訳ありません。言語モデルの応答を解釈できませんでした。"
        "メッセージは保存されています。もう一度お試しください。",
    },
    "loop": {
        "en": "Sorry, the language model kept calling tools without answering, so I stopped. "
        "Your message is saved; please try again.",
        "ja": "申し訳ありません。言語モデルが回答せずにツールを呼び続けたため中断しました。"
        "メッセージは保存されています。もう一度お試しください。",
    },
}


class _Stop(Exception):
    def __init__(self, kind: str, **fmt: Any) -> None:
        super().__init__(kind)
        self.kind = kind
        self.fmt = fmt


def tool_schemas() -> list[dict]:
    """The tools as OpenAI "function" tools with JSON-schema parameters."""
    return [
        {"type": "function", "function": {"name": name, **spec}}
        for name, spec in registry.SPECS.items()
    ]


def _for_model(result: dict) -> str:
    """What the model reads: the result without `content` (its `text` already frames it)."""
    return json.dumps({k: v for k, v in result.items() if k != "content"}, ensure_ascii=False)


class LLMAgent:
    """Loops chat completions and tool calls (bounded); every failure becomes a clear reply."""

    name = "llm"

    def __init__(
        self,
        *,
        base_url: str,
        model: str | None,
        api_key: str | None,
        timeout: float,
        client: openai.OpenAI | None = None,
    ) -> None:
        self.model = model or "default"
        # No retries: a turn should fail fast and plainly. A placeholder key is sent when none
        # is configured (local servers ignore it; the SDK would otherwise read OPENAI_API_KEY).
        self.client = client or openai.OpenAI(
            base_url=base_url.rstrip("/"),
            api_key=api_key or "no-key",
            timeout=timeout,
            max_retries=0,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMAgent:
        """One setting is enough: a base URL (Ollama, llama.cpp: the model is the first one
        the server lists) or an API key alone (OpenAI itself, gpt-4o-mini)."""
        base_url = (settings.llm_base_url or OPENAI_BASE_URL).rstrip("/")
        agent = cls(
            base_url=base_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout_seconds,
        )
        if not settings.llm_model:
            openai_itself = base_url == OPENAI_BASE_URL
            agent.model = OPENAI_DEFAULT_MODEL if openai_itself else agent._first_model(base_url)
        return agent

    def _first_model(self, base_url: str) -> str:
        """The first model GET {base}/models lists, remembered per server; "default" if none."""
        if base_url not in _listed_models:
            try:
                first = next(iter(self.client.models.list()), None)
            except (openai.OpenAIError, ValueError, TypeError):
                first = None
            if first is None or not getattr(first, "id", None):
                return "default"
            _listed_models[base_url] = first.id
        return _listed_models[base_url]

    def run(
        self, ctx: ToolContext, message: str, *, turn_id: str | None = None, history=None
    ) -> AgentResult:
        lang = language(message)
        calls: list[dict] = []
        messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT}]
        messages += [m for m in (history or []) if m.get("role") in ("user", "assistant")]
        messages.append({"role": "user", "content": message})
        try:
            reply = self._loop(ctx, messages, calls, turn_id)
        except _Stop as stop:
            log.warning("llm_failed", extra={"fields": {"turn_id": turn_id, "kind": stop.kind}})
            return AgentResult(reply=_ERRORS[stop.kind][lang].format(**stop.fmt), tool_calls=calls)
        return AgentResult(reply=with_caveats(reply, calls), tool_calls=calls)

    def _loop(self, ctx, messages, calls, turn_id) -> str:
        for iteration in range(MAX_ITERATIONS):
            msg = self._complete(messages, turn_id, iteration)
            tool_calls = msg.get("tool_calls")
            if not tool_calls:
                content = msg.get("content")
                if not isinstance(content, str) or not content.strip():
                    raise _Stop("malformed")
                return content
            if not isinstance(tool_calls, list):
                raise _Stop("malformed")
            messages.append(
                {"role": "assistant", "content": msg.get("content"), "tool_calls": tool_calls}
            )
            for tc in tool_calls:
                messages.append(run_tool(ctx, tc, calls, turn_id))
        raise _Stop("loop")

    def _complete(self, messages, turn_id, iteration) -> dict:
        with _model_call(turn_id, iteration, stream=False) as call:
            completion = self.client.chat.completions.create(
                model=self.model, messages=messages, tools=tool_schemas()
            )
            call["status"] = 200
        return _first_message(completion)

    def stream(
        self, ctx: ToolContext, message: str, *, turn_id: str | None = None, history=None
    ) -> Iterator[tuple[str, Any]]:
        """Like run, but yields ("delta", text) as the model writes and ("tool", call) after
        each tool call, then ("result", AgentResult). Closing the generator (the user pressed
        Stop) closes the model's stream."""
        lang = language(message)
        calls: list[dict] = []
        messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT}]
        messages += [m for m in (history or []) if m.get("role") in ("user", "assistant")]
        messages.append({"role": "user", "content": message})
        try:
            for iteration in range(MAX_ITERATIONS):
                parts: list[str] = []
                pending: dict[int, dict] = {}
                for kind, value in self._stream_completion(messages, turn_id, iteration):
                    if kind == "delta":
                        parts.append(value)
                        yield "delta", value
                    else:
                        _merge_tool_delta(pending, value)
                if not pending:
                    reply = "".join(parts)
                    if not reply.strip():
                        raise _Stop("malformed")
                    yield "result", AgentResult(with_caveats(reply, calls), calls)
                    return
                tool_calls = [pending[i] for i in sorted(pending)]
                said = "".join(parts) or None
                messages.append({"role": "assistant", "content": said, "tool_calls": tool_calls})
                for tc in tool_calls:
                    messages.append(run_tool(ctx, tc, calls, turn_id))
                    yield "tool", calls[-1]
            raise _Stop("loop")
        except _Stop as stop:
            log.warning("llm_failed", extra={"fields": {"turn_id": turn_id, "kind": stop.kind}})
            yield "result", AgentResult(_ERRORS[stop.kind][lang].format(**stop.fmt), calls)

    def _stream_completion(self, messages, turn_id, iteration) -> Iterator[tuple[str, Any]]:
        with _model_call(turn_id, iteration, stream=True) as call:
            stream = self.client.chat.completions.create(
                model=self.model, messages=messages, tools=tool_schemas(), stream=True
            )
            call["status"] = 200
            with stream:  # closed on every exit, Stop (GeneratorExit) included
                for chunk in stream:
                    if not chunk.choices:
                        continue
                    delta = chunk.choices[0].delta
                    if delta is None:
                        continue
                    if delta.content:
                        yield "delta", delta.content
                    for tc in delta.tool_calls or []:
                        yield "tool_delta", tc


@contextmanager
def _model_call(turn_id, iteration, *, stream: bool) -> Iterator[dict]:
    """One request to the model: the SDK's failures become a _Stop, and it is logged (no text)."""
    start = time.perf_counter()
    call: dict[str, Any] = {"status": None}
    # A stream's chunks are read attribute by attribute: a malformed one may lack any.
    malformed = (openai.OpenAIError, ValueError, TypeError) + ((AttributeError,) if stream else ())
    try:
        yield call
    except openai.APITimeoutError:
        raise _Stop("timeout") from None
    except openai.APIConnectionError:
        raise _Stop("unreachable") from None
    except openai.APIStatusError as exc:
        call["status"] = exc.status_code
        raise _Stop("status", status=exc.status_code) from None
    except malformed:
        raise _Stop("malformed") from None
    finally:
        fields = {"turn_id": turn_id, "iteration": iteration, "status": call["status"]}
        if stream:
            fields["stream"] = True
        fields["duration_ms"] = round((time.perf_counter() - start) * 1000, 2)
        log.info("llm_call", extra={"fields": fields})


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


def _first_message(completion: Any) -> dict:
    """The first choice's message as a plain dict; malformed when there is none."""
    try:
        msg = completion.choices[0].message
        data = msg.model_dump(exclude_none=True) if hasattr(msg, "model_dump") else msg
    except (AttributeError, IndexError, TypeError):
        raise _Stop("malformed") from None
    if not isinstance(data, dict):
        raise _Stop("malformed")
    return data


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
        raise _Stop("malformed")
    name = tc["function"].get("name")
    raw = tc["function"].get("arguments") or "{}"
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        args = None
    if not isinstance(name, str):
        raise _Stop("malformed")
    try:
        result = registry.call_tool(ctx, name, args, turn_id=turn_id)
    except UnknownTool:
        result = {"ok": False, "text": "There is no tool with that name."}
    except ToolArgumentError as exc:
        result = {"ok": False, "text": f"Invalid arguments: {exc}"}
    calls.append(
        {"tool": name, "arguments": args if isinstance(args, dict) else {}, "result": result}
    )
    return {"role": "tool", "tool_call_id": tc.get("id") or "", "content": _for_model(result)}

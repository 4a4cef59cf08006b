"""An OpenAI-compatible chat client that replaces the offline agent when llm_base_url is set."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx

from backend.assistant import registry
from backend.assistant.agent import AgentResult
from backend.assistant.intent import language
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool
from backend.config import Settings

log = logging.getLogger("ambient.assistant.llm")

MAX_ITERATIONS = 6

SYSTEM_PROMPT = """You are the assistant inside a Markdown notes workspace.
Rules for the user's notes:
- Phrases such as "this note", "this", "it", "here", "summarise this", このノート, これ, このメモ \
or この文書 mean the note the user has open. For any request that does not name a note, call \
read_active_note first. Call it again on every new turn: the open note may have changed, so never \
rely on an earlier turn's result.
- A request that names a note by its path uses read_document. list_documents lists the notes.
- If read_active_note says that no note is open, ask the user which note they mean, or offer to \
list their notes.
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
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model or "default"
        self.api_key = api_key
        self.timeout = timeout
        self.transport = transport

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMAgent:
        return cls(
            base_url=settings.llm_base_url or "",
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout_seconds,
        )

    def run(
        self, ctx: ToolContext, message: str, *, turn_id: str | None = None, history=None
    ) -> AgentResult:
        lang = language(message)
        calls: list[dict] = []
        messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT}]
        messages += [m for m in (history or []) if m.get("role") in ("user", "assistant")]
        messages.append({"role": "user", "content": message})
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            with httpx.Client(
                timeout=self.timeout, transport=self.transport, headers=headers
            ) as client:
                reply = self._loop(client, ctx, messages, calls, turn_id)
        except _Stop as stop:
            log.warning("llm_failed", extra={"fields": {"turn_id": turn_id, "kind": stop.kind}})
            return AgentResult(reply=_ERRORS[stop.kind][lang].format(**stop.fmt), tool_calls=calls)
        # The caveat must reach the user verbatim even when the model leaves it out.
        for call in calls:
            caveat = call["result"].get("caveat")
            if caveat and caveat not in reply:
                reply = f"{reply}\n\n{caveat}"
        return AgentResult(reply=reply, tool_calls=calls)

    def _loop(self, client, ctx, messages, calls, turn_id) -> str:
        for iteration in range(MAX_ITERATIONS):
            msg = self._complete(client, messages, turn_id, iteration)
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
                messages.append(self._run_tool(ctx, tc, calls, turn_id))
        raise _Stop("loop")

    def _complete(self, client: httpx.Client, messages, turn_id, iteration) -> dict:
        body = {"model": self.model, "messages": messages, "tools": tool_schemas()}
        start = time.perf_counter()
        status = None
        try:
            response = client.post(self.url, json=body)
            status = response.status_code
        except httpx.TimeoutException:
            raise _Stop("timeout") from None
        except httpx.HTTPError:
            raise _Stop("unreachable") from None
        finally:
            log.info(
                "llm_call",
                extra={
                    "fields": {
                        "turn_id": turn_id,
                        "iteration": iteration,
                        "status": status,
                        "duration_ms": round((time.perf_counter() - start) * 1000, 2),
                    }
                },
            )
        if status != 200:
            raise _Stop("status", status=status)
        try:
            msg = response.json()["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Stop("malformed") from None
        if not isinstance(msg, dict):
            raise _Stop("malformed")
        return msg

    def _run_tool(self, ctx: ToolContext, tc: object, calls: list[dict], turn_id) -> dict:
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

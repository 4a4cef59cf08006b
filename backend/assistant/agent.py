"""The built-in offline assistant: deterministic, and following SPEC §5's read_active_note rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from backend.assistant import intent as it
from backend.assistant import registry, replies, skills, tools
from backend.assistant.tools import ToolContext

MAX_SEARCHED_NOTES = 30


@dataclass
class AgentResult:
    """The reply text and every tool call made for it, in order."""

    reply: str
    tool_calls: list[dict] = field(default_factory=list)


class _Turn:
    def __init__(self, ctx: ToolContext, turn_id: str | None) -> None:
        self.ctx = ctx
        self.turn_id = turn_id
        self.calls: list[dict] = []

    def call(self, name: str, arguments: dict) -> dict:
        result = registry.call_tool(self.ctx, name, arguments, turn_id=self.turn_id)
        self.calls.append({"tool": name, "arguments": arguments, "result": result})
        return result


def _named_path(message: str, documents: list[dict]) -> str | None:
    """The existing note the message names: a full path, else a unique file name."""
    folded = message.casefold()
    paths = sorted((d["path"] for d in documents), key=len, reverse=True)
    for path in paths:
        if path.casefold() in folded:
            return path
    by_name = [p for p in paths if "/" in p and p.rsplit("/", 1)[1].casefold() in folded]
    return by_name[0] if len(by_name) == 1 else None


class OfflineAgent:
    """Reads the message, calls the tools it needs, and answers in the message's language."""

    name = "offline"

    def run(
        self, ctx: ToolContext, message: str, *, turn_id: str | None = None, history=None
    ) -> AgentResult:
        turn = _Turn(ctx, turn_id)
        reply = self._reply(turn, message)
        return AgentResult(reply=reply, tool_calls=turn.calls)

    def _reply(self, turn: _Turn, message: str) -> str:
        intent = it.classify(message)
        lang = intent.lang
        if intent.kind == it.HELP:
            return replies.HELP[lang]
        if intent.kind == it.LIST:
            result = turn.call("list_documents", {})
            return replies.listing(result, lang) if result["ok"] else replies.failure(result, lang)
        if intent.kind == it.FIND and not intent.deictic:
            return self._find(turn, intent.term or "", lang)

        # A note-directed request: a named path uses read_document; anything unnamed
        # ("this", これ, or no object at all) reads the active note first.
        result = None
        if it.mentions_path(message) and not intent.deictic:
            listed = turn.call("list_documents", {})
            if not listed["ok"]:
                return replies.failure(listed, lang)
            path = _named_path(message, listed["documents"])
            if path is None:
                return replies.not_found(None, lang)
            lang = it.language(message.replace(path, " ").replace(path.rsplit("/", 1)[-1], " "))
            result = turn.call("read_document", {"path": path})
        else:
            result = turn.call("read_active_note", {})
            if result.get("reason") == tools.NO_POINTER:
                return replies.NO_NOTE[lang]
        if not result["ok"]:
            return replies.failure(result, lang)
        return self._skill(intent, result, lang)

    def _skill(self, intent: it.Intent, result: dict, lang: str) -> str:
        path, text = result["path"], result["content"]
        if intent.kind == it.QUOTE:
            body = replies.quote(path, result, lang)
        elif intent.kind == it.TODOS:
            body = replies.todos(path, text, lang)
        elif intent.kind == it.COUNTS:
            body = replies.counts(path, text, lang)
        elif intent.kind == it.FIND:
            found = skills.find_mentions({path: text}, intent.term or "")
            body = replies.mentions(intent.term or "", found, 1, 1, lang)
        else:
            body = replies.summary(path, text, lang)
        parts = [body]
        if result.get("partial"):
            parts.append(replies.partial_note(result, lang))
        if result.get("stale"):
            # The caveat is relayed verbatim, whatever the reply language.
            parts.append(
                f"{replies.STALE_JA}\n{result['caveat']}" if lang == "ja" else result["caveat"]
            )
        return "\n\n".join(parts)

    def _find(self, turn: _Turn, term: str, lang: str) -> str:
        listed = turn.call("list_documents", {})
        if not listed["ok"]:
            return replies.failure(listed, lang)
        docs = listed["documents"]
        texts = {}
        for doc in docs[:MAX_SEARCHED_NOTES]:
            result = turn.call(
                "read_document", {"path": doc["path"], "maxBytes": tools.MAX_MAX_BYTES}
            )
            if result["ok"]:
                texts[doc["path"]] = result["content"]
        found = skills.find_mentions(texts, term)
        return replies.mentions(term, found, min(len(docs), MAX_SEARCHED_NOTES), len(docs), lang)

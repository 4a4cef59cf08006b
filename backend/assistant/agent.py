"""The built-in offline assistant: deterministic, and following SPEC §5's read_active_note rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from backend.assistant import intent as it
from backend.assistant import registry, replies, skills, tools
from backend.assistant.tools import ToolContext


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
    named = _named_paths(message, documents)
    return named[0] if named else None


def _named_paths(message: str, documents: list[dict]) -> list[str]:
    """Every existing note the message names, in the order named: a full path, or a file
    name that only one note has. A longer path is taken before a path inside it."""
    folded = message.casefold()
    paths = sorted((d["path"] for d in documents), key=len, reverse=True)
    found: dict[int, str] = {}
    taken = [False] * len(folded)

    def take(needle: str, path: str) -> None:
        at = folded.find(needle)
        while at >= 0:
            if not any(taken[at : at + len(needle)]):
                taken[at : at + len(needle)] = [True] * len(needle)
                found.setdefault(at, path)
                return
            at = folded.find(needle, at + 1)

    for path in paths:
        take(path.casefold(), path)
    names: dict[str, list[str]] = {}
    for path in paths:
        if "/" in path:
            names.setdefault(path.rsplit("/", 1)[1].casefold(), []).append(path)
    for name, owners in names.items():
        if len(owners) == 1 and owners[0] not in found.values():
            take(name, owners[0])
    ordered = [found[at] for at in sorted(found)]
    return list(dict.fromkeys(ordered))


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
            return replies.help_text(lang)
        if intent.kind == it.BEYOND and intent.beyond == it.COMPARE:
            return self._compare(turn, message, intent)
        if intent.kind == it.BEYOND:
            # Never a summary or a listing instead: say plainly what it cannot do.
            return replies.beyond(intent.beyond or it.WORLD, lang, intent.verb)
        if intent.kind == it.LIST:
            result = turn.call("list_documents", {})
            return replies.listing(result, lang) if result["ok"] else replies.failure(result, lang)
        if intent.kind == it.FIND and not intent.deictic:
            return self._find(turn, intent.term or "", lang)

        # A note-directed request: a named path uses read_document; anything unnamed
        # ("this", これ, or no object at all) reads the active note first. The whole note is
        # read (up to the tools' largest read) so counts and edits see all of it.
        result = None
        named = False
        if it.mentions_path(message) and not intent.deictic:
            listed = turn.call("list_documents", {})
            if not listed["ok"]:
                return replies.failure(listed, lang)
            path = _named_path(message, listed["documents"])
            if path is None:
                return replies.not_found(lang)
            lang = it.language(message.replace(path, " ").replace(path.rsplit("/", 1)[-1], " "))
            result = turn.call("read_document", {"path": path, "maxBytes": tools.MAX_MAX_BYTES})
            named = True
        else:
            result = turn.call("read_active_note", {"maxBytes": tools.MAX_MAX_BYTES})
            if result.get("reason") == tools.NO_POINTER:
                return replies.no_note(lang, switched_off=bool(result.get("ambientOff")))
        if not result["ok"]:
            return replies.failure(result, lang)
        if intent.kind in it.EDITS:
            return self._edit(turn, intent, result, lang, named)
        return self._skill(intent, result, lang)

    def _edit(self, turn: _Turn, intent: it.Intent, result: dict, lang: str, named: bool) -> str:
        """Propose the edit with propose_edit; never write the note."""
        path, text, payload = result["path"], result["content"], intent.text or ""
        base = {"path": path} if named else {}
        if intent.kind in (it.MARK_DONE, it.MARK_UNDONE):
            done = intent.kind == it.MARK_DONE
            marked = skills.mark_todo(text, payload, done=done)
            if marked.outcome != "ok":
                return replies.mark_problem(
                    path, payload, marked.outcome, marked.candidates, done, lang
                )
            assert marked.item is not None
            edits = marked.edits
            body = replies.proposed_mark(path, skills.plain(marked.item.text), done, lang)
        elif intent.kind == it.ADD_TODO:
            added = skills.add_todo(text, payload)
            edits = added.edits
            after = skills.plain(added.after.text) if added.after else None
            body = replies.proposed_todo(path, payload, after, lang)
        elif intent.kind == it.HEADING:
            edits, line = skills.add_heading(text, payload)
            body = replies.proposed_heading(path, line, lang)
        else:
            edits = skills.append_text(text, payload, paragraph=intent.paragraph)
            body = replies.proposed_append(path, intent.paragraph, lang)
        proposal = turn.call("propose_edit", {**base, "edits": edits})
        if not proposal["ok"]:
            if proposal.get("reason", "").startswith("edit_"):
                return replies.edit_refused(proposal, lang)
            return replies.failure(proposal, lang)
        if proposal.get("stale"):
            body += "\n\n" + replies.stale(proposal["caveat"], lang)
        return body

    def _skill(self, intent: it.Intent, result: dict, lang: str) -> str:
        path, text = result["path"], result["content"]
        partial = bool(result.get("partial"))
        if intent.kind == it.QUOTE:
            body = replies.quote(path, result, lang)
        elif intent.kind == it.TODOS:
            body = replies.todos(path, text, lang, partial=partial)
        elif intent.kind == it.COUNTS:
            body = replies.counts(path, text, lang, result["bytes"] if partial else None)
        elif intent.kind == it.FIND:
            found = skills.find_mentions({path: text}, intent.term or "")
            body = replies.mentions(intent.term or "", found, 1, 1, lang)
        else:
            body = replies.summary(path, text, lang, partial=partial)
        parts = [body]
        if result.get("partial"):
            parts.append(replies.partial_note(result, lang))
        if result.get("stale"):
            # The caveat is relayed verbatim, whatever the reply language.
            parts.append(replies.stale(result["caveat"], lang))
        return "\n\n".join(parts)

    def _compare(self, turn: _Turn, message: str, intent: it.Intent) -> str:
        """It cannot compare. When the two notes are clear (this note and a named one, or two
        named), it shows both summaries and says that is all it can do; else it only says no."""
        lang = intent.lang
        reads: list[dict] = []
        if intent.deictic:
            active = turn.call("read_active_note", {"maxBytes": tools.MAX_MAX_BYTES})
            if active["ok"]:
                reads.append(active)
        if it.mentions_path(message):
            listed = turn.call("list_documents", {})
            named = _named_paths(message, listed["documents"]) if listed["ok"] else []
            for path in named:
                if path in (r["path"] for r in reads):
                    continue
                read = turn.call("read_document", {"path": path, "maxBytes": tools.MAX_MAX_BYTES})
                if read["ok"]:
                    reads.append(read)
        if len(reads) != 2:
            return replies.beyond(it.COMPARE, lang)
        parts = [replies.comparison(reads, lang)]
        parts += [replies.stale(r["caveat"], lang) for r in reads if r.get("stale")]
        return "\n\n".join(parts)

    def _find(self, turn: _Turn, term: str, lang: str) -> str:
        """ "Which notes mention X": the workspace search service, not a read of every note."""
        result = turn.call("search_notes", {"query": term})
        if not result["ok"]:
            return (
                result["text"]
                if result.get("reason") == "bad_query"
                else replies.failure(result, lang)
            )
        return replies.search_results(term, result["results"], lang)

"""The tool registry: specs from the argument models, their checks, the one logged tool call."""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import ValidationError

from backend import tool_arguments as args
from backend.assistant import tools
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool
from backend.services import search

log = logging.getLogger("ambient.assistant.tools")

# Each tool: what it is for (the model reads this) and its arguments, declared once.
_TOOLS: dict[str, tuple[str, type[args.Arguments]]] = {
    "list_documents": (
        "List the notes (paths and sizes) in the user's current workspace.",
        args.ListDocuments,
    ),
    "read_document": (
        "Read the saved copy of a note named by its workspace-relative path.",
        args.ReadDocument,
    ),
    "read_active_note": (
        (
            "Read the saved copy of the note the user has open on screen ('this "
            "note'). Call it first for any unnamed request and again on every new turn."
        ),
        args.ReadActiveNote,
    ),
    "search_notes": (
        (
            "Find the notes that contain every word of a search (case-insensitive; "
            "Japanese matches inside words). Answers each note's path, first matching line and a "
            f"snippet, at most {search.MAX_RESULTS}."
        ),
        args.SearchNotes,
    ),
    "propose_edit": (
        (
            "Propose an edit of a note. It never changes the note: it stores a "
            "proposal that the user may apply or discard, and answers with its id and a unified "
            "diff. Without 'path' it edits the note the user has open. Each 'find' must occur "
            "exactly once in the saved copy (include enough surrounding text to make it unique); "
            "'append' adds text at the end, after a line break."
        ),
        args.ProposeEdit,
    ),
}

SPECS: dict[str, dict[str, Any]] = {
    name: {"description": description, "parameters": args.schema(model)}
    for name, (description, model) in _TOOLS.items()
}


def parse_arguments(name: str, arguments: object) -> dict[str, Any]:
    """Check an arguments object with the tool's model; keyword arguments for the function.

    ToolArgumentError carries one plain sentence; UnknownTool when there is no such tool.
    """
    if name not in _TOOLS:
        raise UnknownTool(name)
    model = _TOOLS[name][1]
    try:
        checked = model.model_validate({} if arguments is None else arguments)
    except ValidationError as exc:
        raise ToolArgumentError(args.problem(exc)) from None
    return checked.model_dump()


def call_tool(ctx: ToolContext, name: str, args: object, *, turn_id: str | None = None) -> dict:
    """Run a tool by name; bad arguments raise ToolArgumentError, an unknown name UnknownTool.

    Logged: the turn id, the tool name, ok/reason and the duration; never arguments or text.
    """
    kwargs = parse_arguments(name, args)
    start = time.perf_counter()
    fn = getattr(tools, name)
    result = fn(ctx, **kwargs)
    log.info(
        "tool_call",
        extra={
            "fields": {
                "turn_id": turn_id,
                "tool": name,
                "ok": result.get("ok"),
                "reason": result.get("reason"),
                "stale": result.get("stale"),
                "partial": result.get("partial"),
                "duration_ms": round((time.perf_counter() - start) * 1000, 2),
            }
        },
    )
    return result


def summarize_result(result: dict) -> dict:
    """What is stored with a message: the result without note text (`content`, `text`, `diff`)."""
    summary = {k: v for k, v in result.items() if k not in ("content", "text", "diff")}
    if "documents" in summary:
        summary["documents"] = len(summary["documents"])
    if "results" in summary:  # search snippets are note text
        summary["results"] = len(summary["results"])
    return summary


def summarize_arguments(name: str, args: dict) -> dict:
    """Stored arguments: propose_edit's edits carry note text, so only their count is kept."""
    if name == "propose_edit" and isinstance(args, dict):
        return {**args, "edits": len(args.get("edits") or [])}
    return args

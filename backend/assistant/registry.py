"""The tool registry: JSON-schema specs, argument checking, the one logged way to call a tool."""

from __future__ import annotations

import logging
import time
from typing import Any

from ambient import edits as edit_rules
from backend.assistant import tools
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool
from backend.services import search

log = logging.getLogger("ambient.assistant.tools")

_MAX_BYTES_SCHEMA = {
    "type": "integer",
    "description": f"Most UTF-8 bytes of note text to return (default {tools.DEFAULT_MAX_BYTES:,}, "
    f"clamped to 1..{tools.MAX_MAX_BYTES:,}).",
}

SPECS: dict[str, dict[str, Any]] = {
    "list_documents": {
        "description": "List the notes (paths and sizes) in the user's current workspace.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    "read_document": {
        "description": "Read the saved copy of a note named by its workspace-relative path.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Workspace-relative note path."},
                "maxBytes": _MAX_BYTES_SCHEMA,
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    },
    "read_active_note": {
        "description": "Read the saved copy of the note the user has open on screen ('this "
        "note'). Call it first for any unnamed request and again on every new turn.",
        "parameters": {
            "type": "object",
            "properties": {"maxBytes": _MAX_BYTES_SCHEMA},
            "additionalProperties": False,
        },
    },
    "search_notes": {
        "description": "Find the notes that contain every word of a search (case-insensitive; "
        "Japanese matches inside words). Answers each note's path, first matching line and a "
        f"snippet, at most {search.MAX_RESULTS}.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Words to look for."}},
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    "propose_edit": {
        "description": "Propose an edit of a note. It never changes the note: it stores a "
        "proposal that the user may apply or discard, and answers with its id and a unified "
        "diff. Without 'path' it edits the note the user has open. Each 'find' must occur "
        "exactly once in the saved copy (include enough surrounding text to make it unique); "
        "'append' adds text at the end, after a line break.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Workspace-relative note path; omit for the open note.",
                },
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": edit_rules.MAX_EDITS,
                    "items": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "find": {"type": "string", "minLength": 1},
                                    "replace": {"type": "string"},
                                },
                                "required": ["find", "replace"],
                                "additionalProperties": False,
                            },
                            {
                                "type": "object",
                                "properties": {"append": {"type": "string"}},
                                "required": ["append"],
                                "additionalProperties": False,
                            },
                        ]
                    },
                },
            },
            "required": ["edits"],
            "additionalProperties": False,
        },
    },
}


def _max_bytes(args: dict) -> int | None:
    value = args.get("maxBytes")
    if value is None:
        return None
    # JSON has one number type: 4096.0 is accepted as 4096, but true, "10" and 1.5 are not.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolArgumentError("maxBytes must be an integer.")
    if isinstance(value, float):
        if not value.is_integer():
            raise ToolArgumentError("maxBytes must be an integer.")
        value = int(value)
    return value


def parse_arguments(name: str, args: object) -> dict[str, Any]:
    """Check an arguments object against the tool; returns keyword arguments for the function.

    Unknown keys are ignored (models sometimes add them); known keys must have the right type.
    """
    if name not in SPECS:
        raise UnknownTool(name)
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolArgumentError("The arguments must be a JSON object.")
    if name == "list_documents":
        return {}
    if name == "search_notes":
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolArgumentError("search_notes needs a non-empty 'query' string.")
        return {"query": query}
    if name == "propose_edit":
        path = args.get("path")
        if path is not None and (not isinstance(path, str) or not path):
            raise ToolArgumentError("propose_edit's 'path' must be a non-empty string.")
        try:
            checked = edit_rules.check_edits(args.get("edits"))
        except edit_rules.EditError as exc:
            raise ToolArgumentError(exc.message) from None
        return {"edits": checked, "path": path}
    kwargs: dict[str, Any] = {"max_bytes": _max_bytes(args)}
    if name == "read_document":
        path = args.get("path")
        if not isinstance(path, str) or not path:
            raise ToolArgumentError("read_document needs a 'path' string.")
        kwargs["path"] = path
    return kwargs


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

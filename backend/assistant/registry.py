"""The tool registry: JSON-schema specs, argument checking, the one logged way to call a tool."""

from __future__ import annotations

import logging
import time
from typing import Any

from backend.assistant import tools
from backend.assistant.tools import ToolArgumentError, ToolContext, UnknownTool

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
    """What is stored with a message: the result without note text (`content`, `text`)."""
    summary = {k: v for k, v in result.items() if k not in ("content", "text")}
    if "documents" in summary:
        summary["documents"] = len(summary["documents"])
    return summary

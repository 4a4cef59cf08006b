"""The inline command's page logic, pure: the request it sends and what its answer means."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ambient import inline_context
from app.api_model import ApiError

URL = "/api/assistant/inline"
SHORTCUT = "Ctrl+K"  # Cmd+K on a Mac; filtered in web/editor/inline.js
ARIA_SHORTCUT = "Control+K Meta+K"
CHANGED = (
    "The text changed while the answer was on its way, so nothing was replaced. "
    "Select it again and ask once more."
)


@dataclass(frozen=True)
class Outcome:
    """An answer: a replacement to preview, or a sentence saying why there is none."""

    replacement: str | None
    message: str | None


def request_body(
    *,
    ws: str,
    path: str,
    instruction: str,
    start: int,
    end: int,
    text: str,
    text_before: str,
    text_after: str,
) -> tuple[dict | None, str | None]:
    """(body, None), or (None, why) when the selection is over the limit (the server agrees).

    `start`/`end` are CodeMirror positions; `text_before`/`text_after` are all the note's
    text around the selection, cut here to the bounded context.
    """
    before, after = inline_context.bounded(text_before, text_after)
    problem = inline_context.check(text, before, after)
    if problem is not None:
        return None, problem
    return {
        "workspaceId": ws,
        "path": path,
        "instruction": instruction,
        "selection": {"from": start, "to": end, "text": text},
        "before": before,
        "after": after,
    }, None


def read_answer(status: int, body: str) -> Outcome:
    """The server's answer as an outcome; errors become their plain sentence."""
    if status != 200:
        if status >= 500:
            return Outcome(None, "The server had a problem; nothing was changed. Try again.")
        return Outcome(None, ApiError.from_response(status, body).detail)
    try:
        data = json.loads(body)
        replacement, explanation = data["replacement"], data["explanation"]
    except (ValueError, KeyError, TypeError):
        return Outcome(None, "The answer could not be read; nothing was changed.")
    if isinstance(replacement, str):
        return Outcome(replacement, None)
    return Outcome(None, explanation if isinstance(explanation, str) else "No change was made.")

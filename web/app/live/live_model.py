"""The live-notes stream (SPEC §13) as plain data: its events, and when to reconnect (pure)."""

from __future__ import annotations

import json
from dataclasses import dataclass

SAVED, MOVED, DELETED, RESET = "saved", "moved", "deleted", "reset"
KINDS = (SAVED, MOVED, DELETED, RESET)
# Waits before opening the stream again after the browser gave up on it (a refused answer):
# quick at first, then every 15 s, the stream's own keep-alive period.
RETRY_SECONDS = (1.0, 2.0, 4.0, 8.0, 15.0)
OFFLINE_WORDS = "Live updates paused: reconnecting…"


@dataclass(frozen=True)
class LiveEvent:
    """One event: `path` is the note (for `moved`, where it was), `to` where it went."""

    kind: str
    path: str = ""
    to: str = ""
    revision: str | None = None


def parse_event(kind: str, data: str) -> LiveEvent | None:
    """The event named `kind` with JSON `data`, or None when it is not one the page knows."""
    if kind == RESET:
        return LiveEvent(RESET)
    if kind not in KINDS:
        return None
    try:
        body = json.loads(data or "{}")
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    path = body.get("from") if kind == MOVED else body.get("path")
    to = body.get("to") if kind == MOVED else ""
    if (
        not isinstance(path, str)
        or not path
        or not isinstance(to, str)
        or (kind == MOVED and not to)
    ):
        return None
    revision = body.get("revision")
    if isinstance(revision, bool) or not isinstance(revision, (int, str, type(None))):
        return None
    return LiveEvent(kind, path, to, None if revision is None else str(revision))


def retry_after(attempt: int) -> float:
    """Seconds to wait before the `attempt`-th (0-based) reopening of the stream."""
    return RETRY_SECONDS[min(max(attempt, 0), len(RETRY_SECONDS) - 1)]

"""What a window publishes for outside agents, and when (SPEC §10); pure: no js, no I/O.

The browser layer (app.agents.sharing) reports events; `Publisher.decide` answers the body to PUT
to /api/active-note, or None when there is nothing new to say:

- "change" (the store's resolution, note or view changed) and "pause" (typing or selecting
  stopped for a moment): publish when what the window names differs from what it last
  published (the capture time aside), so the same note measured again costs nothing.
- "focus" (the window came to the front): always publish a fresh capture, so the window the
  user turned to becomes the most recent one even if its note did not change.
- "heartbeat": repeat the last publication unchanged while the window is visible, at most
  HEARTBEAT_SECONDS apart; the server counts an unchanged repeat as a refresh only.

When the window closes, JS sends `close_body` (null for this window) with fetch keepalive.
"""

from __future__ import annotations

from dataclasses import dataclass

from ambient.pointer import Pointer, PointerError, Selection, encode

# The contract asks for at least every 2 minutes while visible; a margin under that absorbs
# timer drift in a background tab.
HEARTBEAT_SECONDS = 100.0
# Typing and selecting publish this long after the last change (in JS, web/editor/publish.js,
# so no Python runs per keystroke); with the request it stays within a second.
PAUSE_MS = 500
URL = "/api/active-note"
SHARING_URL = "/api/active-note/sharing"
CHANGE, PAUSE, FOCUS, HEARTBEAT = "change", "pause", "focus", "heartbeat"


def pointer_wire(
    *,
    frame_id: str,
    path: str,
    view: str,
    snapshot: dict,
    flushed: bool,
    captured_at: str,
) -> dict | None:
    """The §3 pointer object from a runtime's live snapshot, or None if the codec refuses it.

    `encode` applies the codec's rules and its 2,048-byte bound; a pointer that breaks them
    is published as null (no note) rather than sent to be refused.
    """
    selection = snapshot.get("selection") if view == "edit" else None
    try:
        pointer = Pointer(
            path=path,
            view=view,
            frame_id=frame_id,
            bytes=int(snapshot["bytes"]),
            sha256=str(snapshot["sha256"]),
            flushed=flushed,
            captured_at=captured_at,
            selection=Selection(int(selection["anchor"]), int(selection["head"]))
            if selection
            else None,
        )
        if encode(pointer) is None:
            return None
    except (PointerError, KeyError, TypeError, ValueError):
        return None
    return pointer.to_wire()


def _sameness(workspace_id: str | None, wire: dict | None) -> tuple:
    """What makes two publications the same: everything but the capture time."""
    if wire is None:
        return (workspace_id, None)
    return (workspace_id, tuple(sorted((k, repr(v)) for k, v in wire.items() if k != "capturedAt")))


@dataclass
class Publisher:
    """One window's publishing state: on or off, and what it last sent and when."""

    window_id: str
    enabled: bool = False
    last_body: dict | None = None  # the last body sent (None: nothing yet since switched on)
    last_sent_at: float | None = None  # monotonic seconds

    def switch(self, enabled: bool) -> None:
        """Sharing turned on or off: either way, start from nothing sent."""
        self.enabled = enabled
        self.last_body = None
        self.last_sent_at = None

    def decide(
        self,
        reason: str,
        *,
        workspace_id: str | None,
        wire: dict | None,
        now: float,
        visible: bool = True,
    ) -> dict | None:
        """The body to PUT for this event, or None. Call `sent(body, now)` once it was sent."""
        if not self.enabled:
            return None
        if reason == HEARTBEAT:
            if not visible or self.last_body is None or self.last_body["pointer"] is None:
                return None
            if self.last_sent_at is not None and now - self.last_sent_at < HEARTBEAT_SECONDS:
                return None
            return self.last_body
        if workspace_id is None:
            return None  # signed out or between workspaces: the next workspace publishes
        if (
            reason != FOCUS
            and self.last_body is not None
            and _sameness(self.last_body["workspaceId"], self.last_body["pointer"])
            == _sameness(workspace_id, wire)
        ):
            return None
        if wire is None and self.last_body is None:
            return None  # nothing was published, so there is nothing to withdraw
        return self.body(workspace_id, wire)

    def body(self, workspace_id: str, wire: dict | None) -> dict:
        return {"windowId": self.window_id, "workspaceId": workspace_id, "pointer": wire}

    def sent(self, body: dict, now: float) -> None:
        self.last_body = body
        self.last_sent_at = now

    def refused(self) -> None:
        """The server answered 409: sharing was switched off (in another window)."""
        self.switch(False)

    def close_body(self, workspace_id: str | None) -> dict | None:
        """What the window's close handler sends: null for this window, when switched on."""
        if not self.enabled or workspace_id is None:
            return None
        return self.body(workspace_id, None)


# A waiting event keeps the strongest reason: a focus beats a change or a pause, which beat
# the heartbeat.
RANK = {HEARTBEAT: 0, CHANGE: 1, PAUSE: 1, FOCUS: 2}


class Pending:
    """Events that arrive while a publication is in flight fold into one request."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def add(self, reason: str) -> None:
        if self.reason is None or RANK[reason] >= RANK[self.reason]:
            self.reason = reason

    def take(self) -> str | None:
        """The reason to publish next (None when nothing waits); it is no longer waiting."""
        reason, self.reason = self.reason, None
        return reason

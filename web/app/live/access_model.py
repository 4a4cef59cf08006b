"""Roles that change while the page is open (SPEC §17), as plain data (pure).

When the server ends the workspace's event stream without the page asking, the member's
access may have changed: the page reads `GET /api/workspaces` again and `decide` says what to
do: nothing, flip the open notes to the new role, or leave the workspace for another one.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.context import can_edit, role_in

__all__ = ["can_edit", "decide", "role_in", "unsaved_words"]

SAME, ROLE, REMOVED = "same", "role", "removed"
READONLY_WORDS = "Read only — your role here is reader"


def name_of(workspaces: list[dict], ws: str) -> str:
    for entry in workspaces:
        if isinstance(entry, dict) and entry.get("id") == ws:
            return str(entry.get("name") or ws)
    return ws


@dataclass(frozen=True)
class Decision:
    """`kind` SAME, ROLE (now `role`) or REMOVED (go to `next_ws`, or None, and say `words`)."""

    kind: str
    role: str | None = None
    next_ws: str | None = None
    words: str = ""


def decide(ws: str | None, before: list[dict], after: list[dict]) -> Decision:
    """What a fresh listing `after` means for the page showing workspace `ws`, which it knew
    from the listing `before`."""
    if not ws:
        return Decision(SAME)
    was, now = role_in(before, ws), role_in(after, ws)
    if now is None:
        ids = [entry["id"] for entry in after if isinstance(entry, dict) and entry.get("id")]
        return Decision(
            REMOVED,
            next_ws=ids[0] if ids else None,
            words=f"You were removed from {name_of(before, ws)}.",
        )
    if now != was:
        return Decision(ROLE, role=now)
    return Decision(SAME, role=now)


def unsaved_words(path: str) -> str:
    """What a note says when the role turned reader with keystrokes not yet saved."""
    return (
        f"Your role here is now reader, so your last changes to {path} cannot be saved. "
        "They are still in the editor: copy them before closing the note."
    )

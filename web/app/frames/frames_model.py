"""A frame's Back/Forward history and the saved layout of a workspace's frames (pure)."""

from __future__ import annotations

import json

from ambient.contract import FRAME_KINDS as KINDS
from app.api_model import VIEWS

HISTORY_LIMIT = 50
FRAMES_LIMIT = 12


class History:
    """The notes one frame has shown, as a browser's tab remembers pages."""

    def __init__(self, paths: list[str] | None = None, index: int | None = None) -> None:
        self.paths = list(paths or [])[-HISTORY_LIMIT:]
        last = len(self.paths) - 1
        self.index = last if index is None else max(-1, min(int(index), last))

    @property
    def current(self) -> str | None:
        return self.paths[self.index] if self.index >= 0 else None

    def visit(self, path: str) -> None:
        """A note was opened here (not by Back/Forward): it ends the forward part."""
        if path == self.current:
            return
        self.paths = self.paths[: self.index + 1] + [path]
        if len(self.paths) > HISTORY_LIMIT:
            self.paths = self.paths[-HISTORY_LIMIT:]
        self.index = len(self.paths) - 1

    def can_go(self, step: int) -> bool:
        return 0 <= self.index + step < len(self.paths)

    def go(self, step: int) -> str | None:
        """Move back (-1) or forward (+1); the path to show, or None at either end."""
        if not self.can_go(step):
            return None
        self.index += step
        return self.paths[self.index]

    def rename(self, old: str, new: str) -> None:
        self.paths = [new if p == old else p for p in self.paths]

    def drop(self, path: str) -> None:
        """A deleted note leaves the history (the position stays on what was around it)."""
        before = sum(1 for p in self.paths[: self.index + 1] if p == path)
        self.paths = [p for p in self.paths if p != path]
        self.index = min(self.index - before, len(self.paths) - 1)


def storage_key(username: str, workspace: str) -> str:
    return f"ana:frames:{username}:{workspace}"


def last_workspace_key(username: str) -> str:
    return f"ana:workspace:{username}"


def encode(frames: list[dict], active: int | None) -> str:
    """What to keep of the open frames: kind, and for an Inbox its note, view and history."""
    kept = []
    for frame in frames[:FRAMES_LIMIT]:
        item = {"kind": frame["kind"]}
        if frame["kind"] == "inbox":
            item.update(
                path=frame.get("path") or "",
                view=frame.get("view") or "edit",
                history=list(frame.get("history") or [])[-HISTORY_LIMIT:],
                index=frame.get("index", -1),
            )
        kept.append(item)
    return json.dumps({"frames": kept, "active": active}, ensure_ascii=False)


def decode(raw: str | None) -> tuple[list[dict], int | None]:
    """The saved frames and the active one's index; anything unreadable is an empty layout."""
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return [], None
    if not isinstance(data, dict) or not isinstance(data.get("frames"), list):
        return [], None
    frames = []
    for item in data["frames"][:FRAMES_LIMIT]:
        if not isinstance(item, dict) or item.get("kind") not in KINDS:
            continue
        frame = {"kind": item["kind"]}
        if item["kind"] == "inbox":
            path = item.get("path")
            history = [p for p in item.get("history") or [] if isinstance(p, str) and p]
            index = item.get("index")
            frame.update(
                path=path if isinstance(path, str) else "",
                view=item.get("view") if item.get("view") in VIEWS else "edit",
                history=history[-HISTORY_LIMIT:],
                index=index if isinstance(index, int) else -1,
            )
        frames.append(frame)
    active = data.get("active")
    if not isinstance(active, int) or not 0 <= active < len(frames):
        active = None
    return frames, active

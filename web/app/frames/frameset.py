"""The frameset: frames side by side, which one is active, opening, closing and popping out."""

from __future__ import annotations

import asyncio
import secrets

from js import Object, window
from pyodide.ffi import to_js

from app.api_model import popout_url
from app.chat.assistant_frame import AssistantFrame
from app.dom import h, spawn
from app.frames.inbox import InboxFrame
from app.frames.splitters import Splitters
from app.notes.files import FilesFrame

KINDS = {frame.kind: frame for frame in (InboxFrame, AssistantFrame, FilesFrame)}  # toolbar order
POPOUT_FLUSH_SECONDS = 5.0


def reveal(el) -> None:
    """Scroll the element into view only as far as needed (no jump when it already shows)."""
    el.scrollIntoView(
        to_js({"block": "nearest", "inline": "nearest"}, dict_converter=Object.fromEntries)
    )


def new_frame_id() -> str:
    # Random, not a counter: a popped-out frame keeps its id in a realm of its own.
    return "f-" + secrets.token_hex(4)


class Frameset:
    """Owns the frames of one window and tells the ambient store about activation."""

    def __init__(self, ctx, container) -> None:
        self.ctx = ctx
        self.el = container
        self._frames: list = []
        self._order: list[str] = []  # frame ids, most recently activated last
        self.active = None
        self._close_warned = None  # the frame whose unsaveable text we warned about once
        self._change_callbacks: list = []
        self._recent: list[str] = []  # paths opened in this window, most recent first
        self.splitters = Splitters(self)

    def on_change(self, callback) -> None:
        """`callback()` after frames open, close, activate or change what they show."""
        self._change_callbacks.append(callback)

    def changed(self) -> None:
        for callback in list(self._change_callbacks):
            callback()

    def note_opened(self, path: str) -> None:
        """Remember `path` as recently opened (the quick switcher lists those first)."""
        self._recent = [path] + [p for p in self._recent if p != path][:29]

    def recent_paths(self) -> list[str]:
        return list(self._recent)

    def snapshot(self) -> tuple[list[dict], int | None]:
        """The open frames as the layout store keeps them, and the active one's index."""
        frames = []
        for frame in self._frames:
            item = {"kind": frame.kind}
            if frame.kind == "inbox":
                item.update(
                    path=frame.path,
                    view=frame.view,
                    history=frame.history.paths,
                    index=frame.history.index,
                )
            frames.append(item)
        active = self._frames.index(self.active) if self.active in self._frames else None
        return frames, active

    def shown(self) -> str:
        """The path of the note in the active frame ("" when it shows none)."""
        return getattr(self.active, "path", "") or ""

    def frames(self) -> list:
        return list(self._frames)

    # -- opening and activating --------------------------------------------------------------

    async def open(self, kind: str, *, frame_id: str | None = None):
        frame = KINDS[kind](self, frame_id or new_frame_id())
        self._frames.append(frame)
        self.el.append(frame.el)
        self._update_empty()
        self.activate(frame)  # opening a frame activates it (SPEC §2)
        reveal(frame.el)  # past the minimum widths the row scrolls sideways: show the new one
        await frame.mount()
        return frame

    def activate(self, frame) -> None:
        if frame not in self._frames:
            return
        if self.active is not frame:
            if self.active is not None:
                self.active.el.dataset.active = "false"
            frame.el.dataset.active = "true"
            self.active = frame
            self.changed()
        self._order = [f for f in self._order if f != frame.id] + [frame.id]
        self.ctx.store.activate(frame.id, frame.kind)

    def last_activated(self, kind: str | None = None):
        """The most recently activated open frame (of `kind`), or None."""
        by_id = {frame.id: frame for frame in self._frames}
        for frame_id in reversed(self._order):
            frame = by_id.get(frame_id)
            if frame is not None and kind in (None, frame.kind):
                return frame
        return None

    def last_inbox(self):
        return self.last_activated("inbox")

    def showing(self, path: str):
        """The Inbox frame of this window that shows `path`, the most recently active first."""
        by_id = {frame.id: frame for frame in self._frames}
        order = [by_id[i] for i in reversed(self._order) if i in by_id]
        order += [frame for frame in self._frames if frame not in order]
        for frame in order:
            if frame.kind == "inbox" and getattr(frame, "path", "") == path:
                return frame
        return None

    async def open_note(
        self,
        path: str,
        *,
        new_frame: bool = False,
        view: str | None = None,
        go_to_open: bool = False,
    ):
        """note-link: the last active Inbox frame (or a new one); note-open-frame: a new one.
        `go_to_open` (a chat link): a frame already showing the note is the one used."""
        frame = None if new_frame else self.last_inbox()
        if go_to_open and not new_frame:
            frame = self.showing(path) or frame
        if frame is None:
            frame = await self.open("inbox")
        else:
            self.activate(frame)
            reveal(frame.el)
        if view:
            await frame.show(path=path, view=view)
        else:
            await frame.show(path=path)
        return frame

    # -- closing and popping out -------------------------------------------------------------

    def close(self, frame, *, refocus: bool = True) -> None:
        """Remove the frame; an Inbox frame withdraws its runtime and finishes its saves."""
        if frame not in self._frames:
            return
        warning = frame.close_warning()
        if warning and self._close_warned is not frame:
            self._close_warned = frame  # a second press means: discard them
            self.ctx.say(warning)
            return
        if warning:
            self.ctx.unsay(warning)  # closed anyway: the warning no longer applies
        self._close_warned = None
        self._frames.remove(frame)
        self._order = [f for f in self._order if f != frame.id]
        frame.destroy()
        if self.ctx.window_role == "popout" and not self._frames:
            window.close()  # the pop-out window holds one frame; closing it closes the window
            return
        if self.active is frame:
            self.active = None
            previous = self.last_activated()
            if previous is not None and refocus:
                # Back to the frame used before: re-activating it keeps the store's fallback.
                previous.el.focus()
        self._update_empty()
        self.changed()

    async def popout(self, frame) -> None:
        """Flush, open the frame's own window, then let the frame leave this one."""
        if frame not in self._frames:
            return
        try:
            saved = await asyncio.wait_for(frame.flush(), POPOUT_FLUSH_SECONDS)
        except TimeoutError:
            saved = False
        if not saved:
            message = (
                "This note has changes that could not be saved yet, so it stays here "
                "for now. Try popping it out again once it says Saved."
            )
            self.ctx.say(message)
            spawn(self._unsay_when_saved(frame, message))
            return
        query = frame.popout_query()
        ws = query.pop("ws", None) or self.ctx.workspace_id
        url = popout_url(
            frame.kind, frame.id, ws, query.pop("path", ""), query.pop("view", ""), extra=query
        )
        opened = window.open(url, f"ana-{frame.id}", "popup,width=720,height=760")
        if not opened:  # JS null (jsnull) is falsy
            self.ctx.say("The browser blocked the new window. Allow pop-ups for this page.")
            return
        self.close(frame)

    async def _unsay_when_saved(self, frame, message: str) -> None:
        if await frame.flush():
            self.ctx.unsay(message)

    def clear(self) -> None:
        """Close every frame (sign-out); savers of open notes go on in the background."""
        for frame in list(self._frames):
            self.close(frame, refocus=False)

    def close_kind(self, kind: str) -> None:
        for frame in [f for f in self._frames if f.kind == kind]:
            self.close(frame, refocus=False)

    # -- keyboard ------------------------------------------------------------------------

    def move_focus(self, step: int) -> None:
        """Ctrl+Alt+Arrow: focus the previous/next frame (which activates it)."""
        if not self._frames:
            return
        index = self._frames.index(self.active) if self.active in self._frames else -1
        target = self._frames[(index + step) % len(self._frames)]
        target.el.focus()

    def _update_empty(self) -> None:
        empty = self.el.querySelector(".frameset-empty")
        if self._frames and empty:
            empty.remove()
        elif not self._frames and not empty:
            self.el.append(
                h(
                    "p",
                    {
                        "class": "frameset-empty",
                        "text": "No frames open. Use the toolbar to open an Inbox, "
                        "Assistant or Files frame.",
                    },
                )
            )

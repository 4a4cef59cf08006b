"""This window's live-notes stream (SPEC §13): one EventSource per workspace, to the Inbox frames.

The browser reconnects an EventSource by itself after a network loss (sending the last event
id, so the server replays what was missed or says `reset`); when it gives up (a refused
answer), a new one is opened after `retry_after`. While the stream is down a small status
says so. Whenever what was missed cannot be known (a new stream, a `reset`), every open note
is read again. The decisions (merge, conflict) are the autosaver's, in pure Python.

The server also ends a member's stream when their role in the workspace changes or they are
removed (SPEC §17). So whenever the stream ends without the page asking, the page reads
`GET /api/workspaces` again (before its own reopening; the browser's reconnect, a few seconds
later, meets the answer already applied): a new role flips the open notes in place, and a
member no more leaves the workspace and says why (`access_model.decide`).
"""

from __future__ import annotations

import asyncio

from js import EventSource, document
from pyodide.ffi import create_proxy

from ambient.contract import INBOX
from app.api_model import workspace_url
from app.dom import guard, h, spawn
from app.latest_model import Check, Latest
from app.live.access_model import REMOVED, Decision, decide
from app.live.live_model import (
    DELETED,
    KINDS,
    MOVED,
    OFFLINE_WORDS,
    RESET,
    SAVED,
    parse_event,
    retry_after,
)

CLOSED = 2  # EventSource.readyState: the browser will not retry by itself

_client: LiveClient | None = None


def start_live(ctx) -> LiveClient:
    """Start this window's live client (once per window; boot calls it)."""
    global _client
    if _client is None:
        _client = LiveClient(ctx)
    return _client


class LiveClient:
    """Follows the current workspace's stream; `status` shows while it is down."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.ws: str | None = None
        self.source = None
        self._streams = Latest()  # moved by each open and close: an older stream is stale
        self._attempt = 0
        self._fresh = True  # a new EventSource: what happened before it is unknown
        self._last_id = ""
        self._proxies: list = []
        # Access checks, one at a time: each asked for gets a read begun after it was asked.
        self._checks = asyncio.Lock()
        self._asked = self._answered = 0
        self._access = True
        self._interrupted = False  # the stream went down since it was last open
        self.status = h(
            "p",
            {
                "class": "live-status",
                "role": "status",
                "hidden": True,
                "data-testid": "live-status",
                "data-state": "closed",
            },
        )
        document.body.append(self.status)
        ctx.on_workspace_change(self._switch)

    # -- the connection ----------------------------------------------------------------------

    def _switch(self, ws) -> None:
        self._close()
        self.ws = ws or None
        if self.ws:
            self._open()

    def _open(self) -> None:
        latest = self._streams.start()
        self._fresh, self._last_id = True, ""
        self._interrupted = False  # a new stream: `_reopen` checked access before it
        self.source = EventSource.new(f"{workspace_url(self.ws)}/events")
        handlers = {"open": self._on_open, "error": self._on_error}
        handlers |= {kind: self._on_event for kind in KINDS}
        for name, handler in handlers.items():

            def call(event, handler=handler) -> None:
                if latest():  # an old stream's late event: ignore
                    handler(event)

            proxy = create_proxy(guard(call))
            self.source.addEventListener(name, proxy)
            self._proxies.append(proxy)

    def _close(self) -> None:
        self._streams.move()
        if self.source is not None:
            self.source.close()
            self.source = None
        for proxy in self._proxies:
            proxy.destroy()
        self._proxies = []
        self._show_state("closed")

    def _on_open(self, event) -> None:
        self._attempt = 0
        self._show_state("open")
        if self._interrupted:  # the role may have changed again while the stream was down
            self._interrupted = False
            spawn(self.check_access())
        if self._fresh or not self._last_id:
            self._fresh = False
            self._reread_all()  # changes made before this stream began are not replayed

    def _on_error(self, event) -> None:
        self._show_state("reconnecting")
        self._interrupted = True
        if self.source is not None and self.source.readyState == CLOSED:
            spawn(self._reopen(self._streams.since()))
        else:
            spawn(self.check_access())  # the server may have ended it: a role change?

    async def _reopen(self, latest: Check) -> None:
        if not await self.check_access():
            return  # no longer a member: the page left the workspace
        await asyncio.sleep(retry_after(self._attempt))
        self._attempt += 1
        if latest() and self.ws:
            ws = self.ws
            self._close()
            self.ws = ws
            self._open()
            self._show_state("reconnecting")

    # -- access (SPEC §17) -------------------------------------------------------------------

    async def check_access(self) -> bool:
        """Read the workspaces again and apply what changed; False once the page left the
        workspace. One check at a time; callers asking together share one read."""
        self._asked += 1
        ticket = self._asked
        async with self._checks:
            if self._answered < ticket:
                self._answered = self._asked
                self._access = await self._check_access()
            return self._access

    async def _check_access(self) -> bool:
        ctx, ws = self.ctx, self.ws
        if not ws:
            return False
        try:
            listing = await ctx.read_workspaces()
        except Exception:  # noqa: BLE001 - offline or signed out: the reconnect tells
            return True
        if listing is None:
            return True  # a newer list came first, and whoever read it acted on it
        if ws != self.ws:
            return False  # switched meanwhile: the new workspace has its own stream
        decision = decide(ws, ctx.workspaces, listing)
        if decision.kind != REMOVED:
            ctx.set_workspaces(listing)  # a new role reaches the open notes at once
            return True
        self._leave(ws, decision, listing)
        return False

    def _leave(self, ws: str, decision: Decision, listing: list[dict]) -> None:
        """Removed from `ws`: its notes go (there is nothing left to save them to), and the
        page moves to another workspace (or none) and says why."""
        ctx = self.ctx
        self._close()
        self.ws = None
        for frame in self._frames_of(ws):
            frame.forget_note(decision.words)
        ctx.set_workspaces(listing)
        if ctx.window_role != "main":
            ctx.say(f"{decision.words} Close this window.")
            return
        ctx.store.boundary()  # the pointer never names a note of a workspace no longer ours
        if ctx.frameset is not None:
            ctx.frameset.close_kind(INBOX)
        ctx.workspace_id = decision.next_ws
        # The shell's switcher: the workspace goes from it, and it shows where the page is now.
        select = document.getElementById("workspace-select")
        if select:
            for option in list(select.options):
                if option.value == ws:
                    option.remove()
            select.value = decision.next_ws or ""
        ctx.workspace_changed()
        ctx.say(decision.words)

    def _show_state(self, state: str) -> None:
        self.status.dataset.state = state
        self.status.hidden = state != "reconnecting"
        self.status.textContent = OFFLINE_WORDS if state == "reconnecting" else ""

    # -- events ------------------------------------------------------------------------------

    def _on_event(self, event) -> None:
        if event.lastEventId:
            self._last_id = str(event.lastEventId)
        parsed = parse_event(str(event.type), str(event.data or ""))
        if parsed is None:
            return
        if parsed.kind == RESET:
            self._reread_all()
            return
        for frame in self._frames(parsed.path):
            if parsed.kind == SAVED:
                spawn(frame.saved_elsewhere(parsed.revision))
            elif parsed.kind == MOVED:
                frame.moved_elsewhere(parsed.to, parsed.revision)
            elif parsed.kind == DELETED:
                frame.deleted_elsewhere()

    def _frames(self, path: str | None = None) -> list:
        return self._frames_of(self.ws, path)

    def _frames_of(self, ws: str | None, path: str | None = None) -> list:
        frameset = self.ctx.frameset
        found = []
        for frame in frameset.frames() if frameset else []:
            session = getattr(frame, "session", None)
            if (
                frame.kind == INBOX
                and session is not None
                and session.ws == ws
                and (path is None or session.path == path)
            ):
                found.append(frame)
        return found

    def _reread_all(self) -> None:
        for frame in self._frames():
            spawn(frame.reread())

"""This window's publisher (SPEC §10): PUTs what the window's resolver names while sharing is on.

It runs in every window (main and popped-out). What to send and when is decided in
publish_model (pure, tested); the typing pause and the close are in web/editor/publish.js.
"""

from __future__ import annotations

import asyncio
import json
import time

from js import BroadcastChannel, crypto, document, window
from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from ambient.pointer import now_iso
from app.agents.publish_model import (
    CHANGE,
    FOCUS,
    HEARTBEAT,
    HEARTBEAT_SECONDS,
    PAUSE,
    PAUSE_MS,
    SHARING_URL,
    URL,
    Pending,
    Publisher,
    pointer_wire,
)
from app.dom import guard, spawn
from app.latest_model import Latest

CHANNEL = "ana-active-note-sharing"  # tells this user's other windows the switch moved

_publisher: WindowPublisher | None = None


def start_publisher(ctx) -> WindowPublisher:
    """Start this window's publisher (once per window; boot calls it)."""
    global _publisher
    if _publisher is None:
        _publisher = WindowPublisher(ctx)
    return _publisher


class WindowPublisher:
    """Publishes this window's resolved note while sharing is on; one request at a time."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.model = Publisher(str(crypto.randomUUID()))
        self._pending = Pending()  # the strongest reason waiting to be published
        self._running = False
        self._keep = []
        self._reads = Latest()  # moved by each read of the switch and each move of it here
        ctx.store.subscribe(lambda: self.request(CHANGE))
        ctx.on_workspace_change(self._on_workspace)
        self._pause = create_proxy(guard(lambda *a: self.request(PAUSE)))
        self._listen(window, "focus", lambda event: self.request(FOCUS))
        self._listen(document, "visibilitychange", self._on_visibility)
        self.channel = BroadcastChannel.new(CHANNEL)
        self._listen(self.channel, "message", lambda event: spawn(self.refresh()))
        spawn(self._heartbeat())

    def _listen(self, target, name: str, fn) -> None:
        proxy = create_proxy(guard(fn))
        target.addEventListener(name, proxy)
        self._keep.append(proxy)

    def _on_workspace(self, workspace_id) -> None:
        if workspace_id is None:  # signed out: stop until the next sign-in says otherwise
            self._apply(False)
        else:
            spawn(self.refresh())

    def _on_visibility(self, event) -> None:
        if editor.pageVisible():
            self.request(FOCUS)

    async def refresh(self) -> None:
        """Ask the server whether sharing is on (at sign-in, and when another window says).

        An answer is dropped when the switch moved here, or was read again, meanwhile: it
        may have been read before the move and would undo it.
        """
        latest = self._reads.start()
        try:
            reply = await self.ctx.api.call("GET", SHARING_URL)
        except Exception:  # noqa: BLE001 - offline: keep the state; the next event asks again
            return
        if not latest():
            return
        if reply.status == 200:
            self._apply(bool(reply.json().get("enabled")))
        elif reply.status == 401:
            self._apply(False)

    def _apply(self, enabled: bool) -> None:
        if enabled == self.model.enabled:
            return
        self.model.switch(enabled)
        # With sharing off, typing calls no Python at all, not even once per pause.
        editor.onTypingPause(self._pause if enabled else None, PAUSE_MS)
        self._arm_close()
        if enabled:
            self.request(CHANGE)

    def switched(self, enabled: bool) -> None:
        """This window's panel moved the switch: apply it here and tell the other windows."""
        self._reads.move()
        self._apply(enabled)
        self.channel.postMessage("changed")

    def _arm_close(self) -> None:
        body = self.model.close_body(self.ctx.workspace_id)
        editor.armClose(URL, json.dumps(body) if body else None)

    def request(self, reason: str) -> None:
        """Publish for `reason` soon; events that arrive meanwhile fold into one request."""
        if not self.model.enabled:
            return
        self._pending.add(reason)
        if not self._running:
            self._running = True
            spawn(self._run())

    async def _run(self) -> None:
        try:
            while (reason := self._pending.take()) is not None:
                await self._publish(reason)
        finally:
            self._running = False

    async def _publish(self, reason: str) -> None:
        ws = self.ctx.workspace_id
        wire = None if reason == HEARTBEAT else await self._capture()
        if ws != self.ctx.workspace_id:
            return  # crossed a workspace boundary meanwhile: the change event publishes anew
        body = self.model.decide(
            reason,
            workspace_id=ws,
            wire=wire,
            now=time.monotonic(),
            visible=bool(editor.pageVisible()),
        )
        if body is None:
            return
        self._arm_close()
        try:
            reply = await self.ctx.api.call("PUT", URL, data=body)
        except Exception:  # noqa: BLE001 - offline: not marked sent, so the next event retries
            return
        if reply.status == 409:  # switched off in another window or tab
            self._apply(False)
        elif reply.status < 300:
            self.model.sent(body, time.monotonic())

    async def _capture(self) -> dict | None:
        """The resolver's answer now, measured from the live editor (never note text)."""
        store = self.ctx.store
        epoch = store.epoch
        runtime = store.resolve()
        if runtime is None:
            return None
        try:
            snapshot = await runtime.snapshot()  # editor.digest, as the per-turn capture
        except Exception:  # noqa: BLE001 - the frame went away: its change event follows
            return None
        if store.epoch != epoch:
            return None
        return pointer_wire(
            frame_id=runtime.frame_id,
            path=runtime.path,
            view=runtime.view,
            snapshot=snapshot,
            flushed=not getattr(runtime, "dirty", False),
            captured_at=now_iso(),
        )

    async def _heartbeat(self) -> None:
        """Wake a few times per heartbeat period; the model says whether one is due."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS / 4)
            self.request(HEARTBEAT)

"""Which notes the other windows of this browser show, so a chip can say why it names none.

Every pop-out window tells a BroadcastChannel (same origin, same browser) which notes its
Inbox frames show, whenever that changes, and that it is gone when it closes. A window that
starts asks the others to tell it again. Only paths travel, never a note's text.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable

from js import BroadcastChannel, window
from pyodide.ffi import create_proxy

from app.dom import guard

CHANNEL = "ana-windows"


class OtherWindows:
    """This window's view of the others: `elsewhere(user, ws)` lists the paths they show."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.id = secrets.token_hex(6)
        self._others: dict[str, dict] = {}
        self._listeners: list[Callable[[], None]] = []
        self._said = ""
        self._channel = BroadcastChannel.new(CHANNEL)
        self._proxies = [create_proxy(guard(self._message)), create_proxy(guard(self._gone))]
        self._channel.onmessage = self._proxies[0]
        window.addEventListener("pagehide", self._proxies[1])
        if ctx.window_role == "popout":
            ctx.store.subscribe(self.announce)
        self._post({"type": "hello"})

    def elsewhere(self) -> list[str]:
        """Paths open in other windows of the same user and workspace."""
        user = (self.ctx.user or {}).get("username", "")
        return sorted(
            {
                path
                for other in self._others.values()
                if other.get("user") == user and other.get("ws") == self.ctx.workspace_id
                for path in other.get("paths", [])
            }
        )

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def announce(self, force: bool = False) -> None:
        """A pop-out tells the others which notes it shows (only when that changed)."""
        if self.ctx.window_role != "popout":
            return
        message = {
            "type": "notes",
            "user": (self.ctx.user or {}).get("username", ""),
            "ws": self.ctx.workspace_id,
            "paths": sorted({r.path for r in self.ctx.store.runtimes()}),
        }
        said = json.dumps(message, sort_keys=True)
        if force or said != self._said:
            self._said = said
            self._post(message)

    def _post(self, message: dict) -> None:
        self._channel.postMessage(json.dumps({**message, "from": self.id}))

    def _message(self, event) -> None:
        try:
            message = json.loads(str(event.data))
        except ValueError:
            return
        sender = str(message.get("from", ""))
        if message.get("type") == "hello":
            self.announce(force=True)
            return
        if message.get("type") == "notes":
            self._others[sender] = message
        elif message.get("type") == "gone":
            self._others.pop(sender, None)
        else:
            return
        for callback in list(self._listeners):
            callback()

    def _gone(self, _event) -> None:
        self._post({"type": "gone"})

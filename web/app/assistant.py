"""The Assistant frame: chat, tool calls, the ambient chip and its toggle, and the send."""

from __future__ import annotations

import asyncio
import json
import uuid
from contextlib import suppress

from js import document, localStorage
from pyodide.ffi import create_proxy

from ambient.capture import capture
from ambient.pointer import HEADER_NAME
from app.api_model import ApiError, describe
from app.keys import KeySessions

KEY_SESSION_HEADER = "X-Key-Session"
TURN_TIMEOUT = 90.0  # a configured model may think for a while; the page stays responsive
_keys: KeySessions | None = None  # one cache per window, shared by its assistant frames


def keys(api) -> KeySessions:
    global _keys
    if _keys is None:
        async def post(url: str) -> tuple[dict, str | None]:
            reply = await api.ok("POST", url, data={})
            return reply.json(), reply.headers.get("date")

        _keys = KeySessions(post)
    return _keys


def _el(tag: str, *, text: str | None = None, cls: str | None = None, **attrs) -> object:
    node = document.createElement(tag)
    if text is not None:
        node.textContent = text  # always text, never HTML: replies and paths may hold markup
    if cls:
        node.className = cls
    for name, value in attrs.items():
        node.setAttribute(name.replace("_", "-"), value)
    return node


class AssistantFrame:
    """One chat bound to the window's ambient store; `destroy()` releases every listener."""

    def __init__(self, container, ctx) -> None:
        self.ctx = ctx
        self.container = container
        self.proxies: list = []
        self.sending = False
        self.conversation_id: str | None = None
        self._build()
        self._unsubscribe = ctx.store.subscribe(self.render_chip)
        self._unwatch = ctx.on_workspace_change(self._workspace_changed)
        self._workspace_changed()

    # -- DOM ---------------------------------------------------------------------------
    def _build(self) -> None:
        uid = uuid.uuid4().hex[:8]
        root = _el("div", cls="assistant")
        self.chip = _el("div", cls="ambient-chip", data_testid="ambient-chip", data_path="",
                        data_enabled="true", role="status", aria_live="polite")
        self.chip_label = _el("span", cls="chip-label")
        self.toggle = _el("button", text="Ambient: on", type="button", cls="chip-toggle",
                          data_testid="ambient-toggle", aria_pressed="true",
                          title="Let the assistant know which note 'this note' means")
        self.chip.append(self.chip_label, self.toggle)
        self.log = _el("ol", cls="chat", aria_label="Conversation", aria_live="polite")
        form = _el("form", cls="composer")
        label = _el("label", text="Message the assistant", cls="visually-hidden",
                    **{"for": f"assistant-input-{uid}"})
        self.input = _el("textarea", id=f"assistant-input-{uid}", rows="3",
                         data_testid="assistant-input",
                         placeholder="Ask about this note… (Ctrl+Enter to send)")
        self.send_button = _el("button", text="Send", type="submit", data_testid="assistant-send")
        self.status = _el("p", cls="assistant-status", role="status")
        form.append(label, self.input, self.send_button)
        root.append(self.chip, self.log, self.status, form)
        self.container.append(root)
        self._on(self.toggle, "click", lambda event: self.flip_toggle())
        self._on(form, "submit", self._submit)
        self._on(self.input, "keydown", self._keydown)

    def _on(self, node, event: str, handler) -> None:
        proxy = create_proxy(handler)
        self.proxies.append((node, event, proxy))
        node.addEventListener(event, proxy)

    def destroy(self) -> None:
        self._unsubscribe()
        self._unwatch()
        for node, event, proxy in self.proxies:
            node.removeEventListener(event, proxy)
            proxy.destroy()
        self.proxies.clear()

    # -- the chip ----------------------------------------------------------------------
    def _toggle_key(self) -> str:
        return f"ana.ambient-off.{self.conversation_id}"

    def enabled(self) -> bool:
        return not (self.conversation_id and localStorage.getItem(self._toggle_key()) == "1")

    def flip_toggle(self) -> None:
        if self.enabled():
            localStorage.setItem(self._toggle_key(), "1")
        else:
            localStorage.removeItem(self._toggle_key())
        self.render_chip()

    def render_chip(self) -> None:
        runtime = self.ctx.store.resolve()
        on = self.enabled()
        self.chip.dataset.path = runtime.path if runtime else ""
        self.chip.dataset.enabled = "true" if on else "false"
        self.chip.dataset.view = runtime.view if runtime else ""
        self.toggle.textContent = "Ambient: on" if on else "Ambient: off"
        self.toggle.setAttribute("aria-pressed", "true" if on else "false")
        if not on:
            self.chip_label.textContent = "Ambient context is off for this conversation"
        elif runtime:
            self.chip_label.textContent = f"This note: {runtime.path} ({runtime.view})"
        else:
            self.chip_label.textContent = "No note open"

    # -- conversation ------------------------------------------------------------------
    def _conversation_key(self) -> str:
        # Per user too: another user's conversation id would get 404 from the server.
        user = (self.ctx.user or {}).get("username", "")
        return f"ana.conversation.{user}.{self.ctx.workspace_id}"

    def _new_conversation(self) -> str:
        self.conversation_id = str(uuid.uuid4())
        localStorage.setItem(self._conversation_key(), self.conversation_id)
        return self.conversation_id

    def _workspace_changed(self, *_args) -> None:
        self.log.replaceChildren()
        self.status.textContent = ""
        if not self.ctx.workspace_id:
            self.conversation_id = None
            self.render_chip()
            return
        stored = localStorage.getItem(self._conversation_key())
        if stored:
            self.conversation_id = stored
        else:
            self._new_conversation()
        self.render_chip()
        if stored:
            asyncio.ensure_future(self._restore(self.conversation_id))

    async def _restore(self, conversation_id: str) -> None:
        try:
            reply = await self.ctx.api.ok("GET", f"/api/assistant/conversations/{conversation_id}")
        except Exception:  # noqa: BLE001 - a 404 before the first turn: an empty chat is right
            return
        data = reply.json() or {}
        if conversation_id != self.conversation_id:
            return
        for message in data.get("messages", []):
            self.add_message(message.get("role", "assistant"), message.get("content", ""),
                             message.get("toolCalls") or [])

    def add_message(self, role: str, text: str, tool_calls=()) -> None:
        item = _el("li", cls=f"message {role}", data_testid="assistant-message", data_role=role)
        for call in tool_calls:
            item.append(self._tool_call(call))
        item.append(_el("div", text=text, cls="message-text"))
        self.log.append(item)
        self.log.scrollTop = self.log.scrollHeight

    @staticmethod
    def _tool_call(call: dict):
        result = call.get("result") or {}
        details = _el("details", cls="tool-call", data_testid="tool-call",
                      data_tool=str(call.get("tool", "")))
        args = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
        state = "ok" if result.get("ok") else "failed"
        if result.get("stale"):
            state = "stale"
        details.append(_el("summary", text=f"{call.get('tool')}({args}) — {state}"))
        shown = str(result.get("text") or "")
        details.append(_el("pre", text=shown[:4000] + ("…" if len(shown) > 4000 else "")))
        return details

    # -- send --------------------------------------------------------------------------
    def _keydown(self, event) -> None:
        if event.key == "Enter" and (event.ctrlKey or event.metaKey):
            event.preventDefault()
            asyncio.ensure_future(self.send())

    def _submit(self, event) -> None:
        event.preventDefault()
        asyncio.ensure_future(self.send())

    async def send(self) -> None:
        message = self.input.value.strip()
        if not message or self.sending or not self.conversation_id:
            return
        self.sending = True
        self.send_button.disabled = True
        self.input.value = ""  # what the user types next is theirs; restored only on failure
        self.add_message("user", message)
        self.status.textContent = "Working…"
        epoch = self.ctx.store.epoch  # a workspace switch from here on voids the capture
        workspace, conversation = self.ctx.workspace_id, self.conversation_id
        try:
            headers = {KEY_SESSION_HEADER: await keys(self.ctx.api).get(workspace)}
            ambient = await capture(self.ctx.store, enabled=self.enabled(), since_epoch=epoch,
                                    also_flush=list(self.ctx.background_savers))
            if ambient.header:
                headers[HEADER_NAME] = ambient.header
            try:
                reply = await self._turn(headers, conversation, workspace, message)
            except ApiError as error:
                if error.status != 404 or conversation != self.conversation_id:
                    raise
                # The stored id is not ours (another user's, or deleted): start afresh once.
                conversation = self._new_conversation()
                self.render_chip()
                reply = await self._turn(headers, conversation, workspace, message)
            if conversation == self.conversation_id:
                self.add_message("assistant", reply.get("reply", ""), reply.get("toolCalls") or [])
            self.status.textContent = ""
        except Exception as failure:  # noqa: BLE001 - shown in words; the message is kept
            with suppress(Exception):
                keys(self.ctx.api).forget(workspace)
            if not self.input.value:
                self.input.value = message
            self.status.textContent = f"Not sent: {describe(failure)}"
        finally:
            self.sending = False
            self.send_button.disabled = False

    async def _turn(self, headers: dict, conversation: str, workspace: str, message: str) -> dict:
        body = {"conversationId": conversation, "workspaceId": workspace, "message": message}
        reply = await self.ctx.api.ok("POST", "/api/assistant/turns", headers=headers,
                                      timeout=TURN_TIMEOUT, data=body)
        return reply.json() or {}


def mount(container, ctx) -> AssistantFrame:
    return AssistantFrame(container, ctx)


def sign_out() -> None:
    """Forget this window's key sessions (a workspace boundary)."""
    if _keys is not None:
        _keys.forget()

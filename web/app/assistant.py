"""The chat view in an Assistant frame: messages, tool calls, the ambient chip and the composer."""

from __future__ import annotations

import json
import uuid

from js import localStorage

from app.chat_model import TURNS_URL, Chat, conversation_url
from app.dom import Listeners, h, spawn

TURN_TIMEOUT = 90.0  # a configured model may think for a while; the page stays responsive


class _LocalStorage:
    """The chat model's storage over the window's localStorage."""

    def get(self, key: str) -> str | None:
        value = localStorage.getItem(key)  # JS null may arrive as jsnull, not None: falsy
        return str(value) if value else None

    def set(self, key: str, value: str) -> None:
        localStorage.setItem(key, value)

    def remove(self, key: str) -> None:
        localStorage.removeItem(key)


class ChatView:
    """One chat bound to the window's ambient store; `destroy()` releases every listener."""

    def __init__(self, container, ctx) -> None:
        self.ctx = ctx
        self.container = container
        self.listeners = Listeners()
        self.chat = Chat(keys=ctx.key_sessions, turn=self._turn, store=ctx.store,
                         storage=_LocalStorage(), pending=lambda: ctx.background_savers)
        self._build()
        self._unsubscribe = ctx.store.subscribe(self.render_chip)
        self._unwatch = ctx.on_workspace_change(self._workspace_changed)
        self._workspace_changed()

    # -- DOM ---------------------------------------------------------------------------
    def _build(self) -> None:
        input_id = f"assistant-input-{uuid.uuid4().hex[:8]}"
        self.chip_label = h("span", {"class": "chip-label"})
        self.toggle = h("button", {"type": "button", "class": "chip-toggle", "text": "Ambient: on",
                                   "data-testid": "ambient-toggle", "aria-pressed": "true",
                                   "title": "Let the assistant know which note 'this note' means"})
        self.chip = h("div", {"class": "ambient-chip", "data-testid": "ambient-chip",
                              "data-path": "", "data-enabled": "true", "role": "status",
                              "aria-live": "polite"}, self.chip_label, self.toggle)
        self.log = h("ol", {"class": "chat", "aria-label": "Conversation", "aria-live": "polite"})
        self.input = h("textarea", {"id": input_id, "rows": "3", "data-testid": "assistant-input",
                                    "placeholder": "Ask about this note… (Ctrl+Enter to send)"})
        self.send_button = h("button", {"type": "submit", "text": "Send",
                                        "data-testid": "assistant-send"})
        self.status = h("p", {"class": "assistant-status", "role": "status"})
        form = h("form", {"class": "composer"},
                 h("label", {"for": input_id, "class": "visually-hidden",
                             "text": "Message the assistant"}),
                 self.input, self.send_button)
        self.container.append(h("div", {"class": "assistant"},
                                self.chip, self.log, self.status, form))
        self.listeners.on(self.toggle, "click", lambda event: self.flip_toggle())
        self.listeners.on(form, "submit", lambda event: self.send(), prevent=True)
        self.listeners.on(self.input, "keydown", self._keydown)

    def destroy(self) -> None:
        self._unsubscribe()
        self._unwatch()
        self.listeners.clear()

    # -- the chip ----------------------------------------------------------------------
    def flip_toggle(self) -> None:
        self.chat.flip_ambient()
        self.render_chip()

    def render_chip(self) -> None:
        runtime = self.ctx.store.resolve()
        on = self.chat.ambient_enabled()
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
    def _workspace_changed(self, *_args) -> None:
        self.log.replaceChildren()
        self.status.textContent = ""
        user = (self.ctx.user or {}).get("username", "")
        resumed = self.chat.switch(user, self.ctx.workspace_id)
        self.render_chip()
        if resumed:
            spawn(self._restore(self.chat.conversation_id))

    async def _restore(self, conversation_id: str) -> None:
        try:
            reply = await self.ctx.api.ok("GET", conversation_url(conversation_id))
        except Exception:  # noqa: BLE001 - a 404 before the first turn: an empty chat is right
            return
        data = reply.json() or {}
        if conversation_id != self.chat.conversation_id:
            return
        for message in data.get("messages", []):
            self.add_message(message.get("role", "assistant"), message.get("content", ""),
                             message.get("toolCalls") or [])

    def add_message(self, role: str, text: str, tool_calls=()) -> None:
        item = h("li", {"class": f"message {role}", "data-testid": "assistant-message",
                        "data-role": role},
                 *[_tool_call(call) for call in tool_calls],
                 h("div", {"class": "message-text", "text": text}))  # text, never HTML
        self.log.append(item)
        self.log.scrollTop = self.log.scrollHeight

    # -- send --------------------------------------------------------------------------
    def _keydown(self, event) -> None:
        if event.key == "Enter" and (event.ctrlKey or event.metaKey):
            event.preventDefault()
            spawn(self.send())

    async def send(self) -> None:
        message = self.input.value.strip()
        if not self.chat.can_send(message):
            return
        self.send_button.disabled = True
        self.input.value = ""  # what the user types next is theirs; restored only on failure
        self.add_message("user", message)
        self.status.textContent = "Working…"
        try:
            sent = await self.chat.send(message)
        finally:
            self.send_button.disabled = False
        if sent is None:
            return
        if sent.restarted:
            self.render_chip()
        if sent.error:
            if not self.input.value:
                self.input.value = message
            self.status.textContent = f"Not sent: {sent.error}"
            return
        if sent.current:
            self.add_message("assistant", sent.reply.get("reply", ""),
                             sent.reply.get("toolCalls") or [])
        self.status.textContent = ""

    async def _turn(self, headers: dict, body: dict) -> dict:
        reply = await self.ctx.api.ok("POST", TURNS_URL, headers=headers, timeout=TURN_TIMEOUT,
                                      data=body)
        return reply.json() or {}


def _tool_call(call: dict):
    result = call.get("result") or {}
    args = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
    state = "stale" if result.get("stale") else "ok" if result.get("ok") else "failed"
    shown = str(result.get("text") or "")
    return h("details", {"class": "tool-call", "data-testid": "tool-call",
                         "data-tool": str(call.get("tool", ""))},
             h("summary", {"text": f"{call.get('tool')}({args}) — {state}"}),
             h("pre", {"text": shown[:4000] + ("…" if len(shown) > 4000 else "")}))


def mount(container, ctx) -> ChatView:
    return ChatView(container, ctx)

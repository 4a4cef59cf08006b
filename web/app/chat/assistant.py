"""The chat view in an Assistant frame: messages, tool calls, the ambient chip and the composer."""

from __future__ import annotations

import asyncio
import json
import uuid

from js import AbortController, MutationObserver, Object, localStorage
from pyodide.ffi import create_proxy, to_js

from app.api_model import ApiError, OfflineError
from app.chat.chat_model import (
    TURNS_URL,
    Chat,
    conversation_url,
    proposals_by_id,
    turn_path,
    turn_paths,
)
from app.chat.conversation_list import ConversationList
from app.chat.conversation_model import SUGGESTIONS, line_of
from app.chat.log_model import move, tab_stop
from app.chat.proposal_card import ProposalCard, is_proposal
from app.chat.reply_model import render as render_reply
from app.chat.stream_model import STREAM_TYPE, TurnStream
from app.dom import Listeners, h, spawn
from app.latest_model import Check, Latest

TURN_TIMEOUT = 90.0  # a configured model may think for a while; the page stays responsive
PLACEHOLDER = "Ask about this note… (Enter to send, Shift+Enter for a new line)"
LOADING = "Loading the conversation…"  # while a message sent meanwhile waits for it
# Keyboard stops inside the log besides the messages; the log keeps them all out of the Tab
# order (one Tab stop, log_model) and ↓ ↑ reach them.
INNER_STOPS = "a[href], button, summary, input, select, textarea, [tabindex]"


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
        self.storage = _LocalStorage()
        self.chat = Chat(
            keys=ctx.key_sessions,
            turn=self._turn,
            store=ctx.store,
            storage=self.storage,
            pending=lambda: ctx.background_savers,
        )
        self._restored = asyncio.Event()  # clear while a conversation's messages are on their way
        self._restored.set()
        self._held = False  # a message sent while restoring waits for the restored ones
        self._shown = Latest()  # moved by each clear of the log: an older one's restore is stale
        self._build()
        self._unsubscribe = ctx.store.subscribe(self.render_chip)
        self._unwatch = ctx.on_workspace_change(self._workspace_changed)
        windows = getattr(ctx, "windows", None)
        self._unwindow = windows.on_change(self.render_chip) if windows else (lambda: None)
        self._workspace_changed()

    # -- DOM ---------------------------------------------------------------------------
    def _build(self) -> None:
        input_id = f"assistant-input-{uuid.uuid4().hex[:8]}"
        self.chip_label = h("span", {"class": "chip-label"})
        self.toggle = h(
            "button",
            {
                "type": "button",
                "class": "chip-toggle",
                "text": "Ambient: on",
                "data-testid": "ambient-toggle",
                "aria-pressed": "true",
                "title": "Let the assistant know which note 'this note' means",
            },
        )
        self.chip = h(
            "div",
            {
                "class": "ambient-chip",
                "data-testid": "ambient-chip",
                "data-path": "",
                "data-enabled": "true",
                "role": "status",
                "aria-live": "polite",
            },
            self.chip_label,
            self.toggle,
        )
        self.log = h(
            "ol",
            {
                "class": "chat",
                "aria-label": "Conversation (arrow keys move between messages and links)",
                "aria-live": "polite",
                "data-testid": "assistant-log",
            },
        )
        self._focused_message: int | None = None  # the message that holds the log's Tab stop
        self.input = h(
            "textarea",
            {
                "id": input_id,
                "rows": "3",
                "data-testid": "assistant-input",
                "placeholder": PLACEHOLDER,
                "title": PLACEHOLDER,
            },
        )
        self.send_button = h(
            "button", {"type": "submit", "text": "Send", "data-testid": "assistant-send"}
        )
        self.stop_button = h(
            "button",
            {
                "type": "button",
                "text": "Stop",
                "hidden": True,
                "class": "stop",
                "data-testid": "assistant-stop",
                "title": "Stop waiting for this reply",
            },
        )
        self._abort = None
        self._live = None  # the reply's bubble while it streams in
        self.status = h("p", {"class": "assistant-status", "role": "status"})
        self.new_chat = h(
            "button",
            {
                "type": "button",
                "class": "new-chat",
                "text": "New chat",
                "data-testid": "conversation-new",
                "title": "Start a new conversation",
            },
        )
        self.conversations = ConversationList(
            self.ctx,
            self.listeners,
            storage=self.storage,
            current=lambda: self.chat.conversation_id,
            on_open=self.open_conversation,
            on_deleted=self._deleted,
            say=self._say,
        )
        self.suggestions = h(
            "div",
            {"class": "chat-suggestions", "data-testid": "chat-suggestions", "hidden": True},
            h("p", {"text": "Try asking:"}),
            *[
                h(
                    "button",
                    {
                        "type": "button",
                        "class": "suggestion",
                        "text": s.label,
                        "data-testid": "chat-suggestion",
                        "data-index": str(index),
                    },
                )
                for index, s in enumerate(SUGGESTIONS)
            ],
        )
        form = h(
            "form",
            {"class": "composer"},
            h(
                "label",
                {"for": input_id, "class": "visually-hidden", "text": "Message the assistant"},
            ),
            self.input,
            self.stop_button,
            self.send_button,
        )
        bar = h(
            "div", {"class": "assistant-bar"}, self.chip, self.conversations.toggle, self.new_chat
        )
        self.container.append(
            h(
                "div",
                {"class": "assistant"},
                bar,
                self.conversations.list,
                self.log,
                self.suggestions,
                self.status,
                form,
            )
        )
        self.listeners.on(self.toggle, "click", lambda event: self.flip_toggle())
        self.listeners.on(self.new_chat, "click", lambda event: self.start_new_chat())
        self.listeners.on(self.stop_button, "click", lambda event: self.stop())
        self.listeners.on(self.log, "click", self._log_click)
        self.listeners.on(self.log, "keydown", self._log_key)
        self.listeners.on(self.log, "focusin", self._log_focusin)
        # Whatever adds to the log (a message, a streamed reply, a card settling later), the
        # new links and buttons leave the Tab order at once.
        self._observer_proxy = create_proxy(lambda *_args: self._rove())
        self._observer = MutationObserver.new(self._observer_proxy)
        self._observer.observe(
            self.log, to_js({"childList": True, "subtree": True}, dict_converter=Object.fromEntries)
        )
        self.listeners.on(self.suggestions, "click", self._suggestion_click)
        self.listeners.on(form, "submit", lambda event: self.send(), prevent=True)
        self.listeners.on(self.input, "keydown", self._keydown)

    def destroy(self) -> None:
        self._observer.disconnect()
        self._observer_proxy.destroy()
        self._unsubscribe()
        self._unwatch()
        self._unwindow()
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
        elif elsewhere := self._elsewhere():
            # Honest about why: "this note" is only a note open in this window.
            names = ", ".join(elsewhere[:2]) + (" …" if len(elsewhere) > 2 else "")
            self.chip_label.textContent = (
                f"No note open in this window ({names} is open in another window)"
            )
        else:
            self.chip_label.textContent = "No note open"
        self.chip.dataset.elsewhere = "true" if (on and not runtime and self._elsewhere()) else ""

    def _elsewhere(self) -> list[str]:
        windows = getattr(self.ctx, "windows", None)
        return windows.elsewhere() if windows else []

    # -- conversation ------------------------------------------------------------------
    def start_new_chat(self) -> None:
        """New chat: a fresh conversation id; the old one stays on the server."""
        if self.chat.sending or not self.chat.new_conversation():
            return
        self._clear()
        self.status.textContent = "New conversation."
        self.render_chip()
        self.conversations.mark()
        self.input.focus()

    def open_conversation(self, conversation_id: str) -> None:
        """Resume a conversation from the list: its messages and its proposals' outcomes."""
        if conversation_id == self.chat.conversation_id and (
            self.log.firstChild or self._restoring  # shown, or on its way (a second press)
        ):
            self.input.focus()
            return
        if not self.chat.resume(conversation_id):
            self.status.textContent = "Wait for the reply (or Stop it) before switching."
            return
        self._clear(restoring=True)
        self.status.textContent = ""
        self.render_chip()  # the ambient toggle is per conversation
        self.conversations.mark()
        spawn(self._restore(conversation_id, self._shown.since()))
        self.input.focus()

    def _deleted(self, conversation_id: str) -> None:
        if self.chat.deleted(conversation_id):  # the open one went: an empty new chat
            self._clear()
            self.render_chip()
            self.conversations.mark()

    def _say(self, text: str) -> None:
        self.status.textContent = text

    def _clear(self, restoring: bool = False) -> None:
        self._focused_message = None  # another conversation: its newest message is the stop
        self.log.replaceChildren()
        self._shown.move()
        if restoring:
            self._restored.clear()
        else:
            self._restored.set()
        self._sync_empty()

    @property
    def _restoring(self) -> bool:
        return not self._restored.is_set()

    def _sync_empty(self) -> None:
        """An empty chat (not one still loading) offers a few requests it can do."""
        empty = not self.log.firstChild
        self.suggestions.hidden = not (empty and not self._restoring)
        self.log.hidden = empty

    def _workspace_changed(self, *_args) -> None:
        self.status.textContent = ""
        user = (self.ctx.user or {}).get("username", "")
        resumed = self.chat.switch(user, self.ctx.workspace_id)
        self._clear(restoring=resumed)
        self.render_chip()
        self.conversations.mark()
        spawn(self.conversations.refresh(self.ctx.workspace_id))
        if resumed:
            spawn(self._restore(self.chat.conversation_id, self._shown.since()))

    async def _restore(self, conversation_id: str, shown: Check) -> None:
        """Fill the log, while `shown` holds, with the conversation's messages; not a later log
        (another conversation, or this one opened again: its own restore fills that)."""
        try:
            try:
                reply = await self.ctx.api.ok("GET", conversation_url(conversation_id))
            except Exception:  # noqa: BLE001 - a 404 before the first turn: an empty chat is right
                return
            data = reply.json() or {}
            if conversation_id != self.chat.conversation_id or not shown():
                return
            outcomes = proposals_by_id(data)  # each card's outcome, in this one answer
            for message in data.get("messages", []):
                self.add_message(
                    message.get("role", "assistant"),
                    message.get("content", ""),
                    message.get("toolCalls") or [],
                    restored=True,
                    outcomes=outcomes,
                )
        finally:
            if conversation_id == self.chat.conversation_id and shown():
                self._restored.set()
                self._sync_empty()

    def _suggestion_click(self, event) -> None:
        button = event.target.closest("[data-testid=chat-suggestion]")
        if button is None or self.chat.sending:
            return
        suggestion = SUGGESTIONS[int(str(button.dataset.index))]
        self.input.value = suggestion.text
        self.input.focus()
        if suggestion.send:
            spawn(self.send())
        else:  # the user finishes the request; the cursor waits at its end
            end = len(suggestion.text)
            self.input.setSelectionRange(end, end)

    def add_message(
        self,
        role: str,
        text: str,
        tool_calls=(),
        restored: bool = False,
        replace=None,
        outcomes: dict[str, dict] | None = None,
    ) -> None:
        body = h("div", {"class": "message-text"})
        if role == "assistant":
            known = getattr(self.ctx, "known_paths", None) or set()
            # Markdown with raw HTML off and only safe URLs (reply_model): no markup of the
            # reply's own reaches the page.
            body.innerHTML = render_reply(
                text, known, turn_path(tool_calls), turn_paths(tool_calls)
            )
            body.classList.add("markdown")
        else:
            body.textContent = text
        cards = [
            ProposalCard(
                self.ctx,
                self.listeners,
                self.chat.conversation_id,
                call,
                return_focus=lambda: self.input.focus(),
            )
            for call in tool_calls
            if is_proposal(call)
        ]
        item = h(
            "li",
            {"class": f"message {role}", "data-testid": "assistant-message", "data-role": role},
            _tool_calls(tool_calls),
            body,
            *[card.el for card in cards],
        )
        if replace is not None:  # the streamed bubble becomes the final form in its place
            replace.replaceWith(item)
        else:
            self.log.append(item)
        if restored:  # a resumed chat shows each proposal's outcome
            self._settle(cards, outcomes or {})
        self._sync_empty()
        self.log.scrollTop = self.log.scrollHeight

    @staticmethod
    def _settle(cards, outcomes: dict[str, dict]) -> None:
        """Draw each card from the resumed conversation's answer; one it lacks (an older
        server) asks its proposal."""
        for card in cards:
            known = outcomes.get(card.id)
            if known is None:
                spawn(card.refresh())
            else:
                card.settle(known)

    def _log_click(self, event) -> None:
        link = event.target.closest("a.note-ref")
        if not link:
            return
        event.preventDefault()  # now, not after an await: the "#" must not reach the address
        # getAttribute, not dataset: a link to a whole note has no data-line, and reading an
        # absent dataset key from Python raises AttributeError.
        line = line_of(link.getAttribute("data-line"))
        # A note already open in a frame is gone to there, not opened a second time.
        path = str(link.getAttribute("data-path"))
        spawn(self.ctx.open_note(path, line=line, go_to_open=True))

    # -- the log's keyboard: one Tab stop, arrows inside (log_model) ---------------------
    def _messages(self) -> list:
        return [el for el in self.log.children if el.matches("li.message")]

    def _stops(self) -> list:
        """The log's keyboard stops in reading order: each message, then what is inside it."""
        stops = []
        for message in self._messages():
            stops.append(message)
            stops.extend(
                el
                for el in message.querySelectorAll(INNER_STOPS)
                if not el.matches(":disabled, [hidden], [contenteditable=true]")
                and el.checkVisibility()
            )
        return stops

    def _rove(self) -> None:
        messages = self._messages()
        stop = tab_stop(len(messages), self._focused_message)
        for index, message in enumerate(messages):
            message.setAttribute("tabindex", "0" if index == stop else "-1")
            for el in message.querySelectorAll(INNER_STOPS):
                if not el.closest("[contenteditable=true]") and el.getAttribute("tabindex") != "-1":
                    el.setAttribute("tabindex", "-1")

    def _log_focusin(self, event) -> None:
        message = event.target.closest("li.message")
        if not message:  # JS null need not arrive as None
            return
        messages = self._messages()
        index = next((i for i, el in enumerate(messages) if el == message), None)
        if index is not None and index != self._focused_message:
            self._focused_message = index
            self._rove()

    def _log_key(self, event) -> None:
        target = event.target
        if event.altKey or event.ctrlKey or event.metaKey or event.shiftKey:
            return
        if target.matches("input, textarea, select") or target.isContentEditable:
            return  # the keys are the field's own (a card's editor, a form)
        stops = self._stops()
        current = next((i for i, el in enumerate(stops) if el == target), -1)
        index = move(len(stops), current, str(event.key))
        if index is None:
            return
        event.preventDefault()
        stops[index].focus()

    def _keydown(self, event) -> None:
        # Enter sends, Shift+Enter is a new line; Enter that ends an IME composition (Japanese
        # input) only confirms the text.
        if event.key != "Enter" or event.shiftKey or event.altKey:
            return
        if event.isComposing or event.keyCode == 229:
            return
        event.preventDefault()
        spawn(self.send())

    async def send(self) -> None:
        message = self.input.value.strip()
        if not self.chat.can_send(message) or self._held:
            return
        self.send_button.disabled = True
        self.input.value = ""  # what the user types next is theirs; restored only on failure
        if self._restoring and not await self._after_restore():
            # Another conversation meanwhile: the message goes back unsent, before anything
            # typed since (nothing typed is lost).
            typed = str(self.input.value)
            self.input.value = f"{message}\n{typed}" if typed else message
            self.send_button.disabled = False
            return
        self.add_message("user", message)
        self.status.textContent = "Working…"
        self._abort = AbortController.new()
        self.stop_button.hidden = False
        try:
            sent = await self.chat.send(message)
        finally:
            self.send_button.disabled = False
            self.stop_button.hidden = True
            self._abort = None
            live, self._live = self._live, None
        if live is not None:
            live.dataset.streaming = "false"
            if sent is not None and sent.stopped:  # what was said stays, as the server keeps it
                live.dataset.role = "assistant"
            elif sent is None or sent.error or not sent.current:
                live.remove()
        if sent is None:
            return
        if sent.restarted:
            self.render_chip()
        spawn(self.conversations.refresh(self.chat.workspace))  # its title, count, order
        if sent.stopped:  # the user's message stays; the box is free for the next one
            if sent.current:
                self.log.append(
                    h(
                        "li",
                        {
                            "class": "message notice",
                            "data-role": "notice",
                            "data-testid": "assistant-message",
                            "text": "Stopped.",
                        },
                    )
                )
                self._sync_empty()
            self.status.textContent = ""
            self.input.focus()
            return
        if sent.error:
            if not self.input.value:
                self.input.value = message
            self.status.textContent = f"Not sent: {sent.error}"
            return
        if sent.current:
            self.add_message(
                "assistant",
                sent.reply.get("reply", ""),
                sent.reply.get("toolCalls") or [],
                replace=live,
            )
        self.status.textContent = ""

    async def _after_restore(self) -> bool:
        """Wait until the conversation's earlier messages are shown, so that one sent while
        they were on their way follows them; False if the user left the conversation meanwhile."""
        conversation, self._held = self.chat.conversation_id, True
        self.status.textContent = LOADING
        try:
            await self._restored.wait()
        finally:
            self._held = False
        if self.status.textContent == LOADING:  # not what New chat said meanwhile
            self.status.textContent = ""
        return conversation == self.chat.conversation_id

    def stop(self) -> None:
        """Stop: abort the turn's fetch and stop waiting for it."""
        self.chat.stop()
        if self._abort is not None:
            self._abort.abort()

    async def _turn(self, headers: dict, body: dict) -> dict:
        """Ask for the stream; show each piece as it comes; answer `done`'s JSON form."""
        signal = self._abort.signal if self._abort is not None else None
        api = self.ctx.api
        status, got, response = await api.open(
            "POST",
            TURNS_URL,
            data=body,
            signal=signal,
            timeout=TURN_TIMEOUT,
            headers={**headers, "Accept": STREAM_TYPE},
        )
        if status >= 400 or not got.get("content-type", "").startswith(STREAM_TYPE):
            text = str(await response.text())  # a check refused it, or a server without streams
            if status >= 500:
                raise OfflineError(f"The server had a problem ({status}).")
            if status >= 400:
                raise ApiError.from_response(status, text)
            return json.loads(text) if text else {}
        stream = TurnStream()
        async for chunk in api.chunks(response, idle=TURN_TIMEOUT):
            for kind, data in stream.feed(chunk):
                if kind == "delta":
                    self._live_bubble().lastChild.append(data["text"])  # a text node
                elif kind == "tool":
                    self._show_live_tools(stream.tools)
        return stream.result()

    def _live_bubble(self):
        if self._live is None:
            # data-role "streaming" until `done`: the final form (links, tools, cards) replaces it
            self._live = h(
                "li",
                {
                    "class": "message assistant",
                    "data-role": "streaming",
                    "data-testid": "assistant-message",
                    "data-streaming": "true",
                },
                h("div", {"class": "message-text"}),
            )
            self.log.append(self._live)
            self._sync_empty()
        self.log.scrollTop = self.log.scrollHeight
        return self._live

    def _show_live_tools(self, calls: list[dict]) -> None:
        live = self._live_bubble()
        fold = live.querySelector(".tool-calls")
        if fold is not None:
            fold.remove()
        live.prepend(_tool_calls(calls))


def _tool_calls(calls):
    """One folded line per turn ("Used 2 tools: …"); its calls show when it is opened."""
    calls = [call for call in calls if isinstance(call, dict)]
    if not calls:
        return None
    names = ", ".join(dict.fromkeys(str(call.get("tool", "")) for call in calls))
    noun = "tool" if len(calls) == 1 else "tools"
    return h(
        "details",
        {"class": "tool-calls", "data-testid": "tool-calls"},
        h("summary", {"text": f"Used {len(calls)} {noun}: {names}"}),
        *[_tool_call(call) for call in calls],
    )


def _tool_call(call: dict):
    result = call.get("result") or {}
    args = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
    state = "stale" if result.get("stale") else "ok" if result.get("ok") else "failed"
    shown = str(result.get("text") or "")
    return h(
        "div",
        {"class": "tool-call", "data-testid": "tool-call", "data-tool": str(call.get("tool", ""))},
        h("p", {"class": "tool-call-head", "text": f"{call.get('tool')}({args}) — {state}"}),
        h("pre", {"text": shown[:4000] + ("…" if len(shown) > 4000 else "")}),
    )


def mount(container, ctx) -> ChatView:
    return ChatView(container, ctx)

"""The inline command of one Inbox frame (SPEC §9): button, shortcut, prompt, preview, accept."""

from __future__ import annotations

from js import document
from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from app.api_model import describe
from app.chat.inline_model import (
    ARIA_SHORTCUT,
    CHANGED,
    SHORTCUT,
    URL,
    Outcome,
    read_answer,
    request_body,
)
from app.dom import guard, h
from app.latest_model import Latest

CLOSED, PROMPT, WAITING, PREVIEW, MESSAGE = "closed", "prompt", "waiting", "preview", "message"
REQUEST_TIMEOUT = 60.0  # a configured model may take its own timeout (30 s) and then some
KEYS = (
    (SHORTCUT, "ask for a change to the selection, or to the cursor's line (⌘K on a Mac)"),
    ("Enter", "send the instruction; then accept the preview"),
    ("Escape", "reject the preview, or close the prompt"),
    ("Ctrl+Z", "undo; an accepted change is one step"),
    ("Ctrl+Alt+← / →", "move between frames"),
)


class InlineCommand:
    """Owns the frame's inline command; the editor side lives in web/editor/inline.js."""

    def __init__(self, frame) -> None:
        self.frame, self.ctx = frame, frame.ctx
        self.state = CLOSED
        self._session = None  # the NoteSession the panel is shown in
        self._sent = ""  # the text the request is about: accept needs it still there
        self._start = self._end = 0  # its CodeMirror positions (UTF-16 units)
        self._around: tuple[str, str] = ("", "")  # all the text around it, until sent
        self._replacement = ""
        self._asks = Latest()
        self.button = h(
            "button",
            {
                "type": "button",
                "class": "inline-open",
                "data-testid": "inline-command-open",
                "title": f"Inline command on the selection ({SHORTCUT})",
                "aria-keyshortcuts": ARIA_SHORTCUT,
            },
            "Ask AI…",
        )
        items = [h("li", {}, h("kbd", {"text": key}), f" {what}") for key, what in KEYS]
        self.help = h(
            "details",
            {"class": "editor-help", "data-testid": "editor-help"},
            h("summary", {"text": "Keys"}),
            h("ul", {}, *items),
        )
        frame.listeners.on(self.button, "click", lambda event: self.open())
        frame.toolbar.append(self.button, self.help)

        self.input = h(
            "input",
            {
                "type": "text",
                "data-testid": "inline-command-input",
                "aria-label": "What should change in the selection?",
                "placeholder": "make this a bullet list · 箇条書きにして",
                "autocomplete": "off",
                "spellcheck": "false",
            },
        )
        self.preview = h(
            "pre",
            {
                "class": "inline-preview",
                "data-testid": "inline-command-preview",
                "aria-label": "Preview of the replacement",
            },
        )
        self.message = h("p", {"class": "inline-message", "role": "alert"})
        self.accept_button = h(
            "button", {"type": "button", "data-testid": "inline-command-accept"}, "Accept"
        )
        self.reject_button = h(
            "button", {"type": "button", "data-testid": "inline-command-reject"}, "Reject"
        )
        self.hint = h("p", {"class": "inline-hint", "role": "status"})
        self.actions = h("div", {"class": "inline-actions"}, self.accept_button, self.reject_button)
        self.panel = h(
            "div",
            {
                "class": "inline-panel",
                "role": "dialog",
                "tabindex": "-1",
                "aria-label": "Inline command",
                "data-state": CLOSED,
            },
        )
        frame.listeners.on(self.accept_button, "click", lambda event: self.accept())
        frame.listeners.on(self.reject_button, "click", lambda event: self.close())
        # Filtered in JS: only the shortcut, Enter and Escape ever reach Python.
        self._proxies = [
            create_proxy(guard(lambda *args: self.open())),
            create_proxy(guard(self._on_panel_key)),
        ]
        self._removers = [
            editor.onInlineKey(frame.editor_host, self._proxies[0]),
            editor.onInlinePanelKeys(self.panel, self._proxies[1]),
        ]

    # -- the steps -------------------------------------------------------------------------

    def open(self) -> None:
        """Show the prompt at the selection (or the cursor's line) of the frame's editor."""
        session = self.frame.session
        if session is None or self.frame.view != "edit" or not session.writable:
            return  # a reader's note (SPEC §17) takes no AI edit
        self._reset()
        target = editor.inlineTarget(session.view)
        self._session = session
        self._start, self._end = int(target.start), int(target.end)
        self._sent = str(target.text)
        self._around = (str(target.before), str(target.after))
        self.input.value = ""
        self.input.readOnly = False
        self._draw(PROMPT)
        editor.inlineShow(session.view, self._start, self._end, self.panel)
        self.input.focus()

    async def send(self) -> None:
        instruction = self.input.value.strip()
        if not instruction or self.state != PROMPT:
            return
        body, problem = request_body(
            ws=self._session.ws,
            path=self._session.path,
            instruction=instruction,
            start=self._start,
            end=self._end,
            text=self._sent,
            text_before=self._around[0],
            text_after=self._around[1],
        )
        self._around = ("", "")  # not kept past the request
        if problem is not None:
            self._show_message(problem)
            return
        latest = self._asks.start()
        self.input.readOnly = True  # not disabled: that would drop the focus out of the panel
        self._draw(WAITING)
        try:
            reply = await self.ctx.api.call("POST", URL, data=body, timeout=REQUEST_TIMEOUT)
            outcome = read_answer(reply.status, reply.text)
        except Exception as exc:  # noqa: BLE001 - offline or a timeout: said in the panel
            outcome = Outcome(None, describe(exc))
        if not latest() or self.state != WAITING:
            return  # closed, or asked again, meanwhile
        if not self._alive():
            self._reset()  # the frame shows another note now: the answer has nowhere to go
            return
        if outcome.replacement is None:
            self._show_message(outcome.message or "No change was made.")
            return
        self._replacement = outcome.replacement
        self.preview.textContent = outcome.replacement
        self._draw(PREVIEW)

    def accept(self) -> None:
        """Replace the range in one undoable step, only if it still holds the text sent."""
        if self.state != PREVIEW or not self._alive():
            return
        replaced = bool(editor.inlineApply(self._session.view, self._sent, self._replacement))
        self.close()
        if not replaced:
            self.ctx.say(CHANGED)

    def close(self) -> None:
        """Close the panel (reject, Escape) and give the focus back to the editor."""
        was_open = self.state != CLOSED
        self._reset()
        if was_open:
            self.frame.focus_editor()

    def destroy(self) -> None:
        self._reset()
        for remove in self._removers:
            remove()
        for proxy in self._proxies:
            proxy.destroy()

    # -- helpers -----------------------------------------------------------------------------

    def _on_panel_key(self, key) -> None:
        if key == "escape":
            self.close()
        elif self.state == PROMPT:
            return self.send()
        elif self.state == PREVIEW:
            self.accept()
        elif self.state == MESSAGE:
            self.close()

    def _alive(self) -> bool:
        return self._session is not None and self._session is self.frame.session

    def _reset(self) -> None:
        self._asks.move()
        if self.state != CLOSED and self._alive():
            editor.inlineClose(self._session.view)
        self._session, self._sent, self._replacement = None, "", ""
        self._around = ("", "")
        self._draw(CLOSED)

    def _show_message(self, text: str) -> None:
        self.message.textContent = text
        self._draw(MESSAGE)

    def _draw(self, state: str) -> None:
        # Keep the keyboard in the panel while it is there, but never take it from the editor
        # (someone typing there while the answer comes must not have Enter accept it).
        inside = bool(self.panel.contains(document.activeElement))
        self.state = state
        self.panel.dataset.state = state
        parts, hint = {
            CLOSED: ([], ""),
            PROMPT: ([self.input], "Enter sends · Escape closes"),
            WAITING: ([self.input], "Working…"),
            PREVIEW: ([self.preview, self.actions], "Enter accepts · Escape rejects"),
            MESSAGE: ([self.message, self.actions], "Enter or Escape closes"),
        }[state]
        self.accept_button.hidden = state != PREVIEW
        self.reject_button.textContent = "Reject" if state == PREVIEW else "Close"
        self.hint.textContent = hint
        if parts:
            self.panel.replaceChildren(*parts, self.hint)
        else:
            self.panel.replaceChildren()
        if inside:  # moving the children dropped the focus: put it back in the panel
            (self.input if state in (PROMPT, WAITING) else self.panel).focus()

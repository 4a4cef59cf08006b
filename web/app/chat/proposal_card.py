"""An edit proposal in the chat (SPEC §8): its coloured diff, Apply and Discard, its outcome.

Apply goes through the live editor when the note is open in an Inbox frame of this window
(one CodeMirror transaction, so one undo reverts it and autosave saves it), else through the
server's `apply` endpoint. Either way a `find` must occur exactly once in the text it meets;
when it does not, nothing changes and the card says why. The diff is shown by CodeMirror's
merge view (changed words highlighted inside a line); after Apply or Discard the focus goes
back where it was; when the user's Ctrl+Z undoes an applied edit, the card says so.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from js import document
from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from ambient.edits import EditError, changed_message, cm_changes
from ambient.markdown import to_cm
from app.api_model import ApiError, describe, doc_url
from app.chat.chat_model import conversation_url
from app.chat.diff_model import HOLDS, UNDONE, diff_sides, holds, line_numbers
from app.dom import guard, h, spawn

PENDING, APPLIED, DISCARDED = "pending", "applied", "discarded"
OUTCOME = {APPLIED: "Applied.", DISCARDED: "Discarded."}


def is_proposal(call: dict) -> bool:
    result = call.get("result") if isinstance(call, dict) else None
    return (
        call.get("tool") == "propose_edit"
        and isinstance(result, dict)
        and result.get("ok") is True
        and isinstance(result.get("proposalId"), str)
    )


class ProposalCard:
    """One proposal's card; `el` goes into the assistant's message."""

    def __init__(
        self,
        ctx,
        listeners,
        conversation_id: str | None,
        call: dict,
        url: str | None = None,
        return_focus=lambda: None,
    ) -> None:
        result = call["result"]
        self.ctx = ctx
        self.return_focus = return_focus  # where the keyboard goes when the buttons hide
        self.id = result["proposalId"]
        self.path = str(result.get("path", ""))
        # An outside agent's proposal (agent_proposals) names its workspace and its own URL.
        self.workspace_id = result.get("workspaceId")
        self.url = url or (
            f"{conversation_url(conversation_id)}/proposals/{quote(self.id, safe='')}"
        )
        self.busy = False
        self._return_to = None  # where the focus was before Apply/Discard was pressed
        self._undo_proxy = None
        self._diff_view = None
        self._diff_text: str | None = None
        self.note = h("p", {"class": "proposal-note", "role": "status", "tabindex": "-1"})
        # The stored conversation keeps no note text, so after a reload the diff comes from
        # the proposal itself (refresh).
        self.diff = h("div", {"class": "proposal-diff proposal-diff-view"})
        self._show_diff(result.get("diff"))
        self.apply_button = h(
            "button",
            {
                "type": "button",
                "data-testid": "proposal-apply",
                "text": "Apply",
                "class": "primary",
            },
        )
        self.discard_button = h(
            "button", {"type": "button", "data-testid": "proposal-discard", "text": "Discard"}
        )
        self.el = h(
            "section",
            {
                "class": "proposal",
                "data-testid": "proposal",
                "data-proposal-id": self.id,
                "data-status": PENDING,
                "aria-label": f"Proposed edit of {self.path}",
            },
            h("p", {"class": "proposal-title", "text": f"Proposed edit of {self.path}"}),
            self.diff,
            self.note,
            h("div", {"class": "proposal-actions"}, self.apply_button, self.discard_button),
        )
        listeners.on(self.apply_button, "click", lambda event: self.apply())
        listeners.on(self.discard_button, "click", lambda event: self.discard())
        # Pointer-down comes before the button takes the focus: remember where it was.
        for button in (self.apply_button, self.discard_button):
            listeners.on(button, "pointerdown", self._remember_focus)

    # -- state -----------------------------------------------------------------------------

    def _show_diff(self, diff) -> None:
        if not isinstance(diff, str) or diff == self._diff_text:
            return
        self._diff_text = diff
        if self._diff_view is not None:
            editor.destroy(self._diff_view)
            self._diff_view = None
        self.diff.replaceChildren()
        old, new = diff_sides(diff)
        if old == new:
            self.diff.textContent = "(The edits change nothing.)"
            return
        self._diff_view = editor.diffView(
            self.diff, old, new, f"Proposed changes to {self.path}", json.dumps(line_numbers(diff))
        )

    # -- focus -----------------------------------------------------------------------------

    def _remember_focus(self, event) -> None:
        active = document.activeElement
        if active is not None and active not in (self.apply_button, self.discard_button):
            self._return_to = active

    def _give_focus_back(self, frame) -> None:
        """The pressed button goes away, and the focus must not fall to the page body: into
        the editor that took the edit (Ctrl+Z is right there), else back into the editor it
        came from, else to the chat box."""
        if not self.apply_button.hidden:
            return  # nothing settled: the focus stays on the card's buttons
        target, self._return_to = self._return_to, None
        if frame is not None:
            frame.focus_editor()
        elif target is not None and target.isConnected and target.matches(".cm-content"):
            target.focus()  # typing in a note when Apply was pressed: back to it
        else:
            self.return_focus()

    def show(self, status: str, note: str = "") -> None:
        self.el.dataset.status = status
        self.note.textContent = note or OUTCOME.get(status, "")
        done = status != PENDING
        self.apply_button.hidden = done
        self.discard_button.hidden = done

    async def refresh(self) -> None:
        """Read the proposal's outcome from the server (when no resumed chat carried it)."""
        try:
            data = (await self.ctx.api.ok("GET", self.url)).json() or {}
        except Exception as exc:  # noqa: BLE001 - said on the card, in words
            self.note.textContent = f"Could not read this proposal: {describe(exc)}"
            return
        self.settle(data)

    def settle(self, data: dict) -> None:
        """Draw the outcome and diff the server gave: the proposal's own answer, or its entry
        in a resumed conversation's `proposals`."""
        self._show_diff(data.get("diff"))
        status = str(data.get("status", PENDING))
        via = data.get("appliedVia")
        where = {"editor": " in the editor", "server": ""}.get(via or "", "")
        self.show(status, f"Applied{where}." if status == APPLIED else "")
        if status == APPLIED and self._diff_text:
            spawn(self._say_what_the_note_holds(f"Applied{where}"))

    async def _say_what_the_note_holds(self, applied: str) -> None:
        """An applied proposal read back (a reload, a resumed chat): the note may no longer hold
        it (Ctrl+Z, later typing), so the card says what the saved note holds now."""
        ws = self.workspace_id or self.ctx.workspace_id
        try:
            text = (await self.ctx.api.ok("GET", doc_url(ws, self.path))).text
        except Exception:  # noqa: BLE001 - unreadable (deleted, offline): the outcome stands
            return
        if self.el.dataset.status != APPLIED or self._diff_text is None:
            return
        held = holds(self._diff_text, text)
        self.el.dataset.holds = "true" if held == HOLDS else "false"
        if held == HOLDS:
            self.note.textContent = f"{applied}; the note holds it."
        elif held == UNDONE:
            self.note.textContent = (
                f"{applied}, then undone: the note no longer holds this edit "
                "(it is back as it was before)."
            )
        elif held != HOLDS:
            self.note.textContent = (
                f"{applied}; the note has changed since and no longer holds this edit as proposed."
            )

    # -- actions ---------------------------------------------------------------------------

    async def apply(self) -> None:
        if self.busy:
            return
        self.busy = True
        self.note.textContent = "Applying…"
        frame = None
        try:
            try:
                data = (await self.ctx.api.ok("GET", self.url)).json() or {}
            except Exception as exc:  # noqa: BLE001 - said on the card
                self.note.textContent = f"Not applied: {describe(exc)}"
                return
            if data.get("status") != PENDING:
                self.show(
                    str(data.get("status")),
                    f"This proposal was already {data.get('status')}; nothing was changed.",
                )
                return
            frame = self._live_frame()
            if frame is not None:
                await self._apply_in_editor(frame, data.get("edits"))
            else:
                await self._apply_on_server()
        finally:
            self.busy = False
            self._give_focus_back(frame if self.el.dataset.status == APPLIED else None)

    def _live_frame(self):
        """The Inbox frame of this window whose editor holds the note (the active one first)."""
        frameset = self.ctx.frameset
        if frameset is None or self.workspace_id not in (None, self.ctx.workspace_id):
            return None
        frame = frameset.showing(self.path)
        return frame if getattr(frame, "session", None) is not None else None

    async def _apply_in_editor(self, frame, edits) -> None:
        view, problems = frame.session.view, []

        def apply() -> bool:
            # Read, plan and dispatch with no await in between: no keystroke can slip in.
            text = str(editor.text(view))
            try:
                changes = cm_changes(text, edits)
            except EditError as exc:
                problems.append(changed_message(exc))
                return False
            if not editor.applyProposal(view, json.dumps(changes), to_cm(text, len(text)), self.id):
                problems.append("The note changed while applying; nothing was changed.")
                return False
            return True

        async def record() -> None:
            await self.ctx.api.ok("POST", f"{self.url}/applied-in-editor", data={})

        # Keystrokes not saved yet are saved first as the user's own; the save of the applied
        # text then names this proposal, so that revision alone is the assistant's (§15).
        try:
            if not await frame.session.saver.carry(self.id, apply, record):
                self.note.textContent = problems[0] if problems else "Nothing was changed."
                return
        except Exception as exc:  # noqa: BLE001 - the note has the edit; the record failed
            self._watch_undo()
            self.show(
                APPLIED,
                "Applied in the editor (Ctrl+Z undoes it), but the server "
                f"could not record it: {describe(exc)}",
            )
            return
        self._watch_undo()
        self.show(APPLIED, "Applied in the editor; Ctrl+Z undoes it.")

    def _watch_undo(self) -> None:
        """Say so on the card when the user's Ctrl+Z undoes the applied edit (and redo)."""

        def changed(undone) -> None:
            if undone:
                self.el.dataset.undone = "true"
                self.note.textContent = (
                    "Undone in the editor with Ctrl+Z: the note is back as "
                    "it was (Ctrl+Shift+Z applies it again)."
                )
            else:
                self.el.dataset.undone = "false"
                self.note.textContent = "Applied again in the editor; Ctrl+Z undoes it."

        if self._undo_proxy is None:
            self._undo_proxy = create_proxy(guard(changed))
            editor.watchProposal(self.id, self._undo_proxy)

    async def _apply_on_server(self) -> None:
        try:
            await self.ctx.api.ok("POST", f"{self.url}/apply", data={})
        except ApiError as exc:
            self.note.textContent = f"Not applied: {exc.detail}"
            if exc.status == 409:
                await self._status_if_settled()
            return
        except Exception as exc:  # noqa: BLE001 - offline: said, nothing changed
            self.note.textContent = f"Not applied: {describe(exc)}"
            return
        self.show(APPLIED, "Applied to the saved note.")
        self.ctx.documents_changed()

    async def _status_if_settled(self) -> None:
        """After a 409: if the proposal is no longer pending, the card shows that too."""
        try:
            data = (await self.ctx.api.ok("GET", self.url)).json() or {}
        except Exception:  # noqa: BLE001 - the 409's own words are already shown
            return
        if data.get("status") in (APPLIED, DISCARDED):
            self.show(str(data["status"]), self.note.textContent)

    async def discard(self) -> None:
        if self.busy:
            return
        self.busy = True
        try:
            await self.ctx.api.ok("POST", f"{self.url}/discard", data={})
            self.show(DISCARDED)
        except Exception as exc:  # noqa: BLE001 - said on the card
            self.note.textContent = f"Not discarded: {describe(exc)}"
            await self._status_if_settled()
        finally:
            self.busy = False
            self._give_focus_back(None)

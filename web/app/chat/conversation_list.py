"""The Assistant frame's list of the user's conversations: open one, delete one, start anew."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from js import document

from app.api_model import ApiError, describe
from app.chat.conversation_model import (
    Listed,
    ago,
    count_label,
    delete_url,
    list_key,
    list_url,
    parse_listing,
    shown_title,
    without,
)
from app.dom import Listeners, h, spawn
from app.latest_model import Latest
from app.notes.roving_model import after_delete, tab_stop

OPEN_KEY = "ana.conversations.open"  # localStorage: "0" when the user folded the list


class ConversationList:
    """The toggle and the list; delegated listeners. The list is ONE Tab stop (a roving
    tabindex, as the note tree): arrows move between rows, → reaches a row's delete button,
    the Delete key asks to delete, so many conversations cost no more Tab presses."""

    def __init__(
        self,
        ctx,
        listeners: Listeners,
        *,
        storage,
        current: Callable[[], str | None],
        on_open: Callable[[str], None],
        on_deleted: Callable[[str], None],
        say: Callable[[str], None],
    ) -> None:
        self.ctx = ctx
        self.storage = storage
        self.on_open = on_open
        self.on_deleted = on_deleted
        self.say = say
        self.items: list[Listed] = []
        self.current = current  # the open conversation's id
        self.focused: str | None = None  # the row last focused: the list's Tab stop
        self.workspace: str | None = None
        self._reads = Latest()  # moved by each read: only the latest one's answer is drawn
        self._deleted: set[str] = set()  # from here: a list read before the delete still has it
        expanded = storage.get(OPEN_KEY) != "0"
        self.toggle = h(
            "button",
            {
                "type": "button",
                "class": "conversation-toggle",
                "data-testid": "conversation-toggle",
                "aria-expanded": "true" if expanded else "false",
                "text": "Conversations",
            },
        )
        self.list = h(
            "ul",
            {
                "class": "conversation-list",
                "data-testid": "conversation-list",
                "aria-label": "Your conversations",
                "hidden": not expanded,
            },
        )
        listeners.on(self.toggle, "click", lambda event: self.flip())
        listeners.on(self.list, "click", self._click)
        listeners.on(self.list, "keydown", self._keydown)
        listeners.on(self.list, "focusin", self._focusin)

    # -- the list ----------------------------------------------------------------------
    def flip(self) -> None:
        expanded = self.list.hidden  # hidden now: it opens
        self.list.hidden = not expanded
        self.toggle.setAttribute("aria-expanded", "true" if expanded else "false")
        self.storage.set(OPEN_KEY, "1" if expanded else "0")

    async def refresh(self, workspace: str | None) -> None:
        """Read the list again (a workspace switch, a finished turn, a delete)."""
        self.workspace = workspace
        latest = self._reads.start()
        if not workspace:
            self.show([])
            return
        try:
            data = (await self.ctx.api.ok("GET", list_url(workspace))).json()
        except Exception:  # noqa: BLE001 - the chat works without its list; the next refresh tries
            return
        if latest():  # not switched or read again meanwhile
            listed = parse_listing(data)
            self.show([item for item in listed if item.conversation_id not in self._deleted])

    def show(self, items: list[Listed]) -> None:
        self.items = items
        if self.list.querySelector(".confirm"):  # JS null is falsy (not always None)
            return  # a row asks "Delete?": redraw once it is answered, not under the user
        now = datetime.now(UTC)
        self.toggle.textContent = f"Conversations ({len(items)})"
        had_focus = bool(self.list.contains(document.activeElement))
        self.list.replaceChildren(*[self._row(item, now) for item in items])
        self.mark()
        if had_focus:  # redrawn under the keyboard: it stays in the list
            self._focus(self._stop())

    def mark(self) -> None:
        """Show which conversation is open (`aria-current`) and which row is the Tab stop."""
        conversation_id = self.current()
        stop = self._stop()
        for button in self._buttons():
            cid = str(button.dataset.conversationId)
            if cid == conversation_id:
                button.setAttribute("aria-current", "true")
            else:
                button.removeAttribute("aria-current")
            button.setAttribute("tabindex", "0" if cid == stop else "-1")

    # -- the keyboard ------------------------------------------------------------------
    def _buttons(self) -> list:
        return list(self.list.querySelectorAll("[data-testid=conversation-item]"))

    def _ids(self) -> list[str]:
        return [item.conversation_id for item in self.items]

    def _stop(self) -> str | None:
        return tab_stop(self._ids(), self.focused, self.current())

    def _focus(self, conversation_id: str | None) -> None:
        if conversation_id is None:
            self.toggle.focus()  # no row left: the list's own button keeps the keyboard here
            return
        self.focused = conversation_id
        self.mark()
        for button in self._buttons():
            if button.dataset.conversationId == conversation_id:
                button.focus()

    def _focusin(self, event) -> None:
        button = event.target.closest("[data-testid=conversation-item]")
        if button and str(button.dataset.conversationId) != self.focused:  # null: not a row
            self.focused = str(button.dataset.conversationId)
            self.mark()

    def _row(self, item: Listed, now: datetime):
        title = shown_title(item)
        when = ago(item.updated_at, now)
        meta = " · ".join(part for part in (count_label(item.message_count), when) if part)
        return h(
            "li",
            {"class": "conversation", "data-conversation-id": item.conversation_id},
            h(
                "button",
                {
                    "type": "button",
                    "class": "conversation-open",
                    "data-testid": "conversation-item",
                    "data-conversation-id": item.conversation_id,
                    "title": f"Open: {title}",
                    "tabindex": "-1",  # `mark` makes one row the list's Tab stop
                    "aria-keyshortcuts": "ArrowDown ArrowUp Home End Delete ArrowRight",
                },
                h("span", {"class": "conversation-title", "text": title}),
                h("span", {"class": "conversation-meta", "text": meta}),
            ),
            h(
                "button",
                {
                    "type": "button",
                    "class": "conversation-delete",
                    "data-testid": "conversation-delete",
                    "text": "×",
                    "aria-label": f"Delete the conversation “{title}”",
                    "title": "Delete this conversation (Delete key)",
                    "tabindex": "-1",  # → on the row reaches it, ← or Escape goes back
                },
            ),
        )

    # -- clicks ------------------------------------------------------------------------
    def _click(self, event) -> None:
        target = event.target.closest("button")
        row = event.target.closest("li.conversation")
        if not target or not row:  # JS null need not arrive as None
            return
        cid = str(row.dataset.conversationId)
        testid = str(target.dataset.testid)
        if testid == "conversation-item":
            self.on_open(cid)
        elif testid == "conversation-delete":
            self._confirm(row)
        elif testid == "conversation-delete-confirm":
            spawn(self.delete(cid))
        elif testid == "conversation-delete-cancel":
            self._unconfirm(row)

    def _keydown(self, event) -> None:
        row = event.target.closest("li.conversation")
        if not row:  # JS null need not arrive as None
            return
        key = str(event.key)
        if key == "Escape" and row.querySelector(".confirm"):
            event.preventDefault()
            event.stopPropagation()  # the question only, not the window's Escape
            self._unconfirm(row)
            return
        if event.altKey or event.ctrlKey or event.metaKey or event.shiftKey:
            return
        testid = str(event.target.dataset.testid)
        cid = str(row.dataset.conversationId)
        if testid == "conversation-delete" and key in ("ArrowLeft", "Escape"):
            event.preventDefault()
            event.stopPropagation()
            self._focus(cid)
            return
        if testid != "conversation-item":
            return
        move = list_key(self._ids(), cid, key)
        if move is None:
            return
        event.preventDefault()
        if move.action == "delete":
            self._confirm(row)
        elif move.action == "actions":
            row.querySelector("[data-testid=conversation-delete]").focus()
        else:
            self._focus(move.focus)

    def _confirm(self, row) -> None:
        """Deleting cannot be undone: the row asks first (Escape or Cancel keeps it), naming
        the conversation, as the question takes the row's place."""
        shown = row.querySelector(".conversation-title")
        title = str(shown.textContent) if shown else ""
        for button in row.querySelectorAll("button"):
            button.hidden = True
        cancel = h(
            "button",
            {"type": "button", "data-testid": "conversation-delete-cancel", "text": "Cancel"},
        )
        row.append(
            h(
                "span",
                {"class": "confirm", "role": "group"},
                h(
                    "span",
                    {
                        "class": "confirm-question",
                        "data-testid": "conversation-delete-question",
                        "text": f"Delete “{title}”?" if title else "Delete this conversation?",
                    },
                ),
                h(
                    "button",
                    {
                        "type": "button",
                        "class": "danger",
                        "data-testid": "conversation-delete-confirm",
                        "text": "Delete",
                    },
                ),
                cancel,
            )
        )
        cancel.focus()

    def _unconfirm(self, row) -> None:
        confirm = row.querySelector(".confirm")
        if confirm:
            confirm.remove()
        for button in row.querySelectorAll("button"):
            button.hidden = False
        cid = str(row.dataset.conversationId)
        self.show(self.items)  # what arrived while it asked
        self._focus(cid if cid in self._ids() else self._stop())

    async def delete(self, conversation_id: str) -> None:
        try:
            await self.ctx.api.ok("DELETE", delete_url(conversation_id))
        except ApiError as exc:
            if exc.status != 404:  # 404: already gone (another window): drop it all the same
                self.say(f"Not deleted: {exc.detail}")
                return
        except Exception as exc:  # noqa: BLE001 - offline: said, nothing changed
            self.say(f"Not deleted: {describe(exc)}")
            return
        for confirm in self.list.querySelectorAll(".confirm"):
            confirm.remove()  # answered: the list may be drawn again
        neighbour = after_delete(self._ids(), conversation_id)
        self._deleted.add(conversation_id)
        self.show(without(self.items, conversation_id))
        self.on_deleted(conversation_id)
        self.say("Conversation deleted.")
        self._focus(neighbour)  # the next row keeps the keyboard in the list

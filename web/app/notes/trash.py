"""The Trash dialog (SPEC §18): the notes deleted in the last 30 days, each with Restore."""

from __future__ import annotations

from datetime import UTC, datetime

from app.api_model import ApiError, describe
from app.dom import h, spawn
from app.latest_model import Latest
from app.notes.trash_model import free_path, parse_trash, restore_body, restore_url, trash_url
from app.notes.tree_model import clean_new_path


class Trash:
    """A `trash-open` button and its native <dialog>; a row whose path is taken asks for
    another path (the server's 409) before restoring there."""

    def __init__(self, ctx, listeners) -> None:
        self.ctx, self.listeners = ctx, listeners
        self.rows: dict[str, object] = {}
        self._reads = Latest()  # moved by each read: only the latest one's answer is drawn
        self.button = h(
            "button",
            {
                "type": "button",
                "class": "small",
                "data-testid": "trash-open",
                "aria-haspopup": "dialog",
                "title": "Notes deleted in the last 30 days",
            },
            "Trash",
        )
        self.list = h("ul", {"class": "trash-list", "data-testid": "trash-list"})
        self.status = h("p", {"class": "people-status", "role": "status"})
        close = h(
            "button",
            {
                "type": "button",
                "class": "icon",
                "data-testid": "trash-close",
                "aria-label": "Close",
            },
            "✕",
        )
        self.dialog = h(
            "dialog",
            {"class": "people-dialog", "aria-labelledby": "trash-title", "data-testid": "trash"},
            h("header", {"class": "people-head"}, h("h2", {"id": "trash-title"}, "Trash"), close),
            h(
                "p",
                {"class": "hint"},
                "Deleted notes stay here for 30 days; restoring one brings back its history.",
            ),
            self.list,
            self.status,
        )
        self.element = h("span", {"class": "trash-opener"}, self.button, self.dialog)
        listeners.on(self.button, "click", lambda event: self.open())
        listeners.on(close, "click", lambda event: self.close())
        listeners.on(self.list, "click", self._on_click)
        listeners.on(self.list, "submit", self._on_submit, prevent=True)

    async def open(self) -> None:
        if not self.dialog.open:
            self.dialog.showModal()
        self.status.textContent = ""
        await self.load()

    def documents_changed(self) -> None:
        """A note was deleted or restored (here or in another window): an open list follows."""
        if self.dialog.open:
            spawn(self.load())

    def close(self) -> bool:
        was_open = bool(self.dialog.open)
        if was_open:
            self.dialog.close()
        return was_open

    async def load(self) -> None:
        ws = self.ctx.workspace_id
        if not ws:
            return
        latest = self._reads.start()
        try:
            answer = (await self.ctx.api.ok("GET", trash_url(ws))).json()
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            if latest():
                self.status.textContent = f"Could not read the trash: {describe(exc)}"
            return
        if not latest():  # a later read (after a restore) has the newer list
            return
        entries = parse_trash(answer, datetime.now(UTC))
        self.rows = {}
        items = []
        for index, row in enumerate(entries):
            key = str(index)
            self.rows[key] = row
            items.append(
                h(
                    "li",
                    {
                        "class": "trash-item",
                        "data-testid": "trash-item",
                        "data-path": row.path,
                        "data-key": key,
                    },
                    h("span", {"class": "trash-path", "text": row.path}),
                    h("span", {"class": "hint", "text": f"{row.deleted} · {row.size}"}),
                    h(
                        "button",
                        {
                            "type": "button",
                            "class": "small",
                            "data-testid": "trash-restore",
                            "data-action": "restore",
                            "aria-label": f"Restore {row.path}",
                            "hidden": not self.ctx.can_edit,
                        },
                        "Restore",
                    ),
                )
            )
        self.list.replaceChildren(*items)
        if not entries and not self.status.textContent:  # keep "Restored …" when it is
            self.status.textContent = "The trash is empty."

    async def _on_click(self, event) -> None:
        button = event.target.closest("[data-action=restore]")
        if not button:
            return
        item = button.closest("[data-key]")
        await self._restore(item, self.rows[str(item.dataset.key)], None)

    async def _on_submit(self, event) -> None:
        form = event.target
        item = form.closest("[data-key]")
        problem = form.querySelector(".problem")
        try:
            to = clean_new_path(form.querySelector("input").value)
        except ValueError as exc:
            problem.textContent = describe(exc)
            return
        await self._restore(item, self.rows[str(item.dataset.key)], to)

    async def _restore(self, item, row, to: str | None) -> None:
        ws = self.ctx.workspace_id
        try:
            reply = await self.ctx.api.ok("POST", restore_url(ws), data=restore_body(row, to))
        except ApiError as exc:
            if exc.status == 409:
                return self._ask_path(item, row, describe(exc))
            self.status.textContent = describe(exc)
            return None
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.status.textContent = describe(exc)
            return None
        path = (reply.json() or {}).get("path") or to or row.path
        self.status.textContent = f"Restored {path}."
        self.ctx.documents_changed()  # the list of notes, and this one (documents_changed)
        return None

    def _ask_path(self, item, row, why: str) -> None:
        """A note is at that path now: ask where to bring this one back."""
        old = item.querySelector("form")
        if old:
            old.querySelector(".problem").textContent = why
            return
        field_id = f"trash-to-{item.dataset.key}"
        field = h(
            "input",
            {
                "id": field_id,
                "value": free_path(row.path, set(self.ctx.known_paths)),
                "data-testid": "trash-restore-path",
                "required": True,
                "autocomplete": "off",
            },
        )
        form = h(
            "form",
            {"class": "row-form"},
            h("label", {"for": field_id, "text": f"A note is at {row.path} now. Restore it as"}),
            field,
            h("button", {"type": "submit", "data-testid": "trash-restore-save"}, "Restore here"),
            h("p", {"class": "problem", "role": "alert"}),
        )
        item.append(form)
        field.focus()
        field.select()

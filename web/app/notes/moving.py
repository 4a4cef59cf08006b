"""Organising the note list (SPEC §18): New folder, and dragging a note onto a folder.

Folders exist on the server only through their notes, so a folder made with New folder lives
in the page (drawn in the list) until a note is created in it or moved into it; a reload
forgets an empty one. A drop moves the note with the same call as Rename, links following.
"""

from __future__ import annotations

from app.api_model import describe, workspace_url
from app.dom import h, spawn
from app.notes.tree_model import clean_folder, drop_folder, folder_moved_into, moved_into

NOTE_TYPE = "application/x-ambient-note"  # what a dragged row carries: its path


class NewFolder:
    """The `folder-new` button and its form; a new folder opens the New note form in it."""

    def __init__(self, notes, listeners) -> None:
        self.notes = notes
        self.button = h(
            "button",
            {
                "type": "button",
                "class": "small",
                "data-testid": "folder-new",
                "aria-expanded": "false",
            },
            "New folder",
        )
        self.input = h(
            "input",
            {
                "id": "new-folder-path",
                "data-testid": "folder-new-path",
                "placeholder": "projects or projects/2027",
                "autocomplete": "off",
                "required": True,
            },
        )
        self.problem = h("p", {"class": "problem", "role": "alert"})
        cancel = h(
            "button",
            {"type": "button", "class": "cancel", "data-testid": "folder-new-cancel"},
            "Cancel",
        )
        self.form = h(
            "form",
            {"class": "new-folder", "hidden": True},
            h("label", {"for": "new-folder-path", "text": "Name of the new folder"}),
            self.input,
            h(
                "div",
                {"class": "row"},
                h("button", {"type": "submit", "data-testid": "folder-create"}, "Create"),
                cancel,
            ),
            self.problem,
        )
        listeners.on(self.button, "click", lambda event: self.toggle(None))
        listeners.on(cancel, "click", lambda event: self.toggle(False))
        listeners.on(self.form, "submit", self._create, prevent=True)

    def toggle(self, show: bool | None) -> None:
        show = self.form.hidden if show is None else show
        self.form.hidden = not show
        self.button.setAttribute("aria-expanded", "true" if show else "false")
        self.problem.textContent = ""
        if show:
            self.input.focus()

    def close(self) -> bool:
        """Escape: close the form; True if it was open."""
        was_open = not self.form.hidden
        if was_open:
            self.toggle(False)
            self.button.focus()
        return was_open

    def _create(self, event) -> None:
        try:
            folder = clean_folder(self.input.value)
        except ValueError as exc:
            self.problem.textContent = describe(exc)
            return
        self.input.value = ""
        self.toggle(False)
        self.notes.add_folder(folder)


class DragMove:
    """HTML5 drag and drop in the tree: a note (or folder) row dropped on a folder row (or on
    a note in it) moves into that folder; dropped on the list's empty space, to the top. A
    folder moves with all its notes in one request (`POST …/folders/move`)."""

    def __init__(self, notes, listeners) -> None:
        self.notes = notes
        self.dragging: str | None = None
        self.marked = None
        tree = notes.tree
        listeners.on(tree, "dragstart", self._start)
        listeners.on(tree, "dragover", self._over)
        listeners.on(tree, "dragleave", lambda event: self._mark(None))
        listeners.on(tree, "drop", self._drop)
        listeners.on(tree, "dragend", self._end)

    def _start(self, event) -> None:
        row = event.target.closest("[role=treeitem]") if event.target.closest else None
        if row is None or not self.notes.ctx.can_edit:
            return
        self.dragging = str(row.dataset.key)  # a note's path, or a folder's ending in "/"
        event.dataTransfer.setData(NOTE_TYPE, self.dragging)
        event.dataTransfer.setData("text/plain", self.dragging)
        event.dataTransfer.effectAllowed = "move"

    def _target(self, event) -> tuple[str, object] | None:
        """(the folder a drop here means, the element to highlight), or None: no move."""
        if self.dragging is None:
            return None
        row = event.target.closest("[role=treeitem]") if event.target.closest else None
        if row is None:
            folder, mark = "", self.notes.tree
        elif row.dataset.folder:
            folder, mark = str(row.dataset.folder), row
        else:
            folder, mark = drop_folder("note", str(row.dataset.key)), row
        if self.dragging.endswith("/"):
            if folder_moved_into(self.dragging, folder) is None:
                return None
        elif moved_into(self.dragging, folder) == self.dragging:
            return None
        return folder, mark

    def _over(self, event) -> None:
        found = self._target(event)
        if found is None:
            self._mark(None)
            return
        event.preventDefault()  # this is a drop target
        event.dataTransfer.dropEffect = "move"
        self._mark(found[1])

    def _mark(self, el) -> None:
        if self.marked is not None and self.marked != el:
            self.marked.classList.remove("drop-target")
        self.marked = el
        if el is not None:
            el.classList.add("drop-target")

    def _drop(self, event) -> None:
        found = self._target(event)
        path = self.dragging
        self._end(event)
        if found is None or path is None:
            return
        event.preventDefault()
        if path.endswith("/"):
            spawn(self._move_folder(path, folder_moved_into(path, found[0]) or path))
        else:
            spawn(self._move(path, moved_into(path, found[0])))

    def _end(self, event) -> None:
        self._mark(None)
        self.dragging = None

    async def _move(self, old: str, new: str) -> None:
        try:
            await self.notes.move_note(old, new)
        except Exception as exc:  # noqa: BLE001 - shown in the list, in words
            self.notes.say(f"Could not move {old}: {describe(exc)}")
            return
        self.notes.say(f"Moved {old} to {new}.")
        await self.notes.load()

    async def _move_folder(self, old: str, new: str) -> None:
        notes, ws = self.notes, self.notes.ctx.workspace_id
        if not await notes.ctx.flush_all():
            notes.say(f"Notes in {old} have unsaved changes; wait until they say Saved.")
            return
        try:
            await notes.ctx.api.ok(
                "POST", f"{workspace_url(ws)}/folders/move", data={"from": old, "to": new}
            )
        except Exception as exc:  # noqa: BLE001 - shown in the list, in words
            notes.say(f"Could not move {old}: {describe(exc)}")
            return
        # The frames showing its notes follow through the live stream's `moved` events.
        notes.collapsed.discard(new)
        notes.say(f"Moved {old} to {new}.")
        notes.ctx.documents_changed()

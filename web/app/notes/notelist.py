"""The note list: the workspace's notes as a folder tree, with create, rename, move and delete
(New folder, drag and drop and the Trash: app.notes.moving, app.notes.trash)."""

from __future__ import annotations

from js import document

from app.api_model import describe
from app.dom import h, spawn
from app.latest_model import Latest
from app.notes.moving import DragMove, NewFolder
from app.notes.roving_model import tab_stop
from app.notes.trash import Trash
from app.notes.tree_model import (
    Folder,
    build_tree,
    clean_new_path,
    folder_span,
    name_span,
    tree_key,
    visible_items,
)


class NoteList:
    """Lives in the sidebar <nav>; reloads on workspace and document changes."""

    def __init__(self, ctx, host, listeners) -> None:
        self.ctx, self.host, self.listeners = ctx, host, listeners
        self.collapsed: set[str] = set()
        self.current = ""  # the path of the note open in the active frame (marked)
        self.focus_after_load = False
        self.root = build_tree([])
        self.focus_key = ""  # the tree's one Tab stop (roving tabindex)
        self._reads = Latest()  # moved by each load: only the latest one's answer is drawn
        self.new_button = h(
            "button",
            {
                "type": "button",
                "class": "small",
                "data-testid": "note-new",
                "aria-expanded": "false",
            },
            "New note",
        )
        self.new_input = h(
            "input",
            {
                "id": "new-note-path",
                "data-testid": "note-new-path",
                "placeholder": "ideas.md or folder/ideas.md",
                "autocomplete": "off",
                "required": True,
            },
        )
        self.new_problem = h("p", {"class": "problem", "role": "alert"})
        self.new_form = h(
            "form",
            {"class": "new-note", "hidden": True},
            h("label", {"for": "new-note-path", "text": "Name of the new note"}),
            self.new_input,
            h(
                "div",
                {"class": "row"},
                h("button", {"type": "submit", "data-testid": "note-create"}, "Create"),
                h(
                    "button",
                    {"type": "button", "class": "cancel", "data-testid": "note-new-cancel"},
                    "Cancel",
                ),
            ),
            self.new_problem,
        )
        self.status = h("p", {"class": "list-status", "role": "status"})
        self.tree = h("div", {"class": "note-tree"})
        self.folders: set[str] = set()  # made with New folder, no note in them yet
        self.new_folder = NewFolder(self, listeners)
        self.trash = Trash(ctx, listeners)
        host.append(
            h(
                "div",
                {"class": "sidebar-head"},
                h("h2", {"id": "notes-title"}, "Notes"),
                h(
                    "span",
                    {"class": "sidebar-buttons"},
                    self.new_folder.button,
                    self.trash.element,
                    self.new_button,
                ),
            ),
            self.new_form,
            self.new_folder.form,
            self.status,
            self.tree,
        )
        self.drag = DragMove(self, listeners)
        listeners.on(self.new_button, "click", self._toggle_new)
        listeners.on(self.new_form, "submit", self._create, prevent=True)
        listeners.on(
            self.new_form.querySelector(".cancel"),
            "click",
            lambda event: self._toggle_new(event, False),
        )
        listeners.on(self.tree, "click", self._on_click)
        listeners.on(self.tree, "submit", self._on_submit, prevent=True)
        listeners.on(self.tree, "keydown", self._on_key)
        listeners.on(self.tree, "focusin", self._on_focus)
        self._unsubscribe = [
            ctx.on_workspace_change(lambda ws: spawn(self.load())),
            ctx.on_documents_change(lambda: spawn(self.load())),
            ctx.on_documents_change(self.trash.documents_changed),
            ctx.on_role_change(lambda role: self._draw_role()),
        ]
        self._draw_role()

    def _draw_role(self) -> None:
        """A reader (SPEC §17) gets no New note, rename or delete; the list is drawn again
        when the role changes while the page is open."""
        writable = self.ctx.can_edit or not self.ctx.workspace_id
        self.new_button.hidden = not writable
        self.new_folder.button.hidden = not writable
        if not writable and not self.new_form.hidden:
            self._toggle_new(None, False)
        if self.ctx.workspace_id and self.tree.firstChild:
            self.tree.replaceChildren(self._folder(self.root, top=True))
            self._rove()
            self.mark(self.current)

    def _say(self, text: str) -> None:
        self.status.textContent = text

    def say(self, text: str) -> None:
        """A sentence in the list's status line (moves, folders)."""
        self._say(text)

    def add_folder(self, folder: str) -> None:
        """Draw a folder made with New folder, and open the New note form inside it."""
        self.folders.add(folder)
        self.collapsed.discard(folder)
        self.root = build_tree(sorted(self.ctx.known_paths), self.folders)
        self.tree.replaceChildren(self._folder(self.root, top=True))
        self._rove()
        self.mark(self.current)
        self._say(f"New folder {folder}: create a note in it, or drag a note onto it.")
        self._toggle_new(None, True)
        self.new_input.value = folder

    def mark(self, path: str) -> None:
        """Mark the note open in the active frame (aria-current) and show its folders open."""
        self.current = path or ""
        for button in self.tree.querySelectorAll('[data-action="open"]'):
            if button.dataset.path == self.current:
                button.setAttribute("aria-current", "page")
            else:
                button.removeAttribute("aria-current")

    def dispose(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()

    # -- loading and drawing -----------------------------------------------------------------

    async def load(self) -> None:
        if not self.ctx.workspace_id:
            self.tree.replaceChildren()
            return
        latest = self._reads.start()
        loaded = await self.ctx.current_documents(self._say, "notes")
        if loaded is None or not latest():  # a later load has the newer list
            return
        docs = loaded[1]
        paths = {d["path"] for d in docs}
        self.ctx.set_known_paths(paths)
        empty = "No notes yet. Create one with New note." if self.ctx.can_edit else "No notes yet."
        self.status.textContent = "" if docs else empty
        self.folders = {f for f in self.folders if not any(p.startswith(f) for p in paths)}
        self.root = build_tree(sorted(paths), self.folders)
        self.new_button.hidden = not self.ctx.can_edit
        self.new_folder.button.hidden = not self.ctx.can_edit
        self.tree.replaceChildren(self._folder(self.root, top=True))
        self._rove()
        if self.focus_after_load:
            self.focus_after_load = False
            if document.activeElement and document.activeElement != document.body:
                return  # the user is already somewhere (e.g. the quick switcher): stay there
            first = self.tree.querySelector('[data-action="open"]')
            if first:
                self._focus(first.dataset.path)
            else:
                self.new_button.focus()

    def _folder(self, folder: Folder, top: bool = False, level: int = 1):
        # The WAI-ARIA tree pattern: one Tab stop (the roving tabindex), arrows inside.
        items = []
        for child in folder.folders:
            group_id = "tree-group-" + str(abs(hash(child.path)))
            expanded = child.path not in self.collapsed
            row = h(
                "div",
                {
                    "class": "folder-name",
                    "role": "treeitem",
                    "tabindex": "-1",
                    "data-testid": "note-folder",
                    "data-folder": child.path,
                    "draggable": "true" if self.ctx.can_edit else None,
                    "data-key": child.path,
                    "aria-expanded": "true" if expanded else "false",
                    "aria-level": level,
                    "aria-owns": group_id,
                },
                h(
                    "span",
                    {"class": "folder-icon", "aria-hidden": "true"},
                    "▾" if expanded else "▸",
                ),
                child.name + "/",
            )
            group = self._folder(child, level=level + 1)
            group.id = group_id
            group.hidden = not expanded
            items.append(h("li", {"class": "folder", "role": "none"}, row, group))
        for note in folder.notes:
            items.append(self._row(note.path, note.name, level))
        if top:
            return h(
                "ul", {"class": "notes", "role": "tree", "aria-labelledby": "notes-title"}, *items
            )
        return h("ul", {"class": "notes", "role": "group"}, *items)

    def _row(self, path: str, name: str, level: int | None = None):
        level = level or path.count("/") + 1
        writable = self.ctx.can_edit
        # The row's buttons are out of the Tab order: the context-menu key (or Shift+F10)
        # reaches them, and F2 / Delete / Shift+Enter do the same from the row itself.
        return h(
            "li",
            {"class": "note-row", "data-path": path, "role": "none"},
            h(
                "div",
                {
                    "class": "note-link",
                    "data-testid": "note-link",
                    "role": "treeitem",
                    "tabindex": "-1",
                    "aria-level": level,
                    "data-key": path,
                    "data-action": "open",
                    "data-path": path,
                    "title": f"Open {path}",
                    "draggable": "true" if writable else None,
                    "aria-keyshortcuts": "Enter Shift+Enter F2 Shift+F2 Delete Shift+F10"
                    if writable
                    else "Enter Shift+Enter Shift+F10",
                    "aria-current": "page" if path == self.current else None,
                    # The buttons live inside the row (a tree owns only its items), so the
                    # row is named by the note alone, not by its buttons' labels too.
                    "aria-label": name,
                    # The buttons sit beside the row's box, not in it (app.css): a click on
                    # the row's middle opens the note, whatever the width.
                    "style": f"--buttons: {4 if writable else 1}",
                },
                h("span", {"class": "note-name"}, name),
                self._actions(path, writable),
            ),
        )

    def _actions(self, path: str, writable: bool):
        return h(
            "span",
            {"class": "row-actions", "role": "toolbar", "aria-label": f"Actions for {path}"},
            h(
                "button",
                {
                    "type": "button",
                    "class": "icon",
                    "data-testid": "note-open-frame",
                    "data-action": "open-frame",
                    "data-path": path,
                    "tabindex": "-1",
                    "aria-label": f"Open {path} in a new frame",
                    "title": "Open in a new frame (Shift+Enter)",
                },
                "⊞",
            ),
            None
            if not writable
            else h(
                "button",
                {
                    "type": "button",
                    "class": "icon",
                    "data-testid": "note-rename",
                    "data-action": "rename",
                    "data-path": path,
                    "tabindex": "-1",
                    "aria-label": f"Rename {path}",
                    "title": "Rename (F2)",
                },
                "✎",
            ),
            None
            if not writable
            else h(
                "button",
                {
                    "type": "button",
                    "class": "icon",
                    "data-testid": "note-move",
                    "data-action": "move",
                    "data-path": path,
                    "tabindex": "-1",
                    "aria-label": f"Move {path} to another folder",
                    "title": "Move to… (Shift+F2, or drag it onto a folder)",
                },
                "⇥",
            ),
            None
            if not writable
            else h(
                "button",
                {
                    "type": "button",
                    "class": "icon",
                    "data-testid": "note-delete",
                    "data-action": "delete",
                    "data-path": path,
                    "tabindex": "-1",
                    "aria-label": f"Delete {path}",
                    "title": "Delete (Delete key)",
                },
                "⌫",
            ),
        )

    # -- the tree's keyboard ----------------------------------------------------------------

    def _rows(self) -> dict:
        return {str(el.dataset.key): el for el in self.tree.querySelectorAll("[role=treeitem]")}

    def _rove(self) -> None:
        """Exactly one row is in the Tab order: the last focused one, else the first."""
        keys = [item.key for item in visible_items(self.root, self.collapsed)]
        self.focus_key = tab_stop(keys, self.focus_key) or ""
        for key, el in self._rows().items():
            el.setAttribute("tabindex", "0" if key == self.focus_key else "-1")

    def _focus(self, key: str) -> None:
        self.focus_key = key
        self._rove()
        row = self._rows().get(key)
        if row:
            row.focus()

    def _on_focus(self, event) -> None:
        row = event.target.closest("[role=treeitem]")
        if row and str(row.dataset.key) != self.focus_key:
            self.focus_key = str(row.dataset.key)
            self._rove()

    def _on_key(self, event):
        target = event.target
        if target.closest(".row-actions"):
            return self._on_actions_key(event)
        if target.getAttribute("role") != "treeitem" or event.altKey or event.metaKey:
            return None
        move = tree_key(
            visible_items(self.root, self.collapsed),
            str(target.dataset.key),
            str(event.key),
            shift=bool(event.shiftKey),
            ctrl=bool(event.ctrlKey),
        )
        if move is None:
            return None
        event.preventDefault()
        focus = move.focus or str(target.dataset.key)
        if move.action in ("expand", "collapse", "toggle"):
            return self._fold(focus, {"expand": False, "collapse": True}.get(move.action))
        if move.action == "actions":
            button = target.parentElement.querySelector(".row-actions button")
            if button:
                button.focus()
            return None
        if move.action == "open":
            return self.ctx.open_note(focus)
        if move.action == "open-frame":
            return self.ctx.open_note(focus, new_frame=True)
        if move.action in ("rename", "move", "delete"):
            row = target.closest("li[data-path]")
            return self._ask(row, focus, rename=move.action != "delete", move=move.action == "move")
        self._focus(focus)
        return None

    def _on_actions_key(self, event) -> None:
        """Inside a row's buttons: ← → move between them, Escape goes back to the row."""
        key = str(event.key)
        bar = event.target.closest(".row-actions")
        buttons = list(bar.querySelectorAll("button"))
        if key in ("ArrowLeft", "ArrowRight") and buttons:
            event.preventDefault()
            index = next((i for i, b in enumerate(buttons) if b == event.target), 0)
            step = 1 if key == "ArrowRight" else -1
            buttons[(index + step) % len(buttons)].focus()
        elif key == "Escape":
            event.preventDefault()
            event.stopPropagation()  # back to the row only, not the window's Escape
            self._focus(str(bar.closest("li[data-path]").dataset.path))

    def _fold(self, key: str, collapse: bool | None) -> None:
        """Open or close a folder (None: the other way), keeping the focus on it."""
        if collapse is None:
            collapse = key not in self.collapsed
        (self.collapsed.add if collapse else self.collapsed.discard)(key)
        row = self._rows().get(key)
        if row:
            row.setAttribute("aria-expanded", "false" if collapse else "true")
            row.querySelector(".folder-icon").textContent = "▸" if collapse else "▾"
            group = row.parentElement.querySelector(":scope > ul")
            if group:
                group.hidden = collapse
        self._focus(key)

    # -- events ----------------------------------------------------------------------------

    def _on_click(self, event):
        # Dispatch on data-action (what the control does), never on test ids; the path is the
        # row's, so buttons inside a prompt need none of their own.
        folder = event.target.closest("[data-folder]")
        if folder and folder.getAttribute("role") == "treeitem":
            return self._fold(folder.dataset.folder, None)
        target = event.target.closest("[data-action]")
        if not target:
            return None
        action = target.dataset.action
        row = target.closest("li[data-path]")
        path = row.dataset.path if row else ""
        if action == "open":
            return self.ctx.open_note(path)
        if action == "open-frame":
            return self.ctx.open_note(path, new_frame=True)
        if action in ("rename", "move"):
            return self._ask(row, path, rename=True, move=action == "move")
        if action == "delete":
            return self._ask(row, path, rename=False)
        if action == "cancel":
            return self._restore(
                row, path, focus="rename" if row.querySelector("form") else "delete"
            )
        if action == "confirm-delete":
            return self._delete(path)
        return None

    def _restore(self, row, path: str, focus: str = "") -> None:
        """Put a row back as it was after its prompt is cancelled; focus the button it came from."""
        fresh = self._row(path, path.rsplit("/", 1)[-1])
        row.replaceWith(fresh)
        if focus:
            button = fresh.querySelector(f'[data-action="{focus}"]')
            if button:
                button.focus()

    def close_prompts(self) -> bool:
        """Escape: cancel open rename/delete prompts and the New note form; True if any was."""
        closed = False
        for form in list(self.tree.querySelectorAll(".row-form")):
            row = form.closest("li[data-path]")
            if row:
                self._restore(
                    row, row.dataset.path, focus="rename" if form.tagName == "FORM" else "delete"
                )
                closed = True
        if not self.new_form.hidden:
            self._toggle_new(None, False)
            self.new_button.focus()
            closed = True
        closed = self.new_folder.close() or closed
        return self.trash.close() or closed

    def _ask(self, row, path: str, *, rename: bool, move: bool = False) -> None:
        """The row's rename form (`move`: its folder part selected, for "Move to…") or its
        delete question, in place of the row."""
        if not self.ctx.can_edit:
            self._say("Your role here is reader: notes cannot be renamed or deleted.")
            return
        field_id = "rename-" + str(abs(hash(path)))
        cancel = h(
            "button",
            {"type": "button", "data-testid": "row-cancel", "data-action": "cancel"},
            "Cancel",
        )
        if rename:
            field = h(
                "input",
                {
                    "id": field_id,
                    "value": path,
                    "data-testid": "note-rename-path",
                    "required": True,
                    "autocomplete": "off",
                },
            )
            links = h(
                "input",
                {
                    "type": "checkbox",
                    "id": field_id + "-links",
                    "data-testid": "rename-update-links",
                    "checked": True,
                },
            )
            label = f"Move {path} to (folder/name)" if move else f"New name for {path}"
            form = h(
                "form",
                {"class": "row-form", "data-path": path},
                h("label", {"for": field_id, "text": label}),
                field,
                h(
                    "label",
                    {"class": "check", "for": field_id + "-links"},
                    links,
                    " Update links to it in other notes",
                ),
                h(
                    "div",
                    {"class": "row"},
                    h("button", {"type": "submit", "data-testid": "note-rename-save"}, "Rename"),
                    cancel,
                ),
                h("p", {"class": "problem", "role": "alert"}),
            )
            row.replaceChildren(form)
            field.focus()
            start, end = folder_span(path) if move else name_span(path)
            field.setSelectionRange(start, end)  # the name only (or the folder only) is replaced
        else:
            confirm = h(
                "button",
                {
                    "type": "button",
                    "class": "danger",
                    "data-action": "confirm-delete",
                    "data-testid": "row-delete-confirm",
                },
                "Delete",
            )
            row.replaceChildren(
                h(
                    "div",
                    {"class": "row-form", "role": "group", "aria-label": f"Delete {path}?"},
                    h("p", {"text": f"Delete {path}? This cannot be undone."}),
                    h("div", {"class": "row"}, confirm, cancel),
                )
            )
            confirm.focus()

    async def _on_submit(self, event) -> None:
        form = event.target
        old = form.dataset.path
        problem = form.querySelector(".problem")
        links = form.querySelector("input[type=checkbox]")  # "Update links to it"
        try:
            new = clean_new_path(form.querySelector("input").value)
            if new != old:
                await self.move_note(old, new, update_links=bool(links.checked))
        except Exception as exc:  # noqa: BLE001 - shown in the list, in words
            problem.textContent = describe(exc)
            return
        await self.load()

    async def move_note(self, old: str, new: str, *, update_links: bool = True) -> None:
        """Rename or move a note (the frames showing it follow); the links to it in other
        notes follow too unless `update_links` is false (the server rewrites them, SPEC §18)."""
        ws = self.ctx.workspace_id
        frames = self._frames_showing(old)
        for frame in frames:
            if not await frame.flush():
                raise ValueError(f"{old} has unsaved changes; wait until it says Saved.")
        revision = await self.ctx.api.move(ws, old, new, update_links=update_links)
        for frame in frames:
            frame.renamed(new, revision)
        self.ctx.documents_changed()

    async def _delete(self, path: str) -> None:
        await self.ctx.api.delete(self.ctx.workspace_id, path)
        for frame in self._frames_showing(path):
            frame.forget_note(f"{path} was deleted.")
        self.ctx.documents_changed()

    def _frames_showing(self, path: str) -> list:
        frames = self.ctx.frameset.frames() if self.ctx.frameset else []
        return [f for f in frames if f.kind == "inbox" and f.path == path]

    def _toggle_new(self, event, show: bool | None = None) -> None:
        show = self.new_form.hidden if show is None else show
        self.new_form.hidden = not show
        self.new_button.setAttribute("aria-expanded", "true" if show else "false")
        self.new_problem.textContent = ""
        if show:
            self.new_input.focus()

    async def _create(self, event) -> None:
        try:
            path = clean_new_path(self.new_input.value)
            title = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            await self.ctx.api.create(self.ctx.workspace_id, path, f"# {title}\n\n")
        except Exception as exc:  # noqa: BLE001 - shown in the list, in words
            self.new_problem.textContent = describe(exc)
            return
        self.new_input.value = ""
        self._toggle_new(event, False)
        self.ctx.documents_changed()
        frame = await self.ctx.frameset.open_note(path)
        frame.goto_line(1_000_000)  # focus at its end: the next thing to do is type in it

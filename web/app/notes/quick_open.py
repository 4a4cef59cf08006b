"""The quick switcher (Ctrl+O / Ctrl+P): type part of a path, arrows pick, Enter opens."""

from __future__ import annotations

from app.dom import Listeners, h, spawn
from app.notes.quick_model import move, rank


class QuickOpen:
    """A modal list over the workspace's notes; opens the pick in the active Inbox frame."""

    def __init__(self, ctx, root) -> None:
        self.ctx = ctx
        self.listeners = Listeners()
        self.input = h(
            "input",
            {
                "id": "quick-open-input",
                "data-testid": "quick-open-input",
                "autocomplete": "off",
                "role": "combobox",
                "aria-controls": "quick-open-list",
                "aria-expanded": "true",
                "placeholder": "Type part of a note's name…",
            },
        )
        self.list = h(
            "ul",
            {
                "id": "quick-open-list",
                "role": "listbox",
                "aria-label": "Notes",
                "class": "quick-open-list",
            },
        )
        self.el = h(
            "div",
            {
                "class": "quick-open",
                "role": "dialog",
                "aria-modal": "true",
                "aria-label": "Open a note",
                "hidden": True,
            },
            # One panel with a background of its own: the hint never prints over
            # whatever the page shows behind the backdrop.
            h(
                "div",
                {"class": "quick-open-panel"},
                h(
                    "label",
                    {"for": "quick-open-input", "class": "visually-hidden"},
                    "Open a note by name",
                ),
                self.input,
                self.list,
                h(
                    "p",
                    {"class": "quick-open-hint", "text": "↑ ↓ to pick · Enter opens · Esc closes"},
                ),
            ),
        )
        root.append(self.el)
        self.items: list[str] = []
        self.index = -1
        self._status = ""  # while its own read of the notes is out, or why that read failed
        self._return_focus = None
        self.listeners.on(self.input, "input", lambda event: self._filter())
        self.listeners.on(self.input, "keydown", self._on_key)
        self.listeners.on(self.list, "click", self._on_click)
        self.listeners.on(self.el, "pointerdown", self._on_backdrop)

    @property
    def is_open(self) -> bool:
        return not self.el.hidden

    def show(self) -> None:
        if not self.ctx.workspace_id:
            return
        from js import document

        if not self.is_open:
            self._return_focus = document.activeElement
        self.el.hidden = False
        self.input.value = ""
        if self.ctx.known_paths:  # a failed read of its own is no longer the news
            self._status = ""
        self._filter()
        self.input.focus()
        if not self.ctx.known_paths:  # opened before the note list arrived: list them now
            spawn(self._load_paths())

    async def _load_paths(self) -> None:
        """The same read as the note list's, saying "Loading notes…" and why it failed in the
        list, where "No note matches." would be wrong."""
        ws = self.ctx.workspace_id
        loaded = await self.ctx.current_documents(self._say, "notes")
        if loaded is not None or self.ctx.workspace_id != ws:
            self._status = ""
        if loaded is not None and not self.ctx.known_paths:
            self.ctx.set_known_paths({d["path"] for d in loaded[1]})
        if self.is_open:
            self._filter()  # what was typed meanwhile now finds its notes

    def _say(self, text: str) -> None:
        self._status = text
        if self.is_open:
            self._filter()

    def close(self) -> bool:
        """Escape: hide it and give the focus back; True if it was open."""
        if not self.is_open:
            return False
        self.el.hidden = True
        back = self._return_focus
        self._return_focus = None
        if back and hasattr(back, "focus"):
            back.focus()
        return True

    def _filter(self) -> None:
        recent = self.ctx.frameset.recent_paths() if self.ctx.frameset else []
        self.items = rank(str(self.input.value), sorted(self.ctx.known_paths), recent)
        self.index = 0 if self.items else -1
        self._draw()

    def _draw(self) -> None:
        options = []
        for number, path in enumerate(self.items):
            folder, _, name = path.rpartition("/")
            options.append(
                h(
                    "li",
                    {
                        "id": f"quick-open-{number}",
                        "role": "option",
                        "data-testid": "quick-open-item",
                        "data-path": path,
                        "aria-selected": "true" if number == self.index else "false",
                    },
                    h("span", {"class": "quick-name", "text": name}),
                    h("span", {"class": "quick-folder", "text": folder}),
                )
            )
        if not options:
            text = self._status or "No note matches."
            options.append(h("li", {"class": "empty", "text": text}))
        self.list.replaceChildren(*options)
        if self.index >= 0:
            self.input.setAttribute("aria-activedescendant", f"quick-open-{self.index}")
            chosen = self.list.children[self.index]
            chosen.scrollIntoView(False)
        else:
            self.input.removeAttribute("aria-activedescendant")

    def _on_key(self, event) -> None:
        key = event.key
        if key in ("ArrowDown", "ArrowUp"):
            event.preventDefault()
            self.index = move(self.index, 1 if key == "ArrowDown" else -1, len(self.items))
            self._draw()
        elif key == "Enter":
            event.preventDefault()
            if self.index >= 0:
                return self._open(self.items[self.index])
        return None

    def _on_click(self, event):
        item = event.target.closest("[data-path]")
        if item:
            return self._open(item.dataset.path)
        return None

    def _on_backdrop(self, event) -> None:
        if event.target == self.el:
            self.close()

    async def _open(self, path: str) -> None:
        self._return_focus = None  # the focus goes to the note, not back
        self.close()
        frame = await self.ctx.frameset.open_note(path)
        if not self.is_open:  # reopened while the note loaded: the switcher keeps the focus
            frame.focus_editor()

    def destroy(self) -> None:
        self.listeners.clear()
        self.el.remove()

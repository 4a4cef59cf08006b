"""The Inbox frame: one note in four views over one mounted CodeMirror editor."""

from __future__ import annotations

from js import document
from pyscript.js_modules import editor

from ambient.contract import INBOX
from ambient.markdown import toggle_todo
from app.api_model import VIEWS, describe, doc_url
from app.chat.inline_command import InlineCommand
from app.dom import h, spawn
from app.frame import Frame
from app.frames.frames_model import History
from app.latest_model import Check, Latest
from app.live.autosave_model import (
    CONFLICT,
    DELETED,
    ERROR,
    OFFLINE,
    PENDING,
    SAVED,
    SAVING,
    UNSAVABLE,
)
from app.live.history_model import (
    SOMEONE_DELETED,
    SOMEONE_SAVED,
    conflict_words,
    parse_revisions,
)
from app.live.history_panel import HistoryPanel
from app.live.merge_model import MERGED, REPLACE
from app.notes.attach import ChooseFile
from app.notes.note import NoteSession
from app.notes.search_panel import find_backlinks
from app.notes.views import (
    copy_text,
    draw_backlinks,
    draw_mindmap,
    draw_preview,
    draw_todo,
    readonly_badge,
)

_KEEP = object()
VIEW_LABELS = {view: view.capitalize() for view in VIEWS}  # Edit, Preview, Todo, Mindmap
STATE_WORDS = {
    SAVED: "Saved",
    PENDING: "Unsaved changes…",
    SAVING: "Saving…",
    OFFLINE: "offline — retrying",
    CONFLICT: "Not saved: conflict",
    ERROR: "Not saved",
    DELETED: "Deleted elsewhere: your text is still here, and an edit saves it again",
    UNSAVABLE: "Not saved: your role here is reader",
}


class InboxRuntime:
    """What the ambient store holds for a shown note: ids, and live reads at call time only."""

    def __init__(self, frame: InboxFrame, path: str, view: str) -> None:
        self.frame_id, self.path, self.view = frame.id, path, view
        self._frame = frame

    async def snapshot(self) -> dict:
        session = self._frame.session
        if session is None:
            raise RuntimeError("the frame no longer shows a note")
        # Usually one synchronous call: the digest of this very document was computed in idle
        # time after the typing settled (web/editor.js keys it by the immutable document, so
        # it is never an older text's). Otherwise hash it now, then read the selection.
        known = editor.knownDigest(session.view)
        if not known:
            digest = await editor.digest(session.view)
            sel = editor.selection(session.view)
            known_bytes, sha256 = int(digest.bytes), str(digest.sha256)
            anchor, head = int(sel.anchor), int(sel.head)
        else:
            known_bytes, sha256 = int(known.bytes), str(known.sha256)
            anchor, head = int(known.anchor), int(known.head)
        selection = {"anchor": anchor, "head": head} if self.view == "edit" else None
        return {"bytes": known_bytes, "sha256": sha256, "selection": selection}

    @property
    def dirty(self) -> bool:
        session = self._frame.session
        return session is not None and session.saver.dirty

    async def flush(self) -> bool:
        return await self._frame.flush()


class InboxFrame(Frame):
    """`show(path=..., view=...)` is the one way to change what it shows (it republishes)."""

    kind = INBOX
    title = "Inbox"

    def __init__(self, frameset, frame_id: str) -> None:
        super().__init__(frameset, frame_id)
        self.path, self.view = "", "edit"
        self.session: NoteSession | None = None
        self._reads = Latest()  # moved by each note asked for, dropped or forgotten
        self._offering = ("", "")  # (open note, missing note offered beside its link)
        self._opening = ""  # a note being read for this frame (show): drawn once it is here
        self.history = History()
        self.back = h(
            "button",
            {
                "type": "button",
                "class": "icon",
                "data-testid": "frame-back",
                "aria-label": "Back to the previous note",
                "title": "Back",
                "disabled": True,
            },
            "←",
        )
        self.forward = h(
            "button",
            {
                "type": "button",
                "class": "icon",
                "data-testid": "frame-forward",
                "aria-label": "Forward to the next note",
                "title": "Forward",
                "disabled": True,
            },
            "→",
        )
        self.listeners.on(self.back, "click", lambda event: self.go(-1))
        self.listeners.on(self.forward, "click", lambda event: self.go(1))
        self.el.querySelector(".frame-bar").prepend(
            h(
                "div",
                {"class": "frame-nav", "role": "group", "aria-label": "History"},
                self.back,
                self.forward,
            )
        )
        self.buttons = {}
        for view in VIEWS:
            button = h(
                "button",
                {
                    "type": "button",
                    "data-testid": "view-button",
                    "data-view": view,
                    "aria-pressed": "false",
                },
                VIEW_LABELS[view],
            )
            self.listeners.on(button, "click", lambda event, v=view: self.show(view=v))
            self.buttons[view] = button
        self.status = h(
            "p", {"class": "save-status", "role": "status", "data-testid": "save-status"}
        )
        self.conflict = h(
            "div",
            {"class": "conflict", "role": "alert", "hidden": True, "data-testid": "note-conflict"},
        )
        self._conflict_diff = None  # the diff view of the two versions, while shown
        self.editor_host = h("div", {"class": "editor-host"})
        self.render_host = h("div", {"class": "render-host", "hidden": True, "tabindex": "0"})
        self.empty = h("div", {"class": "empty-prompt"})
        self.toolbar = h(
            "div",
            {"class": "view-switch", "role": "group", "aria-label": "View"},
            *self.buttons.values(),
        )
        self.readonly = readonly_badge()  # SPEC §17: a reader's note says so
        self.body.append(
            self.toolbar,
            self.readonly,
            self.status,
            self.conflict,
            self.empty,
            self.editor_host,
            self.render_host,
        )
        self.inline = InlineCommand(self)  # SPEC §9: its button and help join the toolbar
        self.revisions = HistoryPanel(self)  # SPEC §15: `history-open` joins the toolbar
        self.choose_file = ChooseFile(self)  # SPEC §18: a picture or PDF at the cursor
        self.listeners.on(self.render_host, "change", self._on_todo_change)
        self.listeners.on(self.render_host, "click", self._on_render_click)
        self._unsubscribe_role = self.ctx.on_role_change(self._on_role_change)
        self._refresh()

    # -- the one method ----------------------------------------------------------------------

    async def show(self, path=_KEEP, view=_KEEP, *, record: bool = True) -> None:
        """Switch the note and/or the view, then republish the runtime (or withdraw it).

        A note shown here joins the frame's Back/Forward history unless `record` is False
        (Back and Forward themselves, and a restored layout).
        """
        if view is not _KEEP:
            if view not in VIEWS:
                raise ValueError(f"Unknown view {view!r}.")
            self.view = view
        if path is not _KEEP and (path or "") != self.path:
            latest = self._reads.start()
            self._drop_note()
            self._opening = path or ""  # the note on its way, if any
            if path:
                self.status.textContent = f"Opening {path}…"
                self._refresh()
                ws = self.ctx.workspace_id
                try:
                    text, revision = await self.ctx.api.read(ws, path)
                except Exception as exc:  # noqa: BLE001 - shown in the frame, in words
                    if latest():
                        self._opening = ""
                        self._refresh(problem=f"Could not open {path}: {describe(exc)}")
                    return
                if not latest():
                    return  # another note was asked for meanwhile
                self._opening = ""
                self.path = path
                if record:
                    self.history.visit(path)
                self.frameset.note_opened(path)
                self.session = NoteSession(
                    ctx=self.ctx,
                    ws=ws,
                    path=path,
                    text=text,
                    revision=revision,
                    host=self.editor_host,
                    on_state=self._on_save_state,
                )
        self._refresh()
        self._publish()

    async def go(self, step: int) -> None:
        """Back (-1) or Forward (+1) through the notes this frame has shown."""
        target = self.history.go(step)
        if target is not None:
            await self.show(path=target, record=False)

    # -- runtime -----------------------------------------------------------------------------

    def _publish(self) -> None:
        if self.session is not None:
            self.ctx.store.publish(InboxRuntime(self, self.path, self.view))

    def _drop_note(self) -> None:
        if self.session is not None:
            self.ctx.store.withdraw(self.id)
            self.session.close()
            self.session = None
        self.path = ""
        self._hide_conflict()
        self.revisions.close()

    # -- drawing -----------------------------------------------------------------------------

    def _refresh(self, problem: str = "") -> None:
        has_note = self.session is not None
        readonly = has_note and not self.session.writable
        self.readonly.hidden = not readonly
        self.el.dataset.readonly = "true" if readonly else "false"
        self.frameset.changed()
        self.el.dataset.path = self.path
        self.el.dataset.view = self.view
        self.set_title(self.path or "Inbox")
        self.back.disabled = not self.history.can_go(-1)
        self.forward.disabled = not self.history.can_go(1)
        for view, button in self.buttons.items():
            button.setAttribute("aria-pressed", "true" if view == self.view else "false")
            button.disabled = not has_note
        self.empty.hidden = has_note
        if not has_note and self._opening and not problem:
            # A note is on its way ("Opening …" in the status line): no "No note open here"
            # meanwhile. It was wrong, and as the largest text drawn it was what a browser
            # timed as the page's largest paint.
            self.empty.replaceChildren()
            self.editor_host.hidden = True
            self.render_host.hidden = True
            return
        if not has_note:
            self.empty.replaceChildren(
                h("p", {"role": "alert", "class": "problem", "text": problem}) if problem else "",
                h(
                    "p",
                    {
                        "text": "No note open here. Pick a note from the list (or a Files frame) "
                        "to open it in this frame."
                        if self.ctx.window_role == "main"
                        else "No note open here. Press Ctrl+O (or Open a note above) to pick one."
                    },
                ),
            )
            self.editor_host.hidden = True
            self.render_host.hidden = True
            if problem:
                self.status.textContent = ""
            return
        self.editor_host.hidden = self.view != "edit"
        self.render_host.hidden = self.view == "edit"
        if self.view != "edit":
            self._draw()
        self._on_save_state(self.session.saver.state, self.session.saver.detail)

    def _draw(self) -> None:
        """Render the current view from the editor's text, read now (never kept)."""
        text = self.session.text()
        if self.view == "preview":
            offer = self.render_host.querySelector(".missing-offer button")
            had_focus = bool(offer) and offer.isSameNode(document.activeElement)
            draw_preview(
                self.render_host,
                text,
                self.path,
                self.ctx.known_paths,
                ws=self.session.ws,
                redrawn=self._offer_kept,
            )
            if self._offering[1]:
                self._offer_again(had_focus)
            spawn(self._fill_backlinks(self._reads.since(), self.path))
        elif self.view == "todo":
            draw_todo(self.render_host, text, self.id, readonly=not self.session.writable)
        elif self.view == "mindmap":
            draw_mindmap(self.render_host, text, self.path.rsplit("/", 1)[-1])

    def _on_save_state(self, state: str, detail: str) -> None:
        words = STATE_WORDS.get(state, state)
        if state in (ERROR, UNSAVABLE) and detail:
            words = detail if state == UNSAVABLE else f"Not saved: {detail}"
        self.status.textContent = words
        self.status.dataset.state = state
        self.el.dataset.saveState = state
        if state == CONFLICT:
            self._show_conflict()
        else:
            self._hide_conflict()
        if state == ERROR:
            retry = h(
                "button", {"type": "button", "class": "link", "data-testid": "save-retry"}, "Retry"
            )
            self.listeners.on(
                retry, "click", lambda event: self.session and self.session.saver.retry()
            )
            self.status.append(" ", retry)
        if state == UNSAVABLE:
            copy = h(
                "button",
                {"type": "button", "class": "link", "data-testid": "unsaved-copy"},
                "Copy your text",
            )
            self.listeners.on(copy, "click", self._copy_unsaved)
            self.status.append(" ", copy)

    async def _copy_unsaved(self, event) -> None:
        if self.session is None:
            return
        if await copy_text(self.session.text()):
            self.ctx.say("Your text is on the clipboard.")
        else:
            self.ctx.say("The browser did not allow copying: select the text and copy it.")

    def _on_role_change(self, role: str) -> None:
        """The role changed while the note is open (SPEC §17): flip the editor in place."""
        if self.session is not None:
            self.session.set_writable(self.session.may_edit())
            self._refresh()

    def _show_conflict(self) -> None:
        theirs = self.session.saver.theirs if self.session else None
        gone = theirs is not None and theirs[0] is None
        # Said at once in general words; who it was follows from the note's history.
        who = h("span", {"text": SOMEONE_DELETED if gone else SOMEONE_SAVED})
        spawn(self._name_the_other(who, None if gone or theirs is None else theirs[1], gone))
        buttons = []
        for label, testid, action in (
            ("Keep mine", "conflict-keep-mine", self._keep_mine),
            ("Take theirs", "conflict-take-theirs", self._take_theirs),
            ("Save mine as a copy", "conflict-save-copy", self._save_copy),
        ):
            if gone and testid == "conflict-take-theirs":
                continue
            button = h("button", {"type": "button", "data-testid": testid}, label)
            self.listeners.on(button, "click", action)
            buttons.append(button)
        self._hide_conflict()
        diff = h("div", {"class": "conflict-diff"})
        self.conflict.replaceChildren(
            h(
                "p",
                {},
                who,
                " Your text is still here and has not been saved. The same lines changed on "
                "both sides; below, the saved version is struck out in red and yours is in "
                "green.",
            ),
            diff,
            h("div", {"class": "conflict-actions"}, *buttons),
        )
        self.conflict.hidden = False
        if not gone:
            self._conflict_diff = editor.diffView(
                diff, theirs[0], self.session.text(), "The saved version against yours"
            )

    async def _name_the_other(self, who, revision: str | None, gone: bool) -> None:
        session = self.session
        if session is None:
            return
        try:
            reply = await self.ctx.api.ok("GET", doc_url(session.ws, session.path, "revisions"))
        except Exception:  # noqa: BLE001 - the general words stay
            return
        who.textContent = conflict_words(parse_revisions(reply.json()), revision, gone=gone)

    def _hide_conflict(self) -> None:
        self.conflict.hidden = True
        if self._conflict_diff is not None:
            editor.destroy(self._conflict_diff)
            self._conflict_diff = None

    # -- conflict choices ----------------------------------------------------------------

    # The panel and its buttons go once a choice is made: the focus goes back to the text.

    def _keep_mine(self, event) -> None:
        self.session.saver.keep_mine()
        self.focus_editor()

    def _take_theirs(self, event) -> None:
        self.session.take_theirs()
        self._refresh()
        self.focus_editor()

    async def _save_copy(self, event) -> None:
        path = await self.session.keep_as_copy()
        self.path = path
        self._refresh()
        self._publish()
        self.ctx.documents_changed()
        self.ctx.say(f"Your version was saved as {path}; the original keeps the other edits.")

    # -- view events -----------------------------------------------------------------------

    def _on_todo_change(self, event) -> None:
        box = event.target
        if self.session is None or box.dataset.testid != "todo-checkbox":
            return
        if not self.session.writable:
            self._draw()  # a reader's list never changes the note
            return
        text = self.session.text()
        try:
            start, end, insert = toggle_todo(text, int(box.dataset.line))
        except ValueError:
            self._draw()  # the note changed under the list: draw it again from the editor
            return
        editor.replace(self.session.view, start, end, insert)  # autosave sees a normal edit
        self._draw()
        again = self.render_host.querySelector(f'[data-line="{box.dataset.line}"]')
        if again:
            again.focus()  # keep keyboard users on the box they just ticked

    def _on_render_click(self, event):
        if self.view != "preview" or not hasattr(event.target, "closest"):
            return None
        link = event.target.closest("a, [data-testid=backlink]")
        if not link:
            return None
        # getAttribute, not dataset: a missing dataset key raises AttributeError in Pyodide.
        path = link.getAttribute("data-path")
        if link.getAttribute("data-missing") == "true" and path not in self.ctx.known_paths:
            # Never replace the open note with an error: say so, and offer to create it.
            event.preventDefault()
            return self._offer_create(path, link)
        if path:
            event.preventDefault()
            return self.show(path=path)
        if link.classList.contains("wikilink"):
            event.preventDefault()  # `href="#"`: nothing to follow
        return None

    def _offer_create(self, path: str, link) -> None:
        """A missing note was clicked: say so in the status line, and offer to create it right
        beside the link, where the eye and the pointer are (a long note's last link is far
        from the frame's top)."""
        self.status.replaceChildren(f"{path} does not exist.")
        self.status.dataset.state = "missing"
        self._offering = (self.path, path)
        self._place_offer(link, focus=True)

    def _place_offer(self, link, *, focus: bool) -> None:
        for old in self.render_host.querySelectorAll(".missing-offer"):
            old.remove()
        path = self._offering[1]
        if not self.ctx.can_edit or link is None:
            return  # a reader cannot create notes
        create = h(
            "button",
            {"type": "button", "class": "link", "data-testid": "missing-create", "data-path": path},
            f"Create {path}",
        )
        self.listeners.on(create, "click", lambda event: self._create_missing(path))
        link.insertAdjacentElement("afterend", h("span", {"class": "missing-offer"}, " ", create))
        if focus:
            create.focus()  # Enter on the link, then Enter again creates it

    def _offer_again(self, had_focus: bool) -> None:
        """The Preview was drawn again (the list or a save arrived): the offer stays beside
        its link while that note is open and the target still missing."""
        shown, path = self._offering
        if shown != self.path or not path or path in self.ctx.known_paths:
            self._offering = ("", "")
            return
        links = self.render_host.querySelectorAll('a[data-missing="true"]')
        link = next((a for a in links if a.getAttribute("data-path") == path), None)
        self._place_offer(link, focus=had_focus)

    def _offer_kept(self, had_focus: bool) -> None:
        """The Preview's pictures arrived and its article was drawn anew: an offer made in the
        meantime goes back beside its link, with the keyboard if it had it."""
        if self._offering[1]:
            self._offer_again(had_focus)

    async def _create_missing(self, path: str) -> None:
        self._offering = ("", "")
        title = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        try:
            await self.ctx.api.create(self.ctx.workspace_id, path, f"# {title}\n\n")
        except Exception as exc:  # noqa: BLE001 - shown where the offer was, in words
            self.status.textContent = f"Could not create {path}: {describe(exc)}"
            return
        self.ctx.documents_changed()
        await self.show(path=path, view="edit")
        self.goto_line(1_000_000)  # the cursor at its end: the next thing is to write in it

    def links_changed(self) -> None:
        """The note list (re)arrived: a Preview draws its links again against it, and a
        "does not exist" said about one of them no longer stands."""
        if self.session is not None and self.view == "preview":
            self._refresh()

    async def _fill_backlinks(self, latest: Check, path: str) -> None:
        ws = self.ctx.workspace_id
        try:
            found, problem = await find_backlinks(self.ctx, ws, path), ""
        except Exception as exc:  # noqa: BLE001 - shown in the list's place, in words
            found, problem = None, f"Could not look for links here: {describe(exc)}"
        if latest() and self.path == path and self.view == "preview":
            draw_backlinks(self.render_host, found, problem)

    # -- changes made elsewhere (the live stream, SPEC §13) ------------------------------------

    async def saved_elsewhere(self, revision: str | None) -> None:
        """The note was saved elsewhere as `revision` (maybe by this window: then nothing)."""
        await self._catch_up(self.session, revision, missing_is_gone=False)

    async def reread(self) -> None:
        """What happened to the note is unknown (a new stream, a reset): read it again."""
        await self._catch_up(self.session, None, missing_is_gone=True)

    async def _catch_up(self, session, revision, *, missing_is_gone: bool) -> None:
        if session is None:
            return
        outcome = await session.saver.refresh(revision, missing_is_gone=missing_is_gone)
        if session is self.session and outcome in (REPLACE, MERGED) and self.view != "edit":
            self._draw()  # Preview, Todo and Mindmap show the new text too

    def moved_elsewhere(self, path: str, revision: str | None) -> None:
        """Renamed elsewhere: follow it (the path, the title, the pointer, the history)."""
        if self.session is not None:
            self.session.saver.moved(revision)
            self.renamed(path, None)

    def deleted_elsewhere(self) -> None:
        """Deleted elsewhere: say so, keep the text on screen; an edit saves it again."""
        if self.session is not None:
            self.session.saver.gone()

    # -- changes made from the note list ------------------------------------------------------

    def renamed(self, path: str, revision: str | None) -> None:
        """The shown note was moved to `path` as `revision`: keep editing it there.

        The move is a write, so the saver must build on its revision even when edits are
        pending (they were typed after the flush that preceded the move); otherwise the next
        save would meet a 409 that no one else caused.
        """
        if self.session is None:
            return
        self.history.rename(self.session.path, path)
        self.session.path = self.path = path
        if revision is not None:
            self.session.saver.revision = revision
        self._refresh()
        self._publish()

    def forget_note(self, message: str) -> None:
        """The shown note was deleted: drop it (and its unsaved edits) and say so."""
        self._reads.move()
        if self.session is not None:
            self.ctx.store.withdraw(self.id)
            self.session.discard()
            self.session = None
        self.history.drop(self.path)
        self.path = ""
        self._refresh(problem=message)

    # -- frame protocol ------------------------------------------------------------------

    def unsaved(self) -> bool:
        return self.session is not None and self.session.saver.dirty

    def close_warning(self) -> str | None:
        # Pending or offline text keeps saving in the background after a close; text whose
        # save failed for good (too large, access lost) would be gone with the editor.
        if self.session is None:
            return None
        if self.session.saver.state == OFFLINE:
            return (
                f"{self.path} is not saved yet: the server cannot be reached, and it keeps "
                "retrying. If you close it, your text stays in this window and is saved "
                "once the server answers. Press close again to close it."
            )
        if self.session.saver.state == UNSAVABLE:
            return (
                f"{self.path} has changes that cannot be saved (your role here is reader), so "
                "closing it would lose them. Copy them first, or press close again to discard "
                "them."
            )
        if self.session.saver.state != ERROR:
            return None
        return (
            f"{self.path} could not be saved, so closing it would lose your changes. "
            "Copy them or fix the problem first, or press close again to discard them."
        )

    async def flush(self) -> bool:
        return await self.session.saver.flush() if self.session else True

    def popout_query(self) -> dict[str, str]:
        return {
            "path": self.path,
            "view": self.view,
            "ws": self.session.ws if self.session else (self.ctx.workspace_id or ""),
        }

    def focus_editor(self) -> None:
        if self.session is not None and self.view == "edit":
            editor.focus(self.session.view)

    def goto_line(self, line: int) -> None:
        """Show the editor with the cursor at the start of 1-based `line`, focused."""
        if self.session is not None and self.view == "edit":
            editor.gotoLine(self.session.view, line)

    def destroy(self) -> None:
        self._unsubscribe_role()
        self.inline.destroy()
        self._reads.move()
        self._drop_note()
        self.ctx.store.forget(self.id)  # gone for good: out of the activation order too
        super().destroy()

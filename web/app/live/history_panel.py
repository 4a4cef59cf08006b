"""The history of the note in one Inbox frame (SPEC §15): revisions, a diff, and restore.

`history-open` shows the revisions, newest first (`history-item`: who and when). Choosing one
shows it against the text on screen as a coloured diff (CodeMirror's @codemirror/merge, in
web/editor/live.js); `history-restore` saves it as a new revision through the restore
endpoint and puts it on screen as one undo step, so Ctrl+Z takes the text back (and saves).
"""

from __future__ import annotations

from datetime import UTC, datetime

from js import Date
from pyscript.js_modules import editor

from app.api import revision_of
from app.api_model import ApiError, describe, doc_url
from app.dom import h
from app.latest_model import Latest
from app.live.history_model import Revision, parse_revisions, when


class HistoryPanel:
    """Owns the frame's History button and panel; shown for the frame's current note."""

    def __init__(self, frame) -> None:
        self.frame, self.ctx = frame, frame.ctx
        self.chosen: Revision | None = None
        self._text = ""  # the chosen revision's text, as read
        self._diff = None
        self._rows: dict[str, Revision] = {}
        self._reads = Latest()
        self.button = h(
            "button",
            {
                "type": "button",
                "class": "history-open",
                "data-testid": "history-open",
                "aria-expanded": "false",
                "title": "Who changed this note, and earlier versions",
            },
            "History",
        )
        self.list = h("ol", {"class": "history-list", "aria-label": "Revisions, newest first"})
        self.message = h("p", {"class": "history-message", "role": "status"})
        self.diff_host = h("div", {"class": "history-diff"})
        self.restore_button = h(
            "button",
            {
                "type": "button",
                "class": "primary",
                "data-testid": "history-restore",
                "hidden": True,
            },
            "Restore this version",
        )
        self.panel = h(
            "section",
            {"class": "history-panel", "hidden": True, "aria-label": "History of this note"},
            self.list,
            self.message,
            h("div", {"class": "history-actions"}, self.restore_button),
            self.diff_host,  # last: it shrinks before Restore would leave the panel
        )
        frame.listeners.on(self.button, "click", lambda event: self.toggle())
        frame.listeners.on(self.list, "click", self._on_pick)
        frame.listeners.on(self.restore_button, "click", lambda event: self.restore())
        frame.toolbar.append(self.button)
        frame.body.insertBefore(self.panel, frame.empty)

    @property
    def session(self):
        return self.frame.session

    # -- showing ---------------------------------------------------------------------------

    async def toggle(self) -> None:
        if not self.panel.hidden:
            self.close()
            return
        if self.session is None:
            return
        self.panel.hidden = False
        self.button.setAttribute("aria-expanded", "true")
        await self.load()

    def close(self) -> None:
        """Hide the panel and forget what it showed (another note, or the frame goes)."""
        self._reads.move()
        self.panel.hidden = True
        self.button.setAttribute("aria-expanded", "false")
        self.list.replaceChildren()
        self.message.textContent = ""
        self._drop_diff()
        self.chosen = None

    async def load(self) -> None:
        """List the note's revisions, newest first."""
        latest, session = self._reads.start(), self.session
        self.message.textContent = "Loading the history…"
        self._drop_diff()
        try:
            reply = await self.ctx.api.ok("GET", doc_url(session.ws, session.path, "revisions"))
            rows = parse_revisions(reply.json())
        except Exception as exc:  # noqa: BLE001 - said in the panel, in words
            if latest():
                self.message.textContent = f"Could not read the history: {describe(exc)}"
            return
        if not latest() or session is not self.session:
            return
        now, offset = datetime.now(UTC), int(Date.new().getTimezoneOffset())
        items = []
        for row in rows:
            label = f"{row.who} {row.what}, {when(row.saved_at, now, offset)}"
            if row.current:
                label += " (the current version)"
            items.append(
                h(
                    "li",
                    {},
                    h(
                        "button",
                        {
                            "type": "button",
                            "class": "history-item",
                            "data-testid": "history-item",
                            "data-revision": row.revision,
                            "data-source": row.source,
                            "data-current": str(row.current).lower(),
                            "aria-pressed": "false",
                            "title": row.saved_at,
                        },
                        label,
                    ),
                )
            )
        self.list.replaceChildren(*items)
        self.message.textContent = (
            "Pick a version to see how it differs from the text on screen."
            if rows
            else "No earlier versions are kept."
        )
        self._rows = {row.revision: row for row in rows}

    async def _on_pick(self, event) -> None:
        item = (
            event.target.closest("[data-testid=history-item]")
            if hasattr(event.target, "closest")
            else None
        )
        if item is None or self.session is None:
            return
        row = self._rows.get(str(item.getAttribute("data-revision")))
        if row is None:
            return
        for other in self.list.querySelectorAll("[data-testid=history-item]"):
            # Compared by revision: two proxies of one element are not `is` the same.
            picked = other.getAttribute("data-revision") == row.revision
            other.setAttribute("aria-pressed", "true" if picked else "false")
        latest, session = self._reads.start(), self.session
        self.message.textContent = "Reading that version…"
        try:
            reply = await self.ctx.api.ok(
                "GET", doc_url(session.ws, session.path, f"revisions/{row.revision}")
            )
        except Exception as exc:  # noqa: BLE001 - said in the panel
            if latest():
                self.message.textContent = f"Could not read that version: {describe(exc)}"
            return
        if not latest() or session is not self.session:
            return
        self.chosen, self._text = row, reply.text
        self._drop_diff()
        same = reply.text == session.text()
        self.message.textContent = (
            f"Version {row.revision} ({row.who}) is the same as the text on screen."
            if same
            else f"Version {row.revision} ({row.who}) against the text on screen: what only "
            "that version has is struck out in red, what was added since is green."
        )
        if not same:
            self._diff = editor.diffView(
                self.diff_host,
                reply.text,
                session.text(),
                f"Version {row.revision} against the text on screen",
            )
            self._show_first_change()
        self.restore_button.hidden = same or not session.writable  # a reader restores nothing
        _keep_in_box(self.list, item)  # the list gave room to the diff: the pick stays shown

    def _show_first_change(self) -> None:
        """Scroll the diff (its own box only) so its first change is at the top, one line of
        context above it: the box is short, and unchanged lines come first."""
        host = self.diff_host
        first = host.querySelector(".cm-changedLine, .cm-deletedChunk")
        if first is None:
            return
        line = first.getBoundingClientRect().height or 0
        offset = first.getBoundingClientRect().top - host.getBoundingClientRect().top
        host.scrollTop = max(0, host.scrollTop + offset - line)

    def _drop_diff(self) -> None:
        self.restore_button.hidden = True
        if self._diff is not None:
            editor.destroy(self._diff)
            self._diff = None
        self.diff_host.replaceChildren()

    # -- restoring -------------------------------------------------------------------------

    async def restore(self) -> None:
        """Save the chosen version as a new revision and put it on screen as one undo step."""
        session, row, text = self.session, self.chosen, self._text
        if session is None or row is None:
            return
        if not session.writable:
            self.message.textContent = "Not restored: your role here is reader."
            return
        saver = session.saver
        done: list[str] = []

        async def job() -> None:
            if not await saver.flush():
                self.message.textContent = (
                    "Not restored: the text on screen is not saved yet "
                    "(resolve the problem shown above first)."
                )
                return
            url = doc_url(session.ws, session.path, f"revisions/{row.revision}/restore")
            try:
                reply = await self.ctx.api.ok(
                    "POST", url, data={}, headers={"If-Match": f'"{saver.revision}"'}
                )
            except ApiError as exc:
                self.message.textContent = f"Not restored: {exc.detail}"
                return
            except Exception as exc:  # noqa: BLE001 - offline: said, nothing changed
                self.message.textContent = f"Not restored: {describe(exc)}"
                return
            seen = session.put_on_screen(text)  # one undo step; not an edit to save
            saver.accept(revision_of(reply), seen, text)
            done.append(row.revision)

        self.restore_button.disabled = True
        try:
            await saver.exclusive(job)
        finally:
            self.restore_button.disabled = False
        if done and session is self.session:
            self.frame.focus_editor()  # back to the text, as restored (Restore is hidden now)
            await self.load()
            self.message.textContent = (
                f"Version {done[0]} is back, saved as a new version. "
                "Ctrl+Z in the editor takes it back."
            )


def _keep_in_box(box, el) -> None:
    """Scroll `box` (only it) as far as needed for `el` inside it to show whole."""
    inner, outer = el.getBoundingClientRect(), box.getBoundingClientRect()
    if inner.top < outer.top:
        box.scrollTop -= outer.top - inner.top
    elif inner.bottom > outer.bottom:
        box.scrollTop += inner.bottom - outer.bottom

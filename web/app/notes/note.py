"""One note open in an Inbox frame: its CodeMirror view (the live text) and its autosaver."""

from __future__ import annotations

import json

from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from app.api import revision_of
from app.api_model import ApiError, OfflineError, describe
from app.dom import guard, spawn
from app.live.access_model import can_edit as role_can_edit
from app.live.access_model import role_in, unsaved_words
from app.live.autosave_model import (
    CONFLICT,
    ERROR,
    OFFLINE,
    SAVED,
    UNSAVABLE,
    Autosaver,
    PutResult,
)
from app.live.merge_model import changes_between
from app.notes import attach
from app.notes.tree_model import copy_path


class NoteSession:
    """Editor + saver for (workspace, path). The workspace is fixed for the session's life."""

    def __init__(
        self, *, ctx, ws: str, path: str, text: str, revision: str | None, host, on_state
    ) -> None:
        self.ctx, self.ws, self.path = ctx, ws, path
        self._dirty_proxy = create_proxy(guard(self._on_dirty))
        self.view = editor.create(host, text, f"Text of {path}", self._dirty_proxy)
        self._attach_proxies = attach.watch(self)  # pasted or dropped pictures (SPEC §18)
        self.saver = Autosaver(
            revision=revision,
            base=text,
            read=self.read,
            mark_saved=self._mark_saved,
            put=self._put,
            latest=self._latest,
            on_state=on_state,
            show=self._show,
        )
        self.writable = True
        if not self.may_edit():
            self.set_writable(False)

    # -- the role (SPEC §17) -------------------------------------------------------------

    def may_edit(self) -> bool:
        """Whether the user's role in this note's workspace lets them change it (a listing
        that does not name the workspace says nothing: the server decides on each save)."""
        role = role_in(self.ctx.workspaces, self.ws)
        return role is None or role_can_edit(role)

    def set_writable(self, writable: bool) -> None:
        """Flip the editor in place (text, cursor, scroll and undo history stay) and the saver:
        a reader's keystrokes cannot happen, and ones typed before the role changed are kept
        on screen, unsaved, until the role allows saving them again."""
        if writable == self.writable:
            return
        self.writable = writable
        editor.setReadOnly(self.view, not writable)
        self.saver.set_writable(writable, unsaved_words(self.path))

    # -- the live text, read only when needed -------------------------------------------

    def read(self) -> tuple[int, str]:
        return int(editor.changes(self.view)), str(editor.text(self.view))

    def text(self) -> str:
        return str(editor.text(self.view))

    def _mark_saved(self, seen: int) -> bool:
        return bool(editor.saved(self.view, seen))

    def _on_dirty(self, *args) -> None:
        self.saver.changed()

    def _show(self, mine: str, text: str) -> None:
        """A change saved elsewhere (or merged with it) lands on screen; Ctrl+Z never undoes it."""
        editor.remote(self.view, json.dumps(changes_between(mine, text)))

    def put_on_screen(self, text: str) -> int:
        """The app puts `text` on screen for the user (take theirs, restore): one undo step,
        not counted as an edit. Returns the change count the text was read at."""
        seen, mine = self.read()
        if mine != text:
            editor.swap(self.view, json.dumps(changes_between(mine, text)))
        return seen

    # -- the saver's I/O -------------------------------------------------------------------

    async def _put(
        self, text: str, revision: str | None, resolves: bool, carries: str | None
    ) -> PutResult:
        reply = await self.ctx.api.write(
            self.ws, self.path, text, if_match=revision, keep_mine=resolves, carries=carries
        )
        if reply.status < 300:
            return PutResult("ok", revision_of(reply))
        if reply.status in (409, 412):
            return PutResult("conflict")
        if reply.status >= 500:
            raise OfflineError(f"The server had a problem ({reply.status}) — retrying")
        return PutResult(
            "error", message=describe(ApiError.from_response(reply.status, reply.text))
        )

    async def _latest(self) -> tuple[str | None, str | None]:
        try:
            return await self.ctx.api.read(self.ws, self.path)
        except ApiError as exc:
            if exc.status == 404:
                return None, None  # deleted on the server: "keep mine" re-creates it
            raise

    async def save_copy(self, text: str) -> tuple[str, str | None]:
        """PUT the text to a fresh sibling path (never overwriting); returns (path, revision)."""
        for attempt in range(1, 50):
            candidate = copy_path(self.path, attempt)
            reply = await self.ctx.api.write(self.ws, candidate, text, create_only=True)
            if reply.status < 300:
                return candidate, revision_of(reply)
            if reply.status >= 500:
                raise OfflineError("The server had a problem — try again.")
            if reply.status != 412:
                raise ApiError.from_response(reply.status, reply.text)
        raise ValueError("Could not find a free name for the copy.")

    # -- conflict choices ------------------------------------------------------------------

    def take_theirs(self) -> None:
        text, revision = self.saver.theirs or (None, None)
        if text is None:
            raise ValueError("The note was deleted on the server; keep yours or save a copy.")
        seen = self.put_on_screen(text)  # one transaction: Ctrl+Z brings the user's text back
        self.saver.accept(revision, seen, text)

    async def keep_as_copy(self) -> str:
        seen, text = self.read()
        self.path, revision = await self.save_copy(text)
        self.saver.accept(revision, seen, text)
        return self.path

    # -- going away ------------------------------------------------------------------------

    def close(self) -> None:
        """Destroy the editor; unsaved text keeps saving in the background until it lands."""
        saver, ctx, path = self.saver, self.ctx, self.path
        if saver.state == UNSAVABLE:
            saver.cancel()  # a reader's text cannot be saved: the frame warned before closing
        elif saver.dirty:
            seen, text = self.read()
            waiting = ""
            if saver.state == OFFLINE:
                # The editor goes, the text does not: say where it is until it is saved.
                waiting = (
                    f"Your changes to {path} are kept in this window and are saved once "
                    "the server answers. Keep this window open until this goes away."
                )
                ctx.say(waiting)

            def on_state(state: str, detail: str) -> None:
                if state == SAVED:
                    ctx.background_savers.discard(saver)
                    if waiting:
                        ctx.unsay(waiting)
                elif state == CONFLICT:
                    spawn(self._rescue(text, path))
                elif state == ERROR:
                    ctx.background_savers.discard(saver)
                    ctx.say(f"{path} could not be saved: {detail}")

            ctx.background_savers.add(saver)
            if saver.state == CONFLICT:
                spawn(self._rescue(text, path))
            saver.detach(seen, text, on_state)
        editor.destroy(self.view)
        self._dirty_proxy.destroy()
        attach.unwatch(self._attach_proxies)

    def discard(self) -> None:
        """Destroy the editor and drop unsaved edits (the note was deleted on purpose)."""
        self.saver.cancel()
        editor.destroy(self.view)
        self._dirty_proxy.destroy()
        attach.unwatch(self._attach_proxies)

    async def _rescue(self, text: str, path: str) -> None:
        """A closed note met a conflict: keep both by saving the user's text as a copy."""
        copy, _revision = await self.save_copy(text)
        self.ctx.background_savers.discard(self.saver)
        self.ctx.say(f"{path} was changed elsewhere; your edits were saved as {copy}.")
        self.ctx.documents_changed()

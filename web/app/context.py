"""The app context (`ctx`) every frame and the assistant see: api, store, workspace, role."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ambient.store import AmbientStore
from app.api_model import describe
from app.keys import KeySessions

# Roles in a workspace (SPEC §17): the page reads them from `GET /api/workspaces`.
READER, EDITOR, OWNER = "reader", "editor", "owner"
WRITERS = (EDITOR, OWNER)


def role_in(workspaces: list[dict], ws: str | None) -> str | None:
    """The role held in workspace `ws` according to the listing, or None (not a member)."""
    if not ws:
        return None
    for entry in workspaces:
        if isinstance(entry, dict) and entry.get("id") == ws:
            role = entry.get("role")
            return role if isinstance(role, str) and role else EDITOR
    return None


def can_edit(role: str | None) -> bool:
    """An editor or owner changes notes; a reader (or no role at all) does not."""
    return role in WRITERS


def make_store() -> AmbientStore:
    """One store per window (realm): a pop-out's notes never reach the main window's store."""
    return AmbientStore()


class App:
    """One per window (realm). Frames reach the backend, the store and each other through it."""

    def __init__(self, *, api, store, window_role: str, params: dict[str, str]) -> None:
        self.api = api
        self.store = store
        self.window_role = window_role  # "main" or "popout"
        self.params = params  # the window's query: a pop-out reads its frame from it
        self.workspace_id: str | None = None
        self.workspaces: list[dict] = []
        self._workspace_reads = 0  # reads of the workspaces begun, and the newest one kept
        self._workspaces_kept = 0
        self.user: dict | None = None
        self.frameset = None  # set by the shell once signed in
        self.chrome = None  # the window's Chrome (app/chrome.py), then its Shell once signed in
        self._workspace_callbacks: list[Callable] = []
        self._documents_callbacks: list[Callable] = []
        self._role_callbacks: list[Callable] = []
        self._known_role: str | None = None  # the role the role callbacks last heard of
        self._status: Callable[[str], None] = lambda message: None
        self.background_savers: set = set()  # saves still finishing for closed frames
        self.known_paths: set[str] = set()  # the workspace's notes as last listed (links)
        # One key-session cache per window, shared by its chats; forgotten at sign-out.
        self.key_sessions = KeySessions(self._post_key_session)

    async def _post_key_session(self, url: str) -> tuple[dict, str | None]:
        reply = await self.api.ok("POST", url, data={})
        return reply.json(), reply.headers.get("date")

    # -- registration --------------------------------------------------------------------

    def on_workspace_change(self, callback: Callable) -> Callable[[], None]:
        """`callback(workspace_id)` after each switch (None on sign-out); returns an unsubscribe."""
        self._workspace_callbacks.append(callback)
        return lambda: self._workspace_callbacks.remove(callback)

    def on_documents_change(self, callback: Callable) -> Callable[[], None]:
        """`callback()` after a note was created, renamed, deleted or saved as a copy."""
        self._documents_callbacks.append(callback)
        return lambda: self._documents_callbacks.remove(callback)

    def on_role_change(self, callback: Callable) -> Callable[[], None]:
        """`callback(role)` when the current workspace's role changes while it stays current
        (promoted, demoted: SPEC §17); a switch is told by `on_workspace_change`, and frames
        opened after it read `can_edit`. Returns an unsubscribe."""
        self._role_callbacks.append(callback)
        return lambda: self._role_callbacks.remove(callback)

    def set_status_sink(self, sink: Callable[[str], None]) -> None:
        self._status = sink

    def say(self, message: str) -> None:
        """Tell the user something (the shell's alert line)."""
        self._status(message)

    def unsay(self, message: str) -> None:
        """The problem `message` told of is resolved: clear it if it is still the one shown."""
        sink = getattr(self, "unsay_sink", None)
        if sink is not None:
            sink(message)

    # -- the role in the current workspace (SPEC §17) -------------------------------------

    @property
    def role(self) -> str | None:
        """ "owner", "editor" or "reader" in the current workspace; None without one."""
        return role_in(self.workspaces, self.workspace_id)

    @property
    def can_edit(self) -> bool:
        """Whether this user may change notes of the current workspace (an editor or owner)."""
        return can_edit(self.role)

    async def read_workspaces(self) -> list[dict] | None:
        """`GET /api/workspaces` for a caller that keeps the answer. None when a read begun
        later has come back first: its newer list is the one to keep, and this older one must
        not undo it (a rename or a role change read by one, then overwritten by the other's
        stale answer). Every read of the workspaces in a window goes through here."""
        self._workspace_reads += 1
        ticket = self._workspace_reads
        listing = await self.api.workspaces()
        if ticket < self._workspaces_kept:
            return None
        self._workspaces_kept = ticket
        return listing

    async def keep_fresh_workspaces(self) -> None:
        """Read the workspaces and keep the list, unless a newer read's list is kept already."""
        listing = await self.read_workspaces()
        if listing is not None:
            self.workspaces = listing

    def set_workspaces(self, listing: list[dict]) -> None:
        """A fresh `GET /api/workspaces`: keep it, and tell the role callbacks when the current
        workspace's role changed (the current workspace itself is left by the caller)."""
        self.workspaces = list(listing)
        self._role_settled()

    def _role_settled(self) -> None:
        role = self.role
        if role != self._known_role:
            self._known_role = role
            if role is not None:
                for callback in list(self._role_callbacks):
                    callback(role)

    def set_known_paths(self, paths: set[str]) -> None:
        """The workspace's notes as just listed (by the note list, the quick switcher or a
        pop-out). A Preview drawn against an older list re-resolves its links: whichever
        listing comes first, none leaves a link marked missing."""
        if paths == self.known_paths:
            return
        self.known_paths = set(paths)
        for frame in self.frameset.frames() if self.frameset else []:
            if hasattr(frame, "links_changed"):
                frame.links_changed()

    # -- notifications -------------------------------------------------------------------

    def workspace_changed(self) -> None:
        self._known_role = self.role  # a switch is not a role change
        for callback in list(self._workspace_callbacks):
            callback(self.workspace_id)

    def documents_changed(self) -> None:
        for callback in list(self._documents_callbacks):
            callback()

    # -- saving --------------------------------------------------------------------------

    def has_unsaved(self) -> bool:
        frames = self.frameset.frames() if self.frameset else []
        return any(frame.unsaved() for frame in frames) or any(
            saver.dirty for saver in self.background_savers
        )

    async def flush_all(self, timeout: float | None = None) -> bool:
        """Save everything pending in this window; True when all of it is saved."""
        frames = self.frameset.frames() if self.frameset else []
        jobs = [frame.flush() for frame in frames]
        jobs += [saver.flush() for saver in list(self.background_savers)]
        if not jobs:
            return True
        try:
            results = await asyncio.wait_for(asyncio.gather(*jobs), timeout)
        except TimeoutError:
            return False
        return all(results)

    # -- listing ---------------------------------------------------------------------------

    async def current_documents(
        self, say: Callable[[str], None], noun: str
    ) -> tuple[str, list[dict]] | None:
        """The current workspace's documents for a list view; `say` shows progress and failure.

        None when there is no workspace, when listing failed (said in words), or when the user
        switched workspace meanwhile (the answer belongs to the old one).
        """
        ws = self.workspace_id
        if not ws:
            return None
        say(f"Loading {noun}…")
        try:
            docs = await self.api.documents(ws)
        except Exception as exc:  # noqa: BLE001 - shown where the list is, in words
            say(f"Could not list the {noun}: {describe(exc)}")
            return None
        return (ws, docs) if ws == self.workspace_id else None

    # -- navigation (the frameset does the work) ---------------------------------------

    async def open_note(
        self,
        path: str,
        *,
        new_frame: bool = False,
        line: int | None = None,
        go_to_open: bool = False,
    ) -> None:
        """Open a note in the active Inbox frame; with `line`, in Edit at that line;
        `go_to_open`: in the frame that already shows it, if one does."""
        if self.frameset:
            frame = await self.frameset.open_note(
                path, new_frame=new_frame, view="edit" if line else None, go_to_open=go_to_open
            )
            if line and frame is not None:
                frame.goto_line(line)

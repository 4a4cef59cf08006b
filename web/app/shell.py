"""The shell of a signed-in main window: top bar (workspace switcher, frame toolbar, sign-out),
note list and frames. The sign-in before it is app/chrome.py's, which imports this module."""

from __future__ import annotations

from js import document, window

from ambient.contract import ASSISTANT, INBOX
from app.agents.agent_proposals import AgentProposals
from app.agents.sharing import panel_button
from app.api import keep_prefetched_documents
from app.api_model import ApiError, describe, workspace_url
from app.chrome import SWITCH_FLUSH_SECONDS, Chrome
from app.dom import h
from app.frames.frameset import KINDS, Frameset
from app.frames.layout_store import LayoutStore
from app.frames.popout import parse_return
from app.notes.notelist import NoteList
from app.notes.quick_open import QuickOpen
from app.notes.search_panel import SearchPanel
from app.people.account import account_button
from app.people.admin import users_button
from app.people.members import members_button
from app.people.people_model import role_of
from app.people.settings import Settings
from app.people.welcome import (
    clear_invite,
    current_invite,
    lookup,
    show_invite,
)
from app.people.workspaces import new_workspace_button
from app.transfer.transfer import transfer_bar

FRAME_BUTTONS = tuple((kind, frame.title) for kind, frame in KINDS.items())


class Shell(Chrome):
    """The signed-in main window: the top bar (workspace switcher, frame toolbar, sign-out),
    the note list and the frames; a narrow window's panes; switching and signing out."""

    @classmethod
    def taking_over(cls, chrome: Chrome) -> Shell:
        """The window's shell from now on, in place of `chrome` (whose forms are dropped)."""
        chrome.listeners.clear()
        chrome._sign_in_seq += 1  # a late answer to one of its forms finds it replaced
        shell = cls(chrome.ctx, chrome.root)
        shell.preferred = chrome.preferred
        return shell

    # -- the signed-in main window -------------------------------------------------------

    async def enter(self) -> None:
        """Build the main window for the signed-in user: note list + one Assistant frame."""
        ctx = self.ctx
        problem = ""
        if secret := current_invite():  # an invitation link opened by someone signed in
            try:
                info = await lookup(ctx.api, secret)
            except ApiError as exc:
                clear_invite()
                problem = describe(exc)
            else:
                self._reset()
                show_invite(self, secret, info, signed_in=True, then=self._enter_at, sign_in=None)
                return
        self._reset()
        await ctx.keep_fresh_workspaces()
        self.select = h("select", {"id": "workspace-select", "data-testid": "workspace-select"})
        self._draw_options()
        toolbar = h("div", {"class": "toolbar", "role": "group", "aria-label": "Open a frame"})
        for kind, label in FRAME_BUTTONS:
            button = h(
                "button",
                {
                    "type": "button",
                    "data-testid": "open-frame",
                    "data-kind": kind,
                    "title": f"Open a new {label} frame",
                },
                h("span", {"aria-hidden": "true"}, "+ "),
                label,
            )
            self.listeners.on(button, "click", lambda event, k=kind: self.frameset.open(k))
            toolbar.append(button)
        sign_out = h(
            "button", {"type": "button", "data-testid": "sign-out", "class": "sign-out"}, "Sign out"
        )
        name = (ctx.user or {}).get("username") or (ctx.user or {}).get("name") or ""
        settings = Settings(ctx, self)  # theme, font size, sidebar (issue 34)
        header = h(
            "header",
            {"class": "topbar"},
            settings.toggle,
            h("h1", {"class": "brand"}, "Ambient Notes"),
            h(
                "div",
                {"class": "ws"},
                h("label", {"for": "workspace-select"}, "Workspace"),
                self.select,
                new_workspace_button(ctx, self),
            ),
            # One box for the rest: on a phone it is a single row that scrolls sideways, so
            # the header takes two rows, not four (every button stays one swipe away).
            h(
                "div",
                {"class": "topbar-actions"},
                toolbar,
                h(
                    "div",
                    {"class": "who"},
                    h("span", {"class": "user", "text": name}),
                    members_button(ctx, self),
                    account_button(ctx, self),
                    settings.opener,
                    users_button(ctx, self) if (ctx.user or {}).get("admin") else None,
                    panel_button(ctx, self),
                    sign_out,
                ),
            ),
        )
        nav = h("nav", {"id": "sidebar", "class": "sidebar", "aria-label": "Notes"})
        frames = h("section", {"id": "frames", "class": "frameset", "aria-label": "Frames"})
        # A narrow window shows one pane at a time (the note list or one frame), picked here.
        self.tabs = h("nav", {"class": "pane-tabs", "aria-label": "Panes"})
        # The main landmark holds both panes, so a phone showing only one still has it.
        self.layout = h("main", {"class": "layout", "data-pane": "notes"}, nav, frames)
        to_chat = h(
            "a",
            {"class": "skip-link", "href": "#frames", "data-testid": "skip-to-chat"},
            "Skip to the chat box",
        )
        proposals = AgentProposals(ctx, self.listeners)  # SPEC §14: in every window
        self.root.append(
            to_chat,
            h("a", {"class": "skip-link", "href": "#frames"}, "Skip to frames"),
            header,
            self.banner,
            proposals.el,
            self.tabs,
            self.layout,
        )
        self.listeners.on(to_chat, "click", self._to_chat, prevent=True)
        self.listeners.on(self.tabs, "click", self._on_tab)
        self._tab_active = None
        self.frameset = ctx.frameset = Frameset(ctx, frames)
        self.frameset.on_change(self._draw_tabs)
        self.layouts = LayoutStore(ctx, self.frameset)
        self.search = SearchPanel(ctx, nav, self.listeners)
        self.notes = NoteList(ctx, nav, self.listeners)
        nav.append(transfer_bar(ctx, self))  # export and import, at the list's foot (§18)
        self.quick_open = QuickOpen(ctx, self.root)
        self.escape_handlers.extend(
            [self.quick_open.close, self.notes.close_prompts, self.search.close]
        )
        self.frameset.on_change(lambda: self.notes and self.notes.mark(self.frameset.shown()))
        self.listeners.on(window, "message", self._on_message)  # a pop-out coming back
        self.listeners.on(self.select, "change", lambda event: self.switch(self.select.value))
        self.listeners.on(sign_out, "click", lambda event: self.sign_out())
        self.listeners.on(window, "hashchange", self._on_hash)
        if not ctx.workspaces:
            self.say(
                problem
                or "You are not a member of any workspace yet: create one with New, or open "
                "an invitation link."
            )
            return
        ids = [ws["id"] for ws in ctx.workspaces]
        last = self.preferred if self.preferred in ids else self.layouts.last_workspace()
        self.preferred = None
        ctx.workspace_id = last if last in ids else ids[0]
        keep_prefetched_documents(f"{workspace_url(ctx.workspace_id)}/documents")
        self.select.value = ctx.workspace_id
        # After sign-in the keyboard starts at the top of the page: the first Tab reaches the
        # skip link (issue 34: it used to start in the note list, and the skip link was behind
        # it). The app's root takes the focus, not drawn, as no Tab stop of its own.
        self.root.setAttribute("tabindex", "-1")
        self.root.style.outline = "none"
        self.root.focus()
        ctx.workspace_changed()
        # The frames this workspace had open before a reload, else one Assistant frame.
        if not await self.layouts.restore(ctx.workspace_id):
            await self.frameset.open(ASSISTANT)
        self.show_pane(
            "notes"
            if self.frameset.active is None or self.frameset.active.kind != INBOX
            else "frames"
        )
        if problem:
            self.say(problem)

    def _draw_options(self) -> None:
        self.select.replaceChildren(
            *[
                h("option", {"value": ws["id"], "text": ws.get("name") or ws["id"]})
                for ws in self.ctx.workspaces
            ]
        )
        if self.ctx.workspace_id:
            self.select.value = self.ctx.workspace_id

    async def workspaces_changed(self, target: str | None, *, gone: str | None = None) -> None:
        """The user's workspaces changed (created, renamed, left, deleted, a role): list them
        again and show `target` (None: any); a window whose workspace is gone starts over."""
        ctx = self.ctx
        roles = {ws["id"]: ws.get("role") for ws in ctx.workspaces}
        await ctx.keep_fresh_workspaces()
        ids = [ws["id"] for ws in ctx.workspaces]
        current = ctx.workspace_id
        if gone is not None or current is None or current not in ids:
            self._leave_window()
            await self._enter_at(target)
            return
        self._draw_options()
        if target in ids and target != current:
            self.select.value = target
            await self.switch(target)
        elif roles.get(current) != role_of(ctx.workspaces, current):
            ctx.workspace_changed()  # the views read the new role (a reader's are read-only)

    def _leave_window(self) -> None:
        """Close the main window's frames without a save of their layout (`enter` follows)."""
        ctx = self.ctx
        ctx.store.boundary()
        if self.frameset is not None:
            self.layouts.paused = True
            self.frameset.clear()
        ctx.frameset = self.frameset = None
        ctx.workspace_id = None
        ctx.workspace_changed()

    async def _on_message(self, event) -> None:
        message = parse_return(event.data, str(event.origin), str(window.location.origin))
        if message is None or self.frameset is None:
            return
        if message.get("ws") != self.ctx.workspace_id:
            self.say(
                f"A frame came back from its window, but it belongs to the workspace "
                f"“{message.get('ws')}”; switch to it and open the note again."
            )
            return
        frame = await self.frameset.open(message["kind"], frame_id=message.get("frame") or None)
        if message["kind"] == INBOX and message.get("path"):
            await frame.show(path=message["path"], view=message.get("view") or "edit")
        self.show_pane("frames")
        frame.el.focus()
        window.focus()

    async def _to_chat(self, event) -> None:
        """The skip link: the chat box of the last used Assistant frame (opened if none)."""
        frame = self.frameset.last_activated("assistant") or await self.frameset.open("assistant")
        self.show_pane("frames")
        self.frameset.activate(frame)
        chat = frame.el.querySelector("[data-testid=assistant-input]")
        if chat:
            chat.focus()

    # -- panes of a narrow window ------------------------------------------------------------

    def _draw_tabs(self) -> None:
        frameset = self.frameset
        if frameset is None:
            return
        if frameset.active is not self._tab_active:
            self._tab_active = frameset.active
            if frameset.active is not None:
                self.layout.dataset.pane = "frames"  # a note was opened or a frame used
        pane = self.layout.dataset.pane
        tabs = [
            h(
                "button",
                {
                    "type": "button",
                    "class": "pane-tab",
                    "data-testid": "pane-tab",
                    "data-pane": "notes",
                    "aria-current": "true" if pane == "notes" else None,
                },
                "Notes",
            )
        ]
        for frame in frameset.frames():
            current = pane == "frames" and frame is frameset.active
            tabs.append(
                h(
                    "button",
                    {
                        "type": "button",
                        "class": "pane-tab",
                        "data-testid": "pane-tab",
                        "data-pane": "frame",
                        "data-for-frame": frame.id,
                        "aria-current": "true" if current else None,
                    },
                    getattr(frame, "path", "") or frame.heading.textContent or frame.title,
                )
            )
        self.tabs.replaceChildren(*tabs)

    def show_pane(self, pane: str) -> None:
        self.layout.dataset.pane = pane
        self._draw_tabs()

    def _on_tab(self, event) -> None:
        tab = event.target.closest("button[data-pane]")
        if not tab:
            return
        if tab.dataset.pane == "notes":
            self.show_pane("notes")
            first = self.root.querySelector(".sidebar [data-action=open]")
            if first:
                first.focus()
            return
        wanted = tab.getAttribute("data-for-frame")
        frame = next((f for f in self.frameset.frames() if f.id == wanted), None)
        if frame is not None:
            self.layout.dataset.pane = "frames"
            self.frameset.activate(frame)
            self._draw_tabs()
            frame.el.focus()

    async def switch(self, ws: str) -> None:
        """Workspace switch: save what is pending, cross the boundary, load the new one."""
        ctx = self.ctx
        if ws == ctx.workspace_id:
            return
        self.select.disabled = True
        try:
            if not await ctx.flush_all(SWITCH_FLUSH_SECONDS):
                self.select.value = ctx.workspace_id
                self.say_until_saved(
                    "Some changes are not saved yet (see the open notes), so "
                    "the workspace was not switched. Try again once they say "
                    "Saved."
                )
                return
            ctx.store.boundary()  # clears the pointer before anything of `ws` shows
            self.layouts.paused = True  # the old workspace keeps its notes for next time
            try:
                self.frameset.close_kind(INBOX)  # a note belongs to its workspace
            finally:
                self.layouts.paused = False
            ctx.workspace_id = ws
            self.say("")
            ctx.workspace_changed()
            await self.layouts.restore(ws, kinds=(INBOX,))  # and the new one its own
        finally:
            self.select.disabled = False

    async def sign_out(self) -> None:
        ctx = self.ctx
        if not await ctx.flush_all(SWITCH_FLUSH_SECONDS) and not self._force_sign_out:
            self._force_sign_out = True
            self.say_until_saved(
                "Some changes are not saved yet. Press Sign out again to sign out anyway."
            )
            return
        self._force_sign_out = False
        ctx.store.boundary()
        ctx.key_sessions.forget()  # the next user of this window must not send these key sessions
        self.layouts.paused = True  # signing out is not closing the frames: keep the layout
        self.frameset.clear()
        ctx.frameset = None
        ctx.workspace_id = None
        ctx.workspace_changed()
        try:
            await ctx.api.sign_out()
        finally:
            ctx.user = None
            self.show_sign_in(self.enter)
            document.title = "Ambient Notes"

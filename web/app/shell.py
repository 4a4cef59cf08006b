"""The shell: sign-in form, top bar (workspace switcher, frame toolbar, sign-out), note list."""

from __future__ import annotations

from js import document, window
from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from ambient.contract import ASSISTANT, INBOX
from app.agents.agent_proposals import AgentProposals
from app.agents.sharing import panel_button
from app.api import keep_prefetched_documents
from app.api_model import ApiError, describe, workspace_url
from app.dom import Listeners, guard, h, spawn
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
    add_provider_links,
    clear_invite,
    current_invite,
    lookup,
    setup_needed,
    show_invite,
    show_setup,
)
from app.people.workspaces import new_workspace_button
from app.transfer.transfer import transfer_bar

SWITCH_FLUSH_SECONDS = 5.0
FRAME_BUTTONS = tuple((kind, frame.title) for kind, frame in KINDS.items())


class Shell:
    """Draws the window's chrome into `root` and runs sign-in, switching and sign-out."""

    def __init__(self, ctx, root) -> None:
        self.ctx, self.root = ctx, root
        self.listeners = Listeners()
        self.message = h(
            "p", {"class": "app-message", "role": "alert", "data-testid": "app-message"}
        )
        self.dismiss = h(
            "button",
            {
                "type": "button",
                "class": "icon",
                "data-testid": "app-message-dismiss",
                "aria-label": "Dismiss this message",
                "title": "Dismiss",
            },
            "✕",
        )
        # Its own row in the window's grid: it shrinks the frames, never pushes them out.
        self.banner = h("div", {"class": "app-banner", "hidden": True}, self.message, self.dismiss)
        self._banner_listeners = Listeners()
        self._banner_listeners.on(self.dismiss, "click", lambda event: self.say(""))
        ctx.set_status_sink(self.say)
        ctx.unsay_sink = self.unsay
        self._force_sign_out = False
        self.notes: NoteList | None = None
        self.frameset: Frameset | None = None
        self.escape_handlers: list = []  # each closes its prompts; True if it closed one
        self.quick_open = None  # the Ctrl+O / Ctrl+P switcher, once signed in
        self.preferred: str | None = None  # the workspace the next `enter` opens (SPEC §17)
        self._sign_in_seq = 0  # which sign-in form is on screen (a late answer checks it)
        self._plain_sign_in = False  # the next sign-in form shows no setup or invitation
        self._sign_in_then = self.enter  # what the sign-in form on screen continues with
        self._early_proxy = None  # index.html's sign-in form, once adopted (at most once)

    def say(self, text: str) -> None:
        self.message.textContent = text
        self.banner.hidden = not text

    def unsay(self, text: str) -> None:
        """The problem `text` reported is resolved: clear it unless another one replaced it."""
        if self.message.textContent == text:
            self.say("")

    def on_app_key(self, name) -> None:
        if name == "escape":
            self.escape()
        elif name == "quick-open" and self.quick_open is not None:
            self.quick_open.show()

    def say_until_saved(self, text: str) -> None:
        """Say a problem of unsaved changes; it goes away by itself once they are saved."""
        self.say(text)

        async def watch() -> None:
            if await self.ctx.flush_all():
                self.unsay(text)
                self._force_sign_out = False

        spawn(watch())

    def escape(self) -> None:
        """Escape: close every open prompt and form of the window, then the banner."""
        closed = False
        for closer in self.escape_handlers:
            closed = bool(closer()) or closed
        if not closed:
            self.say("")

    def _reset(self) -> None:
        if self.notes is not None:
            self.notes.dispose()
            self.notes = None
        self.listeners.clear()
        if self.quick_open is not None:
            self.quick_open.destroy()
        self.quick_open = None
        self.say("")
        self.escape_handlers = []
        self.root.replaceChildren()

    # -- signing in --------------------------------------------------------------------------

    def show_sign_in(self, then, problem: str = "") -> None:
        """The sign-in form; `then()` is awaited once the session cookie is set."""
        early = getattr(window, "anaEarlySignIn", None)
        if early is not None and self._early_proxy is None and early.present and not problem:
            self._adopt_early_form(early, early.form, then)
            return
        self._reset()
        user = h(
            "input",
            {
                "id": "login-username",
                "name": "username",
                "required": True,
                "data-testid": "login-username",
                "autocomplete": "username",
            },
        )
        password = h(
            "input",
            {
                "id": "login-password",
                "name": "password",
                "type": "password",
                "required": True,
                "data-testid": "login-password",
                "autocomplete": "current-password",
            },
        )
        submit = h("button", {"type": "submit", "data-testid": "login-submit"}, "Sign in")
        alert = h(
            "p",
            {"class": "problem", "role": "alert", "data-testid": "login-problem", "text": problem},
        )
        form = h(
            "form",
            {"class": "signin-form", "aria-labelledby": "signin-title"},
            h("h1", {"id": "signin-title"}, "Sign in to Ambient Notes"),
            h("label", {"for": "login-username"}, "Username"),
            user,
            h("label", {"for": "login-password"}, "Password"),
            password,
            submit,
            alert,
        )

        async def on_submit(event) -> None:
            submit.disabled = True
            alert.textContent = ""
            try:
                self.ctx.user = await self.ctx.api.sign_in(user.value.strip(), password.value)
            except Exception as exc:  # noqa: BLE001 - shown under the form
                alert.textContent = describe(exc)
                submit.disabled = False
                password.focus()
                return
            await then()

        self.listeners.on(form, "submit", on_submit, prevent=True)
        self.root.append(h("main", {"class": "signin"}, form))
        user.focus()
        self._sign_in_seq += 1
        self._sign_in_then = then
        self.listeners.on(window, "hashchange", self._on_hash)
        if self._plain_sign_in:
            self._plain_sign_in = False
        else:
            spawn(self._instead_of_sign_in(then, self._sign_in_seq, alert, form))

    def _adopt_early_form(self, early, form, then) -> None:
        """index.html's plain form (web/static/signin-early.js) was on screen before Python and
        may be half filled in or already sent: keep it, and continue with `then()` once its
        sign-in succeeds (at once if it already has). No second form is drawn."""
        for line in list(self.root.querySelectorAll(".boot-screen")):
            line.remove()  # the boot screen's lines go, as when the app draws itself
        self._sign_in_seq += 1
        seq = self._sign_in_seq
        self._sign_in_then = then
        alert = form.querySelector("[data-testid=login-problem]")

        async def signed_in() -> None:
            if seq != self._sign_in_seq:
                return  # another form replaced it meanwhile
            self.ctx.user = await self.ctx.api.session()
            if self.ctx.user is None:  # signed out again meanwhile: Python's own form
                self.show_sign_in(then, "The sign-in did not complete. Please try again.")
                return
            await then()

        self._early_proxy = create_proxy(guard(signed_in))
        self.listeners.on(window, "hashchange", self._on_hash)
        early.adopt(self._early_proxy)
        spawn(self._instead_of_sign_in(then, seq, alert, form))

    async def _instead_of_sign_in(self, then, seq: int, alert, form) -> None:
        """An invitation link, or a server with no user yet, shows its own form instead;
        otherwise the form gains the server's identity providers."""
        api = self.ctx.api
        secret = current_invite()
        if secret:
            try:
                info = await lookup(api, secret)
            except ApiError as exc:
                clear_invite()
                if seq == self._sign_in_seq:
                    alert.textContent = describe(exc)
                return
            if seq == self._sign_in_seq:
                self._reset()
                show_invite(
                    self,
                    secret,
                    info,
                    signed_in=False,
                    then=self._enter_at,
                    sign_in=lambda: self._sign_in_for_invite(then),
                )
            return
        if await setup_needed(api) and seq == self._sign_in_seq:
            self._reset()
            show_setup(self, then)
            return
        if seq == self._sign_in_seq:
            await add_provider_links(api, form, alert)

    def _sign_in_for_invite(self, then) -> None:
        """The plain sign-in form; once signed in, `enter` shows the invitation to join."""
        self._plain_sign_in = True
        self.show_sign_in(then)

    async def _enter_at(self, ws: str | None) -> None:
        self.preferred = ws
        document.title = "Ambient Notes"
        await self.enter()

    async def _on_hash(self, event) -> None:
        """An invitation link pasted into this window's address bar: show its form."""
        if not current_invite():
            return
        if self.ctx.user is None:
            self.show_sign_in(self._sign_in_then)
            return
        if not await self.ctx.flush_all(SWITCH_FLUSH_SECONDS):
            self.say_until_saved(
                "Some changes are not saved yet, so the invitation is not shown. Reload the "
                "page once they say Saved."
            )
            return
        self._leave_window()
        await self.enter()

    # -- the signed-in main window -------------------------------------------------------

    async def enter(self) -> None:
        """Build the main window for the signed-in user: note list + one Assistant frame."""
        await editor.load()  # CodeMirror, which a sign-in page does not download (editor.js)
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

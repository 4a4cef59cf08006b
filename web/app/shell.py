"""The shell: sign-in form, top bar (workspace switcher, frame toolbar, sign-out), note list."""

from __future__ import annotations

from js import document

from app.api_model import describe
from app.dom import Listeners, h
from app.frameset import KINDS, Frameset
from app.notelist import NoteList
from app.sharing import panel_button

SWITCH_FLUSH_SECONDS = 5.0
FRAME_BUTTONS = tuple((kind, frame.title) for kind, frame in KINDS.items())


class Shell:
    """Draws the window's chrome into `root` and runs sign-in, switching and sign-out."""

    def __init__(self, ctx, root) -> None:
        self.ctx, self.root = ctx, root
        self.listeners = Listeners()
        self.message = h("p", {"class": "app-message", "role": "alert",
                               "data-testid": "app-message"})
        ctx.set_status_sink(self.say)
        self._force_sign_out = False
        self.notes: NoteList | None = None
        self.frameset: Frameset | None = None

    def say(self, text: str) -> None:
        self.message.textContent = text

    def _reset(self) -> None:
        if self.notes is not None:
            self.notes.dispose()
            self.notes = None
        self.listeners.clear()
        self.message.textContent = ""
        self.root.replaceChildren()

    # -- signing in --------------------------------------------------------------------------

    def show_sign_in(self, then, problem: str = "") -> None:
        """The sign-in form; `then()` is awaited once the session cookie is set."""
        self._reset()
        user = h("input", {"id": "login-username", "name": "username", "required": True,
                           "data-testid": "login-username", "autocomplete": "username"})
        password = h("input", {"id": "login-password", "name": "password", "type": "password",
                               "required": True, "data-testid": "login-password",
                               "autocomplete": "current-password"})
        submit = h("button", {"type": "submit", "data-testid": "login-submit"}, "Sign in")
        alert = h("p", {"class": "problem", "role": "alert", "text": problem})
        form = h("form", {"class": "signin-form", "aria-labelledby": "signin-title"},
                 h("h1", {"id": "signin-title"}, "Sign in to Ambient Notes"),
                 h("label", {"for": "login-username"}, "Username"), user,
                 h("label", {"for": "login-password"}, "Password"), password,
                 submit, alert)

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

    # -- the signed-in main window -------------------------------------------------------

    async def enter(self) -> None:
        """Build the main window for the signed-in user: note list + one Assistant frame."""
        self._reset()
        ctx = self.ctx
        ctx.workspaces = await ctx.api.workspaces()
        self.select = h("select", {"id": "workspace-select", "data-testid": "workspace-select"},
                        *[h("option", {"value": ws["id"], "text": ws.get("name") or ws["id"]})
                          for ws in ctx.workspaces])
        toolbar = h("div", {"class": "toolbar", "role": "group", "aria-label": "Open a frame"})
        for kind, label in FRAME_BUTTONS:
            button = h("button", {"type": "button", "data-testid": "open-frame",
                                  "data-kind": kind, "title": f"Open a new {label} frame"},
                       h("span", {"aria-hidden": "true"}, "+ "), label)
            self.listeners.on(button, "click", lambda event, k=kind: self.frameset.open(k))
            toolbar.append(button)
        sign_out = h("button", {"type": "button", "data-testid": "sign-out",
                                "class": "sign-out"}, "Sign out")
        name = (ctx.user or {}).get("username") or (ctx.user or {}).get("name") or ""
        header = h("header", {"class": "topbar"},
                   h("h1", {"class": "brand"}, "Ambient Notes"),
                   h("div", {"class": "ws"}, h("label", {"for": "workspace-select"}, "Workspace"),
                     self.select),
                   toolbar,
                   h("div", {"class": "who"}, h("span", {"class": "user", "text": name}),
                     panel_button(ctx, self), sign_out))
        nav = h("nav", {"class": "sidebar", "aria-label": "Notes"})
        main = h("main", {"id": "frames", "class": "frameset", "aria-label": "Frames"})
        self.root.append(h("a", {"class": "skip-link", "href": "#frames"}, "Skip to frames"),
                         header, self.message, h("div", {"class": "layout"}, nav, main))
        self.frameset = ctx.frameset = Frameset(ctx, main)
        self.notes = NoteList(ctx, nav, self.listeners)
        self.listeners.on(self.select, "change", lambda event: self.switch(self.select.value))
        self.listeners.on(sign_out, "click", lambda event: self.sign_out())
        if not ctx.workspaces:
            self.say("You are not a member of any workspace yet.")
            return
        ctx.workspace_id = ctx.workspaces[0]["id"]
        self.select.value = ctx.workspace_id
        ctx.workspace_changed()
        await self.frameset.open("assistant")

    async def switch(self, ws: str) -> None:
        """Workspace switch: save what is pending, cross the boundary, load the new one."""
        ctx = self.ctx
        if ws == ctx.workspace_id:
            return
        self.select.disabled = True
        try:
            if not await ctx.flush_all(SWITCH_FLUSH_SECONDS):
                self.select.value = ctx.workspace_id
                self.say("Some changes are not saved yet (see the open notes), so the workspace "
                         "was not switched. Try again once they say Saved.")
                return
            ctx.store.boundary()  # clears the pointer before anything of `ws` shows
            self.frameset.close_kind("inbox")  # a note belongs to its workspace
            ctx.workspace_id = ws
            self.say("")
            ctx.workspace_changed()
        finally:
            self.select.disabled = False

    async def sign_out(self) -> None:
        ctx = self.ctx
        if not await ctx.flush_all(SWITCH_FLUSH_SECONDS) and not self._force_sign_out:
            self._force_sign_out = True
            self.say("Some changes are not saved yet. Press Sign out again to sign out anyway.")
            return
        self._force_sign_out = False
        ctx.store.boundary()
        ctx.key_sessions.forget()  # the next user of this window must not send these key sessions
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


"""The window before a workspace: its message line, Escape, and the sign-in form (or the
first-run setup or an invitation in its place). Signed in, `Chrome.enter` imports the
workspace's modules (most of the app, which a sign-in page is ready without) and CodeMirror,
and hands the window to `app.shell.Shell`, which draws the workspace; a pop-out keeps its
Chrome and shows its one frame (app/frames/popout.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from js import document, window
from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from app import startup
from app.api_model import ApiError, describe
from app.dom import Listeners, guard, h, set_reporter, spawn
from app.people.welcome import (
    add_provider_links,
    clear_invite,
    current_invite,
    lookup,
    setup_needed,
    show_invite,
    show_setup,
)

if TYPE_CHECKING:
    from app.frames.frameset import Frameset
    from app.notes.notelist import NoteList

SWITCH_FLUSH_SECONDS = 5.0
WORKSPACE_UNREACHABLE = (
    "Signed in, but the workspace could not be loaded: the server can't be reached. "
    "Reload the page to try again."
)


class Chrome:
    """Draws the window's message line into `root` and runs sign-in (the Shell, its subclass,
    adds the workspace: switching, panes and sign-out)."""

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
        ctx.chrome = self  # the window's app keys and status line reach the newest one
        ctx.set_status_sink(self.say)
        set_reporter(self.say)
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

    def _leave_window(self) -> None:
        """No workspace on screen: nothing to close (the Shell closes its frames)."""

    async def _workspace_fetched(self) -> bool:
        """CodeMirror and the workspace's modules, which a sign-in page leaves out until the
        person starts signing in: here, or said where the person looks (the sign-in form, if
        it is still on screen)."""
        try:
            await editor.load()
            await startup.workspace_files()
        except Exception:  # noqa: BLE001 - a fetch failed: offline, or the server is down
            alert = self.root.querySelector("[data-testid=login-problem]")
            if alert:
                alert.textContent = WORKSPACE_UNREACHABLE
            else:
                self.say(WORKSPACE_UNREACHABLE)
            return False
        return True

    async def enter(self) -> None:
        """Signed in: CodeMirror and the workspace's modules (what is left of them, when the
        person's first key started their import), then the Shell takes the window over."""
        if not await self._workspace_fetched():
            return
        await startup.workspace()
        from app.shell import Shell  # here, not above: a sign-in page is ready without it

        await Shell.taking_over(self).enter()

"""Start-up in explicit steps; the last one raises the ready flag the tests wait for."""

from __future__ import annotations

from js import document, performance, window
from pyodide.ffi import create_proxy
from pyscript.js_modules import editor

from app.agents.publisher import start_publisher
from app.api import Api
from app.api_model import describe, parse_query, popout_request
from app.chrome import Chrome
from app.context import App, make_store
from app.dom import guard, report
from app.frames.windows import OtherWindows
from app.live.live import start_live

_keep: list = []  # proxies that live as long as the page


async def main() -> None:
    performance.mark("ana:python")  # the interpreter is up; the rest is the app's own start
    root = document.getElementById("app")
    try:
        # 1. Which window is this: the main one, or a popped-out frame (from its query)?
        request = popout_request(parse_query(str(window.location.search)))
        # 2. The context: one API helper and one ambient store for this realm.
        ctx = App(
            api=Api(),
            store=make_store(),
            window_role="popout" if request else "main",
            params=parse_query(str(window.location.search)),
        )
        window.ana_ctx = ctx  # the console and bench/page_js.py reach the store through it
        ctx.windows = OtherWindows(ctx)  # which notes the pop-outs show (the chip says so)
        chrome = Chrome(ctx, root)  # the sign-in; the workspace's Shell takes over from it
        start_publisher(ctx)  # publishes the active note to outside agents, if shared
        start_live(ctx)  # changes saved elsewhere reach this window's open notes (SPEC §13)
        # 3. Window hooks: warn before losing unsaved text; Ctrl+Alt+Arrow moves between frames.
        _install_hooks(ctx)
        _install_app_keys(ctx)
        # 4. The session cookie decides: straight in, or the sign-in form first.
        enter = (lambda: _enter_popout(ctx, chrome, request)) if request else chrome.enter
        _boot_status("Signing in…")
        ctx.user = await ctx.api.session()  # the answer prefetch.js asked for with the page
        if ctx.user is None:
            chrome.show_sign_in(enter)
        else:
            await enter()
    except Exception as exc:  # noqa: BLE001 - raise the flag anyway; the page says what failed
        report(exc)
        window.anaBootFailed(describe(exc))  # says what failed, offers a reload (prefetch.js)
    # 5. Ready.
    performance.mark("ana:ready")
    document.documentElement.dataset.ready = "true"


def _install_hooks(ctx) -> None:
    def before_unload(event) -> None:
        if ctx.has_unsaved():
            event.preventDefault()
            event.returnValue = ""  # the browser's own "leave page?" prompt

    def shortcut(key) -> None:
        if ctx.frameset is not None:
            ctx.frameset.move_focus(-1 if key in ("ArrowLeft", "ArrowUp") else 1)

    unload = create_proxy(guard(before_unload))
    window.addEventListener("beforeunload", unload)
    keys = create_proxy(guard(shortcut))
    editor.onFrameKeys(keys)  # filtered in JS: Python is not called on ordinary keystrokes
    _keep.extend([unload, keys])


async def _enter_popout(ctx, chrome, request: dict[str, str]) -> None:
    from app.frames.popout import enter_popout  # here, not above: boot is ready without it

    await enter_popout(ctx, chrome, request)


def _install_app_keys(ctx) -> None:
    """Escape closes prompts and forms; Ctrl+O / Ctrl+P open the quick switcher (in the
    window's chrome of the moment: the sign-in's, then the workspace's)."""
    keys = create_proxy(guard(lambda name: ctx.chrome.on_app_key(name)))
    editor.onAppKeys(keys)  # filtered in JS, like the frame keys
    _keep.append(keys)


def _boot_status(text: str) -> None:
    """Move the boot screen's progress line on (it goes when the app draws itself)."""
    status = document.getElementById("boot-status")
    if status:
        status.textContent = text

"""The Settings dialog and the sidebar toggle (issue 34): theme, editor font size, note list.

Each change shows at once (attributes on <html> that web/static/app.css reads), is cached in
localStorage for web/static/prefetch.js (the next load and every pop-out apply it before
Python starts) and is saved to the account, so it follows the user to other browsers.
"""

from __future__ import annotations

import contextlib

from js import document, window

from app.api_model import describe
from app.dom import h, spawn
from app.latest_model import Latest
from app.people.dialog import Dialog, field, opener
from app.people.settings_model import (
    CACHE_KEY,
    PREFERENCES_URL,
    THEMES,
    changed,
    font_sizes,
    from_cache,
    normalise,
    sidebar_label,
    to_cache,
)


def apply(prefs: dict) -> None:
    """Show `prefs` in this window and cache them (prefetch.js applies the same attributes)."""
    root = document.documentElement
    root.dataset.theme = prefs["theme"]
    root.dataset.sidebar = "collapsed" if prefs["sidebarCollapsed"] else "open"
    root.style.setProperty("--editor-font-size", f"{prefs['fontSize']}px")
    with contextlib.suppress(Exception):  # storage off: this window still shows them
        window.localStorage.setItem(CACHE_KEY, to_cache(prefs))


def _cached() -> dict:
    try:
        return from_cache(window.localStorage.getItem(CACHE_KEY))
    except Exception:  # noqa: BLE001 - storage off
        return from_cache(None)


class Settings:
    """The top bar's Settings button (with its dialog) and the sidebar toggle."""

    def __init__(self, ctx, shell) -> None:
        self.ctx = ctx
        self.prefs = _cached()
        self._saving = False
        self._again = False
        self._changes = Latest()  # each local change: an account answer older than one is stale
        self.frame = frame = Dialog(shell, key="settings-dialog", title="Settings")
        frame.close_button.setAttribute("data-testid", "settings-close")
        frame.close_button.setAttribute("aria-label", "Close settings")
        self.theme = h(
            "select",
            {"id": "settings-theme", "data-testid": "settings-theme"},
            *[h("option", {"value": value, "text": label}) for value, label in THEMES],
        )
        self.font = h(
            "select",
            {"id": "settings-font-size", "data-testid": "settings-font-size"},
            *[h("option", {"value": str(n), "text": f"{n} px"}) for n in font_sizes()],
        )
        frame.body.append(
            h(
                "div",
                {"class": "people-form settings-form"},
                field("Theme", self.theme, "Same as the device follows its light or dark mode."),
                field("Editor font size", self.font, "The size of the text in the note editor."),
            ),
            h("p", {"class": "hint"}, "Changes apply at once and are kept for your account."),
        )
        self.opener = opener(shell, frame, "settings-open", "Settings", self.open, "Your settings")
        self.toggle = h(
            "button",
            {
                "type": "button",
                "class": "sidebar-toggle icon",
                "data-testid": "sidebar-toggle",
                "aria-controls": "sidebar",
            },
            h("span", {"aria-hidden": "true"}, "☰"),
        )
        shell.listeners.on(self.theme, "change", lambda event: self.set("theme", self.theme.value))
        shell.listeners.on(self.font, "change", lambda event: self.set("fontSize", self.font.value))
        shell.listeners.on(self.toggle, "click", lambda event: self.toggle_sidebar())
        self._show()
        spawn(self._load())

    def _show(self) -> None:
        apply(self.prefs)
        self.theme.value = self.prefs["theme"]
        self.font.value = str(self.prefs["fontSize"])
        collapsed = self.prefs["sidebarCollapsed"]
        label = sidebar_label(collapsed)
        self.toggle.setAttribute("aria-expanded", "false" if collapsed else "true")
        self.toggle.setAttribute("aria-label", label)
        self.toggle.title = label

    async def _load(self) -> None:
        """The account's copy wins over the cached one (another browser may have changed it).

        Not over a change made here while it was on its way: that change is newer, even when
        its own save has already finished (the answer may have been read before the save).
        """
        unchanged = self._changes.since()
        try:
            answer = (await self.ctx.api.ok("GET", PREFERENCES_URL)).json()
        except Exception:  # noqa: BLE001 - the cached copy stays; the dialog says so if opened
            return
        if unchanged():
            self.prefs = normalise(answer)
            self._show()

    def open(self) -> None:
        self.frame.show()
        self.theme.focus()

    def set(self, key: str, value: object) -> None:
        self.prefs = changed(self.prefs, key, value)
        self._changes.move()
        self._show()
        spawn(self._save())

    def toggle_sidebar(self) -> None:
        self.set("sidebarCollapsed", not self.prefs["sidebarCollapsed"])

    async def _save(self) -> None:
        """One PUT at a time; changes made during it are sent together right after."""
        if self._saving:
            self._again = True
            return
        self._saving = True
        try:
            while True:
                self._again = False
                try:
                    await self.ctx.api.ok("PUT", PREFERENCES_URL, data=self.prefs)
                except Exception as exc:  # noqa: BLE001 - said in the dialog
                    self.frame.say(f"Not saved to your account: {describe(exc)}")
                    return
                if not self._again:
                    self.frame.say("")
                    return
        finally:
            self._saving = False

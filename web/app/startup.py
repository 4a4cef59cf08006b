"""A window's start, as web/static/main.py runs it: the modules, in slices, then `app.boot`.

A signed-in window or a pop-out imports everything before it starts. A sign-in page (the plain
form on screen: no session) starts after the sign-in's modules; from the person's first key,
pointer or input (web/editor/editor.js says when) it fetches the workspace's (their own zip,
web/static/pyodide-snapshot.mjs writes it) and imports them while they type; signing in
awaits what is left (app/chrome.py).
"""

from __future__ import annotations

import asyncio

from js import document, window
from pyscript.js_modules import editor

from app.imports import BOOT, WORKSPACE, import_in_slices, order

_background: list = []  # the sign-in page's import of the workspace, kept alive


async def start() -> None:
    await import_in_slices(order(BOOT))
    signing_in = document.getElementById("early-signin") is not None
    if not signing_in:
        await workspace()
    from app import boot  # imported above, in slices

    await boot.main()
    if signing_in:
        _background.append(asyncio.ensure_future(_when_a_person_acts()))


async def workspace_files() -> None:
    """The workspace's modules written where Python imports from (fetched once per window;
    a failure, e.g. offline, raises, and the next call tries again)."""
    await window.anaWorkspaceBundle()


async def workspace() -> None:
    """Everything a workspace needs, imported (at once when the background import is done)."""
    await workspace_files()
    await import_in_slices(order(WORKSPACE))


async def _when_a_person_acts() -> None:
    await editor.whenPersonActs()
    await workspace()

"""A window's start, as web/static/main.py runs it: the modules, in slices, then `app.boot`.

A signed-in window or a pop-out imports everything before it starts. A sign-in page (the plain
form on screen: no session) starts after the sign-in's modules and imports the workspace's
from the person's first key, pointer or input (web/editor/editor.js says when), while they
type; signing in awaits what is left (app/chrome.py).
"""

from __future__ import annotations

import asyncio

from js import document
from pyscript.js_modules import editor

from app.imports import BOOT, WORKSPACE, import_in_slices, order

_background: list = []  # the sign-in page's import of the workspace, kept alive


async def start() -> None:
    await import_in_slices(order(BOOT))
    signing_in = document.getElementById("early-signin") is not None
    if not signing_in:
        await import_in_slices(order(WORKSPACE))
    from app import boot  # imported above, in slices

    await boot.main()
    if signing_in:
        _background.append(asyncio.ensure_future(_when_a_person_acts()))


async def _when_a_person_acts() -> None:
    await editor.whenPersonActs()
    await import_in_slices(order(WORKSPACE))

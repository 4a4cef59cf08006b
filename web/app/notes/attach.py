"""Pictures in notes (SPEC §18), the browser layer: a pasted or dropped image (or PDF) is
uploaded and its Markdown link put where it was pasted (web/editor/attach.js does the one
transaction); Preview learns the workspace's attachments from here. Pure parts:
attach_model."""

from __future__ import annotations

import asyncio
import json

from js import FormData, Object, window
from pyodide.ffi import create_proxy, to_js
from pyscript.js_modules import editor

from ambient.contract import ATTACHMENT_TYPES
from app.api import Api
from app.api_model import ApiError, OfflineError, describe
from app.dom import guard, h, spawn
from app.notes.attach_model import (
    attachment_url,
    file_name,
    markdown_for,
    too_large,
    upload_path,
)

UPLOAD_SECONDS = 120.0
_known: dict[str, set[str]] = {}  # workspace → its attachments' paths, as last listed
_loading: dict[str, asyncio.Task] = {}


def known(ws: str) -> set[str] | None:
    """The workspace's attachments as last listed (None: not listed yet)."""
    return _known.get(ws)


async def listed(ws: str) -> set[str]:
    """List the workspace's attachments now (one request at a time per workspace)."""
    task = _loading.get(ws)
    if task is None or task.done():
        task = _loading[ws] = asyncio.ensure_future(_list(ws))
    return await task


async def _list(ws: str) -> set[str]:
    return {item["path"] for item in await listing(ws)}


async def listing(ws: str) -> list[dict]:
    """The workspace's attachments as the API lists them (path, bytes, sha256,
    contentType), by path; also remembered for Preview."""
    url = attachment_url(ws, "").rstrip("/")
    reply = await Api().call("GET", url)
    if reply.status != 200:
        raise ApiError.from_response(reply.status, reply.text)
    items = list((reply.json() or {}).get("attachments", []))
    _known[ws] = {item["path"] for item in items}
    return items


def watch(session) -> list:
    """Let `session`'s editor take pasted and dropped files; returns the proxies to keep."""
    accepts = create_proxy(lambda name, kind: file_name(str(name), str(kind)) is not None)
    taken = create_proxy(guard(lambda files, spot: _attach(session, files, int(spot))))
    editor.onAttach(session.view, accepts, taken)
    return [accepts, taken]


ACCEPT = ",".join(f".{extension}" for extension in ATTACHMENT_TYPES)


class ChooseFile:
    """The Inbox frame's "Picture or PDF…" button: the files chosen go in at the cursor,
    uploaded and linked exactly as a paste (one change, one Ctrl+Z)."""

    def __init__(self, frame) -> None:
        self.frame = frame
        self.input = h(
            "input",
            {
                "type": "file",
                "accept": ACCEPT,
                "multiple": True,
                "hidden": True,
                "data-testid": "attach-file-input",
            },
        )
        self.button = h(
            "button",
            {
                "type": "button",
                "data-testid": "attach-choose",
                "title": "Put a picture or a PDF into the note at the cursor",
            },
            "Picture…",
        )
        frame.listeners.on(self.button, "click", lambda event: self._choose())
        frame.listeners.on(self.input, "change", lambda event: self._chosen())
        frame.toolbar.append(self.button, self.input)

    def _choose(self) -> None:
        session = self.frame.session
        if session is None or self.frame.view != "edit" or not session.writable:
            self.frame.ctx.say("Open the note in Edit (as an editor) to put a picture in it.")
            return
        self.input.click()

    def _chosen(self) -> None:
        session = self.frame.session
        files = [f for f in self.input.files if file_name(str(f.name), str(f.type)) is not None]
        self.input.value = ""  # the same file can be chosen again
        if session is None or not files:
            return
        spot = int(editor.spotAtSelection(session.view))
        if spot:
            spawn(_attach(session, to_js(files), spot))


def unwatch(proxies: list) -> None:
    """The editor is gone: release what `watch` made."""
    for proxy in proxies:
        proxy.destroy()


async def _attach(session, files, spot: int) -> None:
    """Upload each file, then put all their links at the spot in one change."""
    links: list[str] = []
    try:
        for file in files.to_py():
            links.append(await _upload(session.ws, session.path, file))
    finally:
        editor.finishAttach(session.view, spot, "\n".join(links))


async def _upload(ws: str, note_path: str, file) -> str:
    name = file_name(str(file.name), str(file.type))
    if name is None:
        raise ValueError(f"{file.name} is not an image or a PDF, so it was not attached.")
    if too_large(int(file.size)):
        raise ValueError(f"{name} is larger than 20 MiB, so it was not attached.")
    form = FormData.new()
    form.append("file", file, name)
    form.append("path", upload_path(note_path, name))
    url = attachment_url(ws, "").rstrip("/")
    # window.fetch itself: pyodide's pyfetch builds a Request from the options and then
    # passes them again, so a FormData body would be sent under another boundary.
    options = to_js(
        {"method": "POST", "body": form, "credentials": "same-origin", "cache": "no-store"},
        dict_converter=Object.fromEntries,
    )
    try:
        async with asyncio.timeout(UPLOAD_SECONDS):
            response = await window.fetch(url, options)
            text = await response.text()
    except (OSError, TimeoutError) as exc:
        raise OfflineError("offline") from exc
    if response.status != 201:
        error = ApiError.from_response(response.status, text)
        raise ValueError(f"Could not attach {name}: {describe(error)}")
    path = json.loads(text)["path"]
    if ws in _known:  # else the next listing brings it with all the others
        _known[ws].add(path)
    return markdown_for(note_path, path)

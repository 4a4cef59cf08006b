"""Serves the page: index.html, the vendored browser runtime, and the page's Python as one zip.

The runtime (backend/delivery/assets.py) goes out compressed and under hashed, immutable
URLs; the few page files that name those URLs (index.html, pyscript.json, the interpreter module)
are rewritten once at start and revalidated on every visit, so an upgrade never mixes two builds.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import re
from functools import cache
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from backend.api.deps import SESSION_COOKIE
from backend.delivery.assets import REVALIDATE, Runtime, add_python_bundles, load_vendor
from backend.delivery.runtime import page_dir, python_bundle
from backend.snapshot import check_snapshot

# Python 3.11's mimetypes lacks these; a wrong type makes the browser refuse the module/wasm.
_TYPES = {
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/octet-stream",
    ".snapshot": "application/octet-stream",
}
# The page files that name runtime URLs: served rewritten to the hashed URLs, revalidated.
NAMING_FILES = {
    "/": "index.html",
    "/static/pyscript.json": "static/pyscript.json",
    "/static/pyodide-snapshot.mjs": "static/pyodide-snapshot.mjs",
}

# index.html's plain sign-in form, sent only to a request without a session cookie: a person
# signs in with it while Python loads (web/static/signin-early.js; SPEC §7's ids are on it).
EARLY_SIGNIN = re.compile(r"[ \t]*<!-- early-signin:.*?<!-- /early-signin -->\n", re.DOTALL)
# What index.html preloads for a signed-in window only: CodeMirror, which a sign-in page needs
# only once the person starts typing (web/editor/editor.js fetches it then).
SIGNED_IN_ONLY = re.compile(r"[ \t]*<!-- signed-in:.*?<!-- /signed-in -->\n", re.DOTALL)
RUNTIME_BYTES = re.compile(r'data-runtime-bytes="(\d+)"')
# index.html's preloads of the runtime. A signed-in main window gets them inert, in a
# <template>: its note list and last note (web/static/workspace-early.js) are asked for first
# and start them once shown, so on a slow link the note is not queued behind 7 MB of runtime.
RUNTIME_PRELOADS = re.compile(
    r"([ \t]*)<!-- runtime-preloads:.*?-->\n(.*?)[ \t]*<!-- /runtime-preloads -->\n", re.DOTALL
)

# index.html's empty MicroPython config, filled at start with pyscript.json's plugin list:
# PyScript loads its plugins once per script type, each type reading only its own config, so
# the type the page never runs turns off the same plugins (pyscript.json stays their one list).
MPY_CONFIG = "<mpy-config hidden></mpy-config>"

# The memory snapshot every window boots from (web/static/pyodide-snapshot.mjs names it too).
SNAPSHOT_URL = "/vendor/snapshot/pyodide.snapshot"

# The page may talk to its own origin only. Pyodide needs 'wasm-unsafe-eval' to compile its
# WebAssembly and 'unsafe-eval' because its loader builds its EM_JS glue with eval();
# CodeMirror injects its own <style> elements.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def mount_web(app: FastAPI, settings: object) -> None:
    """Add the page routes last, after every API router, so /api is never shadowed."""
    for ext, kind in _TYPES.items():
        mimetypes.add_type(kind, ext)
    web_dir = page_dir(settings)
    vendor = web_dir / "vendor"
    if not (vendor / "pyodide" / "pyodide.mjs").is_file():
        raise RuntimeError(f"{vendor} is missing the browser runtime; run ./dev setup")
    check_snapshot(vendor)  # a stale Pyodide snapshot stops the server; it is never served
    runtime = _runtime(web_dir)
    pages = {url: _naming_file(web_dir / name, runtime) for url, name in NAMING_FILES.items()}
    pages["/"] = _with_mpy_config(pages["/"], pages["/static/pyscript.json"][0])
    extra = runtime.signed_in_bytes
    popout_page = _signed_in_page(pages["/"], main_window=False, extra_bytes=extra)
    signed_in_page = _signed_in_page(pages["/"], main_window=True, extra_bytes=extra)
    pages["/"] = _without(pages["/"], SIGNED_IN_ONLY)  # the sign-in page

    def page_file(request: Request) -> Response:
        body, etag, media_type = pages[request.url.path]
        headers = _page_headers() if request.url.path == "/" else {"Cache-Control": REVALIDATE}
        if request.url.path == "/" and request.cookies.get(SESSION_COOKIE):
            # A pop-out finds the runtime in the HTTP cache: nothing to wait for.
            popout = "popout" in request.query_params
            body, etag, media_type = popout_page if popout else signed_in_page
        headers["ETag"] = etag
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=media_type, headers=headers)

    # One page for the main window and every popped-out window (they differ by query).
    for url in pages:
        app.add_api_route(url, page_file, methods=["GET", "HEAD"], include_in_schema=False)

    def runtime_file(request: Request) -> Response:
        found = runtime.assets.get(request.url.path)
        if found is None:
            raise HTTPException(404)
        asset, immutable = found
        return asset.response(request, immutable=immutable)

    for prefix in ("/vendor", "/py"):
        app.add_api_route(
            prefix + "/{name:path}", runtime_file, methods=["GET", "HEAD"], include_in_schema=False
        )

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return FileResponse(web_dir / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", _Revalidated(directory=web_dir / "static"), name="static")


@cache
def _runtime(web_dir: Path) -> Runtime:
    """The runtime table for a page folder, built once per process (it compresses the bundle)."""
    runtime = load_vendor(web_dir / "vendor")
    add_python_bundles(runtime, python_bundle(web_dir))
    return runtime


def _naming_file(path: Path, runtime: Runtime) -> tuple[bytes, str, str]:
    text = runtime.rewrite(path.read_text(encoding="utf-8"))
    # The boot screen's progress bar: how many bytes a first visit fetches, before compression;
    # and the snapshot's size, so the loader can hand Pyodide its buffer before it has arrived.
    text = text.replace('data-runtime-bytes=""', f'data-runtime-bytes="{runtime.raw_bytes}"')
    snapshot_bytes = runtime.sizes.get(SNAPSHOT_URL, "")
    text = text.replace('data-snapshot-bytes=""', f'data-snapshot-bytes="{snapshot_bytes}"')
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return _page(text, f"{kind}; charset=utf-8")


def _signed_in_page(
    page: tuple[bytes, str, str], *, main_window: bool, extra_bytes: int = 0
) -> tuple[bytes, str, str]:
    """The page for someone with a session cookie: no sign-in form flashes before the app, and
    in the main window the runtime's preloads wait in a template for the early view. Its boot
    screen counts `extra_bytes` more (what only a window showing a workspace fetches)."""
    body, _, media_type = page
    text, found = EARLY_SIGNIN.subn("", body.decode())
    text = RUNTIME_BYTES.sub(lambda m: f'data-runtime-bytes="{int(m[1]) + extra_bytes}"', text)
    if main_window:
        text, held = RUNTIME_PRELOADS.subn(
            r'\1<template class="runtime-preloads">\n\2\1</template>\n', text
        )
        found += held
    if not found:  # a page without the form (a test's stand-in page)
        return page
    return _page(text, media_type)


def _with_mpy_config(page: tuple[bytes, str, str], config: bytes) -> tuple[bytes, str, str]:
    """The page with its MicroPython config turning off what pyscript.json turns off."""
    text = page[0].decode()
    if MPY_CONFIG not in text:  # a test's stand-in page
        return page
    plugins = json.dumps({"plugins": json.loads(config).get("plugins", [])})
    filled = f"<mpy-config hidden>{plugins}</mpy-config>"
    return _page(text.replace(MPY_CONFIG, filled), page[2])


def _without(page: tuple[bytes, str, str], block: re.Pattern) -> tuple[bytes, str, str]:
    """The page with every such block left out (unchanged when it has none)."""
    text, found = block.subn("", page[0].decode())
    return _page(text, page[2]) if found else page


def _page(text: str, media_type: str) -> tuple[bytes, str, str]:
    body = text.encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"', media_type


class _Revalidated(StaticFiles):
    """The page's own small files: always revalidated (ETag), so a new build shows at once."""

    def file_response(self, *args, **kwargs) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = REVALIDATE
        return response


def _page_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-cache",
        "Vary": "Cookie",  # with a session cookie the page has no sign-in form
    }

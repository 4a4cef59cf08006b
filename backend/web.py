"""Serves the page: index.html, the vendored browser runtime, and the page's Python as one zip."""

from __future__ import annotations

import hashlib
import io
import mimetypes
import zipfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

import ambient
from backend.snapshot import check_snapshot

# The page's folder: the copy an installed wheel carries (setup.py puts it here), else the
# checkout's web/. ANA_WEB_DIR overrides both.
PACKAGED_WEB = Path(__file__).resolve().parent / "webroot"
CHECKOUT_WEB = Path(__file__).resolve().parent.parent / "web"

# Python 3.11's mimetypes lacks these; a wrong type makes the browser refuse the module/wasm.
_TYPES = {
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/octet-stream",
}

# The page may talk to its own origin only. Pyodide needs 'wasm-unsafe-eval' to compile its
# WebAssembly and 'unsafe-eval' because its loader builds its EM_JS glue with eval();
# CodeMirror injects its own <style> elements.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def page_dir(settings: object = None) -> Path:
    """The folder holding index.html, static/, vendor/ and app/ for these settings."""
    configured = getattr(settings, "web_dir", None)
    if configured:
        return Path(configured)
    return PACKAGED_WEB if (PACKAGED_WEB / "index.html").is_file() else CHECKOUT_WEB


@cache
def python_bundle(web_dir: Path | None = None) -> bytes:
    """Zip the page's Python: the pure core, the browser layer and markdown-it-py (pure Python).

    PyScript unpacks it into the interpreter's working directory (`files` with a "./*" target),
    so the page gets every module in one request and never needs micropip or a wheel index.
    """
    sources: list[tuple[Path, str]] = [
        (Path(ambient.__file__).resolve().parent, "ambient"),
        ((web_dir or page_dir()) / "app", "app"),
    ]
    for package in ("markdown_it", "mdurl", "merge3"):
        spec = find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError(f"{package} is not installed; run ./dev setup")
        sources.append((Path(next(iter(spec.submodule_search_locations))), package))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for folder, prefix in sources:
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and path.suffix in (
                    ".py",
                    ".typed",
                ):
                    # A fixed timestamp keeps the zip (and its ETag) identical across restarts.
                    info = zipfile.ZipInfo(f"{prefix}/{path.relative_to(folder).as_posix()}")
                    info.date_time = (2020, 1, 1, 0, 0, 0)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def mount_web(app: FastAPI, settings: object) -> None:
    """Add the page routes last, after every API router, so /api is never shadowed."""
    for ext, kind in _TYPES.items():
        mimetypes.add_type(kind, ext)
    web_dir = page_dir(settings)
    vendor = web_dir / "vendor"
    if not (vendor / "pyodide" / "pyodide.mjs").is_file():
        raise RuntimeError(f"{vendor} is missing the browser runtime; run ./dev setup")
    check_snapshot(vendor)  # a stale Pyodide snapshot stops the server; it is never served
    index = (web_dir / "index.html").read_bytes()
    bundle = python_bundle(web_dir)
    bundle_etag = '"' + hashlib.sha256(bundle).hexdigest()[:16] + '"'

    @app.get("/", include_in_schema=False)
    def page() -> Response:
        # One page for the main window and every popped-out window (they differ by query).
        return Response(index, media_type="text/html; charset=utf-8", headers=_page_headers())

    @app.get("/py/app.zip", include_in_schema=False)
    def python_zip(request: Request) -> Response:
        headers = {"ETag": bundle_etag, "Cache-Control": "no-cache"}
        if request.headers.get("if-none-match") == bundle_etag:
            return Response(status_code=304, headers=headers)
        return Response(bundle, media_type="application/zip", headers=headers)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return FileResponse(web_dir / "favicon.svg", media_type="image/svg+xml")

    app.mount("/vendor", StaticFiles(directory=vendor), name="vendor")
    app.mount("/static", StaticFiles(directory=web_dir / "static"), name="static")


def _page_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-cache",
    }

"""Debian's Chromium, launched by path, with nothing allowed to leave the machine; and when a
page of the app counts as ready."""

from __future__ import annotations

import os
import shutil

# Nothing may leave the machine: every host name but localhost resolves to nothing.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
# `?.`: a pop-out polled while its first document is replaced can have no root element for
# a moment, and a predicate that throws ends the wait at once instead of waiting on.
READY = "document.documentElement?.dataset.ready === 'true'"
READY_TIMEOUT_MS = 60_000


def chromium_path() -> str:
    """Debian's chromium (or ANA_CHROMIUM)."""
    path = os.environ.get("ANA_CHROMIUM") or shutil.which("chromium")
    if not path:
        raise RuntimeError("Debian's chromium is not installed; ./dev setup installs it")
    return path


# The body's first statements for a page.evaluate("async () => {...}"): a second Pyodide beside
# the page's, restored from the page's own snapshot through the page's unmasking factory
# (web/static/snapshot-mask.mjs). The runtime URLs come from the page's (hashed) preload
# links, so every file is read from the HTTP cache. Leaves `bytes` (the snapshot as served)
# and `pyodide`.
RESTORE_BESIDE_THE_PAGE = """
  const link = (end) => [...document.querySelectorAll("link[href]")]
    .map((l) => l.href).find((href) => href.endsWith(end));
  const { unmaskingModule } = await import("/static/snapshot-mask.mjs");
  const factory = (await import(link("/pyodide/pyodide.asm.mjs"))).default;
  const { loadPyodide } = await import(link("/pyodide/pyodide.mjs"));
  const served = await fetch(link("/snapshot/pyodide.snapshot"));
  const bytes = new Uint8Array(await served.arrayBuffer());
  const indexURL = link("/pyodide/pyodide.mjs").replace(/pyodide\\.mjs$/, "");
  const pyodide = await loadPyodide({
    indexURL, _loadSnapshot: bytes, createPyodideModule: unmaskingModule(factory, bytes),
  });
"""

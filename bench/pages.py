"""Baseline pages served by the app's own server, and the instrumentation every page gets.

The pages are written into web/static/bench/ (served at /static/bench/ by
backend/delivery/web.py) for the run and removed afterwards, so the baselines come from the
same server as the app without touching backend code. They load only external scripts, like
the app page under its CSP.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

from backend.config import REPO_ROOT

STATIC_BENCH = REPO_ROOT / "web" / "static" / "bench"
BARE_PYODIDE = "/static/bench/bare-pyodide.html"
PLAIN_CM = "/static/bench/plain-cm.html"

_FILES = {
    # The start-up baseline: loadPyodide, then runPython("1+1"), then the same ready flag.
    "bare-pyodide.html": """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bare Pyodide</title>
<script type="module" src="/static/bench/bare-pyodide.js"></script></head>
<body><p>bare Pyodide</p></body></html>
""",
    "bare-pyodide.js": """import { loadPyodide } from "/vendor/pyodide/pyodide.mjs";
// The full standard library: the served one has stubs for what the app's snapshot holds.
const py = await loadPyodide({
  indexURL: "/vendor/pyodide/", stdLibURL: "/vendor/bench/python_stdlib.zip" });
py.runPython("1+1");
window.__pyodide = py;
document.documentElement.dataset.ready = "true";
""",
    # The typing baseline: the app's own CodeMirror bundle and stylesheet, no Python at all.
    "plain-cm.html": """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>plain CodeMirror</title>
<link rel="stylesheet" href="/static/app.css">
<script type="module" src="/static/bench/plain-cm.js"></script></head>
<body><div id="editor" style="width: 620px; height: 600px; overflow: auto"></div></body></html>
""",
    "plain-cm.js": """import { create } from "/vendor/editor/view.js";
const src = new URLSearchParams(location.search).get("src");
const text = src ? await (await fetch(src)).text() : "";
window.__view = create(document.getElementById("editor"), text, "Plain editor", () => {});
document.documentElement.dataset.ready = "true";
""",
}

# Runs before any page script in every page and pop-up of a context (Playwright init script):
# absolute timestamps (timeOrigin + now, comparable across windows) of the ready flag, of the
# first editable CodeMirror after it, and of the last click on a frame-popout button.
# A pop-up opened with window.open(url) keeps the window of its initial about:blank, and
# Playwright's init script does not run again for the real document: `instrument()` there.
INSTRUMENT = """(() => {
  // Once per document: a pop-up's first document (about:blank) shares its window object
  // with the page it then navigates to, and Playwright may run init scripts twice.
  if (window.__bench && window.__bench.doc === document) return;
  const now = () => performance.timeOrigin + performance.now();
  const b = window.__bench = { doc: document, readyAt: null, editableAt: null, clickAt: null };
  const check = () => {
    if (b.readyAt === null && document.documentElement &&
        document.documentElement.dataset.ready === "true") b.readyAt = now();
    if (b.readyAt !== null && b.editableAt === null &&
        document.querySelector('.cm-content[contenteditable="true"]')) b.editableAt = now();
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true,
    attributeFilter: ["data-ready", "contenteditable"] });
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest('[data-testid="frame-popout"]')) b.clickAt = now();
  }, true);
  check();
  b.late = b.readyAt !== null;  // installed after the flag went up: the time is not exact
})();
"""


@contextlib.contextmanager
def baseline_pages() -> Iterator[Path]:
    """Write the baseline pages for the run; always remove them afterwards."""
    if STATIC_BENCH.exists():
        shutil.rmtree(STATIC_BENCH)
    STATIC_BENCH.mkdir(parents=True)
    try:
        for name, text in _FILES.items():
            (STATIC_BENCH / name).write_text(text)
        yield STATIC_BENCH
    finally:
        shutil.rmtree(STATIC_BENCH, ignore_errors=True)


def instrument(page) -> None:
    """Install INSTRUMENT in a page's current document (a pop-up: see above)."""
    page.wait_for_load_state("domcontentloaded")
    page.evaluate("() => {" + INSTRUMENT + "}")
    if page.evaluate("window.__bench.late"):
        raise RuntimeError("the pop-up was ready before it could be instrumented")

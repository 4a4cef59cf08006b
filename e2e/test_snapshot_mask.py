"""In Chromium, the served (masked) snapshot unmasks to exactly the snapshot the build made.

The build proves the round trip in Node; this proves the browser's freshly instantiated wasm
memory is the same mask: the page's own unmasking factory, run once more in a booted page on
the served bytes, must give back the SHA-256 the manifest records for the unmasked snapshot.
"""

import json

from playwright.sync_api import Page

from backend.delivery.runtime import CHECKOUT_WEB
from e2e.conftest import Server, wait_ready

# The runtime URLs come from the page's own (hashed) preload links; Pyodide is loaded once
# more beside the page's, from the HTTP cache, with the page's factory from snapshot-mask.mjs.
UNMASKED_SHA256 = """async () => {
  const link = (end) => [...document.querySelectorAll("link[href]")]
    .map((l) => l.href).find((href) => href.endsWith(end));
  const { unmaskingModule } = await import("/static/snapshot-mask.mjs");
  const factory = (await import(link("/pyodide/pyodide.asm.mjs"))).default;
  const { loadPyodide } = await import(link("/pyodide/pyodide.mjs"));
  const served = await (await fetch(link("/snapshot/pyodide.snapshot"))).arrayBuffer();
  const bytes = new Uint8Array(served);
  const indexURL = link("/pyodide/pyodide.mjs").replace(/pyodide\\.mjs$/, "");
  const pyodide = await loadPyodide({
    indexURL, _loadSnapshot: bytes, createPyodideModule: unmaskingModule(factory, bytes),
  });
  const answer = pyodide.runPython("6 * 7");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { hex, answer };
}"""


def test_the_browser_unmasks_the_snapshot_the_build_made(page: Page, server: Server) -> None:
    manifest = json.loads((CHECKOUT_WEB / "vendor" / "snapshot" / "manifest.json").read_text())
    page.goto(server.url + "/")
    wait_ready(page)
    result = page.evaluate(UNMASKED_SHA256)
    assert result["answer"] == 42
    assert result["hex"] == manifest["mask"]["unmasked_sha256"]
    assert result["hex"] != manifest["sha256"]  # it was served masked

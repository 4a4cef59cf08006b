"""In Chromium, the served (masked) snapshot unmasks to exactly the snapshot the build made.

The build proves the round trip in Node; this proves the browser's freshly instantiated wasm
memory is the same mask: the page's own unmasking factory, run once more in a booted page on
the served bytes, must give back the SHA-256 the manifest records for the unmasked snapshot.
"""

import json

from playwright.sync_api import Page

from backend.delivery.runtime import CHECKOUT_WEB
from e2e.conftest import Server, wait_ready
from support.browser import RESTORE_BESIDE_THE_PAGE

# Pyodide loaded once more beside the page's, from the HTTP cache (RESTORE_BESIDE_THE_PAGE).
UNMASKED_SHA256 = (
    "async () => {"
    + RESTORE_BESIDE_THE_PAGE
    + """
  const answer = pyodide.runPython("6 * 7");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { hex, answer };
}"""
)


def test_the_browser_unmasks_the_snapshot_the_build_made(page: Page, server: Server) -> None:
    manifest = json.loads((CHECKOUT_WEB / "vendor" / "snapshot" / "manifest.json").read_text())
    page.goto(server.url + "/")
    wait_ready(page)
    result = page.evaluate(UNMASKED_SHA256)
    assert result["answer"] == 42
    assert result["hex"] == manifest["mask"]["unmasked_sha256"]
    assert result["hex"] != manifest["sha256"]  # it was served masked

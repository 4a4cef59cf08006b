"""Small browser steps shared by the browser benchmarks (logging, opening a note, typing)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from bench import page_js as js


def log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def open_note(page: Page, path: str, *, new_frame: bool) -> None:
    testid = "note-open-frame" if new_frame else "note-link"
    page.locator(f'[data-testid="{testid}"][data-path="{path}"]').first.click()
    frame = page.locator(f'[data-testid="frame"][data-frame-kind="inbox"][data-path="{path}"]')
    expect(frame.locator(".cm-content")).to_be_visible()


def type_text(page: Page, chars: int) -> list[float]:
    page.evaluate(js.LATENCY_PROBE)
    text = ("the quick brown fox jumps over the lazy dog " * (chars // 44 + 1))[:chars]
    page.keyboard.type(text, delay=10)
    page.wait_for_timeout(100)  # the last key's frame
    return page.evaluate("window.__lat")

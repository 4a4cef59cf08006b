"""Small browser steps shared by the browser benchmarks (logging, opening a note, typing)."""

from __future__ import annotations

import random

from playwright.sync_api import Page, expect

from bench import page_js as js


def log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def open_note(page: Page, path: str, *, new_frame: bool) -> None:
    testid = "note-open-frame" if new_frame else "note-link"
    page.locator(f'[data-testid="{testid}"][data-path="{path}"]').first.click()
    frame = page.locator(f'[data-testid="frame"][data-frame-kind="inbox"][data-path="{path}"]')
    expect(frame.locator(".cm-content")).to_be_visible()


# A person types 80–150 ms between keys (issue 35); the gaps are drawn from a fixed seed so
# that the app and the plain page get the same rhythm in every run.
PERSON_GAP_MS = (80, 150)


def type_text(page: Page, chars: int, *, paced: bool = False) -> list[float]:
    """Type `chars` characters and return each key's input-to-paint time (ms).

    Unpaced, the keys come 10 ms apart (a burst that measures how keys queue); paced, at a
    person's pace, where each key meets an idle page.
    """
    page.evaluate(js.LATENCY_PROBE)
    text = ("the quick brown fox jumps over the lazy dog " * (chars // 44 + 1))[:chars]
    if paced:
        gaps = random.Random(35)
        for ch in text:
            page.keyboard.type(ch)
            page.wait_for_timeout(gaps.uniform(*PERSON_GAP_MS))  # the pace is the workload
    else:
        page.keyboard.type(text, delay=10)
    page.wait_for_timeout(100)  # the last key's frame
    return page.evaluate("window.__lat")

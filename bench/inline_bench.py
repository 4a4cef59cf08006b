"""Inline command (SPEC §9): Enter → preview for a 16 KiB selection vs a plain chat turn.

Both are timed in the same page, interleaved: from the keydown that sends (Enter in the inline
prompt; Ctrl+Enter in the Assistant's box) to the first frame painted after the answer is in
the page (the preview's panel switching to `preview`; a new assistant message).
"""

from __future__ import annotations

import statistics

from playwright.sync_api import expect

from bench.stats import figure

NOTE = "bench/inline.md"
SELECTION_BYTES = 16 * 1024
CONTEXT = "".join(f"context line {n:04}\n" for n in range(150))  # ~3 KiB each side
INSTRUCTION = "sort lines"

# Arm a probe: t0 at the sending keydown, t1 after the frame that follows `done()` turning
# true (checked on every DOM mutation under `root`).
PROBE = """([rootSelector, kind]) => {
  const root = document.querySelector(rootSelector);
  const state = window.__inl = { t0: null, t1: null };
  const done = kind === "inline"
    ? () => root.querySelector('.inline-panel[data-state="preview"]') !== null
    : () => root.querySelectorAll('[data-testid=assistant-message][data-role=assistant]').length
        > state.before;
  state.before = root.querySelectorAll('[data-testid=assistant-message][data-role=assistant]')
    .length;
  document.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && state.t0 === null) state.t0 = e.timeStamp;
  }, { capture: true });
  const observer = new MutationObserver(() => {
    if (state.t0 === null || !done()) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { state.t1 = performance.now(); }));
  });
  observer.observe(root, { subtree: true, childList: true, attributes: true });
}"""
SELECT = """(el, [start, end]) => {
  const view = el.cmTile.root.view;
  view.dispatch({ selection: { anchor: start, head: end } });
  view.focus();
  return view.state.sliceDoc(start, end).length;
}"""


def _selection_text() -> str:
    lines, size, n = [], 0, 0
    while size < SELECTION_BYTES:
        line = f"item {(n * 7919) % 10007:05} of the selection\n"
        lines.append(line)
        size += len(line)
        n += 1
    text = "".join(lines)[:SELECTION_BYTES]
    return text


def _timed(page, root: str, kind: str, press: str) -> float:
    page.evaluate(PROBE, [root, kind])
    page.keyboard.press(press)
    page.wait_for_function("window.__inl.t1 !== null", timeout=30_000, polling=20)
    return page.evaluate("window.__inl.t1 - window.__inl.t0")


def inline(s, plan, out) -> None:
    """Enter → preview (16 KiB selection, offline agent) vs Ctrl+Enter → chat reply."""
    selection = _selection_text()
    ctx = s.context()
    page = s.app(ctx)
    response = page.request.put(
        f"{s.url}/api/workspaces/personal/documents/{NOTE}",
        data=(CONTEXT + selection + CONTEXT).encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert response.ok, response.status
    page.locator("[data-testid=open-frame][data-kind=files]").click()
    page.locator(f"[data-testid=file-link][data-path='{NOTE}']").click()
    frame_sel = f'[data-testid="frame"][data-frame-kind="inbox"][data-path="{NOTE}"]'
    frame = page.locator(frame_sel)
    expect(frame.locator(".cm-content")).to_be_visible()
    assistant_sel = '[data-testid="frame"][data-frame-kind="assistant"]'
    chat_input = page.locator(assistant_sel).get_by_test_id("assistant-input")
    start = len(CONTEXT)
    inline_ms, chat_ms = [], []
    for rep in range(plan.reps):
        order = ("inline", "chat") if rep % 2 == 0 else ("chat", "inline")
        for which in order:
            if which == "inline":
                frame.locator(".cm-content").evaluate(SELECT, [start, start + len(selection)])
                page.keyboard.press("Control+k")
                expect(frame.get_by_test_id("inline-command-input")).to_be_focused()
                page.keyboard.type(INSTRUCTION)
                inline_ms.append(_timed(page, frame_sel, "inline", "Enter"))
                preview = frame.get_by_test_id("inline-command-preview")
                assert len(preview.evaluate("el => el.textContent")) == len(selection)
                page.keyboard.press("Escape")  # reject: the note stays as it is
                expect(preview).to_have_count(0)
            else:
                chat_input.fill("hello")
                chat_input.focus()
                chat_ms.append(_timed(page, assistant_sel, "chat", "Control+Enter"))
        print(
            f"  inline rep {rep + 1}: Enter→preview {inline_ms[-1]:.0f} ms, "
            f"chat turn {chat_ms[-1]:.0f} ms",
            flush=True,
        )
    ctx.close()
    out.figures.append(
        figure(
            "9. Inline command, 16 KiB selection (Enter → preview / plain chat turn)",
            inline_ms,
            chat_ms,
            unit="ms",
            goal="reported (issue 12 sets none)",
            note=f"offline agent, '{INSTRUCTION}', {SELECTION_BYTES:,}-byte selection with 2 KiB "
            f"of context each side; chat: 'hello' with Ctrl+Enter; medians "
            f"{statistics.median(inline_ms):.0f} / {statistics.median(chat_ms):.0f} ms",
        )
    )
    out.details["inline"] = {"inline_ms": inline_ms, "chat_ms": chat_ms}

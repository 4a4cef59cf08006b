"""Browser benchmarks in Debian's Chromium: cold start, pop-out, capture, typing, memory.

One server and one browser for all of them, one page at a time (a 2-core machine). Every
figure pairs the app with a baseline page served by the same server in the same run.
"""

from __future__ import annotations

import statistics
import traceback
from dataclasses import dataclass, field

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench import page_js as js
from bench.browser_steps import PERSON_GAP_MS, log, open_note, type_text
from bench.first_visit import first_visit
from bench.inline_bench import inline
from bench.live_bench import live
from bench.pages import BARE_PYODIDE, INSTRUMENT, PLAIN_CM, baseline_pages, instrument
from bench.plan import Plan
from bench.publish_bench import publish
from bench.servers import Client, app_server, note_text
from bench.stats import figure
from support.browser import CHROMIUM_ARGS, READY_TIMEOUT_MS, chromium_path

__all__ = ["chromium_path", "run"]

VIEWPORT = {"width": 1280, "height": 800}
MIB = 1024 * 1024
CAPTURE_NOTES = {
    "10 KiB": ("bench/capture-10k.md", 10 * 1024),
    "1 MiB": ("bench/capture-1m.md", MIB),
}
TYPING_NOTE = "bench/typing.md"
MEMORY_NOTES = [f"bench/memory-{i}.md" for i in range(5)]
POPOUT_NOTE = "bench/popout.md"
WAIT_READY = "window.__bench && window.__bench.readyAt !== null"
WAIT_EDITABLE = "window.__bench && window.__bench.editableAt !== null"


@dataclass
class BrowserResults:
    figures: list = field(default_factory=list)
    details: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    failed: list = field(default_factory=list)


class Session:
    """The server, the browser and a signed-in storage state shared by every benchmark."""

    def __init__(self, browser: Browser, url: str, state: dict) -> None:
        self.browser, self.url, self.state = browser, url, state

    def context(self, *, signed_in: bool = True) -> BrowserContext:
        ctx = self.browser.new_context(
            viewport=VIEWPORT, locale="en-US", storage_state=self.state if signed_in else None
        )
        ctx.add_init_script(INSTRUMENT)
        return ctx

    def open(self, ctx: BrowserContext, path: str) -> tuple[Page, float]:
        """Navigate a new page; return it and the ms from navigation start to the ready flag."""
        page = ctx.new_page()
        page.goto(self.url + path, wait_until="commit")
        page.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS, polling=50)
        return page, page.evaluate("window.__bench.readyAt - performance.timeOrigin")

    def app(self, ctx: BrowserContext) -> Page:
        page, _ = self.open(ctx, "/")
        expect(page.get_by_test_id("workspace-select")).to_be_visible()
        page.evaluate(js.PYODIDE)
        return page


def _memory(ctx: BrowserContext, page: Page) -> tuple[float, float]:
    """(JS heap used after a full GC, Pyodide wasm memory), in MiB."""
    cdp = ctx.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    used = cdp.send("Runtime.getHeapUsage")["usedSize"]
    cdp.detach()
    page.evaluate(js.PYODIDE)
    return used / MIB, page.evaluate(js.WASM_BYTES) / MIB


def cold_start(s: Session, plan: Plan, out: BrowserResults) -> None:
    """1 + 7: navigation → ready flag in a fresh context; memory after boot and 5 frames."""
    app, bare, signed_out, reload = [], [], [], []
    mem = {
        "app_heap": [],
        "app_wasm": [],
        "bare_heap": [],
        "bare_wasm": [],
        "app5_heap": [],
        "app5_wasm": [],
    }
    for rep in range(plan.reps):
        order = ("app", "bare") if rep % 2 == 0 else ("bare", "app")
        for which in order:
            ctx = s.context(signed_in=which == "app")
            page, ms = s.open(ctx, "/" if which == "app" else BARE_PYODIDE)
            heap, wasm = _memory(ctx, page)
            if which == "app":
                expect(page.get_by_test_id("workspace-select")).to_be_visible()
                app.append(ms)
                mem["app_heap"].append(heap)
                mem["app_wasm"].append(wasm)
                reload.append(_reload(page))  # warm: same context, HTTP cache filled
                expect(page.get_by_test_id("workspace-select")).to_be_visible()
                if plan.mode == "full" or rep == 0:  # quick: the 5 frames once
                    for path in MEMORY_NOTES:
                        open_note(page, path, new_frame=True)
                    heap5, wasm5 = _memory(ctx, page)
                    mem["app5_heap"].append(heap5)
                    mem["app5_wasm"].append(wasm5)
            else:
                bare.append(ms)
                mem["bare_heap"].append(heap)
                mem["bare_wasm"].append(wasm)
            ctx.close()
        # A new user's first-ever load: empty HTTP cache, no session (the sign-in form).
        ctx = s.context(signed_in=False)
        page, ms = s.open(ctx, "/")
        expect(page.get_by_test_id("login-username")).to_be_visible()
        signed_out.append(ms)
        ctx.close()
        log(
            f"cold start rep {rep + 1}: app {app[-1]:.0f} ms, bare {bare[-1]:.0f} ms, "
            f"reload {reload[-1]:.0f} ms, first-ever {signed_out[-1]:.0f} ms"
        )
    out.figures.append(
        figure(
            "1. Main-window cold start, signed in (app / bare Pyodide)",
            app,
            bare,
            unit="ms",
            goal="≤ 1.0",
            limit=1.0,
            note="navigation → ready flag, fresh context (empty HTTP cache) each run; app shows "
            "note list + Assistant frame",
        )
    )
    out.figures.append(
        figure(
            "1. Warm reload, signed in (reload / cold start)",
            reload,
            app,
            unit="ms",
            goal="≤ 0.8",
            limit=0.8,
            note="page.reload() in the cold start's context (HTTP cache filled) → ready flag",
        )
    )
    out.figures.append(
        figure(
            "1. First-ever load, empty cache, sign-in form (app / bare Pyodide)",
            signed_out,
            bare,
            unit="ms",
            goal="(informative)",
            note="no session cookie: a new user's first visit",
        )
    )
    for label, key in (("after boot", "app"), ("after 5 Inbox frames", "app5")):
        out.figures.append(
            figure(
                f"7. JS heap {label} (app / bare Pyodide)",
                mem[f"{key}_heap"],
                mem["bare_heap"],
                unit="MiB",
                goal="(reported)",
                note="CDP Runtime.getHeapUsage after a full GC",
            )
        )
        out.figures.append(
            figure(
                f"7. Pyodide wasm memory {label} (app / bare Pyodide)",
                mem[f"{key}_wasm"],
                mem["bare_wasm"],
                unit="MiB",
                goal="(reported)",
                note="pyodide._module.HEAP8.length",
            )
        )


def _reload(page: Page) -> float:
    """Reload a ready page; the ms from the new navigation's start to its ready flag."""
    page.reload(wait_until="commit")
    page.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS, polling=50)
    return page.evaluate("window.__bench.readyAt - performance.timeOrigin")


def popout(s: Session, plan: Plan, out: BrowserResults) -> None:
    """2: click on frame-popout → the new window's ready flag and an editable note."""
    ctx = s.context()
    page = s.app(ctx)
    app, app_ready, bare = [], [], []
    for rep in range(plan.reps):
        order = ("app", "bare") if rep % 2 == 0 else ("bare", "app")
        for which in order:
            if which == "app":
                open_note(page, POPOUT_NOTE, new_frame=True)
                button = page.locator(
                    f'[data-testid="frame"][data-path="{POPOUT_NOTE}"] [data-testid="frame-popout"]'
                )
                try:
                    with ctx.expect_page(timeout=20_000) as info:
                        button.click()
                    popup = info.value
                except PlaywrightTimeout:
                    message = page.get_by_test_id("app-message").first.text_content()
                    frames = page.locator('[data-testid="frame"]').evaluate_all(
                        "els => els.map(e => [e.dataset.frameKind, e.dataset.path])"
                    )
                    raise RuntimeError(
                        f"no pop-up; page says {message!r}; frames {frames}"
                    ) from None
                instrument(popup)
                popup.wait_for_function(WAIT_EDITABLE, timeout=READY_TIMEOUT_MS, polling=50)
                click = page.evaluate("window.__bench.clickAt")
                app.append(popup.evaluate("window.__bench.editableAt") - click)
                app_ready.append(popup.evaluate("window.__bench.readyAt") - click)
            else:
                # A fresh window name each time: a just-closed window may still own the old one.
                with ctx.expect_page(timeout=20_000) as info:
                    page.evaluate(f"""() => {{
                      window.__bench.clickAt = performance.timeOrigin + performance.now();
                      window.open("{BARE_PYODIDE}", "bench-bare-{rep}",
                                  "popup,width=720,height=760");
                    }}""")
                popup = info.value
                instrument(popup)
                popup.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS, polling=50)
                bare.append(
                    popup.evaluate("window.__bench.readyAt")
                    - page.evaluate("window.__bench.clickAt")
                )
            popup.close()
        log(f"pop-out rep {rep + 1}: app {app[-1]:.0f} ms, bare {bare[-1]:.0f} ms")
    ctx.close()
    out.figures.append(
        figure(
            "2. Pop-out start (app / window.open of bare Pyodide)",
            app,
            bare,
            unit="ms",
            goal="≤ 0.9",
            limit=0.9,
            note="click → new window's ready flag + editable CodeMirror; same opener, warm HTTP "
            f"cache; app ready flag alone: median {statistics.median(app_ready):.0f} ms",
        )
    )


def capture(s: Session, plan: Plan, out: BrowserResults) -> None:
    """3: capture per send with nothing pending vs crypto.subtle.digest in the same page."""
    ctx = s.context()
    page = s.app(ctx)
    first = True
    for label, (path, size) in CAPTURE_NOTES.items():
        open_note(page, path, new_frame=first)
        first = False
        frame = page.locator(f'[data-testid="frame"][data-path="{path}"]')
        frame.locator(".cm-content").click()  # activate the frame: the resolver's choice
        frame.evaluate(js.VIEW_TEXT_LENGTH)
        result = page.evaluate(js.CAPTURE, [plan.reps, plan.capture_calls, size])
        if label == "10 KiB":
            out.figures.append(
                figure(
                    f"3. Capture per send, {label} (capture / JS digest)",
                    result["capture"],
                    result["baseline"],
                    unit="ms",
                    goal="< 1 ms absolute",
                    note=f"mean of {plan.capture_calls} sends per run, typing settled; "
                    f"editor.digest(view) alone {statistics.median(result['jsDigest']):.2f} ms",
                )
            )
            out.figures[-1]["met"] = statistics.median(result["capture"]) < 1.0
        else:
            out.figures.append(
                figure(
                    f"3. Capture per send, {label} (capture / JS digest)",
                    result["capture"],
                    result["baseline"],
                    unit="ms",
                    goal="≤ 1.5",
                    limit=1.5,
                    note=f"mean of {plan.capture_calls} sends per run, typing settled; "
                    f"editor.digest(view) alone {statistics.median(result['jsDigest']):.2f} ms",
                )
            )
        steps = ", ".join(f"{k} {v:.2f}" for k, v in result["steps"].items())
        # afterEdit: a send right after an edit, hashing in the send (checked against the text)
        out.figures[-1]["note"] += f"; steps alone (ms): {steps}"
        out.details[f"capture_{label}"] = result
        log(f"capture {label}: {result}")
    ctx.close()


def typing(s: Session, plan: Plan, out: BrowserResults) -> None:
    """4: Python entries per keystroke, and input-to-paint latency vs a plain CodeMirror page."""
    ctx = s.context()
    page = s.app(ctx)
    open_note(page, TYPING_NOTE, new_frame=True)
    editor = page.locator(f'[data-testid="frame"][data-path="{TYPING_NOTE}"] .cm-content')
    plain = ctx.new_page()
    plain.goto(f"{s.url}{PLAIN_CM}?src=/api/workspaces/personal/documents/{TYPING_NOTE}")
    plain.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS)

    def focus_end(p: Page, target) -> None:
        p.bring_to_front()
        target.click()
        p.keyboard.press("Control+End")

    def passes(chars: int, *, paced: bool) -> tuple[list[float], ...]:
        """Interleaved passes (app, plain; plain, app; …): means and p95s per pass."""
        app_lat, plain_lat, app_p95, plain_p95 = [], [], [], []
        for rep in range(plan.reps):
            order = ("app", "plain") if rep % 2 == 0 else ("plain", "app")
            for which in order:
                p, target = (
                    (page, editor) if which == "app" else (plain, plain.locator(".cm-content"))
                )
                focus_end(p, target)
                lat = type_text(p, chars, paced=paced)
                (app_lat if which == "app" else plain_lat).append(statistics.mean(lat))
                (app_p95 if which == "app" else plain_p95).append(sorted(lat)[int(len(lat) * 0.95)])
            pace = "a person's pace" if paced else "10 ms apart"
            log(
                f"typing ({pace}) rep {rep + 1}: app {app_lat[-1]:.1f} ms, "
                f"plain {plain_lat[-1]:.1f} ms"
            )
        return app_lat, plain_lat, app_p95, plain_p95

    app_lat, plain_lat, app_p95, plain_p95 = passes(plan.typed_chars, paced=False)
    out.figures.append(
        figure(
            f"4. Typing input-to-paint, {plan.typed_chars} chars (app / plain CodeMirror)",
            app_lat,
            plain_lat,
            unit="ms (mean)",
            goal="≤ 1.1",
            limit=1.1,
            note="keydown timeStamp → task after the next frame; 10 ms between keys; p95 app/plain "
            f"{statistics.median(app_p95):.1f}/{statistics.median(plain_p95):.1f} ms",
        )
    )
    # Issue 35: keys 10 ms apart measure how keys queue on a loaded machine; a person types
    # 80–150 ms apart, so each key meets a page that has finished the last one.
    app_lat, plain_lat, app_p95, plain_p95 = passes(plan.paced_chars, paced=True)
    low, high = PERSON_GAP_MS
    out.figures.append(
        figure(
            f"4. Typing at a person's pace, {plan.paced_chars} chars (app / plain CodeMirror)",
            app_lat,
            plain_lat,
            unit="ms (mean)",
            goal="≤ 1.1",
            limit=1.1,
            note=f"as above, {low}–{high} ms between keys (seeded, the same on both sides); "
            f"p95 app/plain {statistics.median(app_p95):.1f}/"
            f"{statistics.median(plain_p95):.1f} ms",
        )
    )

    # Python entries: a separate pass with a profile hook, so the hook's cost stays out of
    # the latency figures. The note is saved and clean first, so the first key is the
    # clean→dirty transition the editor reports to Python (by design: once, not per key).
    page.wait_for_function(
        """() => !document.querySelector(
        '[data-testid="frame"][data-frame-kind="inbox"]').textContent.includes("Unsaved")""",
        timeout=15_000,
    )
    page.wait_for_timeout(2000)
    focus_end(page, editor)
    page.evaluate(js.KEY_FLAG)
    page.evaluate(js.COUNTER_START)
    page.evaluate(js.COUNTER_TAKE)
    text = ("the quick brown fox jumps over the lazy dog " * 10)[: plan.typed_chars]
    page.keyboard.type(text, delay=10)
    during = page.evaluate(js.COUNTER_TAKE)
    page.wait_for_timeout(2000)  # the autosave after the typing stops
    after = page.evaluate(js.COUNTER_TAKE)
    page.evaluate(js.COUNTER_STOP)
    for counts in (during, after):
        for key in list(counts):  # runPython's own frames: the counter's reads
            if key.endswith((": <module>", ": eval_code")):
                del counts[key]
    keyed = {k: v for k, v in during.items() if k.startswith("key:")}
    n_keyed, n_during = sum(keyed.values()), sum(during.values())
    out.figures.append(
        figure(
            "4. Python calls inside keystroke events (app; plain CodeMirror: 0)",
            [n_keyed / plan.typed_chars],
            [],
            unit="calls/key",
            goal="0 per keystroke",
            note=f"{n_keyed} calls into Python from key/input events over {plan.typed_chars} "
            f"chars ({', '.join(f'{k}×{v}' for k, v in sorted(keyed.items())) or 'none'}); "
            f"plus {n_during - n_keyed} other entries while typing "
            f"({', '.join(f'{k[7:]}×{v}' for k, v in sorted(during.items()) if k not in keyed)}) "
            "and "
            f"{sum(after.values())} in the 2 s after",
        )
    )
    # The one clean→dirty callback is by design (web/editor.js), not a per-keystroke call.
    out.figures[-1]["met"] = n_keyed <= 1
    out.details["typing_python_entries"] = {"during": during, "after": after}
    ctx.close()


BENCHES = {
    "cold-start": cold_start,
    "first-visit": first_visit,
    "popout": popout,
    "capture": capture,
    "typing": typing,
    "inline": inline,
    "publish": publish,
    "live": live,
}


def _prepare(url: str) -> dict:
    client = Client(url)
    for path, size in CAPTURE_NOTES.values():
        client.put_note(path, note_text(size, "capture"))
    client.put_note(TYPING_NOTE, note_text(2048, "typing"))
    client.put_note(POPOUT_NOTE, note_text(4096, "popout"))
    for path in MEMORY_NOTES:
        client.put_note(path, note_text(8192, path))
    cookies = [
        {
            "name": c.name,
            "value": c.value,
            "domain": "127.0.0.1",
            "path": "/",
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
            "expires": -1,
        }
        for c in client.cookies.jar
    ]
    client.close()
    return {"cookies": cookies, "origins": []}


def run(plan: Plan, names: list[str]) -> BrowserResults:
    out = BrowserResults()
    if "browser-memory" in names and "cold-start" not in names:
        names = [*names, "cold-start"]  # memory is sampled in the cold-start runs
    with baseline_pages(), app_server() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        s = Session(browser, server.url, _prepare(server.url))
        try:
            for name, bench in BENCHES.items():
                if name not in names:
                    continue
                print(f"== {name}", flush=True)
                try:
                    bench(s, plan, out)
                except Exception:  # noqa: BLE001 - report it, run the others
                    traceback.print_exc()
                    out.failed.append(name)
                    out.skipped[name] = "failed (see the console output)"
        finally:
            browser.close()
    return out

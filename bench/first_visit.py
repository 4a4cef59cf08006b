"""First visit over an emulated link, against a bare Pyodide page served gzipped, and a repeat.

Each run is a fresh browser profile on disk (empty HTTP cache), throttled through Chromium's
DevTools protocol (`Network.emulateNetworkConditions`: throughput and added round-trip latency). The
bare page loads Pyodide from the same vendored files and server, but its context accepts only
gzip and deflate (its requests carry `Accept-Encoding: gzip, deflate` through
`Network.setExtraHTTPHeaders`), as when a CDN serves Pyodide gzipped. The app
is timed to its sign-in form (a new user: no session); the repeat visit opens the page again in
the app's profile, as a returning user does.

A profile on disk, not Playwright's in-memory context: a returning user's browser keeps V8's
code caches (compiled scripts, and the compiled WebAssembly of a large module loaded by
`instantiateStreaming` from the HTTP cache) beside its HTTP cache; an in-memory context kept
none here (repeat visits stayed at about 2.3 s, against 1.5 s from the third visit on disk).
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
from collections.abc import Iterator

from playwright.sync_api import BrowserContext, Page, expect

from bench.pages import BARE_PYODIDE, INSTRUMENT
from bench.plan import Plan
from bench.stats import figure
from support.browser import CHROMIUM_ARGS, READY_TIMEOUT_MS, chromium_path

# (name, Mbit/s, round-trip ms): a good home link and a slow one.
LINKS = (("40 Mbit/s, 20 ms", 40, 20), ("10 Mbit/s, 40 ms", 10, 40))
WAIT_READY = "window.__bench && window.__bench.readyAt !== null"
# Bytes on the wire: the document and every resource as the network delivered them (0 when
# the HTTP cache answered); the runtime part is what /vendor/ and /py/ delivered.
WIRE = """() => {
  const all = [...performance.getEntriesByType("navigation"),
               ...performance.getEntriesByType("resource")];
  const runtime = all.filter(e => /^\\/(vendor|py)\\//.test(new URL(e.name).pathname));
  const sum = (list) => list.reduce((total, e) => total + e.transferSize, 0);
  return { all: sum(all), runtime: sum(runtime), runtimeFiles: runtime.length };
}"""


def _throttle(
    ctx: BrowserContext, page: Page, mbit: float, rtt_ms: float, encodings: list[str] | None
) -> None:
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    rate = mbit * 1e6 / 8
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": rtt_ms, "downloadThroughput": rate, "uploadThroughput": rate},
    )
    if encodings is not None:  # this Chromium has no Network.setAcceptedEncodings any more
        cdp.send(
            "Network.setExtraHTTPHeaders", {"headers": {"Accept-Encoding": ", ".join(encodings)}}
        )


@contextlib.contextmanager
def _fresh_profile(s) -> Iterator[BrowserContext]:
    """A new profile on disk (empty caches) in its own browser process, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ana-first-visit-") as folder:
        ctx = s.browser.browser_type.launch_persistent_context(
            folder,
            executable_path=chromium_path(),
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 800},
            locale="en-US",
        )
        ctx.add_init_script(INSTRUMENT)
        try:
            yield ctx
        finally:
            ctx.close()


def _visit(
    s, ctx: BrowserContext, path: str, link: tuple, *, gzip_only: bool, sign_in_form: bool
) -> tuple[float, dict]:
    """Open `path` in a new page of ctx over the link; (ms to ready, bytes on the wire)."""
    _, mbit, rtt = link
    page = ctx.new_page()
    _throttle(ctx, page, mbit, rtt, ["gzip", "deflate"] if gzip_only else None)
    page.goto(s.url + path, wait_until="commit")
    page.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS * 2, polling=50)
    if sign_in_form:
        expect(page.get_by_test_id("login-username")).to_be_visible()
    ms = page.evaluate("window.__bench.readyAt - performance.timeOrigin")
    wire = page.evaluate(WIRE)
    page.close()
    return ms, wire


def first_visit(s, plan: Plan, out) -> None:
    """First visit (app to sign-in form / bare gzip page), wire bytes, and the repeat visit."""
    links = LINKS[:1] if plan.mode == "smoke" else LINKS
    for link in links:
        name = link[0]
        app, bare, app_mb, bare_mb, again, again_runtime = [], [], [], [], [], []
        for rep in range(plan.link_reps):
            order = ("app", "bare") if rep % 2 == 0 else ("bare", "app")
            for which in order:
                with _fresh_profile(s) as ctx:
                    if which == "app":
                        ms, wire = _visit(s, ctx, "/", link, gzip_only=False, sign_in_form=True)
                        app.append(ms)
                        app_mb.append(wire["all"] / 1e6)
                        ms2, wire2 = _visit(s, ctx, "/", link, gzip_only=False, sign_in_form=True)
                        again.append(ms2)
                        again_runtime.append(wire2["runtime"])
                    else:
                        ms, wire = _visit(
                            s, ctx, BARE_PYODIDE, link, gzip_only=True, sign_in_form=False
                        )
                        bare.append(ms)
                        bare_mb.append(wire["all"] / 1e6)
            print(
                f"  first visit {name} rep {rep + 1}: app {app[-1]:.0f} ms "
                f"({app_mb[-1]:.1f} MB), bare {bare[-1]:.0f} ms ({bare_mb[-1]:.1f} MB), "
                f"repeat {again[-1]:.0f} ms ({again_runtime[-1]} runtime bytes)",
                flush=True,
            )
        out.figures.append(
            figure(
                f"8. First visit at {name}, sign-in form (app / bare Pyodide, gzip)",
                app,
                bare,
                unit="ms",
                goal="≤ 1.0",
                limit=1.0,
                note="fresh profile each run, DevTools network emulation; the bare page gets the "
                "same Pyodide files gzipped; navigation → ready flag",
            )
        )
        out.figures.append(
            figure(
                f"8. Bytes on the wire, first visit at {name} (app / bare Pyodide, gzip)",
                app_mb,
                bare_mb,
                unit="MB",
                goal="≤ 14 MB absolute",
                note="transferSize of the document and every resource (Resource Timing)",
            )
        )
        out.figures[-1]["met"] = statistics.median(app_mb) <= 14
        out.figures.append(
            figure(
                f"8. Repeat visit at {name} (repeat / first visit)",
                again,
                app,
                unit="ms",
                goal="≤ 0.3",
                limit=0.3,
                note="a new page in the first visit's profile (HTTP and code caches filled); "
                f"runtime bytes on the wire, median {statistics.median(again_runtime):.0f} "
                "(goal 0)",
            )
        )
        out.details[f"first_visit {name}"] = {
            "app_ms": app,
            "bare_ms": bare,
            "app_mb": app_mb,
            "bare_mb": bare_mb,
            "repeat_ms": again,
            "repeat_runtime_bytes": again_runtime,
        }

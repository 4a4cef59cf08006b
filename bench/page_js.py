"""JavaScript the benchmarks evaluate in pages (kept apart so the Python reads as steps)."""

import json

# The page's Pyodide API object. The bare page keeps it on window; the app exposes only
# `window.ana_ctx` (a PyProxy of its App), so reach `import pyodide_js` through that object's
# module globals. No app code changes for this; a debug hook would make it less roundabout.
PYODIDE = """() => {
  if (!window.__pyodide) {
    const g = window.ana_ctx.__class__.__init__.__globals__;
    window.__pyodide = g.get("__builtins__").get("__import__")("pyodide_js");
  }
  return window.__pyodide.version;
}"""

WASM_BYTES = "() => window.__pyodide._module.HEAP8.length"

VIEW_TEXT_LENGTH = (
    """(frame) => frame.querySelector('.cm-content').cmTile.root.view.state.doc.length"""
)

# The page's own editor module: its runtime URL is hashed (/vendor/<hash>/editor/editor.js),
# and a module imported at another URL would be another instance, with its own digest cache.
EDITOR_MODULE = """(() => {
  const link = document.querySelector('link[rel="modulepreload"][href$="/editor.js"]');
  const entry = performance.getEntriesByType("resource")
    .find((e) => /\\/vendor\\/[^/]+\\/editor\\/editor\\.js$/.test(e.name));
  return import((entry && entry.name) || link.href);
})()"""

# Per repetition: the mean of `calls` captures (ambient.capture.capture on the window's own
# store, exactly what the assistant awaits per send) and the mean of `calls` baseline digests
# (TextEncoder + crypto.subtle.digest over the same text, already a JS string) and of the
# editor module's own digest(view) (the JS part of a capture). Interleaved per repetition.
# The send comes after the typing settled (the editor hashed the document in idle time), as
# when a user stops typing and presses Send; `afterEdit` is a send right after an edit, whose
# digest is computed in the send (and must be the digest of that edited text).
CAPTURE = (
    """async ([reps, calls, expectBytes]) => {
  const py = window.__pyodide;
  const capture = py.pyimport("ambient.capture").capture;
  const store = window.ana_ctx.store;
  const editor = await """
    + EDITOR_MODULE
    + """;
  const view = document.querySelector('[data-frame-kind="inbox"] .cm-content').cmTile.root.view;
  const text = view.state.doc.toString();
  const enc = new TextEncoder();
  const settled = async () => {
    const t0 = performance.now();
    while (!editor.knownDigest(view)) {
      if (performance.now() - t0 > 10000) throw new Error("the editor never hashed the note");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await settled();
  const once = async () => {
    const r = await capture(store);
    const ok = r.outcome === "sent" && r.pointer.bytes === expectBytes;
    const outcome = r.outcome;
    r.destroy();
    if (!ok) throw new Error("capture did not send a pointer for the note: " + outcome);
  };
  const baseline = async () => {
    await crypto.subtle.digest("SHA-256", enc.encode(text));
  };
  const jsDigest = async () => { await editor.digest(view); };
  // Where a capture's time goes: its steps called one by one from JS.
  const mod = py.pyimport("ambient.capture");
  const runtime = store.resolve();
  const resolve = async () => { store.resolve().destroy(); };
  const flush = async () => { await mod.flush_all.callKwargs(store.runtimes(), { limit: 1.5 }); };
  const snapshot = async () => { (await runtime.snapshot()).destroy(); };
  const time = async (fn) => {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await fn();
    return (performance.now() - t0) / calls;
  };
  await once(); await baseline(); await jsDigest();  // warm-up
  const out = { capture: [], baseline: [], jsDigest: [] };
  for (let i = 0; i < reps; i++) {
    out.capture.push(await time(once));
    out.baseline.push(await time(baseline));
    out.jsDigest.push(await time(jsDigest));
  }
  out.steps = { resolve: await time(resolve), flushAll: await time(flush),
                snapshot: await time(snapshot) };
  // A send right after an edit (no idle time since): the digest is computed in the send, and
  // it is the edited text's. The edit is undone by a second one (same text, new document).
  // Both are applied as changes saved elsewhere (editor.remote): nothing to save, so the send
  // does no flush and the time is the hashing's.
  const afterEdit = [];
  for (let i = 0; i < calls; i++) {
    const at = view.state.doc.length;
    editor.remote(view, JSON.stringify([[at, at, "x"]]));
    const t0 = performance.now();
    const r = await capture(store);
    afterEdit.push(performance.now() - t0);
    const want = new Uint8Array(await crypto.subtle.digest("SHA-256",
      enc.encode(view.state.doc.toString())));
    const hex = Array.from(want.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    const ok = r.outcome === "sent" && r.pointer.sha256 === hex &&
      r.pointer.bytes === expectBytes + 1;
    r.destroy();
    editor.remote(view, JSON.stringify([[at, at + 1, ""]]));
    if (!ok) throw new Error("a send right after an edit did not carry that text's digest");
  }
  out.steps.afterEdit = afterEdit.reduce((a, b) => a + b, 0) / calls;
  runtime.destroy(); mod.destroy();
  return out;
}"""
)

# Input-to-paint: from the keydown's timestamp to the task after the next animation frame
# (i.e. after that frame's paint).
LATENCY_PROBE = """() => {
  window.__lat = [];
  if (window.__latProbe) return;
  window.__latProbe = true;
  document.addEventListener("keydown", (e) => {
    const t0 = e.timeStamp;
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => window.__lat.push(performance.now() - t0);
      ch.port2.postMessage(null);
    });
  }, true);
}"""

# Count entries into Python from JavaScript: a profile hook sees every Python frame; a frame
# starting at depth 0 is an entry (an event handler, a proxy call, a resumed coroutine).
PY_COUNTER = """
import sys, collections, js
class _BenchCounter:
    def __init__(self):
        self.depth = 0
        self.entries = collections.Counter()
    def __call__(self, frame, event, arg):
        if event == "call":
            if self.depth == 0:
                # KEY_FLAG says whether a keystroke's work (its key and input events and the
                # editor's mutation-observer update) is under way.
                cause = "key" if js.window.benchInKey else "other"
                self.entries[cause + ": " + frame.f_code.co_qualname] += 1
            self.depth += 1
        elif event == "return":
            self.depth = max(0, self.depth - 1)
    def take(self):
        out = dict(self.entries)
        self.entries.clear()
        return out
_bench_counter = _BenchCounter()
sys.setprofile(_bench_counter)
"""
COUNTER_START = "() => { window.__pyodide.runPython(" + json.dumps(PY_COUNTER) + "); }"
COUNTER_TAKE = """() => JSON.parse(window.__pyodide.runPython(
  "import json; json.dumps(_bench_counter.take())"))"""
COUNTER_STOP = """() => window.__pyodide.runPython("import sys; sys.setprofile(None)")"""

# Marks the span of one keystroke's synchronous work: from keydown (capture, first) to after
# the input event and the microtasks it queued (CodeMirror's mutation-observer update, where
# onDirty runs); keyup clears it as a fallback.
KEY_FLAG = """() => {
  window.benchInKey = false;
  if (window.__keyFlag) return;
  window.__keyFlag = true;
  window.addEventListener("keydown", () => { window.benchInKey = true; }, true);
  const clear = () => queueMicrotask(() => queueMicrotask(() => { window.benchInKey = false; }));
  document.addEventListener("input", clear);
  document.addEventListener("keyup", () => { window.benchInKey = false; });
}"""

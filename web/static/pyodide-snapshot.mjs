// PyScript's "interpreter" (web/static/pyscript.json): Pyodide's own loadPyodide, booted from
// the memory snapshot web/snapshot.mjs builds (Python initialised, the page's standard-library
// modules and markdown-it already imported). Every window, pop-outs included, loads this one
// module; the server rewrites the runtime URLs below to their hashed, immutable form
// (backend/delivery/assets.py), so a pop-out finds every file in the HTTP cache. index.html preloads
// each large file, so all downloads start at once, before PyScript's modules arrive. The
// snapshot arrives masked with the wasm's static data and is unmasked in place right after the
// wasm is instantiated, before Pyodide restores it (./snapshot-mask.mjs says why and how).
import { loadPyodide as load, version } from "/vendor/pyodide/pyodide.mjs";
import { unmaskingModule } from "./snapshot-mask.mjs";

export { version };

const SNAPSHOT = "/vendor/snapshot/pyodide.snapshot";
const INDEX_URL = "/vendor/pyodide/";
const FACTORY = "/vendor/pyodide/pyodide.asm.mjs"; // Emscripten's module factory (preloaded)

const status = (text) => {
  const el = document.getElementById("boot-status");
  if (el) el.textContent = text;
};

// The boot screen's download progress: bytes of the runtime received so far (the snapshot as
// it streams in, every other runtime file once complete) out of what the server says a first
// visit fetches (data-runtime-bytes, counted before compression, as these counters are).
function progress() {
  const bar = document.getElementById("boot-progress");
  const label = document.getElementById("boot-bytes");
  const total = Number(bar && bar.dataset.runtimeBytes);
  let streamed = 0;
  const finished = new Map();
  const mb = (bytes) => (bytes / 1e6).toFixed(1);
  const show = () => {
    if (!bar || !total) return;
    let received = streamed;
    for (const size of finished.values()) received += size;
    bar.max = total;
    bar.value = Math.min(received, total);
    if (label) label.textContent = `${mb(Math.min(received, total))} of ${mb(total)} MB`;
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const path = new URL(entry.name).pathname;
      if (/^\/(vendor|py)\//.test(path) && path !== SNAPSHOT) {
        finished.set(path, entry.decodedBodySize);
      }
    }
    show();
  });
  observer.observe({ type: "resource", buffered: true });
  return {
    add(bytes) { streamed += bytes; show(); },
    stop() { observer.disconnect(); },
  };
}

// The snapshot's bytes, streamed into one buffer. When the server said its size
// (data-snapshot-bytes), the buffer exists at once: Pyodide takes it before it is filled and
// instantiates the wasm meanwhile (`filled` settles when the last byte is in); otherwise both
// are the promise of the bytes.
function download(url, meter) {
  const size = Number(document.getElementById("boot-progress")?.dataset.snapshotBytes);
  const buffer = size > 0 ? new Uint8Array(size) : null;
  const filled = (async () => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const chunks = [];
    let offset = 0;
    for (const reader = response.body.getReader(); ;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (buffer && offset + value.length > size) throw new Error(`${url} is over ${size} bytes`);
      if (buffer) buffer.set(value, offset);
      else chunks.push(value);
      offset += value.length;
      meter.add(value.length);
    }
    if (buffer) {
      if (offset !== size) throw new Error(`${url} ended at ${offset} of ${size} bytes`);
      return buffer;
    }
    const bytes = new Uint8Array(offset);
    offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  })();
  return { buffer: buffer ? Promise.resolve(buffer) : filled, filled };
}

export async function loadPyodide(options = {}) {
  // A signed-in main window shows its note list and last note first (workspace-early.js).
  await window.anaRuntimeGate;
  status("Downloading Python…");
  const meter = progress();
  const snapshot = download(SNAPSHOT, meter);
  snapshot.filled.then(() => status("Starting Python…"), () => {});
  try {
    const factory = (await import(FACTORY)).default;
    // PyScript passes an indexURL next to this module; the runtime lives elsewhere. The wasm
    // is instantiated as soon as Pyodide has the buffer; it is unmasked (and then restored)
    // once filled.
    const pyodide = await load({
      ...options, indexURL: INDEX_URL, _loadSnapshot: snapshot.buffer,
      createPyodideModule: unmaskingModule(factory, snapshot.filled),
    });
    // The snapshot froze `random`'s seed from the build: give each window its own again.
    pyodide.runPython("import random; random.seed()");
    status("Loading the app…");
    return pyodide;
  } finally {
    meter.stop();
  }
}

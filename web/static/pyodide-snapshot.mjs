// PyScript's "interpreter" (web/static/pyscript.json): Pyodide's own loadPyodide, booted from
// the memory snapshot web/snapshot.mjs builds (Python initialised, the page's standard-library
// modules and markdown-it already imported). Every window, pop-outs included, loads this one
// module; the server rewrites the runtime URLs below to their hashed, immutable form
// (backend/delivery/assets.py), so a pop-out finds every file in the HTTP cache. index.html preloads
// each large file, so all downloads start at once, before PyScript's modules arrive. The
// snapshot arrives masked with the wasm's static data and is unmasked in place right after the
// wasm is instantiated, before Pyodide restores it (./snapshot-mask.mjs says why and how).
// The page's Python (/py/app.zip) is written into Python's working directory here too, before
// PyScript runs any of it; so is the workspace's (/py/workspace.zip) in a window that shows a
// workspace at once, while a sign-in page writes it once the person starts signing in.
import { loadPyodide as load, version } from "/vendor/pyodide/pyodide.mjs";
import { unzipSync } from "/vendor/unzip.mjs";
import { unmaskingModule } from "./snapshot-mask.mjs";

export { version };

const SNAPSHOT = "/vendor/snapshot/pyodide.snapshot";
const INDEX_URL = "/vendor/pyodide/";
const FACTORY = "/vendor/pyodide/pyodide.asm.mjs"; // Emscripten's module factory (preloaded)
const BUNDLE = "/py/app.zip"; // the page's Python (backend/delivery/runtime.python_bundle)
const WORKSPACE = "/py/workspace.zip"; // the workspace's modules (runtime.split_bundle)
// The standard library's modules no window imports at start (web/stdlib_rest.py).
const STDLIB_REST = "/vendor/pyodide/python_stdlib_rest.zip";

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

// How long the snapshot's copy loop runs before it lets the page handle input, timed on the
// device itself: when the bytes come faster than they are copied (a fast link, the HTTP
// cache), one read resolves the next at once and 31 MB were one long task.
const SLICE_MS = 8;
const yieldToPage = () =>
  globalThis.scheduler?.yield?.() ?? new Promise((resolve) => setTimeout(resolve));

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
    let slice = performance.now();
    for (const reader = response.body.getReader(); ;) {
      if (performance.now() - slice > SLICE_MS) {
        await yieldToPage();
        slice = performance.now();
      }
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

// Run once a bundle is written. The directory finders forget what they listed before
// (importlib.invalidate_caches would also re-read the standard library's zip, a cost on every
// boot).
const FORGET_LISTINGS = `
import sys
from importlib.machinery import FileFinder
for finder in sys.path_importer_cache.values():
    if isinstance(finder, FileFinder):
        finder.invalidate_caches()
`;
// Once Python is up: the snapshot froze `random`'s seed from the build; each window gets its own.
const REFRESH = `${FORGET_LISTINGS}
import random
random.seed()
`;

// Called by the snapshot's on-demand finder (web/stdlib_rest.py) inside an import, which
// cannot wait for a promise: a synchronous request, once per window, and only when Python
// imports a module of the rest (the e2e suite checks the app's own use never does). A
// synchronous request cannot ask for an ArrayBuffer, so the bytes come as a text of one
// byte per character. Each module that needed it is listed for tests and debugging.
globalThis.anaStdlibOnDemand = [];
globalThis.anaStdlibRest = (name) => {
  globalThis.anaStdlibOnDemand.push(name);
  console.info(`Python imports ${name}: fetching the rest of the standard library`);
  const request = new XMLHttpRequest();
  request.open("GET", STDLIB_REST, false);
  request.overrideMimeType("text/plain; charset=x-user-defined");
  request.send();
  if (request.status !== 200) throw new Error(`${STDLIB_REST} answered ${request.status}`);
  const text = request.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
};

async function fetchBundle(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// The bundle's members written into the interpreter's working directory, where its imports
// look. Pyodide's unpackArchive does the same in Python (shutil over zipfile), which was 0.1 to
// 0.4 s of every boot; reading the stored zip here and writing through Emscripten's file
// system is a few milliseconds. The members come from our own server; a name that would land
// outside the directory is refused anyway.
function writeBundle(FS, bytes, url) {
  const made = new Set();
  for (const [name, data] of Object.entries(unzipSync(bytes))) {
    if (name.startsWith("/") || name.split("/").includes("..")) {
      throw new Error(`${url} holds ${JSON.stringify(name)}, outside the app's directory`);
    }
    if (name.endsWith("/")) continue; // a directory entry: its files make it
    const dir = name.slice(0, name.lastIndexOf("/"));
    if (dir && !made.has(dir)) {
      FS.mkdirTree(dir);
      made.add(dir);
    }
    FS.writeFile(name, data);
  }
}

// The workspace's modules, written once per window; app/startup.py awaits this before it
// imports them. A failed fetch (offline) is tried again on the next call.
let workspaceWritten = null;
function workspaceBundle(pyodide, fetched) {
  workspaceWritten ??= (fetched || fetchBundle(WORKSPACE)).then(
    (bytes) => {
      writeBundle(pyodide.FS, bytes, WORKSPACE);
      pyodide.runPython(FORGET_LISTINGS);
    },
    (error) => {
      workspaceWritten = null;
      throw error;
    },
  );
  return workspaceWritten;
}

export async function loadPyodide(options = {}) {
  // A signed-in main window shows its note list and last note first (workspace-early.js).
  await window.anaRuntimeGate;
  status("Downloading Python…");
  const meter = progress();
  const snapshot = download(SNAPSHOT, meter);
  const bundle = fetchBundle(BUNDLE);
  bundle.catch(() => {}); // awaited below, once Python is up: a failure is reported there
  // Without the plain sign-in form (signed in, or a pop-out) the workspace shows at once.
  const workspace = document.getElementById("early-signin") ? null : fetchBundle(WORKSPACE);
  workspace?.catch(() => {}); // as the bundle's
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
    writeBundle(pyodide.FS, await bundle, BUNDLE);
    window.anaWorkspaceBundle = () => workspaceBundle(pyodide, workspace);
    if (workspace) await window.anaWorkspaceBundle();
    pyodide.runPython(REFRESH);
    status("Loading the app…");
    return pyodide;
  } finally {
    meter.stop();
  }
}

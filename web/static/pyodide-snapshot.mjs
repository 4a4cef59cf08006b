// PyScript's "interpreter" (web/static/pyscript.json): Pyodide's own loadPyodide, booted from
// the memory snapshot web/snapshot.mjs builds (Python initialised, the page's standard-library
// modules and markdown-it already imported). Every window, pop-outs included, loads this one
// URL; index.html preloads it so the download starts before PyScript's modules arrive.
import { loadPyodide as load, version } from "/vendor/pyodide/pyodide.mjs";

export { version };

const SNAPSHOT = "/vendor/snapshot/pyodide.snapshot";

const status = (text) => {
  const el = document.getElementById("boot-status");
  if (el) el.textContent = text;
};

export async function loadPyodide(options = {}) {
  status("Downloading Python…");
  const snapshot = fetch(SNAPSHOT).then((response) => {
    if (!response.ok) throw new Error(`${SNAPSHOT} answered ${response.status}`);
    return response.arrayBuffer();
  });
  snapshot.then(() => status("Starting Python…"), () => {});
  // PyScript passes an indexURL next to this module; the runtime lives in /vendor/pyodide/.
  const pyodide = await load({ ...options, indexURL: "/vendor/pyodide/", _loadSnapshot: snapshot });
  // The snapshot froze `random`'s seed from the build: give each window its own again.
  pyodide.runPython("import random; random.seed()");
  status("Loading the app…");
  return pyodide;
}

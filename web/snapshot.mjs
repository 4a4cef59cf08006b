// Builds the Pyodide memory snapshot every window boots from (web/vendor/snapshot/), after the
// vendored runtime is in place: Python already initialised, with the standard-library modules
// the page uses and markdown-it imported, so a window skips that work. Only modules that need
// no browser object at import time go in (the snapshot is made in Node). A manifest records
// the hash of every input; backend/web.py refuses to start when one no longer matches, so a
// stale snapshot fails loudly and is never loaded.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const pyodideDir = join(web, "vendor", "pyodide");
const out = join(web, "vendor", "snapshot");
// Keep in step with backend/web.py (SNAPSHOT_RUNTIME): the files the snapshot must match.
const RUNTIME = ["pyodide.asm.mjs", "pyodide.asm.wasm", "pyodide.mjs", "python_stdlib.zip",
  "pyodide-lock.json"];
const PACKAGES = ["markdown_it", "mdurl"]; // unpacked where /py/app.zip puts them too
// Standard-library modules the page (and PyScript's own bootstrap) imports at start; none
// touches `js` when imported. Adding one here only moves its import into the build. `random`
// comes in through `secrets`; the loader reseeds it, so windows never share its state.
const MODULES = [
  "asyncio", "base64", "binascii", "collections.abc", "contextlib", "dataclasses", "datetime",
  "email.utils", "functools", "hashlib", "html", "inspect", "itertools", "json", "posixpath",
  "re", "secrets", "string", "textwrap", "time", "traceback", "typing", "unicodedata",
  "urllib.parse", "uuid", "weakref", "ast", "codeop", "concurrent.futures", "contextvars",
  "copy", "dis", "fnmatch", "glob", "html.entities", "ipaddress", "logging", "pathlib",
  "selectors", "shutil", "tempfile", "threading", "tokenize", "zipfile",
  "markdown_it", "markdown_it.token", "markdown_it.common.utils", "mdurl",
];

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
const python = process.env.ANA_PYTHON || join(root, ".venv", "bin", "python");

function packageFiles(name) {
  const where = execFileSync(python, ["-c",
    `import importlib.util as u; print(next(iter(u.find_spec("${name}").submodule_search_locations)))`,
  ]).toString().trim();
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (entry === "__pycache__") continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(py|typed)$/.test(entry)) files.push([`${name}/${relative(where, path)}`, path]);
    }
  };
  walk(where);
  return files;
}

const { loadPyodide } = await import(join(pyodideDir, "pyodide.mjs"));
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/", _makeSnapshot: true });
const inputs = { runtime: {}, python: {} };
for (const name of RUNTIME) inputs.runtime[name] = sha(readFileSync(join(pyodideDir, name)));
for (const pkg of PACKAGES) {
  for (const [name, path] of packageFiles(pkg)) {
    const bytes = readFileSync(path);
    inputs.python[name] = sha(bytes);
    const target = `/home/pyodide/${name}`;
    pyodide.FS.mkdirTree(dirname(target));
    pyodide.FS.writeFile(target, bytes);
  }
}
pyodide.runPython(`
import importlib, sys
for name in ${JSON.stringify(MODULES)}:
    importlib.import_module(name)
from markdown_it import MarkdownIt
MarkdownIt("commonmark")  # its rule tables, built once here
bad = sorted(m for m in sys.modules if m.startswith(("pyodide.http", "pyscript", "app")))
assert not bad, f"browser-bound modules in the snapshot: {bad}"
`);
const snapshot = pyodide.makeMemorySnapshot();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const file = "pyodide.snapshot"; // one URL for every window, so a pop-out finds it cached
writeFileSync(join(out, file), snapshot);
writeFileSync(join(out, "manifest.json"), JSON.stringify(
  { file, sha256: sha(snapshot), modules: MODULES, inputs }, null, 1) + "\n");
console.log(`web/vendor/snapshot: ${file} (${(snapshot.length / 2 ** 20).toFixed(1)} MiB)`);

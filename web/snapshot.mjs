// Builds the Pyodide memory snapshot every window boots from (web/vendor/snapshot/), after the
// vendored runtime is in place: Python already initialised, with the standard-library modules
// the page uses and markdown-it imported, so a window skips that work. Only modules that need
// no browser object at import time go in (the snapshot is made in Node). A manifest records
// the hash of every input; backend/delivery/web.py refuses to start when one no longer matches, so a
// stale snapshot fails loudly and is never loaded.
//
// Two things keep the snapshot and the standard library small on the wire: the modules the
// snapshot holds imported get a stub instead of their source in the python_stdlib.zip served
// beside it (backend/runtime.stub_zip; the full zip stays in vendor/bench/ for the bare
// Pyodide baseline of the benchmarks, which has no snapshot), every other module no window
// imports at start moves to python_stdlib_rest.zip, fetched only if Python imports one
// (web/stdlib_rest.py, installed here), and the allocator's free memory is zeroed before the
// snapshot is taken (web/zero-free-memory.mjs).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { zeroFreeMemory } from "./zero-free-memory.mjs";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const pyodideDir = join(web, "vendor", "pyodide");
const out = join(web, "vendor", "snapshot");
const stdlib = join(pyodideDir, "python_stdlib.zip");
// The full standard library, for the bench's bare Pyodide page only (left out of the wheel).
const fullStdlib = join(web, "vendor", "bench", "python_stdlib.zip");
// Every other module, fetched on demand (its URL: web/static/pyodide-snapshot.mjs).
const stdlibRest = join(pyodideDir, "python_stdlib_rest.zip");
// web/runtime.json: the runtime files the snapshot must match, and the packages it imports
// (written where /py/app.zip puts them too). backend/snapshot.py checks the same inputs.
const runtime = JSON.parse(readFileSync(join(web, "runtime.json"), "utf8"));
const RUNTIME = runtime.pyodide;
const PACKAGES = runtime.snapshot_packages;
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
  "_strptime", "difflib", // what datetime.strptime and a live merge import on first use
  "markdown_it", "markdown_it.token", "markdown_it.common.utils", "mdurl",
  // importlib.invalidate_caches() imports it; the build calls that after the zip is rewritten
  "importlib.metadata",
];

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
const python = process.env.ANA_PYTHON || join(root, ".venv", "bin", "python");
// Which files of a package ship is decided once, in Python (backend/delivery/runtime.py).
const packageFiles = JSON.parse(execFileSync(python,
  ["-m", "backend.delivery.runtime", "package-files", ...PACKAGES], { cwd: root }).toString());

if (readFileSync(stdlib).includes("# ana-stub")) { // backend/delivery/runtime.STUB_MARK
  throw new Error(`${stdlib} already holds stubs: rebuild from node web/build.mjs`);
}
mkdirSync(dirname(fullStdlib), { recursive: true });
copyFileSync(stdlib, fullStdlib);

const { loadPyodide } = await import(join(pyodideDir, "pyodide.mjs"));
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/", _makeSnapshot: true });
const inputs = { runtime: {}, python: {} };
for (const [name, path] of Object.entries(packageFiles)) {
  const bytes = readFileSync(path);
  inputs.python[name] = sha(bytes);
  const target = `/home/pyodide/${name}`;
  pyodide.FS.mkdirTree(dirname(target));
  pyodide.FS.writeFile(target, bytes);
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
// The bundle's sources now imported: the server leaves them out of the bundle
// (backend/delivery/runtime.without_held), as restoring the snapshot restores them.
const held = JSON.parse(pyodide.runPython(`
import json, sys
specs = [getattr(module, "__spec__", None) for module in list(sys.modules.values())]
json.dumps(sorted({
    spec.origin.removeprefix("/home/pyodide/") for spec in specs
    if spec is not None and spec.origin and spec.origin.startswith("/home/pyodide/")
}))
`));

// The standard-library modules now imported are never read from the zip again in the page:
// their members become stubs, and zipimport's table of contents (offsets included, held in
// the snapshot) is re-read from the rewritten zip, which is the one served.
const zipPath = pyodide.runPython(`
import sys
f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"
`);
const imported = JSON.parse(pyodide.runPython(`
import json, sys, zipimport
prefix = ${JSON.stringify(zipPath)} + "/"
specs = [getattr(module, "__spec__", None) for module in list(sys.modules.values())]
json.dumps(sorted({
    spec.origin.removeprefix(prefix) for spec in specs
    if spec is not None and isinstance(spec.loader, zipimport.zipimporter)
    and spec.origin and spec.origin.startswith(prefix)
}))
`));
execFileSync(python, ["-m", "backend.delivery.runtime", "stub-zip", stdlib, ...imported], { cwd: root });
// What no window imports at start leaves the zip for python_stdlib_rest.zip, fetched on demand
// by a finder installed here, last on sys.meta_path (web/stdlib_rest.py says how).
const moved = JSON.parse(execFileSync(python, ["-m", "backend.delivery.runtime", "split-zip",
  stdlib, stdlibRest, ...runtime.stdlib_after_snapshot], { cwd: root }).toString());
pyodide.FS.writeFile(zipPath, readFileSync(stdlib));
pyodide.runPython(`
import importlib, sys, zipimport
importlib.invalidate_caches()  # zipimport forgets the old zip's table of contents
sys.path_importer_cache[${JSON.stringify(zipPath)}].find_spec("_")  # and reads the new one
assert zipimport._zip_directory_cache[${JSON.stringify(zipPath)}] == \
    zipimport._read_directory(${JSON.stringify(zipPath)}), "zipimport kept the old zip's table"
`);
pyodide.runPython(`
import importlib.util, sys
spec = importlib.util.spec_from_loader("_ana_stdlib_rest", loader=None)
module = importlib.util.module_from_spec(spec)
exec(compile(${JSON.stringify(readFileSync(join(web, "stdlib_rest.py"), "utf8"))},
             "web/stdlib_rest.py", "exec"), module.__dict__)
sys.modules[spec.name] = module

def _fetch_rest(name):  # the page's synchronous fetch (web/static/pyodide-snapshot.mjs)
    import js
    return js.anaStdlibRest(name).to_bytes()

sys.meta_path.append(module.RestFinder(${JSON.stringify(moved)},
                                       "/lib/python_stdlib_rest.zip", _fetch_rest))
del spec, module
import gc
gc.collect()
`);
// What -OO would have left out: the docstrings of all that is imported (web/strip_docstrings.py).
const docstrings = pyodide.runPython(`
namespace = {"__name__": "_ana_strip_docstrings"}
exec(compile(${JSON.stringify(readFileSync(join(web, "strip_docstrings.py"), "utf8"))},
             "web/strip_docstrings.py", "exec"), namespace)
dropped = namespace["strip_docstrings"]()
del namespace
dropped
`);
const zeroed = zeroFreeMemory(pyodide._module);
for (const name of [...RUNTIME, basename(stdlibRest)]) {
  inputs.runtime[name] = sha(readFileSync(join(pyodideDir, name)));
}
const snapshot = pyodide.makeMemorySnapshot();
// The build goes on using this interpreter (the bytecode below); an import of the rest now
// reads it from disk. Before the snapshot none may: the finder must be saved unfetched.
globalThis.anaStdlibRest = () => new Uint8Array(readFileSync(stdlibRest));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const file = "pyodide.snapshot"; // one URL for every window, so a pop-out finds it cached
writeFileSync(join(out, file), snapshot);
writeFileSync(join(out, "manifest.json"), JSON.stringify(
  { file, sha256: sha(snapshot), modules: MODULES, held, inputs }, null, 1) + "\n");
console.log(`web/vendor/snapshot: ${file} (${(snapshot.length / 2 ** 20).toFixed(1)} MiB; ` +
  `${imported.length} stdlib members stubbed, ${moved.length} on demand, ${held.length} bundle ` +
  `sources held, ${(docstrings / 1e6).toFixed(2)} MB of docstrings dropped; free memory zeroed: ` +
  `${(zeroed.zeroed / 1e6).toFixed(1)} MB in chunks, ${(zeroed.aboveBreak / 1e6).toFixed(1)} MB above the break)`);

// The page's Python as bytecode, compiled by this interpreter (the page's CPython version, not
// the server's): every module of the bundle the server builds, but the packages the snapshot
// already imported. One checked hash-based .pyc per source, named by the source's SHA-256;
// the server adds to the bundle those whose source still matches (backend/delivery/runtime.py).
execFileSync(python, ["-m", "backend.delivery.runtime", "bundle", join(out, "bundle.tmp")], { cwd: root });
pyodide.FS.writeFile("/tmp/bundle.zip", readFileSync(join(out, "bundle.tmp")));
rmSync(join(out, "bundle.tmp"));
const compiled = pyodide.runPython(`
import hashlib, importlib.util, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
skip = tuple(name + "/" for name in ${JSON.stringify(PACKAGES)})
count = 0
with zipfile.ZipFile("/tmp/bundle.zip") as bundle, \
        zipfile.ZipFile("/tmp/bytecode.zip", "w", zipfile.ZIP_STORED) as out:
    out.writestr("cache_tag", sys.implementation.cache_tag)
    for name in bundle.namelist():
        if not name.endswith(".py") or name.startswith(skip):
            continue
        source = bundle.read(name)
        code = compile(source, "/home/pyodide/" + name, "exec", dont_inherit=True)
        pyc = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=True)
        out.writestr(hashlib.sha256(source).hexdigest(), bytes(pyc))
        count += 1
count
`);
writeFileSync(join(web, "vendor", "bytecode.zip"), pyodide.FS.readFile("/tmp/bytecode.zip"));
console.log(`web/vendor/bytecode.zip: ${compiled} modules compiled`);

// PyScript's own Python package (`pyscript`), as bytecode. On every boot PyScript writes the
// package's sources into the interpreter's working directory and imports it, compiling ~32 KB
// of Python from source in every window. This compiles the same sources once, here, with the
// page's interpreter (Pyodide's CPython), into web/vendor/pyscript-bytecode.zip: one checked
// hash-based .pyc per module, named where the import system looks for it
// (`pyscript/__pycache__/<module>.<tag>.pyc`). The server adds these members to the Python
// bundle, which the page's loader writes into the same directory before PyScript writes the
// sources (backend/runtime.with_members). A checked .pyc carries its source's hash, so one
// that no longer matches what PyScript writes is ignored and the module compiles from source
// as before.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const vendor = join(web, "vendor");
export const OUTPUT = "pyscript-bytecode.zip"; // listed in web/runtime.json's not_served

// The sources PyScript writes: its build artifact, a plain module of {folder: {file: text}}.
const { default: tree } = await import(
  join(root, "node_modules/@pyscript/core/src/stdlib/pyscript.js"));
// Only what the served PyScript really writes: each text must appear, as the JSON string it
// embeds, in the vendored core chunk (web/build.mjs copies it).
const core = readdirSync(join(vendor, "pyscript")).filter((n) => /^core-[\w-]{8}\.js$/.test(n));
if (core.length !== 1) throw new Error(`vendor/pyscript: expected one core chunk, found [${core}]`);
const served = readFileSync(join(vendor, "pyscript", core[0]), "utf8");
const sources = {};
const walk = (folder, node) => {
  for (const [name, value] of Object.entries(node)) {
    const path = `${folder}/${name}`;
    if (typeof value !== "string") walk(path, value);
    else if (name.endsWith(".py") && served.includes(JSON.stringify(value))) {
      sources[path.slice(1)] = value;
    }
  }
};
walk("", tree);
if (!sources["pyscript/__init__.py"]) {
  throw new Error("@pyscript/core: its stdlib artifact no longer matches the served core chunk");
}

const { loadPyodide } = await import(join(vendor, "pyodide", "pyodide.mjs"));
// The npm package's own standard library, in full: the served one holds stubs for the modules
// the snapshot already imported (web/snapshot.mjs), and this interpreter starts without it.
const pyodide = await loadPyodide({
  indexURL: join(vendor, "pyodide") + "/",
  stdLibURL: join(root, "node_modules/pyodide/python_stdlib.zip"),
});
pyodide.globals.set("sources", pyodide.toPy(sources));
const count = pyodide.runPython(`
import importlib.util, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
with zipfile.ZipFile("/tmp/out.zip", "w", zipfile.ZIP_STORED) as out:
    for path, text in sorted(sources.items()):
        source = text.encode()  # PyScript writes each with write_text(encoding="utf-8")
        code = compile(source, "/home/pyodide/" + path, "exec", dont_inherit=True)
        pyc = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=True)
        folder, _, name = path.rpartition("/")
        info = zipfile.ZipInfo(f"{folder}/__pycache__/{name[:-3]}.{sys.implementation.cache_tag}.pyc")
        info.date_time = (2020, 1, 1, 0, 0, 0)
        out.writestr(info, bytes(pyc))
len(sources)
`);
writeFileSync(join(vendor, OUTPUT), pyodide.FS.readFile("/tmp/out.zip"));
console.log(`web/vendor/${OUTPUT}: ${count} PyScript modules compiled`);

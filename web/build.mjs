// Copies the browser runtime out of node_modules into web/vendor (served, git-ignored),
// bundles the CodeMirror module and a zip reader, makes the Pyodide memory snapshot, then
// compresses every served file once (web/compress.mjs). Nothing here fetches from the network.
// What is copied is listed once, in web/runtime.json, which web/snapshot.mjs and the server
// read too.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const vendor = join(web, "vendor");
const runtime = JSON.parse(readFileSync(join(web, "runtime.json"), "utf8"));
const python = process.env.ANA_PYTHON || join(root, ".venv", "bin", "python");
rmSync(vendor, { recursive: true, force: true });
mkdirSync(join(vendor, "pyodide"), { recursive: true });

// Only what loadPyodide needs; the npm package carries no wheels, so nothing else is useful.
for (const name of runtime.pyodide) {
  cpSync(join(root, "node_modules/pyodide", name), join(vendor, "pyodide", name));
}
// The standard library zip, stored instead of deflated, so Brotli compresses it as a whole
// (backend/delivery/runtime.py says why); done before the snapshot, which records its hash.
execFileSync(python, ["-m", "backend.delivery.runtime", "store-zip",
  ...runtime.stored_zips.map((name) => join(vendor, name))], { cwd: root, stdio: "inherit" });
// PyScript: only the modules the page loads. core.js starts from its core chunk and imports the
// plugins below as soon as it boots (the others are turned off in static/pyscript.json, which
// the server copies into index.html's <mpy-config>: one config per script type); everything
// else in dist (the py-editor's CodeMirror, the terminal's xterm, TOML configs, MicroPython)
// is loaded only by features this page does not use. Static imports of what is kept are
// followed, so a kept module never misses a dependency; a plugin that no longer matches one
// file fails the build.
const pyscriptDist = join(root, "node_modules/@pyscript/core/dist");
const PLUGINS = runtime.pyscript_plugins;
const distFiles = readdirSync(pyscriptDist);
const wanted = ["core.js"];
for (const plugin of PLUGINS) {
  const found = distFiles.filter((name) => new RegExp(`^${plugin}-[\\w-]{8}\\.js$`).test(name));
  if (found.length !== 1) {
    throw new Error(`@pyscript/core: expected one ${plugin} chunk, found [${found}]`);
  }
  wanted.push(found[0]);
}
const kept = new Set();
while (wanted.length) {
  const name = wanted.pop();
  if (kept.has(name)) continue;
  kept.add(name);
  const source = readFileSync(join(pyscriptDist, name), "utf8");
  const imports = source.matchAll(/\b(?:from|import)\s*"\.\/([^"]+)"/g);
  for (const [, imported] of imports) wanted.push(imported);
}
mkdirSync(join(vendor, "pyscript"));
for (const name of kept) cpSync(join(pyscriptDist, name), join(vendor, "pyscript", name));

// The page's bundles: the editor (web/editor/: a small module Python imports, and CodeMirror's
// part, which it imports on demand, split so that a sign-in page never downloads CodeMirror),
// and fflate's zip reader for the interpreter loader (web/static/pyodide-snapshot.mjs).
const bundled = { bundle: true, format: "esm", minify: true, target: "es2022", logLevel: "warning" };
const editor = await build({
  ...bundled,
  entryPoints: ["editor", "view"].map((name) => join(web, "editor", `${name}.js`)),
  splitting: true,
  outdir: join(vendor, "editor"),
  metafile: true,
});
// Python calls the facade's names; each name view.js exports must be bound there by load().
const exportsOf = (name) =>
  Object.values(editor.metafile.outputs).find((out) => (out.entryPoint || "").endsWith(`editor/${name}.js`))
    .exports;
const unbound = exportsOf("view").filter((name) => !exportsOf("editor").includes(name));
if (unbound.length) throw new Error(`web/editor/editor.js does not bind view.js's ${unbound}`);
await build({ ...bundled, entryPoints: [join(web, "unzip.mjs")], outfile: join(vendor, "unzip.mjs") });
console.log(`web/vendor ready: ${readdirSync(vendor).join(", ")} (pyscript: ${kept.size} modules)`);
await import("./snapshot.mjs"); // the Pyodide memory snapshot, made from the runtime just copied
await (await import("./snapshot_mask.mjs")).mask(); // served XORed with the wasm's static data
await import("./pyscript_bytecode.mjs"); // PyScript's own Python package, compiled
const { compressTree } = await import("./compress.mjs");
await compressTree(vendor, runtime, join(root, ".cache", "precompressed"));

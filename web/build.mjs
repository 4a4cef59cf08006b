// Copies the browser runtime out of node_modules into web/vendor (served, git-ignored) and
// bundles the one CodeMirror module. Nothing here fetches from the network.
import { build } from "esbuild";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const vendor = join(web, "vendor");
rmSync(vendor, { recursive: true, force: true });
mkdirSync(join(vendor, "pyodide"), { recursive: true });

// Only what loadPyodide needs; the npm package carries no wheels, so nothing else is useful.
for (const name of ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
  cpSync(join(root, "node_modules/pyodide", name), join(vendor, "pyodide", name));
}
// PyScript: only the modules the page loads. core.js starts from its core chunk and imports the
// plugins below as soon as it boots (seen in Chromium's request list); everything else in dist
// (the py-editor's CodeMirror, the terminal's xterm, TOML configs, MicroPython) is loaded only
// by features this page does not use. Static imports of what is kept are followed, so a kept
// module never misses a dependency; a plugin that no longer matches one file fails the build.
const pyscriptDist = join(root, "node_modules/@pyscript/core/dist");
const PLUGINS = ["deprecations-manager", "donkey", "error", "py-editor", "py-game", "py-terminal"];
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

await build({
  entryPoints: [join(web, "editor.js")],
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2022",
  outfile: join(vendor, "editor.js"),
  logLevel: "warning",
});
console.log(`web/vendor ready: ${readdirSync(vendor).join(", ")} (pyscript: ${kept.size} modules)`);
await import("./snapshot.mjs"); // the Pyodide memory snapshot, made from the runtime just copied

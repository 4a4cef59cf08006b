// Copies the browser runtime out of node_modules into web/vendor (served, git-ignored) and
// bundles the one CodeMirror module. Nothing here fetches from the network.
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync, readdirSync } from "node:fs";
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
const pyscriptDist = join(root, "node_modules/@pyscript/core/dist");
cpSync(pyscriptDist, join(vendor, "pyscript"), {
  recursive: true,
  filter: (src) => !src.endsWith(".map"),
});

await build({
  entryPoints: [join(web, "editor.js")],
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2022",
  outfile: join(vendor, "editor.js"),
  logLevel: "warning",
});
console.log(`web/vendor ready: ${readdirSync(vendor).join(", ")}`);

// Runs the pure core's unit tests inside the real Pyodide (the interpreter the page uses), in
// Node, offline:
//   node --experimental-wasm-stack-switching tests/pyodide/run.mjs [pytest args]
// The repository is mounted from the host and nothing is written to it (no bytecode, no cache);
// pytest and the other pure-Python test libraries come from the project's venv, because
// Pyodide cannot download anything here. Exits non-zero when a test fails.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const venvLib = join(root, ".venv", "lib");
const sitePackages = existsSync(venvLib)
  ? readdirSync(venvLib).map((name) => join(venvLib, name, "site-packages")).find(existsSync)
  : undefined;
if (!sitePackages) {
  console.error("tests/pyodide: no .venv site-packages with pytest; run ./dev setup");
  process.exit(2);
}

const pyodide = await loadPyodide({ indexURL: join(root, "node_modules", "pyodide") + "/" });
// Raw writes, so pytest's progress dots stay on one line.
pyodide.setStdout({ write: (bytes) => (process.stdout.write(bytes), bytes.length) });
pyodide.setStderr({ write: (bytes) => (process.stderr.write(bytes), bytes.length) });
const { FS } = pyodide;
for (const [host, mount] of [[root, "/repo"], [sitePackages, "/venv-site"]]) {
  FS.mkdirTree(mount);
  FS.mount(FS.filesystems.NODEFS, { root: host }, mount);
}
pyodide.runPython(readFileSync(join(root, "tests", "pyodide", "runner.py"), "utf8"));
// callPromising lets asyncio.run() inside the tests switch stacks (JSPI); Node 20 needs
// --experimental-wasm-stack-switching for that, which ./dev passes.
const main = pyodide.globals.get("main");
process.exit(await main.callPromising(process.argv.slice(2)));

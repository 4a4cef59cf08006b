// Masks the built snapshot (web/vendor/snapshot/) with the wasm's static data, the XOR that
// web/static/snapshot-mask.mjs describes, then proves the round trip the page will make:
// a fresh module unmasking it through the page's own factory yields the original bytes
// (SHA-256) and a working interpreter. Any mismatch fails the build. The manifest records the
// mask's length and both hashes; its `sha256` stays the served (masked) file's.
//   node web/snapshot_mask.mjs --verify [FOLDER]   (checks a built one; web/build.mjs masks)
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  staticData, unmaskingModule, whenInstantiated, xorStaticData,
} from "./static/snapshot-mask.mjs";

const web = dirname(fileURLToPath(import.meta.url));
const pyodideDir = join(web, "vendor", "pyodide");
const out = join(web, "vendor", "snapshot");
const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

async function pyodideModules(dir) {
  const { loadPyodide } = await import(pathToFileURL(join(dir, "pyodide.mjs")).href);
  const factory = (await import(pathToFileURL(join(dir, "pyodide.asm.mjs")).href)).default;
  return { loadPyodide, factory };
}

// The static data of a freshly instantiated module, before anything runs: its data segments.
async function pristineStaticData(dir, snapshot) {
  const { loadPyodide, factory } = await pyodideModules(dir);
  let pristine;
  const grab = (instance) => { pristine = staticData(instance).slice(); };
  await loadPyodide({
    indexURL: dir + "/", _loadSnapshot: Promise.resolve(snapshot.slice()),
    createPyodideModule: whenInstantiated(factory, grab),
  });
  return pristine;
}

// Restore `masked` the way the page does; throws unless it is the snapshot `unmaskedSha` names.
export async function verify(dir, masked, unmaskedSha) {
  const { loadPyodide, factory } = await pyodideModules(dir);
  const bytes = masked.slice();
  const pyodide = await loadPyodide({
    indexURL: dir + "/", _loadSnapshot: Promise.resolve(bytes),
    createPyodideModule: unmaskingModule(factory, Promise.resolve(bytes)),
  });
  if (sha(bytes) !== unmaskedSha) {
    throw new Error("snapshot mask: unmasking in a fresh module does not give the original back");
  }
  const answer = pyodide.runPython("import markdown_it; markdown_it.MarkdownIt().render('*a*')");
  if (answer !== "<p><em>a</em></p>\n") throw new Error(`snapshot mask: Python said ${answer}`);
}

export async function mask(dir = pyodideDir, folder = out) {
  const manifestPath = join(folder, "manifest.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  if (manifest.mask) throw new Error(`${folder} is already masked`);
  const path = join(folder, manifest.file);
  const snapshot = new Uint8Array(readFileSync(path));
  const unmaskedSha = sha(snapshot);
  if (unmaskedSha !== manifest.sha256) throw new Error(`${path} is not the one its manifest names`);
  const pristine = await pristineStaticData(dir, snapshot);
  const masked = snapshot.slice();
  xorStaticData(masked, pristine, pristine.length);
  await verify(dir, masked, unmaskedSha);
  writeFileSync(path, masked);
  manifest.sha256 = sha(masked);
  manifest.mask = { bytes: pristine.length, unmasked_sha256: unmaskedSha };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 1) + "\n");
  console.log(`${path}: masked over its first ${pristine.length} bytes, round trip checked`);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "--verify") {
  const folder = process.argv[3] ?? out;
  const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));
  const masked = new Uint8Array(readFileSync(join(folder, manifest.file)));
  await verify(pyodideDir, masked, manifest.mask.unmasked_sha256);
  console.log("the masked snapshot restores to the original");
}

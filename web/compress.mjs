// Compresses every served file of web/vendor once, at build time, never per request: Brotli
// (quality 11, 16 MiB window) and gzip (level 9) from Node's own zlib, written beside the file
// as NAME.br and NAME.gz, and vendor/files.json recording each file's SHA-256 and sizes; the
// server (backend/delivery/assets.py) serves from that table. Quality 11 costs minutes on the 30 MiB
// snapshot, so each result is kept in a cache keyed by the input's hash and the settings, and
// a rebuild only compresses what changed.
import { createHash } from "node:crypto";
import {
  copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const { constants: Z } = zlib;
const CODECS = {
  br: ["q11w24", (bytes) => brotli(bytes, { params: {
    [Z.BROTLI_PARAM_QUALITY]: 11, [Z.BROTLI_PARAM_LGWIN]: 24,
    [Z.BROTLI_PARAM_SIZE_HINT]: bytes.length } })],
  gzip: ["l9", (bytes) => gzip(bytes, { level: 9 })],
};

function servedFiles(dir, runtime) {
  const suffixes = Object.values(runtime.encodings);
  const files = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      const name = relative(dir, path).split(sep).join("/");
      if (statSync(path).isDirectory()) walk(path);
      else if (!runtime.not_served.includes(name) && !suffixes.some((s) => name.endsWith(s))) {
        files.push(name);
      }
    }
  };
  walk(dir);
  return files;
}

export async function compressTree(dir, runtime, cache) {
  mkdirSync(cache, { recursive: true });
  const started = Date.now();
  const table = {};
  await Promise.all(servedFiles(dir, runtime).map(async (name) => {
    const bytes = readFileSync(join(dir, name));
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const entry = { sha256, bytes: bytes.length };
    for (const [encoding, suffix] of Object.entries(runtime.encodings)) {
      const [settings, compress] = CODECS[encoding];
      const cached = join(cache, `${sha256}.${settings}${suffix}`);
      if (!existsSync(cached)) {  // written whole, then renamed: a cut build leaves no half file
        writeFileSync(`${cached}.tmp`, await compress(bytes));
        renameSync(`${cached}.tmp`, cached);
      }
      copyFileSync(cached, join(dir, name + suffix));
      entry[encoding] = statSync(cached).size;
    }
    table[name] = entry;
  }));
  const files = Object.fromEntries(Object.keys(table).sort().map((name) => [name, table[name]]));
  writeFileSync(join(dir, "files.json"), JSON.stringify(
    { encodings: runtime.encodings, not_served: runtime.not_served, files }, null, 1) + "\n");
  const total = (key) => Object.values(files).reduce((sum, f) => sum + f[key], 0);
  console.log(`web/vendor compressed in ${((Date.now() - started) / 1000).toFixed(0)} s: ` +
    `${(total("bytes") / 1e6).toFixed(1)} MB → br ${(total("br") / 1e6).toFixed(1)} MB, ` +
    `gzip ${(total("gzip") / 1e6).toFixed(1)} MB`);
}

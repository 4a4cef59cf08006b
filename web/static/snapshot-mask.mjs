// The Pyodide memory snapshot is served masked: its image of the wasm's static data (the data
// segments and the zeroed bss below __stack_low, ~4 MB) is XORed with that same region of a
// freshly instantiated module's memory, which holds exactly the data segments the wasm already
// carries. The ~98 % of those bytes the interpreter never changed become zeros, which Brotli
// sends almost for free (1.2 MB fewer on the wire). XOR undoes itself, so one function masks
// (web/snapshot_mask.mjs, at build) and unmasks (web/static/pyodide-snapshot.mjs, in the page);
// the build checks the round trip through unmaskingModule, the page's own path.

// Where the memory image starts: Pyodide's snapshot header keeps that offset in its second
// 32-bit word (little-endian), before the JSON of its JS-side state.
const imageOffset = (snapshot) =>
  new DataView(snapshot.buffer, snapshot.byteOffset, 8).getUint32(4, true);

// XOR snapshot's memory image over [0, length) with memory[0, length), in place.
export function xorStaticData(snapshot, memory, length) {
  const start = imageOffset(snapshot);
  if (length > memory.length || start + length > snapshot.length) {
    throw new Error(`snapshot mask: ${length} bytes do not fit the snapshot or the memory`);
  }
  const image = snapshot.subarray(start, start + length);
  let done = 0;
  if (image.byteOffset % 4 === 0 && memory.byteOffset % 4 === 0) {  // a word at a time
    done = length - (length % 4);
    const a = new Uint32Array(image.buffer, image.byteOffset, done / 4);
    const b = new Uint32Array(memory.buffer, memory.byteOffset, done / 4);
    for (let i = 0; i < a.length; i++) a[i] ^= b[i];
  }
  for (let i = done; i < length; i++) image[i] ^= memory[i];
}

// The end of the wasm's static data, from its own exported global: what the mask covers.
export const staticDataEnd = (module) => module.___stack_low;

// A createPyodideModule for loadPyodide: Emscripten's factory with `hook(module)` as the first
// preRun callback. It runs right after instantiation, when memory holds nothing but the data
// segments (no wasm code has run yet: constructors and relocations come after preRun), and
// before Pyodide restores the snapshot.
export function withFirstPreRun(factory, hook) {
  return (settings) => {
    settings.preRun = [hook, ...[settings.preRun ?? []].flat()];
    return factory(settings);
  };
}

// The page's factory: unmask the (awaited) snapshot bytes in place before they are restored.
export function unmaskingModule(factory, snapshot) {
  return async (settings) => {
    const bytes = await snapshot;
    return withFirstPreRun(factory, (module) => {
      xorStaticData(bytes, module.HEAPU8, staticDataEnd(module));
    })(settings);
  };
}

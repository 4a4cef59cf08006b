// The Pyodide memory snapshot is served masked: its image of the wasm's static data (the data
// segments and the zeroed bss below __stack_low, ~4 MB) is XORed with that same region of a
// freshly instantiated module's memory, which holds exactly the data segments the wasm already
// carries. The ~98 % of those bytes the interpreter never changed become zeros, which Brotli
// sends almost for free (1.0 MB fewer on the wire). XOR undoes itself, so one function masks
// (web/snapshot_mask.mjs, at build) and unmasks (web/static/pyodide-snapshot.mjs, in the page);
// the build checks the round trip through unmaskingModule, the page's own path, and
// e2e/test_snapshot_mask.py checks it in Chromium.

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

// A createPyodideModule for loadPyodide: Emscripten's factory, with `hook(instance)` awaited the
// moment the wasm is instantiated (wrapping the instantiateWasm that Pyodide passes), while its
// memory holds nothing but the data segments: nothing of the module runs before the instance is
// handed on, so the hook may wait (for the snapshot still downloading) and the memory stays
// pristine. A first preRun is too late: CPython's own preRun (setEmscriptenTrampoline)
// registers earlier and writes a function index into _PyRuntime, which is 0 in Node and not in
// Chromium.
// Pyodide's instantiateWasm swallows an exception thrown there (it logs and never settles), so
// a failing hook rejects the returned promise instead: loadPyodide fails, the boot screen says so.
export function whenInstantiated(factory, hook) {
  return (settings) => {
    const instantiate = settings.instantiateWasm;
    if (typeof instantiate !== "function") {
      throw new Error("snapshot mask: loadPyodide passed no instantiateWasm to wrap");
    }
    let fail;
    const failed = new Promise((_, reject) => { fail = reject; });
    settings.instantiateWasm = (imports, receive) =>
      instantiate(imports, (instance, module) => {
        Promise.resolve()
          .then(() => hook(instance))
          .then(() => receive(instance, module), fail);
      });
    return Promise.race([factory(settings), failed]);
  };
}

// The wasm's static data (data segments, then the zeroed bss) ends where its stack begins.
export const staticData = (instance) =>
  new Uint8Array(instance.exports.memory.buffer, 0, instance.exports.__stack_low.value);

// The page's factory: once the wasm is instantiated, wait for the snapshot's bytes (a promise:
// the page compiles and instantiates the wasm while the snapshot still downloads) and unmask
// them in place, before Pyodide restores them.
export function unmaskingModule(factory, snapshot) {
  return whenInstantiated(factory, async (instance) => {
    const bytes = await snapshot;
    const data = staticData(instance);
    xorStaticData(bytes, data, data.length);
  });
}

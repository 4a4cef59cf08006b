// Zeroes the free memory of a Pyodide heap just before web/snapshot.mjs takes its snapshot, so
// the snapshot carries zeros, not stale data, where nothing lives: about 3 MB of the C
// allocator's free chunks (among them the standard-library sources zipimport read and
// dropped) and whatever lies above the allocator's break. Brotli squeezes zeros to nothing.
//
// How: every free chunk of the allocator (Emscripten's dlmalloc) is taken by malloc, greedily
// from large blocks to small ones, filled with zeros and freed again, so the allocator ends in
// the same state with zeroed payloads. The heap must not grow while doing so (the page restores
// the snapshot into a memory of the same fixed size): a footprint limit makes malloc answer 0
// instead of asking for more memory, and the memory size and the break are checked after.
// Pyodide's CPython is built without pymalloc (sysconfig's WITH_PYMALLOC is 0): every Python
// object is a dlmalloc chunk, so no free block of a small-object pool escapes this.

const MIN_BLOCK = 1; // dlmalloc's smallest chunk still holds a few payload bytes
const MAX_BLOCK = 2 ** 24;

export function zeroFreeMemory(module) {
  const size = module.HEAP8.length;
  const breakPointer = () => module.HEAPU32[module._emscripten_get_sbrk_ptr() / 4];
  const limit = module._malloc_footprint_limit();
  module._malloc_set_footprint_limit(module._malloc_footprint());
  const taken = [];
  let zeroed = 0;
  try {
    for (let block = MAX_BLOCK; block >= MIN_BLOCK; block = Math.floor(block / 2)) {
      for (;;) {
        const pointer = module._malloc(block);
        if (pointer === 0) break;
        taken.push(pointer);
        const usable = module._malloc_usable_size(pointer);
        module.HEAPU8.fill(0, pointer, pointer + usable);
        zeroed += usable;
      }
      if (module.HEAP8.length !== size) throw new Error("the heap grew while zeroing it");
    }
  } finally {
    for (const pointer of taken) module._free(pointer);
    module._malloc_set_footprint_limit(limit);
  }
  // Above the break, nothing is allocated: zero it too (it holds what a trim gave back).
  const end = breakPointer();
  if (module.HEAP8.length !== size || end > size) {
    throw new Error(`the heap grew while zeroing it (${size} → ${module.HEAP8.length} bytes)`);
  }
  module.HEAPU8.fill(0, end, size);
  return { zeroed, aboveBreak: size - end };
}

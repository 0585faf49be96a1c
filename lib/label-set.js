'use strict';

// A published, immutable label set: the slab that holds it at `offset` (V8
// frees a slab once no set in it is reachable; the installed set is always
// reachable from the publisher), its address as a BigInt, ready for the
// TLS slot, and the address of its thread context record (OTEP 4947; 0n:
// none), which the same slab holds. `traced`: it carries a span's ids.

let nextSetId = 1;

class LabelSet {
  constructor(slab, offset, address, record = 0n, traced = false) {
    this.id = nextSetId++; // key of its children in the intern table
    this.slab = slab;
    this.offset = offset;
    this.address = address;
    this.record = record;
    this.traced = traced;
    this.children = undefined; // frozen labels object -> LabelSet | null (lib/frozen-cache.js)
    this.untraced = undefined; // this set without its trace ids (lib/api.js traceSet)
  }
}

module.exports = { LabelSet };

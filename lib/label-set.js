'use strict';

// A published, immutable label set: the slab that holds it at `offset` (V8
// frees a slab once no set in it is reachable; the installed set is always
// reachable from the publisher, and a set stored in an async context is
// reachable from every continuation that can still run in it), its address
// as a BigInt, ready for the TLS slot, and the address of its thread context
// record (OTEP 4947; 0n: none), which the same slab holds. `traced`: it
// carries a span's ids.
//
// Where readers walk V8's continuation data (lib/node-context.js), label sets
// extend the V8 unit's Wrapper: the set's address goes into internal field 0
// and its record's into internal field 1, which is what those readers follow
// from the store of our AsyncLocalStorage. Elsewhere they extend a plain base.

let nextSetId = 1;

class PlainBase {}

function defineLabelSet(Base = PlainBase) {
  return class LabelSet extends Base {
    constructor(slab, offset, address, record = 0n, traced = false) {
      super(address, record);
      this.id = nextSetId++; // key of its children in the intern table
      this.slab = slab;
      this.offset = offset;
      this.address = address;
      this.record = record;
      this.traced = traced;
      this.children = undefined; // frozen labels object -> LabelSet | null (lib/frozen-cache.js)
      this.untraced = undefined; // this set without its trace ids (lib/api.js traceSet)
    }
  };
}

const LabelSet = defineLabelSet();

module.exports = { LabelSet, defineLabelSet };

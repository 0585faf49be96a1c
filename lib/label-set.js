'use strict';

// A published, immutable label set: the slab that holds it at `offset` (V8
// frees a slab once no set in it is reachable; the installed set is always
// reachable from the publisher, and a set stored in an async context is
// reachable from every continuation that can still run in it), its address
// as a BigInt, ready for the TLS slot, and the address of its thread context
// record (OTEP 4947; 0n: none), which the same slab holds. `traced`: it
// carries a span's ids. The writer passes both addresses where the hooks
// install sets; elsewhere (undefined) they are read from the set's own
// header (LabelSetLayout in src/core/label_set_builder.h) when first asked.
//
// Where readers walk V8's continuation data (lib/node-context.js), label sets
// extend the V8 unit's Wrapper, which puts the set's address into internal
// field 0 and its record's into internal field 1, read from the same header:
// what those readers follow from the store of our AsyncLocalStorage.
// Elsewhere they extend a plain base.

const { SET_SELF_OFFSET, SET_RECORD_OFFSET } = require('./protocol');

let nextSetId = 1;

class PlainBase {}

const word = (slab, at) => new DataView(slab).getBigUint64(at, true);

function defineLabelSet(Base = PlainBase) {
  return class LabelSet extends Base {
    constructor(slab, offset, address, record, traced = false) {
      super(slab, offset);
      this.id = nextSetId++; // key of its children in the intern table
      this.slab = slab;
      this.offset = offset;
      this.knownAddress = address;
      this.knownRecord = record;
      this.traced = traced;
      this.children = undefined; // frozen labels object -> LabelSet | null (lib/frozen-cache.js)
      this.untraced = undefined; // this set without its trace ids (lib/api.js traceSet)
    }

    get address() {
      if (this.knownAddress === undefined) this.knownAddress = word(this.slab, this.offset + SET_SELF_OFFSET);
      return this.knownAddress;
    }

    get record() {
      if (this.knownRecord === undefined) this.knownRecord = word(this.slab, this.offset + SET_RECORD_OFFSET);
      return this.knownRecord;
    }
  };
}

const LabelSet = defineLabelSet();

module.exports = { LabelSet, defineLabelSet };

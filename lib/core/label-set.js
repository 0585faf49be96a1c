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
// Where readers walk V8's continuation data (lib/core/node-context.js), sets are
// objects the V8 unit makes in the same call that builds them (makeSet),
// with the set's address in internal field 0 and its record's in internal
// field 1: what those readers follow from the store of our
// AsyncLocalStorage. Their class (shapeSets) declares FIELDS and inherits
// from LabelSet (lib/core/node-context.js). Elsewhere they are plain
// LabelSets.

const { SET_SELF_OFFSET, SET_RECORD_OFFSET } = require('./protocol');

// A set's own properties, in the order they are set.
const FIELDS = Object.freeze(['id', 'slab', 'offset', 'knownAddress', 'knownRecord', 'traced', 'children', 'untraced', 'replaced']);

let nextSetId = 1;

// Fills in a set's fields; returns it.
function initSet(set, slab, offset, address, record, traced = false) {
  set.id = nextSetId++; // key of its children in the intern table
  set.slab = slab;
  set.offset = offset;
  set.knownAddress = address;
  set.knownRecord = record;
  set.traced = traced;
  set.children = undefined; // frozen labels object -> LabelSet | null (lib/core/frozen-cache.js)
  set.untraced = undefined; // this set without its trace ids (lib/core/api.js traceSet)
  set.replaced = undefined; // the slab of what it held before retargetSet()
  return set;
}

// `set` (a span's set, lib/core/api.js retraceSet) takes `next`'s contents: a new
// id (so no cache keyed by the old one answers for it), no cached children,
// and the slab it held kept for as long as it lives, so that a reader that
// has just read the old address finds the old set whole. The V8 unit's
// retarget() moves the wrapper's internal fields (lib/core/api.js).
function retargetSet(set, next) {
  const old = set.slab;
  initSet(set, next.slab, next.offset, next.knownAddress, next.knownRecord, next.traced);
  set.replaced = old;
  return set;
}

const word = (slab, at) => new DataView(slab).getBigUint64(at, true);

class LabelSet {
  constructor(slab, offset, address, record, traced = false) {
    initSet(this, slab, offset, address, record, traced);
  }

  get address() {
    if (this.knownAddress === undefined) this.knownAddress = word(this.slab, this.offset + SET_SELF_OFFSET);
    return this.knownAddress;
  }

  get record() {
    if (this.knownRecord === undefined) this.knownRecord = word(this.slab, this.offset + SET_RECORD_OFFSET);
    return this.knownRecord;
  }
}

module.exports = { LabelSet, FIELDS, initSet, retargetSet };

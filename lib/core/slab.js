'use strict';

// Writes label sets into slabs: ArrayBuffers of SLAB bytes shared by
// consecutive sets, so that building one costs no allocation. A set larger
// than a quarter slab gets an ArrayBuffer of its own. V8 frees a slab once
// no set in it is reachable.

const { Encoder } = require('./encoder');
const { LabelSet, initSet } = require('./label-set');
const { DID_NOT_FIT, NEEDED_SATURATED, TRACE_SET } = require('./protocol');

const SLAB = 4096;

function tooLarge(needed) {
  const shown = needed === NEEDED_SATURATED ? 'at least 4 GiB' : `${needed} bytes`;
  const err = new RangeError(`Expected a label set below 4 GiB but it needs ${shown}`);
  err.code = 'ERR_CUSTOMLABELS_TOO_LARGE';
  return err;
}

// `records`: whether sets get thread context records (OTEP 4947);
// `makeSet`: where sets are made by the V8 unit (lib/core/node-context.js),
// its makeSet(): build() and the set object in one call; null, and sets are
// built by the addon and are plain LabelSets; `addresses`: whether sets are
// given their addresses as BigInts when written (the hooks install them in
// the TLS slots); otherwise a set reads them from its own header when asked,
// and writing one allocates no BigInt.
class SlabWriter {
  constructor(binding, records = false, { makeSet = null, addresses = true } = {}) {
    this.binding = binding;
    this.makeSet = makeSet;
    this.encoder = new Encoder(undefined, records);
    this.slab = new ArrayBuffer(SLAB);
    this.offset = 0;
    this.addresses = addresses;
  }

  // build() into `target` at `offset`: the set object if makeSet made one,
  // else undefined (the scratch results say what was written).
  build(parentSlab, parentOffset, n, target, offset) {
    const { makeSet, encoder } = this;
    if (makeSet !== null) return makeSet(parentSlab, parentOffset, encoder.scratch, n, target, offset);
    this.binding.build(parentSlab, parentOffset, encoder.scratch, n, target, offset);
    return undefined;
  }

  // The set `updates` make over `parent` (a LabelSet or null) with the
  // trace ids `trace` says (null: the parent's; lib/core/trace-context.js): a new
  // LabelSet, `parent` itself if nothing changes, or null if no labels and
  // no thread context record are left.
  write(parent, updates, trace = null) {
    if (updates.count === 0 && trace === null) return parent;
    const { encoder } = this;
    const n = encoder.encode(updates, trace);
    const parentSlab = parent === null ? null : parent.slab;
    const parentOffset = parent === null ? 0 : parent.offset;
    let target = this.slab;
    let offset = this.offset;
    let made = this.build(parentSlab, parentOffset, n, target, offset);
    if (encoder.nextOffset() === DID_NOT_FIT) {
      const needed = encoder.needed();
      offset = 0;
      if (needed > SLAB / 4) {
        if (needed === NEEDED_SATURATED) {
          encoder.shrink();
          throw tooLarge(needed);
        }
        target = new ArrayBuffer(needed);
      } else {
        this.slab = target = new ArrayBuffer(SLAB);
        this.offset = 0;
      }
      made = this.build(parentSlab, parentOffset, n, target, 0);
      if (encoder.nextOffset() === DID_NOT_FIT) {
        encoder.shrink();
        throw tooLarge(needed);
      }
    }
    if (target === this.slab) this.offset = encoder.nextOffset();
    const wrote = encoder.wroteSet();
    const address = wrote && this.addresses ? encoder.address() : undefined;
    const record = wrote && this.addresses ? encoder.recordAddress() : undefined;
    encoder.shrink();
    if (!wrote) return null;
    const traced = trace === null ? parent !== null && parent.traced : trace.op === TRACE_SET;
    if (made !== undefined) return initSet(made, target, offset, address, record, traced);
    return new LabelSet(target, offset, address, record, traced);
  }
}

module.exports = { SlabWriter, SLAB };

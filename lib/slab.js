'use strict';

// Writes label sets into slabs: ArrayBuffers of SLAB bytes shared by
// consecutive sets, so that building one costs no allocation. A set larger
// than a quarter slab gets an ArrayBuffer of its own. V8 frees a slab once
// no set in it is reachable.

const { Encoder } = require('./encoder');
const { LabelSet } = require('./label-set');
const { DID_NOT_FIT, NEEDED_SATURATED } = require('./protocol');

const SLAB = 4096;

function tooLarge(needed) {
  const shown = needed === NEEDED_SATURATED ? 'at least 4 GiB' : `${needed} bytes`;
  const err = new RangeError(`Expected a label set below 4 GiB but it needs ${shown}`);
  err.code = 'ERR_CUSTOMLABELS_TOO_LARGE';
  return err;
}

class SlabWriter {
  constructor(binding) {
    this.binding = binding;
    this.encoder = new Encoder();
    this.slab = new ArrayBuffer(SLAB);
    this.offset = 0;
  }

  // The set `updates` make over `parent` (a LabelSet or null): a new
  // LabelSet, `parent` itself if there are no updates, or null if no labels
  // are left.
  write(parent, updates) {
    if (updates.count === 0) return parent;
    const { encoder, binding } = this;
    const n = encoder.encode(updates);
    const parentSlab = parent === null ? null : parent.slab;
    const parentOffset = parent === null ? 0 : parent.offset;
    binding.build(parentSlab, parentOffset, encoder.scratch, n, this.slab, this.offset);
    let target = this.slab;
    let offset = this.offset;
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
      binding.build(parentSlab, parentOffset, encoder.scratch, n, target, 0);
      if (encoder.nextOffset() === DID_NOT_FIT) {
        encoder.shrink();
        throw tooLarge(needed);
      }
    }
    if (target === this.slab) this.offset = encoder.nextOffset();
    const address = encoder.address();
    encoder.shrink();
    return address === 0n ? null : new LabelSet(target, offset, address);
  }
}

module.exports = { SlabWriter, SLAB };

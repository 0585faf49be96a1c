'use strict';

// Installs a label set (or null) as the calling thread's
// `custom_labels_current_set` and, with thread context records on, its
// record as `otel_thread_ctx_v1`, and remembers which set is installed.
//
// The two pointers are stored back to back, label set first. A reader that
// stops the thread between the stores sees the new label set next to the
// previous scope's record: each one whole and valid (both are immutable
// once published), for at most those few instructions.

// Each pointer is viewed as one uint64 element: storing an element is one
// aligned 8-byte integer store in every V8 tier. (Not a Float64Array: an
// address is a subnormal double, which a thread running with
// denormals-are-zero, as -ffast-math code sets up, would turn into 0.)
function slotViews(binding, records) {
  const set = binding.tlsSlot();
  if (set === null) return null;
  if (!records) return { set: new BigUint64Array(set), record: null, recordIndex: 0 };
  // Both pointers in one typed array when they are adjacent (measured:
  // a store into a second typed array costs ~3 ns more on Node 24).
  const pair = binding.tlsSlotPair();
  if (pair !== null) {
    const both = new BigUint64Array(pair);
    return { set: both, record: both, recordIndex: 1 };
  }
  const record = binding.threadContextSlot();
  if (record === null) return null;
  return { set: new BigUint64Array(set), record: new BigUint64Array(record), recordIndex: 0 };
}

// `current` is the set last installed from JS, kept reachable while it is
// installed; installed() is the same, or null where the addon has cleared
// the slot since (binding.clearWhenIdle(): a thread idle in its event loop),
// read as two 32-bit halves of the slot (no BigInt made). `observer`, when
// not null, is called with each set installed, after its stores
// (lib/core/observers.js: the thread's observer point).
function createPublisher(binding, records = false) {
  const views = slotViews(binding, records);
  if (views !== null && views.record === null) {
    const slot = views.set;
    const halves = new Uint32Array(slot.buffer, slot.byteOffset, 2);
    return {
      current: null,
      observer: null,
      viaTypedArray: true,
      installed() {
        return (halves[0] | halves[1]) === 0 ? null : this.current;
      },
      install(set) {
        this.current = set;
        slot[0] = set === null ? 0n : set.address;
        if (this.observer !== null) this.observer(set);
      },
    };
  }
  if (views !== null) {
    // One array for both when the slots are adjacent (recordIndex 1).
    const { set: slot, record: recordSlot, recordIndex } = views;
    const halves = new Uint32Array(slot.buffer, slot.byteOffset, 2);
    return {
      current: null,
      observer: null,
      viaTypedArray: true,
      installed() {
        return (halves[0] | halves[1]) === 0 ? null : this.current;
      },
      install(set) {
        this.current = set;
        if (set === null) {
          slot[0] = 0n;
          recordSlot[recordIndex] = 0n;
        } else {
          slot[0] = set.address;
          recordSlot[recordIndex] = set.record;
        }
        if (this.observer !== null) this.observer(set);
      },
    };
  }
  // Where an ArrayBuffer cannot view external memory: one native call
  // (which publishes the set's record too).
  return {
    current: null,
    observer: null,
    viaTypedArray: false,
    installed() {
      return this.current;
    },
    install(set) {
      this.current = set;
      if (set === null) binding.setCurrent(null, 0);
      else binding.setCurrent(set.slab, set.offset);
      if (this.observer !== null) this.observer(set);
    },
  };
}

module.exports = { createPublisher };

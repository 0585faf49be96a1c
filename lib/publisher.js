'use strict';

// Installs a label set (or null) as the calling thread's
// `custom_labels_current_set` and remembers which one is installed.

function createPublisher(binding) {
  const view = binding.tlsSlot();
  if (view !== null) {
    // The thread's `custom_labels_current_set` itself, viewed as one uint64:
    // storing an element is one aligned 8-byte integer store in every V8
    // tier. (Not a Float64Array: an address is a subnormal double, which a
    // thread running with denormals-are-zero, as -ffast-math code sets up,
    // would turn into 0.)
    const slot = new BigUint64Array(view);
    return {
      current: null,
      viaTypedArray: true,
      install(set) {
        this.current = set;
        slot[0] = set === null ? 0n : set.address;
      },
    };
  }
  // Where an ArrayBuffer cannot view external memory: one native call.
  return {
    current: null,
    viaTypedArray: false,
    install(set) {
      this.current = set;
      if (set === null) binding.setCurrent(null, 0);
      else binding.setCurrent(set.slab, set.offset);
    },
  };
}

module.exports = { createPublisher };

'use strict';

// The JS API over a native binding (or none, on unsupported platforms).
// Takes the binding as a parameter so the logic can be tested with a fake.

const { AsyncLocalStorage } = require('node:async_hooks');
const { types } = require('node:util');
const errors = require('./errors');
const { readLabels, Encoder, Updates, DID_NOT_FIT } = require('./labels');
const { createSwitcher } = require('./switcher');

// Sets made of string labels are interned: a service whose requests repeat
// the same routes and customers builds each distinct set once. The intern
// table is a trie per parent set (label key -> value -> next level) of Maps,
// so a lookup hashes each short string once; it holds at most INTERNED sets
// and starts over when full.
const INTERNED = 2048;
const INTERN_MAX_CHARS = 256;
// Interning pays only when sets repeat: every INTERN_WINDOW lookups, a hit
// rate under INTERN_MIN_HITS turns it off for a pause that starts at
// INTERN_PAUSE calls and doubles with every further window that misses, up
// to INTERN_PAUSE_MAX (labels such as request ids never repeat; a window
// that hits resets the pause).
const INTERN_WINDOW = 1024;
const INTERN_MIN_HITS = 0.25;
const INTERN_PAUSE = 16384;
const INTERN_PAUSE_MAX = 262144;

// Label sets are written into slabs: ArrayBuffers of SLAB bytes shared by
// consecutive sets, so that building one costs no allocation. A larger set
// gets an ArrayBuffer of its own.
const SLAB = 4096;

// A published, immutable label set: the slab that holds it at `offset` (V8
// frees a slab once no set in it is reachable; the installed set is always
// reachable from the publisher) and its address as a BigInt, ready for the
// TLS slot.
let nextSetId = 1;

class LabelSet {
  constructor(slab, offset, address) {
    this.id = nextSetId++; // key of its children in the intern table
    this.slab = slab;
    this.offset = offset;
    this.address = address;
    this.children = undefined; // WeakMap<frozen labels object, LabelSet | null>
  }
}

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

function hasOnlyDataProperties(object) {
  const descriptors = Object.getOwnPropertyDescriptors(object);
  for (const key in descriptors) {
    if (!('value' in descriptors[key])) return false;
  }
  return true;
}

function checkCallback(fn) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
}

function createApi(binding) {
  if (binding === null) return createUnsupportedApi();

  const als = new AsyncLocalStorage();
  const publisher = createPublisher(binding);
  const switcher = createSwitcher(als, publisher);
  const encoder = new Encoder();
  const rootChildren = new WeakMap();
  let interned = new Map(); // parent id (0: none) -> trie
  let internedCount = 0;

  // The interned set for (parent, updates), or undefined; `path` is set to
  // the trie node a new set would be stored in (null: not internable).
  let path = null;
  let lookups = 0;
  let hits = 0;
  let paused = 0;
  let nextPause = INTERN_PAUSE;
  function lookupInterned(parent, updates) {
    path = null;
    if (paused > 0) {
      paused -= 1;
      return undefined;
    }
    if (!updates.primitive || updates.count === 0) return undefined;
    if (++lookups === INTERN_WINDOW) {
      if (hits < INTERN_WINDOW * INTERN_MIN_HITS) {
        paused = nextPause;
        nextPause = Math.min(nextPause * 2, INTERN_PAUSE_MAX);
      } else {
        nextPause = INTERN_PAUSE;
      }
      lookups = 0;
      hits = 0;
    }
    const parentId = parent === null ? 0 : parent.id;
    let level = interned.get(parentId);
    if (level === undefined) {
      level = new Map();
      interned.set(parentId, level);
    }
    let chars = 0;
    let node;
    for (let i = 0; i < updates.count; i++) {
      const key = updates.keys[i];
      const value = updates.values[i];
      chars += key.length + (value === null ? 0 : value.length);
      if (chars > INTERN_MAX_CHARS) return undefined;
      let byValue = level.get(key);
      if (byValue === undefined) {
        byValue = new Map();
        level.set(key, byValue);
      }
      node = byValue.get(value);
      if (node === undefined) {
        node = { set: undefined, next: undefined };
        byValue.set(value, node);
      }
      if (i + 1 < updates.count) {
        if (node.next === undefined) node.next = new Map();
        level = node.next;
      }
    }
    path = node;
    if (node.set !== undefined) hits += 1;
    return node.set;
  }

  function intern(set) {
    if (path === null) return;
    if (internedCount >= INTERNED) {
      interned = new Map();
      internedCount = 0;
      return;
    }
    path.set = set;
    internedCount += 1;
  }
  const shared = new Updates();
  let reading = false; // a getter may call withLabels while `shared` is in use
  let slab = new ArrayBuffer(SLAB);
  let slabOffset = 0;

  function build(parent, updates) {
    if (updates.count === 0) return parent;
    const n = encoder.encode(updates);
    const parentSlab = parent === null ? null : parent.slab;
    const parentOffset = parent === null ? 0 : parent.offset;
    binding.build(parentSlab, parentOffset, encoder.scratch, n, slab, slabOffset);
    let target = slab;
    let offset = slabOffset;
    if (encoder.nextOffset() === DID_NOT_FIT) {
      const needed = encoder.needed();
      offset = 0;
      if (needed > SLAB / 4) {
        target = new ArrayBuffer(needed);
      } else {
        slab = target = new ArrayBuffer(SLAB);
        slabOffset = 0;
      }
      binding.build(parentSlab, parentOffset, encoder.scratch, n, target, 0);
      if (encoder.nextOffset() === DID_NOT_FIT) {
        const err = new RangeError(`Expected a label set below 4 GiB but it needs ${needed} bytes`);
        err.code = 'ERR_CUSTOMLABELS_TOO_LARGE';
        encoder.shrink();
        throw err;
      }
    }
    if (target === slab) slabOffset = encoder.nextOffset();
    const address = encoder.address();
    encoder.shrink();
    return address === 0n ? null : new LabelSet(target, offset, address);
  }

  function read(labels) {
    if (reading) return readLabels(labels, new Updates());
    reading = true;
    try {
      return readLabels(labels, shared);
    } finally {
      reading = false;
    }
  }

  // The set `labels` makes when merged over `parent`. A frozen plain object
  // whose properties are data properties holding primitives cannot change,
  // so its result is cached per parent, keyed by the object's identity; only
  // such objects are ever put in a cache, so a hit needs no further check.
  function derive(parent, labels) {
    const cache = parent === null ? rootChildren : parent.children;
    if (cache !== undefined && typeof labels === 'object' && labels !== null) {
      const hit = cache.get(labels);
      if (hit !== undefined) return hit;
    }
    const updates = read(labels);
    let set = lookupInterned(parent, updates);
    if (set === undefined) {
      set = build(parent, updates);
      intern(set);
    }
    const cacheable = updates.primitive;
    updates.clear();
    if (cacheable && Object.isFrozen(labels) && !types.isProxy(labels) && !types.isMap(labels) && hasOnlyDataProperties(labels)) {
      if (parent === null) {
        rootChildren.set(labels, set);
      } else {
        if (parent.children === undefined) parent.children = new WeakMap();
        parent.children.set(labels, set);
      }
    }
    return set;
  }

  function withLabels(labels, fn) {
    checkCallback(fn);
    const store = als.getStore();
    const next = derive(store === undefined ? null : store, labels);
    switcher.enable();
    const prev = publisher.current;
    publisher.install(next);
    try {
      return als.run(next, fn);
    } finally {
      publisher.install(prev);
    }
  }

  function currentLabels() {
    return binding.currentLabels();
  }

  return Object.freeze({
    withLabels,
    currentLabels,
    supported: true,
    // Diagnostics: how labels are switched on this Node.js version.
    // (A function: the probe behind it runs only when first needed.)
    strategy() {
      return Object.freeze({ ...switcher.mode, publish: publisher.viaTypedArray ? 'typed-array' : 'native-call' });
    },
  });
}

// Linux x86-64/aarch64 only: elsewhere withLabels validates and calls fn.
function createUnsupportedApi() {
  return Object.freeze({
    withLabels(labels, fn) {
      checkCallback(fn);
      readLabels(labels);
      return fn();
    },
    currentLabels() {
      return {};
    },
    supported: false,
    strategy: () => Object.freeze({ strategy: 'unsupported-platform', publish: 'none' }),
  });
}

module.exports = { createApi };

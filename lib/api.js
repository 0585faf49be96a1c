'use strict';

// The JS API over a native binding (or none, on unsupported platforms).
// Takes the binding as a parameter so the logic can be tested with a fake.

const { AsyncLocalStorage } = require('node:async_hooks');
const { types } = require('node:util');
const errors = require('./errors');
const { readLabels, Encoder } = require('./labels');
const { createSwitcher } = require('./switcher');

// A published, immutable label set: the ArrayBuffer that holds it (V8 frees
// it once unreachable; while installed it is reachable from the publisher)
// and its address as the bits of a double, ready for the TLS slot.
class LabelSet {
  constructor(buffer, address) {
    this.buffer = buffer;
    this.address = address;
    this.children = undefined; // WeakMap<frozen labels object, LabelSet | null>
  }
}

function createPublisher(binding) {
  const view = binding.tlsSlot();
  if (view !== null) {
    // The thread's `custom_labels_current_set` itself, viewed as one float64:
    // storing an element is one aligned 8-byte store in every V8 tier.
    const slot = new Float64Array(view);
    return {
      current: null,
      viaTypedArray: true,
      install(set) {
        this.current = set;
        slot[0] = set === null ? 0 : set.address;
      },
    };
  }
  return {
    current: null,
    viaTypedArray: false,
    install(set) {
      this.current = set;
      binding.setCurrent(set === null ? null : set.buffer);
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

  function build(parent, updates) {
    if (updates.keys.length === 0) return parent;
    const n = encoder.encode(updates);
    const buffer = binding.build(parent === null ? null : parent.buffer, encoder.scratch, n);
    return buffer === null ? null : new LabelSet(buffer, encoder.result());
  }

  // The set `labels` makes when merged over `parent`. A frozen plain object
  // whose properties are data properties holding primitives cannot change,
  // so its result is cached per parent, keyed by the object's identity.
  function derive(parent, labels) {
    const frozen =
      typeof labels === 'object' &&
      labels !== null &&
      !types.isProxy(labels) &&
      !types.isMap(labels) &&
      Object.isFrozen(labels);
    const cache = frozen ? (parent === null ? rootChildren : parent.children) : undefined;
    if (cache !== undefined) {
      const hit = cache.get(labels);
      if (hit !== undefined) return hit;
    }
    const updates = readLabels(labels);
    const set = build(parent, updates);
    if (frozen && updates.primitive && hasOnlyDataProperties(labels)) {
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
    strategy: Object.freeze({
      ...switcher.mode,
      publish: publisher.viaTypedArray ? 'typed-array' : 'native-call',
    }),
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
    strategy: Object.freeze({ strategy: 'unsupported-platform', publish: 'none' }),
  });
}

module.exports = { createApi };

'use strict';

// The JS API over a native binding (or none, on unsupported platforms).
// Takes the binding as a parameter so the logic can be tested with a fake.
// Each concern lives in its own module; createApi only composes them:
//   labels.js        reading and validating the user's labels
//   frozen-cache.js  sets of frozen label objects, by identity
//   intern.js        sets of repeated string labels, by content
//   slab.js          encoding (encoder.js) and writing new sets into slabs
//   publisher.js     the thread's custom_labels_current_set
//   switcher.js      switching it on every async continuation

const { AsyncLocalStorage } = require('node:async_hooks');
const errors = require('./errors');
const { readLabels, LabelReader } = require('./labels');
const { FrozenCache } = require('./frozen-cache');
const { InternTable } = require('./intern');
const { SlabWriter } = require('./slab');
const { createPublisher } = require('./publisher');
const { createSwitcher } = require('./switcher');

function checkCallback(fn) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
}

// `info.addon`: the file the binding was loaded from; `info.reason`: why
// there is no binding.
function createApi(binding, info = {}) {
  if (binding === null) return createUnsupportedApi(info.reason ?? 'no native addon');

  const als = new AsyncLocalStorage();
  const publisher = createPublisher(binding);
  const switcher = createSwitcher(als, publisher);
  const reader = new LabelReader();
  const frozen = new FrozenCache();
  const interned = new InternTable();
  const writer = new SlabWriter(binding);

  // The set `labels` makes when merged over `parent` (a LabelSet or null).
  function derive(parent, labels) {
    const hit = frozen.get(parent, labels);
    if (hit !== undefined) return hit;
    const updates = reader.read(labels);
    let set = interned.lookup(parent, updates);
    if (set === undefined) {
      set = writer.write(parent, updates);
      interned.remember(set);
    }
    const { primitive } = updates;
    updates.clear();
    frozen.remember(parent, labels, set, primitive);
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
    reason: null,
    // Diagnostics: how labels are switched on this Node.js version, and
    // which addon file publishes them. (A function: the probe behind it runs
    // only when first needed.)
    strategy() {
      return Object.freeze({
        ...switcher.mode,
        publish: publisher.viaTypedArray ? 'typed-array' : 'native-call',
        addon: info.addon ?? null,
      });
    },
  });
}

// Without an addon (another platform, no binary, another copy holding the
// slot) withLabels validates its arguments and calls fn; `reason` says why.
function createUnsupportedApi(reason) {
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
    reason,
    strategy: () => Object.freeze({ strategy: 'none', publish: 'none', addon: null }),
  });
}

module.exports = { createApi };

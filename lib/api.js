'use strict';

// The JS API over a native binding (or none, on unsupported platforms).
// Takes the binding as a parameter so the logic can be tested with a fake.
// Each concern lives in its own module; createApi only composes them:
//   labels.js        reading and validating the user's labels
//   frozen-cache.js  sets of frozen label objects, by identity
//   intern.js        sets of repeated string labels, by content
//   slab.js          encoding (encoder.js) and writing new sets into slabs
//   publisher.js     the thread's custom_labels_current_set (and
//                    otel_thread_ctx_v1)
//   switcher.js      switching it on every async continuation
//   trace-context.js trace ids for thread context records (OTEP 4947)

const { AsyncLocalStorage } = require('node:async_hooks');
const errors = require('./errors');
const { readLabels, LabelReader } = require('./labels');
const { FrozenCache } = require('./frozen-cache');
const { InternTable } = require('./intern');
const { SlabWriter } = require('./slab');
const { createPublisher } = require('./publisher');
const { createSwitcher } = require('./switcher');
const { TraceContext } = require('./trace-context');

// What lib/integrations/otel.js uses and users do not: withTraceContext()
// and setResource(). On a symbol shared by every copy of the package, as
// the API object itself is (lib/index.js).
const kInternal = Symbol.for('customlabels.internal');

function checkCallback(fn) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
}

// OTEP 4947 thread context records are built and published unless
// CUSTOMLABELS_THREAD_CONTEXT is 0, false or off.
function threadContextWanted(env) {
  const v = env.CUSTOMLABELS_THREAD_CONTEXT;
  return !(v === '0' || v === 'false' || v === 'off');
}

// `info.addon`: the file the binding was loaded from; `info.reason`: why
// there is no binding.
function createApi(binding, info = {}) {
  if (binding === null) return createUnsupportedApi(info.reason ?? 'no native addon');

  const records = typeof binding.threadContextSlot === 'function' && threadContextWanted(process.env);
  const als = new AsyncLocalStorage();
  const publisher = createPublisher(binding, records);
  const switcher = createSwitcher(als, publisher);
  const reader = new LabelReader();
  const frozen = new FrozenCache();
  const interned = new InternTable();
  const writer = new SlabWriter(binding, records);

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

  // Runs fn with `next` installed and as the store of its continuations.
  function runWith(next, fn) {
    switcher.enable();
    const prev = publisher.current;
    publisher.install(next);
    try {
      return als.run(next, fn);
    } finally {
      publisher.install(prev);
    }
  }

  function withLabels(labels, fn) {
    checkCallback(fn);
    const store = als.getStore();
    return runWith(derive(store === undefined ? null : store, labels), fn);
  }

  // The set of withTraceContext(trace, labels): merged over the current
  // set, not cached by labels (the ids of a span make a set of their own)
  // but remembered, since a span's context is activated again and again
  // (every bound callback) over the same few sets: on `trace` for the last
  // parent, and on the parent for clearing. undefined: nothing to change.
  function traceSet(trace, labels) {
    const store = als.getStore();
    const parent = store === undefined ? null : store;
    if (trace === TraceContext.CLEAR) {
      if (parent === null || !parent.traced) return undefined;
      if (parent.untraced !== undefined) return parent.untraced;
    } else if (trace.lastSet !== undefined) {
      if (trace.lastParent === parent) return trace.lastSet;
      // Activated again inside its own scope: nothing changes.
      if (parent === trace.lastSet) return undefined;
    }
    const updates = reader.read(labels);
    let next;
    try {
      next = writer.write(parent, updates, trace);
    } finally {
      updates.clear();
    }
    if (trace === TraceContext.CLEAR) {
      parent.untraced = next;
    } else {
      trace.lastParent = parent;
      trace.lastSet = next;
    }
    return next;
  }

  // withLabels whose set carries `trace` (a TraceContext) into its record;
  // TraceContext.CLEAR over a parent that carries no trace runs fn as it is.
  function withTraceContext(trace, labels, fn) {
    checkCallback(fn);
    const next = traceSet(trace, labels);
    return next === undefined ? fn() : runWith(next, fn);
  }

  // The same, imperatively for the rest of the current execution and what
  // it causes (AsyncLocalStorage#enterWith); returns the function that
  // restores what was current.
  function enterTraceContext(trace, labels) {
    const next = traceSet(trace, labels);
    if (next === undefined) return () => {};
    switcher.enable();
    const store = als.getStore();
    const prev = publisher.current;
    als.enterWith(next);
    publisher.install(next);
    return () => {
      als.enterWith(store);
      publisher.install(prev);
    };
  }

  function setResource(attributes) {
    const flat = [];
    for (const [k, v] of Object.entries(attributes)) {
      if (typeof v === 'string') flat.push(k, v);
      else if (typeof v === 'number' || typeof v === 'boolean') flat.push(k, String(v));
    }
    binding.setResource(flat);
  }

  function currentLabels() {
    return binding.currentLabels();
  }

  return Object.freeze({
    withLabels,
    currentLabels,
    supported: true,
    reason: null,
    [kInternal]: Object.freeze({ withTraceContext, enterTraceContext, setResource, TraceContext, records }),
    // Diagnostics: how labels are switched on this Node.js version, and
    // which addon file publishes them. (A function: the probe behind it runs
    // only when first needed.)
    strategy() {
      return Object.freeze({
        ...switcher.mode,
        publish: publisher.viaTypedArray ? 'typed-array' : 'native-call',
        addon: info.addon ?? null,
        threadContext: records ? binding.processContext().state : 'off',
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
    strategy: () => Object.freeze({ strategy: 'none', publish: 'none', addon: null, threadContext: 'off' }),
    [kInternal]: Object.freeze({
      withTraceContext(trace, labels, fn) {
        checkCallback(fn);
        readLabels(labels);
        return fn();
      },
      enterTraceContext() {
        return () => {};
      },
      setResource() {},
      TraceContext,
      records: false,
    }),
  });
}

module.exports = { createApi, kInternal };

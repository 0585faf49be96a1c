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
//   node-context.js  the hook-free walk readers do through V8's continuation
//                    data, and whether this thread publishes it

const { AsyncLocalStorage } = require('node:async_hooks');
const { isMainThread } = require('node:worker_threads');
const errors = require('./errors');
const { readLabels, LabelReader } = require('./labels');
const { FrozenCache } = require('./frozen-cache');
const { InternTable } = require('./intern');
const { retargetSet } = require('./label-set');
const { SlabWriter } = require('./slab');
const { createPublisher } = require('./publisher');
const { createSwitcher } = require('./switcher');
const { TraceContext } = require('./trace-context');
const { setUpNodeContext } = require('./node-context');
const { TRACE_SET } = require('./protocol');

// What lib/integrations/otel.js uses and users do not: withTraceContext()
// and setResource(). On a symbol shared by every copy of the package, as
// the API object itself is (lib/index.js).
const kInternal = Symbol.for('customlabels.internal');

function checkCallback(fn) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
}

const isOff = (v) => v === '0' || v === 'false' || v === 'off';

// OTEP 4947 thread context records are built and published unless
// CUSTOMLABELS_THREAD_CONTEXT is 0, false or off.
function threadContextWanted(env) {
  return !isOff(env.CUSTOMLABELS_THREAD_CONTEXT);
}

// Hooks switch the TLS pointers on every continuation unless
// CUSTOMLABELS_HOOKS is 0, false or off (configure() decides first).
function hooksWantedByEnv(env) {
  return !isOff(env.CUSTOMLABELS_HOOKS);
}

function checkOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw errors.invalidOptions('configure() options', 'an object', options);
  }
  if (options.hooks !== undefined && typeof options.hooks !== 'boolean') {
    throw errors.invalidOptions('options.hooks', 'a boolean', options.hooks);
  }
}

// `info.addon`: the file the binding was loaded from; `info.reason`: why
// there is no binding.
function createApi(binding, info = {}) {
  if (binding === null) return createUnsupportedApi(info.reason ?? 'no native addon');

  const records = typeof binding.threadContextSlot === 'function' && threadContextWanted(process.env);
  const als = new AsyncLocalStorage();
  const publisher = createPublisher(binding, records);
  const switcher = createSwitcher(als, publisher, binding);
  const reader = new LabelReader();
  const frozen = new FrozenCache();
  const interned = new InternTable();
  const writer = new SlabWriter(binding, records);

  // The thread's mode, decided at its first scope (decide()): whether hooks
  // switch the TLS pointers, and whether readers can walk to our store.
  let hooksOption; // configure({ hooks }) on this thread, if called
  let mode = null;

  // A set that carries nothing of the app's (a record with trace ids only,
  // or, without records, one label), for the layout probe.
  function probeSet(makeSet) {
    writer.useMaker(makeSet);
    let trace = null;
    if (records) {
      trace = TraceContext.fromHex(`${'0'.repeat(31)}1`, `${'0'.repeat(15)}1`, 0);
    }
    const updates = reader.read(records ? {} : { 'customlabels.probe': '1' });
    try {
      return writer.write(null, updates, trace);
    } finally {
      updates.clear();
    }
  }

  function decide() {
    const wanted = hooksOption ?? binding.hooksDefault() ?? hooksWantedByEnv(process.env);
    const node = setUpNodeContext(binding, als, probeSet);
    if (node.state !== 'published') writer.useMaker(null);
    let hooks = wanted || node.state !== 'published';
    let reason = !wanted && hooks ? `hooks stay on: ${node.reason}` : null;
    // Readers of the process context must be told to walk before a thread
    // stops switching the TLS pointers.
    if (!hooks && records && !binding.useNodeSchema(node.layout)) {
      hooks = true;
      reason = 'hooks stay on: the process context could not be republished with nodejs_v1_dev';
    }
    // Without hooks no set is installed in a TLS slot: sets need no BigInt
    // addresses (lib/label-set.js reads them when asked).
    if (!hooks) writer.addresses = false;
    mode = Object.freeze({ wanted, hooks, node, reason });
    return mode;
  }

  function configure(options) {
    checkOptions(options);
    if (options.hooks === undefined) return;
    if (mode !== null) {
      if (options.hooks !== mode.wanted) throw errors.configuredLate('hooks');
      return;
    }
    hooksOption = options.hooks;
    // The main thread's choice is the default of every worker.
    if (isMainThread) binding.setHooksDefault(options.hooks);
  }

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

  // The store of a scope: its set, or, where no label is left (null),
  // undefined, never null: a reader walking V8's continuation data takes
  // undefined for "no labels" and any other non-object for a torn heap.
  const storeOf = (set) => (set === null ? undefined : set);

  // Runs fn with `next` installed and as the store of its continuations.
  // Without hooks only the store: V8 carries it, readers walk to it.
  function runWith(next, fn) {
    if ((mode ?? decide()).hooks === false) return als.run(storeOf(next), fn);
    switcher.enable();
    const prev = publisher.installed();
    publisher.install(next);
    try {
      return als.run(storeOf(next), fn);
    } finally {
      publisher.install(prev);
    }
  }

  function withLabels(labels, fn) {
    checkCallback(fn);
    if (mode === null) decide();
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
    if (mode === null) decide();
    const next = traceSet(trace, labels);
    return next === undefined ? fn() : runWith(next, fn);
  }

  // The same, imperatively for the rest of the current execution and what
  // it causes (AsyncLocalStorage#enterWith); returns the function that
  // restores what was current.
  function enterTraceContext(trace, labels) {
    const next = traceSet(trace, labels);
    if (next === undefined) return () => {};
    const store = als.getStore();
    if ((mode ?? decide()).hooks === false) {
      als.enterWith(storeOf(next));
      return () => als.enterWith(store);
    }
    switcher.enable();
    const prev = publisher.installed();
    als.enterWith(storeOf(next));
    publisher.install(next);
    return () => {
      als.enterWith(store);
      publisher.install(prev);
    };
  }

  // The span of `trace` has new `labels` (customlabels/otel: attributes set
  // after it was activated): the set its activations run under (the last
  // one, over trace.lastParent) takes them in place, so every continuation
  // that holds it publishes them from its next switch, and a reader walking
  // V8's continuation data at once; installed on this thread, it is
  // installed again now. Sets of other scopes are untouched (a span's set is
  // its own: traceSet never interns it). Returns whether a set changed.
  function retraceSet(trace, labels) {
    const set = trace.lastSet;
    if (set === undefined || set === null) return false;
    const updates = reader.read(labels);
    let next;
    try {
      next = writer.write(trace.lastParent, updates, trace);
    } finally {
      updates.clear();
    }
    if (next === null || next === set) return false;
    if (writer.makeSet !== null && !mode.node.retarget(set, next)) return false;
    retargetSet(set, next);
    if (publisher.current === set) publisher.install(set);
    return true;
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
    if (mode === null || mode.hooks) return binding.currentLabels();
    const store = als.getStore();
    return store === undefined ? {} : binding.labelsOf(store.slab, store.offset);
  }

  return Object.freeze({
    withLabels,
    currentLabels,
    configure,
    supported: true,
    reason: null,
    [kInternal]: Object.freeze({ withTraceContext, enterTraceContext, retraceSet, setResource, TraceContext, records }),
    // Diagnostics: how labels are switched on this Node.js version, and
    // which addon file publishes them. (A function: the probe behind it runs
    // only when first needed.)
    strategy() {
      const m = mode ?? decide();
      const { node } = m;
      return Object.freeze({
        ...(m.hooks ? switcher.mode : { strategy: 'none' }),
        hooks: m.hooks,
        hooksReason: m.reason,
        publish: !m.hooks ? 'none' : publisher.viaTypedArray ? 'typed-array' : 'native-call',
        addon: info.addon ?? null,
        threadContext: records ? binding.processContext().state : 'off',
        schema: records ? binding.processContext().schema : null,
        nodeContext: node.state,
        nodeContextReason: node.reason,
        nodeLayout: node.layout,
        v8Unit: node.unitFile,
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
    configure(options) {
      checkOptions(options);
    },
    supported: false,
    reason,
    strategy: () =>
      Object.freeze({
        strategy: 'none',
        hooks: false,
        hooksReason: reason,
        publish: 'none',
        addon: null,
        threadContext: 'off',
        schema: null,
        nodeContext: 'unavailable',
        nodeContextReason: reason,
        nodeLayout: null,
        v8Unit: null,
      }),
    [kInternal]: Object.freeze({
      withTraceContext(trace, labels, fn) {
        checkCallback(fn);
        readLabels(labels);
        return fn();
      },
      enterTraceContext() {
        return () => {};
      },
      retraceSet() {
        return false;
      },
      setResource() {},
      TraceContext,
      records: false,
    }),
  });
}

module.exports = { createApi, kInternal };

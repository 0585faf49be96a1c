'use strict';

// One thread's publishing state, shared by the public API (lib/core/api.js)
// and the trace scopes (lib/core/trace-scopes.js):
// the private AsyncLocalStorage whose store is the current label set, the
// reader and caches that turn labels into sets, the publisher of the TLS
// pointers, the switcher that keeps them current, the thread's mode,
// decided at its first scope (lib/core/mode.js), and how scopes make their
// frames where another context carrier follows them (lib/core/observers.js).

const { AsyncLocalStorage } = require('node:async_hooks');
const { isMainThread } = require('node:worker_threads');
const errors = require('./errors');
const { LabelReader } = require('./labels');
const { FrozenCache } = require('./frozen-cache');
const { InternTable } = require('./intern');
const { createPublisher } = require('./publisher');
const { createSwitcher } = require('./switcher');
const { decideMode, readModeConfig } = require('./mode');
const { mirrorOtherWriters, watchOtherWriters } = require('./other-writers');
const { findFrames } = require('./frames');

// The store of a scope: its set, or, where no label is left (null),
// undefined, never null: a reader walking V8's continuation data takes
// undefined for "no labels" and any other non-object for a torn heap.
const storeOf = (set) => (set === null ? undefined : set);

function createThread(binding, env = process.env) {
  const config = readModeConfig(env);
  const records = typeof binding.threadContextSlot === 'function' && config.threadContext;
  const als = new AsyncLocalStorage();
  const publisher = createPublisher(binding, records);
  const switcher = createSwitcher(als, publisher, binding, config);
  const reader = new LabelReader();
  const frozen = new FrozenCache();
  const interned = new InternTable();

  let hooksOption; // configure({ hooks }) on this thread, if called
  let mode = null;
  // How scopes make their frames, where AsyncLocalStorage runs on
  // AsyncContextFrame: { frames, add } (lib/core/frames.js, which makes a
  // scope's one frame where AsyncLocalStorage#run makes two; add: an
  // observer's entries, or null), found at the thread's first scope; null
  // elsewhere, or before.
  let framer = null;
  // Another module's unclaimed otel_thread_ctx_nodejs_v1 gets this thread's
  // node context too (lib/core/other-writers.js), once it is published.
  const mirror = (path) => binding.mirrorNodeContext(path);

  const run = (store, fn) => (framer === null ? als.run(store, fn) : framer.frames.run(als, store, fn, framer.add));
  const enterWith = (store) => (framer === null ? als.enterWith(store) : framer.frames.enter(als, store, framer.add));

  const thread = {
    binding,
    als,
    publisher,
    switcher,
    reader,
    records,

    // The thread's mode (lib/core/mode.js), decided at the first call.
    mode() {
      if (mode === null) {
        mode = decideMode({ binding, als, reader, records, config, hooksOption });
        if (!mode.hooks) mirrorOtherWriters(mirror);
        if (framer === null) {
          const frames = findFrames();
          if (frames.reason === undefined) framer = { frames, add: null };
        }
      }
      return mode;
    },

    // The mode if it was decided, else null (nothing decided or probed).
    decidedMode() {
      return mode;
    },

    // configure({ hooks }): before the thread's first scope only.
    setHooks(hooks) {
      if (mode !== null) {
        if (hooks !== mode.wanted) throw errors.configuredLate('hooks');
        return;
      }
      hooksOption = hooks;
      // The main thread's choice is the default of every worker.
      if (isMainThread) binding.setHooksDefault(hooks);
    },

    // The current set, or null.
    current() {
      const store = als.getStore();
      return store === undefined ? null : store;
    },

    // The set `labels` makes when merged over `parent` (a LabelSet or null).
    derive(parent, labels) {
      const hit = frozen.get(parent, labels);
      if (hit !== undefined) return hit;
      const updates = reader.read(labels);
      let set = interned.lookup(parent, updates);
      if (set === undefined) {
        set = thread.mode().writer.write(parent, updates);
        interned.remember(set);
      }
      const { primitive } = updates;
      updates.clear();
      frozen.remember(parent, labels, set, primitive);
      return set;
    },

    // The set `labels` and `trace` (a TraceContext) make over `parent`, not
    // cached: span sets are each their own (lib/core/trace-scopes.js).
    write(parent, labels, trace) {
      const updates = reader.read(labels);
      try {
        return thread.mode().writer.write(parent, updates, trace);
      } finally {
        updates.clear();
      }
    },

    // Runs fn with `next` installed and as the store of its continuations.
    // Without hooks only the store: V8 carries it, readers walk to it.
    runWith(next, fn) {
      if (thread.mode().hooks === false) return run(storeOf(next), fn);
      switcher.enable();
      const prev = publisher.installed();
      publisher.install(next);
      try {
        return run(storeOf(next), fn);
      } finally {
        publisher.install(prev);
      }
    },

    // `next` for the rest of the current execution and what it causes
    // (AsyncLocalStorage#enterWith), for good: nothing restores what was
    // current (what runs after it in this execution is the same work's).
    enterForGood(next) {
      if (thread.mode().hooks === false) {
        enterWith(storeOf(next));
        return;
      }
      switcher.enable();
      enterWith(storeOf(next));
      publisher.install(next);
    },

    // The same, returning the function that restores what was current.
    enter(next) {
      const store = als.getStore();
      if (thread.mode().hooks === false) {
        enterWith(storeOf(next));
        return () => enterWith(store);
      }
      switcher.enable();
      const prev = publisher.installed();
      enterWith(storeOf(next));
      publisher.install(next);
      return () => {
        enterWith(store);
        publisher.install(prev);
      };
    },

    // Scopes make their frames with `frames` (lib/core/frames.js), each
    // given add(frame, store)'s entries (lib/core/observers.js); add null:
    // none but their own.
    setFramer(frames, add) {
      framer = { frames, add };
    },
  };
  // Other writers of the same standards (lib/core/other-writers.js): looked
  // for on the main thread a second and ten seconds in (a profiler loads its
  // module and publishes its context as the app starts), once labels ran.
  if (isMainThread) watchOtherWriters(() => (mode === null ? null : { hooks: mode.hooks, context: records ? binding.processContext().state : null, mirror: mode.hooks ? null : mirror }));
  return thread;
}

module.exports = { createThread };

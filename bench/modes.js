'use strict';

// The instrumentation modes every benchmark compares, in one process each:
//   none    no instrumentation
//   loaded  customlabels required but never used (must cost nothing)
//   als     an AsyncLocalStorage.run per request/scope (the baseline)
//   floor   als plus *empty* hooks of the kinds customlabels settles on
//           (lib/core/switcher.js: 'frame-before' on Node.js 24+), so the table
//           shows which part of the cost is customlabels' own
//   bound   floor whose hooks do the least any switch does: read the
//           store and write two pointers (custom_labels_current_set and
//           otel_thread_ctx_v1, into an array of its own), and for a
//           callback that nests, give the caller's back in `after`: what
//           no switch on these hooks goes below
//   floor-init  the same for the kinds of 'resource-init+promise-hooks'
//           (every resource's init, before and after, promise before and
//           after): what the switch cost before issue #25
//   labels  customlabels.withLabels
//   labels-init  the same with the switch of before issue #25
//           (CUSTOMLABELS_SWITCH=resource-init: every resource's init,
//           before and after; promise before and after)
//   labels-plain  withLabels with hooks and without the V8 unit
//           (CUSTOMLABELS_NODE_CONTEXT=0): label sets are plain objects, not
//           wrappers, as before issue #17
//   labels-nohooks  the same without hooks (CUSTOMLABELS_HOOKS=0): readers
//           walk V8's continuation data (Node.js 22+ with AsyncContextFrame)
//   datadog the peer: @datadog/pprof's ThreadContext (the same hook-free
//           contract), a new context per scope with the labels' values as
//           attributes, run through its own AsyncLocalStorage
//   pprof-none  @datadog/pprof's wall profiler running (withContexts; with
//           useCPED where AsyncLocalStorage runs on AsyncContextFrame,
//           unless BENCH_PPROF_GLOBAL=1), no context per scope
//   pprof-own   the same, each scope with the profiler's own context:
//           runWithContext(labels, fn) (useCPED), or setContext(labels)
//           before fn (one context per thread, as Pyroscope's SDK sets it)
//   pprof-labels  the same profiler followed by customlabels/pprof, each
//           scope withLabels
//   pprof-labels-nohooks  the same without hooks (useCPED only)
// run(labels, fn) runs fn in the mode's scope.

const { AsyncLocalStorage, createHook } = require('node:async_hooks');
const v8 = require('node:v8');

// Empty hooks of the kinds of `strategy` (lib/core/switcher.js): 'settled' (the
// one customlabels ends up with here) or 'resource-init+promise-hooks'.
// Returns what the switcher's probe found.
function floorHooks(strategy = 'settled') {
  const { probe } = require('../lib/core/switcher');
  const mode = probe();
  const noop = () => {};
  if (mode.storeVisibleInBefore) {
    createHook({ before: noop, after: noop }).enable();
  } else if (strategy === 'settled' && mode.frameSymbol !== null && !mode.asyncHooksTrackPromises) {
    createHook({ before: noop, after: noop, trackPromises: false }).enable();
    v8.promiseHooks.onBefore(noop);
  } else {
    createHook({ init: noop, before: noop, after: noop, trackPromises: false }).enable();
    if (!mode.asyncHooksTrackPromises) v8.promiseHooks.createHook({ before: noop, after: noop });
  }
  return mode;
}

// The hooks of `bound` (see above), of the kinds floorHooks('settled')
// installs. A scope's store is its labels object; its "pointers" are two
// BigInts made once per store.
function boundHooks(als) {
  const { probe } = require('../lib/core/switcher');
  const mode = probe();
  const slot = new BigUint64Array(2);
  const pointers = new WeakMap();
  let next = 0x10000n;
  const pointersOf = (store) => {
    let p = pointers.get(store);
    if (p === undefined) {
      p = { set: (next += 64n), record: next + 32n };
      pointers.set(store, p);
    }
    return p;
  };
  const stack = [];
  let current;
  const write = (store) => {
    current = store;
    if (store === undefined) {
      slot[0] = 0n;
      slot[1] = 0n;
    } else {
      const p = store.pointers ?? (store.pointers = pointersOf(store));
      slot[0] = p.set;
      slot[1] = p.record;
    }
  };
  const before = () => {
    stack.push(current);
    write(als.getStore());
  };
  const after = () => write(stack.pop());
  if (mode.storeVisibleInBefore) {
    createHook({ before, after }).enable();
  } else {
    createHook({ before, after, trackPromises: false }).enable();
    v8.promiseHooks.onBefore(() => write(als.getStore()));
  }
}

// An AsyncLocalStorage#run per scope, whose first scope installs
// `install(als)`'s hooks (as customlabels' first withLabels does).
function hookedAtFirstRun(install) {
  const als = new AsyncLocalStorage();
  let hooked = false;
  return {
    run: (labels, fn) => {
      if (!hooked) {
        hooked = true;
        install(als);
      }
      return als.run(labels, fn);
    },
  };
}

function createMode(name) {
  switch (name) {
    case 'none':
      return { run: (labels, fn) => fn() };
    case 'loaded':
      require('..');
      return { run: (labels, fn) => fn() };
    case 'als': {
      const als = new AsyncLocalStorage();
      return { run: (labels, fn) => als.run(labels, fn) };
    }
    case 'floor':
    case 'floor-init':
      return hookedAtFirstRun(() => floorHooks(name === 'floor' ? 'settled' : 'resource-init+promise-hooks'));
    case 'bound':
      return hookedAtFirstRun(boundHooks);
    case 'labels': {
      const { withLabels } = require('..');
      return { run: withLabels };
    }
    case 'labels-init': {
      process.env.CUSTOMLABELS_SWITCH = 'resource-init';
      const { withLabels } = require('..');
      return { run: withLabels };
    }
    case 'labels-plain': {
      process.env.CUSTOMLABELS_NODE_CONTEXT = '0';
      const { withLabels } = require('..');
      return { run: withLabels };
    }
    case 'labels-nohooks': {
      const cl = require('..');
      cl.configure({ hooks: false });
      return { run: cl.withLabels };
    }
    case 'datadog': {
      const { ThreadContext } = require('@datadog/pprof').otelThreadCtx;
      const traceId = new Uint8Array(16);
      const spanId = new Uint8Array(8);
      traceId[15] = 1;
      spanId[7] = 1;
      return {
        run: (labels, fn) => new ThreadContext(traceId, spanId, 1, Object.values(labels)).run(fn),
      };
    }
    case 'pprof-none':
    case 'pprof-own':
    case 'pprof-labels':
    case 'pprof-labels-nohooks':
      return pprofMode(name);
    default:
      throw new Error(`unknown mode ${name}`);
  }
}

// A wall profiler at Pyroscope's default rate (100 Hz), started as the
// mode says.
function pprofMode(name) {
  const { findFrames } = require('../lib/core/frames');
  const useCPED = process.env.BENCH_PPROF_GLOBAL !== '1' && findFrames().reason === undefined;
  const cl = name.startsWith('pprof-labels') ? require('..') : null;
  if (name === 'pprof-labels-nohooks') cl.configure({ hooks: false });
  const pprof = require('@datadog/pprof');
  if (cl !== null) require('../lib/integrations/pprof').instrument(pprof);
  pprof.time.start({ intervalMicros: 10000, durationMillis: 60000, withContexts: true, useCPED });
  const { time } = pprof;
  if (cl !== null) return { run: cl.withLabels };
  if (name === 'pprof-none') return { run: (labels, fn) => fn() };
  if (useCPED) return { run: (labels, fn) => time.runWithContext(labels, fn) };
  return {
    run: (labels, fn) => {
      time.setContext(labels);
      return fn();
    },
  };
}

module.exports = { createMode, floorHooks, MODES: ['none', 'loaded', 'als', 'floor', 'labels'] };

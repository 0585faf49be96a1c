'use strict';

// The instrumentation modes every benchmark compares, in one process each:
//   none    no instrumentation
//   loaded  customlabels required but never used (must cost nothing)
//   als     an AsyncLocalStorage.run per request/scope (the baseline)
//   floor   als plus *empty* hooks of the kinds customlabels installs, so
//           the table shows which part of the cost is customlabels' own
//   labels  customlabels.withLabels
//   labels-plain  withLabels with hooks and without the V8 unit
//           (CUSTOMLABELS_NODE_CONTEXT=0): label sets are plain objects, not
//           wrappers, as before issue #17
//   labels-nohooks  the same without hooks (CUSTOMLABELS_HOOKS=0): readers
//           walk V8's continuation data (Node.js 22+ with AsyncContextFrame)
//   datadog the peer: @datadog/pprof's ThreadContext (the same hook-free
//           contract), a new context per scope with the labels' values as
//           attributes, run through its own AsyncLocalStorage
// run(labels, fn) runs fn in the mode's scope.

const { AsyncLocalStorage, createHook } = require('node:async_hooks');
const v8 = require('node:v8');

function floorHooks() {
  const { probe } = require('../lib/switcher');
  const mode = probe();
  const noop = () => {};
  if (mode.storeVisibleInBefore) {
    createHook({ before: noop, after: noop }).enable();
  } else {
    createHook({ init: noop, before: noop, after: noop, trackPromises: false }).enable();
    if (!mode.asyncHooksTrackPromises) v8.promiseHooks.createHook({ before: noop, after: noop });
  }
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
    case 'floor': {
      const als = new AsyncLocalStorage();
      let hooked = false;
      return {
        run: (labels, fn) => {
          if (!hooked) {
            hooked = true;
            floorHooks();
          }
          return als.run(labels, fn);
        },
      };
    }
    case 'labels': {
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
    default:
      throw new Error(`unknown mode ${name}`);
  }
}

module.exports = { createMode, floorHooks, MODES: ['none', 'loaded', 'als', 'floor', 'labels'] };

'use strict';

// The instrumentation modes every benchmark compares, in one process each:
//   none    no instrumentation
//   loaded  customlabels required but never used (must cost nothing)
//   als     an AsyncLocalStorage.run per request/scope (the baseline)
//   floor   als plus *empty* hooks of the kinds customlabels settles on
//           (lib/core/switcher.js: 'frame-before' on Node.js 24+), so the table
//           shows which part of the cost is customlabels' own
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
// run(labels, fn) runs fn in the mode's scope.

const { AsyncLocalStorage, createHook } = require('node:async_hooks');
const v8 = require('node:v8');

// Empty hooks of the kinds of `strategy` (lib/core/switcher.js): 'settled' (the
// one customlabels ends up with here) or 'resource-init+promise-hooks'.
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
    case 'floor-init': {
      const als = new AsyncLocalStorage();
      let hooked = false;
      return {
        run: (labels, fn) => {
          if (!hooked) {
            hooked = true;
            floorHooks(name === 'floor' ? 'settled' : 'resource-init+promise-hooks');
          }
          return als.run(labels, fn);
        },
      };
    }
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
    default:
      throw new Error(`unknown mode ${name}`);
  }
}

module.exports = { createMode, floorHooks, MODES: ['none', 'loaded', 'als', 'floor', 'labels'] };

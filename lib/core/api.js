'use strict';

// The public API over one thread's state (lib/core/thread.js), or, without a
// native addon (another platform, no binary, another copy holding the
// slot), an API that validates its arguments and runs the code unlabelled.

const errors = require('./errors');
const { readLabels } = require('./labels');

function checkCallback(fn) {
  if (typeof fn !== 'function') throw errors.invalidCallback(fn);
}

function checkOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw errors.invalidOptions('configure() options', 'an object', options);
  }
  if (options.hooks !== undefined && typeof options.hooks !== 'boolean') {
    throw errors.invalidOptions('options.hooks', 'a boolean', options.hooks);
  }
}

// `info.addon`: the file the binding was loaded from.
function createApi(thread, info = {}) {
  const { binding, als, switcher, publisher, records } = thread;

  function withLabels(labels, fn) {
    checkCallback(fn);
    thread.mode();
    return thread.runWith(thread.derive(thread.current(), labels), fn);
  }

  function currentLabels() {
    const m = thread.decidedMode();
    if (m === null || m.hooks) return binding.currentLabels();
    const store = als.getStore();
    return store === undefined ? {} : binding.labelsOf(store.slab, store.offset);
  }

  function configure(options) {
    checkOptions(options);
    if (options.hooks !== undefined) thread.setHooks(options.hooks);
  }

  // Diagnostics: how labels are switched on this Node.js version, and which
  // addon file publishes them. (A function: the probe behind it runs only
  // when first needed.)
  function strategy() {
    const m = thread.mode();
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
  }

  return Object.freeze({ withLabels, currentLabels, configure, supported: true, reason: null, strategy });
}

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
  });
}

module.exports = { createApi, createUnsupportedApi, checkCallback };

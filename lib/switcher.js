'use strict';

// Keeps the thread's `custom_labels_current_set` equal to the label set of
// the async context that is running, on every continuation.
//
// The label set of a context is the store of a private AsyncLocalStorage.
// What differs between Node.js lines is *when* that store is readable:
//
// - AsyncLocalStorage on async_hooks (Node 18-22 by default): the
//   continuation's resource is pushed before `before` hooks run, so a
//   `before` hook reads the right store for every kind of resource,
//   promises included.
// - AsyncLocalStorage on AsyncContextFrame (Node 24+): V8 switches the frame
//   before PromiseHook `before` for promise reactions, but Node switches it
//   only *after* async_hooks `before` for other resources
//   (AsyncResource.runInAsyncScope, native callbacks). For those, the store
//   is recorded on the resource in `init` (which runs in the creating
//   context) and read back in `before`; promises are switched by a
//   v8.promiseHooks `before` hook reading the store, unless async_hooks
//   cannot leave promises out, in which case their `init` records it too.
//
// Which case applies is found by a synchronous probe, not by version.
// Every `before` pushes what was current and the matching `after` restores
// it, so a nested scope (runInAsyncScope inside a labelled scope) gives the
// caller its labels back and an unlabelled continuation shows NULL.

const asyncHooks = require('node:async_hooks');
const v8 = require('node:v8');

const { AsyncLocalStorage, AsyncResource, createHook, executionAsyncResource } = asyncHooks;

function noop() {}

function probe() {
  const storage = new AsyncLocalStorage();
  const token = {};
  let seen;
  let promiseInit = false;
  const hook = createHook({
    init(asyncId, type) {
      if (type === 'PROMISE') promiseInit = true;
    },
    before() {
      seen = storage.getStore();
    },
    trackPromises: false,
  });
  hook.enable();
  try {
    let resource;
    storage.run(token, () => {
      resource = new AsyncResource('CUSTOMLABELS_PROBE', { requireManualDestroy: true });
    });
    resource.runInAsyncScope(noop);
    Promise.resolve(); // creating a promise runs PromiseHook init, if tracked
  } finally {
    hook.disable();
    storage.disable();
  }
  return {
    storeVisibleInBefore: seen === token,
    asyncHooksTrackPromises: promiseInit,
  };
}

// `publisher` has `current` (the installed set or null) and install(set).
// Nothing is probed or hooked before the first enable(): a loaded but unused
// module must cost nothing (the probe's getStore() alone would make Node pass
// the resource of every native callback to JS from then on).
function createSwitcher(als, publisher) {
  const stack = [];

  function restore() {
    const set = stack.pop();
    publisher.install(set === undefined ? null : set);
  }

  function switchToStore() {
    stack.push(publisher.current);
    const set = als.getStore();
    publisher.install(set === undefined ? null : set);
  }

  let mode = null;
  let hook = null;
  let promiseHooks = null;

  function setup() {
    const found = probe();
    if (found.storeVisibleInBefore) {
      hook = createHook({ before: switchToStore, after: restore });
    } else {
      const kLabels = Symbol('customlabels.labels');
      hook = createHook({
        init(asyncId, type, triggerAsyncId, resource) {
          const set = als.getStore();
          // Unlabelled resources get no property (a reused one is reset).
          if (set === undefined && resource[kLabels] === undefined) return;
          try {
            resource[kLabels] = set;
          } catch {
            // A frozen resource keeps no labels: its callbacks run unlabelled.
          }
        },
        before() {
          stack.push(publisher.current);
          const set = executionAsyncResource()[kLabels];
          publisher.install(set === undefined ? null : set);
        },
        after: restore,
        trackPromises: false,
      });
      if (!found.asyncHooksTrackPromises) {
        promiseHooks = { before: switchToStore, after: restore };
      }
    }
    mode = Object.freeze({
      ...found,
      strategy: found.storeVisibleInBefore
        ? 'async-hooks'
        : promiseHooks !== null
          ? 'resource-init+promise-hooks'
          : 'resource-init',
    });
  }

  let enabled = false;
  return {
    get mode() {
      if (mode === null) setup();
      return mode;
    },
    get enabled() {
      return enabled;
    },
    enable() {
      if (enabled) return;
      if (mode === null) setup();
      enabled = true;
      hook.enable();
      if (promiseHooks !== null) v8.promiseHooks.createHook(promiseHooks);
    },
  };
}

module.exports = { createSwitcher, probe };

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
//   promises included ('async-hooks').
// - AsyncLocalStorage on AsyncContextFrame (Node 24+, 22 with its flag): V8
//   switches the frame before PromiseHook `before` for promise reactions,
//   and Node switches it before async_hooks `before` for its timers,
//   immediates, ticks and native callbacks, but only *after* it for an
//   AsyncResource (runInAsyncScope, bound functions, EventEmitterAsyncResource),
//   which keeps its frame on itself. Until an asynchronous probe has seen
//   this on the running Node.js, the store is recorded on every resource in
//   `init` and read back in `before` ('resource-init+promise-hooks'). At
//   the first microtask checkpoint the probe has seen a promise reaction,
//   and promises switch by a `before` hook alone from then on
//   ('resource-init+promise-before': an `await` costs what it will cost
//   settled, however long the first stretch of microtasks runs); once the
//   event loop has turned and the probe has seen every other kind, the
//   switch is 'frame-before': no `init` hook either, other resources
//   switched by `before` (an AsyncResource read through its frame) and
//   `after`.
//
// Every `before` of a non-promise resource pushes what was installed and
// the matching `after` restores it, so a nested scope (runInAsyncScope
// inside a labelled scope) gives the caller its labels back. Promise
// reactions never nest (V8 runs them only from an empty stack), so in
// 'frame-before' (and the step before it) they have no `after`: the labels
// of the last one stay installed until the next switch, or until the
// thread's event loop is about to wait for I/O, when the addon clears them
// (binding.clearWhenIdle(), a libuv prepare handle): a thread idle in the
// event loop shows no labels.
// docs/how-it-works.md lists where a sample can so see the previous
// continuation's labels, and for how long.
//
// Which case applies is found by probes, not by version.

const asyncHooks = require('node:async_hooks');
const fs = require('node:fs');
const v8 = require('node:v8');

const { AsyncLocalStorage, AsyncResource, createHook, executionAsyncResource } = asyncHooks;

function noop() {}

// Synchronous, at the first scope: whether `before` sees the store of an
// AsyncResource's creator (AsyncLocalStorage on async_hooks), whether
// async_hooks can leave promises out, and where an AsyncResource keeps its
// frame (the own symbol whose value maps the storage to the store), if it
// keeps one.
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
  let frameSymbol = null;
  try {
    let resource;
    storage.run(token, () => {
      resource = new AsyncResource('CUSTOMLABELS_PROBE', { requireManualDestroy: true });
    });
    resource.runInAsyncScope(noop);
    Promise.resolve(); // creating a promise runs PromiseHook init, if tracked
    // Node's AsyncContextFrame is a Map of its own realm's making (not
    // `instanceof Map` here): it is known by what it maps.
    for (const symbol of Object.getOwnPropertySymbols(resource)) {
      const value = resource[symbol];
      if (value !== null && typeof value === 'object' && typeof value.get === 'function' && value.get(storage) === token) {
        frameSymbol = symbol;
      }
    }
  } finally {
    hook.disable();
    storage.disable();
  }
  return {
    storeVisibleInBefore: seen === token,
    asyncHooksTrackPromises: promiseInit,
    frameSymbol,
  };
}

// Asynchronous, once, where the store is not visible in `before` for an
// AsyncResource: whether it is for everything else that calls back (a
// promise reaction, an immediate, a timer, a tick, a native callback).
// Calls `promise(ok)` from the first promise reaction (at the first
// microtask checkpoint) and `all(ok)` once every kind has called back, `ok`
// being whether each one saw the store. Its async_hooks hook leaves
// promises out (trackPromises: false), so while it waits for the event loop
// to turn, an `await` pays only for the switch.
function probeCallbacks({ promise, all }) {
  const storage = new AsyncLocalStorage();
  const token = {};
  let inBefore;
  const hook = createHook({
    before() {
      inBefore = storage.getStore();
    },
    trackPromises: false,
  });
  const promiseHook = v8.promiseHooks.onBefore(() => {
    inBefore = storage.getStore();
  });
  const kinds = ['promise', 'immediate', 'timer', 'tick', 'native'];
  const seen = new Set();
  let failed = false;
  const check = (kind) => {
    const ok = inBefore === token;
    if (!ok) failed = true;
    seen.add(kind);
    if (kind === 'promise') {
      promiseHook();
      promise(ok);
    }
    if (seen.size < kinds.length) return;
    hook.disable();
    storage.disable();
    all(!failed);
  };
  hook.enable();
  storage.run(token, () => {
    Promise.resolve().then(() => check('promise'));
    setImmediate(() => check('immediate'));
    setTimeout(() => check('timer'), 0).unref();
    process.nextTick(() => check('tick'));
    fs.stat(__filename, () => check('native'));
  });
}

// `publisher` has `current` (the installed set or null), installed() (the
// same, or null where the addon cleared the slot since) and install(set).
// `binding` may offer clearWhenIdle(); `config` is the thread's
// (lib/core/mode.js readModeConfig: cheaperSwitch). Nothing is probed or
// hooked before the first enable(): a loaded but unused module must cost
// nothing (the probe's
// getStore() alone would make Node pass the resource of every native
// callback to JS from then on).
function createSwitcher(als, publisher, binding, config) {
  const stack = [];

  function restore() {
    const set = stack.pop();
    publisher.install(set === undefined ? null : set);
  }

  // (Used only before any idle clear has started: `current` is what the
  // slot holds.)
  function switchToStore() {
    stack.push(publisher.current);
    const set = als.getStore();
    publisher.install(set === undefined ? null : set);
  }

  function switchPromise() {
    const set = als.getStore();
    publisher.install(set === undefined ? null : set);
  }

  let mode = null;
  let hook = null;
  let promiseHooks = null;
  let stopPromiseHooks = null;

  // 'frame-before': the store of the resource about to call back; an
  // AsyncResource's through its own frame (Node switches to it after
  // `before`), anything else's is the current one.
  function frameBefore(frameSymbol) {
    return function before() {
      stack.push(publisher.installed());
      const resource = executionAsyncResource();
      let set;
      if (resource instanceof AsyncResource) {
        const frame = resource[frameSymbol];
        set = frame === undefined ? undefined : frame.get(als);
      } else {
        set = als.getStore();
      }
      publisher.install(set === undefined ? null : set);
    };
  }

  // 'resource-init': the store recorded on every resource at `init` and
  // read back in its `before`. `saved()` is what the matching `after` gives
  // back: `current` until the idle clear starts, the slot's own set after.
  const kLabels = Symbol('customlabels.labels');
  function resourceInit(saved) {
    return createHook({
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
        stack.push(saved());
        const set = executionAsyncResource()[kLabels];
        publisher.install(set === undefined ? null : set);
      },
      after: restore,
      trackPromises: false,
    });
  }

  function setup() {
    const found = probe();
    const { frameSymbol, ...shown } = found;
    if (found.storeVisibleInBefore) {
      hook = createHook({ before: switchToStore, after: restore });
    } else {
      hook = resourceInit(() => publisher.current);
      if (!found.asyncHooksTrackPromises) {
        promiseHooks = { before: switchToStore, after: restore };
      }
    }
    mode = {
      ...shown,
      strategy: found.storeVisibleInBefore
        ? 'async-hooks'
        : promiseHooks !== null
          ? 'resource-init+promise-hooks'
          : 'resource-init',
      clearsWhenIdle: false,
    };
    // The cheaper switch needs all of: the frame of an AsyncResource, v8's
    // promise hooks, a slot the addon can clear behind JS (typed-array
    // publishing), the addon's idle clear, and the probe of every other
    // kind of callback.
    if (
      frameSymbol !== null &&
      promiseHooks !== null &&
      publisher.viaTypedArray &&
      typeof binding?.clearWhenIdle === 'function' &&
      config.cheaperSwitch
    ) {
      mode.upgrade = { frameSymbol };
    }
  }

  // The switch replaces `hook` and the promise hooks in two steps, each
  // from a promise reaction (no callback's `before` is open then, and the
  // old promise hooks' `after` of this very reaction will not run, so the
  // stack is emptied). First, as soon as the probe's promise reaction saw
  // the store: promises switch by a `before` alone, the idle clear starts,
  // other resources keep 'resource-init' ('resource-init+promise-before').
  // Then, once every other kind of callback was seen: 'frame-before'.
  function switchPromises() {
    if (!binding.clearWhenIdle()) return false;
    hook.disable();
    stopPromiseHooks();
    stack.length = 0;
    hook = resourceInit(() => publisher.installed());
    hook.enable();
    stopPromiseHooks = v8.promiseHooks.onBefore(switchPromise);
    mode.strategy = 'resource-init+promise-before';
    mode.clearsWhenIdle = true;
    return true;
  }

  function switchResources({ frameSymbol }) {
    hook.disable();
    stack.length = 0;
    hook = createHook({ before: frameBefore(frameSymbol), after: restore, trackPromises: false });
    hook.enable();
    mode.strategy = 'frame-before';
  }

  function startProbes(pending) {
    let promisesSwitched = false;
    probeCallbacks({
      promise(ok) {
        if (ok) promisesSwitched = switchPromises();
      },
      all(ok) {
        if (ok && promisesSwitched) Promise.resolve(pending).then(switchResources);
      },
    });
  }

  let enabled = false;
  return {
    get mode() {
      if (mode === null) setup();
      const { upgrade: pending, ...shown } = mode;
      return Object.freeze({ ...shown });
    },
    get enabled() {
      return enabled;
    },
    enable() {
      if (enabled) return;
      if (mode === null) setup();
      enabled = true;
      hook.enable();
      if (promiseHooks !== null) stopPromiseHooks = v8.promiseHooks.createHook(promiseHooks);
      if (mode.upgrade !== undefined) {
        const pending = mode.upgrade;
        delete mode.upgrade;
        startProbes(pending);
      }
    },
  };
}

module.exports = { createSwitcher, probe };

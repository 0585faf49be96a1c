'use strict';

// Preloaded by bench/services.js's `empty-hooks` mode: the hooks
// customlabels' switch installs on Node.js 24+ (an async_hooks hook with
// `before` and `after` that leaves promises out, and V8's promise `before`
// hook), empty. What any hook-based label switch pays in dispatch: the
// floor register's hooks-on mode is measured against.

const { createHook } = require('node:async_hooks');
const v8 = require('node:v8');

const noop = () => {};
createHook({ before: noop, after: noop, trackPromises: false }).enable();
v8.promiseHooks.onBefore(noop);

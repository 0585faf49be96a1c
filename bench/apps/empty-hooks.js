'use strict';

// Preloaded by bench/services.js's and bench/service-instructions.js's
// `empty-hooks` mode: what any hook-based label switch pays before it does
// anything, the floor register's hooks-on mode is measured against. It is
// what customlabels' switch installs on the running Node.js, empty
// (bench/modes.js floorHooks: on Node.js 24+ an async_hooks hook with
// `before` and `after` that leaves promises out, and V8's promise `before`
// hook; on Node.js 18-22 one with `before` and `after` on every resource,
// promises included), and, where AsyncLocalStorage runs on async_hooks
// (Node.js 18-22), an AsyncLocalStorage in use: there the switch carries
// its sets in one, and that storage's own `init` hook copies the store onto
// every resource, promises included, whatever the store is. (On Node.js
// 24+ a storage costs nothing per resource: the frame is V8's.) Until
// 2026-11-29 the floor on Node.js 18-22 had no storage.

const { AsyncLocalStorage } = require('node:async_hooks');
const { floorHooks } = require('../modes');

if (floorHooks().storeVisibleInBefore) new AsyncLocalStorage().enterWith(undefined);

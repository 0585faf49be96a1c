'use strict';

// The one instance of customlabels per loaded addon and thread: the public
// API, the trace scopes (lib/core/trace-scopes.js), the scopes entered where
// no function wraps the work (lib/core/scopes.js) and the observer point
// (lib/core/observers.js). The thread has one
// `custom_labels_current_set`, so every copy of this package that uses the
// same addon (another version in node_modules, bundlers, Jest's per-file
// module registries) must share one switcher and one AsyncLocalStorage. The
// addon's exports object is per thread (per Node.js environment) and shared
// by every require() of its file, so the instance lives on it. (Copies that
// share an addon speak one protocol, lib/core/protocol.js, which covers this
// instance's shape.)

const { createApi, createUnsupportedApi } = require('./api');
const { createThread } = require('./thread');
const { createTraceScopes, unsupportedTraceScopes } = require('./trace-scopes');
const { createObservers, unsupportedObservers } = require('./observers');
const { createScopes, unsupportedScopes } = require('./scopes');

const kInstance = Symbol.for('customlabels.instance');

// A new instance over `binding` (null: none; info.reason says why), for
// instanceOf and for tests that give it a binding of their own.
function createInstance(binding, info = {}) {
  if (binding === null) {
    return Object.freeze({ api: createUnsupportedApi(info.reason ?? 'no native addon'), traceScopes: unsupportedTraceScopes, scopes: unsupportedScopes, observers: unsupportedObservers });
  }
  const thread = createThread(binding);
  return Object.freeze({ api: createApi(thread, info), traceScopes: createTraceScopes(thread), scopes: createScopes(thread), observers: createObservers(thread) });
}

// The instance of `loaded` (lib/core/binding.js loadBinding()): the one on
// its binding, made if none is there yet.
function instanceOf(loaded) {
  const { binding, file, reason } = loaded;
  if (binding === null) return createInstance(null, { reason });
  if (binding[kInstance] === undefined) {
    Object.defineProperty(binding, kInstance, { value: createInstance(binding, { addon: file }) });
  }
  return binding[kInstance];
}

module.exports = { createInstance, instanceOf };

'use strict';

const { createApi } = require('./api');
const { loadBinding } = require('./binding');

// One API per loaded addon and thread: the thread has one
// `custom_labels_current_set`, so every copy of this package that uses the
// same addon (another version in node_modules, bundlers, Jest's per-file
// module registries) must share one switcher and one AsyncLocalStorage. The
// addon's exports object is per thread (per Node.js environment) and shared
// by every require() of its file, so the API lives on it.
const kApi = Symbol.for('customlabels.api');
const { binding, file, reason } = loadBinding();
let api;
if (binding === null) {
  api = createApi(null, { reason });
} else {
  if (binding[kApi] === undefined) {
    Object.defineProperty(binding, kApi, { value: createApi(binding, { addon: file }) });
  }
  api = binding[kApi];
}

module.exports = api;

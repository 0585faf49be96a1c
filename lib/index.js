'use strict';

const { createApi } = require('./api');
const { loadBinding } = require('./binding');

// One API per loaded addon: the thread has one `custom_labels_current_set`,
// so every copy of this file that loads the same addon (bundlers, Jest's
// per-file module registries) must share one switcher and one
// AsyncLocalStorage.
const kApi = Symbol.for('customlabels.api');
const binding = loadBinding();
let api;
if (binding === null) {
  api = createApi(null);
} else {
  if (binding[kApi] === undefined) {
    Object.defineProperty(binding, kApi, { value: createApi(binding) });
  }
  api = binding[kApi];
}

module.exports = api;

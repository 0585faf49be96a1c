'use strict';

// Preloaded (--require) into a fixture that test/versions runs against one
// set of package versions: the packages of that set (installed by
// test/versions/cache.js in CUSTOMLABELS_VERSIONS_DIR/node_modules) are
// what a bare require of their names resolves to, from any module outside
// that folder (the fixture, the repository's own node_modules, customlabels
// itself); everything else resolves as it does without this. What runs is
// the app as it would run with those versions installed: customlabels/
// register, loaded after this, sees them by name and by file path.

const Module = require('node:module');
const path = require('node:path');

const dir = process.env.CUSTOMLABELS_VERSIONS_DIR;
if (typeof dir === 'string' && dir !== '') {
  const modules = path.join(dir, 'node_modules');
  const names = new Set(JSON.parse(process.env.CUSTOMLABELS_VERSIONS_PACKAGES ?? '[]'));
  // A module in the set's folder, as the parent its requires resolve from.
  const fromSet = { id: modules, filename: path.join(dir, 'index.js'), paths: [modules] };
  const packageOf = (request) => {
    const parts = request.split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  };
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveFromSet(request, parent, isMain, options) {
    if (typeof request === 'string' && names.has(packageOf(request)) && !(parent && typeof parent.filename === 'string' && parent.filename.startsWith(modules + path.sep))) {
      return resolve.call(this, request, fromSet, isMain, options);
    }
    return resolve.apply(this, arguments);
  };
}

'use strict';

// Preloaded (--require) into a fixture that test/versions runs against one
// set of package versions: the packages of that set (installed by
// test/versions/cache.js in CUSTOMLABELS_VERSIONS_DIR/node_modules) are
// what a bare require or import of their names resolves to, from any module
// outside that folder (the fixture, the repository's own node_modules,
// customlabels itself); everything else resolves as it does without this.
// What runs is the app as it would run with those versions installed:
// customlabels/register, loaded after this, sees them by name and by file
// path.
//
// And what ran is recorded: when the process (or a worker thread, or a
// child process that inherits NODE_OPTIONS) exits, one JSON line is
// appended to CUSTOMLABELS_VERSIONS_LOADED: for each package of the set it
// loaded, every folder it was loaded from and that folder's version, so
// the test asserts that the versions named are the versions that ran
// (test/versions/describe-versions.js).

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { pathToFileURL, fileURLToPath } = require('node:url');

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
  const inSet = (file) => typeof file === 'string' && file.startsWith(modules + path.sep);
  const redirected = (request) => typeof request === 'string' && !request.startsWith('.') && !path.isAbsolute(request) && !request.includes(':') && names.has(packageOf(request));

  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveFromSet(request, parent, isMain, options) {
    if (redirected(request) && !(parent && inSet(parent.filename))) return resolve.call(this, request, fromSet, isMain, options);
    return resolve.apply(this, arguments);
  };

  // ES modules (module.registerHooks: Node.js 22.15+ and 23.5+, the lines
  // test/versions runs): bare imports of the set's packages from outside it
  // resolve from the set's folder too, and every file loaded is seen.
  const urls = new Set();
  if (typeof Module.registerHooks === 'function') {
    const setParent = pathToFileURL(path.join(dir, 'index.js')).href;
    Module.registerHooks({
      resolve(specifier, context, nextResolve) {
        const parent = context.parentURL && context.parentURL.startsWith('file:') ? fileURLToPath(context.parentURL) : undefined;
        if (redirected(specifier) && !inSet(parent)) return nextResolve(specifier, { ...context, parentURL: setParent });
        return nextResolve(specifier, context);
      },
      load(url, context, nextLoad) {
        if (url.startsWith('file:') && url.includes('/node_modules/')) urls.add(url);
        return nextLoad(url, context);
      },
    });
  }

  // { package: { folder: version } } of the set's packages this process
  // loaded (a folder: .../node_modules/<package>).
  function loaded() {
    const files = [...Object.keys(require.cache), ...[...urls].map((u) => fileURLToPath(u))];
    const out = {};
    const marker = `${path.sep}node_modules${path.sep}`;
    for (const file of files) {
      const at = file.lastIndexOf(marker);
      if (at < 0) continue;
      const rest = file.slice(at + marker.length).split(path.sep);
      const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
      if (!names.has(pkg)) continue;
      const folder = file.slice(0, at + marker.length) + pkg;
      if (out[pkg] !== undefined && out[pkg][folder] !== undefined) continue;
      let version = null;
      try {
        version = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')).version;
      } catch {
        // a folder without its package.json: null says so
      }
      (out[pkg] ??= {})[folder] = version;
    }
    return out;
  }

  const record = process.env.CUSTOMLABELS_VERSIONS_LOADED;
  if (typeof record === 'string' && record !== '') {
    process.once('exit', () => {
      const { threadId } = require('node:worker_threads');
      fs.appendFileSync(record, `${JSON.stringify({ pid: process.pid, threadId, loaded: loaded() })}\n`);
    });
  }
}

'use strict';

// The version of a package an app loaded, found from its files, and the
// one warning for a release an integration leaves alone: a version outside
// its range (kit/integration.js supports()), or one where a private name a
// patch relies on is missing (guard()). It names the framework, the version
// found and the range, and says why; the app starts and serves, unlabelled
// there. Never a throw into the app.

const fs = require('node:fs');
const path = require('node:path');
const { warnOnce } = require('../../core/warnings');

// --- the version of a package an app loaded ---------------------------------

const versionByDir = new Map();

// The version in the package.json of the package `file` belongs to (named
// `name`: the nearest package.json above it with that name), or null.
function versionOfFile(file, name) {
  if (typeof file !== 'string' || !path.isAbsolute(file)) return null;
  for (let dir = path.dirname(file); ; ) {
    if (versionByDir.has(dir)) {
      const known = versionByDir.get(dir);
      if (known !== undefined && (name === undefined || known.name === name)) return known.version;
    } else {
      let pkg;
      try {
        pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      } catch {
        pkg = undefined;
      }
      const known = pkg !== null && typeof pkg === 'object' && typeof pkg.version === 'string' ? { name: pkg.name, version: pkg.version } : undefined;
      versionByDir.set(dir, known);
      if (known !== undefined && (name === undefined || known.name === name)) return known.version;
    }
    const up = path.dirname(dir);
    if (up === dir || path.basename(dir) === 'node_modules') return null;
    dir = up;
  }
}

// The file a module object (CommonJS exports, or an ESM namespace whose
// default is them) was loaded from, found in the module cache; null if it
// is not there (an ESM-only build, a bundle).
function fileOfExports(exports) {
  if (exports === null || (typeof exports !== 'object' && typeof exports !== 'function')) return null;
  const wanted = new Set([exports]);
  try {
    if (exports.default !== undefined && exports.default !== null) wanted.add(exports.default);
  } catch {
    // a namespace whose default is in its TDZ
  }
  for (const [file, m] of Object.entries(require.cache)) {
    if (m !== undefined && wanted.has(m.exports)) return file;
  }
  return null;
}

// The version of package `name` whose module object `exports` is, or null.
const versionOfExports = (exports, name) => versionOfFile(fileOfExports(exports), name);

// The version of package `name` of which `value` (a class, a function) is
// an export of one of its CommonJS files, or null: for what an app hands
// over without its module (a request's class, a router's).
function versionOfValue(value, name) {
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  for (const [file, m] of Object.entries(require.cache)) {
    if (m === undefined || !file.includes(marker)) continue;
    const { exports } = m;
    if (exports === value) return versionOfFile(file, name);
    if (exports === null || typeof exports !== 'object') continue;
    for (const key of Object.keys(exports)) {
      let v;
      try {
        v = exports[key];
      } catch {
        continue;
      }
      if (v === value) return versionOfFile(file, name);
    }
  }
  return null;
}

// --- the one warning ------------------------------------------------------------

const unsupported = new Set(); // packages warned about, on this thread

// Whether a version of `pkg` was found unsupported (and said so) here.
const wasUnsupported = (pkg) => unsupported.has(pkg);

// One warning per package and version: `why` is what is wrong with it.
// Once per thread, and a worker started after its parent thread warned
// (the environment data it inherits says so) does not say it again.
function warnUnsupported(integration, pkg, version, range, why) {
  const unknown = version === null || version === undefined;
  // Where a version of the package was said already, one whose version
  // could not be found (a prototype an app's router uses, after the
  // package's own load) adds nothing.
  if (unknown && unsupported.has(pkg)) return;
  const found = unknown ? 'of an unknown version' : version;
  unsupported.add(pkg);
  const said = `customlabels.unsupported:${pkg}@${found}`;
  const { isMainThread, getEnvironmentData, setEnvironmentData } = require('node:worker_threads');
  if (typeof getEnvironmentData === 'function') {
    if (!isMainThread && getEnvironmentData(said) === true) return;
    setEnvironmentData(said, true);
  }
  warnOnce(
    `unsupported:${pkg}@${found}`,
    `customlabels/${integration}: ${pkg} ${found} is not supported (supported: ${pkg} ${range}): ${why}. It is left unpatched: the app runs, and its work there is not labelled.`,
    'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK',
  );
}

module.exports = { versionOfFile, fileOfExports, versionOfExports, versionOfValue, warnUnsupported, wasUnsupported };

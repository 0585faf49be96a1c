'use strict';

// Which versions of a framework an integration supports, and what happens
// with the others: an integration declares the ranges of the packages it
// patches (the ranges its tests run: test/versions), and each private name
// a patch relies on. A version outside its range, or one where a name is
// missing, is left unpatched with one warning (CUSTOMLABELS_UNSUPPORTED_
// FRAMEWORK) naming the framework, the version found and the range: the app
// starts and serves, unlabelled there. Never a throw into the app.
//
// Ranges are npm's, in the subset package.json peerDependencies here use:
// `||` of sets of space-separated comparators (>=, >, <=, <, =), X-ranges
// (4.x, 4, 4.2.x, *), ^ and ~. A prerelease (5.0.0-rc.1) satisfies none of
// them, as npm has it.

const fs = require('node:fs');
const path = require('node:path');
const { warnOnce } = require('../../core/warnings');

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

// [major, minor, patch, prerelease or ''], or null.
function parse(version) {
  const m = typeof version === 'string' ? VERSION.exec(version.trim()) : null;
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? ''];
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// A partial version ('4', '4.2', '4.x', '*') as [major, minor, patch] with
// null for what it leaves open.
function partial(text) {
  const parts = text.replace(/^v/, '').split('.');
  if (parts.length > 3) throw new RangeError(`not a version: "${text}"`);
  const out = [null, null, null];
  for (let i = 0; i < parts.length; i++) {
    if (/^[xX*]$/.test(parts[i])) break;
    if (!/^\d+$/.test(parts[i])) throw new RangeError(`not a version: "${text}"`);
    out[i] = Number(parts[i]);
  }
  return out;
}

const lowest = (p) => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];

// The bound just above a partial version: 4 -> 5.0.0, 4.2 -> 4.3.0.
function above(p) {
  if (p[0] === null) return null;
  if (p[1] === null) return [p[0] + 1, 0, 0];
  if (p[2] === null) return [p[0], p[1] + 1, 0];
  return [p[0], p[1], p[2] + 1];
}

// One comparator as a list of [op, version] tests.
function comparator(text) {
  const m = /^(>=|<=|>|<|=|\^|~)?\s*(.+)$/.exec(text);
  if (m === null) throw new RangeError(`not a comparator: "${text}"`);
  const [, op = '', rest] = m;
  const p = partial(rest);
  const low = lowest(p);
  switch (op) {
    case '>=':
      return [['>=', low]];
    case '>':
      return p[2] !== null ? [['>', low]] : [['>=', above(p)]];
    case '<':
      return [['<', low]];
    case '<=':
      return p[2] !== null ? [['<=', low]] : [['<', above(p)]];
    case '^': {
      const high = low[0] > 0 || p[1] === null ? [low[0] + 1, 0, 0] : low[1] > 0 || p[2] === null ? [0, low[1] + 1, 0] : [0, 0, low[2] + 1];
      return [['>=', low], ['<', high]];
    }
    case '~':
      return [['>=', low], ['<', p[1] === null ? [low[0] + 1, 0, 0] : [low[0], low[1] + 1, 0]]];
    default: {
      if (p[0] === null) return [];
      if (p[2] !== null) return [['=', low]];
      return [['>=', low], ['<', above(p)]];
    }
  }
}

const TESTS = {
  '>=': (c) => c >= 0,
  '>': (c) => c > 0,
  '<=': (c) => c <= 0,
  '<': (c) => c < 0,
  '=': (c) => c === 0,
};

// [[[op, version], ...], ...]: any set whose tests all hold.
function parseRange(range) {
  if (typeof range !== 'string' || range.trim() === '') throw new RangeError(`not a range: ${JSON.stringify(range)}`);
  return range.split('||').map((set) => {
    const words = set.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean);
    if (words.length === 0) throw new RangeError(`not a range: ${JSON.stringify(range)}`);
    return words.flatMap(comparator);
  });
}

// Whether `version` is in `range` (false for what is not a version).
function satisfies(version, range) {
  const v = parse(version);
  if (v === null || v[3] !== '') return false;
  return parseRange(range).some((set) => set.every(([op, bound]) => TESTS[op](compare(v, bound))));
}

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

// --- what is missing, and the one warning -------------------------------------

// The names of `checks` ({ 'Layer#handle_request': () => boolean, ... })
// whose check fails (or throws).
function missing(checks) {
  const out = [];
  for (const [name, check] of Object.entries(checks)) {
    let ok;
    try {
      ok = check() === true;
    } catch {
      ok = false;
    }
    if (!ok) out.push(name);
  }
  return out;
}

const unsupported = new Set(); // packages warned about, on this thread

// Whether a version of `pkg` was found unsupported (and said so) here.
const wasUnsupported = (pkg) => unsupported.has(pkg);

// One warning per package and version: `why` is what is wrong with it.
// Once per thread, and a worker started after its parent thread warned
// (the environment data it inherits says so) does not say it again.
function warnUnsupported(integration, pkg, version, range, why) {
  const found = version === null || version === undefined ? 'of an unknown version' : version;
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

// Whether `integration` patches `pkg` at `version` (null: unknown, let the
// internals decide); warns once if not.
function inRange(integration, pkg, version) {
  const range = integration.packages[pkg];
  if (range === undefined) throw new Error(`customlabels/${integration.name} declares no range for ${pkg}`);
  if (version === null || version === undefined || satisfies(version, range)) return true;
  warnUnsupported(integration.name, pkg, version, range, 'outside the supported range');
  return false;
}

// Whether every private name in `checks` is there; warns once (naming those
// that are not) if not.
function hasInternals(integration, pkg, version, checks) {
  const gone = missing(checks);
  if (gone.length === 0) return true;
  warnUnsupported(integration.name, pkg, version, integration.packages[pkg], `${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} missing`);
  return false;
}

module.exports = { parse, satisfies, parseRange, versionOfFile, fileOfExports, versionOfExports, versionOfValue, missing, warnUnsupported, wasUnsupported, inRange, hasInternals };

'use strict';

// The lockfile of each package set test/versions installs, kept in the
// repository (test/versions/locks/<set>.json: npm's package-lock.json of a
// folder whose package.json names the set), so that a run today and one
// next month install the same packages, transitive ones included, until
// `npm run versions:refresh` writes them anew. A double (a set with a
// private name renamed) installs its base set's lockfile.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const DIR = path.join(__dirname, 'locks');

// The package.json of a set's folder: what its lockfile is the lock of.
const manifestOf = (set) => ({ name: 'customlabels-versions-set', private: true, dependencies: set.packages, ...(set.overrides && Object.keys(set.overrides).length > 0 ? { overrides: set.overrides } : {}) });

// A set's name: its packages and overrides, and a hash of them (without
// its double).
function nameOf(set) {
  const spec = JSON.stringify({ packages: set.packages, overrides: set.overrides ?? {}, legacyPeerDeps: set.legacyPeerDeps === true });
  const hash = crypto.createHash('sha256').update(spec).digest('hex').slice(0, 10);
  const name = [...Object.entries(set.packages), ...Object.entries(set.overrides ?? {})]
    .map(([p, v]) => `${p.replace('@', '').replace('/', '-')}-${v}`)
    .join('+');
  return `${name.slice(0, 80)}-${hash}`;
}

const fileOf = (set) => path.join(DIR, `${nameOf(set)}.json`);

// The lockfile of `set`, or null if none is kept.
function lockOf(set) {
  try {
    return JSON.parse(fs.readFileSync(fileOf(set), 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

// The version `lock` installs of `pkg` at the top of node_modules, or null.
function lockedVersion(lock, pkg) {
  const entry = lock.packages && lock.packages[`node_modules/${pkg}`];
  return entry && typeof entry.version === 'string' ? entry.version : null;
}

module.exports = { DIR, manifestOf, nameOf, fileOf, lockOf, lockedVersion };

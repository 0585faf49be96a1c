'use strict';

// Installs the package sets test/versions runs into a cache of its own,
// .versions-cache/<set>/ in the repository, shared by every suite and kept
// between runs: a set is installed again only when its spec or its lockfile
// changes. A set of the matrix installs with `npm ci` from its lockfile
// (test/versions/locks.js): one it lacks is an error, never a fresh
// resolution; a set of the newest lane (`fresh`) resolves as a new app
// would today. A double (a set whose package has one private name renamed:
// a framework whose internals moved) is a copy of its install with that
// name replaced in the files it names.

const { execFile } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { promisify } = require('node:util');

const { manifestOf, lockOf, fileOf } = require('./locks');

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const CACHE = path.join(root, '.versions-cache');

// The folder of `set` ({ packages: { name: version }, overrides?, double?,
// legacyPeerDeps?, fresh? }): named by its spec and its lockfile.
function dirOf(set) {
  const lock = set.fresh ? 'fresh' : JSON.stringify(lockOf({ ...set, double: undefined }));
  const spec = JSON.stringify({ packages: set.packages, overrides: set.overrides ?? {}, double: set.double ?? null, lock });
  const hash = crypto.createHash('sha256').update(spec).digest('hex').slice(0, 10);
  const name = Object.entries(set.packages)
    .map(([p, v]) => `${p.replace('@', '').replace('/', '-')}-${v}`)
    .join('+');
  return path.join(CACHE, set.fresh ? 'newest' : '', `${name.slice(0, 80)}-${hash}`);
}

function installed(dir) {
  return fs.existsSync(path.join(dir, '.installed'));
}

// Installs under way, by folder: a double's base and the set itself may be
// asked for at once.
const inflight = new Map();

function install(set) {
  const dir = dirOf(set);
  if (!inflight.has(dir)) inflight.set(dir, installOnce(set, dir));
  return inflight.get(dir);
}

async function installOnce(set, dir) {
  if (installed(dir)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  if (set.double !== undefined) {
    // The install of the set without its double, copied and changed.
    const base = await install({ ...set, double: undefined });
    // (Not what a suite built in the base: a Next.js build's .next holds
    // the base's absolute paths, and is built again here.)
    fs.cpSync(base, dir, { recursive: true, dereference: false, filter: (from) => path.relative(base, from) !== '.next' });
    fs.rmSync(path.join(dir, '.installed'), { force: true });
    applyDouble(dir, set.double);
  } else {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifestOf(set), null, 2));
    let args;
    if (set.fresh) {
      args = ['install'];
    } else {
      const lock = lockOf(set);
      if (lock === null) throw new Error(`no lockfile ${path.relative(root, fileOf(set))}: run npm run versions:refresh`);
      fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
      args = ['ci'];
    }
    await run('npm', [...args, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...(set.legacyPeerDeps ? ['--legacy-peer-deps'] : [])], {
      cwd: dir,
      env: { ...process.env, npm_config_nodedir: undefined, NODE_OPTIONS: '' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600000,
    });
  }
  fs.writeFileSync(path.join(dir, '.installed'), new Date().toISOString());
  return dir;
}

// A double ({ package, renames, edits, move? }): each edit [file, from, to]
// (file in node_modules/) replaces `from` by `to` everywhere in that file
// (what a release that renamed a private name would ship, with the packages
// that call it), and, with `move` ([from, to]), a file is moved.
function applyDouble(dir, { package: pkg, edits, move }) {
  const at = (file) => path.join(dir, 'node_modules', file);
  if (move !== undefined) fs.renameSync(at(move[0]), at(move[1]));
  for (const [file, from, to] of edits) {
    const text = fs.readFileSync(at(file), 'utf8');
    const changed = text.split(from).join(to);
    if (changed === text) throw new Error(`test/versions: the double of ${pkg} finds no ${from} in ${file}`);
    fs.writeFileSync(at(file), changed);
  }
}

// Installs every set, `concurrency` at a time; resolves with their folders.
async function installAll(sets, concurrency = 4) {
  const out = new Map();
  let next = 0;
  const errors = [];
  async function worker() {
    while (next < sets.length) {
      const set = sets[next++];
      try {
        out.set(set, await install(set));
      } catch (err) {
        errors.push(`${JSON.stringify(set.packages)}: ${err.message.split('\n').slice(0, 3).join(' ')}`);
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (errors.length > 0) throw new Error(`test/versions: installs failed:\n${errors.join('\n')}`);
  return out;
}

// The version of `pkg` installed in the set's folder.
const versionIn = (dir, pkg) => JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;

module.exports = { dirOf, install, installAll, installed, versionIn, CACHE };

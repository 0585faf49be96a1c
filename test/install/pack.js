'use strict';

// The package as users get it, for the install suites (test/install/): `npm
// pack` of the repository (which runs the prebuild), made once per Jest
// process (test:install runs its files in band, one process) and removed
// when that process exits; npm run as a user runs it.

const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');

// npm as a user runs it: no inherited npm_* settings of the test runner.
function userEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

function exec(file, args, { cwd, env, timeout = 240000 }) {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 1 << 26 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

// A program with `env` over this process's environment.
const run = (file, args, { cwd, env = {}, timeout } = {}) => exec(file, args, { cwd, env: { ...process.env, ...env }, timeout });

// npm with `env` as its whole environment (a user's, by default).
const npm = (args, { cwd, env = userEnv(), timeout } = {}) => exec('npm', args, { cwd, env, timeout });

// { tarball, packed: npm pack's record of it (files, sizes) }.
async function pack() {
  const dir = path.join(os.tmpdir(), `customlabels-pack-${process.pid}`);
  const record = path.join(dir, 'packed.json');
  if (fs.existsSync(record)) return JSON.parse(fs.readFileSync(record, 'utf8'));
  fs.mkdirSync(dir, { recursive: true });
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await npm(['pack', '--json', '--pack-destination', dir], { cwd: root, timeout: 1200000 });
  if (r.code !== 0 || /ERR!/.test(r.stderr)) throw new Error(`npm pack failed (${r.code}):\n${r.stderr}`);
  const packed = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')))[0];
  const out = { tarball: path.join(dir, packed.filename), packed };
  fs.writeFileSync(record, JSON.stringify(out));
  return out;
}

// A new app folder under `work` with a package.json of its own.
function newApp(work, name) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `app-${name.replace(/[^a-z0-9-]/gi, '-').toLowerCase()}`, version: '1.0.0', private: true }));
  return dir;
}

module.exports = { root, userEnv, run, npm, pack, newApp };

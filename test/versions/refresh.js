'use strict';

// `npm run versions:refresh`: records what npm's registry has today, for
// test/versions to test until the next refresh:
//   1. test/versions/releases.json: the releases of every package the
//      table of integrations declares a range for (the matrix covers each
//      range from them);
//   2. test/versions/locks/: the lockfile of every package set the matrix
//      then has (npm resolves each set as a fresh install would, without
//      installing it), and no lockfile of a set it no longer has.
// Then `npm run test:versions` tests them, and writes docs/versions.md
// with CUSTOMLABELS_WRITE_DOCS=1.
//   node test/versions/refresh.js [--releases-only | --locks-only]

const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const TABLE = require('../../lib/integrations');
const { packument } = require('./registry');
const { DIR, manifestOf, fileOf } = require('./locks');

const run = promisify(execFile);

async function refreshReleases() {
  const names = [...new Set(TABLE.flatMap((i) => [...Object.keys(i.packages), ...Object.keys(i.testedWith)]))].sort();
  const packages = {};
  for (const p of await Promise.all(names.map(packument))) packages[p.name] = { latest: p.latest, versions: p.versions, dates: p.dates };
  const file = path.join(__dirname, 'releases.json');
  fs.writeFileSync(file, `${JSON.stringify({ recorded: new Date().toISOString().slice(0, 10), packages }, null, 1)}\n`);
  console.log(`test/versions/releases.json: the releases of ${names.length} packages`);
}

// The lockfile npm makes for `set`, as a fresh install would resolve it.
async function lockFor(set) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-lock-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifestOf(set), null, 2));
    const args = ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...(set.legacyPeerDeps ? ['--legacy-peer-deps'] : [])];
    await run('npm', args, { cwd: dir, env: { ...process.env, npm_config_nodedir: undefined, NODE_OPTIONS: '' }, maxBuffer: 1 << 26, timeout: 600000 });
    return JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function refreshLocks() {
  // The matrix as the releases just recorded make it.
  const { MATRIX } = require('./matrix');
  const sets = new Map();
  for (const e of MATRIX) sets.set(fileOf(e.set), { ...e.set, double: undefined });
  fs.mkdirSync(DIR, { recursive: true });
  const list = [...sets];
  let next = 0;
  const failed = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < list.length) {
        const [file, set] = list[next++];
        try {
          fs.writeFileSync(file, `${JSON.stringify(await lockFor(set), null, 1)}\n`);
        } catch (err) {
          failed.push(`${path.basename(file)}: ${err.message.split('\n').slice(0, 4).join(' ')}`);
        }
      }
    }),
  );
  for (const f of fs.readdirSync(DIR)) if (!sets.has(path.join(DIR, f))) fs.rmSync(path.join(DIR, f));
  console.log(`test/versions/locks: ${list.length - failed.length} lockfiles`);
  if (failed.length > 0) throw new Error(`lockfiles not made:\n${failed.join('\n')}`);
}

async function main() {
  const args = process.argv.slice(2);
  if (!args.includes('--locks-only')) await refreshReleases();
  if (!args.includes('--releases-only')) await refreshLocks();
}

main().catch((err) => {
  console.error(err.message);
  process.exitCode = 1;
});

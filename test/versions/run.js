'use strict';

// npm run test:versions: every integration's end-to-end test on every
// version its range claims (test/versions/matrix.js), under Node.js 24 (the
// line where hooks can be off), the integrations' files side by side.
// Installs every package set into .versions-cache first (from its lockfile,
// 4 at a time; a set installed before is not installed again), runs Jest,
// and renders docs/versions.md's tested-versions table from what the run
// recorded (test/versions/results.js): a run whose tests failed renders
// nothing; a whole run whose table differs from the docs' fails, saying so
// (CUSTOMLABELS_WRITE_DOCS=1 writes it instead).
//
// --newest: the same suites on npm's newest release of every package in
// the table, resolved now (no lockfile: as a new app installs it today). A
// newest release inside its range must pass; one outside it is not run, and
// not a failure: one line names it, with its release date, and the docs'
// newest-releases table says "not supported yet" (written with
// CUSTOMLABELS_WRITE_DOCS=1; a difference there is reported, never failed).
//
//   node test/versions/run.js [--newest] [jest arguments]

const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { nodeDir } = require('../../scripts/node-versions');
const { unitFile } = require('../../lib/core/v8-unit');
const { installAll } = require('./cache');
const { readResults, missingOrFailed, renderTested, renderNewest } = require('./results');
const { newestEntries } = require('./newest');
const { checkBlock, blockOf } = require('../../scripts/generate/blocks');

const root = path.join(__dirname, '..', '..');
const DOCS = path.join(root, 'docs', 'versions.md');
const NODE = 24;

function jest(node, testFiles, extraArgs, env) {
  const match = testFiles === null ? ['--testMatch', '<rootDir>/test/versions/**/*.test.js'] : ['--testMatch', ...testFiles.map((f) => `<rootDir>/test/versions/${f}.test.js`)];
  const args = ['node_modules/jest/bin/jest.js', ...match, '--maxWorkers=3', ...extraArgs];
  return spawnSync(node, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;
}

// Checks (or writes) block `id` of docs/versions.md against `body`;
// `compare` normalizes what is compared. Returns whether it matched.
function docsBlock(id, body, compare = (s) => s) {
  if (process.env.CUSTOMLABELS_WRITE_DOCS === '1') {
    checkBlock(DOCS, id, body);
    console.log(`docs/versions.md: ${id} written from this run`);
    return true;
  }
  const actual = blockOf(fs.readFileSync(DOCS, 'utf8'), id);
  return actual !== null && compare(actual) === compare(body);
}

async function main() {
  const args = process.argv.slice(2);
  const newest = args.includes('--newest');
  const jestArgs = args.filter((a) => a !== '--newest');
  const node = path.join(nodeDir(NODE), 'bin', 'node');
  const abi = execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  // Hooks off needs the V8 unit for this Node.js.
  if (!fs.existsSync(path.join(root, 'build', 'v8', unitFile(abi)))) {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build-v8.js'), String(NODE)], { stdio: 'inherit' });
  }
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-versions-results-'));
  const { modesOf } = require('./describe-versions');
  const { SUITES } = require('./suites');
  const modes = (e) => modesOf(e, SUITES[e.integration]);
  let entries;
  let rows = null;
  const env = { CUSTOMLABELS_VERSIONS_RESULTS: results };
  if (newest) {
    ({ entries, rows } = await newestEntries(require('./registry').packument, (line) => console.log(line)));
    const file = path.join(results, 'newest.json');
    fs.writeFileSync(file, JSON.stringify(entries));
    env.CUSTOMLABELS_VERSIONS_NEWEST = file;
  } else {
    entries = require('./matrix').MATRIX;
  }
  const started = Date.now();
  await installAll(entries.map((e) => e.set));
  console.log(`test/versions: ${entries.length} package sets installed in ${Math.round((Date.now() - started) / 1000)} s`);
  const files = newest ? [...new Set(entries.map((e) => e.integration))] : null;
  const status = files !== null && files.length === 0 ? 0 : jest(node, files, jestArgs, env);
  const whole = jestArgs.length === 0;
  if (status !== 0 || !whole) {
    // A failed run, or a part of one, renders nothing.
    process.exitCode = status;
    return;
  }
  const recorded = readResults(results);
  const gaps = missingOrFailed(entries, recorded, modes);
  if (gaps.length > 0) {
    console.log(`test/versions: modes with no passing record:\n${gaps.map(([k, why]) => `  ${k}: ${why}`).join('\n')}\n0 passed, 1 failed`);
    process.exitCode = 1;
    return;
  }
  if (newest) {
    const same = docsBlock('newest-versions', renderNewest(rows, recorded));
    if (!same) console.log("docs/versions.md: its newest-releases table differs from what npm has today (CUSTOMLABELS_WRITE_DOCS=1 npm run test:versions -- --newest writes it); not a failure: the ecosystem moved");
    return;
  }
  // Attempts vary from run to run on a loaded machine: not what makes the
  // docs stale.
  const withoutAttempts = (s) => s.replace(/ \(\d+ attempts\)/g, '').replace(/, off(?=[ ;|])/g, '');
  const { EXEMPT } = require('./matrix');
  const body = renderTested(entries, recorded, EXEMPT);
  if (docsBlock('tested-versions', body, withoutAttempts)) {
    console.log('docs/versions.md: its tested-versions table is what this run found\n1 passed, 0 failed');
  } else {
    console.log(`docs/versions.md: its tested-versions table is not what this run found; CUSTOMLABELS_WRITE_DOCS=1 npm run test:versions writes it. This run found:\n${body}\n0 passed, 1 failed`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});

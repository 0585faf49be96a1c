'use strict';

// npm run test:versions: every integration's end-to-end test on every
// version its range claims (test/versions/matrix.js), under Node.js 24 (the
// line where hooks can be off), the integrations' files side by side.
// Installs every package set into .versions-cache first (4 at a time; a set
// installed before is not installed again), then runs Jest; with
// CUSTOMLABELS_WRITE_DOCS=1 the docs' tested-versions table is written.
//   node test/versions/run.js [jest arguments]

const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { nodeDir } = require('../../scripts/node-versions');
const { unitFile } = require('../../lib/core/v8-unit');
const { MATRIX } = require('./matrix');
const { installAll } = require('./cache');

const root = path.join(__dirname, '..', '..');
const NODE = 24;

async function main() {
  const node = path.join(nodeDir(NODE), 'bin', 'node');
  const abi = execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  // Hooks off needs the V8 unit for this Node.js.
  if (!fs.existsSync(path.join(root, 'build', 'v8', unitFile(abi)))) {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build-v8.js'), String(NODE)], { stdio: 'inherit' });
  }
  const started = Date.now();
  await installAll(MATRIX.map((e) => e.set));
  process.stdout.write(`test/versions: ${MATRIX.length} package sets installed in ${Math.round((Date.now() - started) / 1000)} s\n`);
  const args = ['node_modules/jest/bin/jest.js', '--testMatch', '<rootDir>/test/versions/**/*.test.js', '--maxWorkers=3', ...process.argv.slice(2)];
  const r = spawnSync(node, args, { cwd: root, stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});

'use strict';

// Installs the frameworks some integration tests need in versions the root
// package cannot hold side by side (NestJS 10 and 11 each bring their own
// @nestjs/* packages, Express and Fastify): one directory per set under
// test/peers, each with its package.json and package-lock.json. Jest runs
// this first (globalSetup); it runs `npm ci` only where node_modules is
// missing or older than the lock file, so a warm checkout pays nothing.
//   node test/peers/install.js

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

function stale(dir) {
  const installed = path.join(dir, 'node_modules', '.package-lock.json');
  if (!fs.existsSync(installed)) return true;
  return fs.statSync(installed).mtimeMs < fs.statSync(path.join(dir, 'package-lock.json')).mtimeMs;
}

function install() {
  for (const name of fs.readdirSync(__dirname).sort()) {
    const dir = path.join(__dirname, name);
    if (!fs.existsSync(path.join(dir, 'package-lock.json')) || !stale(dir)) continue;
    process.stderr.write(`test/peers: npm ci in test/peers/${name}\n`);
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  }
}

module.exports = install;
if (require.main === module) install();

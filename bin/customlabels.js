#!/usr/bin/env node
'use strict';

// `npx customlabels inspect|sample|check ...`: runs the native reader built
// by `npm install` (build/Release/customlabels-reader).

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { isSupportedPlatform } = require('../lib/binding');

function readerPath() {
  for (const dir of ['Release', 'Debug']) {
    const file = path.join(__dirname, '..', 'build', dir, 'customlabels-reader');
    if (fs.existsSync(file)) return file;
  }
  return null;
}

function main() {
  const reader = readerPath();
  if (reader === null) {
    process.stderr.write(
      isSupportedPlatform()
        ? 'customlabels: the reader is not built; run `npm rebuild customlabels`\n'
        : `customlabels: the reader needs Linux on x86-64 or aarch64 (this is ${process.platform}/${process.arch})\n`,
    );
    return 2;
  }
  // SIGINT/SIGTERM reach the reader too (same process group); it stops
  // sampling, detaches and prints what it has.
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => {});
  const result = spawnSync(reader, process.argv.slice(2), { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`customlabels: ${result.error.message}\n`);
    return 2;
  }
  if (result.signal) {
    process.kill(process.pid, result.signal);
    return 1;
  }
  return result.status;
}

process.exitCode = main();

#!/usr/bin/env node
'use strict';

// `npx customlabels inspect|sample|check ...`: runs the native reader built
// with the addon (build/Release when built from source, else the prebuilt
// one in prebuilds/<platform>-<arch>; the prebuilt reader is static, so it
// runs on any glibc or musl system of its architecture).
// `npx customlabels versions [--json]` is answered here, from the table of
// integrations (lib/integrations/supported.js): no reader, no addon.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isSupportedPlatform } = require('../lib/core/platform');

// The reader of a local build (built from source), else the prebuilt one.
function readerPath() {
  const candidates = ['Release', 'Debug'].map((dir) => path.join(__dirname, '..', 'build', dir, 'customlabels-reader'));
  if (isSupportedPlatform()) {
    candidates.push(path.join(__dirname, '..', 'prebuilds', `${process.platform}-${process.arch}`, 'customlabels-reader'));
  }
  return candidates.find((file) => fs.existsSync(file)) ?? null;
}

function main() {
  if (process.argv[2] === 'versions') {
    process.exitCode = require('../lib/integrations/supported').versionsCommand(process.argv.slice(3));
    return;
  }
  const reader = readerPath();
  if (reader === null) {
    process.stderr.write(
      isSupportedPlatform()
        ? 'customlabels: the reader is not built; run `npm rebuild customlabels`\n'
        : `customlabels: the reader needs Linux on x86-64 or aarch64 (this is ${process.platform}/${process.arch})\n`,
    );
    process.exitCode = 2;
    return;
  }
  // SIGINT/SIGTERM sent to this wrapper alone (or to the whole process
  // group) reach the reader, which stops sampling, detaches and prints what
  // it has; the wrapper then exits as the reader did. The handlers go in
  // before the reader starts, and the reader stops on its own if the wrapper
  // dies of anything else (CUSTOMLABELS_WRAPPER_PID).
  let child = null;
  const forward = (sig) => {
    if (child !== null && child.exitCode === null && child.signalCode === null) child.kill(sig);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, forward);
  child = spawn(reader, process.argv.slice(2), {
    stdio: 'inherit',
    env: { ...process.env, CUSTOMLABELS_WRAPPER_PID: String(process.pid) },
  });
  child.on('error', (err) => {
    process.stderr.write(`customlabels: ${err.message}\n`);
    process.exitCode = 2;
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal; where Node.js ignores it (SIGPIPE), exit
      // with the shell's code for it.
      process.exitCode = 128 + (os.constants.signals[signal] ?? 0);
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exitCode = code;
  });
}

main();

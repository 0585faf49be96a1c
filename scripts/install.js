'use strict';

// npm's install step for customlabels. It never fails the install of the
// app that depends on it:
// - where a prebuilt binary fits (Linux x64/arm64, glibc) and loads, there
//   is nothing to do;
// - elsewhere on Linux x64/arm64 (musl, an older glibc) it builds from
//   source with node-gyp; if that fails it prints one warning and exits 0,
//   and `require('customlabels')` runs without labels (`supported` false,
//   `reason` says why);
// - on other platforms there is nothing to build.
// CUSTOMLABELS_BUILD_FROM_SOURCE=1 (or `npm install --build-from-source`)
// builds from source even where a prebuilt binary fits; that build then
// takes precedence (lib/core/binding.js). So does `npm install` in a checkout of
// customlabels itself, where the sources are what is being worked on.
// Every source build also builds the V8 unit for the Node.js running the
// install (Node.js 22+; scripts/build-v8.js), so labels without hooks do not
// depend on a prebuilt unit; if that build fails, the install still
// succeeds and strategy().nodeContextReason says why.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isSupportedPlatform, prebuildTarget } = require('../lib/core/platform');

const root = path.join(__dirname, '..');

function loads(file) {
  const probe = `const b = require(${JSON.stringify(file)}); process.exit(b.protocolVersion === require(${JSON.stringify(
    path.join(root, 'lib', 'core', 'protocol.js'),
  )}).PROTOCOL_VERSION ? 0 : 1)`;
  return spawnSync(process.execPath, ['-e', probe], { stdio: 'ignore', timeout: 30000 }).status === 0;
}

function nodeGyp() {
  // npm tells scripts where its own node-gyp is.
  const candidates = [process.env.npm_config_node_gyp];
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed next to us: npm's own or none
  }
  const found = candidates.find((file) => file && fs.existsSync(file));
  return found ? [process.execPath, found] : ['node-gyp'];
}

// `fallback`: a prebuilt binary that loads here is used if the build fails.
// True if the addon built and loads.
function buildFromSource(why, fallback) {
  const log = path.join(os.tmpdir(), `customlabels-build-${process.pid}.log`);
  const [command, ...args] = nodeGyp();
  const fd = fs.openSync(log, 'w');
  const r = spawnSync(command, [...args, 'rebuild'], { cwd: root, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  if (r.status === 0 && loads(path.join(root, 'build', 'Release', 'customlabels.node'))) {
    fs.rmSync(log, { force: true });
    return true;
  }
  fs.rmSync(path.join(root, 'build'), { recursive: true, force: true });
  const failure = r.error ? r.error.message : `node-gyp exited with ${r.status ?? r.signal}`;
  const outcome = fallback
    ? 'The prebuilt binary is used instead.'
    : 'Installed without labels: withLabels() runs your code unchanged and ' +
      "require('customlabels').reason says why. A C++17 compiler, make and python3 let it build.";
  process.stderr.write(`customlabels: ${why}, and the source build failed (${failure}; log: ${log}). ${outcome}\n`);
  return false;
}

function main() {
  if (!isSupportedPlatform()) return;
  const checkout = path.resolve(process.env.INIT_CWD || '.') === root && fs.existsSync(path.join(root, '.git'));
  const fromSource =
    checkout || process.env.CUSTOMLABELS_BUILD_FROM_SOURCE === '1' || process.env.npm_config_build_from_source === 'true';
  const target = prebuildTarget();
  if (!fromSource && target !== null) {
    const prebuilt = path.join(root, 'prebuilds', target, 'customlabels.node');
    if (fs.existsSync(prebuilt) && loads(prebuilt)) return;
  }
  const why = checkout
    ? 'this is a checkout of customlabels'
    : fromSource
    ? 'a source build was asked for'
    : target === null
      ? `no prebuilt binary for ${process.platform}-${process.arch} with this C library (prebuilt: glibc)`
      : `the prebuilt binary for ${target} is missing or does not load here`;
  const prebuilt = target === null ? null : path.join(root, 'prebuilds', target, 'customlabels.node');
  if (buildFromSource(why, prebuilt !== null && fs.existsSync(prebuilt) && loads(prebuilt))) buildV8Unit();
}

// The V8 unit for the Node.js running the install, next to the addon just
// built (scripts/build-v8.js). It only builds where V8 has AsyncContextFrame's
// continuation data (Node.js 22+); elsewhere, or if it fails, labels go
// through hooks, as without it.
function buildV8Unit() {
  const { buildRunningUnit } = require('./build-v8');
  try {
    buildRunningUnit({ gyp: nodeGyp() });
  } catch (err) {
    process.stderr.write(`customlabels: no V8 unit for Node.js ${process.version} (labels switch through hooks): ${err.message.split('\n')[0]}\n`);
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`customlabels: install step failed (${err.message}); installed without labels\n`);
}

'use strict';

// Builds the prebuilt binaries shipped in the package:
//   prebuilds/linux-x64/{customlabels.node,customlabels-reader}
//   prebuilds/linux-arm64/{customlabels.node,customlabels-reader}
// and, next to them, the V8 unit for each Node.js line with
// AsyncContextFrame (V8_UNIT_MAJORS; scripts/build-v8.js):
//   prebuilds/linux-<arch>/customlabels-v8-abi<N>.node
// x64 with the host compiler, arm64 cross-compiled with Debian's
// g++-aarch64-linux-gnu; the readers are linked static (they run on any
// glibc or musl system). Each build runs in a scratch copy of the sources,
// so build/ (the local build) is left alone. One N-API build serves every
// Node.js version. Run by `prepack`, so `npm pack` always contains them.
//
//   npm run prebuild                  # both
//   node scripts/prebuild.js x64      # one

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { buildUnit } = require('./build-v8');
const { nodeDir } = require('./node-versions');

const root = path.join(__dirname, '..');
// Node.js lines whose AsyncLocalStorage can run on AsyncContextFrame: 22
// (behind --experimental-async-context-frame), 24 and 26 (by default).
const V8_UNIT_MAJORS = [22, 24, 26];
const TOOLCHAINS = {
  x64: { prefix: '', machine: 'X86-64' },
  arm64: { prefix: 'aarch64-linux-gnu-', machine: 'AArch64' },
};
const FILES = ['customlabels.node', 'customlabels-reader'];

function have(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// Headers for node-gyp without a download: the installed Node.js's, or those
// of the Node.js running this script.
function nodedir() {
  for (const dir of [process.env.npm_config_nodedir, '/usr', path.join(path.dirname(process.execPath), '..')]) {
    if (dir && fs.existsSync(path.join(dir, 'include', 'node', 'node_api.h'))) return path.resolve(dir);
  }
  throw new Error('no Node.js headers found (include/node/node_api.h under /usr or next to node)');
}

function build(arch) {
  const { prefix, machine } = TOOLCHAINS[arch];
  if (!have(`${prefix}g++`)) {
    throw new Error(`${prefix}g++ is missing${arch === 'arm64' ? ' (apt-get install g++-aarch64-linux-gnu)' : ''}`);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `customlabels-prebuild-${arch}-`));
  try {
    fs.cpSync(path.join(root, 'binding.gyp'), path.join(work, 'binding.gyp'));
    fs.cpSync(path.join(root, 'src'), path.join(work, 'src'), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(work, 'node_modules'));
    const env = { ...process.env };
    if (prefix !== '') {
      Object.assign(env, { CC: `${prefix}gcc`, CXX: `${prefix}g++`, LINK: `${prefix}g++`, AR: `${prefix}ar` });
    }
    const gyp = require.resolve('node-gyp/bin/node-gyp.js');
    try {
      execFileSync(process.execPath, [gyp, 'rebuild', `--arch=${arch}`, `--nodedir=${nodedir()}`, '--static_reader=1'], {
        cwd: work,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 1 << 26,
      });
    } catch (err) {
      process.stderr.write(`${err.stdout ?? ''}${err.stderr ?? err.message}\n`);
      throw new Error(`the ${arch} build failed`);
    }
    const out = path.join(root, 'prebuilds', `linux-${arch}`);
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    for (const name of FILES) {
      const file = path.join(out, name);
      fs.copyFileSync(path.join(work, 'build', 'Release', name), file);
      // Debug info out; .dynsym (the ABI symbols, N-API entry points) stays.
      execFileSync(`${prefix}strip`, ['--strip-unneeded', file]);
      const header = execFileSync(`${prefix}readelf`, ['-h', file], { encoding: 'utf8' });
      if (!header.includes(machine)) throw new Error(`${file} is not an ${machine} binary`);
    }
    for (const major of V8_UNIT_MAJORS) buildUnit(nodeDir(major), { arch, out });
    return out;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function main() {
  const arches = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(TOOLCHAINS);
  for (const arch of arches) {
    if (!(arch in TOOLCHAINS)) throw new Error(`unknown arch ${arch} (x64, arm64)`);
    const out = build(arch);
    const sizes = fs.readdirSync(out).map((f) => `${f} ${(fs.statSync(path.join(out, f)).size / 1024).toFixed(0)} KiB`);
    console.log(`prebuilt ${path.relative(root, out)}: ${sizes.join(', ')}`);
  }
}

main();

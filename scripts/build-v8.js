'use strict';

// Builds the V8 unit (src/v8/frame_access.cc) for Node.js lines with
// AsyncContextFrame: one binary per Node.js ABI, named
// customlabels-v8-abi<N>.node, built against that Node.js's own headers.
//
//   node scripts/build-v8.js                   # for the Node.js running this
//   node scripts/build-v8.js 22 24 26          # for those majors (fetched
//                                              # into .node-versions/)
//   node scripts/build-v8.js --arch arm64 ...  # cross-compiled
//   node scripts/build-v8.js --out DIR ...     # default build/v8
//
// Each build runs in a scratch copy of src/v8, so builds for several ABIs
// never share object files. Exits non-zero if any build fails; a Node.js
// whose headers lack what the unit needs (before Node.js 22) fails to build,
// which only means that line keeps its hooks.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { nodeDir } = require('./node-versions');
const { unitFile } = require('../lib/v8-unit');

const root = path.join(__dirname, '..');
const PREFIX = { x64: '', arm64: 'aarch64-linux-gnu-' };
const UNIT_HEADERS = ['scratch_protocol.h', 'native_builder.h'];

// Node.js version and ABI of the headers in `dir` (include/node/node_version.h).
function headerVersion(dir) {
  const h = fs.readFileSync(path.join(dir, 'include', 'node', 'node_version.h'), 'utf8');
  const num = (name) => Number(new RegExp(`#define ${name} (\\d+)`).exec(h)[1]);
  return {
    version: `${num('NODE_MAJOR_VERSION')}.${num('NODE_MINOR_VERSION')}.${num('NODE_PATCH_VERSION')}`,
    abi: num('NODE_MODULE_VERSION'),
  };
}

// Builds the unit against the Node.js in `dir` for `arch`; returns the file.
function buildUnit(dir, { arch = process.arch, out = path.join(root, 'build', 'v8') } = {}) {
  const { version, abi } = headerVersion(dir);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `customlabels-v8-${abi}-${arch}-`));
  try {
    fs.cpSync(path.join(root, 'src', 'v8'), work, { recursive: true, filter: (f) => !f.includes(`${path.sep}build`) });
    // The core headers the unit shares: the scratch results it reads and
    // the table of the builder it borrows from the addon.
    fs.mkdirSync(path.join(work, 'core'));
    for (const header of UNIT_HEADERS) {
      fs.copyFileSync(path.join(root, 'src', 'core', header), path.join(work, 'core', header));
    }
    // npm's settings (npm_config_nodedir from an .npmrc, a target) would
    // override the headers asked for here.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_config_')));
    const prefix = PREFIX[arch];
    if (prefix === undefined) throw new Error(`unknown arch ${arch} (x64, arm64)`);
    if (prefix !== '') Object.assign(env, { CC: `${prefix}gcc`, CXX: `${prefix}g++`, LINK: `${prefix}g++`, AR: `${prefix}ar` });
    const gyp = require.resolve('node-gyp/bin/node-gyp.js');
    try {
      execFileSync(process.execPath, [gyp, 'rebuild', `--target=${version}`, `--arch=${arch}`, `--nodedir=${dir}`], {
        cwd: work,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 1 << 26,
      });
    } catch (err) {
      const log = `${err.stdout ?? ''}${err.stderr ?? err.message}`;
      const errors = log.split('\n').filter((l) => /error/.test(l)).slice(0, 5);
      throw new Error(`the V8 unit for Node.js ${version} (ABI ${abi}, ${arch}) did not build:\n${errors.join('\n')}`);
    }
    fs.mkdirSync(out, { recursive: true });
    const file = path.join(out, unitFile(abi));
    fs.copyFileSync(path.join(work, 'build', 'Release', 'customlabels_v8.node'), file);
    execFileSync(`${prefix}strip`, ['--strip-unneeded', file]);
    return file;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function main() {
  const args = process.argv.slice(2);
  let arch = process.arch;
  let out;
  const majors = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--arch') arch = args[++i];
    else if (args[i] === '--out') out = path.resolve(args[++i]);
    else majors.push(args[i]);
  }
  const dirs =
    majors.length > 0
      ? majors.map((m) => (/^\d+$/.test(m) ? nodeDir(m) : path.resolve(m)))
      : [path.join(path.dirname(process.execPath), '..')];
  let failed = 0;
  for (const dir of dirs) {
    try {
      console.log(`built ${path.relative(root, buildUnit(dir, { arch, out }))}`);
    } catch (err) {
      failed++;
      console.error(err.message);
    }
  }
  process.exitCode = failed === 0 ? 0 : 1;
}

if (require.main === module) main();

module.exports = { buildUnit, headerVersion };

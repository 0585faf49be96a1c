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
// which only means that line keeps its hooks. scripts/install.js builds the
// unit for the Node.js running the install with buildRunningUnit: in every
// source build of the package, so hook-free labels do not depend on a
// prebuilt unit for this platform.

const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { unitFile, UNIT_VERSION } = require('../lib/core/v8-unit');

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

// The Node.js folder (with include/node) whose headers are those of the
// Node.js running this, if one is at hand: npm's nodedir, or the folder the
// node binary sits in. null: node-gyp fetches them, as for the addon.
function runningHeaders() {
  for (const dir of [process.env.npm_config_nodedir, path.join(path.dirname(process.execPath), '..')]) {
    if (!dir || !fs.existsSync(path.join(dir, 'include', 'node', 'node_version.h'))) continue;
    if (headerVersion(dir).version === process.versions.node) return path.resolve(dir);
  }
  return null;
}

// Builds the unit for `arch` against the headers in `dir` (null: the
// running Node.js's, found or fetched by node-gyp as for the addon), with
// node-gyp run as `gyp` (argv); returns the file.
function buildUnit(dir, { arch = process.arch, out = path.join(root, 'build', 'v8'), gyp } = {}) {
  const { version, abi } = dir !== null ? headerVersion(dir) : { version: process.versions.node, abi: Number(process.versions.modules) };
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
    // override the headers asked for here; with no folder, node-gyp's own
    // (its cache, or a download) serve the running Node.js.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_config_') ||
      (dir === null && !/^npm_config_(nodedir|target|arch|runtime|dist_url)$/i.test(k))));
    const prefix = PREFIX[arch];
    if (prefix === undefined) throw new Error(`unknown arch ${arch} (x64, arm64)`);
    if (prefix !== '') Object.assign(env, { CC: `${prefix}gcc`, CXX: `${prefix}g++`, LINK: `${prefix}g++`, AR: `${prefix}ar` });
    const [command, ...gypArgs] = gyp ?? [process.execPath, require.resolve('node-gyp/bin/node-gyp.js')];
    try {
      execFileSync(command, [...gypArgs, 'rebuild', `--target=${version}`, `--arch=${arch}`, ...(dir !== null ? [`--nodedir=${dir}`] : [])], {
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

// The unit for the Node.js running this (scripts/install.js), into build/v8
// where lib/core/v8-unit.js looks first. Only Node.js 22+ has the continuation
// data the unit reads: elsewhere nothing is built (null). A build that fails,
// or whose unit this Node.js does not load, leaves
// build/v8/<unit>.failed saying why (lib/core/v8-unit.js reports it) and throws.
function buildRunningUnit({ gyp } = {}) {
  if (Number(process.versions.node.split('.')[0]) < 22) return null;
  const out = path.join(root, 'build', 'v8');
  const failed = path.join(out, `${unitFile()}.failed`);
  fs.rmSync(failed, { force: true });
  try {
    const file = buildUnit(runningHeaders(), { out, gyp });
    const probe = `const m = { exports: {} }; process.dlopen(m, ${JSON.stringify(file)}); process.exit(m.exports.UNIT_VERSION === ${UNIT_VERSION} ? 0 : 1)`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', timeout: 30000 });
    if (r.status !== 0) {
      fs.rmSync(file, { force: true });
      throw new Error(`Node.js ${process.version} does not load the unit built for it: ${(r.stderr || '').split('\n')[0] || `exit ${r.status}`}`);
    }
    return file;
  } catch (err) {
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(failed, `${err.message}\n`);
    throw err;
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
  const { nodeDir } = require('./node-versions');
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

module.exports = { buildUnit, buildRunningUnit, headerVersion };

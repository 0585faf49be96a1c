'use strict';

// Another writer of the same standards in the process (issue #38):
// @datadog/pprof 5.16+'s dd_pprof.node exports otel_thread_ctx_nodejs_v1
// too, and fills its copy only when its own thread context is entered.
// customlabels, hooks off, writes its node discovery into that empty copy
// on every thread that publishes one (src/core/node_mirrors.h), so the
// design doc's readers, which keep one such module per process, find
// customlabels' labels through either; `customlabels check <pid> --readers`
// says what each copy holds and what each reader's rule makes of it, in
// every load order and from a worker; customlabels warns once only where a
// reader may still miss its labels (lib/core/other-writers.js). Hooks off
// needs AsyncContextFrame: those cases run under Node.js 24. dd-trace's own
// use of the copy: other-writers-ddtrace.test.js.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { runNode, root } = require('./helpers');
const { readerPath } = require('./integrations/harness');
const { nodeVersion } = require('../../scripts/node-versions');
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
    const child = spawn(nodeVersion(24), ['-e', source], { cwd: root, env: { ...process.env, CUSTOMLABELS_HOOKS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
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

  test("dd_pprof.node's copy of otel_thread_ctx_nodejs_v1, left empty by its module, carries customlabels' on every thread that published one", () => {
    const dd = r.json.writers.modules.find((m) => !m.customlabels);
    expect(dd.copies.published).toBeGreaterThanOrEqual(order[0] === 'worker' ? 2 : 1);
    expect(dd.copies.mirrored).toBe(dd.copies.published);
    expect(dd.copies.own).toBe(0);
    expect(r.text).toMatch(/its otel_thread_ctx_nodejs_v1 on the (\d+) thread\(s\) where customlabels published its own: customlabels' on \1, its own on 0/);
  });

  test("the design doc's reader sees the labels whichever module it keeps; Parca's and the ABI's rules are untouched", () => {
    const byName = Object.fromEntries(r.json.readers.map((v) => [v.name, v]));
    expect(byName['otel-nodejs'].answer).toBe('sees');
    expect(byName['otel-nodejs'].text).toMatch(/2 modules export otel_thread_ctx_nodejs_v1 .* whichever it keeps, it walks customlabels' AsyncLocalStorage/);
    // Parca and ABI readers read custom_labels_current_set of customlabels.node alone (hooks off: nothing, as without pprof).
    for (const name of ['abi-v1', 'parca']) expect(byName[name].text).not.toMatch(/modules export/);
  });

  test('the process warns of nothing: no reader misses its labels', () => {
    expect(r.stderr).not.toMatch(/CUSTOMLABELS_OTHER_WRITER/);
  });
});

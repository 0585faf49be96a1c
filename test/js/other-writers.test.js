'use strict';

// Another writer of the same standards in the process (issue #38):
// @datadog/pprof 5.16+'s dd_pprof.node exports otel_thread_ctx_nodejs_v1
// too. customlabels warns once when a reader may then miss its labels
// (lib/core/other-writers.js: hooks off, where the design doc's readers walk
// from that symbol, and keep one module per process), and `customlabels
// check <pid> --readers` lists every writer and says what each reader's
// rule makes of them, in both load orders. Hooks off needs AsyncContextFrame:
// those cases run under Node.js 24.

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
    const source = `
      const load = { customlabels: () => require('.'), pprof: () => require('@datadog/pprof') };
      const [first, second] = ${JSON.stringify(order)};
      const mods = { [first]: load[first](), [second]: load[second]() };
      mods.pprof.time.start({ intervalMicros: 10000, useCPED: true, withContexts: true });
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

describe.each([[['customlabels', 'pprof']], [['pprof', 'customlabels']]])('customlabels and @datadog/pprof in one process, loaded %j, hooks off (Node.js 24)', (order) => {
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

  test("the design doc's reader is 'partly': it keeps one module per process, maybe dd_pprof's; Parca's and the ABI's rules are untouched", () => {
    const byName = Object.fromEntries(r.json.readers.map((v) => [v.name, v]));
    expect(byName['otel-nodejs'].answer).toBe('partly');
    expect(byName['otel-nodejs'].brief).toBe('maybe: 2 modules export otel_thread_ctx_nodejs_v1');
    expect(byName['otel-nodejs'].text).toMatch(/the reader keeps one per process: the one it attached last/);
    // Parca and ABI readers read custom_labels_current_set of customlabels.node alone (hooks off: nothing, as without pprof).
    for (const name of ['abi-v1', 'parca']) expect(byName[name].text).not.toMatch(/modules export/);
  });

  test('the process warned once that a reader may miss its labels', () => {
    expect(r.stderr.match(/\[CUSTOMLABELS_OTHER_WRITER\]/g)).toHaveLength(1);
  });
});

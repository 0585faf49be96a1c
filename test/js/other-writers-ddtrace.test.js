'use strict';

// dd-trace 6 beside customlabels (issue #38): with DD_TRACE_OTEL_CTX_ENABLED
// dd-trace writes OTEP 4947 records for its spans through @datadog/pprof's
// otel_thread_ctx_nodejs_v1 (dd_pprof.node) and publishes an OTEP 4719
// process context of its own (nodejs_v1_dev, four datadog.* keys) as its
// tracer starts, before customlabels needs one; customlabels then publishes
// none. A real service (node:http, dd-trace's http instrumentation and
// profiler on, customlabels/register labelling every request) in both
// --require orders, hooks on and off, read from outside with
// `customlabels check <pid> --readers --json`: what each reader's own rule
// finds there, that customlabels never writes over dd-trace's copy of the
// symbol (the walk from it finds dd-trace's records), and that the process
// says so once. Node.js 24 (AsyncContextFrame: dd-trace's writer needs it,
// and so does hooks off); dd-trace 6.21 from test/peers/ddtrace6.

const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { root, nodeWithUnit } = require('./helpers');
const { readerPath } = require('./integrations/harness');
// Node.js 24, with its V8 unit: these processes run without hooks.
const node24 = nodeWithUnit(24);

const peers = path.join(root, 'test', 'peers', 'ddtrace6');
const register = 'customlabels/register';
const ddInit = require.resolve('dd-trace/init', { paths: [peers] });

// The service: every 50 ms a request with a tenant header, each spending
// 40 ms on CPU in its handler; prints {pid, hooks} once a request was served.
const APP = `
  const http = require('node:http');
  const spin = () => { const end = Date.now() + 40; while (Date.now() < end); };
  const server = http.createServer((req, res) => { spin(); res.end('ok'); });
  let said = false;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    setInterval(() => {
      http.get({ host: '127.0.0.1', port, path: '/t', headers: { 'x-tenant': 'acme' } }, (res) => {
        res.resume();
        if (said) return;
        said = true;
        console.log(JSON.stringify({ pid: process.pid, hooks: require(${JSON.stringify(root)}).strategy().hooks }));
      }).on('error', () => {});
    }, 50);
  });`;

// `customlabels check <pid> ...args`: its output (it exits 1 where it finds
// problems, as it does with another writer's process context).
function check(pid, ...args) {
  const r = spawnSync(readerPath, ['check', String(pid), '--readers', ...args], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`check ${pid} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const ddModule = (json) => json.writers.modules.find((m) => /dd_pprof\.node\.abi\d+\.node$/.test(m.path));

// Reads the process until `check --readers --json` catches a labelled
// thread in dd-trace's work too: customlabels labelled it, and the walk from
// dd_pprof.node's copy finds a record (the handler runs 80 % of the time, a
// read between requests finds neither; dd-trace writes records once its
// profiler has started, later on a loaded machine). At most 20 reads, 0.2 s
// apart, each counted; `mirrored`: the most copies any read found written
// by customlabels.
function readLabelled(pid) {
  let last;
  let mirrored = 0;
  for (let attempt = 1; attempt <= 20; attempt++) {
    last = JSON.parse(check(pid, '--json').trim().split('\n').pop());
    const dd = ddModule(last);
    mirrored = Math.max(mirrored, dd?.copies.mirrored ?? 0);
    if (last.mode.labelled > 0 && dd?.copies.records > 0) return { json: last, attempts: attempt, mirrored };
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  throw new Error(`no read of ${pid} caught a thread labelled by customlabels with dd-trace's record in 20 attempts: ${JSON.stringify({ mode: last.mode, dd: ddModule(last)?.copies })}`);
}

function runService(order, hooks) {
  const requires = order === 'customlabels-first' ? [register, ddInit] : [ddInit, register];
  const env = {
    ...process.env,
    CUSTOMLABELS_HOOKS: hooks ? '1' : '0',
    CUSTOMLABELS_HEADERS: 'x-tenant=tenant',
    DD_TRACE_OTEL_CTX_ENABLED: 'true',
    DD_PROFILING_ENABLED: 'true',
    DD_TRACE_AGENT_URL: 'http://127.0.0.1:9', // nothing listens: traces and profiles are dropped
    DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false',
    DD_REMOTE_CONFIGURATION_ENABLED: 'false',
    DD_TRACE_STARTUP_LOGS: 'false',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(node24, [...requires.flatMap((r) => ['--require', r]), '-e', APP], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the service served no request in 30 s: ${stderr}`));
    }, 30000);
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const { pid, hooks: hooksOn } = JSON.parse(line);
      // After customlabels' own look at the other writers (1 s in).
      setTimeout(() => {
        try {
          const read = readLabelled(pid);
          const text = check(pid);
          child.kill();
          child.on('close', () => resolve({ ...read, text, hooksOn, stderr }));
        } catch (err) {
          child.kill();
          reject(err);
        }
      }, 2000);
    });
  });
}

const byName = (json) => Object.fromEntries(json.readers.map((v) => [v.name, v]));

describe.each([
  ['customlabels-first', false],
  ['dd-trace-first', false],
  ['customlabels-first', true],
  ['dd-trace-first', true],
])('dd-trace 6.21 with DD_TRACE_OTEL_CTX_ENABLED and its profiler, --require %s, hooks on: %s (Node.js 24)', (order, hooks) => {
  let r;
  beforeAll(async () => {
    r = await runService(order, hooks);
    if (r.attempts > 1) console.log(`${order}, hooks ${hooks}: the labelled thread was caught in dd-trace's work at read ${r.attempts}`);
  }, 90000);

  test(`customlabels runs with hooks ${hooks ? 'on' : 'off'} as asked (the layout probe works under dd-trace's process context)`, () => {
    expect(r.hooksOn).toBe(hooks);
  });

  test("one process context, dd-trace's: customlabels published none", () => {
    expect(r.json.writers.contexts).toHaveLength(1);
    expect(r.json.mode.schema).toBe('nodejs_v1_dev');
  });

  test("dd_pprof.node's copy of otel_thread_ctx_nodejs_v1 stays dd-trace's: never customlabels', and its walk finds dd-trace's record", () => {
    const dd = ddModule(r.json);
    expect(dd.symbols).toEqual(['otel_thread_ctx_nodejs_v1']);
    expect(dd.copies.mirrored).toBe(0);
    expect(r.mirrored).toBe(0); // nor on any read before
    // (Counted where customlabels published its own node context: hooks off.)
    if (!hooks) expect(dd.copies.own).toBeGreaterThanOrEqual(1);
    expect(dd.copies.records).toBeGreaterThanOrEqual(1);
  });

  test("the OpenTelemetry readers are told 'no': the process context is dd-trace's", () => {
    const v = byName(r.json);
    for (const name of ['otel-tls', 'otel-nodejs']) {
      expect(v[name].answer).toBe('no');
      expect(v[name].brief).toBe('no: the process context is another writer\'s (nodejs_v1_dev)');
      expect(v[name].text).toMatch(hooks ? /every labelled thread runs with hooks/ : /key map names none of the labelled threads' label keys/);
    }
  });

  test(`readers of custom_labels_current_set ${hooks ? 'see the labels' : 'see nothing (hooks off), as without dd-trace'}`, () => {
    const v = byName(r.json);
    expect(v['abi-v1'].answer).toBe(hooks ? 'sees' : 'no');
    if (hooks) expect(v.parca.answer).toBe('sees');
  });

  test('the process warned once, naming what a reader misses', () => {
    const warnings = r.stderr.match(/\[CUSTOMLABELS_OTHER_WRITER\][^\n]*/g) ?? [];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/another writer published the process context \(OTEL_CTX\) first/);
    if (!hooks) expect(warnings[0]).toMatch(/dd_pprof\.node\.abi\d+\.node exports otel_thread_ctx_nodejs_v1 too, and its own context is in use on this thread/);
  });

  test('check --readers says it in text too', () => {
    expect(r.text).toMatch(/dd_pprof\.node\.abi\d+\.node: otel_thread_ctx_nodejs_v1\n {4}its otel_thread_ctx_nodejs_v1 on the \d+ thread\(s\) where customlabels published its own: customlabels' on 0, its own on \d+, empty on \d+; a walk from it finds a record on \d+ thread\(s\)/);
  });
});

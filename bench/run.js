'use strict';

// Runs the benchmark suite and prints medians and ratios to the
// AsyncLocalStorage baseline measured in the same run.
//
//   npm run bench                       # this node, Node 24 and Node 26, 5 runs
//   npm run bench -- --runs 7 --write   # and update bench/README.md
//   npm run bench -- --only integrations --node 20 --node 24 --node 26 --runs 5
//   npm run bench -- --only integrations --frameworks koa,hapi,hono --node 20 --runs 5
//   options: --runs N, --only micro|http|integrations|thread-context|nohooks
//            (comma-separated for several), --frameworks NAME,... (the integrations
//            suite's: express, fastify, koa, hapi, hono, apollo, yoga, bullmq), --node PATH|MAJOR (repeatable; a major version other
//            than this node's is fetched once into .node-versions/MAJOR),
//            --write, --from bench/results/latest.json (re-render saved results)
//
// Every measurement runs in a fresh process; modes alternate within each
// run (rotating order) so drift on a shared machine hits all modes alike.
// HTTP: server pinned to CPU 0, load generator to CPU 1; server CPU time per
// request over a fixed request count after warm-up.

const { execFileSync, spawn, fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const { nodeVersion } = require('../scripts/node-versions');
const args = process.argv.slice(2);
if (args.includes('--help')) {
  process.stdout.write(require('./usage')(__filename));
  process.exit(0);
}
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const runs = Number(opt('--runs', 5));
const only = opt('--only', null);
const SUITES = ['micro', 'http', 'integrations', 'thread-context', 'nohooks'];
const suites = only === null ? SUITES : only.split(',');
for (const s of suites) if (!SUITES.includes(s)) throw new Error(`--only: unknown suite ${s} (expected ${SUITES.join(', ')})`);
const write = args.includes('--write');
const frameworks = opt('--frameworks', null)?.split(',') ?? null;
const cpus = os.cpus().length;
const pin = (cpu) => (cpus > 1 ? ['taskset', ['-c', String(cpu)]] : null);

// --node accepts a path or a major version (this node when it is that major).
function resolveNode(value) {
  if (!/^\d+$/.test(value)) return value;
  return Number(value) === Number(process.versions.node.split('.')[0]) ? process.execPath : nodeVersion(value);
}

const nodes = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--node') nodes.push(resolveNode(args[i + 1]));
if (nodes.length === 0) nodes.push(process.execPath, nodeVersion(24), nodeVersion(26));

const version = (node) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);

function spawnPinned(cpu, file, argv, options = {}) {
  const p = pin(cpu);
  return p ? spawn(p[0], [...p[1], ...[file, ...argv]], options) : spawn(file, argv, options);
}

// One JSON line from `script` (in bench/) run pinned to CPU 0.
function runJson(node, script, argv, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawnPinned(0, node, ['--expose-gc', path.join(__dirname, script), ...argv], { stdio: ['ignore', 'pipe', 'inherit'], env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} ${argv.join(' ')} exited ${code}`))));
  });
}

const runMicro = (node, mode, env) => runJson(node, 'micro.js', [mode], env);

// The environment without thread context records (lib/api.js).
const NO_RECORDS = { ...process.env, CUSTOMLABELS_THREAD_CONTEXT: '0' };

// Server CPU µs per request of `server` (bench/http-server.js <framework>
// <mode> <app>, or bench/otel-server.js <mode>); with `report`, the whole
// report ({cpuMicros, requests, ...}) instead.
async function runHttp(node, framework, mode, { app = 'hello', warmup = 3000, count = 12000, env = process.env, report: whole = false } = {}) {
  const p = pin(0);
  const spec = APPS[framework]?.request;
  const loadPath = spec !== undefined ? spec.path : app === 'api' ? '/api/users/{i}' : '/hello';
  const loadArgs = spec !== undefined ? [loadPath, JSON.stringify(spec)] : [loadPath];
  const [script, argv] = framework === 'otel' ? ['otel-server.js', [mode]] : ['http-server.js', [framework, mode, app]];
  const server = fork(path.join(__dirname, script), argv, {
    execPath: p ? p[0] : node,
    execArgv: p ? [...p[1], node] : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env,
  });
  const message = (send) =>
    new Promise((resolve) => {
      server.once('message', resolve);
      if (send) server.send(send);
    });
  const { port } = await message();
  const load = (n) =>
    new Promise((resolve, reject) => {
      const child = spawnPinned(1, node, [path.join(__dirname, 'http-load.js'), String(port), String(n), '16', ...loadArgs], { stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`load exited ${code}`))));
    });
  await load(warmup);
  await message('mark');
  await load(count);
  const report = await message('report');
  server.send('exit');
  if (report.requests !== count) throw new Error(`${framework} ${mode}: ${report.requests} of ${count} requests reached the handler`);
  return whole ? report : report.cpuMicros / report.requests;
}

const MICRO_MODES = ['none', 'loaded', 'als', 'floor', 'labels'];
const HTTP_MODES = ['none', 'als', 'floor', 'labels'];
// bench/http-server.js `api` modes, per framework (labels-const where the app has one).
// bench/apps/<framework>.js servers: their own modes and request.
const APPS = Object.fromEntries(
  fs
    .readdirSync(path.join(__dirname, 'apps'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => [path.basename(f, '.js'), require(`./apps/${f}`)]),
);
const INTEGRATION_MODES = {
  express: ['none', 'als-mw', 'labels-mw', 'labels-const', 'integration'],
  fastify: ['none', 'als-mw', 'labels-mw', 'integration'],
  ...Object.fromEntries(Object.entries(APPS).map(([name, app]) => [name, app.modes])),
};
// The integrations table's names of the frameworks.
const FRAMEWORK_NAMES = { express: 'Express 5', fastify: 'Fastify 5', koa: 'Koa 3', hapi: 'hapi 21', hono: 'Hono 4', apollo: 'Apollo Server 5', yoga: 'GraphQL Yoga 5', bullmq: 'BullMQ 5 (µs per job)' };

async function benchNode(node) {
  const result = { node: version(node), micro: {}, http: {}, integrations: {} };
  if (suites.includes('micro')) {
    const samples = {};
    for (let r = 0; r < runs; r++) {
      for (const mode of rotate(MICRO_MODES, r)) {
        const m = await runMicro(node, mode);
        for (const [k, v] of Object.entries({ ...m, rssFirstMB: m.rssMB.first, rssSecondMB: m.rssMB.second })) {
          if (typeof v !== 'number') continue;
          ((samples[mode] ||= {})[k] ||= []).push(v);
        }
      }
      process.stderr.write(`  ${result.node} micro run ${r + 1}/${runs}\n`);
    }
    for (const [mode, metrics] of Object.entries(samples)) {
      result.micro[mode] = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, median(v)]));
    }
  }
  if (suites.includes('http')) {
    for (const framework of ['express', 'fastify']) {
      const samples = {};
      for (let r = 0; r < runs; r++) {
        for (const mode of rotate(HTTP_MODES, r)) (samples[mode] ||= []).push(await runHttp(node, framework, mode));
        process.stderr.write(`  ${result.node} ${framework} run ${r + 1}/${runs}\n`);
      }
      result.http[framework] = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    }
  }
  if (suites.includes('integrations')) {
    for (const [framework, modes] of Object.entries(INTEGRATION_MODES)) {
      if (frameworks !== null && !frameworks.includes(framework)) continue;
      const samples = {};
      for (let r = 0; r < runs; r++) {
        for (const mode of rotate(modes, r)) (samples[mode] ||= []).push(await runHttp(node, framework, mode, { app: 'api' }));
        process.stderr.write(`  ${result.node} ${framework} integrations run ${r + 1}/${runs}\n`);
      }
      // Ratios within each run, then their median.
      const perRun = (a, b) => samples[a].map((x, i) => x / samples[b][i]);
      result.integrations[framework] = {
        median: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])),
        samples,
        ratios: {
          integrationToLabelsMw: median(perRun('integration', 'labels-mw')),
          integrationToAlsMw: median(perRun('integration', 'als-mw')),
          ...(samples['labels-const'] ? { integrationToLabelsConst: median(perRun('integration', 'labels-const')) } : {}),
        },
      };
    }
  }
  if (suites.includes('integrations') && (frameworks === null || frameworks.includes('bullmq'))) {
    // Worker CPU µs per job of a real BullMQ Worker on a real redis-server
    // (bench/bullmq.js; its modes alternate within each run).
    const { benchBullmq } = require('./bullmq');
    const b = await benchBullmq(node, { runs });
    result.integrations.bullmq = { median: b.median, samples: b.samples, ratios: { integrationToLabelsMw: b.ratios.integrationToLabelsMw } };
  }
  if (suites.includes('thread-context')) result.threadContext = await benchThreadContext(node);
  if (suites.includes('nohooks')) result.nohooks = await benchNoHooks(node);
  return result;
}

// Runs each of `cases` (name -> () => Promise<{metric: number}>) once per run,
// in rotating order; returns name -> metric -> samples.
async function runCases(node, cases, suite) {
  const samples = {};
  const names = Object.keys(cases);
  for (let r = 0; r < runs; r++) {
    for (const name of rotate(names, r)) {
      const m = await cases[name]();
      for (const [k, v] of Object.entries(m)) if (typeof v === 'number') ((samples[name] ||= {})[k] ||= []).push(v);
    }
    process.stderr.write(`  ${version(node)} ${suite} run ${r + 1}/${runs}\n`);
  }
  return samples;
}

// Issue #13: what thread context records add. Each pair is measured in the
// same run (fresh processes, rotating order); ratios are medians of the
// per-run ratios, differences medians of per-run differences.
async function benchThreadContext(node) {
  const cases = {
    'switch, records off': () => runJson(node, 'switch-cost.js', ['0']).then((r) => ({ ns: r.ns })),
    'switch, records on': () => runJson(node, 'switch-cost.js', ['1']).then((r) => ({ ns: r.ns })),
    'micro, records off': () => runMicro(node, 'labels', NO_RECORDS),
    'micro, records on': () => runMicro(node, 'labels'),
    'express, records off': () => runHttp(node, 'express', 'labels', { env: NO_RECORDS }).then((us) => ({ us })),
    'express, records on': () => runHttp(node, 'express', 'labels').then((us) => ({ us })),
    'fastify, records off': () => runHttp(node, 'fastify', 'labels', { env: NO_RECORDS }).then((us) => ({ us })),
    'fastify, records on': () => runHttp(node, 'fastify', 'labels').then((us) => ({ us })),
  };
  for (const mode of ['als-cm', 'withlabels-cm', 'customlabels-cm']) {
    cases[`otel ${mode}`] = () =>
      runHttp(node, 'otel', mode, { report: true }).then((r) => ({ us: r.cpuMicros / r.requests, activations: r.activations / r.requests }));
  }
  cases['otel customlabels-cm, records off'] = () =>
    runHttp(node, 'otel', 'customlabels-cm', { report: true, env: NO_RECORDS }).then((r) => ({ us: r.cpuMicros / r.requests }));
  const samples = await runCases(node, cases, 'thread-context');
  const med = (name, k) => median(samples[name][k]);
  const perRun = (a, b, k, f) => median(samples[a][k].map((x, i) => f(x, samples[b][k][i])));
  const ratioOf = (a, b, k) => perRun(a, b, k, (x, y) => x / y);
  const diffOf = (a, b, k) => perRun(a, b, k, (x, y) => x - y);
  return {
    switchNs: { off: med('switch, records off', 'ns'), on: med('switch, records on', 'ns'), diff: diffOf('switch, records on', 'switch, records off', 'ns') },
    micro: Object.fromEntries(
      ['awaitNs', 'immediateNs', 'syncNs'].map((k) => [
        k,
        { off: med('micro, records off', k), on: med('micro, records on', k), ratio: ratioOf('micro, records on', 'micro, records off', k) },
      ]),
    ),
    http: Object.fromEntries(
      ['express', 'fastify'].map((f) => [
        f,
        { off: med(`${f}, records off`, 'us'), on: med(`${f}, records on`, 'us'), ratio: ratioOf(`${f}, records on`, `${f}, records off`, 'us') },
      ]),
    ),
    otel: {
      us: Object.fromEntries(['als-cm', 'withlabels-cm', 'customlabels-cm'].map((m) => [m, med(`otel ${m}`, 'us')])),
      usRecordsOff: med('otel customlabels-cm, records off', 'us'),
      activationsPerRequest: med('otel customlabels-cm', 'activations'),
      customToWithLabels: ratioOf('otel customlabels-cm', 'otel withlabels-cm', 'us'),
      customToAls: ratioOf('otel customlabels-cm', 'otel als-cm', 'us'),
      recordsOnToOff: ratioOf('otel customlabels-cm', 'otel customlabels-cm, records off', 'us'),
    },
  };
}

// Issue #17: customlabels without hooks (readers walk V8's continuation
// data) against AsyncLocalStorage alone, against itself with hooks, and
// against the peer writing the same contract (@datadog/pprof's
// ThreadContext), all in the same runs (fresh processes, rotating order);
// ratios are medians of the per-run ratios to `als`.
const NOHOOKS_MODES = ['als', 'labels', 'labels-nohooks', 'datadog'];
async function benchNoHooks(node) {
  const cases = {};
  // With hooks, what the wrapper costs: label sets as plain objects.
  for (const f of ['express', 'fastify']) cases[`${f} labels-plain`] = () => runHttp(node, f, 'labels-plain').then((us) => ({ us }));
  for (const mode of NOHOOKS_MODES) {
    cases[`hops ${mode}`] = () => runJson(node, 'hops.js', [mode]);
    cases[`new-set ${mode}`] = () => runJson(node, 'new-set.js', [mode]);
    for (const f of ['express', 'fastify']) cases[`${f} ${mode}`] = () => runHttp(node, f, mode).then((us) => ({ us }));
  }
  const HOOKS_OFF = { ...process.env, CUSTOMLABELS_HOOKS: '0' };
  for (const [name, env] of [['als-cm', process.env], ['customlabels-cm', process.env], ['customlabels-cm nohooks', HOOKS_OFF]]) {
    cases[`otel ${name}`] = () => runHttp(node, 'otel', name.split(' ')[0], { env }).then((us) => ({ us }));
  }
  const samples = await runCases(node, cases, 'nohooks');
  const rows = {};
  const metric = (kind, k, label) => {
    rows[label] = {};
    for (const mode of NOHOOKS_MODES) {
      const xs = samples[`${kind} ${mode}`][k];
      const base = samples[`${kind} als`][k];
      rows[label][mode] = { value: median(xs), ratio: median(xs.map((x, i) => x / base[i])) };
    }
  };
  metric('hops', 'awaitNs', 'ns per await (100 concurrent requests)');
  metric('hops', 'immediateNs', 'ns per setImmediate hop (100 chains)');
  metric('new-set', 'newSetNs', 'ns per new 3-label set (sync scope, new values)');
  metric('express', 'us', 'Express 5 server CPU µs/request');
  metric('fastify', 'us', 'Fastify 5 server CPU µs/request');
  rows.wrapper = Object.fromEntries(
    ['express', 'fastify'].map((f) => {
      const [w, p] = [samples[`${f} labels`].us, samples[`${f} labels-plain`].us];
      return [f, { wrapper: median(w), plain: median(p), ratio: median(w.map((x, i) => x / p[i])) }];
    }),
  );
  const otel = (m) => samples[`otel ${m}`].us;
  const otelRatio = (m) => median(otel(m).map((x, i) => x / otel('als-cm')[i]));
  rows.otel = {
    als: median(otel('als-cm')),
    hooks: median(otel('customlabels-cm')),
    nohooks: median(otel('customlabels-cm nohooks')),
    hooksRatio: otelRatio('customlabels-cm'),
    nohooksRatio: otelRatio('customlabels-cm nohooks'),
  };
  return rows;
}

function noHooksTable(results) {
  const rs = results.filter((r) => r.nohooks);
  const head = ['', ...rs.map((r) => `Node ${r.node}: ALS / labels, hooks / labels, no hooks / Datadog (÷ ALS)`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const labels = Object.keys(rs[0].nohooks).filter((k) => k !== 'otel' && k !== 'wrapper');
  const fmt = (v) => (v < 20 ? v.toFixed(1) : v.toFixed(0));
  for (const label of labels) {
    lines.push(
      `| ${label} | ${rs
        .map((r) => {
          const m = r.nohooks[label];
          return `${NOHOOKS_MODES.map((k) => fmt(m[k].value)).join(' / ')} (${['labels', 'labels-nohooks', 'datadog'].map((k) => `${k === 'labels-nohooks' ? '**' : ''}${m[k].ratio.toFixed(2)}×${k === 'labels-nohooks' ? '**' : ''}`).join(' / ')})`;
        })
        .join(' | ')} |`,
    );
  }
  lines.push(
    `| OpenTelemetry HTTP server CPU µs/request: ALS context manager / customlabels/otel, hooks / no hooks (÷ ALS context manager) | ${rs
      .map((r) => {
        const o = r.nohooks.otel;
        return `${f1(o.als)} / ${f1(o.hooks)} / ${f1(o.nohooks)} (${o.hooksRatio.toFixed(2)}× / **${o.nohooksRatio.toFixed(2)}×**)`;
      })
      .join(' | ')} |`,
  );
  for (const [f, name] of [['express', 'Express 5'], ['fastify', 'Fastify 5']]) {
    lines.push(
      `| ${name} with hooks: label sets as plain objects / as wrappers, µs/request (wrappers ÷ plain) | ${rs
        .map((r) => {
          const w = r.nohooks.wrapper[f];
          return `${f1(w.plain)} / ${f1(w.wrapper)} (**${w.ratio.toFixed(2)}×**)`;
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

// Issue #13 table: one column per Node.js version.
function threadContextTable(results) {
  const rs = results.filter((r) => r.threadContext);
  const head = ['', ...rs.map((r) => `Node ${r.node}`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const row = (label, f) => lines.push(`| ${label} | ${rs.map((r) => f(r.threadContext)).join(' | ')} |`);
  const x = (v) => `**${v.toFixed(2)}×**`;
  row('ns per switch alone, records off / on (**on − off**)', (t) => `${t.switchNs.off.toFixed(1)} / ${t.switchNs.on.toFixed(1)} (**${t.switchNs.diff >= 0 ? '+' : '−'}${Math.abs(t.switchNs.diff).toFixed(1)} ns**)`);
  for (const [k, label] of [['awaitNs', 'ns per await'], ['immediateNs', 'ns per setImmediate hop'], ['syncNs', 'ns per sync withLabels, 3 new values']]) {
    row(`${label}, records off / on (on ÷ off)`, (t) => `${f0(t.micro[k].off)} / ${f0(t.micro[k].on)} (${x(t.micro[k].ratio)})`);
  }
  for (const [f, label] of [['express', 'Express 5'], ['fastify', 'Fastify 5']]) {
    row(`${label} server CPU µs/request with withLabels, records off / on (on ÷ off)`, (t) => `${f1(t.http[f].off)} / ${f1(t.http[f].on)} (${x(t.http[f].ratio)})`);
  }
  row(
    'OTel HTTP server CPU µs/request: ALS context manager / + withLabels per activation / customlabels/otel (records off)',
    (t) => `${f1(t.otel.us['als-cm'])} / ${f1(t.otel.us['withlabels-cm'])} / ${f1(t.otel.us['customlabels-cm'])} (${f1(t.otel.usRecordsOff)})`,
  );
  row('customlabels/otel ÷ withLabels per activation', (t) => x(t.otel.customToWithLabels));
  row('customlabels/otel ÷ ALS context manager', (t) => x(t.otel.customToAls));
  row('customlabels/otel, records on ÷ off', (t) => x(t.otel.recordsOnToOff));
  row('context activations per request', (t) => t.otel.activationsPerRequest.toFixed(1));
  return lines.join('\n');
}

const f0 = (x) => (x === undefined ? '—' : x.toFixed(0));
const f1 = (x) => (x === undefined ? '—' : x.toFixed(1));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);

// One row per Node.js version and framework: server CPU µs per request
// (medians) and the integration's ratios (medians of per-run ratios).
function integrationsTable(results) {
  const lines = [
    '| Node | framework | none | ALS middleware | hand-written withLabels | withLabels, constant route | integration | integration ÷ hand-written | integration ÷ constant route | integration ÷ ALS |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const x = (v) => (v === undefined ? '—' : `**${v.toFixed(2)}×**`);
  for (const r of results) {
    for (const framework of [...Object.keys(INTEGRATION_MODES), 'bullmq']) {
      const name = FRAMEWORK_NAMES[framework] ?? framework;
      const it = r.integrations?.[framework];
      if (!it) continue;
      const m = it.median;
      lines.push(
        `| ${r.node} | ${name} | ${[m.none, m['als-mw'], m['labels-mw'], m['labels-const'], m.integration].map(f1).join(' | ')} | ${x(it.ratios.integrationToLabelsMw)} | ${x(it.ratios.integrationToLabelsConst)} | ${x(it.ratios.integrationToAlsMw)} |`,
      );
    }
  }
  return lines.join('\n');
}

function table(results) {
  const lines = [];
  const head = ['', ...results.map((r) => `Node ${r.node}: none / ALS / floor / labels (labels ÷ ALS)`)];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  // The bold figure is labels ÷ ALS, or labels − ALS where a ratio means
  // nothing (RSS growth near zero).
  const row = (label, get, fmt = f0, summary = ratio) =>
    lines.push(
      `| ${label} | ${results
        .map((r) => {
          const v = ['none', 'als', 'floor', 'labels'].map((m) => get(r, m));
          return `${v.map(fmt).join(' / ')} (**${summary(v[3], v[1])}**)`;
        })
        .join(' | ')} |`,
    );
  const minusMB = (a, b) => (a === undefined || b === undefined ? '—' : `${a - b >= 0 ? '+' : '−'}${Math.abs(a - b).toFixed(1)} MB`);
  if (results[0].http.express) {
    row('Express server CPU µs/request', (r, m) => r.http.express?.[m], f1);
    row('Fastify server CPU µs/request', (r, m) => r.http.fastify?.[m], f1);
  }
  if (results[0].micro.als) {
    row('ns per await (100 concurrent requests)', (r, m) => r.micro[m]?.awaitNs);
    row('ns per setImmediate hop (100 chains)', (r, m) => r.micro[m]?.immediateNs);
    row('ns per sync scope, 3 labels, new values', (r, m) => r.micro[m]?.syncNs);
    row('ns per sync scope, 3 labels, values repeating', (r, m) => r.micro[m]?.repeatNs);
    row('ns per sync scope, same frozen object', (r, m) => r.micro[m]?.frozenNs);
    row('heap+external bytes per live scope', (r, m) => r.micro[m]?.liveScopeBytes);
    row('RSS growth, 1st million sync scopes (MB; labels − ALS)', (r, m) => r.micro[m]?.rssFirstMB, f1, minusMB);
    row('RSS growth, 2nd million sync scopes (MB; labels − ALS)', (r, m) => r.micro[m]?.rssSecondMB, f1, minusMB);
    lines.push(
      `| module loaded, never used: ns per await, per hop (÷ none) | ${results
        .map((r) => {
          const l = r.micro.loaded;
          const n = r.micro.none;
          return l && n ? `${f0(l.awaitNs)} (${ratio(l.awaitNs, n.awaitNs)}), ${f0(l.immediateNs)} (${ratio(l.immediateNs, n.immediateNs)})` : '—';
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function replaceBetween(file, name, body) {
  const text = fs.readFileSync(file, 'utf8');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i === -1 || j === -1) throw new Error(`${file} has no ${name} markers`);
  fs.writeFileSync(file, `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`);
}

(async () => {
  const from = opt('--from', null); // re-render a saved results file
  const saved = from === null ? null : JSON.parse(fs.readFileSync(from, 'utf8'));
  const results = saved === null ? [] : saved.results;
  for (const node of saved === null ? nodes : []) {
    process.stderr.write(`benchmarking ${node}\n`);
    results.push(await benchNode(node));
  }
  const hasMain = results.some((r) => Object.keys(r.micro).length > 0 || Object.keys(r.http).length > 0);
  const hasIntegrations = results.some((r) => Object.keys(r.integrations ?? {}).length > 0);
  const mdThreadContext = results.some((r) => r.threadContext) ? threadContextTable(results) : null;
  const mdNoHooks = results.some((r) => r.nohooks) ? noHooksTable(results) : null;
  const md = hasMain ? table(results) : null;
  const mdIntegrations = hasIntegrations ? integrationsTable(results) : null;
  const date = saved === null ? new Date().toISOString().slice(0, 10) : saved.date;
  const command = saved?.command ?? ['node bench/run.js', ...args].join(' ');
  const cpu = saved?.cpu ?? `${os.cpus()[0].model} (${cpus} CPUs)`;
  const load = saved?.loadavg ?? os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const header = `Measured ${date} on ${cpu}, medians of ${saved?.runs ?? runs} runs, \`${command}\` (load average at the end: ${load}).`;
  console.log([header, md, mdIntegrations, mdThreadContext, mdNoHooks].filter((t) => t !== null).join('\n\n'));
  if (saved === null) {
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    const name = only === null ? 'latest.json' : `latest-${suites.join('+')}.json`;
    fs.writeFileSync(path.join(__dirname, 'results', name), JSON.stringify({ date, runs, command, cpu, loadavg: load, results }, null, 2));
  }
  if (write) {
    const readme = path.join(__dirname, 'README.md');
    if (md !== null) replaceBetween(readme, 'results', `${header}\n\n${md}`);
    if (mdIntegrations !== null) replaceBetween(readme, 'integrations', `${header}\n\n${mdIntegrations}`);
    if (mdThreadContext !== null) replaceBetween(readme, 'thread-context', `${header}\n\n${mdThreadContext}`);
    if (mdNoHooks !== null) replaceBetween(readme, 'nohooks', `${header}\n\n${mdNoHooks}`);
  }
})().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

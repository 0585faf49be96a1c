'use strict';

// Soak: a Fastify server (soak-server.js) with a label scope per request,
// loaded by soak-client.js in another process, for a fixed request count.
// Asserts that no request ever saw labels other than its own (checked at
// every step of every request) and that the server's RSS after the run is
// at most --max-growth MB above its RSS after the warm-up.
//   node test/stress/soak.js [--requests 100000] [--warmup 20000] [--samples 10]
//        [--connections 32] [--mode labels] [--gc] [--max-growth 30] [--json FILE]
// --mode none|als|floor runs the same load with no scope, a plain
// AsyncLocalStorage scope, or one with customlabels' kind of hooks left
// empty, for comparison (see README.md). --gc runs the server with
// --expose-gc and collects garbage twice before each memory sample.

const fs = require('node:fs');
const path = require('node:path');
const { MB, mb, signed, createReport, parseOptions, forkReady, ask, exited, runMain } = require('./report');
const { MODES } = require('./scopes');
const { growth } = require('./memory');

const options = parseOptions(process.argv.slice(2), {
  requests: 100000,
  warmup: 20000,
  samples: 10,
  connections: 32,
  mode: 'labels',
  gc: false,
  maxGrowth: 30,
  json: '',
});
if (!MODES.includes(options.mode)) {
  process.stderr.write(`--mode must be one of ${MODES.join(', ')}\n`);
  process.exit(2);
}

const report = createReport(`soak ${process.version} ${options.mode}`);

async function main() {
  const started = Date.now();
  const server = await forkReady(path.join(__dirname, 'soak-server.js'), [options.mode], {
    execArgv: options.gc ? ['--expose-gc'] : [],
  });
  const { port } = server.first;
  const client = await forkReady(path.join(__dirname, 'soak-client.js'), [String(port), String(options.connections)]);
  const series = [];
  let failed = 0;
  let firstFailure = null;
  const load = async (n) => {
    const r = await ask(client.child, { run: n });
    failed += r.failed;
    if (firstFailure === null) firstFailure = r.firstFailure;
  };
  const sample = async (served) => {
    const s = await ask(server.child, { sample: true, gc: options.gc });
    series.push({ served, ...s.memory, seconds: (Date.now() - started) / 1000 });
    return s;
  };

  await load(options.warmup);
  await sample(options.warmup);
  const chunk = Math.ceil(options.requests / options.samples);
  let sent = 0;
  while (sent < options.requests) {
    const n = Math.min(chunk, options.requests - sent);
    await load(n);
    sent += n;
    await sample(options.warmup + sent);
  }
  const last = await ask(server.child, { sample: true, gc: false });

  client.child.send('exit');
  server.child.send('exit');
  const [clientExit, serverExit] = await Promise.all([exited(client.child), exited(server.child)]);
  const seconds = (Date.now() - started) / 1000;

  const total = options.warmup + options.requests;
  const base = series[0];
  const end = series[series.length - 1];
  const grown = growth(base, end); // V8's young generation aside: memory.js
  const col = (key) => series.map((s) => mb(s[key])).join(' ');
  report.info(`server ${server.first.version} pid ${server.first.pid}, ${total} requests over ${options.connections} connections in ${seconds.toFixed(1)} s${options.gc ? ', forced GC before each sample' : ''}`);
  report.info(`requests served at each sample: ${series.map((s) => s.served).join(' ')}`);
  report.info(`rss MB:          ${col('rss')}`);
  report.info(`heapUsed MB:     ${col('heapUsed')}`);
  report.info(`heapTotal MB:    ${col('heapTotal')}`);
  report.info(`external MB:     ${col('external')}`);
  report.info(`arrayBuffers MB: ${col('arrayBuffers')}`);
  report.info(`new space MB:    ${series.map((s) => mb(s.spaces.new_space || 0)).join(' ')}`);
  report.info(`old space MB:    ${series.map((s) => mb(s.spaces.old_space || 0)).join(' ')}`);

  report.check(failed === 0, 'every request answered 200', failed === 0 ? `${total} requests` : `${failed} failed, first: ${firstFailure}`);
  report.check(last.requests === total, 'the server saw every request through onResponse', `${last.requests} of ${total}`);
  if (options.mode !== 'none') {
    // A /health request passes 5 checks, /orders 10 and /report 12, and
    // soak-client.js sends request i to /orders, /report or /health as i % 10
    // is below 7, below 9 or 9.
    let expectedChecks = 0;
    for (let i = 0; i < total; i++) expectedChecks += i % 10 < 7 ? 10 : i % 10 < 9 ? 12 : 5;
    report.check(
      last.checks === expectedChecks,
      'every request was checked at each step',
      `${last.checks} checks, ${(last.checks / total).toFixed(2)} per request`,
    );
    report.check(
      last.mismatches === 0,
      'no request ever saw labels other than its own',
      last.mismatches === 0
        ? `0 mismatches in ${last.checks} checks`
        : `${last.mismatches} mismatches, first: ${JSON.stringify(last.firstMismatches)}`,
    );
  }
  report.check(
    grown.counted <= options.maxGrowth * MB,
    `RSS grew at most ${options.maxGrowth} MB from after the warm-up to the end, V8's young generation aside`,
    `RSS ${mb(base.rss)} -> ${mb(end.rss)} MB: ${signed(grown.rss)} MB, young generation ${signed(grown.young)} MB, counted ${signed(grown.counted)} MB`,
  );
  report.check(
    clientExit.code === 0 && serverExit.code === 0,
    'server and client exited cleanly',
    `server ${serverExit.code ?? serverExit.signal}, client ${clientExit.code ?? clientExit.signal}`,
  );

  if (options.json) {
    const result = { node: server.first.version, mode: options.mode, gc: options.gc, requests: total, seconds, mismatches: last.mismatches, checks: last.checks, series };
    fs.writeFileSync(options.json, `${JSON.stringify(result)}\n`);
  }
}

runMain(report, main);

'use strict';

// How bench/run.js's suites measure: every measurement in a fresh process,
// pinned (the measured process to CPU 0, a load generator to CPU 1), modes
// alternating within each run in rotating order so the machine's drift hits
// every mode alike; medians, and medians of per-run ratios.

const { execFileSync, spawn, fork } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const cpus = os.cpus().length;
const pin = (cpu) => (cpus > 1 ? ['taskset', ['-c', String(cpu)]] : null);

const version = (node) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rotate = (xs, k) => xs.map((_, i) => xs[(i + k) % xs.length]);

// The environment without thread context records (lib/core/api.js), and without hooks.
const NO_RECORDS = { ...process.env, CUSTOMLABELS_THREAD_CONTEXT: '0' };
const HOOKS_OFF = { ...process.env, CUSTOMLABELS_HOOKS: '0' };

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

// bench/apps/<framework>.js servers: their own modes and request. (Named:
// bench/apps also holds servers and preloads other benches start, which
// run when loaded.)
const APPS = Object.fromEntries(['apollo', 'hapi', 'hono', 'koa', 'yoga'].map((name) => [name, require(`./apps/${name}.js`)]));

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

// Runs each of `cases` (name -> () => Promise<{metric: number}>) once per
// run, in rotating order; returns name -> metric -> samples.
async function runCases(node, cases, suite, runs) {
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

// Medians of `samples` (name -> metric -> samples) and of per-run ratios.
function stats(samples) {
  const med = (name, k) => median(samples[name][k]);
  const perRun = (a, b, k, f) => median(samples[a][k].map((x, i) => f(x, samples[b][k][i])));
  return {
    med,
    ratioOf: (a, b, k) => perRun(a, b, k, (x, y) => x / y),
    diffOf: (a, b, k) => perRun(a, b, k, (x, y) => x - y),
  };
}

module.exports = { version, median, rotate, runJson, runMicro, runHttp, runCases, stats, APPS, NO_RECORDS, HOOKS_OFF, cpus };

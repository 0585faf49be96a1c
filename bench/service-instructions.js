'use strict';

// Instructions per request of the three real services (bench/service-apps.js)
// in each mode, counted by valgrind (callgrind) in the server: a second
// signal beside bench/services.js's CPU time, one this machine's noise does
// not reach. Time per request on this shared machine moves by ±10-25 % from
// run to run; the instructions a request executes do not depend on what else
// the machine runs, so ratios between modes resolve a few per cent in a
// handful of runs. They are not time: an instruction of a cache miss and one
// of a register move count alike, and valgrind runs the server's threads one
// at a time. Instructions are the work customlabels adds, not its latency.
//
//   node bench/service-instructions.js                 # Node 24, all three
//   node bench/service-instructions.js --services node-red --repeat 3 --write
//   options: --node MAJOR|PATH (one), --services NAME,..., --modes MODE,...
//            (none and these), --warmup requests before the first window
//            (default 2000), --requests per window (default 1000),
//            --windows per server (default 3), --repeat servers per mode
//            (default 2), --out FILE (where the results are saved; default
//            bench/results/service-instructions.json), --write
//            (docs/performance.md's service-instructions table), --from
//            FILE,... (re-render saved results, several runs' services in
//            one table), --collect (a full collection before each
//            window, below)
//
// Each server runs under `valgrind --tool=callgrind --instr-atstart=no`
// with `node --single-threaded` (V8's GC and compiler work on the main
// thread, in the count, not on helper threads valgrind would interleave):
// counting starts after it answers (callgrind_control -i on), then the
// warm-up, then per window (with --collect, a full collection first:
// bench/apps/collect-on-signal.js, preloaded in every mode) the counters
// zeroed (-z), the requests sent one at a time over one kept-alive
// connection, and the counters dumped (-d). (--collect was meant to keep
// a major collection's marking out of the windows; it did not narrow the
// intervals (verdaccio ±0.7-3.1 % against ±0.1-1.2 % without it, Node-RED
// ±1.0-2.4 % against ±0.5-3.5 %), it left GC at 110-210 k instructions per
// request, and it raised the work of every mode by about a sixth (Node-RED
// none 612 k to 723 k): what V8 runs after a forced collection is not what
// it ran before it. So it is not the default: docs/performance.md.)
// A window's total is every instruction the process executed in it (every
// thread: libuv's pool too), over the requests, split by function
// (bench/callgrind-costs.js, with `node --perf-basic-prof` naming the
// JavaScript): V8's GC, its compilers, customlabels' own JavaScript, and
// the rest. `work` is the total less GC and compiling, which come in lumps
// (a window may hold a whole collection, or none) and so spread the total
// wider than what a request itself runs. Ratios pair each mode's window with none's
// window of the same number in the same repeat (bench/stats.js: geometric
// mean, bootstrap interval over those pairs).

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { nodeVersion } = require('../scripts/node-versions');
const { version, median, rotate } = require('./harness');
const { cli, frameLine } = require('./cli');
const { ratioInterval } = require('./stats');
const { costsPerRequest } = require('./callgrind-costs');
const { install, versionOf, whyNot, TENANTS, SERVICES, ENV, preload, freePort, sleep, get, exited, stop } = require('./service-apps');

const root = path.join(__dirname, '..');
const LIB_PATH = `${path.join(root, 'lib')}/`;
const { args, opt, has, nodes } = cli(__filename);

// callgrind_control's command to the server (valgrind's pid is the node's).
const control = (pid, flag, value) => execFileSync('callgrind_control', value === undefined ? [flag, String(pid)] : [flag, value, String(pid)], { stdio: 'ignore' });

// `n` requests, one at a time; throws at the first not answered 200.
async function sendSequential(agent, port, service, from, n) {
  for (let i = from; i < from + n; i++) {
    const status = await get(agent, port, service.request(i), TENANTS[i % 3]);
    if (status !== 200) throw new Error(`${service.request(i)} → ${status}`);
  }
}

const newAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });

// A full collection in the server (bench/apps/collect-on-signal.js), the
// `n`th: returns once it is done.
async function collect(child, file, n) {
  child.kill('SIGURG');
  for (let t = 0; ; t += 100) {
    if (fs.existsSync(file) && Number(fs.readFileSync(file, 'utf8')) >= n) return;
    if (t > 120000 || exited(child)) throw new Error('the server did not report its full collection');
    await sleep(100);
  }
}

// One server of `name` in `mode` under callgrind: per window its
// instructions per request (bench/callgrind-costs.js: total, gc, compile,
// customlabels, rest, customlabelsFns) and `work`, the total less GC and
// compiling.
async function runOnce(node, name, mode, dir, limits) {
  const service = SERVICES[name];
  const port = await freePort();
  const env = { ...process.env, ...ENV[mode], NODE_NO_WARNINGS: '1' };
  for (const k of ['NODE_OPTIONS', 'CUSTOMLABELS_HOOKS', 'CUSTOMLABELS_INTEGRATIONS', 'CUSTOMLABELS_HEADERS']) if (ENV[mode][k] === undefined) delete env[k];
  const collected = path.join(dir, `collected-${mode}`);
  if (limits.collect) {
    env.NODE_OPTIONS = [env.NODE_OPTIONS, preload('collect-on-signal.js')].filter(Boolean).join(' ');
    env.CUSTOMLABELS_BENCH_COLLECTED = collected;
    fs.rmSync(collected, { force: true });
  }
  const outDir = path.join(dir, `callgrind-${mode}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir);
  const out = path.join(outDir, 'cg.out');
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, node, '--single-threaded', '--perf-basic-prof', ...service.command(dir, port, limits.cache)], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  // (--perf-basic-prof's names of the code V8 generates; valgrind keeps the
  // pid.)
  const perfMap = `/tmp/perf-${child.pid}.map`;
  let agent = newAgent();
  try {
    for (let t = 0; ; t += 500) {
      if ((await get(agent, port, service.ready, 'acme')) === 200) break;
      if (t > 300000 || exited(child)) throw new Error(`${name} ${mode} did not start under valgrind: ${stderr.slice(-800)}`);
      await sleep(500);
    }
    control(child.pid, '-i', 'on');
    await sendSequential(agent, port, service, 0, limits.warmup);
    const windows = [];
    for (let w = 0; w < limits.windows; w++) {
      if (limits.collect) {
        await collect(child, collected, w + 1);
        // (The collection outlasts the server's keep-alive timeout under
        // valgrind: a new connection, opened before the count starts.)
        agent.destroy();
        agent = newAgent();
        if ((await get(agent, port, service.ready, 'acme')) !== 200) throw new Error(`${name} ${mode}: no answer after the full collection`);
      }
      control(child.pid, '-z');
      await sendSequential(agent, port, service, limits.warmup + w * limits.requests, limits.requests);
      const before = new Set(fs.readdirSync(outDir));
      control(child.pid, '-d');
      // (The dump is written before callgrind_control returns.)
      const dumped = fs.readdirSync(outDir).filter((f) => !before.has(f));
      if (dumped.length !== 1) throw new Error(`${name} ${mode}: callgrind wrote ${dumped.length} dumps for window ${w + 1}`);
      const c = costsPerRequest(path.join(outDir, dumped[0]), perfMap, LIB_PATH, limits.requests);
      // (Hooks off must mean off: a server whose hooks stayed on, say for
      // want of the V8 unit, would count as hook-free. The switch's code
      // runs only with hooks.)
      if (ENV[mode].CUSTOMLABELS_HOOKS === '0' && Object.keys(c.customlabelsFns).some((f) => f.includes('lib/core/switcher.js'))) {
        throw new Error(`${name} ${mode}: the switch ran, so hooks stayed on (customlabels.strategy() says why)`);
      }
      windows.push({ ...c, work: c.total - c.gc - c.compile });
    }
    return windows;
  } finally {
    agent.destroy();
    await stop(child);
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.rmSync(perfMap, { force: true });
  }
}

const PARTS = ['total', 'work', 'gc', 'compile', 'customlabels'];
// (GC and compiling come in lumps: a window may hold none, so they are
// given as means over all windows, not compared window by window.)
const RATIO_PARTS = ['total', 'work'];
const LUMPY = ['gc', 'compile'];

async function runService(node, name, limits) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `customlabels-${name}-`));
  try {
    SERVICES[name].setup(dir);
    const frames = frameLine(node);
    const modes = ['none', 'empty-hooks', 'register', ...(frames ? ['register-nohooks'] : []), 'register-none'].filter((m) => limits.modes === null || m === 'none' || limits.modes.includes(m));
    // values[mode][repeat] = that server's windows
    const values = Object.fromEntries(modes.map((m) => [m, []]));
    for (let r = 0; r < limits.repeat; r++) {
      for (const mode of rotate(modes, r)) {
        values[mode][r] = await runOnce(node, name, mode, dir, limits);
        process.stderr.write(`  ${version(node)} ${name} ${mode}: ${values[mode][r].map((w) => Math.round(w.total)).join(', ')} instructions/request\n`);
      }
    }
    // Each mode's windows paired with `base`'s of the same repeat and number.
    const pairs = (mode, base, part) => values[mode].flatMap((ws, r) => ws.map((w, i) => w[part] / values[base][r][i][part]));
    // Per mode: the windows' median of each part, their mean for the lumpy
    // ones.
    const summary = (m, p) => {
      const xs = values[m].flat().map((w) => w[p]);
      return LUMPY.includes(p) ? xs.reduce((a, b) => a + b, 0) / xs.length : median(xs);
    };
    const per = Object.fromEntries(modes.map((m) => [m, Object.fromEntries(PARTS.map((p) => [p, summary(m, p)]))]));
    const ratios = Object.fromEntries(modes.slice(1).map((m) => [m, Object.fromEntries(RATIO_PARTS.map((p) => [p, ratioInterval(pairs(m, 'none', p))]))]));
    const floor = values.register !== undefined && values['empty-hooks'] !== undefined ? Object.fromEntries(RATIO_PARTS.map((p) => [p, ratioInterval(pairs('register', 'empty-hooks', p))])) : undefined;
    // customlabels' own functions, instructions per request (the windows'
    // mean), largest first.
    const meanFns = (m, key) => {
      const sums = {};
      for (const w of values[m].flat()) for (const [f, n] of Object.entries(w[key])) sums[f] = (sums[f] ?? 0) + n / values[m].flat().length;
      return sums;
    };
    const fns = Object.fromEntries(modes.map((m) => [m, Object.entries(meanFns(m, 'customlabelsFns')).sort((a, b) => b[1] - a[1])]));
    // What grows most in the rest (Node.js's and V8's code the app runs)
    // against none: what customlabels has them do, the largest 12.
    const none = meanFns('none', 'restFns');
    const grown = Object.fromEntries(
      modes.slice(1).map((m) => {
        const rest = meanFns(m, 'restFns');
        const diff = Object.keys({ ...rest, ...none }).map((f) => [f, (rest[f] ?? 0) - (none[f] ?? 0)]);
        return [m, diff.sort((a, b) => b[1] - a[1]).slice(0, 12)];
      }),
    );
    // (Each window's by-function rows are summed up above, not saved.)
    for (const m of modes) for (const w of values[m].flat()) delete w.restFns;
    return { values, per, ratios, floor, fns, grown };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const thousands = (n) => `${(n / 1000).toFixed(0)} k`;
const fmtRatio = (r) => (Number.isFinite(r.low) ? `${r.ratio.toFixed(3)}× [${r.low.toFixed(3)}, ${r.high.toFixed(3)}]` : `${r.ratio.toFixed(3)}× (one pair)`);

const limitsText = (l) => `${l.repeat} servers per mode, ${l.windows} windows of ${l.requests} requests each after ${l.warmup} of warm-up${l.collect ? ', each window right after a full collection' : ''}`;

// One table of saved runs (each of one Node.js, one or more services).
function render(runs) {
  const { date, cpu } = runs[0];
  const texts = runs.map((r) => limitsText(r.limits));
  const how = texts.every((t) => t === texts[0]) ? `\`${runs.map((r) => r.command).join('`, `')}\`; ${texts[0]}` : runs.map((r, i) => `\`${r.command}\` (${texts[i]})`).join(', ');
  const lines = [
    `Counted ${date} on ${cpu}: ${how}; instructions per request (medians of the windows; GC and compiling, which come in lumps: means), work: the total less GC and compiling (with what the collector and the compilers call); ratios to no customlabels over the windows paired by number [95 %]; register ÷ floor: hooks on against empty-hooks.`,
    '',
    '| service, Node.js | mode | instructions/request | work | GC | compiling | customlabels\' own | total ÷ none | work ÷ none | pairs |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const rows = runs.flatMap(({ node, services }) => Object.entries(services).map(([name, s]) => ({ name, s, node, label: `${name} ${versionOf(name, Number(node.slice(1).split('.')[0]))}, ${node}` })));
  for (const { s, label } of rows) {
    for (const [mode, p] of Object.entries(s.per)) {
      const r = s.ratios[mode];
      lines.push(`| ${label} | ${mode} | ${thousands(p.total)} | ${thousands(p.work)} | ${thousands(p.gc)} | ${thousands(p.compile)} | ${thousands(p.customlabels)} | ${r ? fmtRatio(r.total) : '—'} | ${r ? fmtRatio(r.work) : '—'} | ${r ? r.total.n : ''} |`);
    }
    if (s.floor !== undefined) lines.push(`| ${label} | register ÷ floor | | | | | | ${fmtRatio(s.floor.total)} | ${fmtRatio(s.floor.work)} | ${s.floor.total.n} |`);
  }
  // customlabels' own functions per request, where register runs.
  for (const { name, s, node } of rows) {
    for (const mode of ['register', 'register-nohooks']) {
      const top = s.fns?.[mode];
      if (top === undefined || top.length === 0) continue;
      lines.push('', `${name} on ${node}, ${mode}: customlabels' own instructions per request, by function (the ten largest of ${top.length}): ${top.slice(0, 10).map(([f, n]) => `\`${f}\` ${Math.round(n)}`).join(', ')}.`);
      const grown = s.grown?.[mode];
      if (grown !== undefined) lines.push('', `${name} on ${node}, ${mode}: what grows most in the rest against none, instructions per request: ${grown.map(([f, n]) => `\`${f}\` ${n >= 0 ? '+' : ''}${Math.round(n)}`).join(', ')}.`);
    }
  }
  return lines.join('\n');
}

async function main() {
  const from = opt('--from', null);
  let runs;
  if (from !== null) {
    // (Several files, comma-separated: runs of different services or
    // Node.js lines, rendered as one table.)
    runs = from.split(',').map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  } else {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    const all = nodes([nodeVersion(24)]);
    if (all.length !== 1) throw new Error('bench/service-instructions.js counts one Node.js at a time (one --node)');
    const node = all[0];
    const major = Number(version(node).slice(1).split('.')[0]);
    const names = (opt('--services', null) ?? Object.keys(SERVICES).join(',')).split(',');
    for (const n of names) if (SERVICES[n] === undefined) throw new Error(`--services: unknown ${n} (expected ${Object.keys(SERVICES).join(', ')})`);
    const limits = {
      warmup: Number(opt('--warmup', 2000)),
      requests: Number(opt('--requests', 1000)),
      windows: Number(opt('--windows', 3)),
      repeat: Number(opt('--repeat', 2)),
      modes: opt('--modes', null)?.split(',') ?? null,
      collect: has('--collect'),
    };
    if (has('--write') && (limits.modes !== null || limits.collect)) throw new Error('--write: not with --modes or --collect (an experiment is not the docs table)');
    for (const m of limits.modes ?? []) if (ENV[m] === undefined) throw new Error(`--modes: unknown ${m} (expected ${Object.keys(ENV).join(', ')})`);
    const services = {};
    for (const name of names) {
      if (versionOf(name, major) === undefined) {
        process.stderr.write(`  ${version(node)} ${name}: skipped (${whyNot(name, major)})\n`);
        continue;
      }
      try {
        services[name] = await runService(node, name, { ...limits, cache: install(major).cache });
      } catch (err) {
        // (A service that fails costs its rows, not the run.)
        process.stderr.write(`  ${version(node)} ${name}: failed: ${err.message}\n`);
      }
    }
    const saved = {
      node: version(node),
      services,
      command: `node bench/service-instructions.js ${args.filter((a) => a !== '--write').join(' ')}`.trim(),
      limits,
      date: new Date().toISOString().slice(0, 10),
      cpu: `${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'}, valgrind ${execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim().replace(/^valgrind-/, '')}`,
    };
    const out = opt('--out', path.join(__dirname, 'results', 'service-instructions.json'));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(saved, null, 1)}\n`);
    runs = [saved];
  }
  const body = render(runs);
  process.stdout.write(`${body}\n`);
  if (has('--write')) require('./tables').replaceBetween(path.join(root, 'docs', 'performance.md'), 'service-instructions', body);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});

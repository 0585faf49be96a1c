'use strict';

// Three open-source Node.js services this project did not write, installed
// from npm and run unmodified, with and without customlabels/register:
// server CPU per request and p50/p99 latency at a fixed request rate, each
// ratio with its 95 % interval (bench/stats.js), and per run the evidence
// for p99: full and young GCs in the window (--trace-gc) and the event
// loop's delay (perf_hooks.monitorEventLoopDelay, bench/apps/loop-delay.js);
// after the blocks, a profiled run per mode for customlabels' own share of
// the CPU (bench/profile-share.js). The services and modes: bench/service-apps.js.
//
//   node bench/services.js                      # Node 24, all three services
//   node bench/services.js --node 24 --services verdaccio --rate 200 --seconds 15
//   node bench/services.js --node 24 --node 20 --services-on 20=node-red --write
//   options: --node MAJOR|PATH (repeatable), --services NAME,...,
//            --services-on MAJOR=NAME,... (that major runs those), --rate
//            requests per second (default 250), --seconds per run (default
//            15), --blocks N (default 8), --no-profile (no profiled run
//            per mode after the blocks), --modes MODE,... (none and
//            these), --node-flags "FLAGS" (to every mode's server: an
//            experiment's V8 flags), --register-env K=V (repeatable: to
//            the register mode's server, over its own: an experiment's
//            configuration, such as CUSTOMLABELS_INTEGRATIONS=grpc against
//            register-none), --write (docs/performance.md's
//            services table), --from FILE (re-render saved results)
//
// Modes, each a fresh server process pinned to CPU 0: none (no
// customlabels), empty-hooks (the hooks customlabels' switch installs,
// empty: the floor of any hook-based switch, bench/apps/empty-hooks.js),
// register (node --require customlabels/register, hooks on,
// CUSTOMLABELS_HEADERS=x-tenant=tenant), register-nohooks (the same with
// CUSTOMLABELS_HOOKS=0, Node.js 24+), register-none (register with
// CUSTOMLABELS_INTEGRATIONS=none: what its presence alone costs). The load is open-loop from CPU 1:
// requests sent on a fixed schedule whatever the server's pace, latency
// measured from each request's scheduled time (no coordinated omission),
// over keep-alive connections, after a warm-up of the same length. CPU per
// request is the server's time on CPU (every thread's, from
// /proc/<pid>/task/*/schedstat) over the window, divided by the requests
// answered in it.

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { nodeVersion } = require('../scripts/node-versions');
const { version, median, rotate } = require('./harness');
const { cli, frameLine } = require('./cli');
const { ratioInterval, blocksNeeded } = require('./stats');
const { sharesOf } = require('./profile-share');

const root = path.join(__dirname, '..');
// customlabels' code, as a profile names its scripts.
const LIB_URL = `${require('node:url').pathToFileURL(path.join(root, 'lib'))}/`;
const { install, versionOf, whyNot, TENANTS, SERVICES, ENV, preload, freePort, sleep, get, exited, stop } = require('./service-apps');

const { args, opt, has, nodes: nodesOr } = cli(__filename);

// Nanoseconds thread `tid` of process `pid` has been on a CPU.
const threadCpuNs = (pid, tid) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);

// Nanoseconds the process has been on a CPU, all its threads.
function cpuNs(pid) {
  let sum = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      sum += threadCpuNs(pid, tid);
    } catch {
      // a thread that ended
    }
  }
  return sum;
}

// Young (Scavenge, Minor Mark-Sweep) and full (Mark-Compact) collections,
// counted from a --trace-gc stream (its lines appended to the file
// CUSTOMLABELS_BENCH_GC_LOG names, if set: each GC's reason, and whatever
// else --node-flags has V8 print, such as --trace-gc-verbose's heap).
const GC_LOG = process.env.CUSTOMLABELS_BENCH_GC_LOG || undefined;
function gcCounter(stream) {
  const counts = { young: 0, full: 0 };
  let rest = '';
  stream.on('data', (d) => {
    const lines = (rest + d).split('\n');
    rest = lines.pop();
    if (GC_LOG !== undefined) fs.appendFileSync(GC_LOG, lines.map((l) => `${l}\n`).join(''));
    for (const l of lines) {
      if (/ ms: (Scavenge|Minor Mark-Sweep)\b/.test(l)) counts.young += 1;
      else if (/ ms: Mark-Compact\b/.test(l)) counts.full += 1;
    }
  });
  return counts;
}

// Runs `service` under `node` in `mode`: { cpuUsPerRequest, p50Ms, p99Ms,
// requests, fullGcs, youngGcs, loopP99Ms }, and with `profile` (a run of
// its own: the profiler costs CPU) also { shares } of its main thread's CPU
// profile in the window (bench/profile-share.js); throws where a request
// failed.
async function runOnce(node, name, mode, dir, { rate, seconds, nodeFlags, registerEnv, cache }, { profile = false } = {}) {
  const service = SERVICES[name];
  const port = await freePort();
  const env = { ...process.env, ...ENV[mode], NODE_NO_WARNINGS: '1' };
  // (Only the mode sets these: not an inherited CUSTOMLABELS_HOOKS=0 or
  // --require.)
  for (const k of ['CUSTOMLABELS_HOOKS', 'CUSTOMLABELS_INTEGRATIONS', 'CUSTOMLABELS_HEADERS']) if (ENV[mode][k] === undefined) delete env[k];
  if (mode === 'register') Object.assign(env, registerEnv);
  const delayFile = path.join(dir, `loop-delay-${mode}.json`);
  fs.rmSync(delayFile, { force: true });
  env.CUSTOMLABELS_BENCH_LOOP_DELAY = delayFile;
  env.NODE_OPTIONS = [preload('loop-delay.js'), ENV[mode].NODE_OPTIONS].filter(Boolean).join(' ');
  const profileDir = path.join(dir, `profile-${mode}`);
  fs.rmSync(profileDir, { recursive: true, force: true });
  // (Every 100 µs: thousands of samples on CPU in a window.)
  const profiling = profile ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`] : [];
  // (A profiled run is not timed: its server may use both CPUs, so that
  // the profiler's sampling thread does not wait for the main thread's.)
  const child = spawn('taskset', ['-c', profile ? '0,1' : '0', node, '--trace-gc', ...profiling, ...nodeFlags, ...service.command(dir, port, cache)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const gcs = gcCounter(child.stdout);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // (taskset execs the node: the child's pid is the server's.)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  try {
    for (let t = 0; ; t += 100) {
      if ((await get(agent, port, service.ready, 'acme')) === 200) break;
      if (t > 60000 || exited(child)) throw new Error(`${name} ${mode} did not start: ${stderr.slice(0, 500)}`);
      await sleep(100);
    }
    const phase = async (measure) => {
      const n = rate * seconds;
      const latencies = [];
      const failed = []; // 'path → status' of each request not answered 200
      if (measure) child.kill('SIGWINCH'); // the loop-delay window starts (a signal whose default is to be ignored: Node-RED exits at SIGUSR2)
      const gcBefore = { ...gcs };
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      const start = performance.now();
      const cpuBefore = measure ? cpuNs(child.pid) : 0;
      const mainBefore = measure ? threadCpuNs(child.pid, child.pid) : 0;
      const pending = [];
      for (let i = 0; i < n; i++) {
        const due = start + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        // From when it was due, or from when it left if that was earlier
        // (a timer is let go up to 1 ms early): a late send counts against
        // the server, an early one not for it.
        const from = Math.min(due, performance.now());
        pending.push(
          get(agent, port, service.request(i), TENANTS[i % 3]).then((status) => {
            if (status !== 200) failed.push(`${service.request(i)} → ${status}`);
            latencies.push(performance.now() - from);
          }),
        );
      }
      await Promise.all(pending);
      const cpu = measure ? cpuNs(child.pid) - cpuBefore : 0;
      const mainCpu = measure ? threadCpuNs(child.pid, child.pid) - mainBefore : 0;
      latencies.sort((a, b) => a - b);
      const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
      const window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
      return { cpuUsPerRequest: cpu / 1000 / n, mainCpuUsPerRequest: mainCpu / 1000 / n, p50Ms: q(0.5), p99Ms: q(0.99), requests: n, failed, window, fullGcs: gcs.full - gcBefore.full, youngGcs: gcs.young - gcBefore.young };
    };
    await phase(false);
    const { failed, window, ...out } = await phase(true);
    if (failed.length > 0) throw new Error(`${name} ${mode}: ${failed.length} of ${out.requests} requests failed (${failed.slice(0, 3).join(', ')})`);
    // (The loop-delay preload writes its file, and --cpu-prof its profile,
    // as the server exits.)
    await stop(child);
    const delay = JSON.parse(fs.readFileSync(delayFile, 'utf8'));
    if (!profile) return { ...out, loopP99Ms: delay.p99 };
    // The main thread's profile: CPU.<date>.<time>.<pid>.<thread id>.<seq>
    // (a worker's has its own thread id).
    const files = fs.existsSync(profileDir) ? fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile') && f.split('.')[4] === '0') : [];
    if (files.length !== 1) throw new Error(`${name} ${mode}: --cpu-prof wrote ${files.length} main-thread profiles`);
    const shares = sharesOf(JSON.parse(fs.readFileSync(path.join(profileDir, files[0]), 'utf8')), { ...window, libPrefix: LIB_URL });
    return { ...out, loopP99Ms: delay.p99, shares };
  } finally {
    agent.destroy();
    await stop(child);
  }
}

// --- blocks and the table ---------------------------------------------------------

// [key, title, the interval issue #37 asks of its ratio (relative)]
const METRICS = [
  ['cpuUsPerRequest', 'CPU µs/request', 0.03],
  ['p50Ms', 'p50 ms'],
  ['p99Ms', 'p99 ms', 0.1],
];

async function runService(node, name, frames, limits) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `customlabels-${name}-`));
  try {
    SERVICES[name].setup(dir);
    const modes = ['none', 'empty-hooks', 'register', ...(frames ? ['register-nohooks'] : []), 'register-none'].filter((m) => limits.modes === null || m === 'none' || limits.modes.includes(m));
    const values = Object.fromEntries(modes.map((m) => [m, []]));
    for (let b = 0; b < limits.blocks; b++) {
      for (const mode of rotate(modes, b)) values[mode].push(await runOnce(node, name, mode, dir, limits));
      process.stderr.write(`  ${version(node)} ${name}: block ${b + 1}/${limits.blocks}\n`);
    }
    // One profiled run per mode after the blocks (not in them: the
    // profiler's own cost would widen the intervals).
    const shares = {};
    if (limits.profile) {
      for (const mode of modes) {
        try {
          const { shares: sh } = await runOnce(node, name, mode, dir, limits, { profile: true });
          // µs of customlabels' code per request: its share of the main
          // thread's samples, times the main thread's CPU per request in the
          // blocks (the profiled run's own is the profiler's too).
          shares[mode] = { ...sh, customlabelsUsPerRequest: sh.customlabels * median(values[mode].map((x) => x.mainCpuUsPerRequest)) };
        } catch (err) {
          // (A profiled run that fails costs its cells, not the blocks.)
          process.stderr.write(`  ${version(node)} ${name} ${mode}: profiled run failed: ${err.message}\n`);
        }
      }
      process.stderr.write(`  ${version(node)} ${name}: profiled\n`);
    }
    const ratios = {};
    for (const mode of modes.slice(1)) {
      ratios[mode] = Object.fromEntries(METRICS.map(([k]) => [k, ratioInterval(values[mode].map((x, i) => x[k] / values.none[i][k]))]));
    }
    // Hooks on against the floor of hooks installed and empty.
    const floor =
      values.register === undefined || values['empty-hooks'] === undefined
        ? undefined
        : ratioInterval(values.register.map((x, i) => x.cpuUsPerRequest / values['empty-hooks'][i].cpuUsPerRequest));
    // (The V8 flags every mode's server ran with, and the environment the
    // register mode's ran with besides, for the table's label.)
    return { values, ratios, floor, shares, flags: limits.nodeFlags, registerEnv: limits.registerEnv };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (v) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));
// (One block has no interval; saved JSON holds its NaN bounds as null.)
const fmtRatio = (r) => (Number.isFinite(r.low) ? `${r.ratio.toFixed(2)}× [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]` : `${r.ratio.toFixed(2)}× (one block)`);
// A ratio, and where its interval is wider than `target` (relative) how
// wide, and about how many blocks would make it that narrow.
const withNeed = (r, target) =>
  target === undefined || !Number.isFinite(r.low) || r.halfWidth <= target ? fmtRatio(r) : `${fmtRatio(r)} (±${(r.halfWidth * 100).toFixed(0)} %; ±${target * 100} % needs ~${blocksNeeded(r, target)} blocks)`;

// The machine and the day, saved with the results (a re-render keeps them).
const machine = () => `${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'} (${os.cpus().length} CPUs, shared)`;

const EVIDENCE = [
  ['fullGcs', 'full GCs'],
  ['youngGcs', 'young GCs'],
  ['loopP99Ms', 'event loop late, p99 ms'],
];

function render({ results, command, rate, seconds, date = 'an unrecorded date', cpu = 'an unrecorded machine' }) {
  const lines = [
    `Measured ${date} on ${cpu}: \`${command}\`; ${rate} requests/s, ${seconds} s per run after as long a warm-up, blocks of one run per mode (medians; ratios to no customlabels, 95 % intervals; register ÷ floor: hooks on against empty-hooks).`,
    '',
    '| service, Node.js | mode | CPU µs/request | p50 ms | p99 ms | CPU ÷ none | p50 ÷ none | p99 ÷ none | blocks |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const profiled = results.some((r) => Object.values(r.services).some((s) => s.shares !== undefined && Object.keys(s.shares).length > 0));
  const shareTitles = profiled ? ["customlabels' code, % of the main thread's CPU", "customlabels' code, µs/request", "GC, % of the main thread's CPU"] : [];
  const evidence = [
    '',
    `Per run, in the measured window (medians, and [min–max] over the blocks${profiled ? "; the profile's shares from one more run per mode with `--cpu-prof`, not pinned to one CPU (so its GC helpers may use the other), of the main thread's samples on CPU: customlabels' code is its lib/ and the native functions it calls; its µs per request, that share times the main thread's CPU per request in the blocks (median)" : ''}):`,
    '',
    `| service, Node.js | mode | ${[...EVIDENCE.map(([, t]) => t), ...shareTitles].join(' | ')} |`,
    `|---|---|${[...EVIDENCE, ...shareTitles].map(() => '---').join('|')}|`,
  ];
  for (const r of results) {
    for (const [name, s] of Object.entries(r.services)) {
      const env = Object.entries(s.registerEnv ?? {}).map(([k, v]) => `${k}=${v}`);
      const label = `${name} ${versionOf(name, Number(r.node.slice(1).split('.')[0]))}, ${r.node}${s.flags?.length > 0 ? `, \`${s.flags.join(' ')}\`` : ''}${env.length > 0 ? `; register with \`${env.join(' ')}\`` : ''}`;
      for (const [mode, xs] of Object.entries(s.values)) {
        const ratio = s.ratios[mode];
        const cells = METRICS.map(([k]) => fmt(median(xs.map((x) => x[k]))));
        const rs =
          ratio === undefined
            ? ['—', '—', '—']
            : METRICS.map(([k, , target]) => withNeed(ratio[k], target));
        lines.push(`| ${label} | ${mode} | ${cells.join(' | ')} | ${rs.join(' | ')} | ${xs.length} |`);
        if (xs[0].fullGcs !== undefined) {
          const ev = EVIDENCE.map(([k]) => {
            const v = xs.map((x) => x[k]);
            return `${fmt(median(v))} [${fmt(Math.min(...v))}–${fmt(Math.max(...v))}]`;
          });
          const sh = s.shares?.[mode];
          const pct = (x) => `${(100 * x).toFixed(1)} %`;
          const us = sh?.customlabelsUsPerRequest;
          const shareCells = profiled ? (sh === undefined ? ['—', '—', '—'] : [pct(sh.customlabels), us === undefined ? '—' : fmt(us), pct(sh.gc)]) : [];
          evidence.push(`| ${label} | ${mode} | ${[...ev, ...shareCells].join(' | ')} |`);
        }
      }
      if (s.floor !== undefined) lines.push(`| ${label} | register ÷ floor | | | | ${withNeed(s.floor, METRICS[0][2])} | | | ${s.floor.n} |`);
    }
  }
  return [...lines, ...(evidence.length > 5 ? evidence : [])].join('\n');
}

async function main() {
  const from = opt('--from', null);
  let saved;
  if (from !== null) {
    saved = JSON.parse(fs.readFileSync(from, 'utf8'));
  } else {
    const nodes = nodesOr([nodeVersion(24)]);
    const names = (opt('--services', null) ?? Object.keys(SERVICES).join(',')).split(',');
    // --services-on MAJOR=NAME,...: the services run on that major (the
    // others run on every --node).
    const on = opt('--services-on', null);
    const onMajor = on === null ? null : { major: Number(on.split('=')[0]), names: (on.split('=')[1] ?? '').split(',') };
    for (const n of [...names, ...(onMajor?.names ?? [])]) if (SERVICES[n] === undefined) throw new Error(`--services: unknown ${n} (expected ${Object.keys(SERVICES).join(', ')})`);
    const limits = {
      rate: Number(opt('--rate', 250)),
      seconds: Number(opt('--seconds', 15)),
      blocks: Number(opt('--blocks', 8)),
      profile: !has('--no-profile'),
      modes: opt('--modes', null)?.split(',') ?? null,
      nodeFlags: (opt('--node-flags', null) ?? '').split(' ').filter(Boolean),
      registerEnv: Object.fromEntries(
        args
          .flatMap((a, i) => (a === '--register-env' ? [args[i + 1] ?? ''] : []))
          .map((kv) => {
            const at = kv.indexOf('=');
            if (at <= 0) throw new Error(`--register-env: expected KEY=VALUE, got ${kv}`);
            const key = kv.slice(0, at);
            // (What the bench sets itself: the preloads and their files.)
            if (key === 'NODE_OPTIONS' || key.startsWith('CUSTOMLABELS_BENCH_')) throw new Error(`--register-env: ${key} is the bench's own`);
            return [key, kv.slice(at + 1)];
          }),
      ),
    };
    if (Object.keys(limits.registerEnv).length > 0 && limits.modes !== null && !limits.modes.includes('register')) throw new Error('--register-env: the register mode does not run (--modes)');
    if (has('--write') && (limits.modes !== null || limits.nodeFlags.length > 0 || Object.keys(limits.registerEnv).length > 0)) throw new Error('--write: not with --modes, --node-flags or --register-env (an experiment is not the docs table)');
    for (const m of limits.modes ?? []) if (ENV[m] === undefined) throw new Error(`--modes: unknown ${m} (expected ${Object.keys(ENV).join(', ')})`);
    const results = [];
    for (const node of nodes) {
      const frames = frameLine(node);
      const result = { node: version(node), services: {} };
      const major = Number(version(node).slice(1).split('.')[0]);
      for (const name of onMajor !== null && onMajor.major === major ? onMajor.names : names) {
        if (versionOf(name, major) === undefined) {
          process.stderr.write(`  ${version(node)} ${name}: skipped (${whyNot(name, major)})\n`);
          continue;
        }
        try {
          result.services[name] = await runService(node, name, frames, { ...limits, cache: install(major).cache });
        } catch (err) {
          // (A service that fails on one line costs its rows, not the run.)
          process.stderr.write(`  ${version(node)} ${name}: failed: ${err.message}\n`);
        }
      }
      results.push(result);
    }
    saved = {
      results,
      command: `node bench/services.js ${args.filter((a) => a !== '--write').join(' ')}`.trim(),
      rate: limits.rate,
      seconds: limits.seconds,
      date: new Date().toISOString().slice(0, 10),
      cpu: machine(),
    };
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, 'results', 'services.json'), `${JSON.stringify(saved, null, 1)}\n`);
  }
  const body = render(saved);
  process.stdout.write(`${body}\n`);
  if (has('--write')) require('./tables').replaceBetween(path.join(root, 'docs', 'performance.md'), 'services', body);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});

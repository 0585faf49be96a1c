'use strict';

// What labels cost, each ratio with its 95 % interval: the cost table of
// docs/performance.md, from one command.
//
//   node bench/cost.js                                   # Node 20, 22, 24, 26; every row
//   node bench/cost.js --node 24 --rows await,hop,express --write
//   options: --node MAJOR|PATH (repeatable), --rows ID,... (below),
//            --max-blocks N (default 40), --minutes M (per row and Node.js,
//            default 12), --write (docs/performance.md's cost and
//            profilers tables), --from FILE,... (re-render saved results;
//            several: one table, a later file's rows over an earlier's),
//            --base REF (the register rows' baseline, default HEAD)
//
// Each row compares modes of bench/modes.js in blocks: a block runs every
// mode of the row once, each in a fresh process pinned to CPU 0 (HTTP: the
// server; the load generator on CPU 1), back to back in rotating order.
// Each ratio is the geometric mean of its blocks' ratios with a percentile
// bootstrap interval over blocks (bench/stats.js). Blocks are added until
// every ratio of the row is known to within its target (±3 % per
// continuation, ±2 % per request), or --max-blocks, or --minutes; the
// table says how many blocks each row took and, where the target was not
// reached, how many it would need (from the blocks' spread).
//
// Rows (id: what, modes, ratios):
//   await, hop   ns per await of 100 concurrent requests, per setImmediate
//                hop of 100 chains (bench/hops.js): als, floor (ALS and empty
//                hooks of the kinds the switch installs), bound (those hooks
//                doing the least a switch does), labels (hooks on),
//                labels-nohooks (AsyncContextFrame lines)
//   express, fastify   server CPU µs per request, Express 5 / Fastify 5
//                hello world with a middleware running the mode's scope
//                (bench/http-server.js): the same modes
//   new-set      ns per synchronous scope with a new 3-label set
//                (bench/new-set.js), hook-free lines: an ALS run with a fresh
//                store, labels-nohooks, Datadog's ThreadContext
//   pprof-await, pprof-express, pprof-fastify   the same with
//                @datadog/pprof's wall profiler running (useCPED where it
//                can): no context per scope, its own context per scope,
//                customlabels' labels (customlabels/pprof), hooks on and,
//                with useCPED, off
//   register-express, register-fastify   server CPU µs per request of the
//                api app (bench/http-server.js: a route through a nested
//                router or a prefixed plugin) with no line of ours: none,
//                --require customlabels/register (this tree), and register
//                of the tree --base REF names (default HEAD: what was
//                committed), checked out and built once into
//                .bench-cache/trees/<commit> (its node_modules are this
//                tree's); hooks on

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { nodeVersion } = require('../scripts/node-versions');
const { cli, frameLine } = require('./cli');
const { version, runJson, runHttp, rotate } = require('./harness');
const { ratioInterval, blocksNeeded } = require('./stats');
const { replaceBetween } = require('./tables');

const { args, opt, has, nodes: nodesOr } = cli(__filename);
// Never fewer blocks than this: a percentile bootstrap over fewer reads
// too narrow an interval (over 10 blocks about a fifth narrower than a t
// interval of the same log ratios; over 5, about 40 %).
const MIN_BLOCKS = 10;
const CONTINUATION = 0.03;
const REQUEST = 0.02;

const hookRatios = (frames) => [
  ['labels', 'als'],
  ['labels', 'floor'],
  ['floor', 'als'],
  ...(frames ? [['labels-nohooks', 'als']] : []),
];
const hookModes = (frames) => ['als', 'floor', 'labels', ...(frames ? ['labels-nohooks'] : [])];
// Per continuation, also the least a switch on these hooks can do. (Not per
// request: there every request brings a new store, and the bound's pointer
// bookkeeping per store costs more than customlabels' set per request,
// 1.03-1.19x the floor on Fastify, so it bounds nothing.)
const boundModes = (frames) => ['als', 'floor', 'bound', 'labels', ...(frames ? ['labels-nohooks'] : [])];
const boundRatios = (frames) => [...hookRatios(frames).slice(0, 3), ['bound', 'floor'], ['labels', 'bound'], ...hookRatios(frames).slice(3)];
const pprofModes = (frames) => ['pprof-none', 'pprof-own', 'pprof-labels', ...(frames ? ['pprof-labels-nohooks'] : [])];
const pprofRatios = (frames) => [
  ['pprof-labels', 'pprof-none'],
  ['pprof-labels', 'pprof-own'],
  ['pprof-own', 'pprof-none'],
  ...(frames ? [['pprof-labels-nohooks', 'pprof-none']] : []),
];

const registerModes = () => ['none', 'register', 'register-base'];
const registerRatios = () => [
  ['register', 'none'],
  ['register-base', 'none'],
  ['register', 'register-base'],
];

// id -> { label, unit, target, modes(frames), ratios(frames), measure(node,
// mode) -> number, when?(frames) }
const ROWS = {
  await: { label: 'per `await` (100 concurrent requests)', unit: 'ns', target: CONTINUATION, modes: boundModes, ratios: boundRatios, measure: hop('awaitNs') },
  hop: { label: 'per `setImmediate` hop (100 chains)', unit: 'ns', target: CONTINUATION, modes: boundModes, ratios: boundRatios, measure: hop('immediateNs'), sharesWith: 'await' },
  express: { label: 'Express 5, server CPU per request', unit: 'µs', target: REQUEST, modes: hookModes, ratios: hookRatios, measure: http('express') },
  fastify: { label: 'Fastify 5, server CPU per request', unit: 'µs', target: REQUEST, modes: hookModes, ratios: hookRatios, measure: http('fastify') },
  'new-set': {
    label: 'a new 3-label set, hook-free (one synchronous scope)',
    unit: 'ns',
    target: CONTINUATION,
    when: (frames) => frames,
    modes: () => ['als', 'labels-nohooks', 'datadog'],
    ratios: () => [
      ['labels-nohooks', 'als'],
      ['datadog', 'als'],
      ['labels-nohooks', 'datadog'],
    ],
    measure: (node, mode) => runJson(node, 'new-set.js', [mode]).then((r) => r.newSetNs),
  },
  'pprof-await': { label: 'with @datadog/pprof: per `await`', unit: 'ns', target: CONTINUATION, modes: pprofModes, ratios: pprofRatios, measure: hop('awaitNs') },
  'pprof-express': { label: 'with @datadog/pprof: Express 5, server CPU per request', unit: 'µs', target: REQUEST, modes: pprofModes, ratios: pprofRatios, measure: http('express') },
  'pprof-fastify': { label: 'with @datadog/pprof: Fastify 5, server CPU per request', unit: 'µs', target: REQUEST, modes: pprofModes, ratios: pprofRatios, measure: http('fastify') },
  'register-express': { label: 'register, Express 5 api app: server CPU per request', unit: 'µs', target: REQUEST, modes: registerModes, ratios: registerRatios, measure: registered('express') },
  'register-fastify': { label: 'register, Fastify 5 api app: server CPU per request', unit: 'µs', target: REQUEST, modes: registerModes, ratios: registerRatios, measure: registered('fastify') },
};

// One hops.js process measures both an await and a hop: the process a row
// of one ran (in its n-th block) serves the other row's n-th block, which
// is paired the same way.
const hopRuns = new Map(); // node, mode -> { runs, used: { key: count } }
function hop(key) {
  return async (node, mode) => {
    const at = `${node}\0${mode}`;
    if (!hopRuns.has(at)) hopRuns.set(at, { runs: [], used: {} });
    const entry = hopRuns.get(at);
    const n = entry.used[key] ?? 0;
    if (n === entry.runs.length) entry.runs.push(await runJson(node, 'hops.js', [mode]));
    entry.used[key] = n + 1;
    return entry.runs[n][key];
  };
}
function http(framework) {
  return (node, mode) => runHttp(node, framework, mode, { warmup: 2000, count: 8000 });
}

// The tree --base names, checked out (git worktree) and built once: its
// lib/register.js.
let baseRegister = null;
function baseTree() {
  if (baseRegister !== null) return baseRegister;
  const { execFileSync } = require('node:child_process');
  const root = path.join(__dirname, '..');
  const commit = execFileSync('git', ['rev-parse', opt('--base', 'HEAD')], { cwd: root, encoding: 'utf8' }).trim();
  const dir = path.join(root, '.bench-cache', 'trees', commit.slice(0, 12));
  if (!fs.existsSync(path.join(dir, 'build', 'Release', 'customlabels.node'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, commit], { cwd: root, stdio: 'ignore' });
    execFileSync('npx', ['node-gyp', 'rebuild', '-j', '2'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  baseRegister = { commit, file: path.join(dir, 'lib', 'register.js') };
  return baseRegister;
}
const REGISTER = path.join(__dirname, '..', 'lib', 'register.js');
// The api app with no line of ours, none or started with a register.
function registered(framework) {
  return (node, mode) => {
    const file = mode === 'register' ? REGISTER : mode === 'register-base' ? baseTree().file : null;
    const env = { ...process.env, NODE_OPTIONS: file === null ? '' : `--require ${file}` };
    return runHttp(node, framework, 'none', { app: 'api', warmup: 2000, count: 8000, env });
  };
}

// Runs `row` under `node` until its ratios are known to within its target
// (or the limits); returns { values: mode -> [per block], ratios: [{ of,
// over, ...interval, needed }], blocks, seconds }.
async function runRow(node, id, frames, { maxBlocks, minutes }) {
  const row = ROWS[id];
  const modes = row.modes(frames);
  const pairs = row.ratios(frames);
  const values = Object.fromEntries(modes.map((m) => [m, []]));
  const started = Date.now();
  let blocks = 0;
  const intervals = () =>
    pairs.map(([of, over]) => {
      const ratios = values[of].map((x, i) => x / values[over][i]);
      return { of, over, ...ratioInterval(ratios) };
    });
  for (;;) {
    for (const mode of rotate(modes, blocks)) values[mode].push(await row.measure(node, mode));
    blocks += 1;
    const now = intervals();
    const worst = Math.max(...now.map((r) => r.halfWidth));
    process.stderr.write(`  ${version(node)} ${id}: block ${blocks}, widest interval ±${(worst * 100).toFixed(1)} %\n`);
    if (blocks < MIN_BLOCKS) continue;
    if (worst <= row.target || blocks >= maxBlocks || Date.now() - started > minutes * 60000) break;
  }
  return { values, ratios: intervals(), blocks, seconds: Math.round((Date.now() - started) / 1000) };
}

// --- the tables ---------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmtValue = (v) => (v < 20 ? v.toFixed(1) : v.toFixed(0));
const fmtInterval = (r) => `${r.ratio.toFixed(2)}× [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]`;

const NAMES = {
  als: 'ALS',
  floor: 'floor',
  bound: 'bound',
  labels: 'labels',
  'labels-nohooks': 'no hooks',
  datadog: 'Datadog',
  'pprof-none': 'profiler',
  'pprof-own': 'its own context',
  'pprof-labels': 'labels',
  'pprof-labels-nohooks': 'labels, no hooks',
  none: 'none',
  register: 'register',
  'register-base': 'register at base',
};
const ratioName = ({ of, over }) => `${NAMES[of]} ÷ ${NAMES[over]}`;

function rowLines(results, ids) {
  const lines = ['| Node.js | row | medians | ratios, 95 % interval | blocks |', '|---|---|---|---|---|'];
  for (const r of results) {
    for (const id of ids) {
      const m = r.rows[id];
      if (m === undefined) continue;
      const row = ROWS[id];
      const medians = Object.entries(m.values)
        .map(([mode, xs]) => `${NAMES[mode]} ${fmtValue(median(xs))}`)
        .join(', ');
      const ratios = m.ratios
        .map((x) => {
          const text = `${ratioName(x)} ${fmtInterval(x)}`;
          return x.halfWidth <= row.target ? text : `${text} (±${(x.halfWidth * 100).toFixed(1)} %; ±${(row.target * 100).toFixed(0)} % needs ~${blocksNeeded(x, row.target)} blocks)`;
        })
        .join('; ');
      const time = row.sharesWith !== undefined && r.rows[row.sharesWith] !== undefined ? `the ${row.sharesWith} row's processes` : `${m.seconds} s`;
      lines.push(`| ${r.node} | ${row.label} (${row.unit}) | ${medians} | ${ratios} | ${m.blocks} (${time}) |`);
    }
  }
  return lines.join('\n');
}

function header({ results, command, date, cpu }) {
  return `Measured ${date} on ${cpu}, Node.js ${results.map((r) => r.node).join(', ')}: \`${command}\`.`;
}

const COST_ROWS = ['await', 'hop', 'express', 'fastify', 'new-set'];
const PPROF_ROWS = ['pprof-await', 'pprof-express', 'pprof-fastify'];
const REGISTER_ROWS = ['register-express', 'register-fastify'];

function render(saved) {
  const { results } = saved;
  const out = [];
  if (results.some((r) => COST_ROWS.some((id) => r.rows[id]))) out.push({ marker: 'cost', body: `${header(saved)}\n\n${rowLines(results, COST_ROWS)}` });
  if (results.some((r) => PPROF_ROWS.some((id) => r.rows[id]))) out.push({ marker: 'profilers', body: `${header(saved)}\n\n${rowLines(results, PPROF_ROWS)}` });
  if (results.some((r) => REGISTER_ROWS.some((id) => r.rows[id]))) {
    const base = saved.base === undefined ? '' : ` "register at base" is commit ${saved.base.slice(0, 12)}.`;
    out.push({ marker: 'register', body: `${header(saved)}${base}\n\n${rowLines(results, REGISTER_ROWS)}` });
  }
  return out;
}

// Saved results of several runs as one: each Node.js's rows, a later run's
// row over an earlier one's; the commands joined.
function merge(saves) {
  const byNode = new Map();
  for (const { results } of saves) {
    for (const r of results) {
      const into = byNode.get(r.node) ?? { ...r, rows: {} };
      Object.assign(into.rows, r.rows);
      byNode.set(r.node, into);
    }
  }
  const dates = [...new Set(saves.map((x) => x.date ?? 'an unrecorded date'))];
  const byVersion = (a, b) => Number(a.node.slice(1).split('.')[0]) - Number(b.node.slice(1).split('.')[0]);
  return {
    results: [...byNode.values()].sort(byVersion),
    command: saves.map((x) => x.command).join('` and `'),
    date: dates.join(', '),
    cpu: saves.at(-1).cpu ?? 'an unrecorded machine',
  };
}

async function main() {
  const from = opt('--from', null);
  let saved;
  if (from !== null) {
    saved = merge(from.split(',').map((file) => JSON.parse(fs.readFileSync(file, 'utf8'))));
  } else {
    const nodes = nodesOr([20, 22, 24, 26].map((n) => nodeVersion(n)));
    const ids = (opt('--rows', null) ?? Object.keys(ROWS).join(',')).split(',');
    for (const id of ids) if (ROWS[id] === undefined) throw new Error(`--rows: unknown row ${id} (expected ${Object.keys(ROWS).join(', ')})`);
    const limits = { maxBlocks: Number(opt('--max-blocks', 40)), minutes: Number(opt('--minutes', 12)) };
    const results = [];
    for (const node of nodes) {
      const frames = frameLine(node);
      const result = { node: version(node), frames, rows: {} };
      for (const id of ids) {
        if (ROWS[id].when !== undefined && !ROWS[id].when(frames)) continue;
        result.rows[id] = await runRow(node, id, frames, limits);
      }
      results.push(result);
    }
    saved = {
      results,
      command: `node bench/cost.js ${args.filter((a) => a !== '--write').join(' ')}`.trim(),
      date: new Date().toISOString().slice(0, 10),
      cpu: `${os.cpus()[0]?.model?.trim() ?? 'unknown CPU'} (${os.cpus().length} CPUs, shared)`,
      ...(baseRegister !== null ? { base: baseRegister.commit } : {}),
    };
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, 'results', 'cost.json'), `${JSON.stringify(saved, null, 1)}\n`);
  }
  for (const { marker, body } of render(saved)) {
    process.stdout.write(`\n${marker}:\n${body}\n`);
    if (has('--write')) replaceBetween(path.join(__dirname, '..', 'docs', 'performance.md'), marker, body);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});

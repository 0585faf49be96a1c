'use strict';

// Instructions per await and per setImmediate hop, counted by valgrind
// (callgrind, node --single-threaded), as a second signal beside time: the
// marginal count (a run of 2N continuations minus a run of N, over N), so
// that what every run pays once (Node's start, the first withLabels:
// loading the addon and the V8 unit, the probes, V8 compiling the loop)
// falls out. Prints each mode's instructions per continuation and the
// ratios to ALS, for comparison with bench/cost.js's time ratios.
//
//   node bench/instructions.js --node 24 [--modes als,floor,labels] [--repeat 2] [--first]
//
// --first: awaits only, counted from the first scope on with no turn of the
// event loop before (the probe not settled): a run of N awaits minus a run
// of the same first scopes with none, over N; beside the settled count.
//
// Needs valgrind. Each count is a full run of node under callgrind (about a
// minute each here).

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cli } = require('./cli');
const { nodeVersion } = require('../scripts/node-versions');

const { opt, has, nodes } = cli(__filename);

// valgrind writes its summary to stderr: "==pid== Collected : N".
function count(node, mode, kind, n, when = 'settled') {
  const out = path.join(os.tmpdir(), `customlabels-callgrind-${process.pid}.out`);
  const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, node, '--single-threaded', path.join(__dirname, 'instructions-loop.js'), mode, kind, String(n), when], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 24,
  });
  fs.rmSync(out, { force: true });
  const collected = /Collected : (\d+)/.exec(run.stderr ?? '');
  if (run.status !== 0 || collected === null) throw new Error(`valgrind ${mode} ${kind} ${n} failed (${run.error?.message ?? `exit ${run.status}`}): ${(run.stderr ?? '').slice(-500)}`);
  return Number(collected[1]);
}

const all = nodes([nodeVersion(24)]);
if (all.length !== 1) throw new Error('bench/instructions.js counts one Node.js at a time (one --node)');
const node = all[0];
const modes = opt('--modes', 'als,floor,labels').split(',');
const repeat = Number(opt('--repeat', 3));
const first = has('--first');
const N = { await: 100000, hop: 100000 };
const runs = first ? [['await', 'settled'], ['await', 'first']] : [['await', 'settled'], ['hop', 'settled']];
const results = [];
for (const [kind, when] of runs) {
  for (const mode of modes) {
    const per = [];
    for (let r = 0; r < repeat; r++) {
      // Settled: (2N - N) / N. First: (N - 0) / N, the 0-continuation run
      // making the same first scopes (a difference of two first stretches
      // would cancel what only a first stretch pays).
      const one = count(node, mode, kind, when === 'first' ? 0 : N[kind], when);
      const two = count(node, mode, kind, when === 'first' ? N[kind] : 2 * N[kind], when);
      per.push((two - one) / N[kind]);
      process.stderr.write(`  ${kind} ${mode} (${when}): ${one} / ${two} instructions -> ${per.at(-1).toFixed(0)} per ${kind}\n`);
    }
    results.push({ kind, when, mode, per });
  }
}
// Each mode: the mean and the range over repeats; its ratio to ALS's mean
// (the same kind and stage), with the range of the ratios of single runs.
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const r of results) {
  const als = results.find((x) => x.kind === r.kind && x.when === r.when && x.mode === 'als');
  const ratio = als === undefined ? '' : `; ${(mean(r.per) / mean(als.per)).toFixed(2)}× ALS (${(Math.min(...r.per) / Math.max(...als.per)).toFixed(2)}–${(Math.max(...r.per) / Math.min(...als.per)).toFixed(2)})`;
  process.stdout.write(`${r.kind} (${r.when}) ${r.mode}: ${mean(r.per).toFixed(0)} instructions (${Math.min(...r.per).toFixed(0)}–${Math.max(...r.per).toFixed(0)} over ${r.per.length} runs)${ratio}\n`);
}

'use strict';

// Runs the benchmark suites and prints medians and ratios to the
// AsyncLocalStorage baseline measured in the same run.
//
//   npm run bench                       # this node, Node 24 and Node 26, 5 runs
//   npm run bench -- --runs 7 --write   # and its tables into bench/results/tables.md
//   npm run bench -- --only integrations --node 20 --node 24 --node 26 --runs 5
//   npm run bench -- --only integrations --frameworks koa,hapi,hono --node 20 --runs 5
//   options: --runs N, --only SUITE,... (the suites of bench/suites/: micro,
//            http, integrations, thread-context, nohooks, hooks), --frameworks
//            NAME,... (the integrations suite's: express, fastify, koa, hapi,
//            hono, apollo, yoga, bullmq), --node PATH|MAJOR (repeatable; a
//            major version other than this node's is fetched once into
//            .node-versions/MAJOR), --write, --from bench/results/latest.json
//            (re-render saved results)
//
// Every measurement runs in a fresh process; modes alternate within each
// run (rotating order) so drift on a shared machine hits all modes alike
// (bench/harness.js). HTTP: server pinned to CPU 0, load generator to CPU 1;
// server CPU time per request over a fixed request count after warm-up.
// Each file of bench/suites/ is one or more suites: {order, suites, run,
// sections}: what it runs per Node.js version, and the tables it renders
// (each under its marker's name in bench/results/tables.md); adding a
// suite is adding a file there.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { nodeVersion } = require('../scripts/node-versions');
const { version, cpus } = require('./harness');
const { cli } = require('./cli');

const { args, opt, has, nodes: nodesOr } = cli(__filename);

const SUITE_FILES = fs
  .readdirSync(path.join(__dirname, 'suites'))
  .filter((f) => f.endsWith('.js'))
  .map((f) => require(`./suites/${f}`))
  .sort((a, b) => a.order - b.order);
const SUITES = SUITE_FILES.flatMap((s) => s.suites);

const runs = Number(opt('--runs', 5));
const only = opt('--only', null);
// Without --only: every suite but those that say they run on request only.
const selected = new Set(only === null ? SUITE_FILES.filter((s) => !s.onRequest).flatMap((s) => s.suites) : only.split(','));
for (const s of selected) if (!SUITES.includes(s)) throw new Error(`--only: unknown suite ${s} (expected ${SUITES.join(', ')})`);
const write = has('--write');
const frameworks = opt('--frameworks', null)?.split(',') ?? null;

const nodes = nodesOr([process.execPath, nodeVersion(24), nodeVersion(26)]);

async function benchNode(node) {
  const result = { node: version(node) };
  const log = (what) => process.stderr.write(`  ${result.node} ${what}\n`);
  for (const suite of SUITE_FILES) {
    if (!suite.suites.some((s) => selected.has(s))) continue;
    Object.assign(result, await suite.run(node, { runs, selected, frameworks, log }));
  }
  return result;
}

(async () => {
  const from = opt('--from', null); // re-render a saved results file
  const saved = from === null ? null : JSON.parse(fs.readFileSync(from, 'utf8'));
  const results = saved === null ? [] : saved.results;
  for (const node of saved === null ? nodes : []) {
    process.stderr.write(`benchmarking ${node}\n`);
    results.push(await benchNode(node));
  }
  const sections = SUITE_FILES.flatMap((s) => s.sections(results));
  const date = saved === null ? new Date().toISOString().slice(0, 10) : saved.date;
  const command = saved?.command ?? ['node bench/run.js', ...args].join(' ');
  const cpu = saved?.cpu ?? `${os.cpus()[0].model} (${cpus} CPUs)`;
  const load = saved?.loadavg ?? os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const header = `Measured ${date} on ${cpu}, medians of ${saved?.runs ?? runs} runs, \`${command}\` (load average at the end: ${load}).`;
  console.log([header, ...sections.map((s) => s.table)].join('\n\n'));
  if (saved === null) {
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
    const name = only === null ? 'latest.json' : `latest-${[...selected].join('+')}.json`;
    fs.writeFileSync(path.join(__dirname, 'results', name), JSON.stringify({ date, runs, command, cpu, loadavg: load, results }, null, 2));
  }
  if (write) {
    const file = path.join(__dirname, 'results', 'tables.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${[header, ...sections.map((s) => `## ${s.marker}\n\n${s.table}`)].join('\n\n')}\n`);
  }
})().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

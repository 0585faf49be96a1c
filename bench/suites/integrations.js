'use strict';

// Issue #12: each framework integration against the same labels set by
// hand, server CPU per request (bench/http-server.js's api app, bench/apps/
// servers) and BullMQ worker CPU per job (bench/bullmq.js); ratios are
// medians of per-run ratios. --frameworks picks some.

const { median, rotate, runHttp, APPS } = require('../harness');
const { f1, bold } = require('../format');

const MODES = {
  express: ['none', 'als-mw', 'labels-mw', 'labels-const', 'integration'],
  fastify: ['none', 'als-mw', 'labels-mw', 'integration'],
  ...Object.fromEntries(Object.entries(APPS).map(([name, app]) => [name, app.modes])),
};
// The table's names of the frameworks.
const NAMES = { express: 'Express 5', fastify: 'Fastify 5', koa: 'Koa 3', hapi: 'hapi 21', hono: 'Hono 4', apollo: 'Apollo Server 5', yoga: 'GraphQL Yoga 5', bullmq: 'BullMQ 5 (µs per job)' };

async function run(node, { runs, frameworks, log }) {
  const out = {};
  for (const [framework, modes] of Object.entries(MODES)) {
    if (frameworks !== null && !frameworks.includes(framework)) continue;
    const samples = {};
    for (let r = 0; r < runs; r++) {
      for (const mode of rotate(modes, r)) (samples[mode] ||= []).push(await runHttp(node, framework, mode, { app: 'api' }));
      log(`${framework} integrations run ${r + 1}/${runs}`);
    }
    // Ratios within each run, then their median.
    const perRun = (a, b) => samples[a].map((x, i) => x / samples[b][i]);
    out[framework] = {
      median: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])),
      samples,
      ratios: {
        integrationToLabelsMw: median(perRun('integration', 'labels-mw')),
        integrationToAlsMw: median(perRun('integration', 'als-mw')),
        ...(samples['labels-const'] ? { integrationToLabelsConst: median(perRun('integration', 'labels-const')) } : {}),
      },
    };
  }
  if (frameworks === null || frameworks.includes('bullmq')) {
    // Worker CPU µs per job of a real BullMQ Worker on a real redis-server
    // (bench/bullmq.js; its modes alternate within each run).
    const { benchBullmq } = require('../bullmq');
    const b = await benchBullmq(node, { runs });
    out.bullmq = { median: b.median, samples: b.samples, ratios: { integrationToLabelsMw: b.ratios.integrationToLabelsMw } };
  }
  return { integrations: out };
}

// One row per Node.js version and framework: server CPU µs per request
// (medians) and the integration's ratios (medians of per-run ratios).
function table(results) {
  const lines = [
    '| Node | framework | none | ALS middleware | hand-written withLabels | withLabels, constant route | integration | integration ÷ hand-written | integration ÷ constant route | integration ÷ ALS |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    for (const framework of [...Object.keys(MODES), 'bullmq']) {
      const name = NAMES[framework] ?? framework;
      const it = r.integrations?.[framework];
      if (!it) continue;
      const m = it.median;
      lines.push(
        `| ${r.node} | ${name} | ${[m.none, m['als-mw'], m['labels-mw'], m['labels-const'], m.integration].map(f1).join(' | ')} | ${bold(it.ratios.integrationToLabelsMw)} | ${bold(it.ratios.integrationToLabelsConst)} | ${bold(it.ratios.integrationToAlsMw)} |`,
      );
    }
  }
  return lines.join('\n');
}

module.exports = {
  order: 2, // of its tables in the output
  suites: ['integrations'],
  run,
  sections: (results) => (results.some((r) => Object.keys(r.integrations ?? {}).length > 0) ? [{ marker: 'integrations', table: table(results) }] : []),
};

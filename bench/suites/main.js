'use strict';

// The main table (bench/README.md "results"): per await, per hop, per sync
// scope, memory (bench/micro.js) and Express/Fastify server CPU per request
// (bench/http-server.js), for each mode of bench/modes.js's MODES.

const { MODES } = require('../modes');
const { median, rotate, runMicro, runHttp } = require('../harness');
const { f0, f1, ratio } = require('../format');

const HTTP_MODES = ['none', 'als', 'floor', 'labels'];

async function run(node, { runs, selected, log }) {
  const out = {};
  if (selected.has('micro')) {
    out.micro = {};
    const samples = {};
    for (let r = 0; r < runs; r++) {
      for (const mode of rotate(MODES, r)) {
        const m = await runMicro(node, mode);
        for (const [k, v] of Object.entries({ ...m, rssFirstMB: m.rssMB.first, rssSecondMB: m.rssMB.second })) {
          if (typeof v !== 'number') continue;
          ((samples[mode] ||= {})[k] ||= []).push(v);
        }
      }
      log(`micro run ${r + 1}/${runs}`);
    }
    for (const [mode, metrics] of Object.entries(samples)) {
      out.micro[mode] = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, median(v)]));
    }
  }
  if (selected.has('http')) {
    out.http = {};
    for (const framework of ['express', 'fastify']) {
      const samples = {};
      for (let r = 0; r < runs; r++) {
        for (const mode of rotate(HTTP_MODES, r)) (samples[mode] ||= []).push(await runHttp(node, framework, mode));
        log(`${framework} run ${r + 1}/${runs}`);
      }
      out.http[framework] = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    }
  }
  return out;
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
  if (results[0].http?.express) {
    row('Express server CPU µs/request', (r, m) => r.http.express?.[m], f1);
    row('Fastify server CPU µs/request', (r, m) => r.http.fastify?.[m], f1);
  }
  if (results[0].micro?.als) {
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

const has = (r) => Object.keys(r.micro ?? {}).length > 0 || Object.keys(r.http ?? {}).length > 0;

module.exports = {
  order: 1, // of its tables in the output
  suites: ['micro', 'http'],
  run,
  sections: (results) => (results.some(has) ? [{ marker: 'results', table: table(results.filter(has)) }] : []),
};

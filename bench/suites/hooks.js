'use strict';

// Issue #25: the switch with hooks on (what every deployed reader reads)
// against AsyncLocalStorage alone, in the same runs (fresh processes,
// rotating order): customlabels with the switch it settles on
// (lib/core/switcher.js 'frame-before' on Node.js 24+) and with the one before
// (CUSTOMLABELS_SWITCH=resource-init), each next to its floor: the empty
// hooks of its kinds (bench/modes.js floor, floor-init). Ratios are medians
// of the per-run ratios to `als`. Run on request (--only hooks).

const { median, runJson, runHttp, runCases } = require('../harness');

const MODES = ['als', 'floor', 'labels', 'floor-init', 'labels-init'];
const ROWS = [
  ['hops', 'awaitNs', 'ns per await (100 concurrent requests)'],
  ['hops', 'immediateNs', 'ns per setImmediate hop (100 chains)'],
  ['express', 'us', 'Express 5 server CPU µs/request'],
  ['fastify', 'us', 'Fastify 5 server CPU µs/request'],
];

async function run(node, { runs }) {
  const cases = {};
  for (const mode of MODES) {
    cases[`hops ${mode}`] = () => runJson(node, 'hops.js', [mode]);
    for (const f of ['express', 'fastify']) cases[`${f} ${mode}`] = () => runHttp(node, f, mode).then((us) => ({ us }));
  }
  const samples = await runCases(node, cases, 'hooks', runs);
  const rows = {};
  for (const [kind, k, label] of ROWS) {
    rows[label] = {};
    for (const mode of MODES) {
      const xs = samples[`${kind} ${mode}`][k];
      const base = samples[`${kind} als`][k];
      rows[label][mode] = { value: median(xs), ratio: median(xs.map((x, i) => x / base[i])) };
    }
  }
  return { hooks: rows };
}

function table(results) {
  const rs = results.filter((r) => r.hooks);
  const head = ['', ...rs.map((r) => `Node ${r.node}: ALS / floor / labels / floor before #25 / labels before #25 (÷ ALS)`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const fmt = (v) => (v < 20 ? v.toFixed(1) : v.toFixed(0));
  for (const [, , label] of ROWS) {
    lines.push(
      `| ${label} | ${rs
        .map((r) => {
          const m = r.hooks[label];
          const ratios = MODES.slice(1).map((k) => (k === 'labels' ? `**${m[k].ratio.toFixed(2)}×**` : `${m[k].ratio.toFixed(2)}×`));
          return `${MODES.map((k) => fmt(m[k].value)).join(' / ')} (${ratios.join(' / ')})`;
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

module.exports = {
  order: 5, // of its tables in the output
  suites: ['hooks'],
  onRequest: true,
  run,
  sections: (results) => (results.some((r) => r.hooks) ? [{ marker: 'hooks', table: table(results) }] : []),
};

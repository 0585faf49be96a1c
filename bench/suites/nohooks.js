'use strict';

// Issue #17: customlabels without hooks (readers walk V8's continuation
// data) against AsyncLocalStorage alone, against itself with hooks, and
// against the peer writing the same contract (@datadog/pprof's
// ThreadContext), all in the same runs (fresh processes, rotating order);
// ratios are medians of the per-run ratios to `als`.

const { median, runJson, runHttp, runCases, HOOKS_OFF } = require('../harness');
const { f1 } = require('../format');

const MODES = ['als', 'labels', 'labels-nohooks', 'datadog'];

async function run(node, { runs }) {
  const cases = {};
  // With hooks, what the wrapper costs: label sets as plain objects.
  for (const f of ['express', 'fastify']) cases[`${f} labels-plain`] = () => runHttp(node, f, 'labels-plain').then((us) => ({ us }));
  for (const mode of MODES) {
    cases[`hops ${mode}`] = () => runJson(node, 'hops.js', [mode]);
    cases[`new-set ${mode}`] = () => runJson(node, 'new-set.js', [mode]);
    for (const f of ['express', 'fastify']) cases[`${f} ${mode}`] = () => runHttp(node, f, mode).then((us) => ({ us }));
  }
  for (const [name, env] of [['als-cm', process.env], ['customlabels-cm', process.env], ['customlabels-cm nohooks', HOOKS_OFF]]) {
    cases[`otel ${name}`] = () => runHttp(node, 'otel', name.split(' ')[0], { env }).then((us) => ({ us }));
  }
  const samples = await runCases(node, cases, 'nohooks', runs);
  const rows = {};
  const metric = (kind, k, label) => {
    rows[label] = {};
    for (const mode of MODES) {
      const xs = samples[`${kind} ${mode}`][k];
      const base = samples[`${kind} als`][k];
      rows[label][mode] = { value: median(xs), ratio: median(xs.map((x, i) => x / base[i])) };
    }
  };
  metric('hops', 'awaitNs', 'ns per await (100 concurrent requests)');
  metric('hops', 'immediateNs', 'ns per setImmediate hop (100 chains)');
  metric('new-set', 'newSetNs', 'ns per new 3-label set (sync scope, new values)');
  metric('express', 'us', 'Express 5 server CPU µs/request');
  metric('fastify', 'us', 'Fastify 5 server CPU µs/request');
  rows.wrapper = Object.fromEntries(
    ['express', 'fastify'].map((f) => {
      const [w, p] = [samples[`${f} labels`].us, samples[`${f} labels-plain`].us];
      return [f, { wrapper: median(w), plain: median(p), ratio: median(w.map((x, i) => x / p[i])) }];
    }),
  );
  const otel = (m) => samples[`otel ${m}`].us;
  const otelRatio = (m) => median(otel(m).map((x, i) => x / otel('als-cm')[i]));
  rows.otel = {
    als: median(otel('als-cm')),
    hooks: median(otel('customlabels-cm')),
    nohooks: median(otel('customlabels-cm nohooks')),
    hooksRatio: otelRatio('customlabels-cm'),
    nohooksRatio: otelRatio('customlabels-cm nohooks'),
  };
  return { nohooks: rows };
}

function table(results) {
  const rs = results.filter((r) => r.nohooks);
  const head = ['', ...rs.map((r) => `Node ${r.node}: ALS / labels, hooks / labels, no hooks / Datadog (÷ ALS)`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const labels = Object.keys(rs[0].nohooks).filter((k) => k !== 'otel' && k !== 'wrapper');
  const fmt = (v) => (v < 20 ? v.toFixed(1) : v.toFixed(0));
  for (const label of labels) {
    lines.push(
      `| ${label} | ${rs
        .map((r) => {
          const m = r.nohooks[label];
          return `${MODES.map((k) => fmt(m[k].value)).join(' / ')} (${['labels', 'labels-nohooks', 'datadog'].map((k) => `${k === 'labels-nohooks' ? '**' : ''}${m[k].ratio.toFixed(2)}×${k === 'labels-nohooks' ? '**' : ''}`).join(' / ')})`;
        })
        .join(' | ')} |`,
    );
  }
  lines.push(
    `| OpenTelemetry HTTP server CPU µs/request: ALS context manager / customlabels/otel, hooks / no hooks (÷ ALS context manager) | ${rs
      .map((r) => {
        const o = r.nohooks.otel;
        return `${f1(o.als)} / ${f1(o.hooks)} / ${f1(o.nohooks)} (${o.hooksRatio.toFixed(2)}× / **${o.nohooksRatio.toFixed(2)}×**)`;
      })
      .join(' | ')} |`,
  );
  for (const [f, name] of [['express', 'Express 5'], ['fastify', 'Fastify 5']]) {
    lines.push(
      `| ${name} with hooks: label sets as plain objects / as wrappers, µs/request (wrappers ÷ plain) | ${rs
        .map((r) => {
          const w = r.nohooks.wrapper[f];
          return `${f1(w.plain)} / ${f1(w.wrapper)} (**${w.ratio.toFixed(2)}×**)`;
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

module.exports = {
  order: 4, // of its tables in the output
  suites: ['nohooks'],
  run,
  sections: (results) => (results.some((r) => r.nohooks) ? [{ marker: 'nohooks', table: table(results) }] : []),
};

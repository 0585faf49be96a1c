'use strict';

// Issue #13: what thread context records add. Each pair is measured in the
// same run (fresh processes, rotating order); ratios are medians of the
// per-run ratios, differences medians of per-run differences.

const { runJson, runMicro, runHttp, runCases, stats, NO_RECORDS } = require('../harness');
const { f0, f1 } = require('../format');

async function run(node, { runs }) {
  const cases = {
    'switch, records off': () => runJson(node, 'switch-cost.js', ['0']).then((r) => ({ ns: r.ns })),
    'switch, records on': () => runJson(node, 'switch-cost.js', ['1']).then((r) => ({ ns: r.ns })),
    'micro, records off': () => runMicro(node, 'labels', NO_RECORDS),
    'micro, records on': () => runMicro(node, 'labels'),
    'express, records off': () => runHttp(node, 'express', 'labels', { env: NO_RECORDS }).then((us) => ({ us })),
    'express, records on': () => runHttp(node, 'express', 'labels').then((us) => ({ us })),
    'fastify, records off': () => runHttp(node, 'fastify', 'labels', { env: NO_RECORDS }).then((us) => ({ us })),
    'fastify, records on': () => runHttp(node, 'fastify', 'labels').then((us) => ({ us })),
  };
  for (const mode of ['als-cm', 'withlabels-cm', 'customlabels-cm']) {
    cases[`otel ${mode}`] = () =>
      runHttp(node, 'otel', mode, { report: true }).then((r) => ({ us: r.cpuMicros / r.requests, activations: r.activations / r.requests }));
  }
  cases['otel customlabels-cm, records off'] = () =>
    runHttp(node, 'otel', 'customlabels-cm', { report: true, env: NO_RECORDS }).then((r) => ({ us: r.cpuMicros / r.requests }));
  const { med, ratioOf, diffOf } = stats(await runCases(node, cases, 'thread-context', runs));
  return {
    threadContext: {
      switchNs: { off: med('switch, records off', 'ns'), on: med('switch, records on', 'ns'), diff: diffOf('switch, records on', 'switch, records off', 'ns') },
      micro: Object.fromEntries(
        ['awaitNs', 'immediateNs', 'syncNs'].map((k) => [
          k,
          { off: med('micro, records off', k), on: med('micro, records on', k), ratio: ratioOf('micro, records on', 'micro, records off', k) },
        ]),
      ),
      http: Object.fromEntries(
        ['express', 'fastify'].map((f) => [
          f,
          { off: med(`${f}, records off`, 'us'), on: med(`${f}, records on`, 'us'), ratio: ratioOf(`${f}, records on`, `${f}, records off`, 'us') },
        ]),
      ),
      otel: {
        us: Object.fromEntries(['als-cm', 'withlabels-cm', 'customlabels-cm'].map((m) => [m, med(`otel ${m}`, 'us')])),
        usRecordsOff: med('otel customlabels-cm, records off', 'us'),
        activationsPerRequest: med('otel customlabels-cm', 'activations'),
        customToWithLabels: ratioOf('otel customlabels-cm', 'otel withlabels-cm', 'us'),
        customToAls: ratioOf('otel customlabels-cm', 'otel als-cm', 'us'),
        recordsOnToOff: ratioOf('otel customlabels-cm', 'otel customlabels-cm, records off', 'us'),
      },
    },
  };
}

// One column per Node.js version.
function table(results) {
  const rs = results.filter((r) => r.threadContext);
  const head = ['', ...rs.map((r) => `Node ${r.node}`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const row = (label, f) => lines.push(`| ${label} | ${rs.map((r) => f(r.threadContext)).join(' | ')} |`);
  const x = (v) => `**${v.toFixed(2)}×**`;
  row('ns per switch alone, records off / on (**on − off**)', (t) => `${t.switchNs.off.toFixed(1)} / ${t.switchNs.on.toFixed(1)} (**${t.switchNs.diff >= 0 ? '+' : '−'}${Math.abs(t.switchNs.diff).toFixed(1)} ns**)`);
  for (const [k, label] of [['awaitNs', 'ns per await'], ['immediateNs', 'ns per setImmediate hop'], ['syncNs', 'ns per sync withLabels, 3 new values']]) {
    row(`${label}, records off / on (on ÷ off)`, (t) => `${f0(t.micro[k].off)} / ${f0(t.micro[k].on)} (${x(t.micro[k].ratio)})`);
  }
  for (const [f, label] of [['express', 'Express 5'], ['fastify', 'Fastify 5']]) {
    row(`${label} server CPU µs/request with withLabels, records off / on (on ÷ off)`, (t) => `${f1(t.http[f].off)} / ${f1(t.http[f].on)} (${x(t.http[f].ratio)})`);
  }
  row(
    'OTel HTTP server CPU µs/request: ALS context manager / + withLabels per activation / customlabels/otel (records off)',
    (t) => `${f1(t.otel.us['als-cm'])} / ${f1(t.otel.us['withlabels-cm'])} / ${f1(t.otel.us['customlabels-cm'])} (${f1(t.otel.usRecordsOff)})`,
  );
  row('customlabels/otel ÷ withLabels per activation', (t) => x(t.otel.customToWithLabels));
  row('customlabels/otel ÷ ALS context manager', (t) => x(t.otel.customToAls));
  row('customlabels/otel, records on ÷ off', (t) => x(t.otel.recordsOnToOff));
  row('context activations per request', (t) => t.otel.activationsPerRequest.toFixed(1));
  return lines.join('\n');
}

module.exports = {
  order: 3, // of its tables in the output
  suites: ['thread-context'],
  run,
  sections: (results) => (results.some((r) => r.threadContext) ? [{ marker: 'thread-context', table: table(results) }] : []),
};

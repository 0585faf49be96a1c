'use strict';

// Issue #26: what setting up with one flag costs per request against the
// same labels wired by hand, and what customlabels/otel's attribute mapping
// costs against the same manager without it, with hooks on and off, in the
// same runs (fresh processes, rotating order); ratios are medians of the
// per-run ratios. Server CPU per request:
//   express/fastify integration  the api app (bench/http-server.js) with
//                                labels() / the plugin, by hand
//   express/fastify register     the same app with no line of ours, started
//                                with --require customlabels/register
//   otel mapping / no mapping    bench/otel-server.js customlabels-cm with
//                                its default attribute mapping / with
//                                attributes: false
// Run on request (--only register).

const path = require('node:path');
const { median, runHttp, runCases, HOOKS_OFF } = require('../harness');
const { f1 } = require('../format');

const REGISTER = path.join(__dirname, '..', '..', 'lib', 'register.js');
const withRegister = (env) => ({ ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${REGISTER}`.trim() });
const HOOKS = [
  ['hooks', process.env],
  ['no hooks', HOOKS_OFF],
];

async function run(node, { runs }) {
  const cases = {};
  for (const [h, env] of HOOKS) {
    for (const f of ['express', 'fastify']) {
      cases[`${f} integration ${h}`] = () => runHttp(node, f, 'integration', { app: 'api', env }).then((us) => ({ us }));
      cases[`${f} register ${h}`] = () => runHttp(node, f, 'none', { app: 'api', env: withRegister(env) }).then((us) => ({ us }));
    }
    cases[`otel mapping ${h}`] = () => runHttp(node, 'otel', 'customlabels-cm', { env }).then((us) => ({ us }));
    cases[`otel no mapping ${h}`] = () => runHttp(node, 'otel', 'customlabels-cm-nomap', { env }).then((us) => ({ us }));
  }
  const samples = await runCases(node, cases, 'register', runs);
  const us = (name) => samples[name].us;
  const row = (a, b) => ({ a: median(us(a)), b: median(us(b)), ratio: median(us(a).map((x, i) => x / us(b)[i])) });
  const out = {};
  for (const [h] of HOOKS) {
    out[h] = {
      express: row(`express register ${h}`, `express integration ${h}`),
      fastify: row(`fastify register ${h}`, `fastify integration ${h}`),
      otel: row(`otel mapping ${h}`, `otel no mapping ${h}`),
    };
  }
  return { register: out };
}

function table(results) {
  const rs = results.filter((r) => r.register);
  const head = ['', ...rs.flatMap((r) => HOOKS.map(([h]) => `Node ${r.node}, ${h}`))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const rows = [
    ['express', 'Express 5: register / by hand, µs/request (÷)'],
    ['fastify', 'Fastify 5: register / by hand, µs/request (÷)'],
    ['otel', 'customlabels/otel: attribute mapping / none, µs/request (÷)'],
  ];
  for (const [k, label] of rows) {
    lines.push(`| ${label} | ${rs.flatMap((r) => HOOKS.map(([h]) => { const c = r.register[h][k]; return `${f1(c.a)} / ${f1(c.b)} (**${c.ratio.toFixed(2)}×**)`; })).join(' | ')} |`);
  }
  return lines.join('\n');
}

module.exports = {
  order: 6, // of its tables in the output
  suites: ['register'],
  onRequest: true,
  run,
  sections: (results) => (results.some((r) => r.register) ? [{ marker: 'register', table: table(results) }] : []),
};

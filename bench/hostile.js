#!/usr/bin/env node
'use strict';

// Hostile clients against an app under customlabels/register (issue #38):
// bench/apps/hostile.js (Express 5, Apollo Server 5, x-tenant as a header
// label) takes N requests from raw keep-alive sockets, in two modes, each in
// fresh processes, alternating:
//   random  every request a new x-tenant (random words; oversized values of
//           4,000 bytes; binary bytes 0x80-0xff; invalid UTF-8 sequences)
//           and a new GraphQL operation name
//   fixed   one x-tenant and one operation name throughout
//   bare    random's requests to the app without customlabels (what the app
//           itself grows by under them: Apollo keeps the documents it
//           parsed, up to its cache's bound)
// It reports, per run: every response is the one the app gives (200,
// {"data":{"hello":"world"}}); the distinct values of `tenant` and
// `graphql.operation` the reader saw from outside (`customlabels sample`
// during the load) against the cap (CUSTOMLABELS_MAX_VALUES, at most cap + 1
// with `(other)`); the app's RSS and heap after a full GC; the warnings it
// printed; anything thrown into it. Then the random runs' RSS against the
// fixed runs' (median of each).
//
// --app http: the same clients against a node:http server with no
// framework (bench/apps/hostile-http.js), where the app itself keeps
// nothing per request: what customlabels keeps shows alone.
//
//   node bench/hostile.js [--app apollo|http] [--requests 100000] [--runs 2] [--connections 8] [--max-values N]

const { spawn, execFile } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const readline = require('node:readline');
const { mulberry32 } = require('./stats');

const root = path.join(__dirname, '..');
const reader = path.join(root, 'build', 'Release', 'customlabels-reader');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
}
if (process.argv.includes('--help')) {
  console.log('node bench/hostile.js [--app apollo|http] [--requests 100000] [--runs 2] [--connections 8] [--max-values N]');
  process.exit(0);
}
const REQUESTS = Number(arg('requests', 100000));
const RUNS = Number(arg('runs', 2));
const CONNECTIONS = Number(arg('connections', 8));
const MAX_VALUES = arg('max-values', undefined);
const CAP = MAX_VALUES === undefined ? 2000 : Number(MAX_VALUES);
const APP = arg('app', 'apollo');
const APP_FILE = path.join(__dirname, 'apps', APP === 'http' ? 'hostile-http.js' : 'hostile.js');
// Labels a client chooses in that app: GraphQL's operation name is Apollo's.
const CAPPED = APP === 'http' ? 1 : 2;

// --- what the clients send ------------------------------------------------------

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
function hostileValues(seed) {
  const rand = mulberry32(seed);
  const pick = (s) => s[Math.floor(rand() * s.length)];
  const word = (min, max) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => pick(ALNUM)).join('');
  const bytes = (n, lo, hi) => Buffer.from(Array.from({ length: n }, () => lo + Math.floor(rand() * (hi - lo + 1))));
  const INVALID_UTF8 = [[0xc3, 0x28], [0xa0, 0xa1], [0xe2, 0x28, 0xa1], [0xf0, 0x28, 0x8c, 0x28], [0xff], [0xed, 0xa0, 0x80]];
  return {
    tenant(i) {
      const kind = i % 10;
      if (kind === 7) return Buffer.from('x'.repeat(3990) + word(10, 10)); // oversized
      if (kind === 8) return Buffer.concat([bytes(6, 0x80, 0xff), Buffer.from(word(4, 4)), bytes(6, 0x80, 0xff)]); // binary
      if (kind === 9) return Buffer.concat([Buffer.from(word(3, 3)), Buffer.from(INVALID_UTF8[i % INVALID_UTF8.length]), Buffer.from(word(3, 3))]); // invalid UTF-8
      return Buffer.from(word(8, 16));
    },
    operation: () => `Op_${word(6, 20)}`,
  };
}
const fixedValues = () => ({ tenant: () => Buffer.from('acme'), operation: () => 'Fixed' });

function requestBytes(port, tenant, operation) {
  const body = JSON.stringify({ query: `query ${operation} { hello }`, operationName: operation });
  const head = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\nx-tenant: `;
  return Buffer.concat([Buffer.from(head, 'latin1'), tenant, Buffer.from(`\r\n\r\n${body}`)]);
}

const EXPECTED_BODY = '{"data":{"hello":"world"}}\n';

// One keep-alive connection sending its share of requests one after
// another; resolves with { ok, wrong: [first few], sent }.
function connection(port, next) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let ok = 0;
    const wrong = [];
    const send = () => {
      const req = next();
      if (req === null) {
        socket.end();
        resolve({ ok, wrong });
        return;
      }
      socket.write(req);
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const m = /content-length: *(\d+)/i.exec(head);
        const length = m === null ? 0 : Number(m[1]);
        if (buf.length < end + 4 + length) return;
        const body = buf.subarray(end + 4, end + 4 + length).toString('utf8');
        buf = buf.subarray(end + 4 + length);
        const status = Number(head.split(' ')[1]);
        if (status === 200 && body === EXPECTED_BODY) ok += 1;
        else if (wrong.length < 5) wrong.push({ status, body: body.slice(0, 200) });
        send();
      }
    });
  });
}

// --- one run ----------------------------------------------------------------------

function sample(pid, seconds) {
  return new Promise((resolve) => {
    execFile(reader, ['sample', String(pid), '--hz', '499', '--duration', `${seconds}s`, '--json'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }, (err, stdout) => {
      const rows = stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.labels !== undefined);
      const distinct = (key) => new Set(rows.filter((r) => r.labels !== null && r.labels[key] !== undefined).map((r) => r.labels[key]));
      resolve({ error: err ? String(err.message).split('\n')[0] : null, samples: rows.reduce((n, r) => n + r.samples, 0), tenant: distinct('tenant'), operation: distinct('graphql.operation') });
    });
  });
}

async function run(mode, seed) {
  const env = {
    ...process.env,
    NODE_OPTIONS: mode === 'bare' ? '' : '--require customlabels/register',
    CUSTOMLABELS_HEADERS: 'x-tenant=tenant',
    ...(MAX_VALUES === undefined ? {} : { CUSTOMLABELS_MAX_VALUES: MAX_VALUES }),
  };
  const child = spawn(process.execPath, ['--expose-gc', APP_FILE], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines = readline.createInterface({ input: child.stdout });
  const messages = [];
  let waiting = null;
  lines.on('line', (l) => {
    messages.push(JSON.parse(l));
    if (waiting) waiting();
  });
  const message = (n) => new Promise((resolve) => (messages.length >= n ? resolve(messages[n - 1]) : (waiting = () => messages.length >= n && resolve(messages[n - 1]))));
  const { port } = await message(1);
  const values = mode === 'fixed' ? fixedValues() : hostileValues(seed);
  let i = 0;
  const next = () => (i >= REQUESTS ? null : requestBytes(port, values.tenant(i), values.operation(i++)));
  const started = process.hrtime.bigint();
  // The reader samples from outside while the load runs (after its first
  // tenth, for what the load takes then, at most a minute).
  const sampled = new Promise((resolve) => {
    const t = setInterval(() => {
      if (i < REQUESTS / 10) return;
      clearInterval(t);
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      resolve(sample(child.pid, Math.max(2, Math.min(60, Math.floor(elapsed * 8)))));
    }, 50);
  });
  const results = await Promise.all(Array.from({ length: CONNECTIONS }, () => connection(port, next)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const seen = await sampled;
  child.kill('SIGUSR2');
  const end = await message(2);
  await new Promise((resolve) => child.on('close', resolve));
  const warnings = [...stderr.matchAll(/\[CUSTOMLABELS_MAX_VALUES\] Warning: (.*)/g)].map((m) => m[1]);
  const otherStderr = stderr.split('\n').filter((l) => l !== '' && !l.includes('[CUSTOMLABELS_MAX_VALUES]') && !l.startsWith('(Use `node --trace-warnings'));
  return {
    mode,
    requests: REQUESTS,
    perSecond: Math.round(REQUESTS / seconds),
    ok: results.reduce((n, r) => n + r.ok, 0),
    wrong: results.flatMap((r) => r.wrong).slice(0, 5),
    rssMiB: end.rss / 1048576,
    heapMiB: end.heapUsed / 1048576,
    errors: end.errors,
    warnings,
    otherStderr,
    sampled: { samples: seen.samples, error: seen.error, tenants: seen.tenant.size, operations: seen.operation.size, other: seen.tenant.has('(other)') },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const order = [];
  for (let r = 0; r < RUNS; r++) order.push(...(r % 2 === 0 ? ['random', 'fixed', 'bare'] : ['bare', 'fixed', 'random']));
  const out = [];
  for (const [n, mode] of order.entries()) {
    const r = await run(mode, 1000 + n);
    out.push(r);
    console.log(JSON.stringify(r));
  }
  const rss = (mode) => out.filter((r) => r.mode === mode).map((r) => r.rssMiB);
  const ratio = median(rss('random')) / median(rss('fixed'));
  const bareRatio = median(rss('bare')) / median(rss('fixed'));
  console.log(`\nhostile clients, app ${APP}, ${REQUESTS} requests per run, ${CONNECTIONS} connections, cap ${CAP} (Node ${process.versions.node}):`);
  console.log('| run | mode | req/s | responses as the app gives them | distinct tenant / operation values sampled (cap + 1 = ' + (CAP + 1) + ') | samples | RSS MiB | heap MiB | MAX_VALUES warnings | thrown into the app |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  out.forEach((r, n) =>
    console.log(
      `| ${n + 1} | ${r.mode} | ${r.perSecond} | ${r.ok} of ${r.requests} | ${r.sampled.tenants} / ${r.sampled.operations} | ${r.sampled.samples} | ${r.rssMiB.toFixed(1)} | ${r.heapMiB.toFixed(1)} | ${r.warnings.length} | ${r.errors.length + r.otherStderr.length} |`,
    ),
  );
  console.log(`\nRSS, random over fixed: ${ratio.toFixed(3)} (medians ${median(rss('random')).toFixed(1)} and ${median(rss('fixed')).toFixed(1)} MiB; runs ${rss('random').map((x) => x.toFixed(1)).join(', ')} / ${rss('fixed').map((x) => x.toFixed(1)).join(', ')})`);
  console.log(`RSS, the same random load without customlabels over fixed: ${bareRatio.toFixed(3)} (runs ${rss('bare').map((x) => x.toFixed(1)).join(', ')}); random over that: ${(median(rss('random')) / median(rss('bare'))).toFixed(3)}`);
  const bad = out.filter((r) => r.ok !== r.requests || r.errors.length > 0 || r.otherStderr.length > 0 || r.sampled.tenants > CAP + 1 || r.sampled.operations > CAP + 1 || (r.mode === 'random' ? r.warnings.length !== CAPPED : r.warnings.length !== 0));
  // (bare: no customlabels, so the reader finds nothing; its row is the
  // app's own.) RSS within 10 % of the fixed load, or, where the app itself
  // grows more than that under the random load (bare), within 10 % of it.
  const ownGrowth = bareRatio > 1.1;
  const rssMet = ownGrowth ? median(rss('random')) / median(rss('bare')) <= 1.1 : ratio <= 1.1;
  console.log(
    ownGrowth
      ? `the app itself grows ${bareRatio.toFixed(2)}x under the random load without customlabels: the fixed load bounds nothing there; against that load, customlabels adds ${((median(rss('random')) / median(rss('bare')) - 1) * 100).toFixed(1)} %`
      : `customlabels under the random load: ${((ratio - 1) * 100).toFixed(1)} % RSS over the fixed load`,
  );
  if (bad.length > 0 || !rssMet) {
    console.log('NOT MET:', JSON.stringify(bad.map((r) => ({ mode: r.mode, ok: r.ok, wrong: r.wrong, errors: r.errors, otherStderr: r.otherStderr, warnings: r.warnings }))), `rss ${rssMet ? 'met' : 'not met'}`);
    process.exitCode = 1;
  }
}

main();

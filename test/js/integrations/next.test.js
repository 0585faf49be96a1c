'use strict';

// Next.js 15 and 16 (`next build`, then `next start`) with
// customlabels/register and no line of customlabels in the app
// (test/js/fixtures/next-app): every request's CPU carries `method` and
// `route` = the route pattern, never the raw path, read from outside at
// checkpoints in an app router route handler, a server component, a server
// action and a pages router API route; without OpenTelemetry, and with an
// SDK registered in instrumentation.js (then with the active span's ids).
// The Next.js installs are test/peers/next15 and next16; the app is copied
// there and built once per change of its files.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen, REGISTERED } = require('./harness');
const { testIf } = require('../helpers');

const template = path.join(__dirname, '..', 'fixtures', 'next-app');
const wrapper = path.join(__dirname, '..', 'fixtures', 'next-server.js');
const peers = path.join(__dirname, '..', '..', 'peers');
const [major, minor] = process.versions.node.split('.').map(Number);
const tenants = ['acme', 'globex'];

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(f) : fs.statSync(f).mtimeMs);
  }
  return t;
}

// The app copied into the peer folder and built, unless its build is newer
// than every file of the template.
function build(peer) {
  const dir = path.join(peers, peer);
  const stamp = path.join(dir, '.next', 'BUILD_ID');
  if (fs.existsSync(stamp) && fs.statSync(stamp).mtimeMs > newest(template)) return dir;
  for (const e of fs.readdirSync(template)) fs.cpSync(path.join(template, e), path.join(dir, e), { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(dir, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 300000,
  });
  return dir;
}

// The id of the app's one server action (Next.js's manifest of them).
function actionId(dir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, '.next', 'server', 'server-reference-manifest.json'), 'utf8'));
  return Object.keys(manifest.node)[0];
}

function requestsFor(dir) {
  const action = actionId(dir);
  const out = [];
  tenants.forEach((tenant, t) => {
    const h = (kind) => ({ 'x-tenant': tenant, 'x-id': `${kind}${t}` });
    out.push({ path: `/api/items/${t}`, headers: h('r') });
    out.push({ path: `/blog/post-${t}`, headers: h('c') });
    out.push({ method: 'POST', path: `/shop/sku-${t}`, headers: { ...h('a'), 'next-action': action, 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component' }, chunks: ['["x"]'] });
    out.push({ path: `/api/legacy/${t}`, headers: h('p') });
  });
  return out;
}

function tgidOf(tid) {
  return Number(fs.readFileSync(`/proc/${tid}/status`, 'utf8').match(/^Tgid:\s*(\d+)$/m)[1]);
}

// Next.js 16 needs Node.js >= 20.9.
const node20_9 = major > 20 || (major === 20 && minor >= 9);
describe.each([
  ['next15', 'without OpenTelemetry', true],
  ['next15', 'with an OpenTelemetry SDK in instrumentation.js', true],
  ['next16', 'without OpenTelemetry', node20_9],
  ['next16', 'with an OpenTelemetry SDK in instrumentation.js', node20_9],
])('%s under customlabels/register, %s', (peer, otel, runs) => {
  let run;
  let responses;
  const testHere = testIf(runs, 'Next.js 16 needs Node.js >= 20.9');

  beforeAll(async () => {
    if (!runs) return;
    const dir = build(peer);
    // (next-server.js preloads register into next start itself.)
    const env = { ...REGISTERED, NODE_OPTIONS: '', NEXT_OTEL: otel.startsWith('with') ? '1' : '0' };
    ({ run, responses } = await serveUnderLoad(wrapper, [dir], requestsFor(dir), 2, env, (tid) => tgidOf(tid)));
  }, 400000);

  testHere(`${peer} ${otel}: every request was answered, and next start exited cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
  });

  testHere(`${peer} ${otel}: in the route handler, the server component, the server action and the pages API route the reader sees method, route pattern and tenant`, () => {
    const kinds = run.checkpoints.map((cp) => cp.name.replace(/ [a-z]\d+$/, '')).sort();
    expect(kinds).toEqual(['pages api', 'pages api', 'route handler', 'route handler', 'server action', 'server action', 'server component', 'server component']);
    expectEveryCheckpointSeen(run.checkpoints);
    if (otel.startsWith('with')) for (const cp of run.checkpoints) expect(cp.expect.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });
});

'use strict';

// Next.js end to end (test/js/fixtures/next-app, built with `next build`,
// run by `next start` under customlabels/register: test/js/fixtures/
// next-server.js): every request's CPU carries `method` and `route` = the
// route pattern, read from outside at checkpoints in an app router route
// handler, a server component, a server action and a pages router API route.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('../harness');

const template = path.join(__dirname, '..', '..', 'fixtures', 'next-app');
const wrapper = path.join(__dirname, '..', '..', 'fixtures', 'next-server.js');
const tenants = ['acme', 'globex'];

function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(f) : fs.statSync(f).mtimeMs);
  }
  return t;
}

// The app copied into `dir` (a folder with Next.js installed) and built,
// unless its build is newer than every file of the template.
function build(dir) {
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

// `dir`: a folder with Next.js installed (built here); `otel`: with an
// OpenTelemetry SDK in instrumentation.js; `env`: register's (next-server.js
// preloads it into next start itself).
async function run({ dir, otel = false, env = {} }) {
  build(dir);
  return serveUnderLoad(wrapper, [dir], requestsFor(dir), 2, { ...env, NODE_OPTIONS: '', NEXT_OTEL: otel ? '1' : '0' }, (tid) => tgidOf(tid));
}

function served({ responses }) {
  expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
}

function checkpoints({ run: r }, { otel = false } = {}) {
  const kinds = r.checkpoints.map((cp) => cp.name.replace(/ [a-z]\d+$/, '')).sort();
  expect(kinds).toEqual(['pages api', 'pages api', 'route handler', 'route handler', 'server action', 'server action', 'server component', 'server component']);
  expectEveryCheckpointSeen(r.checkpoints);
  if (otel) for (const cp of r.checkpoints) expect(cp.expect.trace_id).toMatch(/^[0-9a-f]{32}$/);
}

module.exports = { run, served, checkpoints };

'use strict';

// Every HTTP request, on any server: under customlabels/register, a service
// with no framework of the table (node:http, https, the http2 compat API,
// polka) is labelled by the HTTP integration (lib/integrations/http) with
// the request's method, the configured header labels and the process
// labels, read from outside at checkpoints in the handler, after awaits, in
// a timer, in a body's 'data' and 'end' listeners and in the 404 handler;
// a timer of the process that fires during the load carries none of them.
// HTTP/2 is labelled where Node.js publishes 'http2.server.stream.start'
// (22.17+, 24.2+); elsewhere its requests run unlabelled, and the test says
// so.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen, REGISTERED } = require('./harness');
const { chunkedJson } = require('./http-client');
const { runNode, testIf } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'http-app.js');
const tenants = ['acme', 'globex', 'initech'];
const [major, minor] = process.versions.node.split('.').map(Number);
// Node.js lines that publish the http2 server channel.
const http2Channel = major > 24 || (major === 24 && minor >= 2) || (major === 22 && minor >= 17) || major === 23;

function requests() {
  const out = [];
  for (let round = 0; round < 2; round++) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      out.push({ path: `/users/${t}`, headers: { 'x-tenant': tenant, 'x-id': `u${id}` } });
      out.push({
        method: 'POST',
        path: `/items/${t}`,
        headers: { 'x-tenant': tenant, 'x-id': `i${id}`, 'content-type': 'application/json' },
        chunks: chunkedJson({ items: Array.from({ length: 2000 }, (_, k) => ({ k, tenant })) }, 4),
      });
      out.push({ path: `/no/such/${t}`, headers: { 'x-tenant': tenant, 'x-id': `n${id}` } });
    });
  }
  return out;
}

const ENV = { ...REGISTERED, CUSTOMLABELS_LABELS: 'service=demo' };

let tls;
beforeAll(() => {
  tls = fs.mkdtempSync(path.join(os.tmpdir(), 'customlabels-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(tls, 'key.pem'), '-out', path.join(tls, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-days', '1'], { stdio: 'ignore' });
});
afterAll(() => fs.rmSync(tls, { recursive: true, force: true }));

describe.each([
  ['http', 'node:http', true],
  ['https', 'node:https', true],
  ['http2', 'the http2 compat API', http2Channel],
  ['polka', 'polka on node:http (a router the table does not know)', true],
])('%s under customlabels/register', (kind, what, labelled) => {
  let run;
  let responses;
  beforeAll(async () => {
    ({ run, responses } = await serveUnderLoad(fixture, [kind], requests(), 4, { ...ENV, CUSTOMLABELS_FIXTURE_TLS: tls, CUSTOMLABELS_FIXTURE_EXPECT: labelled ? 'labels' : 'none' }));
  }, 120000);

  test(`${what}: every request was served and the server closed cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const counts = {};
    for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts).toEqual({ 200: 12, 404: 6 });
    for (const r of responses.filter((x) => x.status === 200 && x.body.startsWith('{"n"'))) expect(JSON.parse(r.body)).toEqual({ n: 2000 });
  });

  test(
    labelled
      ? `${what}: the reader sees method, the tenant header and the process label in the handler, after awaits, in a timer, in the body's listeners and the 404 handler; a process timer sees none`
      : `${what}: Node.js ${process.versions.node} publishes no http2 server channel, so its requests run unlabelled (and nothing is wrong)`,
    () => {
      const count = (prefix) => run.checkpoints.filter((c) => c.name.startsWith(`${prefix} `)).length;
      expect({ handler: count('handler'), awaits: count('after awaits'), timer: count('timer'), data: count('body data'), end: count('body end'), missing: count('404'), idle: count('idle timer') }).toEqual({
        handler: 6,
        awaits: 6,
        timer: 6,
        data: 6,
        end: 6,
        missing: 6,
        idle: 3,
      });
      expectEveryCheckpointSeen(run.checkpoints);
    },
  );
});

test('CUSTOMLABELS_INTEGRATIONS=-http leaves a plain node:http server unlabelled; frameworks keep their own labels', async () => {
  const source = `
    const http = require('node:http');
    const { currentLabels } = require('.');
    const server = http.createServer((req, res) => res.end(JSON.stringify(currentLabels())));
    server.listen(0, '127.0.0.1', async () => {
      const res = await fetch('http://127.0.0.1:' + server.address().port + '/', { headers: { 'x-tenant': 'acme' } });
      console.log(await res.text());
      server.close();
    });`;
  const on = await runNode(source, { args: ['--require', 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' } });
  const off = await runNode(source, { args: ['--require', 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant', CUSTOMLABELS_INTEGRATIONS: '-http' } });
  expect({ on: on.stderr, off: off.stderr }).toEqual({ on: '', off: '' });
  expect(JSON.parse(on.stdout)).toEqual({ method: 'GET', tenant: 'acme' });
  expect(JSON.parse(off.stdout)).toEqual({});
});

// Where AsyncLocalStorage keeps its stores on async resources (Node.js 18,
// 20, 22 without its flag), a scope entered in a request's own callback
// stays on its connection's resource: the next request on that connection
// must start from its own labels, never from what the previous one ended
// with (a route, a tenant). Keep-alive connections, requests to a route and
// to no route, interleaved, under each framework that enters its route
// that way, and a plain server; each handler reads its labels in process.
test.each([
  ['fastify', "const app = require('fastify')(); app.get('/r/:id', async () => { await sleep(1); return currentLabels(); }); app.setNotFoundHandler((q, reply) => reply.code(404).send(currentLabels())); await app.listen({ port: 0, host: '127.0.0.1' }); return { port: app.server.address().port, close: () => app.close() };"],
  ['express', "const app = require('express')(); app.get('/r/:id', async (q, s) => { await sleep(1); s.json(currentLabels()); }); app.use((q, s) => s.status(404).json(currentLabels())); const server = app.listen(0, '127.0.0.1'); await new Promise((r) => server.once('listening', r)); return { port: server.address().port, close: () => server.close() };"],
  ['node:http', "const server = require('node:http').createServer(async (q, s) => { if (q.url.startsWith('/r/')) await sleep(1); s.statusCode = q.url.startsWith('/r/') ? 200 : 404; s.end(JSON.stringify(currentLabels())); }); await new Promise((r) => server.listen(0, '127.0.0.1', r)); return { port: server.address().port, close: () => server.close() };"],
])('%s: on a keep-alive connection, no request starts from the labels the previous one ended with', async (name, serve) => {
  const r = await runNode(
    `const http = require('node:http');
    const { currentLabels } = require('.');
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    (async () => {
      const { port, close } = await (async () => { ${serve} })();
      const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
      const get = (path, tenant) => new Promise((resolve) => http.get({ port, path, agent, headers: { 'x-tenant': tenant } }, (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => resolve({ path, tenant, status: res.statusCode, labels: JSON.parse(b) })); }));
      const out = await Promise.all(Array.from({ length: 60 }, (_, i) => get(i % 2 ? '/r/' + i : '/none/' + i, 't' + (i % 3))));
      console.log(JSON.stringify(out));
      agent.destroy();
      await close();
    })();`,
    { args: ['--require', 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' } },
  );
  expect(r.stderr).toBe('');
  // (Fastify 5's 404s carry no route where register labels it through its
  // handler channel: every line but 18.)
  const fastifyChannel = 'hasSubscribers' in require('node:diagnostics_channel').tracingChannel('customlabels.probe');
  const wrong = JSON.parse(r.stdout).filter((x) => {
    const route = name === 'node:http' ? undefined : x.status === 200 ? '/r/:id' : name === 'fastify' && fastifyChannel ? undefined : '(unmatched)';
    return x.labels.tenant !== x.tenant || x.labels.method !== 'GET' || x.labels.route !== route;
  });
  expect(wrong).toEqual([]);
});

// A route that reads its own body ('data' and 'end' listeners, no body
// parser) sees its route there, on every line: the body's chunks come from
// the connection's context, not the route's. The body is sent in delayed
// pieces, so later chunks arrive in callbacks of their own.
const BODY_CASES = [
  ['express', "const app = require('express')(); app.post('/r/:id', (q, s) => read(q, (l) => s.json(l))); const server = app.listen(0, '127.0.0.1'); await new Promise((r) => server.once('listening', r)); return { port: server.address().port, close: () => server.close(), route: '/r/:id' };"],
  ['koa', "const Koa = require('koa'); const Router = require('@koa/router').Router ?? require('@koa/router'); const app = new Koa(); const router = new Router(); router.post('/r/:id', async (ctx) => { ctx.body = await new Promise((r) => read(ctx.req, r)); }); app.use(router.routes()); const server = app.listen(0, '127.0.0.1'); await new Promise((r) => server.once('listening', r)); return { port: server.address().port, close: () => server.close(), route: '/r/:id' };"],
  ['node:http', "const server = require('node:http').createServer((q, s) => read(q, (l) => s.end(JSON.stringify(l)))); await new Promise((r) => server.listen(0, '127.0.0.1', r)); return { port: server.address().port, close: () => server.close() };"],
];
// (@koa/router 15 needs Node.js 20: on 18 the Koa case skips, saying so.)
for (const [name, serve] of BODY_CASES) {
  testIf(name !== 'koa' || Number(process.versions.node.split('.')[0]) >= 20, '@koa/router 15 needs Node.js >= 20')(`${name}: a body read in a route's own data and end listeners is labelled with the route`, () => bodyRead(serve));
}

async function bodyRead(serve) {
  const r = await runNode(
    `const http = require('node:http');
    const { currentLabels } = require('.');
    // Labels at the first and the last chunk, and at the end.
    function read(req, done) {
      const seen = [];
      req.on('data', () => seen.push(currentLabels()));
      req.on('end', () => done({ first: seen[0], last: seen[seen.length - 1], chunks: seen.length, end: currentLabels() }));
    }
    (async () => {
      const { port, close, route } = await (async () => { ${serve} })();
      const post = (id) => new Promise((resolve) => {
        const req = http.request({ port, method: 'POST', path: '/r/' + id, headers: { 'x-tenant': 't' + id, 'transfer-encoding': 'chunked' } }, (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => resolve({ id, route, got: JSON.parse(b) })); });
        let n = 0;
        const next = () => (n++ === 3 ? req.end('x') : (req.write('x'.repeat(100)), setTimeout(next, 10)));
        next();
      });
      console.log(JSON.stringify(await Promise.all([1, 2, 3].map(post))));
      await close();
    })();`,
    { args: ['--require', 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' } },
  );
  expect(r.stderr).toBe('');
  for (const { id, route, got } of JSON.parse(r.stdout)) {
    const want = { method: 'POST', tenant: `t${id}`, ...(route === undefined ? {} : { route }) };
    expect({ id, chunks: got.chunks > 1 }).toEqual({ id, chunks: true });
    expect({ id, first: got.first, last: got.last, end: got.end }).toEqual({ id, first: want, last: want, end: want });
  }
}

// fastify.inject() (and any request Fastify is handed without a server, as
// serverless adapters do) gets its labels for its handler only: the code
// that called inject() keeps its own afterwards.
// (Fastify 5's inject() needs Node.js 20: light-my-request's cookie is an
// ES module it requires.)
testIf(Number(process.versions.node.split('.')[0]) >= 20, "Fastify 5's inject() needs Node.js >= 20")('fastify: a request made with inject() is labelled, and the code that called inject() keeps its own labels', async () => {
  const r = await runNode(
    `const { withLabels, currentLabels } = require('.');
    const app = require('fastify')();
    app.get('/r/:id', async () => currentLabels());
    withLabels({ caller: 'me' }, async () => {
      const res = await app.inject({ url: '/r/1', headers: { 'x-tenant': 'acme' } });
      const after = currentLabels();
      const timer = await new Promise((resolve) => setTimeout(() => resolve(currentLabels()), 1));
      console.log(JSON.stringify({ inside: res.json(), after, timer }));
      await app.close();
    });`,
    { args: ['--require', 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' } },
  );
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({
    inside: { caller: 'me', method: 'GET', route: '/r/:id', tenant: 'acme' },
    after: { caller: 'me' },
    timer: { caller: 'me' },
  });
});

// Pipelined requests arrive in one chunk and are parsed in one callback:
// the second starts from its own labels, not from where the first ended.
test('node:http and express: pipelined requests each start from their own labels', async () => {
  const r = await runNode(
    `const net = require('node:net');
    const { currentLabels } = require('.');
    const app = require('express')();
    app.get('/r/:id', (q, s) => s.json(currentLabels()));
    app.use((q, s) => s.status(404).json(currentLabels()));
    const server = app.listen(0, '127.0.0.1', () => {
      const socket = net.connect(server.address().port, '127.0.0.1');
      let raw = '';
      socket.on('data', (d) => (raw += d));
      socket.on('end', () => {
        console.log(JSON.stringify(raw.match(/\\{[^{}]*\\}/g).map((b) => JSON.parse(b))));
        server.close();
      });
      socket.end('GET /r/1 HTTP/1.1\\r\\nHost: x\\r\\nX-Tenant: a\\r\\n\\r\\nGET /none HTTP/1.1\\r\\nHost: x\\r\\nX-Tenant: b\\r\\nConnection: close\\r\\n\\r\\n');
    });`,
    { args: ['--require', 'customlabels/register'], env: { CUSTOMLABELS_HEADERS: 'x-tenant=tenant' } },
  );
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual([
    { method: 'GET', tenant: 'a', route: '/r/:id' },
    { method: 'GET', tenant: 'b', route: '(unmatched)' },
  ]);
});

'use strict';

// customlabels/hapi on @hapi/hapi 21, read from outside: at every
// checkpoint of the request lifecycle the reader, from another process, sees
// exactly the request's method, route path and tenant on the server thread.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { chunkedJson } = require('./http-client');
const { runNode } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'hapi-app.js');
const tenants = ['acme', 'globex', 'initech'];

function requests() {
  const out = [];
  for (const round of [0, 1]) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      const headers = { 'x-tenant': tenant };
      out.push({ path: `/api/v1/users/${100 + t}`, headers: { ...headers, 'x-id': `u${id}` } });
      out.push({
        method: 'POST',
        path: '/api/v1/items',
        headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
        chunks: chunkedJson({ items: Array.from({ length: 3000 }, (_, k) => ({ k, tenant })) }, 5),
      });
      out.push({ path: '/api/v1/fail', headers: { ...headers, 'x-id': `f${id}` } });
      out.push({ path: `/no/such/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
    });
  }
  return out;
}

describe('@hapi/hapi', () => {
  let run;
  let responses;

  beforeAll(async () => {
    ({ run, responses } = await serveUnderLoad(fixture, [], requests()));
  }, 180000);

  test('every request was served and the server stopped cleanly', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(12).fill(200), ...Array(6).fill(404), ...Array(6).fill(500)]);
  });

  test('at every lifecycle checkpoint the reader sees exactly that request\'s labels on the server thread', () => {
    const count = (prefix) => run.checkpoints.filter((c) => c.name.startsWith(`${prefix} `)).length;
    expect(count('onRequest')).toBe(24);
    expect(count('onPreAuth')).toBe(18); // not for 404s: hapi's notFound route has no lifecycle before its handler
    expect(count('auth scheme')).toBe(6);
    expect(count('params validation')).toBe(6);
    expect(count('pre-handler')).toBe(6);
    expect(count('handler after awaits')).toBe(6);
    expect(count('handler after a timer')).toBe(6);
    expect(count('response validation')).toBe(6);
    expect(count('handler of a chunked payload')).toBe(6);
    expect(count('onPreResponse')).toBe(24);
    expect(count('onPostResponse')).toBe(24);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});

describe('registration', () => {
  test('bad options fail the registration with a TypeError and a stable code; `route: false` leaves the route out; other servers are untouched', async () => {
    const out = await runNode(`
      const Hapi = require('@hapi/hapi');
      const { plugin } = require('./lib/integrations/hapi');
      const { currentLabels } = require('.');
      (async () => {
        const bad = Hapi.server();
        const err = await bad.register({ plugin, options: { labels: 'tenant' } }).catch((e) => e);
        const server = Hapi.server();
        await server.register({ plugin, options: { route: false } });
        await server.register({ plugin }); // once: a no-op
        server.route({ method: 'GET', path: '/x/{id}', handler: () => currentLabels() });
        const res = await server.inject('/x/1');
        const other = Hapi.server();
        other.route({ method: 'GET', path: '/y', handler: () => currentLabels() });
        const untouched = await other.inject('/y');
        console.log(JSON.stringify({ name: err.name, code: err.code, labels: res.result, other: untouched.result }));
      })();
    `);
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ name: 'TypeError', code: 'ERR_CUSTOMLABELS_INVALID_OPTION', labels: { method: 'GET' }, other: {} });
  });
});

test('a hapi whose Request lacks the wrapped methods: the plugin registers as a no-op with one warning, never an error', async () => {
  const out = await runNode(`
    const { plugin } = require('./lib/integrations/hapi');
    const warnings = [];
    process.on('warning', (w) => warnings.push(w.code));
    // As a future hapi might look: a per-server Request without _lifecycle, or no _core at all.
    class Request { _execute() {} _reply() {} }
    const results = [{ _core: { Request } }, {}].map((server) => plugin.register(server, {}));
    setImmediate(() => console.log(JSON.stringify({ results, warnings, untouched: Request.prototype._execute.name })));
  `);
  expect(out.stderr).toMatch(/^\(node:\d+\) \[CUSTOMLABELS_UNSUPPORTED_FRAMEWORK\] Warning: customlabels\/hapi: this hapi's Request has no _lifecycle; requests run unlabelled/);
  expect(JSON.parse(out.stdout)).toEqual({ results: [null, null], warnings: ['CUSTOMLABELS_UNSUPPORTED_FRAMEWORK'], untouched: '_execute' });
});

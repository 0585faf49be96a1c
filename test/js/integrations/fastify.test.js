'use strict';

// customlabels/fastify on Fastify 4 and 5, read from outside: from
// onRequest on, every later hook, the body parser, the handler, onSend and
// onResponse run with exactly the request's method, route and tenant.

const path = require('node:path');
const { REGISTERED, asPackage, serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { chunkedJson } = require('./http-client');

const fixture = path.join(__dirname, '..', 'fixtures', 'fastify-app.js');
const tenants = ['acme', 'globex', 'initech'];

function requests() {
  const out = [];
  for (const round of [0, 1]) {
    tenants.forEach((tenant, t) => {
      const id = `${round}-${t}`;
      const headers = { 'x-tenant': tenant };
      out.push({ path: `/api/v1/users/${t}`, headers: { ...headers, 'x-id': `u${id}` } });
      out.push({
        method: 'POST',
        path: '/api/v1/items',
        headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
        chunks: chunkedJson({ items: Array.from({ length: 5000 }, (_, k) => ({ k, tenant })) }, 6),
      });
      out.push({ method: 'POST', path: '/count', headers: { ...headers, 'x-id': `c${id}`, 'content-type': 'application/x-count' }, chunks: ['a'.repeat(1000), 'b'.repeat(1000), 'c'] });
      out.push({ path: `/nothing/here/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
    });
  }
  return out;
}

describe.each([
  ['fastify', 'by hand'],
  ['fastify4', 'by hand'],
  ['fastify', 'with customlabels/register'],
  ['fastify4', 'with customlabels/register'],
])('%s, wired %s', (fastifyModule, wiring) => {
  let run;
  let responses;

  beforeAll(async () => {
    const registered = wiring !== 'by hand';
    // Under register, Fastify 4 is loaded as an app has it: `fastify`.
    const module = registered && fastifyModule === 'fastify4' ? asPackage('fastify4', 'fastify') : fastifyModule;
    ({ run, responses } = await serveUnderLoad(fixture, [module], requests(), 6, registered ? REGISTERED : {}));
  }, 180000);

  test('every request was served and the app exited cleanly', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(18);
    expect(responses.filter((r) => r.status === 404)).toHaveLength(6);
  });

  test('at every checkpoint the reader sees exactly that request\'s labels on the server thread', () => {
    const count = (prefix) => run.checkpoints.filter((c) => c.name.startsWith(`${prefix} `)).length;
    expect(count('preHandler')).toBe(12);
    expect(count('handler after awaits')).toBe(6);
    expect(count('handler after a chunked body')).toBe(6);
    expect(count('body parser')).toBe(6);
    expect(count('404 handler')).toBe(6);
    expect(count('onSend')).toBe(24);
    expect(count('onResponse')).toBe(24);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});

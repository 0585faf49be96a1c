'use strict';

// customlabels/express on Express 4 and 5, read from outside: at every
// checkpoint the reader, from another process, must see exactly the
// request's method, route template and tenant on the server's thread.

const path = require('node:path');
const { serveUnderLoad, expectEveryCheckpointSeen, REGISTERED, asPackage } = require('./harness');
const { chunkedJson } = require('./http-client');

const fixture = path.join(__dirname, '..', 'fixtures', 'express-app.js');
const tenants = ['acme', 'globex', 'initech'];

function requestsFor(round) {
  const out = [];
  tenants.forEach((tenant, t) => {
    const id = `${round}-${t}`;
    const headers = { 'x-tenant': tenant };
    out.push({ path: `/api/v1/users/${100 + t}`, headers: { ...headers, 'x-id': `u${id}` } });
    out.push({
      method: 'POST',
      path: '/api/v1/items',
      headers: { ...headers, 'x-id': `i${id}`, 'content-type': 'application/json' },
      chunks: chunkedJson({ items: Array.from({ length: 2000 }, (_, k) => ({ k, tenant })) }, 5),
    });
    out.push({ path: '/fail', headers: { ...headers, 'x-id': `f${id}` } });
    out.push({ path: `/no/such/${t}`, headers: { ...headers, 'x-id': `n${id}` } });
  });
  return out;
}

describe.each([
  ['express', 'by hand'],
  ['express4', 'by hand'],
  ['express', 'with customlabels/register'],
  ['express4', 'with customlabels/register'],
])('%s, wired %s', (expressModule, wiring) => {
  let run;
  let responses;

  beforeAll(async () => {
    const env = wiring === 'by hand' ? {} : REGISTERED;
    // Under register, express 4 is loaded as an app has it: `express`.
    const module = wiring !== 'by hand' && expressModule === 'express4' ? asPackage('express4', 'express') : expressModule;
    ({ run, responses } = await serveUnderLoad(fixture, [module], [...requestsFor(0), ...requestsFor(1)], 6, env));
  }, 180000);

  test('every request was served and the app exited cleanly', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(responses.map((r) => r.status).sort()).toEqual(
      [...Array(6).fill(200), ...Array(6).fill(200), ...Array(6).fill(500), ...Array(6).fill(404)].sort(),
    );
  });

  test('at every checkpoint the reader sees exactly that request\'s labels on the server thread', () => {
    const names = run.checkpoints.map((c) => c.name.replace(/ [a-z0-9-]+$/, ''));
    // Each kind of checkpoint was reached once per request of its kind.
    const count = (prefix) => names.filter((n) => n === prefix).length;
    expect(count('app middleware')).toBe(24);
    expect(count('param callback')).toBe(6);
    expect(count('user handler after awaits')).toBe(6);
    expect(count('items handler after a chunked body')).toBe(6);
    expect(count('items timer')).toBe(6);
    expect(count('error middleware')).toBe(6);
    expect(count('404 handler')).toBe(6);
    expectEveryCheckpointSeen(run.checkpoints);
  });

  test('requests interleaved: the checkpoints of different requests alternate', () => {
    const ids = run.checkpoints.map((c) => c.name.split(' ').pop());
    let switches = 0;
    for (let i = 1; i < ids.length; i++) if (ids[i] !== ids[i - 1]) switches += 1;
    // Strictly one request after another would give 23 switches for 24 requests.
    expect(switches).toBeGreaterThan(30);
  });
});

'use strict';

// customlabels/hono on Hono 4 with @hono/node-server 2 and 1, read from
// outside: at every checkpoint the reader, from another process, sees
// exactly the request's method, route path and tenant on the server thread.

const path = require('node:path');
const { REGISTERED, serveUnderLoad, expectEveryCheckpointSeen } = require('./harness');
const { mixedRequests, statusCounts, countOf } = require('./requests');
const { testIf, runNode } = require('../helpers');

const fixture = path.join(__dirname, '..', 'fixtures', 'hono-app.js');
const major = Number(process.versions.node.split('.')[0]);


describe.each([
  ['@hono/node-server', major >= 20, 'by hand'],
  ['@hono/node-server1', true, 'by hand'],
  ['@hono/node-server1', true, 'with customlabels/register'],
])('hono on %s, wired %s', (serverModule, runs, wiring) => {
  let run;
  let responses;
  const testHere = testIf(runs, '@hono/node-server 2 needs Node.js >= 20');

  beforeAll(async () => {
    const env = wiring === 'by hand' ? {} : REGISTERED;
    if (runs) ({ run, responses } = await serveUnderLoad(fixture, [serverModule], mixedRequests({ user: (t) => `/api/v1/users/${100 + t}`, items: () => '/api/v1/items', fail: '/fail' }), 6, env));
  }, 180000);

  testHere(`hono on ${serverModule}: every request was served and the server closed cleanly`, () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(statusCounts(responses)).toEqual({ 200: 12, 404: 6, 500: 6 });
  });

  testHere(`hono on ${serverModule}: at every checkpoint the reader sees exactly that request's labels on the server thread`, () => {
    expect(countOf(run, 'app middleware before next')).toBe(24);
    expect(countOf(run, 'app middleware after next')).toBe(24);
    expect(countOf(run, 'sub-app middleware')).toBe(6);
    expect(countOf(run, 'user handler after awaits')).toBe(6);
    expect(countOf(run, 'user handler after a timer')).toBe(6);
    expect(countOf(run, 'items handler after a chunked body')).toBe(6);
    expect(countOf(run, 'onError')).toBe(6);
    expect(countOf(run, 'notFound')).toBe(6);
    expectEveryCheckpointSeen(run.checkpoints);
  });
});

test('hono: `route: false` labels the method alone; app.all() routes are routes; bad options throw a TypeError with a stable code', async () => {
  const out = await runNode(`
    const { Hono } = require('hono');
    const { labels } = require('./lib/integrations/hono');
    const { currentLabels } = require('.');
    (async () => {
      const plain = new Hono();
      plain.use(labels({ route: false }));
      plain.get('/x/:id', (c) => c.json(currentLabels()));
      const all = new Hono();
      all.use(labels());
      all.use('/a/*', async (c, next) => next());
      all.all('/a/b', (c) => c.json(currentLabels()));
      let err;
      try { labels({ route: 'yes' }); } catch (e) { err = e; }
      console.log(JSON.stringify({
        plain: await (await plain.request('/x/1')).json(),
        all: await (await all.request('/a/b', { method: 'PUT' })).json(),
        err: { name: err.name, code: err.code },
      }));
    })();
  `);
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({
    plain: { method: 'GET' },
    all: { method: 'PUT', route: '/a/b' },
    err: { name: 'TypeError', code: 'ERR_CUSTOMLABELS_INVALID_OPTION' },
  });
});
